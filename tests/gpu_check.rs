//! What stands between a GPU kernel and a written table: the self-check every GPU table passes
//! (a sample recomputed on the CPU from the table's own values), `--backend auto`'s fallback to
//! the CPU when it fails, and `--cross-check` (a second engine compared value for value).
//!
//! A right device cannot show a wrong table, so these tests change one value of every GPU table
//! (`Engines::with_gpu_fault`, `SGTAB_TEST_GPU_FAULT` for the binary), as a wrong kernel would.
//! Without an adapter the GPU tests print one loud SKIPPED line and pass, except under CI.

#![cfg(feature = "gpu")]

mod common;

use common::gpu::engine;
use sgtab::build::{self, Built};
use sgtab::engine::{Backend, Engines, Timings};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use sgtab::table::Table;
use sgtab::values::Packed;
use std::process::Command;

fn spec(text: &str) -> GameSpec {
    GameSpec::parse(text).unwrap()
}

fn compute(engines: &Engines, text: &str) -> Result<(Packed, Backend), String> {
    engines.compute(&spec(text), &Progress::silent(), &mut Timings::default()).map_err(|e| e.line)
}

fn reference(text: &str) -> Packed {
    Engines::new(Backend::Scalar)
        .compute(&spec(text), &Progress::silent(), &mut Timings::default())
        .unwrap()
        .0
}

#[test]
fn a_right_gpu_table_passes_its_self_check_and_says_so_in_the_timings() {
    let Some(_) = engine() else { return };
    for text in ["queen:100", "rook:70", "king:50", "chess:14"] {
        let mut timings = Timings::default();
        let (values, engine) = Engines::new(Backend::Gpu)
            .compute(&spec(text), &Progress::silent(), &mut timings)
            .unwrap();
        assert_eq!(
            (values.first_difference(&reference(text)), engine),
            (None, Backend::Gpu),
            "{text}"
        );
        assert!(
            timings.phases.iter().any(|(p, _)| p.starts_with("self-check (")),
            "{text}: {:?}",
            timings.phases
        );
    }
}

#[test]
fn a_wrong_value_fails_the_gpu_build_naming_the_adapter_and_the_position() {
    let Some(gpu) = engine() else { return };
    // queen:64 index 1000 is (15, 40), past the first layers: found by the spread sample or by
    // a sampled position whose options read it.
    let err =
        compute(&Engines::new(Backend::Gpu).with_gpu_fault(Some(1000)), "queen:64").unwrap_err();
    assert!(err.starts_with("queen:64: the GPU table failed its self-check on "), "{err}");
    assert!(
        err.contains(&gpu.describe()) && err.contains("nothing written") && !err.contains('\n'),
        "{err}"
    );
    // A first layer: every row of low excess is checked, so the very row is named.
    let err =
        compute(&Engines::new(Backend::Gpu).with_gpu_fault(Some(0b111)), "chess:10").unwrap_err();
    assert!(
        err.contains(
            "at row 7 (0b0000000111) it holds 1 where the mex of its options' values is 0"
        ),
        "{err}"
    );
    let err = compute(&Engines::new(Backend::Gpu).with_gpu_fault(Some(0)), "rook:20").unwrap_err();
    assert!(
        err.contains("at (0, 0) it holds 1 where the mex of its options' values is 0"),
        "{err}"
    );
}

#[test]
fn auto_builds_on_the_cpu_when_the_gpu_table_fails_its_check() {
    let Some(_) = engine() else { return };
    let engines = Engines::new(Backend::Auto).auto_takes_software_gpu().with_gpu_fault(Some(5));
    let (values, engine) = compute(&engines, "rook:64").unwrap();
    assert_eq!((engine, values.first_difference(&reference("rook:64"))), (Backend::Simd, None));
    let notes = engines.take_notes();
    assert!(
        notes.iter().any(|n| n.starts_with(
            "--backend auto built rook:64 on simd instead: rook:64: the GPU table failed its \
                self-check"
        )),
        "{notes:?}"
    );
    // Without a fault, auto keeps the GPU's table.
    let engines = Engines::new(Backend::Auto).auto_takes_software_gpu();
    assert_eq!(compute(&engines, "rook:64").unwrap().1, Backend::Gpu);
}

