//! The mapped, threaded path of `sgq` held to the streaming path, byte for byte:
//! stdout, the one error line on stderr and the exit status. Every problem and `sgq sum` /
//! `sgq value` answer generated inputs, then the same inputs broken in the first piece, a middle
//! piece, the last piece and exactly at a piece boundary, on 1, 2 and 7 threads. Pieces are a
//! few hundred bytes (`SGQ_PIECE_BYTES`), so that small inputs have many of them.
//!
//! The streaming path reads a pipe; the mapped one reads `--input FILE` (and stdin redirected
//! from the file, once).

use sgtab::judge::Problem;
use sgtab::judge::generate::{Size, generate};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const PIECE: usize = 300;

fn tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tables")
}

fn sgq() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sgq"));
    c.env_remove("SGQ_PIECE_BYTES").env("SGTAB_TABLES", tables());
    c
}

/// `sgq ARGS` reading `input` from a pipe: the streaming path.
fn piped(args: &[&str], input: &[u8]) -> Output {
    let mut child = sgq()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    // Written from a thread: sgq may stop reading at an error while the input is still coming.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// `sgq ARGS --input FILE --threads N` with pieces of `piece` bytes: the mapped path.
fn mapped(args: &[&str], file: &Path, threads: usize, piece: usize) -> Output {
    let threads = threads.to_string();
    let mut all = args.to_vec();
    all.extend(["--input", file.to_str().unwrap(), "--threads", &threads]);
    sgq()
        .args(&all)
        .env("SGQ_PIECE_BYTES", piece.to_string())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn show(out: &Output) -> String {
    format!(
        "status {:?}\nstdout: {} bytes\nstderr: {}",
        out.status.code(),
        out.stdout.len(),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Holds the mapped path to the streaming one on `input`, for 1, 2 and 7 threads.
fn same(args: &[&str], input: &[u8], label: &str) -> Output {
    same_in_pieces(args, input, label, PIECE)
}

/// [`same`] with pieces of `piece` bytes.
fn same_in_pieces(args: &[&str], input: &[u8], label: &str, piece: usize) -> Output {
    // Tests run at once in one process: each file gets a number of its own.
    static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!(
        "sgq-parallel-{}-{n}-{}.txt",
        std::process::id(),
        args.join("-").replace('/', "_")
    ));
    std::fs::write(&file, input).unwrap();
    let want = piped(args, input);
    for threads in [1, 2, 7] {
        let got = mapped(args, &file, threads, piece);
        assert!(
            got.status.code() == want.status.code()
                && got.stdout == want.stdout
                && got.stderr == want.stderr,
            "sgq {args:?}, {label}, {threads} threads, pieces of {piece}:\nmapped:    \
                {}\nstreaming: {}",
            show(&got),
            show(&want)
        );
    }
    std::fs::remove_file(&file).unwrap();
    want
}

fn generated(problem: Problem, seed: u64, size: Size) -> Vec<u8> {
    let mut out = Vec::new();
    generate(problem, seed, size, &mut out).unwrap();
    out
}

/// Where token starts lie: (start, end) of every token.
fn tokens(input: &[u8]) -> Vec<(usize, usize)> {
    let mut all = Vec::new();
    let mut i = 0;
    while i < input.len() {
        if input[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < input.len() && !input[i].is_ascii_whitespace() {
            i += 1;
        }
        all.push((start, i));
    }
    all
}

/// Tokens to break: one in the first piece, one in a middle piece, one in the last piece, and
/// the first token of a piece (a token that starts right after whitespace at a multiple of the
/// piece size starts a piece; sgq's cut moves on to the next whitespace otherwise).
fn places(input: &[u8]) -> Vec<(usize, usize, &'static str)> {
    let all = tokens(input);
    let n = all.len();
    let mut at = vec![
        (all[1.min(n - 1)], "first piece"),
        (all[n / 2], "a middle piece"),
        (all[n - 1], "the last piece"),
    ];
    if let Some(&t) = all
        .iter()
        .find(|&&(s, _)| s >= 3 * PIECE && input[s - 1].is_ascii_whitespace() && s % PIECE == 0)
    {
        at.push((t, "a piece boundary (exact)"));
    }
    let boundary = all.iter().copied().find(|&(s, _)| s >= 5 * PIECE).unwrap_or(all[n / 3]);
    at.push((boundary, "a piece boundary (first token after)"));
    at.into_iter().map(|((s, e), what)| (s, e, what)).collect()
}

/// The input with the token at `start..end` replaced by `by` (bytes, any length).
fn replaced(input: &[u8], start: usize, end: usize, by: &[u8]) -> Vec<u8> {
    [&input[..start], by, &input[end..]].concat()
}

/// `input` answered alike, then broken at each place in several ways; the answer to `input`.
fn broken_alike(args: &[&str], input: &[u8]) -> Output {
    let out = same(args, input, "valid input");
    assert!(out.status.success(), "the generated input is valid: {}", show(&out));
    for (start, end, place) in places(input) {
        let token = &input[start..end];
        let mut forms: Vec<(Vec<u8>, &str)> = vec![
            (replaced(input, start, end, b"x"), "a letter"),
            (replaced(input, start, start + 1, b"-"), "a sign"),
            (replaced(input, start, end, b"0"), "zero"),
            (replaced(input, start, end, b"99999999999999999999999"), "a huge number"),
            (replaced(input, start, end, &[b"000000000", token].concat()), "leading zeros (valid)"),
            (replaced(input, start, end, &[token, b" 7".as_slice()].concat()), "an extra token"),
            (replaced(input, start, end, b""), "a token removed"),
            (input[..start].to_vec(), "the input cut before it"),
        ];
        // A token as long as several pieces.
        forms.push((
            replaced(input, start, end, &[&b"0".repeat(3 * PIECE)[..], token].concat()),
            "a token longer than a piece",
        ));
        for (bad, how) in &forms {
            same(args, bad, &format!("{how} at {place} (byte {start})"));
        }
    }
    out
}

#[test]
fn lasker_alike_everywhere() {
    let input =
        generated(Problem::Lasker, 5, Size { cases: Some(7), per_case: Some(700), chips: None });
    assert!(input.len() > 20 * PIECE);
    assert_eq!(places(&input).len(), 5, "a token starts exactly at a piece boundary");
    broken_alike(&["lasker"], &input);
    // Cases whose heaps come in equal pairs (XOR 0: Bob), every other one with a heap more
    // (Alice): a case's sum wrong by anything shows.
    let mut text = String::from("8\n");
    let mut x = 99u64;
    for case in 0..8 {
        let mut heaps = Vec::new();
        for _ in 0..150 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            heaps.extend([1 + (x >> 33) % 2_000_000_000; 2]);
        }
        heaps.rotate_left(case * 37 % 300);
        heaps.extend((case % 2 == 1).then_some(5));
        text += &format!(
            "{}\n{}\n",
            heaps.len(),
            heaps.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" ")
        );
    }
    let out = broken_alike(&["lasker"], text.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Bob\nAlice\n".repeat(4));
    // Cases of one heap: a header every other token.
    let input =
        generated(Problem::Lasker, 6, Size { cases: Some(100), per_case: Some(1), chips: None });
    broken_alike(&["lasker"], &input);
}

/// Pieces past the least that cutting shrinks to (256 KiB): the last pieces are cut smaller,
/// so that the threads end together; the answers and the first error do not move.
#[test]
fn lasker_alike_in_pieces_that_shrink() {
    const MIB: usize = 1 << 20;
    let input = generated(
        Problem::Lasker,
        12,
        Size { cases: Some(10), per_case: Some(50_000), chips: None },
    );
    assert!(input.len() > 4 * MIB);
    let out = same_in_pieces(&["lasker"], &input, "valid input", MIB);
    assert!(out.status.success(), "{}", show(&out));
    let all = tokens(&input);
    let n = all.len();
    // In the shrinking pieces near the end, and in the last one.
    for at in [n * 9 / 10, n * 97 / 100, n - 2] {
        let (start, end) = all[at];
        let bad = replaced(&input, start, end, b"x");
        let out = same_in_pieces(&["lasker"], &bad, &format!("a letter at byte {start}"), MIB);
        assert!(!out.status.success());
    }
}

/// Random damage, not placed: generated inputs of every problem, `sum` and `value`, with one to
/// three random edits (a token replaced by one of many odd tokens, whitespace inserted, bytes
/// deleted, a stretch doubled, the input cut), in pieces of a random size, alike on the mapped
/// path and the pipe. (A longer run of the same, 11,000 inputs, found no difference.)
#[test]
fn randomly_damaged_inputs_alike() {
    const ODD: [&[u8]; 18] = [
        b"x",
        b"-1",
        b"0",
        b"99999999999999999999999",
        b"000000000012",
        b"",
        b"1 2",
        b"4294967296",
        b"2147483647",
        b"2147483648",
        b"65536",
        b"\t",
        b"\r\n",
        b"\x0b",
        b"+5",
        b"0x10",
        b"\x00",
        b"\xff",
    ];
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut rng = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n.max(1) as u64) as usize
    };
    for round in 0..90 {
        let seed = rng(1000) as u64;
        let (args, mut input): (&[&str], Vec<u8>) = match round % 9 {
            0 => (
                &["lasker"],
                generated(
                    Problem::Lasker,
                    seed,
                    Size {
                        cases: Some(1 + rng(5) as u64),
                        per_case: Some(1 + rng(300) as u64),
                        chips: None,
                    },
                ),
            ),
            1 => (
                &["stones"],
                generated(
                    Problem::Stones,
                    seed,
                    Size { cases: Some(1 + rng(300) as u64), per_case: None, chips: None },
                ),
            ),
            2 => (
                &["funny"],
                generated(
                    Problem::Funny,
                    seed,
                    Size { cases: Some(1 + rng(30) as u64), per_case: None, chips: None },
                ),
            ),
            3 => (
                &["chess"],
                generated(
                    Problem::Chess,
                    seed,
                    Size { cases: Some(1 + rng(5) as u64), per_case: None, chips: None },
                ),
            ),
            4 => (
                &["snim"],
                generated(
                    Problem::Snim,
                    seed,
                    Size {
                        cases: Some(1 + rng(2) as u64),
                        per_case: Some(1 + rng(40) as u64),
                        chips: None,
                    },
                ),
            ),
            5 => (&["sum", "lasker"], sum_input(1 + rng(40) as u64, [100, 5000, 1 << 31][rng(3)])),
            6 => (&["sum", "chess"], sum_input(1 + rng(40) as u64, 1 << 20)),
            7 => (&["sum", "funny"], sum_input(1 + rng(40) as u64, 40)),
            _ => (
                &["value", "lasker"],
                (0..1 + rng(400))
                    .map(|i| format!("{}{}", rng(3000), if i % 7 == 6 { "\n" } else { " " }))
                    .collect::<String>()
                    .into_bytes(),
            ),
        };
        let edits = if rng(7) == 0 { 0 } else { 1 + rng(3) };
        for _ in 0..edits {
            if input.is_empty() {
                break;
            }
            let i = rng(input.len());
            match rng(5) {
                0 => {
                    let start = input[..i]
                        .iter()
                        .rposition(|b| b.is_ascii_whitespace())
                        .map_or(0, |p| p + 1);
                    let end = input[i..]
                        .iter()
                        .position(|b| b.is_ascii_whitespace())
                        .map_or(input.len(), |p| i + p);
                    input.splice(start..end, ODD[rng(ODD.len())].iter().copied());
                }
                1 => drop(input.splice(
                    i..i,
                    [b" ".as_slice(), b"\n", b"\t", b"\r", b"  \n\n"][rng(5)].iter().copied(),
                )),
                2 => drop(input.drain(i..(i + 1 + rng(20)).min(input.len()))),
                3 => input.truncate(i),
                _ => {
                    let doubled = input[i.saturating_sub(30)..i].to_vec();
                    input.splice(i..i, doubled);
                }
            }
        }
        let piece = [1, 2, 3, 7, 16, 64, 100, 300, 1000][rng(9)];
        same_in_pieces(args, &input, &format!("round {round}, {edits} random edits"), piece);
    }
}

#[test]
fn sum_alike_on_heaps_and_rows() {
    let input =
        generated(Problem::Lasker, 9, Size { cases: Some(5), per_case: Some(500), chips: None });
    broken_alike(&["sum", "lasker", "--first", "Alice", "--second", "Bob"], &input);
    // A table with no rule (funny: positions past it are refused), one with a proven rule, rows.
    broken_alike(&["sum", "funny"], &sum_input(60, 32));
    same(&["sum", "funny"], &sum_input(60, 40), "positions past a table with no rule");
    broken_alike(&["sum", "sub:1,3,9"], &sum_input(60, 40));
    same(&["sum", "chess"], &sum_input(60, 1 << 20), "rows");
    // Positions past the table answered from a checked rule, with the note once.
    let out = same(&["sum", "lasker"], &sum_input(80, 6000), "positions past the table");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stderr).contains("note:"),
        "{}",
        show(&out)
    );
}

