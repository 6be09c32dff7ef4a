// Taking stones 1/3/9 (Nowcoder 122 B): a move takes 1, 3 or 9 stones from the heap.
// sgtab build cpp:examples/games/stones139.cpp:N=1000000
#include <sgtab.h>
#ifndef N
#define N 1024
#endif

sgtab::Shape shape() { return N; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long n = p;
  for (long long take : {1, 3, 9})
    if (take <= n) o.add(n - take);
}
