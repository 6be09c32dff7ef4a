//! The generic engine (mex over a game's options, all cores) against each family's own scalar
//! reference, for every family given by its options, on one to three threads.

use sgtab::engine::generic;
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;

fn agree(spec: &str) {
    let spec = GameSpec::parse(spec).unwrap();
    let moves = spec.moves().unwrap_or_else(|| panic!("{spec} is not given by its options"));
    let want: Vec<u32> = spec.reference(&Progress::silent()).unwrap().iter().collect();
    for threads in 1..=3 {
        let got = generic::compute(moves, threads, &Progress::silent())
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(got, want, "{spec} on {threads} threads");
    }
}

#[test]
fn subtraction_games() {
    for spec in ["sub:1,3,9:5000", "sub:2,5,7:3000", "sub:1:100", "sub:7:1", "sub:3,4,100:1000"] {
        agree(spec);
    }
}

#[test]
fn heap_families() {
    for spec in ["grundy:3000", "lasker:1500", "funny:200", "grundy:1"] {
        agree(spec);
    }
}

#[test]
fn take_and_break_codes() {
    for spec in [
        "0.07:3000",
        "0.77:3000",
        "4.[3]:800",
        "0.F:300",
        "C.1:250",
        "0.8:200",
        "4.333:2000",
        "0.137:2500",
        "0.[3]:500",
    ] {
        agree(spec);
    }
}

#[test]
fn chess_rows_and_boards() {
    for spec in ["chess:1", "chess:10", "chess:14", "queen:1", "queen:60", "rook:45", "king:50"] {
        agree(spec);
    }
}