/// `sgq sum` input: `cases` cases of 0 to 12 positions in 0..span.
fn sum_input(cases: u64, span: u64) -> Vec<u8> {
    let mut text = format!("{cases}\n");
    let mut x = 12345u64;
    for case in 0..cases {
        let n = case % 13;
        text += &format!("{n}\n");
        for _ in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            text += &format!("{} ", (x >> 33) % span);
        }
        text += "\n";
    }
    text.into_bytes()
}

#[test]
fn every_problem_and_value_alike() {
    let size = |cases| Size { cases: Some(cases), per_case: None, chips: None };
    broken_alike(
        &["chess"],
        &generated(Problem::Chess, 2, Size { cases: Some(3), per_case: Some(60), chips: None }),
    );
    broken_alike(
        &["snim"],
        &generated(Problem::Snim, 3, Size { cases: Some(3), per_case: Some(8), chips: None }),
    );
    broken_alike(&["stones"], &generated(Problem::Stones, 4, size(800)));
    broken_alike(&["funny"], &generated(Problem::Funny, 5, size(150)));
    let positions: String = (0..900u64).map(|i| format!("{}\n", i * 7919 % 1500)).collect();
    broken_alike(&["value", "lasker"], positions.as_bytes());
}

#[test]
fn stdin_from_a_file_is_mapped_from_where_it_stands() {
    // `sgq < FILE` maps FILE; a file already read into (a shell's `read` before sgq) is
    // answered from its current offset, as the streaming path would read it.
    let input =
        generated(Problem::Lasker, 11, Size { cases: Some(4), per_case: Some(400), chips: None });
    let file = std::env::temp_dir().join(format!("sgq-parallel-stdin-{}.txt", std::process::id()));
    let mut skipped = b"header line\n".to_vec();
    skipped.extend(&input);
    std::fs::write(&file, &skipped).unwrap();
    let want = piped(&["lasker"], &input);
    assert!(want.status.success());
    let mut f = std::fs::File::open(&file).unwrap();
    std::io::Read::read_exact(&mut f, &mut [0u8; 12]).unwrap();
    let got =
        sgq().arg("lasker").env("SGQ_PIECE_BYTES", PIECE.to_string()).stdin(f).output().unwrap();
    assert_eq!(
        (got.status.code(), &got.stdout),
        (want.status.code(), &want.stdout),
        "{}",
        show(&got)
    );
    std::fs::remove_file(&file).unwrap();
}

