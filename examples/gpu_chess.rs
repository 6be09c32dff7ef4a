//! Builds chess tables on the GPU and with the scalar reference, checks that they agree byte for
//! byte and prints each phase's time.
//!
//!     XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan cargo run --release --example gpu_chess -- 20 26

#[cfg(not(feature = "gpu"))]
fn main() {
    eprintln!("gpu_chess needs the `gpu` feature");
    std::process::exit(1);
}

#[cfg(feature = "gpu")]
fn main() {
    use sgtab::engine::Timings;
    use sgtab::engine::gpu::GpuEngine;
    use sgtab::games::chess;
    use sgtab::progress::Progress;
    use sgtab::values::Packed;
    use std::time::Instant;

    let widths: Vec<u32> =
        std::env::args().skip(1).map(|w| w.parse().expect("widths are numbers")).collect();
    let start = Instant::now();
    let engine = GpuEngine::new().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    println!("device: {} (set-up {:.3} s)", engine.describe(), start.elapsed().as_secs_f64());
    for width in widths {
        let mut timings = Timings::default();
        let gpu = engine
            .chess(width, &Progress::new(format!("gpu {width}")), &mut timings)
            .unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(1);
            });
        let start = Instant::now();
        let scalar = Packed::with_bits(
            &chess::reference(width, &Progress::new(format!("scalar {width}"))),
            5,
        );
        let scalar_time = start.elapsed();
        let gpu_total: f64 = timings
            .phases
            .iter()
            .filter(|(p, _)| p != "kernel (gpu timestamps)")
            .map(|(_, t)| t.as_secs_f64())
            .sum();
        println!(
            "width {width}: gpu {gpu_total:.3} s, scalar {:.3} s, {}",
            scalar_time.as_secs_f64(),
            match gpu.first_difference(&scalar) {
                None => "identical".to_string(),
                Some(i) => format!("DIFFER first at row {i}"),
            }
        );
        for (phase, took) in &timings.phases {
            println!("  {phase:<24} {:9.3} ms", took.as_secs_f64() * 1e3);
        }
    }
}
