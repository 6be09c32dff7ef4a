# The race's Python contestants in one process, build alone: the plain Python table (the peer
# benches/race/GAME.py, run as it is) against sgtab's plain form (`moves`) and batch form (NumPy
# arrays) from benches/race/GAME_sgtab.py, in interleaved rounds, after NumPy and sgtab are
# imported. Prints the median CPU time of each (the process's, every thread's) and of the wall
# clock, and each one's ratio to the plain table. With --generic, each form also runs through
# the library's generic engine on one thread (backend="generic", threads=1) instead of in index
# order on the calling thread.
#
#   python3 benches/race/python_inprocess.py [ROUNDS] [--generic]      (default 5 rounds)
import contextlib
import io
import pathlib
import runpy
import statistics
import sys
import time

import numpy  # noqa: F401 (imported before timing: the batch form's import is not its build)

import sgtab

RACE = pathlib.Path(__file__).resolve().parent
args = [a for a in sys.argv[1:] if a != "--generic"]
rounds = int(args[0]) if args else 5
generic = "--generic" in sys.argv[1:]


def timed(f):
    cpu, wall = time.process_time(), time.perf_counter()
    f()
    return time.process_time() - cpu, time.perf_counter() - wall


def plain_table(game, n):
    def run():
        sys.argv = [str(RACE / f"{game}.py"), str(n)]
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(sys.argv[0], run_name="__main__")

    return run


for game, n in (("stones139", 10**6), ("lasker", 5000)):
    forms = runpy.run_path(str(RACE / f"{game}_sgtab.py"), run_name="forms")
    contestants = {
        "python": plain_table(game, n),
        "py-moves": lambda: sgtab.build(sgtab.Game(n, forms["moves"])),
        "py-batch": lambda: sgtab.build(sgtab.Game(n, batch=forms["batch"])),
    }
    if generic:
        on_engine = {"backend": "generic", "threads": 1}
        contestants["moves-gen"] = lambda: sgtab.build(sgtab.Game(n, forms["moves"]), **on_engine)
        contestants["batch-gen"] = lambda: sgtab.build(sgtab.Game(n, batch=forms["batch"]), **on_engine)
    times = {name: [] for name in contestants}
    for _ in range(rounds):
        for name, run in contestants.items():
            times[name].append(timed(run))
    base = statistics.median(c for c, _ in times["python"])
    print(f"{game} to {n}, build alone, medians of {rounds} (ratio = CPU time / the plain table's):")
    for name, ts in times.items():
        cpu, wall = statistics.median(c for c, _ in ts), statistics.median(w for _, w in ts)
        print(f"  {name:<9} cpu {cpu:7.3f} s  wall {wall:7.3f} s  {cpu / base:6.2f}x")
