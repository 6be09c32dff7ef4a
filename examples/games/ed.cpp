// E&D (eat and divide): two heaps; a move eats one heap and divides the other into two
// non-empty heaps. Position (i, j) is the heaps of i + 1 and j + 1 stones.
// sgtab build cpp:examples/games/ed.cpp:N=256
#include <sgtab.h>
#ifndef N
#define N 64
#endif

sgtab::Shape shape() { return {N, N}; }

// Both new heaps are smaller than the pair was: i + j goes down.
long long rank(sgtab::Pos p) { return p[0] + p[1]; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  for (long long heap : {p[0] + 1, p[1] + 1})
    for (long long a = 1; a < heap; a++) o.add(a - 1, heap - a - 1);
}
