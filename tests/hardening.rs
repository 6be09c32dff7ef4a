//! One regression test per defect of the hardening issue (a fuzzing run's findings), each from
//! its reproducer: the same verdict for a token wherever it falls, forged rules and rule fields
//! refused, no allocation a header can inflate, FIFOs refused without hanging, bounded file and
//! temporary names, nothing left by a killed build, no driver noise from `--backend auto`, a
//! closed stdout reported, and the messages.

mod common;

use common::{run, sgtab, tables_dir, text};
use sgtab::judge::input::open::Input;
use sgtab::judge::{self, Problem};
use sgtab::spec::GameSpec;
use sgtab::table::{Table, format};
use sgtab::values::Packed;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SGQ: &str = env!("CARGO_BIN_EXE_sgq");
const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");

fn scratch(name: &str) -> PathBuf {
    common::scratch("hardening", name)
}

/// A scratch copy of the committed tables.
fn tables_copy(name: &str) -> PathBuf {
    let dir = scratch(name);
    for entry in fs::read_dir(tables_dir()).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// Recomputes the CRC-32 over everything but the last 4 bytes, as a forger would.
fn fix_crc(bytes: &mut [u8]) {
    let n = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
}

fn sgq_in(dir: &Path, problem: &str, input: &[u8]) -> std::process::Output {
    run(SGQ, &[problem, "--tables", dir.to_str().unwrap()], input)
}

/// A refusal: exit 1, nothing on stdout, one line on stderr holding `needle`, no panic.
fn assert_refused(out: &std::process::Output, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "`{err}` lacks `{needle}`");
    assert!(!err.contains("panicked"), "{err}");
}

