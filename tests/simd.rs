//! The SIMD engine and the textbook loop, held to the scalar reference value for value.

use sgtab::engine::chess::{self as simd, textbook};
use sgtab::engine::threads;
use sgtab::games::chess;
use sgtab::progress::Progress;
use sgtab::values::Packed;

fn reference(width: u32) -> Packed {
    Packed::with_bits(&chess::reference(width, &Progress::silent()), 5)
}

fn assert_simd_matches(width: u32, threads: usize) {
    let want = reference(width);
    let got = simd::chess(width, threads, &Progress::silent()).unwrap();
    if got != want {
        let at = got
            .first_difference(&want)
            .map_or("none (lengths or bits differ)".into(), |i| format!("{i} (row {i:#b})"));
        panic!(
            "chess:{width} on {threads} threads differs from the reference; first differing index \
                {at}"
        );
    }
}

#[test]
fn every_width_to_20_on_all_cores() {
    for width in 1..=20 {
        assert_simd_matches(width, threads());
    }
}

#[test]
fn every_width_to_20_on_one_thread() {
    for width in 1..=20 {
        assert_simd_matches(width, 1);
    }
}

#[test]
fn every_width_to_20_on_three_threads() {
    for width in 1..=20 {
        assert_simd_matches(width, 3);
    }
}

#[test]
fn width_23() {
    for threads in [1, 3, threads()] {
        assert_simd_matches(23, threads);
    }
}

#[test]
fn textbook_loop_matches_reference() {
    for width in 1..=16 {
        assert_eq!(
            textbook::chess(width),
            chess::reference(width, &Progress::silent()),
            "chess:{width}"
        );
    }
}
