//! Games given as Lua scripts (`examples/games/*.lua`), end to end through the binaries: each
//! seed game's script builds exactly sgtab's built-in table, each other script equals an
//! independent game-tree search over its literal positions (tests/common: no mex, no XOR), and
//! every kind of bad script is one line of error. Then the tables made from scripts work with
//! every tool: `verify` without the script file, `build --from`, `sgq` on a 2-D table, `import`
//! of dumped values.

#![cfg(feature = "lua")]

mod common;

use common::{Position, Search, run, scratch, text};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use sgtab::table::{Table, format};
use std::fs;
use std::path::{Path, PathBuf};

const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");
const SGQ: &str = env!("CARGO_BIN_EXE_sgq");

fn example(name: &str) -> String {
    format!("{}/examples/games/{name}.lua", env!("CARGO_MANIFEST_DIR"))
}

/// Builds `lua:SCRIPT[:PARAMS]` into `dir` with `extra` options and reads the table back.
fn build(dir: &Path, spec: &str, extra: &[&str]) -> (Table, PathBuf) {
    let mut args = vec!["build", spec, "--dir", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run(SGTAB, &args, b"");
    assert!(out.status.success(), "{spec}: {}", text(&out.stderr));
    let line = text(&out.stdout);
    let path = line.split_whitespace().nth(1).map(PathBuf::from).expect("wrote PATH");
    (format::read(&path).unwrap(), path)
}

/// Runs sgtab with `args` and expects a refusal: a non-zero status, nothing on stdout, one line
/// on stderr that holds each of `want`, and no panic.
fn refused(args: &[&str], want: &[&str]) -> String {
    let out = run(SGTAB, args, b"");
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded: {}", text(&out.stdout));
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: `{err}` lacks `{w}`");
    }
    err
}

