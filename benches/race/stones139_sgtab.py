# Taking stones 1/3/9 through sgtab from Python: the plain form (`moves`, one call a heap,
# written as the plain table's loop is) or, with --batch, the batch form (one call a block of
# heaps, NumPy arrays in and out). With --check it prints the table's checksum (sum of the
# values, last value) as the other peers do; without, it only builds, so that a timed run does
# the work the plain Python table does and no more (NumPy's import is the batch form's alone).
import sys

import sgtab

TAKES = (1, 3, 9)


def moves(n):
    out = []
    for take in TAKES:
        if take <= n:
            out.append(n - take)
    return out


def batch(p):
    import numpy as np

    options = np.subtract.outer(p, TAKES).ravel()
    which = np.repeat(np.arange(len(p)), len(TAKES))
    if options.min() < 0:
        # Only the smallest heaps have takes that do not fit: filter where there are any.
        legal = options >= 0
        which, options = which[legal], options[legal]
    return which, options


def main():
    n = int(sys.argv[1])
    game = sgtab.Game(n, batch=batch) if "--batch" in sys.argv else sgtab.Game(n, moves)
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else None
    t = sgtab.build(game, threads=threads)
    if "--check" in sys.argv:
        print(int(t.values.sum()), int(t.values[-1]))


if __name__ == "__main__":
    main()
