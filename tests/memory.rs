//! Memory: what a table's file can make `sgq` and `sgtab` allocate, and builds that do not
//! fit the memory this process may take (`ulimit -v`, a cgroup's memory.max, MemAvailable):
//! each is refused with one line, quickly, never a panic or an abort.

mod common;

use common::{scratch, text};
use sgtab::spec::GameSpec;
use sgtab::table::{format, Packed, Rule, Table};
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

/// The smallest `ulimit -v` (KiB, to 1 MiB) under which `sgq value SPEC` answers one heap of
/// the table in `dir`: a bisection up to 4 GiB.
fn sgq_needs(dir: &Path, spec: &str) -> u64 {
    let answers = |kib: u64| {
        let out = limited(kib, SGQ, &["value", spec, "--tables", dir.to_str().unwrap(), "--threads", "1"], b"5\n");
        out.status.success() && text(&out.stdout) == "1\n"
    };
    let (mut lo, mut hi) = (0u64, 4u64 << 20);
    assert!(answers(hi), "sgq value {spec} fails even under 4 GiB");
    while hi - lo > 1024 {
        let mid = (lo + hi) / 2;
        if answers(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// A checksum-valid `sub:1:2^k` table whose stored rule has period 2^k − 2 (pre-period 0,
/// checked over the whole table): one bit a value, values in no order sgq could guess, and
/// g(5) = 1.
fn forged(dir: &Path, k: u32) -> String {
    let len = 1u64 << k;
    let period = len - 2;
    let mut values: Vec<u8> = (0..period).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63) as u8).collect();
    values[5] = 1;
    values.extend_from_slice(&values[..2].to_vec());
    let spec = GameSpec::parse(&format!("sub:1:{len}")).unwrap();
    let table = Table { spec: spec.clone(), values: Packed::from_values(&values), rule: Some(Rule { pre: 0, period, saltus: 0, checked: len, proven: false }) };
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
    let file = std::fs::metadata(dir.join(GameSpec::parse(&big).unwrap().file_name())).unwrap().len();
    let (need_big, need_small) = (sgq_needs(&dir, &big), sgq_needs(&dir, &small));
    eprintln!("sgq value: ulimit -v {need_big} KiB for {big} ({file} bytes), {need_small} KiB for {small}");
    assert!(need_big <= need_small + 4 * file / 1024 + 2048, "{big} ({file} bytes) needs ulimit -v {need_big} KiB, {small} {need_small} KiB");
    let _ = std::fs::remove_dir_all(&dir);
}