fn sgtab(args: &[&str], fault: Option<&str>) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sgtab"));
    cmd.args(args);
    if let Some(at) = fault {
        cmd.env("SGTAB_TEST_GPU_FAULT", at);
    }
    cmd.output().unwrap()
}

#[test]
fn sgtab_writes_nothing_when_the_self_check_fails() {
    let Some(gpu) = engine() else { return };
    let dir = common::scratch("gpu_check", "self-check");
    let out = dir.to_str().unwrap();
    // A good table of the same game is there already: a failed build leaves it as it was.
    assert!(sgtab(&["build", "queen:64", "--backend", "simd", "-o", out], None).status.success());
    let before = std::fs::read(dir.join("queen-64.sgt")).unwrap();
    let run = sgtab(&["build", "queen:64", "king:30", "--backend", "gpu", "-o", out], Some("1000"));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("sgtab: error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains(&gpu.describe()) && errors[0].contains("queen:64"), "{stderr}");
    assert_eq!(std::fs::read(dir.join("queen-64.sgt")).unwrap(), before);
    assert!(!dir.join("king-30.sgt").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cross_check_names_the_first_difference_between_two_engines() {
    // A table as the GPU might have left it, one value changed: cross_check recomputes it on the
    // fast CPU engine and names where they part.
    let s = spec("queen:30");
    let good = reference("queen:30");
    let mut values: Vec<u32> = good.iter().collect();
    values[31] += 1;
    values[40] += 1;
    let built = Built {
        table: Table::new(s.clone(), Packed::from_values(&values)),
        engine: Backend::Gpu,
        filled_from: None,
    };
    let engines = Engines::new(Backend::Gpu);
    let err = build::cross_check(&engines, &built, &Progress::silent(), &mut Timings::default())
        .unwrap_err()
        .line;
    assert!(
        err.contains(
            "gpu and simd differ first at (1, 1) (gpu has 3, simd has 2); 2 of 900 values differ"
        ),
        "{err}"
    );
    let built =
        Built { table: Table::new(s.clone(), good), engine: Backend::Gpu, filled_from: None };
    let mut timings = Timings::default();
    assert_eq!(
        build::cross_check(&engines, &built, &Progress::silent(), &mut timings).unwrap(),
        (Backend::Simd, 900)
    );
    assert!(timings.phases.iter().any(|(p, _)| p == "cross-check on simd"), "{:?}", timings.phases);
    // The fast CPU engine against the reference; a table built by the reference of a game with
    // no fast engine has nothing to be compared with.
    let lasker = Built {
        table: Table::new(spec("lasker:100"), reference("lasker:100")),
        engine: Backend::Scalar,
        filled_from: None,
    };
    let err = build::cross_check(&engines, &lasker, &Progress::silent(), &mut Timings::default())
        .unwrap_err()
        .line;
    assert_eq!(err, "--cross-check: lasker:100 has no engine besides scalar to compare with");
}

#[test]
fn sgtab_build_cross_check_compares_the_gpu_with_the_cpu() {
    let Some(_) = engine() else { return };
    let dir = common::scratch("gpu_check", "cross-check");
    let out = dir.to_str().unwrap();
    let run = sgtab(
        &["build", "queen:64", "chess:12", "--backend", "gpu", "--cross-check", "-d", out],
        None,
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(
        stdout.contains("queen:64: gpu and simd agree on all 4096 values (--cross-check)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("chess:12: gpu and simd agree on all 4096 values (--cross-check)"),
        "{stdout}"
    );
    // A game with one engine only has nothing to compare with: one line, nothing written.
    let run = sgtab(&["build", "lasker:100", "--cross-check", "-d", out], None);
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr).trim(),
        "sgtab: error: --cross-check: lasker:100 has no engine besides scalar to compare with"
    );
    assert!(!dir.join("lasker-100.sgt").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
