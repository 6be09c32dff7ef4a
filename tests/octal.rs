//! The take-and-break engine (`engine::octal`) against the scalar reference value for value, over
//! every code of one and two digits (octal and hex, every d0), random longer codes, codes with
//! tails, many lengths and 1, 2 and 3 threads; and against published results: periods and
//! largest values of solved octal games (Gangolli–Plambeck, Flammenkamp, as listed in
//! tczajka/octal-games SolvedGames.md), value counts of 0.161 (rogalski-wmii-uni-lodz-pl/octal
//! results/0.161), Kayles and Dawson's Kayles, and the first values of Grundy's game.

use sgtab::engine::octal::{self, OctalMoves, Par};
use sgtab::games::takebreak::{Code, parse_code, reference};
use sgtab::progress::Progress;
use sgtab::values::Packed;

fn quiet() -> Progress {
    Progress::silent()
}

/// The engine's table for `code` at every length in `lens` (each a prefix of the reference's),
/// with `threads` threads that take over scans longer than 16 splits (so the threaded path runs
/// on small tables too).
fn assert_engine_matches(code: &Code, lens: &[u64], threads: usize) {
    let top = *lens.iter().max().unwrap();
    let want = reference(code, top, &quiet());
    for &len in lens {
        let got =
            octal::run(&OctalMoves::code(code), len, Par { threads, from: 16 }, &quiet()).unwrap();
        let expect = Packed::from_values(&want[..len as usize]);
        if got != expect {
            let at = got.first_difference(&expect);
            panic!(
                "{code} len {len} threads {threads}: differs at {at:?} (engine {:?}, reference \
                    {:?})",
                at.map(|i| got.get(i)),
                at.map(|i| expect.get(i))
            );
        }
    }
}

fn hex(d: u8) -> char {
    char::from_digit(d as u32, 16).unwrap()
}

#[test]
fn every_code_of_one_and_two_digits_every_d0() {
    let mut i = 0;
    for d0 in ["0", "4", "8", "C"] {
        for d1 in 0..16u8 {
            for d2 in 0..16u8 {
                let text = format!("{d0}.{}{}", hex(d1), hex(d2));
                let code = parse_code(&text).unwrap();
                // Digits with 8 (three heaps) make the reference cubic: shorter tables there.
                let three = d0 == "8" || d0 == "C" || d1 >= 8 || d2 >= 8;
                let lens: &[u64] =
                    if three { &[1, 2, 3, 7, 40, 160] } else { &[1, 2, 3, 5, 17, 64, 300, 700] };
                assert_engine_matches(&code, lens, 1 + i % 3);
                i += 1;
            }
        }
    }
}

/// A fixed-seed generator (xorshift64*), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn random_longer_codes_with_and_without_tails() {
    let mut rng = Rng(0x5EED_0C7A);
    for i in 0..240 {
        let hexadecimal = rng.below(4) == 0;
        let digit =
            |rng: &mut Rng| if hexadecimal { rng.below(16) as u8 } else { rng.below(8) as u8 };
        let d0 = ["0", "0", "0", "4", "8", "C"][rng.below(6) as usize];
        let finite: String = (0..1 + rng.below(8)).map(|_| hex(digit(&mut rng))).collect();
        let tail: String = if rng.below(3) == 0 {
            format!("[{}]", (0..1 + rng.below(3)).map(|_| hex(digit(&mut rng))).collect::<String>())
        } else {
            String::new()
        };
        let code = parse_code(&format!("{d0}.{finite}{tail}")).unwrap();
        let text = code.to_string();
        // Three-heap splits and splitting tails are cubic in the reference.
        let slow = text.chars().any(|c| matches!(c, '8'..='9' | 'A'..='F'))
            || code.tail.iter().any(|&d| d & 4 != 0)
            || code.d0 != 0;
        let lens: &[u64] = if slow { &[1, 9, 33, 150] } else { &[1, 4, 100, 1000, 2500] };
        assert_engine_matches(&code, lens, 1 + i % 3);
    }
}

