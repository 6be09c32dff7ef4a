//! `sgtab dump`: every format read back gives the table's values (CSV with its coordinates,
//! JSON and `.npy` through Python's own readers, NumPy's for `.npy`), on a heap game, chess rows,
//! a board and a 3-D imported table, whole and in ranges; bad ranges are one line.

mod common;

use common::{run, sgtab, tables_dir, text};
use sgtab::table::{Table, format};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    common::scratch("dump", name)
}

/// A Python that imports NumPy: the PATH's, or the system's (where a pyenv one hides Debian's
/// python3-numpy); `None` where there is none, said loudly.
fn numpy_python() -> Option<&'static str> {
    let found = ["python3", "/usr/bin/python3"].into_iter().find(|py| {
        Command::new(py).args(["-c", "import numpy"]).output().is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        eprintln!(
            "SKIPPED: no python3 with numpy (scripts/test.sh installs python3-numpy): the .npy \
                round trip is not checked"
        );
    }
    found
}

/// The table's values of the first-axis range `first..=last`, with the number of table indexes a
/// step of the first axis takes.
fn expected(table: &Table, first: u64, last: u64, stride: u64) -> Vec<u64> {
    (first * stride..(last + 1) * stride).map(|i| table.values.get(i) as u64).collect()
}

/// `sgtab dump FILE --format F [--range R]` to a file (atomically, `-o`) and to stdout: the two
/// alike; the bytes.
fn dump(file: &Path, dir: &Path, format: &str, range: Option<&str>) -> Vec<u8> {
    let out = dir.join(format!("out.{format}"));
    let mut args = vec!["dump", file.to_str().unwrap(), "--format", format];
    if let Some(r) = range {
        args.extend(["--range", r]);
    }
    let piped = sgtab(&args);
    assert!(piped.status.success(), "{args:?}: {}", text(&piped.stderr));
    args.extend(["-o", out.to_str().unwrap()]);
    let written = sgtab(&args);
    assert!(
        written.status.success() && written.stdout.is_empty(),
        "{args:?}: {}",
        text(&written.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes, piped.stdout, "{args:?}: -o and stdout differ");
    bytes
}

fn python(py: &str, script: &str, file: &Path) -> String {
    let out = Command::new(py).args(["-c", script]).arg(file).output().unwrap();
    assert!(out.status.success(), "{script}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect()
}

/// Every format of `file` for the range `first..=last` of its first axis (`None`: the whole
/// table), checked against the values; `axes` the sizes of the table's axes after the first,
/// `header` the CSV's.
fn check(file: &Path, name: &str, range: Option<(u64, u64)>, axes: &[u64], header: &str) {
    let dir = scratch(name);
    let table = format::read(file).unwrap();
    let stride: u64 = axes.iter().product();
    let first_axis = table.values.len() / stride;
    let (first, last) = range.unwrap_or((0, first_axis - 1));
    let want = expected(&table, first, last, stride);
    let range_text = range.map(|(a, b)| format!("{a}..{b}"));
    let range = range_text.as_deref();
    let label = format!("{name} {range:?}");

    let lines = text(&dump(file, &dir, "text", range));
    assert_eq!(
        lines.lines().map(|l| l.parse().unwrap()).collect::<Vec<u64>>(),
        want,
        "{label} text"
    );

    let bfile = text(&dump(file, &dir, "bfile", range));
    let rows: Vec<Vec<u64>> = bfile.lines().map(numbers).collect();
    assert!(
        rows.iter().enumerate().all(|(k, r)| r.len() == 2 && r[0] == first * stride + k as u64),
        "{label} bfile indexes"
    );
    assert_eq!(rows.iter().map(|r| r[1]).collect::<Vec<_>>(), want, "{label} bfile values");

    let csv = text(&dump(file, &dir, "csv", range));
    let mut csv_lines = csv.lines();
    assert_eq!(csv_lines.next(), Some(header), "{label} csv header");
    for (k, line) in csv_lines.enumerate() {
        let fields = numbers(line);
        // The point of index first·stride + k, row-major.
        let mut i = first * stride + k as u64;
        let mut point = vec![0; axes.len() + 1];
        for (p, &d) in point.iter_mut().skip(1).zip(axes).rev() {
            *p = i % d;
            i /= d;
        }
        point[0] = i;
        assert_eq!(&fields[..point.len()], &point[..], "{label} csv line {k}: {line}");
        assert_eq!(fields[point.len()], want[k], "{label} csv line {k}");
    }
    assert_eq!(csv.lines().count() - 1, want.len(), "{label} csv count");

    if let Some(py) = numpy_python() {
        let mut shape = vec![last - first + 1];
        shape.extend(axes);
        let json = dir.join("out.json");
        dump(file, &dir, "json", range);
        let read = python(
            py,
            "import json, sys\nd = json.load(open(sys.argv[1]))\nprint(d['spec'], d['shape'], \
                d['first'], d['proven'])\nprint(' '.join(map(str, d['values'])))",
            &json,
        );
        let (head, values) = read.split_once('\n').unwrap();
        assert_eq!(numbers(values), want, "{label} json values");
        let shape_text =
            format!("[{}]", shape.iter().map(u64::to_string).collect::<Vec<_>>().join(", "));
        assert!(
            head.starts_with(&format!("{} {shape_text} {first} ", table.spec)),
            "{label} json head: {head}"
        );

        let npy = dir.join("out.npy");
        dump(file, &dir, "npy", range);
        let read = python(
            py,
            "import numpy, sys\na = numpy.load(sys.argv[1])\nprint(a.dtype, a.shape)\nprint(' \
                '.join(map(str, a.flatten().tolist())))",
            &npy,
        );
        let (head, values) = read.split_once('\n').unwrap();
        assert_eq!(numbers(values), want, "{label} npy values");
        let max = want.iter().copied().max().unwrap_or(0);
        let dtype = if max < 256 {
            "uint8"
        } else if max < 65536 {
            "uint16"
        } else {
            "uint32"
        };
        let tuple = if shape.len() == 1 {
            format!("({},)", shape[0])
        } else {
            format!("({})", shape.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))
        };
        assert_eq!(head, format!("{dtype} {tuple}"), "{label} npy dtype and shape");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_format_gives_the_values_back() {
    let tables = tables_dir();
    check(&tables.join("lasker-1024.sgt"), "lasker", None, &[], "n,g");
    check(&tables.join("lasker-1024.sgt"), "lasker-range", Some((1000, 1023)), &[], "n,g");
    check(&tables.join("chess-20.sgt"), "chess", Some((4096, 8191)), &[], "row,g");
    check(&tables.join("sub-1_3_9-1024.sgt"), "stones", Some((7, 7)), &[], "n,g");

    // A board (queen:12) and a 3-D table imported from values of more than 8 bits.
    let dir = scratch("made");
    let d = dir.to_str().unwrap();
    let built = sgtab(&["build", "queen:12", "--dir", d]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    check(&dir.join("queen-12.sgt"), "queen", None, &[12], "x,y,g");
    check(&dir.join("queen-12.sgt"), "queen-range", Some((3, 5)), &[12], "x,y,g");
    let values: String = (0..2 * 3 * 4u64).map(|i| format!("{}\n", i * 97 % 1000)).collect();
    let imported = run(
        env!("CARGO_BIN_EXE_sgtab"),
        &["import", "-", "--name", "box", "--shape", "2x3x4", "--dir", d],
        values.as_bytes(),
    );
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    check(&dir.join("box.sgt"), "box", None, &[3, 4], "p1,p2,p3,g");
    check(&dir.join("box.sgt"), "box-range", Some((1, 1)), &[3, 4], "p1,p2,p3,g");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_ranges_and_formats_are_one_line_and_write_nothing() {
    let dir = scratch("bad");
    let out = dir.join("never.csv");
    let lasker = tables_dir().join("lasker-1024.sgt");
    for (args, needle) in [
        (vec!["--range", "5..2"], "is not A..B"),
        (vec!["--range", "x..3"], "is not A..B"),
        (vec!["--range", "7"], "is not A..B"),
        (vec!["--range", "1000..1024"], "its indexes run from 0 to 1023"),
        (vec!["--format", "xml"], "xml"),
    ] {
        let mut all = vec!["dump", lasker.to_str().unwrap(), "-o", out.to_str().unwrap()];
        all.extend(args.iter().copied());
        let ran = sgtab(&all);
        let err = text(&ran.stderr);
        assert!(
            !ran.status.success() && err.contains(needle) && ran.stdout.is_empty(),
            "{args:?}: {err}"
        );
        assert!(!out.exists(), "{args:?} wrote a file");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Makes a node with mknod in a scratch directory (the tests run as root): a character device
/// like /dev/null (1, 3) or /dev/full (1, 7), or a FIFO; never the machine's own /dev.
fn node(path: &Path, kind: libc::mode_t, minor: u32) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let major = if kind == libc::S_IFCHR { 1 } else { 0 };
    // SAFETY: a valid NUL-terminated path; mknod only makes a directory entry.
    let r = unsafe { libc::mknod(c.as_ptr(), kind | 0o666, libc::makedev(major, minor)) };
    assert_eq!(r, 0, "mknod {}: {}", path.display(), std::io::Error::last_os_error());
}

/// `dump -o` onto a link (the file it points to is written, the link kept), a null device
/// (written through), a full one, a FIFO nobody reads, a directory (one line, exit 1, nothing
/// replaced), and `build`/`import --dir` onto a link to a directory, a device or a file.
#[test]
fn dump_and_dir_against_every_kind_of_path() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("paths");
    let lasker = tables_dir().join("lasker-1024.sgt");
    let dumped = sgtab(&["dump", lasker.to_str().unwrap()]).stdout;
    let dump_to = |out: &Path| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sgtab"));
        cmd.args(["dump", lasker.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .stdin(std::process::Stdio::null());
        let child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let refused = |out: &std::process::Output, needle: &str| {
        let err = text(&out.stderr);
        assert!(
            out.status.code() == Some(1) && err.lines().count() == 1 && err.contains(needle),
            "{needle}: {err}"
        );
    };
    std::fs::write(dir.join("real.txt"), b"old").unwrap();
    std::os::unix::fs::symlink("real.txt", dir.join("link.txt")).unwrap();
    let ran = dump_to(&dir.join("link.txt"));
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert!(std::fs::symlink_metadata(dir.join("link.txt")).unwrap().is_symlink());
    assert_eq!(std::fs::read(dir.join("real.txt")).unwrap(), dumped);
    node(&dir.join("null"), libc::S_IFCHR, 3);
    assert!(dump_to(&dir.join("null")).status.success());
    node(&dir.join("full"), libc::S_IFCHR, 7);
    refused(&dump_to(&dir.join("full")), "No space left on device");
    node(&dir.join("fifo"), libc::S_IFIFO, 0);
    refused(&dump_to(&dir.join("fifo")), "nothing is reading from it");
    std::fs::create_dir(dir.join("sub")).unwrap();
    refused(&dump_to(&dir.join("sub")), "it is a directory");
    let kind = |name: &str| std::fs::symlink_metadata(dir.join(name)).unwrap().file_type();
    assert!(
        kind("null").is_char_device() && kind("full").is_char_device() && kind("fifo").is_fifo(),
        "a node was replaced"
    );
    // --dir: a link to a directory is followed; a device or a file is one line.
    std::os::unix::fs::symlink("sub", dir.join("sublink")).unwrap();
    let built = sgtab(&["build", "lasker:16", "--dir", dir.join("sublink").to_str().unwrap()]);
    assert!(
        built.status.success() && dir.join("sub/lasker-16.sgt").is_file(),
        "{}",
        text(&built.stderr)
    );
    for target in ["null", "real.txt"] {
        let built = sgtab(&["build", "lasker:16", "--dir", dir.join(target).to_str().unwrap()]);
        refused(&built, "it is not a directory");
        let imported = run(
            env!("CARGO_BIN_EXE_sgtab"),
            &["import", "-", "--name", "x", "--dir", dir.join(target).to_str().unwrap()],
            b"1\n",
        );
        refused(&imported, "it is not a directory");
    }
    assert_eq!(std::fs::read(dir.join("real.txt")).unwrap(), dumped);
    std::fs::remove_dir_all(&dir).unwrap();
}
