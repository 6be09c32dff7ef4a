// One row of the chess game (HDU 5724): W cells, bit i set when cell i holds a chip, bit 0
// the rightmost cell. A move takes one chip to the first empty cell to its right, jumping over
// the chips between; a chip with no empty cell to its right cannot move.
// sgtab build cpp:examples/games/chessrow.cpp:W=22
#include <sgtab.h>
#ifndef W
#define W 16
#endif

sgtab::Shape shape() { return 1LL << W; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long row = p;
  for (int i = 1; i < W; i++) {
    if (!(row >> i & 1)) continue;
    for (int j = i - 1; j >= 0; j--) {
      if (!(row >> j & 1)) {
        o.add(row ^ (1LL << i) ^ (1LL << j));
        break;
      }
    }
  }
}
