"""Tables of sgtab's own games built from Python: the same values, rules and file bytes as the
command line's, the values as a NumPy array in the game's shape."""

import os
import shutil
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest

import sgtab

# One spec of each family (and a script), small enough to build in a blink.
SPECS = [
    ("chess:10", (1024,)),
    ("sub:1,3,9:500", (500,)),
    ("lasker:300", (300,)),
    ("funny:40", (40,)),
    ("0.77:500", (500,)),
    ("4.3:300", (300,)),
    ("grundy:200", (200,)),
    ("queen:20", (20, 20)),
    ("rook:12", (12, 12)),
    ("king:9", (9, 9)),
    ("lua:examples/games/knight.lua:N=8", (8, 8)),
    ("lua:examples/games/ed.lua:N=12", None),
]


@pytest.mark.parametrize("spec,shape", SPECS)
def test_values_rules_and_files_are_the_command_lines(spec, shape, cli, root, tmp_path, monkeypatch):
    monkeypatch.chdir(root)
    t = sgtab.build(spec)
    built = cli.sgtab("build", spec, "-d", tmp_path / "cli")
    (file,) = (tmp_path / "cli").glob("*.sgt")
    assert t.file_name == file.name, built.stdout
    # The same file, byte for byte: values, rule, header, checksum.
    ours = pathlib_bytes(t.save(tmp_path / "py.sgt"))
    assert ours == file.read_bytes()
    # The values as the CLI dumps them to NumPy: dtype and shape too.
    cli.sgtab("dump", file, "--format", "npy", "-o", tmp_path / "v.npy")
    want = np.load(tmp_path / "v.npy")
    assert t.values.dtype == want.dtype and t.values.shape == want.shape
    assert np.array_equal(t.values, want)
    if shape is not None:
        assert t.values.shape == shape == t.shape
    loaded = sgtab.load(file)
    assert (loaded.spec, loaded.rule) == (t.spec, t.rule)
    assert np.array_equal(loaded.values, t.values)
    assert not t.values.flags.writeable


def pathlib_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_kayles_rule_and_positions_past_the_table(cli, tmp_path):
    t = sgtab.build("0.77:2000")
    assert t.spec == "0.77:2000" and t.values.shape == (2000,)
    r = t.rule
    assert (r.pre, r.period, r.saltus, r.proven) == (71, 12, 0, True)
    assert str(r) == "g(n+12) = g(n) for n >= 71 (proven)"
    assert t.value(10**12) == t.values[71 + (10**12 - 71) % 12]
    # Past the table as `sgq value` answers, position by position.
    t.save(tmp_path / "0.77-2000.sgt")
    ns = [0, 70, 71, 1999, 2000, 10**6, 10**12, 2**63]
    got = cli.sgq("value", "--table", tmp_path / "0.77-2000.sgt", input="\n".join(map(str, ns)) + "\n").stdout.split()
    assert [t.value(n) for n in ns] == [int(v) for v in got]
    assert t.value(np.int64(70)) == t.value(70)


def test_a_checked_rule_answers_with_a_warning_and_no_rule_refuses(cli, tmp_path):
    t = sgtab.build("lasker:100")
    assert t.rule.saltus == 4 and t.rule.period == 4 and not t.rule.proven
    with pytest.warns(UserWarning, match="answered from its rule"):
        assert t.value(1000) == 999
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert t.value(99) == t.values[99]
    g = sgtab.build("grundy:10")
    assert g.rule is None
    with pytest.raises(IndexError, match=r"position `100` is past the table: grundy:10 has 10 entries .*sgtab build grundy:101"):
        g.value(100)
    with pytest.raises(IndexError, match="found `-1`"):
        g.value(-1)


def test_boards_and_k_d_positions():
    q = sgtab.build("queen:8")
    assert q.values.shape == (8, 8)
    assert q.value(3, 5) == q.values[3, 5] == q.value((3, 5))
    # Wythoff: (1, 2) and (2, 1) are losses.
    assert q.values[1, 2] == q.values[2, 1] == 0
    with pytest.raises(IndexError, match=r"the y `9` is off the board: queen:8 is 8×8.*sgtab build queen:10"):
        q.value(3, 9)
    with pytest.raises(TypeError, match="give 2 numbers, not 1"):
        q.value(3)
    with pytest.raises(TypeError, match="ints"):
        q.value(3, 2.5)


