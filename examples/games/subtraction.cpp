// A subtraction game with a list parameter: a move takes s stones for any s in S.
// sgtab build 'cpp:examples/games/subtraction.cpp:S={2,5,7},N=1000'   (the same as sub:2,5,7:1000)
#include <sgtab.h>
#ifndef N
#define N 1024
#endif
#ifndef S
#define S {1, 3, 4}
#endif

sgtab::Shape shape() { return N; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long n = p;
  for (long long s : S)
    if (s <= n) o.add(n - s);
}
