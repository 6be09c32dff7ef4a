// A knight on an N×N board that may only move toward the corner (0, 0): two squares one way
// and one the other, always lowering x + y. A 2-D game: positions are squares (x, y).
// sgtab build cpp:examples/games/knight.cpp:N=64
#include <sgtab.h>
#ifndef N
#define N 8
#endif

sgtab::Shape shape() { return {N, N}; }

// Every move lowers x + y: the squares of one diagonal are computed at once.
long long rank(sgtab::Pos p) { return p[0] + p[1]; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  static const int d[4][2] = {{-2, -1}, {-2, 1}, {-1, -2}, {1, -2}};
  for (auto &s : d) {
    long long a = p[0] + s[0], b = p[1] + s[1];
    if (a >= 0 && b >= 0 && a < N && b < N) o.add(a, b);
  }
}
