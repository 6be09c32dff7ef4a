// Lasker's Nim ("Nim or not Nim?", HDU 3032): a move takes any number of stones from the
// heap, or splits it into two non-empty heaps (a sum: the two heaps stand side by side).
// sgtab build cpp:examples/games/lasker.cpp:N=40000
#include <sgtab.h>
#ifndef N
#define N 1024
#endif

sgtab::Shape shape() { return N; }

void moves(sgtab::Pos p, sgtab::Options &o) {
  long long n = p;
  for (long long rest = 0; rest < n; rest++) o.add(rest);
  for (long long a = 1; a <= n / 2; a++) o.sum(a, n - a);
}
