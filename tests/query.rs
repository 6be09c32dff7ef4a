//! `sgq value` and `sgq sum` through the binary, for every committed table and a take-and-break
//! code: generated inputs answered equal to a simple reference (the game's reference computed
//! here, over a longer range than the table where the rule answers), positions past the table
//! from a proven rule, a checked rule's note, and refusals in one line.

mod common;

use common::{Rng, run, tables_dir, text};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use sgtab::table::{Table, format};
use std::path::{Path, PathBuf};
use std::process::Output;

fn sgq(args: &[&str], dir: &Path, input: &str) -> Output {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--tables", dir.to_str().unwrap()]);
    run(env!("CARGO_BIN_EXE_sgq"), &all, input.as_bytes())
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "sgq failed: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The reference values of `spec` (the library's scalar reference, straight from the moves).
fn reference(spec: &str) -> Vec<u64> {
    let spec = GameSpec::parse(spec).unwrap();
    spec.reference(&Progress::silent()).unwrap().iter().map(u64::from).collect()
}

/// Random positions drawn from `0..span`, with inputs for value and sum and their answers.
fn check(spec: &str, dir: &Path, want: &[u64], span: u64, seed: u64) -> (String, String) {
    let mut rng = Rng(seed);
    let positions: Vec<u64> = (0..2000).map(|_| rng.range(0, span - 1)).collect();
    let input: String = positions.iter().map(|p| format!("{p}\n")).collect();
    let out = sgq(&["value", spec], dir, &input);
    let expect: String = positions.iter().map(|&p| format!("{}\n", want[p as usize])).collect();
    assert_eq!(ok(&out), expect, "sgq value {spec}");
    let cases = 300;
    let (mut input, mut expect) = (format!("{cases}\n"), String::new());
    for _ in 0..cases {
        let n = rng.range(0, 4);
        let ps: Vec<u64> = (0..n).map(|_| rng.range(0, span - 1)).collect();
        input +=
            &format!("{n}\n{}\n", ps.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" "));
        let x = ps.iter().fold(0, |x, &p| x ^ want[p as usize]);
        expect += if x != 0 { "win\n" } else { "lose\n" };
    }
    let out = sgq(&["sum", spec, "--first", "win", "--second", "lose"], dir, &input);
    assert_eq!(ok(&out), expect, "sgq sum {spec}");
    (text(&sgq(&["value", spec], dir, "0\n").stderr), text(&out.stderr))
}

#[test]
fn chess_rows_by_bitmask() {
    let want = reference("chess:20");
    let (a, b) = check("chess", &tables_dir(), &want, 1 << 20, 0xc4e55);
    assert!(a.is_empty() && b.is_empty(), "{a}{b}");
}

#[test]
fn funny_within_its_table() {
    check("funny:32", &tables_dir(), &reference("funny:32"), 32, 0xf00);
}

#[test]
fn sub_past_its_table_from_the_proven_rule() {
    // The table holds 1024 heaps; the proven rule answers the rest, silently.
    let want = reference("sub:1,3,9:20000");
    let (a, b) = check("sub:9,3,1", &tables_dir(), &want, 20000, 0x5b);
    assert!(a.is_empty() && b.is_empty(), "a proven rule needs no note: {a}{b}");
    let out =
        sgq(&["value", "sub:1,3,9"], &tables_dir(), "18446744073709551615 18446744073709551614\n");
    assert_eq!(ok(&out), "1\n0\n");
}

