//! `sgq lasker` against `wc -l`, and `sgq sum lasker` (the general query, same input format)
//! beside them, on the same generated input, side by side in one run.
//!
//! Run: `cargo bench --bench sgq` (env SGQ_BENCH_MB sets the input size, default 100 MB;
//! SGQ_BENCH_RUNS the number of alternating runs, default 7). The input is made once by the
//! library's deterministic generator (seed 1) and kept in target/; both commands read it from
//! a file on stdin, so both are served from the page cache after the first run. Reported: the
//! best and median wall time of each and the ratio of the medians.

use sgtab::judge::generate::{generate, Size};
use sgtab::judge::Problem;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn input(mb: u64) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("bench-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("lasker-{mb}MB-seed1.txt"));
    if !path.exists() {
        // One case of 10^6 heaps is about 10.5 MB.
        let cases = (mb * 10).div_ceil(105).max(1);
        let tmp = path.with_extension("tmp");
        let mut out = BufWriter::new(File::create(&tmp).unwrap());
        generate(Problem::Lasker, 1, Size { cases: Some(cases), ..Size::default() }, &mut out).unwrap();
        drop(out);
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

fn time(cmd: &mut Command, file: &Path) -> Duration {
    let start = Instant::now();
    // stderr too: `sgq sum lasker` notes once that its rule is checked, not proven.
    let status = cmd.stdin(File::open(file).unwrap()).stdout(Stdio::null()).stderr(Stdio::null()).status().unwrap();
    let took = start.elapsed();
    assert!(status.success(), "{cmd:?} failed");
    took
}

fn summary(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    (times[0].as_secs_f64() * 1e3, times[times.len() / 2].as_secs_f64() * 1e3)
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` passes nothing: keep that quick.
    let benching = std::env::args().any(|a| a == "--bench");
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let mb = if benching { env("SGQ_BENCH_MB", 100) } else { 2 };
    let runs = if benching { env("SGQ_BENCH_RUNS", 7) } else { 1 };
    let file = input(mb);
    let size = std::fs::metadata(&file).unwrap().len();
    let tables = Path::new(env!("CARGO_MANIFEST_DIR")).join("tables");
    let sgq_cmd = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sgq"));
        c.args(args).arg("--tables").arg(&tables);
        c
    };
    let sum_args = ["sum", "lasker", "--first", "Alice", "--second", "Bob"];
    // Both answer the same input the same way.
    let answers = |args: &[&str]| sgq_cmd(args).stdin(File::open(&file).unwrap()).stderr(Stdio::null()).output().unwrap().stdout;
    assert_eq!(answers(&["lasker"]), answers(&sum_args), "sgq sum lasker answers differently from sgq lasker");
    let (mut sgq, mut wc, mut sum) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        wc.push(time(Command::new("wc").arg("-l"), &file));
        sgq.push(time(&mut sgq_cmd(&["lasker"]), &file));
        sum.push(time(&mut sgq_cmd(&sum_args), &file));
    }
    let (wc_best, wc_med) = summary(wc);
    let (sgq_best, sgq_med) = summary(sgq);
    let (sum_best, sum_med) = summary(sum);
    println!("input: {} ({:.1} MB), {runs} alternating runs", file.display(), size as f64 / 1e6);
    println!("{:<12} {:>10} {:>10} {:>10}", "command", "best ms", "median ms", "MB/s");
    println!("{:<12} {:>10.1} {:>10.1} {:>10.0}", "wc -l", wc_best, wc_med, size as f64 / 1e3 / wc_med);
    println!("{:<12} {:>10.1} {:>10.1} {:>10.0}", "sgq lasker", sgq_best, sgq_med, size as f64 / 1e3 / sgq_med);
    println!("{:<12} {:>10.1} {:>10.1} {:>10.0}", "sgq sum", sum_best, sum_med, size as f64 / 1e3 / sum_med);
    println!("ratio sgq/wc: {:.2}x (medians), {:.2}x (best)", sgq_med / wc_med, sgq_best / wc_best);
    println!("ratio sum/lasker: {:.2}x (medians), {:.2}x (best)", sum_med / sgq_med, sum_best / sgq_best);
}
