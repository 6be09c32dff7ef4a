// Take at most half: a move takes from 1 to n / 2 stones from a heap of n.
// sgtab build cpp:examples/games/half.cpp:N=100000
#include <sgtab.h>
#ifndef N
#define N 1000
#endif

sgtab::Shape shape() { return N; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long n = p;
  for (long long take = 1; take <= n / 2; take++) o.add(n - take);
}
