//! Take-and-break codes and Grundy's game: the references against a literal search over lists
//! of heaps; the names that are codes (`sub`, `lasker`) against their codes; proven rules and
//! tables filled from them against tables computed in full.

mod common;

use common::{CodeHeaps, GrundyHeaps, Search};
use sgtab::build;
use sgtab::engine::{Backend, Engines, Timings};
use sgtab::games::{grundy, takebreak};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use std::rc::Rc;

/// Digits d0, d1, d2, ... of `code` written out to `len` places, read from its text here
/// (hex digits, one `[...]` tail at the end) and not by the library's parser.
fn digits_of(code: &str, len: usize) -> Vec<u8> {
    let (d0, rest) = code.split_once('.').unwrap();
    let mut out = vec![if d0.is_empty() { 0 } else { u8::from_str_radix(d0, 16).unwrap() }];
    let (finite, tail) = match rest.split_once('[') {
        Some((f, t)) => (f, t.trim_end_matches(']')),
        None => (rest, ""),
    };
    out.extend(finite.chars().map(|c| c.to_digit(16).unwrap() as u8));
    let tail: Vec<u8> = tail.chars().map(|c| c.to_digit(16).unwrap() as u8).collect();
    while out.len() < len {
        out.push(if tail.is_empty() {
            0
        } else {
            tail[(out.len() - 1 - finite.len()) % tail.len()]
        });
    }
    out
}

fn check(code: &str, heaps: u32) {
    let parsed = takebreak::parse_code(code).unwrap_or_else(|e| panic!("{code}: {e}"));
    let table = takebreak::reference(&parsed, heaps as u64, &Progress::silent());
    let digits = Rc::new(digits_of(code, heaps as usize + 1));
    let mut search = Search::new();
    for h in 0..heaps {
        let p = CodeHeaps { digits: digits.clone(), heaps: if h == 0 { vec![] } else { vec![h] } };
        assert_eq!(table[h as usize], search.value(&p), "code {code}, heap {h}");
    }
}

#[test]
fn every_two_digit_octal_code_matches_the_heap_search() {
    for a in 0..8 {
        for b in 0..8 {
            check(&format!("0.{a}{b}"), 13);
        }
    }
}

#[test]
fn every_two_digit_hex_code_matches_the_heap_search() {
    for a in 0..16u32 {
        for b in 0..16u32 {
            check(&format!("0.{a:X}{b:X}"), 9);
        }
    }
}

#[test]
fn splitting_without_removing_and_longer_codes_match_the_heap_search() {
    for d0 in ["4", "8", "C"] {
        for a in 0..16u32 {
            check(&format!("{d0}.{a:X}"), 8);
        }
    }
    for code in [
        "0.137",
        "0.106",
        "0.161",
        "0.354",
        "0.376",
        "0.6",
        "0.F",
        "0.B7",
        "0.4C3",
        "0.0007",
        "0.303000003",
        "0.[3]",
        "0.1[2]",
        "0.[12]",
        "4.[3]",
        "0.0[7]",
        "C.[1]",
        "0.[F]",
    ] {
        check(code, 10);
    }
}

#[test]
fn grundy_reference_matches_the_heap_search() {
    let table = grundy::reference(16, &Progress::silent());
    let mut search = Search::new();
    for h in 0..16u32 {
        assert_eq!(
            table[h as usize],
            search.value(&GrundyHeaps(if h == 0 { vec![] } else { vec![h] })),
            "heap {h}"
        );
    }
}

fn values(spec: &str, backend: Backend) -> Vec<u32> {
    let spec = GameSpec::parse(spec).unwrap();
    let (packed, _) =
        Engines::new(backend).compute(&spec, &Progress::silent(), &mut Timings::default()).unwrap();
    packed.iter().collect()
}

#[test]
fn named_games_are_their_codes() {
    assert_eq!(
        values("sub:1,3,9:3000", Backend::Scalar),
        values("0.303000003:3000", Backend::Scalar)
    );
    assert_eq!(values("lasker:3000", Backend::Scalar), values("4.[3]:3000", Backend::Scalar));
    assert_eq!(values("sub:2,5,7:500", Backend::Scalar), values("0.0300303:500", Backend::Scalar));
}

#[test]
fn rules_come_out_as_published() {
    let engines = Engines::new(Backend::Auto);
    let mut timings = Timings::default();
    for (code, pre, period, saltus, proven) in [
        ("0.77:2000", 71, 12, 0, true),
        ("0.07:2000", 53, 34, 0, true),
        ("4.[3]:2000", 1, 4, 4, false),
        ("0.303000003", 0, 2, 0, true),
    ] {
        let spec = GameSpec::parse(code).unwrap();
        let built = build::build(&engines, &spec, &Progress::silent(), &mut timings).unwrap();
        let r = built.table.rule.unwrap_or_else(|| panic!("{code}: no rule"));
        assert_eq!((r.pre, r.period, r.saltus, r.proven), (pre, period, saltus, proven), "{code}");
    }
    // Hexadecimal and infinite codes are never claimed proven.
    let spec = GameSpec::parse("0.[3]:500").unwrap();
    let built = build::build(&engines, &spec, &Progress::silent(), &mut timings).unwrap();
    assert!(!built.table.rule.unwrap().proven);
}

