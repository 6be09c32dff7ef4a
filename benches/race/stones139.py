# Taking stones 1/3/9, tabulated as a contestant writes it: a list of values; for each heap a
# set of its options' values; the mex by counting up from 0.
import sys

N = int(sys.argv[1])
g = []
for n in range(N):
    seen = set()
    for take in (1, 3, 9):
        if take <= n:
            seen.add(g[n - take])
    m = 0
    while m in seen:
        m += 1
    g.append(m)
print(sum(g), g[-1])
