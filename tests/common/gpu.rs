//! The GPU tests' adapter check, shared by `tests/gpu.rs`, `tests/gpu_corner.rs` and
//! `tests/gpu_check.rs`.

use sgtab::engine::gpu::GpuEngine;
use std::io::Write;

/// The GPU engine, or None (after saying so) where there is none and this is not CI: under CI
/// (the `CI` variable set) a missing adapter fails the test, elsewhere it prints one loud
/// SKIPPED line and the test passes.
pub fn engine() -> Option<GpuEngine> {
    match GpuEngine::new() {
        Ok(engine) => {
            // WGPU_BACKEND=gl must test the GL backend (CI runs the GPU tests on both): an
            // adapter of another backend would leave it untested without a word.
            if let Ok(asked) = std::env::var("WGPU_BACKEND") {
                let backend = if asked.eq_ignore_ascii_case("gl") {
                    "(Gl,"
                } else if asked.eq_ignore_ascii_case("vulkan") {
                    "(Vulkan,"
                } else {
                    ""
                };
                assert!(
                    engine.describe().contains(backend),
                    "WGPU_BACKEND={asked} opened {}",
                    engine.describe()
                );
            }
            Some(engine)
        }
        Err(e) if std::env::var_os("CI").is_some() => panic!("no GPU adapter in CI: {e}"),
        Err(e) => {
            // Straight to the process's stderr, past the harness's capture of eprintln!.
            let hint = if e.line.contains("mesa-vulkan-drivers") {
                ""
            } else {
                "; install mesa-vulkan-drivers"
            };
            let _ = writeln!(std::io::stderr(), "SKIPPED: no GPU adapter: {e}{hint}");
            None
        }
    }
}