#[test]
fn tables_filled_from_a_proven_rule_equal_tables_computed_in_full() {
    let engines = Engines::new(Backend::Scalar);
    let mut timings = Timings::default();
    for code in ["0.77:40000", "0.07:40000", "0.303000003:20000", "0.6:20000"] {
        let spec = GameSpec::parse(code).unwrap();
        let built = build::build(&engines, &spec, &Progress::silent(), &mut timings).unwrap();
        let (full, _) = engines.compute(&spec, &Progress::silent(), &mut timings).unwrap();
        assert_eq!(built.table.values, full, "{code}");
        if code != "0.6:20000" {
            assert!(built.filled_from.is_some(), "{code} should be proven from a prefix");
        }
    }
}

#[test]
fn prove_grows_the_table_until_the_theorem_holds() {
    let engines = Engines::new(Backend::Auto);
    let spec = GameSpec::parse("0.07:100").unwrap();
    let (built, proof) =
        build::prove(&engines, &spec, 1 << 16, &Progress::silent(), &mut Timings::default())
            .unwrap();
    let build::Proof::Proven { theorem, len } = proof else { panic!("0.07 not proven") };
    assert!(theorem.contains("Guy-Smith"));
    let r = built.table.rule.unwrap();
    assert!(len >= 2 * 53 + 2 * 34 + 2 && r.proven && r.period == 34, "{len} {r:?}");
    // A rule the theorem does not cover (a saltus) stops at --max and says so.
    let spec = GameSpec::parse("0.0F:64").unwrap();
    let (_, proof) =
        build::prove(&engines, &spec, 256, &Progress::silent(), &mut Timings::default()).unwrap();
    assert!(matches!(proof, build::Proof::NotProven { max: 256 }));
    // A game with no theorem is refused before any work.
    let spec = GameSpec::parse("4.[3]:64").unwrap();
    let refused = build::prove(&engines, &spec, 256, &Progress::silent(), &mut Timings::default());
    assert!(refused.is_err_and(|e| e.line.contains("repeating tail")));
}

#[test]
fn octal_codes_are_proven_by_guy_smith_exactly_at_the_length_it_needs() {
    use sgtab::table::Table;
    // (code, pre-period, period): Kayles, Dawson's Kayles, 0.137 (Winning Ways ch. 4).
    for (code, pre, period) in [("0.77", 71, 12), ("0.07", 53, 34), ("0.137", 52, 34)] {
        let spec = GameSpec::parse(&format!("{code}:600")).unwrap();
        let table = Table::new(spec.clone(), spec.reference(&Progress::silent()).unwrap());
        let rule = table.rule.unwrap();
        assert_eq!(
            (rule.pre, rule.period, rule.saltus, rule.proven),
            (pre, period, 0, true),
            "{code}"
        );
        let t = spec.theorem(&rule).unwrap();
        assert!(t.name.contains("Guy-Smith"));
        let last = code.len() as u64 - 2; // digits after "0."
        assert_eq!(t.needs, 2 * pre + 2 * period + last, "{code}");
        for (len, proven) in [(t.needs - 1, false), (t.needs, true)] {
            let spec = build::resized(&spec, len).unwrap();
            let table = Table::new(spec.clone(), spec.reference(&Progress::silent()).unwrap());
            let r = table.rule.unwrap_or_else(|| panic!("{code}:{len}: no rule"));
            assert_eq!((r.pre, r.period, r.proven), (pre, period, proven), "{code}:{len}");
        }
    }
    use sgtab::values::Rule;
    // No theorem for tails: at most checked.
    for code in ["0.[3]:300", "4.[3]:300", "0.1[37]:300"] {
        let spec = GameSpec::parse(code).unwrap();
        let table = Table::new(spec.clone(), spec.reference(&Progress::silent()).unwrap());
        assert!(table.rule.is_some_and(|r| !r.proven), "{code}: {:?}", table.rule);
    }
    // Splits without removal and three-heap digits: proven by the extended theorem, with
    // m = 2 or 3 in the bound m·max(pre, 1) + m·p + t.
    for (code, m, t) in [
        ("4.07:300", 2, 2),
        ("0.F:300", 3, 1),
        ("0.8:300", 3, 1),
        ("C.1:300", 3, 1),
        ("4.:300", 2, 0),
    ] {
        let spec = GameSpec::parse(code).unwrap();
        let table = Table::new(spec.clone(), spec.reference(&Progress::silent()).unwrap());
        let r = table.rule.unwrap_or_else(|| panic!("{code}: no rule"));
        assert_eq!(r.proven, r.saltus == 0, "{code}: {r:?}");
        let plain = Rule { saltus: 0, ..r };
        assert_eq!(
            spec.theorem(&plain).unwrap().needs,
            m * r.pre.max(1) + m * r.period + t,
            "{code}"
        );
    }
}

