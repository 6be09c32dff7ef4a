//! `sgq` through its binary: the five samples of PROBLEMS.md, answers held against a brute
//! force on random small inputs, and bad input.

mod common;

use common::{Board, LaskerHeaps, Piles, Rng, Search, SubHeaps, sgq, text};

fn answer(problem: &str, input: &str) -> String {
    let out = sgq(problem, input.as_bytes());
    assert!(out.status.success(), "sgq {problem} failed: {}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn sample_snim() {
    let input =
        "2 2 5\n3\n2 5 12\n3 2 4 7\n4 2 3 7 12\n5 1 2 3 4 5\n3\n2 5 12\n3 2 4 7\n4 2 3 7 12\n0\n";
    assert_eq!(answer("snim", input), "LWW\nWWL\n");
}

#[test]
fn sample_chess() {
    assert_eq!(answer("chess", "2\n1\n2 19 20\n2\n1 19\n1 18\n"), "NO\nYES\n");
}

#[test]
fn sample_lasker() {
    assert_eq!(answer("lasker", "2\n3\n2 2 3\n2\n3 3\n"), "Alice\nBob\n");
}

#[test]
fn sample_stones() {
    assert_eq!(answer("stones", "1 1\n1 2\n"), "lose\nwin\n");
}

#[test]
fn sample_funny() {
    let input = "4\n1 0 1 100\n3\n1 0 5\n2\n2 1\n0\n";
    assert_eq!(answer("funny", input), "Game 1: 0 2 3\nGame 2: 0 1 1\nGame 3: -1 -1 -1\n");
}

#[test]
fn stones_agree_with_search_on_every_small_pair() {
    let mut search = Search::new();
    let (mut input, mut want) = (String::new(), String::new());
    for a in 1..=30u32 {
        for b in 1..=30u32 {
            input += &format!("{a} {b}\n");
            let won =
                search.wins(&SubHeaps { moves: vec![1, 3, 9], heaps: vec![a.min(b), a.max(b)] });
            want += if won { "win\n" } else { "lose\n" };
        }
    }
    assert_eq!(answer("stones", &input), want);
}

#[test]
fn snim_agrees_with_search() {
    let mut rng = Rng(0x5eed);
    let (mut input, mut want) = (String::new(), String::new());
    for _ in 0..12 {
        let mut moves: Vec<u32> = (0..rng.range(1, 3)).map(|_| rng.range(1, 6) as u32).collect();
        input += &format!(
            "{} {}\n",
            moves.len(),
            moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
        );
        moves.sort_unstable();
        moves.dedup();
        let mut search = Search::new();
        input += "6\n";
        for _ in 0..6 {
            let mut heaps: Vec<u32> =
                (0..rng.range(1, 3)).map(|_| rng.range(0, 12) as u32).collect();
            input += &format!(
                "{} {}\n",
                heaps.len(),
                heaps.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" ")
            );
            heaps.sort_unstable();
            want.push(if search.wins(&SubHeaps { moves: moves.clone(), heaps }) {
                'W'
            } else {
                'L'
            });
        }
        want.push('\n');
    }
    input += "0\n";
    assert_eq!(answer("snim", &input), want);
}

#[test]
fn chess_agrees_with_board_search() {
    // Chips only in the last 7 columns keep the search small; rows still have 20 columns.
    let mut rng = Rng(0xc4e55);
    let mut search = Search::new();
    let cases = 40;
    let (mut input, mut want) = (format!("{cases}\n"), String::new());
    for _ in 0..cases {
        let n = rng.range(1, 2);
        input += &format!("{n}\n");
        let mut rows = Vec::new();
        for _ in 0..n {
            let cols: Vec<u32> = (14..=20).filter(|_| rng.next().is_multiple_of(2)).collect();
            input += &format!(
                "{} {}\n",
                cols.len(),
                cols.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
            );
            rows.push((1..=20).map(|p| cols.contains(&p)).collect::<Vec<bool>>());
        }
        want += if search.wins(&Board(rows)) { "YES\n" } else { "NO\n" };
    }
    assert_eq!(answer("chess", &input), want);
}

#[test]
fn lasker_agrees_with_heap_search() {
    let mut rng = Rng(0x1a5);
    let mut search = Search::new();
    let cases = 60;
    let (mut input, mut want) = (format!("{cases}\n"), String::new());
    for _ in 0..cases {
        let mut heaps: Vec<u32> = (0..rng.range(1, 3)).map(|_| rng.range(1, 7) as u32).collect();
        input += &format!(
            "{}\n{}\n",
            heaps.len(),
            heaps.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" ")
        );
        heaps.sort_unstable();
        want += if search.wins(&LaskerHeaps(heaps)) { "Alice\n" } else { "Bob\n" };
    }
    assert_eq!(answer("lasker", &input), want);
}

