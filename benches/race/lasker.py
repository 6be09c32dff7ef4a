# Lasker's Nim, tabulated as a contestant writes it: take any number of stones, or split the
# heap into two non-empty heaps (worth the XOR of their values).
import sys

N = int(sys.argv[1])
g = []
for n in range(N):
    seen = set()
    for rest in range(n):
        seen.add(g[rest])
    for a in range(1, n // 2 + 1):
        seen.add(g[a] ^ g[n - a])
    m = 0
    while m in seen:
        m += 1
    g.append(m)
print(sum(g), g[-1])