#[test]
fn each_seed_games_script_builds_the_built_in_table() {
    let dir = scratch("lua_games", "seeds");
    let cases = [
        ("stones139", "N=1024", "sub:1,3,9:1024"),
        ("lasker", "N=1024", "lasker:1024"),
        ("chessrow", "W=12", "chess:12"),
        ("funny", "N=32", "funny:32"),
        ("grundy", "N=1000", "grundy:1000"),
    ];
    for (script, params, builtin) in cases {
        let spec = format!("lua:{}:{params}", example(script));
        let want = GameSpec::parse(builtin).unwrap().reference(&Progress::silent()).unwrap();
        // One thread and two: the same table, byte for byte (blocks and ranks split differently).
        let (one, path) = build(&dir, &spec, &["--threads", "1"]);
        let bytes = fs::read(&path).unwrap();
        let (two, _) = build(&dir, &spec, &["--threads", "2"]);
        assert_eq!(fs::read(&path).unwrap(), bytes, "{spec}: the file depends on the thread count");
        assert_eq!(one.values.len(), want.len(), "{spec}");
        assert_eq!(one.values.first_difference(&want), None, "{spec} differs from {builtin}");
        assert_eq!(two.values, one.values);
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A knight that moves toward the corner, as a square.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Knight(i64, i64);

impl Position for Knight {
    fn moves(&self) -> Vec<Knight> {
        [(-2, -1), (-2, 1), (-1, -2), (1, -2)]
            .iter()
            .map(|&(dx, dy)| Knight(self.0 + dx, self.1 + dy))
            .filter(|k| k.0 >= 0 && k.1 >= 0 && k.0 < 8 && k.1 < 8)
            .collect()
    }
}

/// E&D, as two heaps of stones (each at least 1).
#[derive(Clone, PartialEq, Eq, Hash)]
struct EatDivide(u32, u32);

impl Position for EatDivide {
    fn moves(&self) -> Vec<EatDivide> {
        let mut out = Vec::new();
        for heap in [self.0, self.1] {
            for a in 1..heap {
                out.push(EatDivide(a, heap - a));
            }
        }
        out
    }
}

/// A heap from which at most half may be taken.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Half(u32);

impl Position for Half {
    fn moves(&self) -> Vec<Half> {
        (1..=self.0 / 2).map(|take| Half(self.0 - take)).collect()
    }
}

/// A row of coins, `true` for heads, index 0 leftmost... as the script's bit 0.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Coins(Vec<bool>);

impl Position for Coins {
    fn moves(&self) -> Vec<Coins> {
        let mut out = Vec::new();
        for i in (0..self.0.len()).filter(|&i| self.0[i]) {
            let mut turned = self.0.clone();
            turned[i] = false;
            out.push(Coins(turned.clone()));
            for j in 0..i {
                let mut two = turned.clone();
                two[j] = !two[j];
                out.push(Coins(two));
            }
        }
        out
    }
}

#[test]
fn other_scripts_equal_a_game_tree_search_in_1d_2d_and_on_bitmasks() {
    let dir = scratch("lua_games", "others");

    // 2-D, ranked: a knight on 8×8, position (x, y) at index 8x + y.
    let (knight, _) = build(&dir, &format!("lua:{}:N=8", example("knight")), &[]);
    let mut search = Search::new();
    for x in 0..8 {
        for y in 0..8 {
            assert_eq!(
                knight.values.get(x * 8 + y),
                search.value(&Knight(x as i64, y as i64)),
                "knight ({x}, {y})"
            );
        }
    }

    // 2-D with several options alike: E&D on heaps 1..=12.
    let (ed, _) = build(&dir, &format!("lua:{}:N=12", example("ed")), &[]);
    let mut search = Search::new();
    for i in 0..12u32 {
        for j in 0..12u32 {
            assert_eq!(
                ed.values.get((i * 12 + j) as u64),
                search.value(&EatDivide(i + 1, j + 1)),
                "E&D ({}, {})",
                i + 1,
                j + 1
            );
        }
    }

    // 1-D: take at most half.
    let (half, _) = build(&dir, &format!("lua:{}:N=150", example("half")), &[]);
    let mut search = Search::new();
    for n in 0..150 {
        assert_eq!(half.values.get(n as u64), search.value(&Half(n)), "half {n}");
    }

    // A bitmask: Turning Turtles on 8 coins, every row.
    let (turtles, _) = build(&dir, &format!("lua:{}:W=8", example("turtles")), &["--threads", "2"]);
    let mut search = Search::new();
    for row in 0..256u32 {
        let coins = Coins((0..8).map(|i| row >> i & 1 == 1).collect());
        assert_eq!(turtles.values.get(row as u64), search.value(&coins), "turtles {row:08b}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Writes `body` as `dir/NAME.lua` and returns its spec.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(format!("{name}.lua"));
    fs::write(&path, body).unwrap();
    format!("lua:{}", path.display())
}

#[test]
fn bad_scripts_are_one_line_each() {
    let dir = scratch("lua_games", "bad");
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let refuse = |name: &str, body: &str, extra: &[&str], want: &[&str]| {
        let spec = script(&dir, name, body);
        let mut args = vec!["build", &spec, "--dir", out];
        args.extend_from_slice(extra);
        refused(&args, want)
    };
    let moves = "shape = 10\nfunction moves(n)\n";
    refuse(
        "cycle",
        "shape = 4\nfunction moves(n) return {(n + 1) % 4} end\n",
        &[],
        &["cycle", "lua:cycle@"],
    );
    refuse("syntax", "shape = 4\nfunction moves(n) return {n - } end\n", &[], &["syntax.lua:2:"]);
    refuse(
        "runtime",
        &format!("{moves}  if n == 7 then error('no') end\n  return {{}}\nend\n"),
        &[],
        &["runtime.lua:3:", "no", "position 7"],
    );
    refuse(
        "outside",
        &format!("{moves}  return {{n + 20}}\nend\n"),
        &[],
        &["outside.lua at position 0", "position 20, outside the shape"],
    );
    refuse("float", &format!("{moves}  return {{n / 2}}\nend\n"), &[], &["float.lua", "position"]);
    refuse("noshape", "function moves(n) return {} end\n", &[], &["shape"]);
    refuse("nomoves", "shape = 5\n", &[], &["moves"]);
    // An endless loop, in moves and at the top level, stopped by --lua-seconds.
    let start = std::time::Instant::now();
    refuse(
        "endless",
        &format!("{moves}  if n == 3 then while true do end end\n  return {{}}\nend\n"),
        &["--lua-seconds", "1"],
        &["position 3", "1 s"],
    );
    refuse("endless_top", "while true do end\n", &["--lua-seconds", "1"], &["endless_top.lua"]);
    assert!(start.elapsed() < std::time::Duration::from_secs(30), "{:?}", start.elapsed());
    // Memory: a script that fills a table without end is stopped by --lua-memory.
    refuse(
        "hog",
        "local t = {}\nfor i = 1, 1e9 do t[i] = i end\nshape = 1\n",
        &["--lua-memory", "16"],
        &["hog.lua", "memory"],
    );
    // Escapes: nothing that reads files, runs programs or loads code is there.
    for (name, line) in [
        ("io", "io.open('/etc/passwd')"),
        ("os", "os.execute('true')"),
        ("require", "require('os')"),
        ("load", "load('return 1')"),
        ("loadfile", "loadfile('/etc/passwd')"),
        ("dofile", "dofile('/etc/passwd')"),
        ("dump", "string.dump(function() end)"),
        ("dumpmeta", "(''):dump()"),
        ("debug", "debug.getinfo(1)"),
        ("gc", "collectgarbage('count')"),
        ("package", "package.loadlib('x', 'y')"),
        // A coroutine's hook is its own: the watchdog could not stop one.
        ("coroutine", "coroutine.wrap(function() end)()"),
    ] {
        refuse(
            name,
            &format!("{line}\nshape = 1\nfunction moves(n) return {{}} end\n"),
            &[],
            &[&format!("{name}.lua:1:")],
        );
    }
    // Nothing of the refused builds was written.
    assert!(fs::read_dir(out).map_or(true, |d| d.count() == 0));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn script_tables_work_with_every_tool() {
    let dir = scratch("lua_games", "tools");
    let d = dir.to_str().unwrap();
    // A script of its own, so that deleting it cannot touch the examples.
    let body = fs::read_to_string(example("knight")).unwrap();
    let spec = script(&dir, "knight", &body);
    let (table, path) = build(&dir, &format!("{spec}:N=10"), &[]);
    let file = path.to_str().unwrap();
    assert_eq!(table.spec.to_string().split('@').next(), Some("lua:knight"));

    // sgq finds the table by reading the script, and reads k numbers a position.
    let out = run(SGQ, &["value", &format!("{spec}:N=10"), "--tables", d], b"3 4\n9 9\n0 0\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want: Vec<String> = [34, 99, 0].iter().map(|&i| table.values.get(i).to_string()).collect();
    assert_eq!(text(&out.stdout).lines().collect::<Vec<_>>(), want);
    let out = run(SGQ, &["value", "--table", file], b"3 4\n");
    assert_eq!(text(&out.stdout).trim(), want[0]);
    let out = run(SGQ, &["value", "--table", file], b"3 10\n");
    assert!(
        !out.status.success() && text(&out.stderr).lines().count() == 1,
        "{}",
        text(&out.stderr)
    );
    // A sum of two knights.
    let out = run(SGQ, &["sum", "--table", file], b"1\n2\n3 4\n3 4\n");
    assert_eq!(text(&out.stdout).trim(), "Second");

    // verify re-runs the script stored in the file: no script file needed.
    fs::remove_file(dir.join("knight.lua")).unwrap();
    let out = run(SGTAB, &["verify", file], b"");
    assert!(out.status.success() && text(&out.stdout).contains(": OK"), "{}", text(&out.stderr));
    // build --from rebuilds it elsewhere, the same bytes.
    let again = dir.join("again");
    let out = run(SGTAB, &["build", "--from", file, "--dir", again.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(fs::read(again.join(path.file_name().unwrap())).unwrap(), fs::read(&path).unwrap());

    // show names the script and the shape; export takes the point, sg(p1, p2); plot draws it.
    let shown = text(&run(SGTAB, &["show", file, "--rows", "2"], b"").stdout);
    for want in [
        "script:   knight.lua, hash",
        "parameters: N=10",
        "shape:    10×10",
        "index p1*10 + p2",
        "row (1, y)",
    ] {
        assert!(shown.contains(want), "show lacks `{want}`:\n{shown}");
    }
    let source = text(&run(SGTAB, &["export", file, "--lang", "python"], b"").stdout);
    assert!(
        source.contains("def sg(p1, p2):") && source.contains("return _sg_stored(p1 * 10 + p2)"),
        "{source}"
    );
    let svg = dir.join("k.svg");
    assert!(run(SGTAB, &["plot", file, "-o", svg.to_str().unwrap()], b"").status.success());

    // A damaged copy of the script's text is caught by the checksum before Lua sees it.
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes.windows(6).position(|w| w == b"rank(x").unwrap();
    bytes[at] = b'R';
    let broken = dir.join("broken.sgt");
    fs::write(&broken, &bytes).unwrap();
    refused(&["verify", broken.to_str().unwrap()], &["checksum"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn import_round_trips_dumped_values() {
    let dir = scratch("lua_games", "import");
    let d = dir.to_str().unwrap();
    let lasker = common::tables_dir().join("lasker-1024.sgt");
    let dumped = run(SGTAB, &["dump", lasker.to_str().unwrap()], b"");
    assert!(dumped.status.success());
    let values = dir.join("values.txt");
    fs::write(&values, &dumped.stdout).unwrap();

    // One value a line, then `index value` lines in reverse order, then from standard input.
    let out = run(SGTAB, &["import", values.to_str().unwrap(), "--name", "mine", "--dir", d], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dumped_text = text(&dumped.stdout);
    let lines: Vec<&str> = dumped_text.lines().collect();
    let indexed: String =
        lines.iter().enumerate().rev().map(|(i, v)| format!("{i} {v}\n")).collect();
    let out = run(
        SGTAB,
        &["import", "-", "--name", "mine2", "--dir", d, "--shape", "32x32"],
        indexed.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for name in ["mine", "mine2"] {
        let table = dir.join(format!("{name}.sgt"));
        let again = run(SGTAB, &["dump", table.to_str().unwrap()], b"");
        assert_eq!(again.stdout, dumped.stdout, "{name}");
    }
    let mine = format::read(&dir.join("mine.sgt")).unwrap();
    assert_eq!(
        mine.rule,
        format::read(&lasker).unwrap().rule,
        "the rule finder runs on imported values"
    );
    // sgq finds import:NAME; a 2-D import reads positions as pairs.
    let out = run(SGQ, &["value", "import:mine2", "--tables", d], b"3 4\n");
    assert_eq!(text(&out.stdout).trim(), mine.values.get(3 * 32 + 4).to_string());
    // verify cannot recompute it, says so, and passes it on its checksum, header and rule.
    let out = run(SGTAB, &["verify", dir.join("mine.sgt").to_str().unwrap()], b"");
    assert!(out.status.success() && out.stderr.is_empty(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("OK as stored")
            && text(&out.stdout).contains("cannot recompute"),
        "{}",
        text(&out.stdout)
    );
    // Bad lines, by number; nothing written.
    refused(&["import", "-", "--name", "bad", "--dir", d], &[]);
    let out = run(SGTAB, &["import", "-", "--name", "bad", "--dir", d], b"0\n1\n2x\n");
    assert!(text(&out.stderr).contains("standard input:3: `2x` is not"), "{}", text(&out.stderr));
    assert!(!dir.join("bad.sgt").exists());
    fs::remove_dir_all(&dir).unwrap();
}