#[test]
fn lasker_far_beyond_the_table_follows_the_rule() {
    // g(4k+1) = 4k+1, g(4k+2) = 4k+2, g(4k+3) = 4k+4, g(4k+4) = 4k+3 (Lasker's Nim).
    let g = |n: u64| match n % 4 {
        0 => n - 1,
        3 => n + 1,
        _ => n,
    };
    let heaps = [2147483647u64, 2147483646, 2147483645, 2147483644, 1_000_000_003, 999_999_999];
    let mut input = format!("{}\n", heaps.len() * heaps.len());
    let mut want = String::new();
    for a in heaps {
        for b in heaps {
            input += &format!("2\n{a} {b}\n");
            want += if g(a) ^ g(b) != 0 { "Alice\n" } else { "Bob\n" };
        }
    }
    assert_eq!(answer("lasker", &input), want);
}

#[test]
fn funny_agrees_with_pile_search() {
    let mut rng = Rng(0xf00);
    let mut search = Search::new();
    let (mut input, mut want) = (String::new(), String::new());
    for game in 1..=40 {
        let n = rng.range(1, 4) as usize;
        let piles: Vec<u32> = (0..n).map(|_| rng.range(0, 2) as u32).collect();
        input += &format!(
            "{n}\n{}\n",
            piles.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" ")
        );
        let p = Piles(piles);
        let first = p.moves_in_order().into_iter().find(|(_, q)| !search.wins(q)).map(|(m, _)| m);
        want += &match first {
            Some((i, j, k)) => format!("Game {game}: {i} {j} {k}\n"),
            None => format!("Game {game}: -1 -1 -1\n"),
        };
    }
    input += "0\n";
    assert_eq!(answer("funny", &input), want);
}

/// Bad input: non-zero exit, one line on stderr naming the token and its place, no panic, and
/// nothing on stdout for the broken case.
fn rejects(problem: &str, input: &str, stdout: &str, needle: &str) {
    let out = sgq(problem, input.as_bytes());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{problem} {input:?}: {err}");
    assert_eq!(text(&out.stdout), stdout, "{problem} {input:?}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{problem} {input:?}: `{err}` lacks `{needle}`");
    assert!(!err.contains("panicked"));
}

#[test]
fn bad_input_gets_one_clear_line() {
    rejects("chess", "1\n1\n2 19 19\n", "", "line 3, column 6 (byte 9): column 19 is given twice");
    rejects("chess", "1\n1\n1 21\n", "", "`21` is out of range 1 to 20");
    rejects("chess", "1\n1\n1 0\n", "", "`0` is out of range 1 to 20");
    rejects(
        "chess",
        "2\n1\n1 20\n1\n1 x9\n",
        "NO\n",
        "line 5, column 3 (byte 13): expected a chip column",
    );
    rejects("chess", "1\n1\n1 20\n5", "NO\n", "extra input `5` after the 1 cases");
    rejects(
        "chess",
        "1\n2\n1 20\n",
        "",
        "input ends where the chip count of row 2 in case 1 was expected",
    );
    rejects("lasker", "1\n2\n5 -3\n", "", "found `-3`");
    rejects("lasker", "1\n1\n+5\n", "", "found `+5`");
    rejects(
        "lasker",
        "1\n2\n2147483647 2147483648\n",
        "",
        "`2147483648` is out of range 1 to 2147483647",
    );
    rejects("lasker", "1\n1\n99999999999999999999999\n", "", "out of range");
    rejects("lasker", "101\n", "", "`101` is out of range 1 to 100");
    rejects(
        "stones",
        "1 1\n1",
        "lose\n",
        "input ends where the second heap n2 of pair 2 was expected",
    );
    rejects("stones", "1 101\n", "", "out of range 1 to 100");
    rejects("snim", "2 2 5\n1\n1 3\n", "W\n", "input ends where the set size k of case 2");
    rejects("snim", "2 2 5\n1\n2 3\n", "", "input ends where a heap size in position 1 of case 1");
    rejects("snim", "1 10001\n", "", "`10001` is out of range 1 to 10000");
    rejects("funny", "24\n", "", "`24` is out of range 0 to 23");
    rejects("funny", "2\n1 1001\n0\n", "", "out of range 0 to 1000");
    rejects("funny", "1\n1\n", "Game 1: -1 -1 -1\n", "input ends where the pile count n of game 2");
}

