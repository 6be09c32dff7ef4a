"""sgtab from Python: Sprague-Grundy tables of impartial games.

    import sgtab
    t = sgtab.build("0.77:2000")      # any spec `sgtab build` takes
    t.values                          # a NumPy array in the game's shape
    t.rule                            # None, or .pre .period .saltus .proven
    t.value(10**12)                   # past the table by its rule, as `sgq value` answers
    t.save("kayles.sgt")              # the file `sgtab build` writes; sgtab.load(path) reads any

    g = sgtab.Game(shape=(30, 30), moves=knight, rank=lambda x, y: x + y)
    t2 = sgtab.build(g)               # moves(*position) returns options: ints (1-D), tuples
                                      # (k-D), or sgtab.sum(a, b, ...) for several games
    sgtab.Game(shape=10**6, batch=f)  # f(positions) -> (which, options), NumPy arrays

docs/python.md in the sgtab repository has the whole of it.
"""

from ._sgtab import Error, Game, Rule, Table, build, gpu, load, sum

# `sum` is left out of `from sgtab import *`: it would hide the builtin.
__all__ = ["Error", "Game", "Rule", "Table", "build", "load"]
