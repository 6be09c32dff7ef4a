//! The GPU engine beside the scalar reference, chess rows of width 16 and 20, in one group.
//! The device is opened once, outside the timed loop; without an adapter the GPU half is
//! skipped with a loud line.
//!
//!     XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan cargo bench --bench chess_gpu

use criterion::{Criterion, criterion_group, criterion_main};

#[cfg(not(feature = "gpu"))]
fn chess_gpu(_: &mut Criterion) {
    eprintln!("SKIPPED gpu benches: sgtab built without the `gpu` feature");
}

#[cfg(feature = "gpu")]
fn chess_gpu(c: &mut Criterion) {
    use criterion::BenchmarkId;
    use sgtab::engine::Timings;
    use sgtab::engine::gpu::GpuEngine;
    use sgtab::games::chess;
    use sgtab::progress::Progress;
    use std::hint::black_box;

    let engine = GpuEngine::new()
        .inspect_err(|e| eprintln!("SKIPPED gpu benches: no GPU adapter: {e}"))
        .ok();
    let mut group = c.benchmark_group("chess");
    group.sample_size(10);
    for width in [16, 20] {
        if let Some(engine) = &engine {
            group.bench_with_input(BenchmarkId::new("gpu", width), &width, |b, &w| {
                b.iter(|| {
                    engine
                        .chess(black_box(w), &Progress::silent(), &mut Timings::default())
                        .unwrap()
                })
            });
        }
        group.bench_with_input(BenchmarkId::new("scalar", width), &width, |b, &w| {
            b.iter(|| chess::reference(black_box(w), &Progress::silent()))
        });
    }
    group.finish();
}

criterion_group!(benches, chess_gpu);
criterion_main!(benches);
