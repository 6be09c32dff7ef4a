//! Large generated inputs answered by `sgq` exactly as a simple reference answers them: read
//! everything, split on whitespace, parse with `str::parse`, look values up with the table's
//! generic rule (a real division). Several megabytes, so the stream crosses many buffers.

mod common;

use common::{sgq, tables_dir, text};
use sgtab::judge::Problem;
use sgtab::judge::generate::{Size, generate};
use sgtab::spec::GameSpec;
use sgtab::table::format;

fn input(problem: Problem, seed: u64, size: Size) -> Vec<u8> {
    let mut out = Vec::new();
    generate(problem, seed, size, &mut out).unwrap();
    out
}

fn table(spec: &str) -> sgtab::table::Table {
    let spec = GameSpec::parse(spec).unwrap();
    format::read(&tables_dir().join(spec.file_name())).unwrap()
}

#[test]
fn lasker_matches_a_simple_reference() {
    let data =
        input(Problem::Lasker, 7, Size { cases: Some(5), per_case: Some(300_000), chips: None });
    assert!(data.len() > 15_000_000);
    let t = table("lasker");
    let mut tokens = std::str::from_utf8(&data)
        .unwrap()
        .split_ascii_whitespace()
        .map(|s| s.parse::<u64>().unwrap());
    let mut want = String::new();
    for _ in 0..tokens.next().unwrap() {
        let n = tokens.next().unwrap();
        let x = (0..n).fold(0, |x, _| x ^ t.value(tokens.next().unwrap()).unwrap());
        want += if x != 0 { "Alice\n" } else { "Bob\n" };
    }
    let out = sgq("lasker", &data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), want);
}

#[test]
fn chess_matches_a_simple_reference() {
    let data = input(Problem::Chess, 3, Size { cases: Some(100), per_case: None, chips: None });
    let t = table("chess");
    let mut tokens = std::str::from_utf8(&data)
        .unwrap()
        .split_ascii_whitespace()
        .map(|s| s.parse::<u32>().unwrap());
    let mut want = String::new();
    for _ in 0..tokens.next().unwrap() {
        let mut x = 0;
        for _ in 0..tokens.next().unwrap() {
            let m = tokens.next().unwrap();
            let row = (0..m).fold(0u32, |row, _| row | 1 << (20 - tokens.next().unwrap()));
            x ^= t.values.get(row as u64);
        }
        want += if x != 0 { "YES\n" } else { "NO\n" };
    }
    let out = sgq("chess", &data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), want);
}

#[test]
fn snim_matches_a_simple_reference() {
    let data = input(Problem::Snim, 11, Size { cases: Some(10), per_case: None, chips: None });
    let mut tokens = std::str::from_utf8(&data)
        .unwrap()
        .split_ascii_whitespace()
        .map(|s| s.parse::<u64>().unwrap());
    let mut want = String::new();
    loop {
        let k = tokens.next().unwrap();
        if k == 0 {
            break;
        }
        let mut moves: Vec<u32> = (0..k).map(|_| tokens.next().unwrap() as u32).collect();
        moves.sort_unstable();
        moves.dedup();
        let g = sgtab::games::sub::reference(&moves, 10_001);
        for _ in 0..tokens.next().unwrap() {
            let l = tokens.next().unwrap();
            let x = (0..l).fold(0, |x, _| x ^ g[tokens.next().unwrap() as usize]);
            want.push(if x != 0 { 'W' } else { 'L' });
        }
        want.push('\n');
    }
    let out = sgq("snim", &data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), want);
}

#[test]
fn an_error_deep_in_a_large_input_names_its_line() {
    let mut data =
        input(Problem::Lasker, 9, Size { cases: Some(2), per_case: Some(200_000), chips: None });
    // Replace the last heap of the input with a letter.
    let end = data.len() - 1;
    let start = data[..end].iter().rposition(|&b| b == b' ' || b == b'\n').unwrap() + 1;
    data.splice(start..end, *b"x");
    let lines = data[..start].iter().filter(|&&b| b == b'\n').count() + 1;
    let column = start - data[..start].iter().rposition(|&b| b == b'\n').unwrap();
    let out = sgq("lasker", &data);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "line {lines}, column {column} (byte {start}): expected a heap size in case 2"
        )),
        "{err}"
    );
    assert_eq!(text(&out.stdout).lines().count(), 1, "case 1 answered, the broken case 2 not");
}

#[test]
fn generated_inputs_are_modest_and_test_both_verdicts() {
    // Default sizes: a few MB each; the answers `sgq` gives to them split between the two
    // verdicts, each between 30% and 70% (cases; snim: positions; funny: games won or not).
    for problem in Problem::ALL {
        let data = input(problem, 1, Size::default());
        assert!(data.len() < 8 << 20, "{}: {} bytes by default", problem.name(), data.len());
        let out = sgq(problem.name(), &data);
        assert!(out.status.success(), "{}: {}", problem.name(), text(&out.stderr));
        let answers = text(&out.stdout);
        let (second, all) = match problem {
            Problem::Snim => {
                let chars: Vec<char> = answers.chars().filter(|c| *c == 'W' || *c == 'L').collect();
                (chars.iter().filter(|&&c| c == 'L').count(), chars.len())
            }
            Problem::Funny => (
                answers.lines().filter(|l| l.ends_with("-1 -1 -1")).count(),
                answers.lines().count(),
            ),
            Problem::Chess => {
                (answers.lines().filter(|&l| l == "NO").count(), answers.lines().count())
            }
            Problem::Lasker => {
                (answers.lines().filter(|&l| l == "Bob").count(), answers.lines().count())
            }
            Problem::Stones => {
                (answers.lines().filter(|&l| l == "lose").count(), answers.lines().count())
            }
        };
        let share = second as f64 / all as f64;
        assert!(
            all >= 10 && (0.3..=0.7).contains(&share),
            "{}: {second} of {all} answers are the second player's",
            problem.name()
        );
    }
}