def test_loaded_tables_of_the_command_line(cli, tmp_path):
    cli.sgtab("build", "queen:16", "sub:2,5:300", "-d", tmp_path)
    q = sgtab.load(tmp_path / "queen-16.sgt")
    assert q.spec == "queen:16" and q.engine is None
    assert np.array_equal(q.values, sgtab.build("queen:16").values)
    s = sgtab.load(str(tmp_path / "sub-2_5-300.sgt"))
    assert s.rule == sgtab.build("sub:2,5:300").rule


def test_bad_specs_and_files(root):
    with pytest.raises(ValueError, match="unknown game `kayles`"):
        sgtab.build("kayles")
    with pytest.raises(ValueError, match="chess:99"):
        sgtab.build("chess:99")
    with pytest.raises(ValueError, match="unknown backend"):
        sgtab.build("lasker", backend="cuda")
    with pytest.raises(ValueError, match="threads must be at least 1"):
        sgtab.build("lasker", threads=0)
    with pytest.raises(TypeError, match="spec"):
        sgtab.build(42)
    with pytest.raises(ValueError, match="cannot read no-such.lua"):
        sgtab.build("lua:no-such.lua")
    with pytest.raises(ValueError, match="bad script spec"):
        sgtab.build(f"lua:{root}/examples/games/knight.lua:N=")
    # An imported table's values cannot be computed: the line says how its table is made.
    with pytest.raises(sgtab.Error, match=r"import:k holds values .*sgtab import"):
        sgtab.build("import:k")


def test_cpp_games_build_as_on_the_command_line(root):
    # The one resolver runs C++ games here too (compiled once, cached): the table equals the
    # Lua script's of the same game.
    if shutil.which(os.environ.get("CXX", "c++")) is None:
        pytest.skip("no C++ compiler (apt-get install g++)")
    cpp = sgtab.build(f"cpp:{root}/examples/games/stones139.cpp:N=300")
    lua = sgtab.build(f"lua:{root}/examples/games/stones139.lua:N=300")
    assert cpp.values.shape == (300,)
    assert np.array_equal(cpp.values, lua.values)
    with pytest.raises(sgtab.Error, match="did not compile"):
        sgtab.build(f"cpp:{root}/examples/games/stones139.lua:N=10")


def test_a_scripts_file_is_read_once(root, tmp_path):
    # The spec is resolved once: the script read once, to name its table and run it.
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    log = tmp_path / "opens"
    code = "import sgtab; sgtab.build('lua:examples/games/knight.lua:N=8')"
    traced = ["strace", "-f", "-e", "trace=open,openat", "-o", log, sys.executable, "-c", code]
    done = subprocess.run(traced, cwd=root, capture_output=True, text=True)
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    opens = [line for line in log.read_text().splitlines() if "knight.lua" in line]
    assert len(opens) == 1, "\n".join(opens)


def test_a_failing_script_raises_the_command_lines_line(tmp_path, cli):
    script = tmp_path / "rt.lua"
    script.write_text("shape = 10\nfunction moves(n)\n  if n == 7 then error('no') end\n  return {}\nend\n")
    with pytest.raises(sgtab.Error) as raised:
        sgtab.build(f"lua:{script}")
    line = cli.sgtab("build", f"lua:{script}", "-d", tmp_path, ok=False).stderr.strip()
    assert line == f"sgtab: error: {raised.value}"
    assert "at position 7" in line and "rt.lua:3: no" in line


def test_bad_files_raise(tmp_path):
    with pytest.raises(FileNotFoundError):
        sgtab.load(tmp_path / "none.sgt")
    (tmp_path / "junk.sgt").write_bytes(b"not a table at all, clearly")
    with pytest.raises(sgtab.Error, match="junk.sgt"):
        sgtab.load(tmp_path / "junk.sgt")
    # A file that is not a table of the same game is never replaced.
    t = sgtab.build("lasker:50")
    with pytest.raises(sgtab.Error):
        t.save(tmp_path / "junk.sgt")
    assert (tmp_path / "junk.sgt").read_bytes() == b"not a table at all, clearly"
    # A directory takes the table under its file name.
    assert t.save(tmp_path).endswith("lasker-50.sgt")


def test_native_engines_let_other_threads_run():
    # A build in one thread while this one keeps time: with the GIL let go, this thread runs
    # many times inside the build; holding it, the build would leave it no turn at all.
    span = []

    def build():
        start = time.perf_counter()
        sgtab.build("chess:24", backend="simd")
        span.extend([start, time.perf_counter()])

    builder = threading.Thread(target=build)
    builder.start()
    ticks = []
    while builder.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    builder.join()
    start, end = span
    inside = [t for t in ticks if start < t < end]
    assert end - start > 0.02, "the build ended too soon to tell"
    assert len(inside) >= 3, f"{len(inside)} turns in a build of {end - start:.3f} s"