#[test]
fn codes_with_tails_and_splits_without_removal() {
    for text in [
        "0.[3]",
        "0.[2]",
        "0.[1]",
        "0.3[3]",
        "0.[12]",
        "0.1[23]",
        "0.[7]",
        "0.[6]",
        "0.[4]",
        "0.0[37]",
        "0.7[0123]",
        "4.[3]",
        "4.[2]",
        "4.",
        "4.0[1]",
        "8.",
        "8.1",
        "C.",
        "C.1",
        "C.[3]",
        "0.[8]",
        "0.1[F]",
        "4.07",
        "4.77",
    ] {
        let code = parse_code(text).unwrap();
        let splits_in_tail = code.tail.iter().any(|&d| d & 12 != 0);
        let lens: &[u64] = if splits_in_tail || code.d0 & 8 != 0 {
            &[1, 2, 50, 200]
        } else {
            &[1, 2, 50, 600, 3000]
        };
        for threads in 1..=3 {
            assert_engine_matches(&code, lens, threads);
        }
    }
}

#[test]
fn famous_codes_to_a_few_thousand_on_one_to_three_threads() {
    for text in [
        "0.77",
        "0.07",
        "0.16",
        "0.161",
        "0.106",
        "0.137",
        "0.354",
        "0.376",
        "0.56",
        "0.127",
        "0.644",
        "0.303000003",
    ] {
        let code = parse_code(text).unwrap();
        for threads in 1..=3 {
            assert_engine_matches(&code, &[1, 2, 1000, 4000], threads);
        }
    }
}

/// The smallest p0 with g(n + period) = g(n) for every n ≥ p0 that the table holds.
fn preperiod(table: &Packed, period: u64) -> u64 {
    let mut p0 = table.len() - period;
    while p0 > 0 && table.get(p0 - 1) == table.get(p0 - 1 + period) {
        p0 -= 1;
    }
    p0
}

#[test]
fn kayles_and_dawson_have_their_published_periods() {
    // Kayles (0.77): period 12 from heap 71; Dawson's Kayles (0.07): period 34 from heap 53
    // (Winning Ways; Guy and Smith 1956). Last non-zero digit at 2: proven by n = 2·p0 + p + 2.
    for (text, p0, period) in [("0.77", 71, 12), ("0.07", 53, 34)] {
        let table = octal::takebreak(&parse_code(text).unwrap(), 5000, 2, &quiet()).unwrap();
        assert_eq!(preperiod(&table, period), p0, "{text}");
    }
}

#[test]
fn solved_octal_games_have_their_published_periods_and_largest_values() {
    // code, prefix (pre-period), period, index of the largest value, largest value: the rows of
    // SolvedGames.md in tczajka/octal-games (57e893a) whose proof fits in a small table.
    for (text, p0, period, at, largest) in [
        (".45", 498, 20, 37, 8),
        (".156", 3479, 349, 1032, 23),
        (".356", 7315, 142, 86, 19),
        (".644", 3256, 442, 333, 64),
        (".165", 5181, 1550, 620, 25),
        (".127", 46578, 4, 24734, 56),
        (".16", 105351, 149459, 229790, 23),
    ] {
        let code = parse_code(text).unwrap();
        let t = code.digits.len() as u64;
        let len = 2 * p0 + period + t + 1;
        let table = octal::takebreak(&code, len, 2, &quiet()).unwrap();
        assert_eq!(preperiod(&table, period), p0, "{text}");
        assert_eq!(table.max(), largest, "{text}");
        assert_eq!(
            (0..len).find(|&i| table.get(i) == largest),
            Some(at),
            "{text}: first largest value"
        );
    }
}

/// "value count" lines of rogalski-wmii-uni-lodz-pl/octal (9841c1e) results/0.161/N: how often
/// each value occurs among heaps 1..=N (its solver counts heap N, computed last, and not heap 0).
const FREQ_0161_4096: &str = "0 13 1 25 2 218 3 330 4 266 5 196 6 24 7 2 8 246 9 255 10 3 11 3 12 \
    12 13 10 14 219 15 196 16 156 17 146 18 7 19 5 20 13 21 7 22 117 23 123 24 1 25 4 26 116 27 \
    106 28 85 29 96 30 3 31 0 32 24 33 21 34 20 35 22 36 11 37 14 38 25 39 28 40 19 41 15 42 8 43 \
    15 44 12 45 7 46 11 47 9 48 16 49 10 50 14 51 15 52 16 53 26 54 11 55 12 56 20 57 19 58 18 59 \
    18 60 6 61 5 62 6 63 12 64 70 65 123 66 4 67 3 68 7 69 2 70 85 71 56 72 5 73 1 74 41 75 61 76 \
    30 77 25 78 0 79 0 80 0 81 2 82 20 83 19 84 11 85 11 86 0 87 0 88 8 89 8 90 0 91 0 92 0 93 0 \
    94 5 95 3 96 0 97 1 98 4 99 1 100 0 101 0 102 1 103 0 104 1";