/// Finite codes with digits from `digits` (d0 first): all codes d0.d1d2 over them.
fn small_codes(d0s: &[u8], digits: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for &d0 in d0s {
        for &a in digits {
            for &b in digits {
                out.push(format!("{d0:X}.{a:X}{b:X}"));
            }
        }
    }
    out
}

/// Every rule the (extended) Guy–Smith theorem proves from a prefix of a table, for every prefix
/// length from 20 on, holds over the whole table, at least three times the length the theorem
/// needed. The long tables are the scalar reference, which the heap searches above hold to the
/// literal moves.
#[test]
fn every_proven_rule_holds_far_past_its_bound() {
    use sgtab::table::find_rule_in;
    let mut codes = small_codes(&[0, 4], &[0, 1, 2, 3, 4, 5, 6, 7]);
    codes.extend(small_codes(&[0, 8, 12], &[0, 1, 3, 8, 9, 11, 15]));
    codes.extend(["4.333", "4.3333333", "0.137", "0.77", "0.07", "4.0007"].map(String::from));
    let (mut proven, mut games) = (0, 0);
    for code in &codes {
        let hex = code.contains(['8', '9', 'B', 'C', 'F']);
        let len: u64 = if hex { 360 } else { 900 };
        let spec = GameSpec::parse(&format!("{code}:{len}")).unwrap();
        let full = spec.reference(&Progress::silent()).unwrap();
        let mut any = false;
        for n in 20..=len / 3 {
            let short = build::resized(&spec, n).unwrap();
            let Some(rule) = find_rule_in(&short, n, |i| full.get(i) as u64).filter(|r| r.proven)
            else {
                continue;
            };
            for i in rule.pre..len - rule.period {
                assert_eq!(
                    full.get(i + rule.period),
                    full.get(i),
                    "{code}: {rule:?} proven from {n} values fails at {i}"
                );
            }
            proven += 1;
            any = true;
        }
        games += any as u32;
    }
    assert!(games >= 100 && proven > 10_000, "{games} of {} games, {proven} proofs", codes.len());
}

/// From n0 = 0 the check is not enough: in `0.4` (take one bean and split the rest in two)
/// g = 0, 0, 0, 1, so g(n + 1) = g(n) holds over 0 ≤ n < 2 (the bound 2·0 + 1 + t with t = 1)
/// and fails at n = 2. The theorem takes n0 = max(pre, 1), so it needs 2·1 + 2·1 + 1 entries.
#[test]
fn a_rule_from_zero_is_proven_from_one() {
    use sgtab::values::Rule;
    let spec = GameSpec::parse("0.4:40").unwrap();
    let g = spec.reference(&Progress::silent()).unwrap();
    assert_eq!((0..4).map(|i| g.get(i)).collect::<Vec<_>>(), [0, 0, 0, 1]);
    let rule = Rule { pre: 0, period: 1, saltus: 0, checked: 3, proven: false };
    assert_eq!(spec.theorem(&rule).unwrap().needs, 5);
}

/// "Take 1 to c beans, or split a heap in two" (`4.` and c threes): a 1024-entry table's rule,
/// proven, gives every value of the 16384-entry table computed in full. The rule that a short
/// period closing the table would give instead (period 4 from near the end, for some c) fails.
#[test]
fn take_up_to_c_or_split_rules_predict_the_long_table() {
    use sgtab::engine::octal;
    let engines = Engines::new(Backend::Auto);
    let mut timings = Timings::default();
    for c in 2..=80 {
        let code = format!("4.{}", "3".repeat(c));
        let short = GameSpec::parse(&format!("{code}:1024")).unwrap();
        let built = build::build(&engines, &short, &Progress::silent(), &mut timings).unwrap();
        let rule = built.table.rule.unwrap_or_else(|| panic!("{code}: no rule"));
        assert!(rule.proven, "{code}: {rule:?}");
        let long =
            octal::takebreak(&takebreak::parse_code(&code).unwrap(), 16384, 2, &Progress::silent())
                .unwrap();
        for n in 1024..16384u64 {
            let got = rule.extend(n, 1024, |i| built.table.values.get(i) as u64);
            assert_eq!(got, Some(long.get(n) as u64), "{code}: {rule:?} at {n}");
        }
    }
}