/// Runs a command, killing it if it outlives `limit` (a hang is a failure, not a stuck test).
fn run_with_limit(cmd: &mut Command, limit: Duration) -> std::process::Output {
    let mut child =
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{cmd:?} still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

// 1. A token over 4096 bytes got a verdict that depended on where it fell in the read buffer.
#[test]
fn defect_1_a_long_token_gets_one_verdict_wherever_it_falls() {
    let token = [b"0".repeat(5000), b"7".to_vec()].concat();
    let plain = [b"1\n1\n".to_vec(), token.clone(), b"\n".to_vec()].concat();
    let spaced = [b"1\n1\n".to_vec(), vec![b' '; 258_000], token.clone(), b"\n".to_vec()].concat();
    // Straddling the 256 KiB buffer's first refill.
    let straddling =
        [b"1\n1\n".to_vec(), vec![b' '; (1 << 18) - 2500], token.clone(), b"\n".to_vec()].concat();
    for input in [&plain, &spaced, &straddling] {
        let out = common::sgq("lasker", input);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "Alice\n");
    }
    // Through a pipe in 1000-byte writes.
    let mut child = Command::new(SGQ)
        .args(["lasker", "--tables", tables_dir().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for chunk in plain.chunks(1000) {
        stdin.write_all(chunk).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Alice\n");
    // More than 20 significant digits is out of range, wherever it is.
    for lead in [0, 258_000] {
        let input = [
            b"1\n1\n".to_vec(),
            vec![b' '; lead],
            b"0".repeat(5000),
            b"1".repeat(21),
            b"\n".to_vec(),
        ]
        .concat();
        assert_refused(&common::sgq("lasker", &input), "is out of range 1 to 2147483647");
    }
    // A check after the range (a repeated chess column) still names the token's own place when
    // the token straddles a refill.
    let lead = (1 << 18) - 16;
    let input = format!("1\n1\n2 19{}0000000000000019\n", " ".repeat(lead));
    let mut out = Vec::new();
    let e = judge::answer(
        Problem::Chess,
        &tables_dir(),
        Input::Stream(&mut input.as_bytes()),
        &mut out,
    )
    .unwrap_err()
    .to_string();
    let at = 8 + lead;
    assert!(at < 1 << 18 && at + 16 > 1 << 18, "the token straddles the buffer's end");
    assert!(
        e.contains(&format!("line 3, column {} (byte {at}): column 19 is given twice", at - 4 + 1)),
        "{e}"
    );
}

fn lasker_bytes() -> Vec<u8> {
    fs::read(tables_dir().join("lasker-1024.sgt")).unwrap()
}

fn set_u64(bytes: &mut [u8], at: usize, v: u64) {
    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

// 2. A stored rule contradicting the stored values was accepted and `sgq lasker` answered wrongly.
#[test]
fn defect_2_a_rule_that_contradicts_the_values_is_refused() {
    let dir = tables_copy("forged-rule");
    let mut bytes = lasker_bytes();
    set_u64(&mut bytes, 40, 5); // saltus 4 -> 5
    fix_crc(&mut bytes);
    fs::write(dir.join("lasker-1024.sgt"), &bytes).unwrap();
    let out = sgq_in(&dir, "lasker", b"1\n3\n5 4 6\n");
    assert_refused(&out, "the stored rule contradicts the stored values");
    fs::remove_dir_all(&dir).unwrap();

    // The other forgeries the fuzzing run found accepted: field offset, value.
    let forgeries: &[(usize, u64)] = &[
        (32, 3),
        (32, 5),
        (32, 8),
        (32, 1000),
        (32, 1023),
        (32, 0),
        (24, 0),
        (24, 1020),
        (40, u64::MAX),
        (40, u64::MAX - 3),
        (40, 1 << 62),
        (48, 1025),
        (48, 5),
        (48, u64::MAX),
    ];
    for &(at, v) in forgeries {
        let mut bytes = lasker_bytes();
        set_u64(&mut bytes, at, v);
        fix_crc(&mut bytes);
        let e = format::decode(&bytes).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("rule"), "byte {at} = {v}: {e}");
        assert!(!e.contains('\n'));
    }
    // The untouched table still reads, with its rule.
    assert_eq!(format::decode(&lasker_bytes()).unwrap().rule.unwrap().saltus, 4);
    // A forged "proven" flag: lasker has no theorem.
    let mut bytes = lasker_bytes();
    bytes[56] = 1;
    fix_crc(&mut bytes);
    let e = format::decode(&bytes).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("marked proven, but no theorem proves it"), "{e}");
    // Values beyond the table never wrap: a huge heap far past 2^64 / saltus has no value.
    let table = format::decode(&lasker_bytes()).unwrap();
    assert_eq!(table.value(u64::MAX), None);
    assert_eq!(table.value(1 << 40), Some((1 << 40) - 1));
}

// 3. With no rule, nonzero rule fields and proven flag were accepted, and `verify` said OK.
#[test]
fn defect_3_rule_fields_must_be_zero_without_a_rule() {
    let chess = fs::read(tables_dir().join("chess-20.sgt")).unwrap();
    assert_eq!(chess[13], 0, "chess tables store no rule");
    for at in [24, 31, 32, 40, 48, 55, 56] {
        let mut bytes = chess.clone();
        bytes[at] = 1;
        fix_crc(&mut bytes);
        let e = format::decode(&bytes).map(|_| ()).unwrap_err().to_string();
        assert!(
            e.contains("no rule is stored, but the rule fields (bytes 24..57) are not zero"),
            "byte {at}: {e}"
        );
    }
    let dir = scratch("rule-fields");
    let mut bytes = chess.clone();
    bytes[40] = 7;
    fix_crc(&mut bytes);
    let file = dir.join("chess-20.sgt");
    fs::write(&file, &bytes).unwrap();
    let out = sgtab(&["verify", file.to_str().unwrap()]);
    assert_refused(&out, "rule fields (bytes 24..57) are not zero");
    // A rule on a game whose index is not a heap (chess rows) is refused too.
    let mut bytes = chess.clone();
    bytes[13] = 1;
    set_u64(&mut bytes, 32, 1);
    set_u64(&mut bytes, 48, 1 << 20);
    fix_crc(&mut bytes);
    assert!(format::decode(&bytes).map(|_| ()).unwrap_err().to_string().contains("has none"));
    fs::remove_dir_all(&dir).unwrap();
}

/// A sparse file at `path`: a header for `spec` with `count` entries of `bits` bits, as long as
/// the header says, with nothing but zeros after the spec.
fn sparse_table(path: &Path, spec: &str, count: u64, bits: u8) -> u64 {
    let h = (64 + spec.len()).next_multiple_of(8);
    let mut header = Vec::new();
    header.extend_from_slice(&format::MAGIC);
    header.extend_from_slice(&1u16.to_le_bytes());
    header.extend_from_slice(&(h as u16).to_le_bytes());
    header.extend_from_slice(&[bits, 0]);
    header.extend_from_slice(&(spec.len() as u16).to_le_bytes());
    header.extend_from_slice(&count.to_le_bytes());
    header.resize(64, 0);
    header.extend_from_slice(spec.as_bytes());
    header.resize(h, 0);
    let len = h as u64 + (count * bits as u64).div_ceil(8) + 4;
    let mut file = fs::File::create(path).unwrap();
    file.write_all(&header).unwrap();
    file.set_len(len).unwrap();
    len
}

// 4. A header could force an allocation as large as the file before any check (128 GiB abort).
#[test]
fn defect_4_a_forged_header_cannot_force_an_allocation() {
    let dir = tables_copy("sparse");
    let chess = dir.join("chess-20.sgt");
    // chess:20, but 2^40 one-bit entries: 128 GiB, all of it a hole.
    let len = sparse_table(&chess, "chess:20", 1 << 40, 1);
    assert_eq!(len, 72 + (1 << 37) + 4);
    let start = Instant::now();
    let out = run_with_limit(
        Command::new(SGQ).args(["chess", "--tables", dir.to_str().unwrap()]),
        Duration::from_secs(60),
    );
    assert_refused(
        &out,
        "damaged header: chess:20 has 1048576 entries, the header says 1099511627776",
    );
    let out = run_with_limit(
        Command::new(SGTAB).args(["show", chess.to_str().unwrap()]),
        Duration::from_secs(60),
    );
    assert_refused(&out, "chess:20 has 1048576 entries, the header says 1099511627776");
    // Reading 128 GiB would take minutes; being refused takes milliseconds.
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());

    // A sound header for a game sgq does not want (chess:31, 1.25 GiB): refused before any value
    // is read or any memory is taken for them.
    sparse_table(&chess, "chess:31", 1 << 31, 5);
    let out = run_with_limit(
        Command::new(SGQ).args(["chess", "--tables", dir.to_str().unwrap()]),
        Duration::from_secs(60),
    );
    assert_refused(&out, "holds chess:31, not chess:20");
    let e = format::read_expecting(&chess, &GameSpec::parse("chess").unwrap().canonical())
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, format::ReadError::OtherGame(_)), "{e}");
    fs::remove_dir_all(&dir).unwrap();

    // In memory: a count past anything the bytes hold is refused on the length check.
    let mut bytes = lasker_bytes();
    set_u64(&mut bytes, 16, u64::MAX);
    let e = format::decode(&bytes).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("the header implies more than 2^64 bytes"), "{e}");
}

