//! The GPU engine for corner games (queen, rook, king) against the scalar reference, byte for
//! byte, and `sgtab build --backend gpu` against `--backend simd`.
//!
//! Without an adapter these tests print one loud SKIPPED line and pass, except under CI (the
//! `CI` variable set), where a missing adapter fails them. N = 1000 is ignored by default (a
//! few seconds on a software driver): `cargo test --release --test gpu_corner --
//! --include-ignored`.

#![cfg(feature = "gpu")]

mod common;

use common::gpu::engine;
use sgtab::engine::Timings;
use sgtab::engine::gpu::GpuEngine;
use sgtab::games::corner::{Piece, reference};
use sgtab::progress::Progress;
use std::process::Command;

fn assert_matches_reference(engine: &GpuEngine, piece: Piece, n: u32) {
    let gpu =
        engine.corner(piece, n, &Progress::silent(), &mut Timings::default()).unwrap().shrink();
    let want = reference(piece, n, &Progress::silent());
    if let Some(i) = gpu.first_difference(&want) {
        panic!(
            "{}:{n}: the GPU differs from the reference at ({}, {})",
            piece.name(),
            i / n as u64,
            i % n as u64
        );
    }
    assert_eq!(gpu.payload(), want.payload(), "{}:{n}", piece.name());
}

#[test]
fn every_side_up_to_64_matches_the_reference() {
    let Some(engine) = engine() else { return };
    for piece in Piece::ALL {
        for n in 1..=64 {
            assert_matches_reference(&engine, piece, n);
        }
    }
}

#[test]
fn side_300_matches_the_reference() {
    let Some(engine) = engine() else { return };
    for piece in Piece::ALL {
        assert_matches_reference(&engine, piece, 300);
    }
}

#[test]
#[ignore = "a few seconds on a software driver and for the reference"]
fn side_1000_matches_the_reference() {
    let Some(engine) = engine() else { return };
    for piece in Piece::ALL {
        assert_matches_reference(&engine, piece, 1000);
    }
}

/// Tables split by rows over two to four bindings, as large boards are on real devices.
#[test]
fn split_tables_match_the_reference() {
    let Some(mut engine) = engine() else { return };
    // king:300, 2 bits: 22,500 bytes of table, 80 rows a binding: four bindings.
    engine.cap_binding_size(6000);
    assert_matches_reference(&engine, Piece::King, 300);
    // rook:200, 9 bits: 45,000 bytes, 88 rows a binding: three; queen:200, 10 bits: 50,000 bytes,
    // 96 rows: three.
    engine.cap_binding_size(20000);
    assert_matches_reference(&engine, Piece::Rook, 200);
    engine.cap_binding_size(25000);
    assert_matches_reference(&engine, Piece::Queen, 200);
}

#[test]
fn boards_that_do_not_fit_are_refused_before_any_work() {
    let Some(mut engine) = engine() else { return };
    engine.cap_binding_size(25000);
    let mut timings = Timings::default();
    let err = engine.corner(Piece::Queen, 300, &Progress::silent(), &mut timings).unwrap_err().line;
    assert!(
        err.starts_with("board side 300 needs") && err.contains("widest queen board here is 2"),
        "{err}"
    );
    assert!(err.contains("capped by the caller to 25000") && !err.contains('\n'), "{err}");
    assert!(timings.phases.is_empty(), "work started: {:?}", timings.phases);
    // The widest it names fits, one more does not.
    let widest: u32 = err
        .split("widest queen board here is ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_matches_reference(&engine, Piece::Queen, widest);
    assert!(engine.corner(Piece::Queen, widest + 1, &Progress::silent(), &mut timings).is_err());
}

/// `sgtab build --backend gpu` writes the same files as `--backend simd`, and `sgtab verify
/// --backend simd` accepts them.
#[test]
fn sgtab_gpu_tables_equal_simd_tables() {
    if engine().is_none() {
        return;
    }
    let out = std::env::temp_dir().join(format!("sgtab-gpu-corner-{}", std::process::id()));
    let specs = ["queen:500", "rook:500", "king:500"];
    for backend in ["gpu", "simd"] {
        let run = Command::new(env!("CARGO_BIN_EXE_sgtab"))
            .args(["build", "--backend", backend, "--out"])
            .arg(out.join(backend))
            .args(specs)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert!(String::from_utf8_lossy(&run.stdout).contains(&format!("with {backend} in")));
    }
    for name in ["queen-500.sgt", "rook-500.sgt", "king-500.sgt"] {
        let (gpu, simd) = (out.join("gpu").join(name), out.join("simd").join(name));
        assert!(
            std::fs::read(&gpu).unwrap() == std::fs::read(&simd).unwrap(),
            "{name}: gpu and simd differ"
        );
        let verify = Command::new(env!("CARGO_BIN_EXE_sgtab"))
            .args(["verify", "--backend", "simd"])
            .arg(&gpu)
            .output()
            .unwrap();
        assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stderr));
    }
    std::fs::remove_dir_all(&out).unwrap();
}
