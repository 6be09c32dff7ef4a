/* A game library's own cost, apart from sgtab's process: loads LIB (a game compiled as sgtab
 * compiles it, or any library of sgtab.h's C interface that answers SGTAB_VALUES) and calls
 * sgtab_call as the generic engine does on one thread, blocks of consecutive positions, each
 * computed by the library from those before it. Prints the sum of the values and the last one,
 * as benches/race/GAME.cpp do.
 *
 *   cc -O2 -I src/native -o driver benches/race/driver.c -ldl
 *   c++ -O2 -std=c++17 -shared -fPIC -funroll-loops -fvisibility=hidden -falign-loops=64 \
 *       -I src/native -DN=40000 -o lasker.so examples/games/lasker.cpp
 *   ./driver ./lasker.so [BLOCK]                      (BLOCK: positions a call, 65536)
 *
 * sgtab compiles each game twice, with -funroll-loops and without, and keeps the faster as it
 * runs (docs/native.md): build both to compare them. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgtab.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: driver LIB.so [BLOCK]\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "driver: %s\n", dlerror());
    return 1;
  }
  int (*call_)(struct sgtab_call *) = (int (*)(struct sgtab_call *))dlsym(lib, "sgtab_call");
  if (!call_) {
    fprintf(stderr, "driver: no sgtab_call in %s\n", argv[1]);
    return 1;
  }
  volatile uint64_t current = 0;
  struct sgtab_call c;
  memset(&c, 0, sizeof c);
  c.abi = SGTAB_ABI;
  c.what = SGTAB_SHAPE;
  c.current = &current;
  if (call_(&c) != 0 || !(c.flags & 1)) {
    fprintf(stderr, "driver: the library answers no SGTAB_VALUES\n");
    return 1;
  }
  uint64_t n = 1;
  for (uint32_t j = 0; j < c.axes; j++) n *= c.sizes[j];
  uint64_t block = argc > 2 ? strtoull(argv[2], NULL, 10) : 65536;
  uint32_t *table = calloc(n, sizeof *table);
  uint64_t *positions = malloc((block ? block : 1) * sizeof *positions);
  if (!table || !positions || block == 0) return 1;
  uint32_t vmax = 0;
  for (uint64_t lo = 0; lo < n; lo += block) {
    uint64_t hi = lo + block < n ? lo + block : n;
    for (uint64_t p = lo; p < hi; p++) positions[p - lo] = p;
    memset(&c, 0, sizeof c);
    c.abi = SGTAB_ABI;
    c.what = SGTAB_VALUES;
    c.current = &current;
    c.positions = positions;
    c.count = hi - lo;
    c.values = table;
    c.fill = table;
    c.known = lo;
    c.vmax = vmax;
    int rc = call_(&c);
    if (rc != 0) {
      fprintf(stderr, "driver: position %llu: %s\n", (unsigned long long)current,
              rc == 2 ? "an option not below its position" : c.error ? c.error : "failed");
      return 1;
    }
    for (uint64_t p = lo; p < hi; p++) vmax = table[p] > vmax ? table[p] : vmax;
  }
  unsigned long long sum = 0;
  for (uint64_t p = 0; p < n; p++) sum += table[p];
  printf("%llu %u\n", sum, table[n - 1]);
  return 0;
}