#[test]
fn lasker_past_its_table_from_the_checked_rule_says_so_once() {
    let want = reference("lasker:6000");
    check("lasker", &tables_dir(), &want, 6000, 0x1a5);
    let input = "1024 1025 5000 2147483647 18446744073709551612\n";
    let out = sgq(&["value", "lasker"], &tables_dir(), input);
    // g(4k+1) = 4k+1, g(4k+2) = 4k+2, g(4k+3) = 4k+4, g(4k+4) = 4k+3.
    let g = |n: u64| match n % 4 {
        0 => n - 1,
        3 => n + 1,
        _ => n,
    };
    assert_eq!(
        ok(&out),
        [1024u64, 1025, 5000, 2147483647, u64::MAX - 3].map(|n| format!("{}\n", g(n))).concat()
    );
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("note:") && err.contains("not proven beyond"), "{err}");
    // Within the table: no note.
    assert!(text(&sgq(&["value", "lasker"], &tables_dir(), "1023 5\n").stderr).is_empty());
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sgtab-query-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_take_and_break_code() {
    // Kayles (0.77) in a table of its own, beyond it from the rule the build found.
    let dir = scratch("kayles");
    let spec = GameSpec::parse("0.77:1024").unwrap();
    let table = Table::new(spec.clone(), spec.reference(&Progress::silent()).unwrap());
    format::write(&table, &dir.join(spec.file_name())).unwrap();
    let rule = table.rule.expect("Kayles is periodic with period 12 from 71 on");
    assert_eq!((rule.period, rule.saltus), (12, 0));
    check("0.77", &dir, &reference("0.77:3000"), 3000, 0x77);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One line on stderr, exit 1, and only the complete cases on stdout.
fn refuses(args: &[&str], input: &str, stdout: &str, needle: &str) {
    let out = sgq(args, &tables_dir(), input);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?} {input:?}: {err}");
    assert_eq!(text(&out.stdout), stdout, "{args:?} {input:?}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{args:?} {input:?}: `{err}` lacks `{needle}`");
}

#[test]
fn refusals_are_one_clear_line() {
    refuses(
        &["value", "funny"],
        "3\n32\n",
        &format!("{}\n", reference("funny:32")[3]),
        "line 2, column 1 (byte 2): position 2 `32` is past the table: funny:32 has 32 entries \
            (0..=31) and no rule for positions past them; `sgtab build funny:33` would cover it",
    );
    refuses(
        &["value", "funny"],
        "5000\n",
        "",
        "no table that sgtab builds for this game covers it",
    );
    refuses(
        &["value", "chess"],
        "1048576\n",
        "",
        "is not a row of chess:20: a row is a bitmask of 20 bits (0..=1048575); `sgtab build \
            chess:21` would cover it",
    );
    // 3: columns 19 and 20, no move
    refuses(&["value", "chess"], "3 x\n", "0\n", "expected position 2");
    refuses(
        &["sum", "funny"],
        "2\n1\n3\n2\n1 40\n",
        "First\n",
        "line 5, column 3 (byte 10): a position in case 2 `40` is past the table",
    );
    refuses(
        &["sum", "lasker"],
        "1\n2\n5\n",
        "",
        "input ends where a position in case 1 was expected",
    );
    refuses(&["sum", "lasker"], "1\n1\n5 6\n", "First\n", "extra input `6` after the 1 cases");
    // g(2^64 − 1) = 2^64 does not fit 64 bits; 2^64 − 4 is the last position whose value does.
    refuses(
        &["value", "lasker"],
        "18446744073709551613\n",
        "",
        "past the reach of the rule of lasker:1024: its value would not fit 64 bits (positions up \
            to 18446744073709551612 do)",
    );
    refuses(
        &["value", "lasker"],
        "99999999999999999999\n",
        "",
        "`99999999999999999999` is out of reach: lasker:1024 answers 0..=18446744073709551612",
    );
    refuses(&["value", "lasker:4096"], "1\n", "", "table"); // not built: says what to build
    let out = sgq(&["value", "lasker:4096"], &tables_dir(), "1\n");
    assert!(text(&out.stderr).contains("sgtab build lasker:4096"), "{}", text(&out.stderr));
}

