// A Funny Stone Game (UVa 1378), one stone at a time: position r is a stone with r piles to
// its right. A move takes the stone away and puts two stones on piles further right (the
// same pile allowed): two stones side by side, a sum.
// sgtab build cpp:examples/games/funny.cpp:N=32
#include <sgtab.h>
#ifndef N
#define N 32
#endif

sgtab::Shape shape() { return N; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long r = p;
  for (long long j = 0; j < r; j++)
    for (long long k = j; k < r; k++) o.sum(j, k);
}
