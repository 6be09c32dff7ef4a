// Taking stones 1/3/9 in plain C++: an array of values, a mark array, a mex loop.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
    long n_max = std::atol(argv[1]);
    std::vector<unsigned> g(n_max);
    std::vector<long> mark(16, -1);
    const int takes[] = {1, 3, 9};
    for (long n = 0; n < n_max; n++) {
        for (int take : takes)
            if (take <= n) mark[g[n - take]] = n;
        unsigned m = 0;
        while (mark[m] == n) m++;
        g[n] = m;
    }
    unsigned long long sum = 0;
    for (unsigned v : g) sum += v;
    std::printf("%llu %u\n", sum, g[n_max - 1]);
}
