# Lasker's Nim through sgtab from Python: the plain form (`moves`, one call a heap: take any
# number, or split the heap into two, a sum) or, with --batch, the batch form (one call a block
# of heaps, NumPy arrays in and out: a take is (q, -1), a split (a, n - a)). With --check it
# prints the table's checksum (sum of the values, last value) as the other peers do; without,
# it only builds (see stones139_sgtab.py).
import sys

import sgtab


def moves(n):
    return list(range(n)) + [sgtab.sum(a, n - a) for a in range(1, n // 2 + 1)]


def batch(p):
    import numpy as np

    blocks = []
    for n in p.tolist():
        options = np.full((n + n // 2, 2), -1)
        options[:n, 0] = np.arange(n)
        a = np.arange(1, n // 2 + 1)
        options[n:, 0] = a
        options[n:, 1] = n - a
        blocks.append(options)
    which = np.repeat(np.arange(len(p)), [len(b) for b in blocks])
    return which, np.concatenate(blocks)


def main():
    n = int(sys.argv[1])
    game = sgtab.Game(n, batch=batch) if "--batch" in sys.argv else sgtab.Game(n, moves)
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else None
    t = sgtab.build(game, threads=threads)
    if "--check" in sys.argv:
        print(int(t.values.sum()), int(t.values[-1]))


if __name__ == "__main__":
    main()
