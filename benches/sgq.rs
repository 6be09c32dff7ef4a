//! `sgq lasker` against `wc -l` on the same generated input, side by side in one run: sgq's
//! mapped path (stdin a file) on 1 thread, 2 threads and all cores, `sgq sum lasker` (the
//! general query, same input format), and the streaming path (stdin a pipe); then the peak
//! resident set of the mapped path (`/usr/bin/time -v`).
//!
//! Where the CPU has AVX2, the portable number kernel (`SGQ_KERNEL=portable`) is timed beside
//! it too.
//!
//! Run: `cargo bench --bench sgq` (env SGQ_BENCH_MB sets the input size, default 100 MB;
//! SGQ_BENCH_RUNS the number of alternating runs, default 7; SGQ_BENCH_BASELINE=PATH times an
//! earlier sgq binary beside this one on every sgq row, and prints each ratio). The input is made
//! once by the library's deterministic generator (seed 1) and kept in target/; file runs read it
//! from the page cache after the first run, pipe runs get it written from this process's memory.
//! Reported: the best and median wall time of each, and each median over `wc -l`'s.

mod common;

use sgtab::judge::input::NumberKernel;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run gets its input.
#[derive(Clone, Copy)]
enum Feed {
    /// stdin redirected from the file (sgq maps it)
    File,
    /// stdin a pipe, written from memory by a thread of this process (sgq streams it)
    Pipe,
}

fn time(cmd: &mut Command, file: &Path, data: &[u8], feed: Feed) -> Duration {
    // stderr too: `sgq sum lasker` notes once that its rule is checked, not proven.
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let start = Instant::now();
    let status = match feed {
        Feed::File => cmd.stdin(File::open(file).unwrap()).status().unwrap(),
        Feed::Pipe => {
            let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            std::io::Write::write_all(&mut stdin, data).unwrap();
            drop(stdin);
            child.wait().unwrap()
        }
    };
    let took = start.elapsed();
    assert!(status.success(), "{cmd:?} failed");
    took
}

fn summary(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    (times[0].as_secs_f64() * 1e3, times[times.len() / 2].as_secs_f64() * 1e3)
}

/// Peak resident set of `cmd` with stdin from `file`, from `/usr/bin/time -v` (None without it).
fn peak_rss_kb(sgq: &Path, args: &[&str], file: &Path) -> Option<u64> {
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(sgq)
        .args(args)
        .stdin(File::open(file).unwrap())
        .stdout(Stdio::null())
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): ")?.parse().ok())
}

