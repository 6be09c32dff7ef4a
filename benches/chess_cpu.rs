//! The CPU engines for chess rows, side by side per width: the textbook loop (the baseline),
//! the scalar reference, the SIMD engine on one thread and on every core.
//! `cargo bench --bench chess_cpu` (about a minute and a half).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sgtab::engine::chess::{self as simd, textbook};
use sgtab::engine::threads;
use sgtab::games::chess;
use sgtab::progress::Progress;
use std::hint::black_box;
use std::time::Duration;

fn chess_cpu(c: &mut Criterion) {
    let silent = Progress::silent();
    for width in [16, 20, 24] {
        let mut group = c.benchmark_group(format!("chess_cpu/{width}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
        group.bench_function("textbook", |b| b.iter(|| textbook::chess(black_box(width))));
        group.bench_function("scalar", |b| b.iter(|| chess::reference(black_box(width), &silent)));
        group.bench_function("simd-1", |b| {
            b.iter(|| simd::chess(black_box(width), 1, &silent).unwrap())
        });
        let all = threads();
        group.bench_function(BenchmarkId::new("simd-all", all), |b| {
            b.iter(|| simd::chess(black_box(width), all, &silent).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, chess_cpu);
criterion_main!(benches);