#[test]
fn crlf_tabs_and_no_final_newline() {
    assert_eq!(answer("chess", "2\r\n1\r\n2\t19 20\r\n2\r\n1 19\r\n1\t18"), "NO\nYES\n");
    assert_eq!(answer("stones", "1 1\r\n1 2"), "lose\nwin\n");
}

#[test]
fn usage_errors() {
    let out = common::run(env!("CARGO_BIN_EXE_sgq"), &["go"], b"");
    assert_eq!(out.status.code(), Some(2));
    // One line, with the pointer to the usage rather than the usage itself.
    assert_eq!(text(&out.stderr), "sgq: unknown problem `go`; see `sgq --help`\n");
    let out = common::run(env!("CARGO_BIN_EXE_sgq"), &["--help"], b"");
    assert!(out.status.success() && text(&out.stdout).contains("SGTAB_TABLES"));
    let out =
        common::run(env!("CARGO_BIN_EXE_sgq"), &["chess", "--tables", "/nonexistent"], b"1\n");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "table /nonexistent/chess-20.sgt not found; build it with `sgtab build chess:20 --dir \
                /nonexistent`"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "sgq looked in /nonexistent (--tables); it looks in --tables DIR, then $SGTAB_TABLES \
                (not set)"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let out = common::run(env!("CARGO_BIN_EXE_sgq"), &["--version"], b"");
    assert!(
        out.status.success() && text(&out.stdout) == format!("sgq {}\n", env!("CARGO_PKG_VERSION")),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_table_not_found_says_where_sgq_looked_and_where_to_build_it() {
    // From $SGTAB_TABLES: built there. From the source tree sgq was built from (nothing else
    // applies): built in ./tables, which sgq looks in first next time, not in the source tree.
    let dir = common::scratch("judge", "not-found");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let sgq = |env: Option<&std::path::Path>, args: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sgq"));
        cmd.args(args)
            .current_dir(&dir)
            .env_remove("SGTAB_TABLES")
            .stdin(std::process::Stdio::null());
        if let Some(e) = env {
            cmd.env("SGTAB_TABLES", e);
        }
        cmd.output().unwrap()
    };
    let out = sgq(Some(&empty), &["value", "queen:5"]);
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("build it with `sgtab build queen:5 --dir {}`", empty.display())),
        "{err}"
    );
    assert!(err.contains(&format!("sgq looked in {} ($SGTAB_TABLES)", empty.display())), "{err}");
    let out = sgq(None, &["value", "queen:5"]);
    let err = text(&out.stderr);
    assert!(
        err.contains("build it with `sgtab build queen:5 --dir tables`")
            && err.contains("./tables (none here)"),
        "{err}"
    );
    assert!(err.contains("(where sgq was built)"), "{err}");
}

#[test]
fn sgq_is_small_and_links_no_gpu_code() {
    if cfg!(debug_assertions) {
        eprintln!(
            "SKIPPED: sgq's size is only meaningful in a release build (cargo test --release)"
        );
        return;
    }
    let bin = env!("CARGO_BIN_EXE_sgq");
    let symbols = std::process::Command::new("nm").arg("--demangle").arg(bin).output();
    let stripped = std::env::temp_dir().join(format!("sgq-stripped-{}", std::process::id()));
    let strip = std::process::Command::new("strip").arg("-o").arg(&stripped).arg(bin).status();
    let (Ok(symbols), Ok(strip)) = (symbols, strip) else {
        eprintln!("SKIPPED: nm and strip (binutils) are needed to check sgq's size");
        return;
    };
    assert!(strip.success());
    let size = std::fs::metadata(&stripped).unwrap().len();
    std::fs::remove_file(&stripped).unwrap();
    assert!(size < 1 << 20, "stripped sgq is {size} bytes, over 1 MiB");
    let names = text(&symbols.stdout);
    assert!(names.lines().count() > 100, "nm found symbols to check");
    for gpu in ["wgpu", "naga::", "ash::vk"] {
        assert!(!names.contains(gpu), "sgq links {gpu} code");
    }
    // Nor Lua: a script's table is read back without running anything.
    for lua in ["mlua::", "luaV_execute", "lua_pcall"] {
        assert!(!names.contains(lua), "sgq links {lua} code");
    }
    // Nor the plotting code that only `sgtab plot` uses.
    for plotting in ["plotters", "ab_glyph", "png::"] {
        assert!(!names.contains(plotting), "sgq links {plotting} code");
    }
}