const FREQ_0161_65536: &str = "0 13 1 25 2 2047 3 2233 4 2037 5 2098 6 24 7 2 8 2358 9 2358 10 3 \
    11 3 12 12 13 10 14 2224 15 2259 16 2370 17 2431 18 7 19 5 20 13 21 7 22 2217 23 2171 24 1 25 \
    4 26 2156 27 2062 28 2022 29 1869 30 3 31 0 32 369 33 333 34 27 35 29 36 17 37 20 38 375 39 \
    363 40 27 41 20 42 381 43 351 44 350 45 337 46 17 47 18 48 23 49 14 50 369 51 397 52 355 53 \
    388 54 13 55 19 56 327 57 365 58 21 59 25 60 14 61 13 62 340 63 332 64 2802 65 2742 66 4 67 3 \
    68 7 69 2 70 2106 71 2150 72 5 73 1 74 2235 75 2090 76 1499 77 1483 78 0 79 0 80 0 81 2 82 \
    1030 83 995 84 698 85 704 86 0 87 0 88 643 89 613 90 0 91 0 92 0 93 0 94 381 95 402 96 2 97 2 \
    98 27 99 22 100 26 101 26 102 1 103 2 104 13 105 13 106 2 107 0 108 1 109 0 110 26 111 17 112 \
    32 113 27 114 0 115 2 116 0 117 1 118 20 119 21 120 0 121 0 122 22 123 21 124 28 125 27 126 0 \
    127 1 128 1024 129 250 130 1 131 0 132 0 133 0 134 82 135 98 136 0 137 0 138 9";

#[test]
fn value_counts_of_0161_match_the_published_ones() {
    let code = parse_code("0.161").unwrap();
    for (len, published) in [(4096u64, FREQ_0161_4096), (65536, FREQ_0161_65536)] {
        let table = octal::takebreak(&code, len + 1, 1, &quiet()).unwrap();
        let mut counts = vec![0u64; table.max() as usize + 1];
        for v in table.iter().skip(1) {
            counts[v as usize] += 1;
        }
        let words: Vec<u64> = published.split(' ').map(|w| w.parse().unwrap()).collect();
        let mut want = vec![0u64; counts.len().max(words.len() / 2)];
        for pair in words.chunks(2) {
            want[pair[0] as usize] = pair[1];
        }
        counts.resize(want.len(), 0);
        assert_eq!(counts, want, "0.161 value counts of heaps 1..={len}");
    }
}

/// Grundy's game from its definition: a heap splits into two unequal non-empty heaps.
fn grundy_reference(len: usize) -> Vec<u32> {
    let mut g = vec![0u32; len];
    for n in 0..len {
        let mut seen = vec![false; n + 2];
        for a in 1..n.div_ceil(2) {
            seen[(g[a] ^ g[n - a]) as usize] = true;
        }
        g[n] = seen.iter().position(|&s| !s).unwrap() as u32;
    }
    g
}

#[test]
fn grundys_game_matches_its_definition() {
    // OEIS A002188.
    let start = [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0];
    let want = grundy_reference(6000);
    assert_eq!(want[..start.len()], start);
    for threads in 1..=3 {
        for len in [1, 2, 3, 4, 21, 500, 6000] {
            let got =
                octal::run(&OctalMoves::grundy(), len as u64, Par { threads, from: 16 }, &quiet())
                    .unwrap();
            assert_eq!(got, Packed::from_values(&want[..len]), "grundy:{len} on {threads} threads");
        }
    }
    assert_eq!(octal::grundy(6000, 2, &quiet()).unwrap(), Packed::from_values(&want));
}

#[test]
fn values_past_one_and_two_bytes_widen_the_table() {
    // 0.[3] is Nim: g(n) = n, past 255 and (for the u32 step) past 65535.
    let code = parse_code("0.[3]").unwrap();
    let table = octal::takebreak(&code, 70_000, 1, &quiet()).unwrap();
    assert!((0..70_000).all(|n| table.get(n) == n as u32));
    assert_eq!(table, Packed::from_values(&(0..70_000u32).collect::<Vec<_>>()));
}

