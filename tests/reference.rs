//! Every scalar reference against an independent brute force over real positions.

mod common;

use common::{Board, LaskerHeaps, Piles, Search, SubHeaps};
use sgtab::games::{chess, funny, lasker, sub};
use sgtab::progress::Progress;

#[test]
fn chess_reference_matches_board_search_for_every_width_up_to_12() {
    for width in 1..=12u32 {
        let table = chess::reference(width, &Progress::silent());
        let mut search = Search::new();
        for mask in 0..1u32 << width {
            let board = Board(vec![Board::row_from_mask(width, mask)]);
            assert_eq!(
                table[mask as usize] as u32,
                search.value(&board),
                "width {width}, row {mask:b}"
            );
        }
    }
}

#[test]
fn chess_rows_are_staircase_nim() {
    // A third witness from theory: reading the row from the right, the runs of chips between
    // empty cells are the steps of a staircase, and the value is the XOR of the odd steps.
    fn staircase(width: u32, mask: u32) -> u32 {
        let (mut step, mut run, mut x) = (0, 0, 0);
        for bit in 0..width {
            if mask >> bit & 1 == 1 {
                run += 1;
            } else {
                if step % 2 == 1 {
                    x ^= run;
                }
                step += 1;
                run = 0;
            }
        }
        if step % 2 == 1 { x ^ run } else { x }
    }
    for width in [1u32, 5, 16, 20] {
        let table = chess::reference(width, &Progress::silent());
        for mask in 0..1u32 << width {
            assert_eq!(
                table[mask as usize] as u32,
                staircase(width, mask),
                "width {width}, row {mask:b}"
            );
        }
    }
}

#[test]
fn subtraction_references_match_heap_search() {
    for moves in [vec![1, 3, 9], vec![2, 5], vec![1, 2, 3, 4, 5], vec![3, 4, 7, 11], vec![6]] {
        let table = sub::reference(&moves, 60);
        let mut search = Search::new();
        for heap in 0..60u32 {
            let p = SubHeaps { moves: moves.clone(), heaps: vec![heap] };
            assert_eq!(table[heap as usize], search.value(&p), "moves {moves:?}, heap {heap}");
        }
    }
}

#[test]
fn lasker_reference_matches_heap_list_search() {
    let table = lasker::reference(16);
    let mut search = Search::new();
    for heap in 0..16u32 {
        let p = LaskerHeaps(if heap == 0 { vec![] } else { vec![heap] });
        assert_eq!(table[heap as usize], search.value(&p), "heap {heap}");
    }
}

#[test]
fn funny_reference_matches_pile_search() {
    let table = funny::reference(5);
    let mut search = Search::new();
    for n in 1..=5usize {
        // One stone on pile 0 of n piles: n − 1 piles lie to its right.
        let mut piles = vec![0; n];
        piles[0] = 1;
        assert_eq!(table[n - 1], search.value(&Piles(piles)), "{n} piles");
    }
}
