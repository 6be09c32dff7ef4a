"""Games defined in Python, in both forms (moves, batch), against independent brute forces that
search the game's literal positions, against each other, and against the library's own engine."""

import functools
import pathlib

import numpy as np
import pytest

import sgtab


def mex(values):
    m = 0
    while m in values:
        m += 1
    return m


# Kayles: knock down one pin or two adjacent pins from rows of pins. A position of the search is
# the sorted tuple of every row on the table, so its value comes from the game tree alone, not
# from the Sprague-Grundy sum theorem that the table's sums rely on.
@functools.lru_cache(maxsize=None)
def kayles_search(rows):
    children = set()
    for i, n in enumerate(rows):
        rest = rows[:i] + rows[i + 1 :]
        for take in (1, 2):
            for left in range(0, n - take + 1):
                right = n - take - left
                children.add(tuple(sorted(r for r in rest + (left, right) if r)))
    return mex({kayles_search(c) for c in children})


def kayles_moves(n):
    return [sgtab.sum(a, n - take - a) for take in (1, 2) if take <= n for a in range((n - take) // 2 + 1)]


def kayles_batch(p):
    # Row i: for each take and each left part a, the sum (a, n - take - a): in row order.
    which, options = [], []
    for row, n in enumerate(p.tolist()):
        for take in (1, 2):
            if take <= n:
                a = np.arange((n - take) // 2 + 1)
                which.append(np.full(len(a), row))
                options.append(np.stack([a, n - take - a], axis=1))
    if not which:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 2), dtype=np.int64)
    return np.concatenate(which), np.concatenate(options)


def test_a_1_d_game_with_sums_equals_the_game_tree_search():
    t = sgtab.build(sgtab.Game(16, kayles_moves))
    assert [int(v) for v in t.values] == [kayles_search((n,) if n else ()) for n in range(16)]
    assert t.spec == "import:kayles_moves" and t.engine == "in-order"
    # And sgtab's own Kayles, further.
    assert np.array_equal(sgtab.build(sgtab.Game(600, kayles_moves, name="kayles")).values, sgtab.build("0.77:600").values)


def test_the_batch_form_and_the_librarys_engine_give_the_same_table():
    moves = sgtab.build(sgtab.Game(400, kayles_moves))
    batch = sgtab.build(sgtab.Game(400, batch=kayles_batch))
    generic = sgtab.build(sgtab.Game(400, kayles_moves), backend="generic")
    generic_batch = sgtab.build(sgtab.Game(400, batch=kayles_batch), backend="generic", threads=2)
    assert generic.engine == generic_batch.engine == "generic"
    for other in (batch, generic, generic_batch):
        assert np.array_equal(other.values, moves.values) and other.rule == moves.rule


# A knight moving toward the corner (0, 0) of a board; landing on the diagonal at (a, a) it
# splits into two knights at (a, 0) and (0, a), side by side (a sum in 2-D). Ranked by x + y.
# The search follows the literal knights.
MOVES = ((-2, -1), (-2, 1), (-1, -2), (1, -2))
N = 9


@functools.lru_cache(maxsize=None)
def knights_search(knights):
    children = set()
    for i, (x, y) in enumerate(knights):
        rest = knights[:i] + knights[i + 1 :]
        for dx, dy in MOVES:
            a, b = x + dx, y + dy
            if 0 <= a < N and 0 <= b < N:
                landed = ((a, 0), (0, a)) if a == b and a > 0 else ((a, b),)
                children.add(tuple(sorted(rest + landed)))
    return mex({knights_search(c) for c in children})


def knight(x, y):
    out = []
    for dx, dy in MOVES:
        a, b = x + dx, y + dy
        if 0 <= a < N and 0 <= b < N:
            out.append(sgtab.sum((a, 0), (0, a)) if a == b and a > 0 else (a, b))
    return out


def knight_batch(p):
    which, options = [], []
    for dx, dy in MOVES:
        a, b = p[:, 0] + dx, p[:, 1] + dy
        ok = (a >= 0) & (b >= 0) & (a < N) & (b < N)
        rows = np.nonzero(ok)[0]
        a, b = a[ok], b[ok]
        split = (a == b) & (a > 0)
        # Parts: (a, b), or (a, 0) and (0, a) where it splits; (-1, -1) for no second knight.
        first = np.stack([a, np.where(split, 0, b)], axis=1)
        second = np.stack([np.where(split, 0, -1), np.where(split, a, -1)], axis=1)
        parts = np.stack([first, second], axis=1)
        which.append(rows)
        options.append(parts)
    # Rows out of order on purpose: the options are grouped by row by sgtab.
    return np.concatenate(which), np.concatenate(options)


def rank_batch(p):
    return p[:, 0] + p[:, 1]


def test_a_2_d_game_with_rank_and_sums_equals_the_search():
    t = sgtab.build(sgtab.Game(shape=(N, N), moves=knight, rank=lambda x, y: x + y))
    assert t.values.shape == (N, N) and t.engine == "generic"
    want = np.array([[knights_search(((x, y),)) for y in range(N)] for x in range(N)])
    assert np.array_equal(t.values, want)
    b = sgtab.build(sgtab.Game(shape=(N, N), batch=knight_batch, rank=rank_batch))
    assert np.array_equal(b.values, want)
    # Without rank: some option's index is above its position's (x + 1, y - 2), so the library's
    # engine orders the move graph.
    plain = sgtab.build(sgtab.Game((N, N), knight))
    assert np.array_equal(plain.values, want) and plain.engine == "generic"
    assert np.array_equal(sgtab.build(sgtab.Game((N, N), batch=knight_batch)).values, want)


def test_k_d_shapes_index_row_major(tmp_path, cli):
    # A 3-D game: take 1 from any coordinate; its value is the XOR... of parities: sum mod 2.
    def moves(a, b, c):
        return [(a - 1, b, c)] * (a > 0) + [(a, b - 1, c)] * (b > 0) + [(a, b, c - 1)] * (c > 0)

    t = sgtab.build(sgtab.Game((3, 4, 5), moves, name="cube"))
    assert t.values.shape == (3, 4, 5) and t.shape == (3, 4, 5)
    a, b, c = np.indices((3, 4, 5))
    assert np.array_equal(t.values, (a + b + c) % 2)
    assert t.value(2, 3, 4) == 1 and t.value((1, 1, 0)) == 0
    path = t.save(tmp_path)
    assert pathlib.Path(path).name == "cube.sgt"
    # The command line reads it: sgq at a point, show its shape.
    assert cli.sgq("value", "--table", path, input="2 3 4\n1 1 0\n").stdout.split() == ["1", "0"]
    assert cli.sgq("value", "import:cube", "--tables", tmp_path, input="0 0 1\n").stdout.split() == ["1"]
    assert "3x4x5" in cli.sgtab("show", path).stdout.replace("×", "x")
    with pytest.raises(IndexError, match="coordinate 2 `4` is off the grid"):
        t.value(0, 4, 0)


def test_command_line_tables_of_scripts_load_and_python_tables_import(tmp_path, cli, root):
    cli.sgtab("build", "lua:examples/games/stones139.lua:N=1000", "-d", tmp_path)
    (file,) = tmp_path.glob("lua-stones139@*.sgt")
    script = sgtab.load(file)
    ours = sgtab.build(sgtab.Game(1000, lambda n: [n - t for t in (1, 3, 9) if t <= n], name="stones"))
    assert np.array_equal(script.values, ours.values) and script.rule == ours.rule
    ours.save(tmp_path / "stones.sgt")
    assert cli.sgq("value", "import:stones", "--tables", tmp_path, input="999 10\n").stdout.split() == [str(ours.value(999)), str(ours.value(10))]
    assert "import:stones" in cli.sgtab("verify", tmp_path / "stones.sgt").stdout


def test_an_option_above_its_position_goes_to_the_move_graph():
    # Heaps counted down from the top: position p moves to p + 1 and p + 2 (below 20).
    t = sgtab.build(sgtab.Game(20, lambda p: [q for q in (p + 1, p + 2) if q < 20]))
    assert t.engine == "generic"
    want = [0] * 20
    for p in reversed(range(20)):
        want[p] = mex({want[q] for q in (p + 1, p + 2) if q < 20})
    assert t.values.tolist() == want


def test_a_cycle_is_an_error_naming_it():
    with pytest.raises(sgtab.Error, match=r"import:loop: the moves have a cycle.*0 → 1 → 2 → 0"):
        sgtab.build(sgtab.Game(3, lambda p: [(p + 1) % 3], name="loop"))


def test_an_exception_in_moves_propagates_with_its_position():
    def moves(n):
        if n == 37:
            raise ZeroDivisionError("boom")
        return [n - 1] if n else []

    with pytest.raises(ZeroDivisionError, match="boom") as raised:
        sgtab.build(sgtab.Game(100, moves))
    assert raised.value.__notes__ == ["sgtab: raised by moves(37), building import:moves"]
    assert raised.traceback[-1].name == "moves"

    def batch(p):
        raise KeyError("batch")

    with pytest.raises(KeyError) as raised:
        sgtab.build(sgtab.Game(10, batch=batch))
    assert "batch(the 10 positions 0 to 9)" in raised.value.__notes__[0]

    def rank(x, y):
        return 1 // (x - 2)

    with pytest.raises(ZeroDivisionError) as raised:
        sgtab.build(sgtab.Game((4, 4), lambda x, y: [], rank=rank))
    assert raised.value.__notes__ == ["sgtab: raised by rank(2, 0), building import:_lambda_"] or "rank(2, 0)" in raised.value.__notes__[0]


@pytest.mark.parametrize(
    "shape,moves,message",
    [
        (10, lambda n: [n + 20], r"at position 0: option 1 is position 20, outside the shape 0..9"),
        (10, lambda n: ["x"], r"option 1 is str 'x', not a position"),
        (10, lambda n: None, r"moves returned None"),
        (10, lambda n: [(1, "a")], r"option 1 is the sum .* whose part str 'a'"),
        ((3, 3), lambda x, y: [(x, y, 0)], r"not a position of this game \(a tuple of 2 ints\)"),
        ((3, 3), lambda x, y: [(5, 0)], r"option 1 is position \(5, 0\), outside the shape 3×3 \(coordinate 1 is 0..=2\)"),
        ((3, 3), lambda x, y: [7], r"option 1 is int 7, not a position \(a tuple of 2 ints\)"),
    ],
)
def test_bad_options_are_one_line_naming_the_position(shape, moves, message):
    with pytest.raises(sgtab.Error, match=message):
        sgtab.build(sgtab.Game(shape, moves, name="bad"))


@pytest.mark.parametrize(
    "batch,message",
    [
        (lambda p: p, r"not a pair \(which, options\)"),
        (lambda p: (np.zeros(1), np.zeros(1)), r"batch\(the 10 positions 0 to 9\): which is an array of float64, not of ints"),
        (lambda p: (np.array([0, 99]), np.array([0, 0])), r"which\[1\] is 99, not a row of the"),
        (lambda p: (np.arange(len(p)), np.arange(len(p)) + 50), r"options\[0\] \(of position 0\): position 50 is outside the shape 0..9"),
        (lambda p: (np.arange(len(p)), np.zeros((len(p), 3, 2), dtype=int)), r"options has shape \[10, 3, 2\]"),
    ],
)
def test_bad_batches_are_one_line(batch, message):
    with pytest.raises(sgtab.Error, match=message):
        sgtab.build(sgtab.Game(10, batch=batch, name="bad"))


def test_games_are_checked_when_made():
    with pytest.raises(ValueError, match="size 2 of the shape is 0"):
        sgtab.Game((3, 0), lambda x, y: [])
    with pytest.raises(ValueError, match="more than"):
        sgtab.Game((1 << 20, 1 << 20), lambda x, y: [])
    with pytest.raises(TypeError, match="not both"):
        sgtab.Game(3, lambda n: [], batch=lambda p: p)
    with pytest.raises(TypeError, match="needs its moves"):
        sgtab.Game(3)
    with pytest.raises(ValueError, match="bad game name"):
        sgtab.Game(3, lambda n: [], name="../x")
    g = sgtab.Game(shape=(4, 5), moves=knight)
    assert (g.shape, g.name, g.spec) == ((4, 5), "knight", "import:knight")


def test_sum_is_the_tuple_of_its_parts():
    assert sgtab.sum(1, 2) == (1, 2) and sgtab.sum() == ()
    # A move to nothing is worth 0; to two equal heaps, 0 too.
    t = sgtab.build(sgtab.Game(4, lambda n: [sgtab.sum()] if n == 1 else ([sgtab.sum(1, 1)] if n == 2 else [])))
    assert t.values.tolist() == [0, 1, 1, 0]


def test_a_signal_handlers_exception_stops_a_build():
    import signal

    calls = []

    def moves(n):
        calls.append(n)
        return [n - 1] if n else []

    def alarm(*_):
        raise TimeoutError("alarm")

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(TimeoutError):
            sgtab.build(sgtab.Game(10**7, moves))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert len(calls) < 10**7
