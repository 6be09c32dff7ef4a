//! Memory: what a table's file can make `sgq` and `sgtab` allocate, and builds that do not
//! fit the memory this process may take (`ulimit -v`, a cgroup's memory.max, MemAvailable):
//! each is refused with one line, quickly, never a panic or an abort.

mod common;

use common::{scratch, text};
use sgtab::spec::GameSpec;
use sgtab::table::{Table, format};
use sgtab::values::{Packed, Rule};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `bin args` under `ulimit -v kib` (address space, KiB) with `stdin`.
fn limited(kib: u64, bin: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args)
        .env_remove("SGTAB_TABLES")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

const SGQ: &str = env!("CARGO_BIN_EXE_sgq");
const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");

/// The smallest `ulimit -v` (KiB, to 1 MiB, up to 4 GiB) under which `works` holds.
fn least_limit(works: impl Fn(u64) -> bool) -> u64 {
    let (mut lo, mut hi) = (0u64, 4u64 << 20);
    assert!(works(hi), "fails even under 4 GiB");
    while hi - lo > 1024 {
        let mid = (lo + hi) / 2;
        if works(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The smallest `ulimit -v` under which `sgq value SPEC` answers one heap of the table in `dir`.
fn sgq_needs(dir: &Path, spec: &str) -> u64 {
    least_limit(|kib| {
        let out = limited(
            kib,
            SGQ,
            &["value", spec, "--tables", dir.to_str().unwrap(), "--threads", "1"],
            b"5\n",
        );
        out.status.success() && text(&out.stdout) == "1\n"
    })
}

/// A checksum-valid `sub:1:2^k` table whose stored rule has period 2^k − 2 (pre-period 0,
/// checked over the whole table): one bit a value, values in no order sgq could guess, and
/// g(5) = 1.
fn forged(dir: &Path, k: u32) -> String {
    let len = 1u64 << k;
    let period = len - 2;
    let mut values: Vec<u8> =
        (0..period).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63) as u8).collect();
    values[5] = 1;
    values.extend_from_within(..2);
    let spec = GameSpec::parse(&format!("sub:1:{len}")).unwrap();
    let table = Table {
        spec: spec.clone(),
        values: Packed::from_values(&values),
        rule: Some(Rule { pre: 0, period, saltus: 0, checked: len, proven: false }),
    };
    format::write(&table, &dir.join(spec.file_name())).unwrap();
    spec.to_string()
}

#[test]
fn sgq_value_takes_about_its_tables_size_whatever_its_rule() {
    // 2^24 entries at one bit: a 2 MiB file. A rule's head copied at 8 bytes a value took
    // 128 MiB more; reading the table in place, a table with the same rule and a 2^10-entry
    // table need about the same.
    let dir = scratch("memory", "sgq-value");
    let big = forged(&dir, 24);
    let small = forged(&dir, 10);
    let file =
        std::fs::metadata(dir.join(GameSpec::parse(&big).unwrap().file_name())).unwrap().len();
    let (need_big, need_small) = (sgq_needs(&dir, &big), sgq_needs(&dir, &small));
    eprintln!(
        "sgq value: ulimit -v {need_big} KiB for {big} ({file} bytes), {need_small} KiB for {small}"
    );
    assert!(
        need_big <= need_small + 4 * file / 1024 + 2048,
        "{big} ({file} bytes) needs ulimit -v {need_big} KiB, {small} {need_small} KiB"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_sizes_its_source_before_copying_the_table() {
    // The same 2 MiB table: its C source (about 2.8 MB) is refused for --max-bytes within
    // about what a small table's export takes, with nothing copied at 4 bytes a value first.
    let dir = scratch("memory", "export");
    let big = dir.join(GameSpec::parse(&forged(&dir, 24)).unwrap().file_name());
    let small = dir.join(GameSpec::parse(&forged(&dir, 10)).unwrap().file_name());
    let file = std::fs::metadata(&big).unwrap().len();
    let export = |kib: u64, path: &Path| {
        limited(kib, SGTAB, &["export", path.to_str().unwrap(), "--lang", "c"], b"")
    };
    let need_small = least_limit(|kib| export(kib, &small).status.success());
    let need_big = least_limit(|kib| {
        let out = export(kib, &big);
        let err = text(&out.stderr);
        out.status.code() == Some(1)
            && err.lines().count() == 1
            && err.contains("more than --max-bytes 65536")
    });
    eprintln!(
        "sgtab export: ulimit -v {need_big} KiB for {} ({file} bytes), {need_small} KiB for the \
            1024-entry table",
        big.display()
    );
    assert!(
        need_big <= need_small + 2 * file / 1024 + 2048,
        "refusing {file} bytes needs ulimit -v {need_big} KiB, a small export {need_small} KiB"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sgtab build SPEC` under `ulimit -v kib`: must fail at once (a few seconds at most) with
/// one line saying what it needs and what fits, exit 1, no panic, no signal; returns the line.
fn refused(kib: u64, spec: &str, backend: &str) -> String {
    let dir = scratch("memory", &format!("build-{}", spec.replace([':', '.', ','], "_")));
    let start = std::time::Instant::now();
    let out = limited(
        kib,
        SGTAB,
        &["build", spec, "--backend", backend, "--dir", dir.to_str().unwrap()],
        b"",
    );
    let took = start.elapsed();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{spec} under ulimit -v {kib}: {out:?}");
    assert!(!err.contains("panicked") && !err.contains("memory allocation of"), "{spec}: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("sgtab: error: ")).collect();
    assert!(lines.len() == 1 && err.lines().count() == 1, "{spec}: one line wanted: {err}");
    assert!(lines[0].contains("fits here") || lines[0].contains("fit here"), "{spec}: {err}");
    assert!(lines[0].contains("ulimit -v") && !lines[0].contains("rebuild"), "{spec}: {err}");
    assert!(took.as_secs() < 20, "{spec} took {took:?} to be refused");
    assert!(std::fs::read_dir(&dir).unwrap().next().is_none(), "{spec}: nothing written");
    let _ = std::fs::remove_dir_all(&dir);
    lines[0].to_string()
}

#[test]
fn a_filled_table_that_does_not_fit_is_refused() {
    // Dawson's Kayles: the rule is proven on the first 4096 heaps and the rest filled from it,
    // 512 MiB packed at 4 bits (through a Vec<u32> of 4 GiB before: an abort).
    let line = refused(300_000, "0.07:1073741824", "simd");
    assert!(
        line.contains("0.07:1073741824") && line.contains("needs about 512.0 MiB for its values"),
        "{line}"
    );
}

#[test]
fn engines_refuse_what_does_not_fit_before_starting() {
    // The corner engine reads the limits, not only MemAvailable; chess, Grundy's game and a
    // reference are sized up front.
    for (spec, backend, says) in [
        ("queen:65536", "simd", "the widest queen board that fits is"),
        ("rook:40000", "simd", "the widest rook board that fits is"),
        ("chess:32", "simd", "needs about 2.5 GiB for its values"),
        ("chess:32", "scalar", "needs about 6.5 GiB for its values"),
        ("grundy:1000000000", "simd", "needs about 953.7 MiB for its values"),
    ] {
        let line = refused(300_000, spec, backend);
        assert!(line.contains(says), "{spec}: {line}");
    }
}

#[test]
fn a_table_of_a_proven_rule_is_filled_in_about_its_own_size() {
    // sub:1 to 2^28 heaps: proven on 4096, 32 MiB packed at one bit. Filled through a
    // Vec<u32> (1 GiB) it needed far more than this limit.
    let dir = scratch("memory", "filled");
    let out =
        limited(400_000, SGTAB, &["build", "sub:1:268435456", "--dir", dir.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_of_a_table_without_a_rule_reads_it_in_place() {
    // queen:4096 (no rule: every value is stored), 14 bits a value, a 28 MiB file forged with
    // the library: refusing its source for --max-bytes takes the file once, not a copy of it
    // besides (queen:8192 aborted under ulimit -v 200000 that way).
    let dir = scratch("memory", "export-queen");
    let spec = GameSpec::parse("queen:4096").unwrap();
    let values =
        Packed::try_from_fn(spec.len(), 14, |i| (i.wrapping_mul(0x9E37_79B9) >> 7) as u32 & 0x3FFF)
            .unwrap();
    let big = dir.join(spec.file_name());
    format::write(&Table { spec, values, rule: None }, &big).unwrap();
    let small = dir.join(GameSpec::parse(&forged(&dir, 10)).unwrap().file_name());
    let file = std::fs::metadata(&big).unwrap().len();
    let export = |kib: u64, path: &Path| {
        limited(kib, SGTAB, &["export", path.to_str().unwrap(), "--lang", "rust"], b"")
    };
    let need_small = least_limit(|kib| export(kib, &small).status.success());
    let need_big = least_limit(|kib| {
        let out = export(kib, &big);
        let err = text(&out.stderr);
        out.status.code() == Some(1)
            && err.lines().count() == 1
            && err.contains("more than --max-bytes 65536")
    });
    eprintln!(
        "sgtab export: ulimit -v {need_big} KiB for queen:4096 ({file} bytes), {need_small} KiB \
            for a 1024-entry table"
    );
    assert!(
        need_big <= need_small + file / 1024 * 5 / 4 + 2048,
        "refusing {file} bytes needs ulimit -v {need_big} KiB, a small export {need_small} KiB"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
