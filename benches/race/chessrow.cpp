// One row of the HDU 5724 chess game in plain C++ (W cells, a bitmask): an array of values,
// a mark array, a mex loop. Argument: W.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
    int w = std::atoi(argv[1]);
    long n_max = 1L << w;
    std::vector<unsigned> g(n_max);
    std::vector<long> mark(w + 2, -1);
    for (long row = 0; row < n_max; row++) {
        for (int i = 1; i < w; i++) {
            if (!(row >> i & 1)) continue;
            for (int j = i - 1; j >= 0; j--) {
                if (!(row >> j & 1)) {
                    mark[g[row ^ (1L << i) ^ (1L << j)]] = row;
                    break;
                }
            }
        }
        unsigned m = 0;
        while (mark[m] == row) m++;
        g[row] = m;
    }
    unsigned long long sum = 0;
    for (unsigned v : g) sum += v;
    std::printf("%llu %u\n", sum, g[n_max - 1]);
}
