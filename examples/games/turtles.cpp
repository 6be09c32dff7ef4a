// Turning Turtles, a coin-turning game: W coins in a row, bit i set when coin i shows heads.
// A move turns one head to tails and may also turn one coin to its left (a lower bit) either
// way. Every move lowers the row as a number, so no rank is needed.
// sgtab build cpp:examples/games/turtles.cpp:W=16
#include <sgtab.h>
#ifndef W
#define W 12
#endif

sgtab::Shape shape() { return 1LL << W; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long row = p;
  for (int i = 0; i < W; i++) {
    if (!(row >> i & 1)) continue;
    long long turned = row ^ (1LL << i);
    o.add(turned);
    for (int j = 0; j < i; j++) o.add(turned ^ (1LL << j));
  }
}