/// A command timed: name, binary (None: `wc -l`), arguments, feed, portable kernel forced.
type Row<'a> = (&'a str, Option<PathBuf>, Vec<&'a str>, Feed, bool);

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` passes nothing: keep that quick.
    let benching = std::env::args().any(|a| a == "--bench");
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let mb = if benching { env("SGQ_BENCH_MB", 100) } else { 2 };
    let runs = if benching { env("SGQ_BENCH_RUNS", 7) } else { 1 };
    let file = common::lasker_input(mb);
    let data = std::fs::read(&file).unwrap();
    let size = data.len() as u64;
    let tables = Path::new(env!("CARGO_MANIFEST_DIR")).join("tables");
    let sgq_bin = PathBuf::from(env!("CARGO_BIN_EXE_sgq"));
    // SGQ_BENCH_BASELINE=PATH: an earlier sgq binary, timed beside this one.
    let baseline = std::env::var_os("SGQ_BENCH_BASELINE").map(PathBuf::from);
    let sgq_cmd = |bin: &Path, args: &[&str]| {
        let mut c = Command::new(bin);
        c.args(args).arg("--tables").arg(&tables);
        c
    };
    let sum_args = ["sum", "lasker", "--first", "Alice", "--second", "Bob"];
    // Every way answers the same input the same way.
    let answers = |args: &[&str]| {
        sgq_cmd(&sgq_bin, args)
            .stdin(File::open(&file).unwrap())
            .stderr(Stdio::null())
            .output()
            .unwrap()
            .stdout
    };
    let want = answers(&["lasker"]);
    assert_eq!(want, answers(&sum_args), "sgq sum lasker answers differently from sgq lasker");
    assert_eq!(want, answers(&["lasker", "--threads", "1"]), "one thread answers differently");
    let piped = sgq_cmd(&sgq_bin, &["lasker"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = piped.stdin.as_ref().unwrap();
    std::io::Write::write_all(&mut stdin, &data).unwrap();
    assert_eq!(
        want,
        piped.wait_with_output().unwrap().stdout,
        "the streaming path answers differently"
    );

    let mut rows: Vec<Row> = vec![
        ("wc -l", None, vec!["-l"], Feed::File, false),
        (
            "sgq lasker, mapped, 1 thread",
            Some(sgq_bin.clone()),
            vec!["lasker", "--threads", "1"],
            Feed::File,
            false,
        ),
        (
            "sgq lasker, mapped, 2 threads",
            Some(sgq_bin.clone()),
            vec!["lasker", "--threads", "2"],
            Feed::File,
            false,
        ),
        ("sgq lasker, mapped, all cores", Some(sgq_bin.clone()), vec!["lasker"], Feed::File, false),
        (
            "sgq sum lasker, mapped, all cores",
            Some(sgq_bin.clone()),
            sum_args.to_vec(),
            Feed::File,
            false,
        ),
        ("sgq lasker, pipe (streaming)", Some(sgq_bin.clone()), vec!["lasker"], Feed::Pipe, false),
        // What moving the bytes through a pipe costs alone: the most a reader thread beside
        // the parser could hide.
        ("wc -l, pipe", None, vec!["-l"], Feed::Pipe, false),
    ];
    // The portable kernel beside the one this CPU chose (AVX2 where it has it).
    if NumberKernel::chosen() != NumberKernel::Portable {
        rows.push((
            "portable kernel: mapped, 1 thread",
            Some(sgq_bin.clone()),
            vec!["lasker", "--threads", "1"],
            Feed::File,
            true,
        ));
        rows.push((
            "portable kernel: mapped, 2 threads",
            Some(sgq_bin.clone()),
            vec!["lasker", "--threads", "2"],
            Feed::File,
            true,
        ));
        rows.push((
            "portable kernel: pipe",
            Some(sgq_bin.clone()),
            vec!["lasker"],
            Feed::Pipe,
            true,
        ));
    }
    // The baseline binary on every sgq row, each beside this one's in every round.
    let ours = rows.len();
    if let Some(old) = &baseline {
        for i in 0..ours {
            if let (name, Some(_), args, feed, portable) = &rows[i] {
                let row = (*name, Some(old.clone()), args.clone(), *feed, *portable);
                rows.push(row);
            }
        }
    }
    let run = |bin: &Option<PathBuf>, args: &[&str], feed: Feed, portable: bool| match bin {
        None => time(Command::new("wc").args(args), &file, &data, feed),
        Some(bin) => {
            let mut cmd = sgq_cmd(bin, args);
            if portable {
                cmd.env("SGQ_KERNEL", "portable");
            }
            time(&mut cmd, &file, &data, feed)
        }
    };
    // Alternating runs: every command once per round, so load on the machine hits all alike.
    let mut times: Vec<Vec<Duration>> = rows.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs {
        for (i, (_, bin, args, feed, portable)) in rows.iter().enumerate() {
            times[i].push(run(bin, args, *feed, *portable));
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "input: {} ({:.1} MB), {runs} alternating runs, {cores} cores, kernel {:?}",
        file.display(),
        size as f64 / 1e6,
        NumberKernel::chosen()
    );
    println!(
        "{:<46} {:>9} {:>10} {:>8} {:>10}",
        "command", "best ms", "median ms", "MB/s", "÷ wc -l"
    );
    let wc_med = summary(times[0].clone()).1;
    let medians: Vec<f64> = times.iter().map(|t| summary(t.clone()).1).collect();
    for (i, ((name, ..), t)) in rows.iter().zip(times).enumerate() {
        let (best, med) = summary(t);
        let name = if i < ours { name.to_string() } else { format!("baseline: {name}") };
        println!(
            "{name:<46} {best:>9.1} {med:>10.1} {:>8.0} {:>9.2}x",
            size as f64 / 1e3 / med,
            med / wc_med
        );
    }
    // This build's median over the baseline's, row by row.
    if baseline.is_some() {
        let sgq_rows = rows[..ours].iter().enumerate().filter(|(_, r)| r.1.is_some());
        for ((i, (name, ..)), j) in sgq_rows.zip(ours..) {
            println!("{name:<46} this build ÷ baseline: {:.3}", medians[i] / medians[j]);
        }
    }
    for (what, args) in [
        ("mapped, all cores", &["lasker"][..]),
        ("mapped, 1 thread", &["lasker", "--threads", "1"][..]),
    ] {
        let mut all: Vec<&str> = args.to_vec();
        let t = tables.to_str().unwrap();
        all.extend(["--tables", t]);
        match peak_rss_kb(&sgq_bin, &all, &file) {
            Some(kb) => {
                println!("peak RSS, sgq lasker {what}: {kb} KB ({:.1} MiB)", kb as f64 / 1024.0)
            }
            None => println!("peak RSS: /usr/bin/time not found"),
        }
    }
}
