//! The number kernels side by side, in process, on input already in memory (no page faults,
//! no process start): ns a number for the bare parse (`Scanner::fold` XOR-ing the numbers) and
//! for `lasker`'s whole answer on one thread (`lasker::answer_bytes`), on each kernel this CPU
//! runs, and the ratio. The kernel is chosen once a process (`SGQ_KERNEL`), so each kernel's
//! runs are in a child process of this bench; the children alternate.
//!
//! Run: `cargo bench --bench parse` (env SGQ_BENCH_MB sets the input size, default 100 MB, the
//! same generated file as `benches/sgq.rs`; SGQ_BENCH_RUNS the rounds, default 7, each the best
//! of 5 passes).

mod common;

use sgtab::judge::input::mapped::Parallel;
use sgtab::judge::input::{NumberKernel, Scanner, Want};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// One child: the best of 5 passes of each measure, as "parse lasker" in ns a number.
fn child(path: &Path) {
    let data = std::fs::read(path).unwrap();
    let table = sgtab::table::format::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tables/lasker-1024.sgt"),
    )
    .unwrap();
    let mut numbers = 0u64;
    let (mut parse, mut lasker) = (f64::MAX, f64::MAX);
    let mut out = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut s = Scanner::over(&data, 0, 0, 0);
        let (x, left, _) = s.fold_some(u64::MAX, &Want::any(0, u64::MAX), 0u64, |a, v| a ^ v);
        let took = t.elapsed().as_secs_f64();
        std::hint::black_box(x);
        numbers = u64::MAX - left;
        parse = parse.min(took);
        out.clear();
        let t = Instant::now();
        sgtab::judge::lasker::answer_bytes(&table, &data, Parallel::new(1), &mut out).unwrap();
        lasker = lasker.min(t.elapsed().as_secs_f64());
    }
    println!("{} {}", parse * 1e9 / numbers as f64, lasker * 1e9 / numbers as f64);
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let path = common::lasker_input(if benching { env("SGQ_BENCH_MB", 100) } else { 2 });
    if std::env::var_os("SGQ_BENCH_CHILD").is_some() {
        return child(&path);
    }
    let kernels: Vec<(NumberKernel, &str)> =
        [(NumberKernel::Avx2, "avx2"), (NumberKernel::Portable, "portable")]
            .into_iter()
            .filter(|(k, _)| k.available())
            .collect();
    let runs = if benching { env("SGQ_BENCH_RUNS", 7) } else { 1 };
    let me = std::env::current_exe().unwrap();
    let mut results: Vec<Vec<(f64, f64)>> = kernels.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs {
        for (i, (_, name)) in kernels.iter().enumerate() {
            let out = Command::new(&me)
                .args(std::env::args().skip(1))
                .env("SGQ_BENCH_CHILD", "1")
                .env("SGQ_KERNEL", name)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "the {name} child failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).unwrap();
            let mut it = text.split_whitespace().map(|v| v.parse::<f64>().unwrap());
            results[i].push((it.next().unwrap(), it.next().unwrap()));
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "input: {} , {runs} alternating rounds, each the best of 5 passes, in memory",
        path.display()
    );
    println!("{:<10} {:>16} {:>22}", "kernel", "parse ns/number", "lasker 1 thread ns/n");
    let medians: Vec<(f64, f64)> = results
        .iter()
        .map(|r| (median(r.iter().map(|x| x.0).collect()), median(r.iter().map(|x| x.1).collect())))
        .collect();
    for ((_, name), (p, l)) in kernels.iter().zip(&medians) {
        println!("{name:<10} {p:>16.2} {l:>22.2}");
    }
    if let [(p0, l0), (p1, l1)] = medians[..] {
        println!("portable / avx2: parse {:.2}x, lasker {:.2}x", p1 / p0, l1 / l0);
    }
}