#[test]
fn usage_errors() {
    for (args, needle) in [
        (&["value"][..], "needs a game spec"),
        (&["value", "go"], "unknown game `go`"),
        (&["value", "lasker", "--first", "x"], "unexpected argument `--first`"),
        (&["sum", "lasker", "--first", ""], "non-empty"),
    ] {
        let out = sgq(args, &tables_dir(), "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(needle), "{args:?}: {}", text(&out.stderr));
    }
    let out = run(env!("CARGO_BIN_EXE_sgq"), &["sum", "lasker", "--first"], b"");
    assert!(out.status.code() == Some(2) && text(&out.stderr).contains("--first needs a value"));
    assert_eq!(ok(&sgq(&["sum", "lasker"], &tables_dir(), "2\n1\n1\n2\n2 2\n")), "First\nSecond\n");
}

/// `sgtab` with `args`, which must succeed.
fn sgtab_ok(args: &[&str]) {
    let out = run(env!("CARGO_BIN_EXE_sgtab"), args, b"");
    assert!(out.status.success(), "sgtab {args:?}: {}", text(&out.stderr));
}

#[test]
fn past_a_scripts_or_imported_table_names_the_table_and_a_larger_build() {
    // sgtab cannot grow these games by itself: the refusal names the table it found (its file
    // and size) and the command that makes a larger one, the script's own path and the
    // parameter that sized it raised to cover the position.
    let dir = scratch("stored");
    let d = dir.to_str().unwrap();
    sgtab_ok(&[
        "build",
        "lua:examples/games/grundy.lua:N=100",
        "lua:examples/games/knight.lua:N=16",
        "lua:examples/games/turtles.lua:W=6",
        "--out",
        d,
    ]);
    let file = |stem: &str| {
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_str().unwrap().contains(stem))
            .unwrap()
    };
    let (grundy, knight, turtles) = (file("lua-grundy"), file("lua-knight"), file("lua-turtles"));
    let refused = |args: &[&str], input: &str, needles: &[String]| {
        let out = sgq(args, &dir, input);
        let err = text(&out.stderr);
        assert!(out.status.code() == Some(1) && err.lines().count() == 1, "{args:?}: {err}");
        assert!(!err.contains("no table that sgtab builds"), "{args:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle.as_str()), "{args:?}: `{err}` lacks `{needle}`");
        }
    };
    refused(
        &["value", "lua:examples/games/grundy.lua:N=100"],
        "7\n150\n",
        &[
            "`150` is past the table".into(),
            format!(
                "the table found, {}, has 100 entries; build a larger one from its script: `sgtab \
                    build lua:examples/games/grundy.lua:N=151` (this one was built with N=100)",
                grundy.display()
            ),
        ],
    );
    // From the file alone the script's path is unknown: its name stands for it.
    refused(
        &["value", "--table", grundy.to_str().unwrap()],
        "5000\n",
        &[
            format!("the table found, {}, has 100 entries", grundy.display()),
            "`sgtab build lua:grundy.lua:N=5001`".into(),
        ],
    );
    // k-D: the coordinate past its axis.
    refused(
        &["sum", "lua:examples/games/knight.lua:N=16"],
        "1\n1\n3 20\n",
        &[
            "`20` is off the grid: lua:knight@".into(),
            format!(
                "the table found, {}, has shape 16x16 (256 entries); build a larger one from its \
                    script: `sgtab build lua:examples/games/knight.lua:N=21`",
                knight.display()
            ),
        ],
    );
    // No parameter equals the size (shape = 1 << W): the command that built it, and what to change.
    refused(
        &["value", "lua:examples/games/turtles.lua:W=6"],
        "64\n",
        &[format!(
            "the table found, {}, has 64 entries; `sgtab build \
                lua:examples/games/turtles.lua:W=6` built this one: build it again with \
                parameters that make its shape larger",
            turtles.display()
        )],
    );
    // An imported table: the import that makes a larger one.
    std::fs::write(dir.join("v.txt"), "1\n0\n2\n0\n1\n3\n").unwrap();
    sgtab_ok(&[
        "import",
        dir.join("v.txt").to_str().unwrap(),
        "--name",
        "six",
        "--shape",
        "2x3",
        "--out",
        d,
    ]);
    refused(
        &["value", "import:six"],
        "1 1\n1 7\n",
        &[format!(
            "the table found, {}, has shape 2x3 (6 entries); import a larger one: `sgtab import \
                FILE --name six --shape 2x8`",
            dir.join("six.sgt").display()
        )],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