// 5. A FIFO at a table's path hung `sgq` and `sgtab show` forever.
#[test]
fn defect_5_a_fifo_or_directory_is_refused_without_blocking() {
    let dir = tables_copy("fifo");
    let chess = dir.join("chess-20.sgt");
    fs::remove_file(&chess).unwrap();
    let status = Command::new("mkfifo").arg(&chess).status().expect("mkfifo (coreutils)");
    assert!(status.success());
    let limit = Duration::from_secs(20);
    let out =
        run_with_limit(Command::new(SGQ).args(["chess", "--tables", dir.to_str().unwrap()]), limit);
    assert_refused(&out, "is not a regular file (a FIFO, socket or device)");
    let out = run_with_limit(Command::new(SGTAB).args(["show", chess.to_str().unwrap()]), limit);
    assert_refused(&out, "is not a regular file");
    let out = run_with_limit(Command::new(SGTAB).args(["dump", chess.to_str().unwrap()]), limit);
    assert_refused(&out, "is not a regular file");
    fs::remove_file(&chess).unwrap();
    fs::create_dir(&chess).unwrap();
    let out =
        run_with_limit(Command::new(SGQ).args(["chess", "--tables", dir.to_str().unwrap()]), limit);
    assert_refused(&out, "it is a directory, not a table file");
    fs::remove_dir_all(&dir).unwrap();
}

fn leftovers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sgt") || n.starts_with('.'))
        .collect();
    names.sort();
    names
}

