//! The GPU engine against the scalar reference, byte for byte.
//!
//! Without an adapter these tests print one loud SKIPPED line and pass, except under CI (the
//! `CI` variable set), where a missing adapter fails them. Widths 23 and 26 are slow on a
//! software driver and ignored by default: `cargo test --release --test gpu -- --include-ignored`.

#![cfg(feature = "gpu")]

mod common;

use common::gpu::engine;
use sgtab::engine::Timings;
use sgtab::engine::gpu::GpuEngine;
use sgtab::games::chess;
use sgtab::progress::Progress;
use sgtab::values::Packed;
use std::process::Command;

fn assert_matches_reference(engine: &GpuEngine, width: u32) {
    let gpu = engine.chess(width, &Progress::silent(), &mut Timings::default()).unwrap();
    let reference = Packed::with_bits(&chess::reference(width, &Progress::silent()), 5);
    assert_eq!(gpu.first_difference(&reference), None, "width {width}: first differing row");
    assert_eq!(gpu.payload(), reference.payload(), "width {width}");
}

#[test]
fn widths_1_to_20_match_the_reference() {
    let Some(engine) = engine() else { return };
    for width in 1..=20 {
        assert_matches_reference(&engine, width);
    }
}

#[test]
#[ignore = "slow on a software driver"]
fn width_23_matches_the_reference() {
    let Some(engine) = engine() else { return };
    assert_matches_reference(&engine, 23);
}

#[test]
#[ignore = "slow on a software driver"]
fn width_26_matches_the_reference() {
    let Some(engine) = engine() else { return };
    assert_matches_reference(&engine, 26);
}

/// Tables split over two and four bindings, as large widths are on real devices.
#[test]
fn split_tables_match_the_reference() {
    let Some(mut engine) = engine() else { return };
    // 2^10 rows of 5 bits: 640 bytes a binding.
    engine.cap_binding_size(640);
    assert_matches_reference(&engine, 11);
    assert_matches_reference(&engine, 12);
    // 2^19 rows: 320 KiB a binding, so width 20 takes two.
    engine.cap_binding_size(320 << 10);
    assert_matches_reference(&engine, 20);
}

#[test]
fn widths_that_do_not_fit_are_refused_before_any_work() {
    let Some(mut engine) = engine() else { return };
    engine.cap_binding_size(640);
    let mut timings = Timings::default();
    let err = engine.chess(13, &Progress::silent(), &mut timings).unwrap_err().line;
    assert!(err.contains("width 13") && err.contains("widest row here is 12"), "{err}");
    assert!(!err.contains('\n'), "{err}");
    assert!(timings.phases.is_empty(), "work started: {:?}", timings.phases);
    assert!(engine.chess(33, &Progress::silent(), &mut timings).is_err());
}

/// Marks the child run of `hidden_driver_gives_one_line_error`.
const PROBE: &str = "SGTAB_GPU_PROBE";

/// With the Vulkan driver hidden, opening the engine fails with one clear line, not a panic.
/// The test runs itself again as a child process with the driver hidden (the loader reads its
/// driver list once per process).
#[test]
fn hidden_driver_gives_one_line_error() {
    if std::env::var_os(PROBE).is_some() {
        // On a line of its own: the harness has already printed "test … " without a newline.
        match GpuEngine::new() {
            Ok(engine) => println!("\nprobe: found {}", engine.describe()),
            Err(e) => println!("\nprobe error: {e}"),
        }
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "hidden_driver_gives_one_line_error", "--nocapture", "--test-threads=1"])
        .env(PROBE, "1")
        .env("VK_ICD_FILENAMES", "/nonexistent")
        .env("VK_DRIVER_FILES", "/nonexistent")
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("panicked"),
        "child failed:\n{stdout}\n{stderr}"
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("probe"))
        .unwrap_or_else(|| panic!("no probe line:\n{stdout}"));
    assert_eq!(
        line,
        "probe error: no GPU adapter found (tried wgpu backends: vulkan); install a GPU driver, \
            or Mesa's software one: apt-get install mesa-vulkan-drivers; or use --backend simd"
    );
}

/// `sgtab build --backend gpu` writes the committed default tables byte for byte.
#[test]
fn the_gpu_backend_reproduces_the_committed_tables() {
    if engine().is_none() {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("sgtab-gpu-tables-{}", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_sgtab"))
        .args(["build", "--backend", "gpu", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for entry in std::fs::read_dir(root.join("tables")).unwrap() {
        let path = entry.unwrap().path();
        let fresh = std::fs::read(out.join(path.file_name().unwrap())).unwrap();
        assert!(
            fresh == std::fs::read(&path).unwrap(),
            "{} differs from a gpu build",
            path.display()
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}
