//! Corner games (queen, rook, king on an N×N board): the scalar reference against a search over
//! real boards, the CPU engine against the reference, and the rook against two-heap Nim.

mod common;

use common::{CornerPieces, Search};
use sgtab::engine::corner;
use sgtab::games::corner::{Piece, reference, row_rules};
use sgtab::progress::Progress;
use sgtab::values::Packed;

fn kind(piece: Piece) -> u8 {
    match piece {
        Piece::Queen => b'Q',
        Piece::Rook => b'R',
        Piece::King => b'K',
    }
}

fn reference_table(piece: Piece, n: u32) -> Packed {
    reference(piece, n, &Progress::silent())
}

#[test]
fn reference_matches_board_search_for_one_piece() {
    for piece in Piece::ALL {
        let n = 10;
        let table = reference_table(piece, n);
        let mut search = Search::new();
        for x in 0..n {
            for y in 0..n {
                let board = CornerPieces { kind: kind(piece), pieces: vec![(x, y)] };
                assert_eq!(
                    table.get((x * n + y) as u64),
                    search.value(&board),
                    "{piece:?} at ({x}, {y})"
                );
            }
        }
    }
}

/// Two and three pieces on one board: the side to move loses exactly when the XOR of the table
/// values is zero, decided by plain search over the real position.
#[test]
fn sums_of_pieces_are_won_by_the_xor_of_the_table() {
    for piece in Piece::ALL {
        let n = 6;
        let table = reference_table(piece, n);
        let g = |(x, y): (u32, u32)| table.get((x * n + y) as u64);
        let mut search = Search::new();
        let cells: Vec<(u32, u32)> = (0..n).flat_map(|x| (0..n).map(move |y| (x, y))).collect();
        for (i, &a) in cells.iter().enumerate() {
            for &b in &cells[i..] {
                let board = CornerPieces { kind: kind(piece), pieces: vec![a, b] };
                assert_eq!(search.wins(&board), g(a) ^ g(b) != 0, "{piece:?} {a:?} {b:?}");
            }
        }
        for (a, b, c) in
            [((5, 4), (3, 3), (2, 5)), ((1, 2), (4, 4), (5, 0)), ((5, 5), (5, 5), (0, 3))]
        {
            let board = CornerPieces { kind: kind(piece), pieces: vec![a, b, c] };
            assert_eq!(search.wins(&board), g(a) ^ g(b) ^ g(c) != 0, "{piece:?} {a:?} {b:?} {c:?}");
        }
    }
}

fn assert_engine_matches(piece: Piece, n: u32, want: &Packed, threads: usize) {
    let got = corner::corner(piece, n, threads, &Progress::silent()).unwrap().shrink();
    if let Some(i) = got.first_difference(want) {
        let (x, y) = (i / n as u64, i % n as u64);
        panic!("{piece:?}:{n} on {threads} threads differs from the reference at ({x}, {y})");
    }
    assert_eq!(got.payload(), want.payload(), "{piece:?}:{n}: same values, different bytes");
}

#[test]
fn engine_matches_the_reference_for_every_side_up_to_64() {
    for piece in Piece::ALL {
        for n in 1..=64 {
            let want = reference_table(piece, n);
            for threads in [1, 2, 3] {
                assert_engine_matches(piece, n, &want, threads);
            }
        }
    }
}

#[test]
fn engine_matches_the_reference_at_300_and_1000() {
    for piece in Piece::ALL {
        for n in [300, 1000] {
            let want = reference_table(piece, n);
            for threads in [1, corner::threads(), 3] {
                assert_engine_matches(piece, n, &want, threads);
            }
        }
    }
}

/// Theory as a witness: the rook is two-heap Nim, so its value on (x, y) is x XOR y. Neither
/// the reference nor the engine knows it.
#[test]
fn rook_is_two_heap_nim_at_1024() {
    let n = 1024u32;
    let from_reference = reference_table(Piece::Rook, n);
    let from_engine =
        corner::corner(Piece::Rook, n, corner::threads(), &Progress::silent()).unwrap().shrink();
    for table in [from_reference, from_engine] {
        assert_eq!(table.bits(), 10);
        for x in 0..n {
            for y in 0..n {
                assert_eq!(table.get((x * n + y) as u64), x ^ y, "rook on ({x}, {y})");
            }
        }
    }
}

