// Grundy's game in plain C++: an array of values, a mark array, a mex loop.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
    long n_max = std::atol(argv[1]);
    std::vector<unsigned> g(n_max);
    long size = 1;
    while (size < 2 * n_max + 2) size <<= 1;
    std::vector<long> mark(size, -1);
    for (long n = 0; n < n_max; n++) {
        for (long a = 1; a <= (n - 1) / 2; a++) mark[g[a] ^ g[n - a]] = n;
        unsigned m = 0;
        while (mark[m] == n) m++;
        g[n] = m;
    }
    unsigned long long sum = 0;
    for (unsigned v : g) sum += v;
    std::printf("%llu %u\n", sum, g[n_max - 1]);
}
