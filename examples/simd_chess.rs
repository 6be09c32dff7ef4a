//! Builds one chess table with the SIMD engine and prints how long the kernel took, for timing
//! and memory measurements: `cargo run --release --example simd_chess -- WIDTH [THREADS] [REPEATS]`
//! (under `/usr/bin/time -v` for the peak RSS). With REPEATS > 1 it prints the fastest run.

use sgtab::engine::chess as simd;
use sgtab::engine::threads;
use sgtab::progress::Progress;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: WIDTH [THREADS] [REPEATS]"))
        .collect();
    let width = *args.first().unwrap_or(&20);
    let threads = args.get(1).map_or_else(threads, |&t| t as usize);
    let repeats = *args.get(2).unwrap_or(&1);
    let progress = Progress::new(format!("chess:{width}"));
    let mut best = Duration::MAX;
    let mut table = None;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        table = Some(simd::chess(width, threads, &progress).unwrap_or_else(|e| {
            eprintln!("chess:{width}: {e}");
            std::process::exit(1);
        }));
        best = best.min(start.elapsed());
    }
    progress.finish();
    let table = table.expect("at least one run");
    println!(
        "chess:{width} on {threads} threads: {:.3} ms, {} values, {} payload bytes",
        best.as_secs_f64() * 1e3,
        table.len(),
        table.payload().len()
    );
}