/// A token longer than cutting looks for its end (1 MiB): valid (leading zeros) or not, in the
/// middle of the input. Cutting gives up there (the rest is one piece), and phase 1 does not read
/// a bad one to its end.
#[test]
fn tokens_of_megabytes_alike() {
    let cases =
        generated(Problem::Lasker, 4, Size { cases: Some(3), per_case: Some(2000), chips: None });
    let all = tokens(&cases);
    let (start, end) = all[all.len() / 2];
    for (long, what) in [
        ([&b"0".repeat(3 << 20)[..], &cases[start..end]].concat(), "3 MiB of leading zeros"),
        (b"x".repeat(3 << 20), "3 MiB of letters"),
        (vec![0; 3 << 20], "3 MiB of NULs"),
    ] {
        let input = replaced(&cases, start, end, &long);
        same(&["lasker"], &input, what);
        same(&["sum", "lasker"], &input, what);
    }
}

/// Far more threads than cores: cut to what can help (once every one was started, which took
/// seconds), with the same answers.
#[test]
fn a_huge_thread_count_answers_alike() {
    let input = generated(Problem::Chess, 3, Size { cases: Some(40), per_case: None, chips: None });
    let file =
        std::env::temp_dir().join(format!("sgq-parallel-threads-{}.txt", std::process::id()));
    std::fs::write(&file, &input).unwrap();
    let want = piped(&["chess"], &input);
    for threads in [1_000_000, usize::MAX] {
        let got = mapped(&["chess"], &file, threads, PIECE);
        assert!(
            got.status.success() && got.stdout == want.stdout && got.stderr == want.stderr,
            "{threads} threads: {}",
            show(&got)
        );
    }
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn usage_of_the_new_flags() {
    for (args, needle) in [
        (&["lasker", "--threads", "0"][..], "--threads needs a whole number"),
        (&["lasker", "--threads"][..], "--threads needs a value"),
        (&["sum", "lasker", "--threads", "x"][..], "--threads needs a whole number"),
        (&["lasker", "--input"][..], "--input needs a value"),
    ] {
        let out = sgq().args(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(needle), "{args:?}: {}", show(&out));
    }
    let out = sgq().args(["lasker", "--input", "/nonexistent/input"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot open input /nonexistent/input"), "{err}");
}

/// The text of every token.
fn words(input: &[u8]) -> Vec<String> {
    tokens(input)
        .into_iter()
        .map(|(s, e)| String::from_utf8_lossy(&input[s..e]).into_owned())
        .collect()
}

/// The input with token number `i` replaced by `by` (any text, or nothing).
fn with_token(input: &[u8], i: usize, by: &str) -> Vec<u8> {
    let (s, e) = tokens(input)[i];
    replaced(input, s, e, by.as_bytes())
}

/// Three of `items`: near the start, in the middle, at the end.
fn spread<T: Copy>(items: &[T]) -> [T; 3] {
    [items[1.min(items.len() - 1)], items[items.len() / 2], items[items.len() - 1]]
}

#[test]
fn chess_breaks_of_its_own() {
    // Rows of 0 to 20 chips; pieces of 300 and of 64 bytes (a row runs across pieces often).
    let input =
        generated(Problem::Chess, 7, Size { cases: Some(4), per_case: Some(40), chips: None });
    let w = words(&input);
    // (token index of each case's row count, and of each row's chip count with that count)
    let (mut heads, mut rows) = (Vec::new(), Vec::new());
    let mut i = 1;
    for _ in 0..w[0].parse::<usize>().unwrap() {
        heads.push(i);
        let n: usize = w[i].parse().unwrap();
        i += 1;
        for _ in 0..n {
            let m: usize = w[i].parse().unwrap();
            rows.push((i, m));
            i += 1 + m;
        }
    }
    assert_eq!(i, w.len());
    let full: Vec<usize> = rows.iter().filter(|r| r.1 >= 3).map(|r| r.0).collect();
    let mut cases: Vec<(Vec<u8>, String)> = Vec::new();
    for r in spread(&full) {
        cases.push((
            with_token(&input, r + 3, &w[r + 1]),
            format!("column repeated (token {})", r + 3),
        ));
        cases.push((
            with_token(&input, r + 2, &format!("0000{}", w[r + 1])),
            format!("column repeated with leading zeros (token {})", r + 2),
        ));
        for (by, how) in [
            ("21", "column 21"),
            ("0", "column 0"),
            ("70000", "column past a u16"),
            ("4294967296", "column past a u32"),
        ] {
            cases.push((with_token(&input, r + 1, by), format!("{how} (token {})", r + 1)));
        }
        cases.push((with_token(&input, r, "21"), format!("chip count 21 (token {r})")));
        cases.push((with_token(&input, r, "1"), format!("chip count too small (token {r})")));
    }
    for h in spread(&heads) {
        for by in ["0", "1001", "1", "70000"] {
            cases.push((with_token(&input, h, by), format!("row count {by} (token {h})")));
        }
    }
    let t: u64 = w[0].parse().unwrap();
    for by in [t - 1, t + 1, 0, u64::MAX] {
        cases.push((with_token(&input, 0, &by.to_string()), format!("case count {by}")));
    }
    for by in ["18446744073709551616", "x", "-1", "", "00000000000000000000000004"] {
        cases.push((with_token(&input, 0, by), format!("case count `{by}`")));
    }
    cases.push((b"0\n".repeat(400), "case count 0, then more".into()));
    cases.push(([b"0".as_slice(), &b" ".repeat(1000)].concat(), "case count 0".into()));
    cases.push(([&b" ".repeat(1000)[..], &input].concat(), "blank space first".into()));
    for (bad, how) in &cases {
        same(&["chess"], bad, how);
        same_in_pieces(&["chess"], bad, how, 64);
    }
}

#[test]
fn snim_breaks_of_its_own() {
    let input =
        generated(Problem::Snim, 8, Size { cases: Some(4), per_case: Some(6), chips: None });
    let w = words(&input);
    // Token indexes: each case's k, its moves, m; each position's l and heaps.
    let (mut ks, mut moves, mut ms, mut ls, mut heaps) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut i = 0;
    while w[i] != "0" {
        ks.push(i);
        let k: usize = w[i].parse().unwrap();
        moves.extend(i + 1..=i + k);
        i += 1 + k;
        ms.push(i);
        let m: usize = w[i].parse().unwrap();
        i += 1;
        for _ in 0..m {
            ls.push(i);
            let l: usize = w[i].parse().unwrap();
            heaps.extend(i + 1..=i + l);
            i += 1 + l;
        }
    }
    assert_eq!(i + 1, w.len());
    let mut cases: Vec<(Vec<u8>, String)> = Vec::new();
    let mut edit = |at: usize, by: &str, what: &str| {
        cases.push((with_token(&input, at, by), format!("{what} `{by}` (token {at})")))
    };
    for k in spread(&ks) {
        for by in ["101", "0", "1", "70000"] {
            edit(k, by, "set size");
        }
    }
    for m in spread(&moves) {
        for by in ["0", "10001", "10000", "x"] {
            edit(m, by, "move");
        }
    }
    for m in spread(&ms) {
        for by in ["0", "101", "100"] {
            edit(m, by, "position count");
        }
    }
    for l in spread(&ls) {
        for by in ["0", "101", "1"] {
            edit(l, by, "heap count");
        }
    }
    for h in spread(&heaps) {
        for by in ["10001", "0", "65535", "65534"] {
            edit(h, by, "heap");
        }
    }
    edit(w.len() - 1, "", "the closing 0 removed:");
    edit(w.len() - 1, "0 0", "the closing 0 twice:");
    edit(w.len() - 1, "0 5", "after the closing 0:");
    // A closing 0 in the middle, with the rest after it.
    edit(ks[2], "0", "an early closing 0:");
    for (bad, how) in &cases {
        same(&["snim"], bad, how);
        same_in_pieces(&["snim"], bad, how, 64);
    }
}

#[test]
fn stones_and_funny_breaks_of_their_own() {
    let stones =
        generated(Problem::Stones, 12, Size { cases: Some(300), per_case: None, chips: None });
    let n = tokens(&stones).len();
    let mut cases: Vec<(Vec<u8>, String)> = Vec::new();
    for i in spread(&(0..n).collect::<Vec<_>>()) {
        for by in ["0", "101", "100", "70000", "1 2 3"] {
            cases.push((with_token(&stones, i, by), format!("stones: heap `{by}` (token {i})")));
        }
    }
    cases.push(([&stones[..], b" 5"].concat(), "stones: an odd heap at the end".into()));
    for (bad, how) in &cases {
        same(&["stones"], bad, how);
        same_in_pieces(&["stones"], bad, how, 64);
    }
    let funny =
        generated(Problem::Funny, 13, Size { cases: Some(60), per_case: None, chips: None });
    let w = words(&funny);
    let mut heads = Vec::new();
    let mut i = 0;
    while w[i] != "0" {
        heads.push(i);
        i += 1 + w[i].parse::<usize>().unwrap();
    }
    let mut cases: Vec<(Vec<u8>, String)> = Vec::new();
    for h in spread(&heads) {
        for by in ["24", "0", "23", "1"] {
            cases
                .push((with_token(&funny, h, by), format!("funny: pile count `{by}` (token {h})")));
        }
        for by in ["1001", "1000", "70000"] {
            cases.push((
                with_token(&funny, h + 1, by),
                format!("funny: stone count `{by}` (token {})", h + 1),
            ));
        }
    }
    for (by, how) in [
        ("", "the closing 0 removed"),
        ("0 0", "the closing 0 twice"),
        ("0 7", "input after the closing 0"),
    ] {
        cases.push((with_token(&funny, w.len() - 1, by), format!("funny: {how}")));
    }
    for (bad, how) in &cases {
        same(&["funny"], bad, how);
        same_in_pieces(&["funny"], bad, how, 64);
    }
}

#[test]
fn value_alike_on_heaps_and_rows() {
    // funny:32 has no rule: a position past it is refused (with the build that covers it).
    let heaps: String = (0..900u64).map(|i| format!("{}\n", i * 7919 % 32)).collect();
    broken_alike(&["value", "funny"], heaps.as_bytes());
    let rows: String = (0..700u64).map(|i| format!("{} ", i * 104_729 % (1 << 20))).collect();
    broken_alike(&["value", "chess"], rows.as_bytes());
    // The note on a checked rule comes once, when the first position past the table is answered,
    // and not at all when an error comes first; lines are numbered on across pieces.
    for (text, how) in [
        ("5 ".repeat(400) + "2000 x 7", "an error after the first position past the table"),
        ("5 ".repeat(400) + "x 2000", "an error before any position past the table"),
        (
            "5\n".repeat(300) + &"2000\n".repeat(300) + "99999999999999999999999",
            "a position past 64 bits, after the note",
        ),
        ("5\n".repeat(400), "no position past the table"),
    ] {
        for piece in [PIECE, 64] {
            same_in_pieces(&["value", "lasker"], text.as_bytes(), how, piece);
        }
    }
}

/// A directory of its own (named `what`) holding the table of a queen on a 40×40 board
/// (Wythoff).
fn queen_table(what: &str) -> PathBuf {
    use sgtab::progress::Progress;
    use sgtab::spec::GameSpec;
    use sgtab::table::{Table, format};
    let dir = std::env::temp_dir().join(format!("sgq-parallel-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = GameSpec::parse("queen:40").unwrap();
    let table = Table::new(spec.clone(), spec.reference(&Progress::silent()).unwrap());
    format::write(&table, &dir.join(spec.file_name())).unwrap();
    dir
}

#[test]
fn value_alike_on_a_board() {
    let dir = queen_table("board-value");
    let args = ["value", "queen:40", "--tables", dir.to_str().unwrap()];
    let mut x = 99u64;
    let squares: Vec<String> = (0..400)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            format!("{} {}", (x >> 33) % 40, (x >> 45) % 40)
        })
        .collect();
    // A position a line (each piece then starts with an x), broken everywhere.
    let lines = squares.join("\n") + "\n";
    let out = broken_alike(&args, lines.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 400);
    // Positions across lines (three tokens a line: pieces start with a y as often as with an
    // x), all on one line (pieces cut at spaces), and an x left without its y at the end.
    let tokens: Vec<&str> = squares.iter().flat_map(|s| s.split(' ')).collect();
    let threes = tokens.chunks(3).map(|c| c.join(" ")).collect::<Vec<_>>().join("\n") + "\n";
    let one_line = tokens.join(" ");
    let unpaired = format!("{one_line} 17\n");
    for (text, how) in [
        (&threes, "three tokens a line"),
        (&one_line, "one line"),
        (&unpaired, "an x without its y"),
    ] {
        for piece in [PIECE, 64, 7] {
            same_in_pieces(&args, text.as_bytes(), how, piece);
        }
    }
    broken_alike(&args, threes.as_bytes());
    let w = words(threes.as_bytes());
    for i in spread(&(0..w.len()).collect::<Vec<_>>()) {
        for by in ["40", "39", "x", ""] {
            same_in_pieces(
                &args,
                &with_token(threes.as_bytes(), i, by),
                &format!("`{by}` at token {i}, three a line"),
                64,
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sum_alike_on_a_board() {
    let dir = queen_table("board-sum");
    let args = ["sum", "queen:40", "--tables", dir.to_str().unwrap()];
    // Cases of 0 to 12 squares, coordinates 0..40; some cases XOR to 0 (a square twice).
    let mut text = String::from("90\n");
    let mut x = 777u64;
    for case in 0..90u64 {
        let n = case % 13;
        let mut squares: Vec<(u64, u64)> = (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((x >> 33) % 40, (x >> 45) % 40)
            })
            .collect();
        if case % 3 == 0 && n >= 2 {
            squares[1] = squares[0];
            squares.truncate(2);
        }
        text += &format!(
            "{}\n{}\n",
            squares.len(),
            squares.iter().map(|(a, b)| format!("{a} {b}")).collect::<Vec<_>>().join("  ")
        );
    }
    let out = broken_alike(&args, text.as_bytes());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Second\nFirst"), "{}", show(&out));
    let w = words(text.as_bytes());
    let mut cases: Vec<(Vec<u8>, String)> = Vec::new();
    for i in spread(&(1..w.len()).collect::<Vec<_>>()) {
        for by in ["40", "39", "70000", "65535", "65534"] {
            cases.push((with_token(text.as_bytes(), i, by), format!("`{by}` at token {i}")));
        }
    }
    for by in ["89", "91", "0", "18446744073709551615", "x"] {
        cases.push((with_token(text.as_bytes(), 0, by), format!("case count `{by}`")));
    }
    for (bad, how) in &cases {
        same(&args, bad, how);
        same_in_pieces(&args, bad, how, 64);
    }
    // Cases past the 16-bit bound of the walk's first tokens (it goes on with 32-bit ones from
    // there) and past its 65 536 squares at a time: a small case, 140 000 squares, 70 000 whose
    // XOR is 0 (each square twice), a small one; and the big case cut short.
    let big: Vec<String> =
        (0..140_000u64).map(|i| format!("{} {}", i * 7 % 40, i * 13 % 40)).collect();
    let twice: Vec<String> = big[..35_000].iter().chain(&big[..35_000]).cloned().collect();
    let text =
        format!("4\n1\n3 4\n140000\n{}\n70000\n{}\n1\n3 4\n", big.join(" "), twice.join("\n"));
    let out = same_in_pieces(&args, text.as_bytes(), "cases of 140 000 and 70 000 squares", 4096);
    assert!(out.status.success(), "{}", show(&out));
    let answers = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        answers.starts_with("First\n")
            && answers.ends_with("Second\nFirst\n")
            && answers.lines().count() == 4,
        "{}",
        show(&out)
    );
    let cut = &text.as_bytes()[..text.len() / 3];
    same_in_pieces(&args, cut, "a case of 140 000 squares cut short", 4096);
    std::fs::remove_dir_all(&dir).unwrap();
}
