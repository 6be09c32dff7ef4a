//! Corner games on the CPU, side by side in one run: the scalar reference (mex over the O(N)
//! options of each cell) against the line-set engine on one thread and on every core.
//!
//! Run: `cargo bench --bench corner` (env CORNER_BENCH_SIZES, default `queen:512,queen:2048`;
//! CORNER_BENCH_RUNS, default 7 runs of each engine, the scalar reference 3 at most, as it takes
//! tens of seconds at 2048). Runs alternate between engines; reported are the best and median
//! wall time of each and the ratio of the medians to the reference's.

use sgtab::engine::corner;
use sgtab::games::corner::{Piece, reference};
use sgtab::progress::Progress;
use sgtab::values::Packed;
use std::time::{Duration, Instant};

fn timed(f: impl FnOnce() -> Packed) -> (Duration, Packed) {
    let start = Instant::now();
    let values = f();
    (start.elapsed(), values)
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let sizes =
        std::env::var("CORNER_BENCH_SIZES").unwrap_or_else(|_| "queen:512,queen:2048".into());
    let runs: usize =
        std::env::var("CORNER_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(7).max(1);
    let silent = Progress::silent();
    let all = corner::threads();
    println!(
        "{:<12} {:<16} {:>5} {:>12} {:>12} {:>10}",
        "board", "engine", "runs", "best", "median", "speed-up"
    );
    for size in sizes.split(',') {
        let (name, n) = size.split_once(':').expect("sizes are piece:N");
        let piece = Piece::ALL.into_iter().find(|p| p.name() == name).expect("queen, rook or king");
        let n: u32 = n.parse().expect("N is a number");
        let engines: [(String, usize); 3] = [
            ("scalar".into(), runs.min(3)),
            ("simd-1".into(), runs),
            (format!("simd-all ({all})"), runs),
        ];
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); 3];
        let mut tables: Vec<Option<Packed>> = vec![None, None, None];
        for run in 0..runs {
            for (e, (_, want)) in engines.iter().enumerate() {
                if run >= *want {
                    continue;
                }
                let (took, values) = timed(|| match e {
                    0 => reference(piece, n, &silent),
                    1 => corner::corner(piece, n, 1, &silent).unwrap().shrink(),
                    _ => corner::corner(piece, n, all, &silent).unwrap().shrink(),
                });
                times[e].push(took);
                tables[e] = Some(values);
            }
        }
        assert!(tables[1] == tables[0] && tables[2] == tables[0], "{size}: the engines disagree");
        let base = median(&mut times[0].clone());
        for (e, (label, _)) in engines.iter().enumerate() {
            let med = median(&mut times[e]);
            println!(
                "{size:<12} {label:<16} {:>5} {:>10.1}ms {:>10.1}ms {:>9.1}x",
                times[e].len(),
                times[e][0].as_secs_f64() * 1e3,
                med.as_secs_f64() * 1e3,
                base.as_secs_f64() / med.as_secs_f64()
            );
        }
    }
}