// 6. The temporary name could exceed the file-name limit when the real name did not.
#[test]
fn defect_6_long_specs_and_long_names_are_written() {
    let dir = scratch("long-names");
    let moves: Vec<String> = (1..=83).map(|m| m.to_string()).collect();
    let spec = format!("sub:{}:100", moves.join(","));
    let out = sgtab(&["build", &spec, "--backend", "scalar", "--dir", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].len() <= 100 && names[0].starts_with("sub-1_2_3_"), "{names:?}");
    let out = sgtab(&["verify", dir.join(&names[0]).to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A final name at the 255-byte limit: the temporary one is shorter, so the write works.
    let table = Table::new(GameSpec::parse("lasker:40").unwrap(), Packed::from_values(&[0u32; 40]));
    let long = dir.join(format!("{}.sgt", "x".repeat(251)));
    format::write(&table, &long).unwrap();
    assert_eq!(format::read(&long).unwrap().values.len(), 40);
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
    fs::remove_dir_all(&dir).unwrap();
}

/// A PID that no process has now: a child that has exited and been waited for.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

// 7. A killed build left `.NAME.sgt.tmpPID` files that no later build removed.
#[test]
fn defect_7_a_killed_build_leaves_nothing_behind() {
    let dir = scratch("killed");
    let out_dir = dir.to_str().unwrap();
    for delay_ms in [5u64, 20, 50, 100, 200, 400] {
        let mut child = Command::new(SGTAB)
            .args(["build", "chess:26", "--backend", "simd", "--dir", out_dir])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // Nothing the killed build wrote is left under a temporary name once any later write
        // into the directory has run (and, with O_TMPFILE, nothing even before).
        let table =
            Table::new(GameSpec::parse("lasker:40").unwrap(), Packed::from_values(&[1u32; 40]));
        format::write(&table, &dir.join("probe.sgt")).unwrap();
        assert!(leftovers(&dir).is_empty(), "after a kill at {delay_ms} ms: {:?}", leftovers(&dir));
    }
    // Stale temporaries of dead builds are removed by the next build; one of a live process (this
    // test) is not.
    let dead = dead_pid();
    let live = std::process::id();
    for name in [format!(".sgtab-{dead}-0.tmp"), format!(".sgtab-{live}-99.tmp")] {
        fs::write(dir.join(name), b"partial").unwrap();
    }
    let out = sgtab(&["build", "sub:1,2:50", "--backend", "scalar", "--dir", out_dir]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(leftovers(&dir), vec![format!(".sgtab-{live}-99.tmp")]);
    fs::remove_dir_all(&dir).unwrap();
}

// The sweep for stale temporaries removed any `.NAME.EXT.tmpDIGITS` of a few extensions whose
// number was no running PID: a user's `.solution.cpp.tmp3999999` was deleted by `build` and by
// `export`. Only sgtab's own `.sgtab-PID-SEQ.tmp` names are swept now.
#[test]
fn a_users_temporaries_are_never_swept() {
    let dir = scratch("users-temporaries");
    let dead = dead_pid();
    let users = [
        ".solution.cpp.tmp3999999".to_string(),
        format!(".chess-20.sgt.tmp{dead}"),
        format!(".x.py.tmp{dead}"),
        format!(".notes.txt.tmp{dead}"),
    ];
    for name in &users {
        fs::write(dir.join(name), b"a user's work").unwrap();
    }
    let d = dir.to_str().unwrap();
    let out = sgtab(&["build", "sub:1,2:50", "--backend", "scalar", "--dir", d]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = dir.join("sub-1_2-50.sgt");
    for lang in ["c", "cpp", "python"] {
        let out = sgtab(&[
            "export",
            table.to_str().unwrap(),
            "--lang",
            lang,
            "-o",
            dir.join(format!("solution.{lang}")).to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    for name in &users {
        assert_eq!(fs::read(dir.join(name)).unwrap(), b"a user's work", "{name} was touched");
    }
    fs::remove_dir_all(&dir).unwrap();
}

// 8. Every `--backend auto` build printed Mesa's XDG_RUNTIME_DIR complaint, even without a GPU
// engine in play.
#[test]
fn defect_8_auto_builds_of_cpu_games_print_no_driver_noise() {
    let dir = scratch("xdg");
    let out = Command::new(SGTAB)
        .args([
            "build",
            "sub:1,3,9",
            "lasker",
            "funny",
            "--backend",
            "auto",
            "--dir",
            dir.to_str().unwrap(),
        ])
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("XDG"), "{err}");
    assert!(!err.to_lowercase().contains("error"), "{err}");
    assert_eq!(text(&out.stdout).lines().filter(|l| l.starts_with("wrote ")).count(), 3);
    fs::remove_dir_all(&dir).unwrap();
}

// 9. `sgq chess < in >&-` exited 0 with the output lost.
#[test]
fn defect_9_a_closed_or_failing_stdout_is_an_error() {
    let dir = scratch("stdout");
    let input = dir.join("in");
    let tables = tables_dir();
    let shell = |mode: &str, redirect: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("exec \"$0\" {mode} --tables \"$1\" < \"$2\" {redirect}"))
            .args([SGQ, tables.to_str().unwrap(), input.to_str().unwrap()])
            .output()
            .unwrap()
    };
    // The problems, and the generic modes, which once wrote into /dev/null and exited 0.
    for (mode, body) in
        [("chess", "1\n1\n1 20\n"), ("sum lasker", "1\n2\n1 2\n"), ("value lasker", "1 2\n")]
    {
        fs::write(&input, body).unwrap();
        let out = shell(mode, ">&-");
        assert_refused(&out, "standard output is closed");
        let out = shell(mode, ">/dev/full");
        assert_refused(&out, "cannot write output: No space left on device");
        let out = shell(mode, ">/dev/null");
        assert!(out.status.success() && out.stderr.is_empty(), "{mode}: {}", text(&out.stderr));
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A reader that goes away (`sgq … | head -1`): the answers after it are lost, so every mode
/// exits 1, with no message (the problems did; `sum` and `value` exited 0).
#[test]
fn a_reader_that_goes_away_fails_quietly() {
    let heaps: String = (0..400_000).map(|i| format!("{}\n", i % 1000 + 1)).collect();
    let lasker = format!("1\n400000\n{heaps}");
    for (args, input) in [
        (&["lasker"][..], lasker.as_bytes()),
        (&["value", "lasker"][..], heaps.as_bytes()),
        (&["sum", "lasker"][..], lasker.as_bytes()),
    ] {
        let mut child = Command::new(SGQ)
            .args(args)
            .env("SGTAB_TABLES", tables_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let data = input.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        });
        // Read one byte of the answers, then go away.
        let mut first = [0u8; 1];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        if args == ["lasker"] || args == ["sum", "lasker"] {
            // One line for the one case: it may all be written before the reader goes.
            assert!(
                out.status.code().is_some() && out.stderr.is_empty(),
                "{args:?}: {}",
                text(&out.stderr)
            );
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
    }
}

/// A sparse file of 1 GiB (all NULs, one token): mapped, it is refused at its first byte as a
/// pipe would be, without reading it: the pieces were once cut by looking for whitespace to the
/// end of the file and every page was mapped in (9 s and 1 GB resident).
#[test]
fn a_huge_sparse_input_is_refused_without_reading_it() {
    let dir = scratch("sparse");
    let file = dir.join("sparse");
    fs::File::create(&file).unwrap().set_len(1 << 30).unwrap();
    for args in [
        &["lasker"][..],
        &["sum", "lasker"],
        &["value", "lasker"],
        &["chess"],
        &["snim"],
        &["stones"],
        &["funny"],
    ] {
        let (code, err, peak_kb) =
            sgq_peak(&[args, &["--input", file.to_str().unwrap()]].concat(), &dir);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.lines().count() == 1
                && err.contains("line 1, column 1 (byte 0)")
                && err.contains("found `\\0\\0"),
            "{args:?}: {err}"
        );
        assert!(peak_kb < 100_000, "{args:?}: {peak_kb} KB resident");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// `sgq ARGS` with stdin empty and stdout, stderr in files: its exit code, stderr and peak
/// resident set in KB (from wait4's rusage).
// The child is waited for by wait4 (for its rusage), which clippy does not see.
#[allow(clippy::zombie_processes)]
fn sgq_peak(args: &[&str], dir: &Path) -> (Option<i32>, String, i64) {
    let (out, err) = (dir.join("out"), dir.join("err"));
    let child = Command::new(SGQ)
        .args(args)
        .env("SGTAB_TABLES", tables_dir())
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out).unwrap())
        .stderr(fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data, written by wait4; the pid is our child's, waited for once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, fs::read_to_string(&err).unwrap(), usage.ru_maxrss)
}

/// A mapped input file that another process truncates while sgq reads it: the pages past the
/// new end are gone, and reading one raises SIGBUS. sgq says so in one line and exits 1,
/// instead of dying of the signal. (Which moment the truncation hits is up to the scheduler:
/// before sgq maps the file, the input is short; after it has read it, the answers are whole;
/// in between, the SIGBUS. Each is a clean exit; the delays put most runs in between.)
#[test]
fn an_input_truncated_while_mapped_is_an_error_not_a_signal() {
    let dir = scratch("truncated");
    let mut input = Vec::new();
    judge::generate::generate(
        Problem::Lasker,
        3,
        judge::generate::Size { cases: Some(3), ..Default::default() },
        &mut input,
    )
    .unwrap();
    let mut signalled = 0;
    let mut cut_short = 0;
    for (i, delay_ms) in [1u64, 2, 4, 8, 16].into_iter().enumerate() {
        let file = dir.join(format!("in-{i}"));
        fs::write(&file, &input).unwrap();
        let child = Command::new(SGQ)
            .args(["lasker", "--threads", "1", "--input", file.to_str().unwrap()])
            .env("SGTAB_TABLES", tables_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        fs::OpenOptions::new().write(true).open(&file).unwrap().set_len(1000).unwrap();
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        if out.status.code().is_none() {
            signalled += 1;
            continue;
        }
        assert!(err.lines().count() <= 1 && !err.contains("panicked"), "{err}");
        if err.contains("was cut short while sgq read it") {
            assert_eq!(out.status.code(), Some(1));
            cut_short += 1;
        }
    }
    assert_eq!(signalled, 0, "sgq died of a signal");
    eprintln!("truncated while mapped: {cut_short} of 5 runs hit the mapped pages");
    fs::remove_dir_all(&dir).unwrap();
}

// 10. Messages: pairs counted as lines, U+FFFD for a bad byte, a range given twice, Rust's range
// syntax, advice given twice, and `--out ` with nothing after it.
#[test]
fn defect_10_messages_say_it_once_and_plainly() {
    // Stones counts pairs (which may span lines), and the position says the line.
    let out = common::sgq("stones", b"1 1 2\n1\n3");
    let err = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(1), "lose\nwin\n".to_string()),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    assert!(
        err.contains(
            "line 3, column 2 (byte 9): input ends where the second heap n2 of pair 3 was expected"
        ),
        "{err}"
    );

    let out = common::sgq("chess", b"1\n1\n1 \xff\n");
    assert_refused(&out, "found `\\xff`");
    assert!(!text(&out.stderr).contains('\u{fffd}'));

    let out = common::sgq("chess", b"1\n1\n1 21\n");
    assert_refused(
        &out,
        "line 3, column 3 (byte 6): a chip column in row 1 of case 1 `21` is out of range 1 to 20",
    );
    let err = text(&out.stderr);
    assert_eq!(err.matches("20").count(), 1, "the range once: {err}");
    assert!(!err.contains("..="), "{err}");
    let out = common::sgq("lasker", b"1\n1\n2147483648\n");
    assert_refused(&out, "out of range 1 to 2147483647");

    // A damaged table: the advice once.
    let dir = tables_copy("advice");
    let chess = dir.join("chess-20.sgt");
    let mut bytes = fs::read(&chess).unwrap();
    bytes[1000] ^= 1;
    fs::write(&chess, &bytes).unwrap();
    let out = sgq_in(&dir, "chess", b"1\n1\n1 20\n");
    assert_refused(
        &out,
        "checksum mismatch: the file is damaged; build it with `sgtab build chess:20 --dir ",
    );
    assert_eq!(text(&out.stderr).matches("sgtab build").count(), 1, "{}", text(&out.stderr));
    let out = sgtab(&["show", chess.to_str().unwrap()]);
    assert_refused(&out, "checksum mismatch: the file is damaged; rebuild it with `sgtab build`");
    assert_eq!(text(&out.stderr).matches("sgtab build").count(), 1, "{}", text(&out.stderr));
    // A directory with a space is quoted in the advice.
    let spaced = dir.with_file_name(format!("{} x", dir.file_name().unwrap().to_string_lossy()));
    fs::rename(&dir, &spaced).unwrap();
    let out = sgq_in(&spaced, "chess", b"1\n1\n1 20\n");
    assert_refused(&out, &format!("--dir '{}'`", spaced.display()));
    fs::remove_dir_all(&spaced).unwrap();

    // `--tables ""` is a usage error, not advice to use `--out ` with nothing after it.
    let out = run(SGQ, &["chess", "--tables", ""], b"1\n1\n1 20\n");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with("sgq: --tables needs a directory, not an empty string"), "{err}");
    assert!(!err.contains("--out "), "{err}");
}

/// The bytes of a version-3 table header with a game block of `kind` (1 a script's, 2 an
/// imported table's, one axis) for `spec`, claiming `count` entries of `bits` bits; and the file
/// length it implies.
fn stored_header(spec: &str, kind: u8, count: u64, bits: u8) -> (Vec<u8>, u64) {
    let h = (64 + spec.len()).next_multiple_of(8);
    let mut header = Vec::new();
    header.extend_from_slice(&format::MAGIC);
    header.extend_from_slice(&3u16.to_le_bytes());
    header.extend_from_slice(&(h as u16).to_le_bytes());
    header.extend_from_slice(&[bits, 0]);
    header.extend_from_slice(&(spec.len() as u16).to_le_bytes());
    header.extend_from_slice(&count.to_le_bytes());
    header.resize(57, 0);
    header.push(kind);
    header.extend_from_slice(&[0, 0]);
    header.extend_from_slice(&16u32.to_le_bytes());
    header.extend_from_slice(spec.as_bytes());
    header.resize(h, 0);
    let len = h as u64 + (count as u128 * bits as u128).div_ceil(8) as u64 + 16 + 4;
    (header, len)
}

/// A file's bytes as a reader: the header, then zeros up to `len` (a sparse file); counts what
/// was read.
struct Sparse {
    header: Vec<u8>,
    len: u64,
    at: u64,
}

impl std::io::Read for Sparse {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (self.len - self.at).min(buf.len() as u64) as usize;
        for (i, b) in buf[..n].iter_mut().enumerate() {
            *b = self.header.get(self.at as usize + i).copied().unwrap_or(0);
        }
        self.at += n as u64;
        Ok(n)
    }
}

// A script's or an imported table's header could claim any number of entries: it was checked
// only once the values had been read (a sparse 12 GiB file was read whole, 12.6 GB, before it was
// refused). Its count and the kind of its spec are checked from the header now.
#[test]
fn a_stored_tables_forged_count_is_refused_from_its_header() {
    // In memory, 2^31 one-bit entries (256 MiB): refused having read no more than the header.
    for (spec, kind, count, bits, want) in [
        (
            "import:big",
            2,
            1u64 << 31,
            1,
            "damaged header: 2147483648 entries, but a script's or an imported table has 1 to \
                1073741824",
        ),
        ("lua:big@0123abcd", 1, 1 << 33, 12, "damaged header: 8589934592 entries"),
        (
            "lua:big@0123abcd",
            2,
            1 << 20,
            8,
            "damaged header: a game block of kind 2 for the spec `lua:big@0123abcd`",
        ),
    ] {
        let (header, len) = stored_header(spec, kind, count, bits);
        let mut r = Sparse { header, len, at: 0 };
        let e = format::read_from(&mut r, len).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(want), "{spec}: {e}");
        assert!(r.at <= 4096, "{spec}: {} bytes read before the refusal", r.at);
    }
    // On disk: a sparse file of 12 GiB (2^33 entries of 12 bits), read by `sgtab show` and
    // `sgq value` under a 2 GB address-space limit: refused from the header, at once.
    let dir = scratch("forged-count");
    let (header, len) = stored_header("import:big", 2, 1 << 33, 12);
    let file = dir.join("big.sgt");
    let mut f = fs::File::create(&file).unwrap();
    f.write_all(&header).unwrap();
    f.set_len(len).unwrap();
    drop(f);
    assert!(len > 12 << 30);
    let limited = |args: &str| {
        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(format!("ulimit -v 2000000 && exec {args}"));
        run_with_limit(&mut cmd, Duration::from_secs(60))
    };
    let out = limited(&format!("'{SGTAB}' show '{}'", file.display()));
    assert_refused(
        &out,
        "damaged header: 8589934592 entries, but a script's or an imported table has 1 to \
            1073741824",
    );
    let mut sgq = Command::new("bash");
    sgq.arg("-c").arg(format!(
        "ulimit -v 2000000 && echo 1 | exec '{SGQ}' value import:big --tables '{}'",
        dir.display()
    ));
    let out = sgq.output().unwrap();
    assert_refused(&out, "damaged header: 8589934592 entries");
    fs::remove_dir_all(&dir).unwrap();
}

/// Runs `sgtab` in `dir` through the shell (`line` after the binary's name), its input closed.
fn sgtab_in(dir: &Path, line: &str) -> std::process::Output {
    let mut cmd = Command::new("sh");
    cmd.current_dir(dir).arg("-c").arg(format!("exec \"$0\" {line}")).arg(SGTAB);
    run_with_limit(&mut cmd, Duration::from_secs(60))
}

// An output onto its own input replaced the table with text: `dump T.sgt -o T.sgt`,
// `export T.sgt --lang c -o T.sgt`, `plot T.sgt -o link.svg` with link.svg a link to the table.
// Any output that is, or resolves to, an input is refused before anything is read or written.
#[test]
fn an_output_onto_its_own_input_is_refused() {
    let dir = scratch("onto-input");
    let t = dir.join("T.sgt");
    fs::copy(tables_dir().join("lasker-1024.sgt"), &t).unwrap();
    let table = fs::read(&t).unwrap();
    fs::hard_link(&t, dir.join("hard.png")).unwrap();
    std::os::unix::fs::symlink("T.sgt", dir.join("link.svg")).unwrap();
    fs::create_dir(dir.join("sub")).unwrap();
    fs::write(dir.join("font.png"), b"not a font").unwrap();
    for line in [
        "dump T.sgt -o T.sgt",
        "dump T.sgt -o ./T.sgt",
        "dump ./T.sgt --format csv -o sub/../T.sgt",
        &format!("dump T.sgt -o '{}'", t.display()),
        "dump T.sgt -o /dev/stdout >> T.sgt",
        "dump T.sgt >> T.sgt",
        "export T.sgt --lang c -o T.sgt",
        "export T.sgt --lang python -o hard.png",
        "export hard.png --lang rust >> T.sgt",
        "plot T.sgt -o link.svg",
        "plot T.sgt -o hard.png",
        "plot T.sgt -o font.png --font font.png",
        "show T.sgt >> T.sgt",
        "verify T.sgt >> link.svg",
        "build --from T.sgt --dir sub >> T.sgt",
    ] {
        let out = sgtab_in(&dir, line);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{line}: {err}");
        assert_eq!(err.lines().count(), 1, "{line}: one line: {err}");
        assert!(
            err.contains("is the input") || err.contains("goes into the input"),
            "{line}: {err}"
        );
        assert_eq!(fs::read(&t).unwrap(), table, "{line}: the table was changed");
        assert_eq!(fs::read(dir.join("font.png")).unwrap(), b"not a font", "{line}");
    }
    assert!(fs::symlink_metadata(dir.join("link.svg")).unwrap().is_symlink());
    // diff says it with its own status for what cannot be compared.
    let out = sgtab_in(&dir, "diff T.sgt hard.png >> T.sgt");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(fs::read(&t).unwrap(), table);
    // Other outputs are written; `build --from` may rewrite the table it read (the same game,
    // the same bytes).
    for line in [
        "dump T.sgt -o sub/T.txt",
        "plot T.sgt -o sub/T.svg --size 300x200",
        "export T.sgt --lang c >> sub/T.c",
    ] {
        let out = sgtab_in(&dir, line);
        assert!(out.status.success(), "{line}: {}", text(&out.stderr));
    }
    fs::copy(&t, dir.join("sub/lasker-1024.sgt")).unwrap();
    let out = sgtab_in(&dir, "build --from sub/lasker-1024.sgt --dir sub");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(fs::read(dir.join("sub/lasker-1024.sgt")).unwrap(), table);
    fs::remove_dir_all(&dir).unwrap();
}

// `build` wrote over whatever had its table's name: a user's file, another game's table (an
// imported `import:chess-6` shares `chess-6.sgt` with `chess:6`). `build` and `import` now replace
// only a table of the same game (sound or damaged: a rebuild is how a damaged one is mended).
#[test]
fn build_and_import_replace_only_a_table_of_the_same_game() {
    let dir = scratch("replace");
    let d = dir.to_str().unwrap();
    let file = dir.join("chess-6.sgt");
    let build = || sgtab(&["build", "chess:6", "--backend", "scalar", "--dir", d]);
    let import =
        |name: &str| run(SGTAB, &["import", "-", "--name", name, "--dir", d], b"0\n1\n1\n0\n");
    let kept = |what: &str, out: &std::process::Output, needle: &str| {
        assert_refused(out, needle);
        assert!(
            text(&out.stderr).contains("so it is kept; move it away or write into another --dir"),
            "{what}: {}",
            text(&out.stderr)
        );
    };

    // A user's file of that name.
    fs::write(&file, b"my notes").unwrap();
    kept(
        "text",
        &build(),
        "chess-6.sgt is there and is not a table of chess:6 (it is not an sgtab table)",
    );
    kept("text", &import("chess-6"), "is not a table of import:chess-6");
    assert_eq!(fs::read(&file).unwrap(), b"my notes");
    // Another game's table.
    fs::remove_file(&file).unwrap();
    let out = import("chess-6");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let imported = fs::read(&file).unwrap();
    kept("import", &build(), "chess-6.sgt holds the table of `import:chess-6`, not of chess:6");
    assert_eq!(fs::read(&file).unwrap(), imported);
    // A link to a user's file: the file it points to is kept.
    fs::remove_file(&file).unwrap();
    fs::write(dir.join("notes.txt"), b"my notes").unwrap();
    std::os::unix::fs::symlink("notes.txt", &file).unwrap();
    kept("link", &build(), "it is not an sgtab table");
    assert_eq!(fs::read(dir.join("notes.txt")).unwrap(), b"my notes");
    // A FIFO (refused without waiting on it), a directory, a device.
    fs::remove_file(&file).unwrap();
    assert!(Command::new("mkfifo").arg(&file).status().unwrap().success());
    kept(
        "fifo",
        &run_with_limit(
            Command::new(SGTAB).args(["build", "chess:6", "--dir", d]),
            Duration::from_secs(20),
        ),
        "it is a FIFO, socket or device",
    );
    fs::remove_file(&file).unwrap();
    fs::create_dir(&file).unwrap();
    kept("directory", &build(), "it is a directory");
    fs::remove_dir(&file).unwrap();
    std::os::unix::fs::symlink("/dev/null", &file).unwrap();
    kept("device", &build(), "it is a FIFO, socket or device");
    fs::remove_file(&file).unwrap();
    // A table of chess:6 cut short inside its header cannot say its game: kept.
    let out = build();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let good = fs::read(&file).unwrap();
    fs::write(&file, &good[..40]).unwrap();
    kept("cut", &build(), "is an sgtab table whose header is too damaged to tell its game");
    // One whose header still names chess:6 is mended, through a link as well.
    let mut damaged = good.clone();
    damaged[good.len() - 6] ^= 0x10;
    fs::write(&file, &damaged).unwrap();
    let out = build();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(fs::read(&file).unwrap(), good);
    fs::rename(&file, dir.join("real.sgt")).unwrap();
    std::os::unix::fs::symlink("real.sgt", &file).unwrap();
    let out = build();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(fs::symlink_metadata(&file).unwrap().is_symlink());
    assert_eq!(fs::read(dir.join("real.sgt")).unwrap(), good);
    // `import` keeps a family's table, and replaces its own.
    kept("family", &import("chess-6"), "holds the table of `chess:6`, not of import:chess-6");
    let out = import("mine");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = import("mine");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A --dir that is not a directory: one line.
    let out = sgtab(&["build", "chess:6", "--dir", dir.join("notes.txt").to_str().unwrap()]);
    assert_refused(&out, "notes.txt: it is not a directory");
    assert_eq!(fs::read(dir.join("notes.txt")).unwrap(), b"my notes");
    fs::remove_dir_all(&dir).unwrap();
}
