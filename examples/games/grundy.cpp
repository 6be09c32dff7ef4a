// Grundy's game: a move splits a heap into two unequal non-empty heaps.
// sgtab build cpp:examples/games/grundy.cpp:N=60000 (the built-in grundy:N is faster still)
#include <sgtab.h>
#ifndef N
#define N 1000
#endif

sgtab::Shape shape() { return N; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long n = p;
  for (long long a = 1; a <= (n - 1) / 2; a++) o.sum(a, n - a);
}