/// Wythoff's rows become additively periodic (saltus = period). Rows 0 to 4 do so within a
/// 1024-board; each rule found is checked here against the table directly. Rows 0 to 2 by hand:
/// g(0, y) = y; row 1 runs 1 2 0, 4 5 3, ... (period 3); row 2 runs 2 0 1, 5 3 4, ... from y = 0.
#[test]
fn queen_rows_are_additively_periodic() {
    let n = 1024u64;
    let table = corner::corner(Piece::Queen, n as u32, corner::threads(), &Progress::silent())
        .unwrap()
        .shrink();
    let g = |x: u64, y: u64| table.get(x * n + y) as u64;
    let rules = row_rules(&table, n, 5);
    assert_eq!(rules.len(), 5);
    for r in &rules {
        let rule = r.rule.unwrap_or_else(|| panic!("row {} has no rule", r.x));
        assert_eq!(rule.saltus, rule.period, "row {}", r.x);
        assert!(rule.pre + 3 * rule.period < n, "row {}: {rule:?}", r.x);
        for y in rule.pre..n - rule.period {
            assert_eq!(g(r.x, y + rule.period), g(r.x, y) + rule.saltus, "row {} at {y}", r.x);
        }
    }
    let first: Vec<(u64, u64)> =
        rules[..3].iter().map(|r| r.rule.map(|r| (r.pre, r.period)).unwrap()).collect();
    assert_eq!(first, vec![(0, 1), (0, 3), (0, 3)]);
    assert_eq!((0..6).map(|y| g(1, y)).collect::<Vec<_>>(), vec![1, 2, 0, 4, 5, 3]);
}

#[test]
fn a_board_too_large_for_memory_is_refused_with_the_widest_that_fits() {
    // Whatever this machine has, 65536 queens need 9 GiB of table and 4 GiB of sets: find the
    // message on a machine where it does not fit, else check the arithmetic.
    let need = corner::memory_needed(Piece::Queen, 65536);
    assert!(need > 13 << 30 && need < 14 << 30, "{need}");
    match corner::check_memory(Piece::Queen, 65536) {
        Ok(()) => {}
        Err(e) => {
            assert!(
                e.line.contains("queen:65536 needs")
                    && e.line.contains("the widest queen board that fits is"),
                "{e}"
            );
            assert!(!e.line.contains('\n'));
        }
    }
}

/// `sgtab build` and `sgtab show --rows` on a queen board; bad sides get one line.
#[test]
fn sgtab_builds_and_shows_rows() {
    let out = std::env::temp_dir().join(format!("sgtab-corner-cli-{}", std::process::id()));
    let dir = out.to_str().unwrap();
    let built =
        common::sgtab(&["build", "queen:200", "king:50", "--backend", "simd", "--dir", dir]);
    assert!(built.status.success(), "{}", common::text(&built.stderr));
    let file = out.join("queen-200.sgt");
    let shown = common::sgtab(&["show", file.to_str().unwrap(), "--rows", "3"]);
    assert!(shown.status.success(), "{}", common::text(&shown.stderr));
    let text = common::text(&shown.stdout);
    for line in
        ["  row 0: pre-period 0, period 1, saltus 1", "  row 1: pre-period 0, period 3, saltus 3"]
    {
        assert!(text.lines().any(|l| l == line), "no `{line}` in:\n{text}");
    }
    let king = common::sgtab(&["show", out.join("king-50.sgt").to_str().unwrap(), "--rows", "60"]);
    assert_eq!(common::text(&king.stdout).lines().filter(|l| l.starts_with("  row ")).count(), 50);
    let verified = common::sgtab(&["verify", "--backend", "scalar", file.to_str().unwrap()]);
    assert!(verified.status.success(), "{}", common::text(&verified.stderr));
    std::fs::remove_dir_all(&out).unwrap();
    for (spec, want) in [
        ("queen:65537", "board side 65537 is outside 1 to 65536"),
        ("rook:0", "board side 0 is outside"),
    ] {
        let run = common::sgtab(&["build", spec, "--dir", dir]);
        let err = common::text(&run.stderr);
        assert!(
            !run.status.success() && err.contains(want) && err.lines().count() == 1,
            "{spec}: {err}"
        );
    }
    assert!(!out.exists(), "a refused spec left files");
}