/// A table grown in steps (as `sgtab build --prove` grows it) equals the reference at every
/// step and the table built in one go: the engine's state (common sets, rare heaps, tail sets,
/// the width of the values) carries over between steps.
#[test]
fn tables_grown_in_steps_equal_one_build_and_the_reference() {
    let steps: &[u64] = &[0, 1, 2, 7, 64, 65, 255, 256, 257, 300, 1000, 1001, 2500];
    for text in
        ["0.161", "0.106", "0.07", "0.354", "4.[3]", "0.[3]", "0.1[23]", "C.1", "0.F6", "4.07"]
    {
        let code = parse_code(text).unwrap();
        let top = *steps.last().unwrap();
        let want = Packed::from_values(&reference(&code, top, &quiet()));
        for threads in 1..=3 {
            let par = Par { threads, from: 16 };
            let mut g = octal::Growing::new(&OctalMoves::code(&code), par);
            for &len in steps {
                g.grow(len, &quiet()).unwrap();
                assert_eq!(g.len(), len, "{text}");
                assert!(
                    (0..len).all(|n| g.get(n) == want.get(n)),
                    "{text} grown to {len} on {threads} threads"
                );
            }
            g.grow(10, &quiet()).unwrap(); // shorter: nothing to do
            assert_eq!(
                g.into_packed(),
                octal::run(&OctalMoves::code(&code), top, par, &quiet()).unwrap(),
                "{text}"
            );
        }
    }
    // Grundy's game, and values outgrowing u8 and u16 exactly at a step.
    let want = grundy_reference(3000);
    let mut g = octal::Growing::new(&OctalMoves::grundy(), Par { threads: 2, from: 16 });
    for len in [5, 500, 501, 3000] {
        g.grow(len, &quiet()).unwrap();
        assert!((0..len).all(|n| g.get(n) == want[n as usize]), "grundy grown to {len}");
    }
    let mut g = octal::Growing::code(&parse_code("0.[3]").unwrap(), 1);
    for len in [255, 256, 257, 65535, 65536, 65537, 70_000] {
        g.grow(len, &quiet()).unwrap();
        assert!((0..len).all(|n| g.get(n) == n as u32), "0.[3] grown to {len}");
    }
    assert_eq!(g.into_packed(), Packed::from_values(&(0..70_000u32).collect::<Vec<_>>()));
}

/// `sgtab build` and `--prove` on the growing table: the values are the reference's, the proof
/// stops at exactly the length the Guy–Smith theorem needs, and a table proven from a prefix is
/// filled from the rule.
#[test]
fn build_and_prove_grow_one_table() {
    use sgtab::build;
    use sgtab::engine::{Backend, Engines, Timings};
    use sgtab::spec::GameSpec;
    let engines = Engines::new(Backend::Simd);
    let mut timings = Timings::default();
    // code, pre-period, period (tczajka/octal-games SolvedGames.md; Winning Ways).
    for (text, p0, period) in [
        ("0.07:100", 53u64, 34u64),
        (".45:100", 498, 20),
        (".156", 3479, 349),
        (".356:5000", 7315, 142),
    ] {
        let spec = GameSpec::parse(text).unwrap();
        let code = parse_code(text.split(':').next().unwrap()).unwrap();
        let (built, proof) =
            build::prove(&engines, &spec, 1 << 20, &quiet(), &mut timings).unwrap();
        let build::Proof::Proven { len, .. } = proof else { panic!("{text} not proven") };
        let t = code.last_nonzero().unwrap();
        // The theorem's length, or the spec's, or a doubling step that passed it before the rule
        // showed (three periods past the pre-period).
        let needs = (2 * p0 + 2 * period + t).max(spec.len());
        assert!(len >= needs && len < 2 * needs, "{text}: proven at {len}, needs {needs}");
        let r = built.table.rule.unwrap();
        assert_eq!((r.pre, r.period, r.proven), (p0, period, true), "{text}");
        assert_eq!(
            built.table.values,
            Packed::from_values(&reference(&code, len, &quiet())),
            "{text}"
        );
    }
    // Proven from the 256-heap prefix (Kayles needs 168), the rest filled from the rule.
    let spec = GameSpec::parse("0.77:40000").unwrap();
    let built = build::build(&engines, &spec, &quiet(), &mut timings).unwrap();
    assert_eq!(built.filled_from, Some(256));
    assert_eq!(
        built.table.values,
        Packed::from_values(&reference(&parse_code("0.77").unwrap(), 40_000, &quiet()))
    );
    // Not proven by --max: the table stops there.
    let spec = GameSpec::parse(".156:100").unwrap();
    let (built, proof) = build::prove(&engines, &spec, 3000, &quiet(), &mut timings).unwrap();
    assert!(matches!(proof, build::Proof::NotProven { max: 3000 }));
    assert_eq!(built.table.values.len(), 3000);
}
