//! Where sgtab's outputs go: every command that writes (show, verify, build, dump, export in each
//! language, plot as SVG and PNG, gen) against a stdout that is closed, full, or a pipe nobody
//! reads, and a stderr that is full; and `export -o` and `plot -o` against every kind of path
//! (regular files new and old, symbolic links good and dangling, a character device, FIFOs with
//! and without a reader, a directory, a missing or read-only directory, names of 255 and 256
//! bytes). Each run must end by itself (never hang: killed after a time limit), never panic or
//! abort, say at most one line when it fails, leave nothing beside its target, and leave an
//! existing target as it was when it fails. Device nodes are made with mknod in scratch
//! directories (the tests run as root), never the machine's own /dev. And what `show`'s
//! numbers count.

mod common;

use common::{tables_dir, text};
use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");

/// Longest a run may take before it counts as a hang (generous: the machine is shared).
const LIMIT: Duration = Duration::from_secs(20);

fn scratch(name: &str) -> PathBuf {
    common::scratch("outputs", name)
}

fn table() -> String {
    tables_dir().join("lasker-1024.sgt").to_str().unwrap().to_string()
}

/// How a run ended.
struct Ran {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Ran {
    fn err(&self) -> String {
        text(&self.stderr)
    }

    /// Neither a panic (101) nor a signal (an abort), and no panic message.
    fn assert_no_crash(&self, what: &str) {
        assert!(self.code.is_some(), "{what}: killed by a signal: {}", self.err());
        assert_ne!(self.code, Some(101), "{what}: panicked: {}", self.err());
        assert!(!self.err().contains("panicked"), "{what}: {}", self.err());
    }

    fn assert_ok(&self, what: &str) {
        self.assert_no_crash(what);
        assert_eq!(self.code, Some(0), "{what}: {}", self.err());
    }

    /// Status 1 and one line on stderr holding `needle`.
    fn assert_refused(&self, what: &str, needle: &str) {
        self.assert_no_crash(what);
        let err = self.err();
        assert_eq!(self.code, Some(1), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: one line: {err}");
        assert!(
            err.starts_with("sgtab: error: ") && err.contains(needle),
            "{what}: `{err}` lacks `{needle}`"
        );
    }
}

/// Runs `cmd` (stdin empty; stdout and stderr as the caller set them, read here when piped),
/// killing it and failing if it outlives [`LIMIT`].
fn run_limited(cmd: &mut Command) -> Ran {
    let what = format!("{cmd:?}");
    let mut child = cmd.stdin(Stdio::null()).spawn().unwrap();
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what} still running after {LIMIT:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ran { code: status.code(), stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

fn sgtab(args: &[String]) -> Command {
    sgtab_at(Path::new(SGTAB), args)
}

fn sgtab_at(bin: &Path, args: &[String]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env_remove("SGTAB_TABLES")
        .env_remove("SGTAB_FONT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// The binary and the table where `nobody` can run and read them, in `dir`, wherever this
/// checkout lies (a clone in a `mktemp -d` directory is root's alone): linked there, or copied
/// where `dir` is on another file system.
fn for_nobody(dir: &Path) -> (PathBuf, String) {
    let (bin, table_copy) = (dir.join("sgtab-for-nobody"), dir.join("lasker-1024.sgt"));
    for (from, to) in [(Path::new(SGTAB), &bin), (Path::new(&table()), &table_copy)] {
        if !to.exists() && fs::hard_link(from, to).is_err() {
            fs::copy(from, to).unwrap();
        }
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    (bin, table_copy.to_str().unwrap().to_string())
}

fn node(path: &Path, kind: libc::mode_t, major: u32, minor: u32) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mknod only makes a directory entry.
    let r = unsafe { libc::mknod(c.as_ptr(), kind | 0o666, libc::makedev(major, minor)) };
    assert_eq!(r, 0, "mknod {}: {}", path.display(), std::io::Error::last_os_error());
}

/// A character device like /dev/null (1, 3) or /dev/full (1, 7), made at `path`.
fn char_device(path: &Path, minor: u32) {
    node(path, libc::S_IFCHR, 1, minor);
}

fn fifo(path: &Path) {
    node(path, libc::S_IFIFO, 0, 0);
}

/// The names in `dir`, sorted (hidden ones too: a temporary would be one).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A command that writes, as arguments (with `{dir}` standing for a scratch directory), whether
/// it prints on stdout, and a variant of it that fails.
struct Writer {
    name: &'static str,
    args: Vec<String>,
    prints: bool,
    failing: Vec<String>,
}

fn writers(dir: &Path) -> Vec<Writer> {
    let t = table();
    let d = dir.to_str().unwrap();
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let missing = format!("{d}/missing.sgt");
    let mut list = vec![
        Writer {
            name: "show",
            args: v(&["show", &t]),
            prints: true,
            failing: v(&["show", &missing]),
        },
        Writer {
            name: "verify",
            args: v(&["verify", &t]),
            prints: true,
            failing: v(&["verify", &missing]),
        },
        Writer {
            name: "build",
            args: v(&["build", "lasker:64", "--backend", "scalar", "--dir", &format!("{d}/built")]),
            prints: true,
            failing: v(&["build", "nosuch:1", "--dir", &format!("{d}/built")]),
        },
        Writer {
            name: "dump",
            args: v(&["dump", &t]),
            prints: true,
            failing: v(&["dump", &missing]),
        },
        Writer {
            name: "gen",
            args: v(&["gen", "lasker", "--cases", "2", "--per-case", "50"]),
            prints: true,
            failing: v(&["gen", "nosuch"]),
        },
    ];
    for lang in ["c", "cpp", "rust", "python"] {
        list.push(Writer {
            name: "export",
            args: v(&["export", &t, "--lang", lang]),
            prints: true,
            failing: v(&["export", &missing, "--lang", lang]),
        });
        let out = format!("{d}/x.{lang}");
        list.push(Writer {
            name: "export -o",
            args: v(&["export", &t, "--lang", lang, "-o", &out]),
            prints: false,
            failing: v(&["export", &t, "--lang", lang, "-o", &out, "--max-bytes", "10"]),
        });
    }
    for ext in ["svg", "png"] {
        let out = format!("{d}/x.{ext}");
        list.push(Writer {
            name: "plot",
            args: v(&["plot", &t, "-o", &out, "--size", "300x200"]),
            prints: false,
            failing: v(&["plot", &t, "-o", &out, "--size", "1x1"]),
        });
    }
    list
}

/// Every writing command against a stdout that is closed, full (a mknod'd /dev/full), a pipe
/// whose reader is gone, and a stderr that is full.
#[test]
fn every_command_against_a_failing_stdout_or_stderr() {
    let dir = scratch("stdout");
    let full = dir.join("full");
    char_device(&full, 7);
    for w in writers(&dir) {
        let what = format!("{} {:?}", w.name, w.args);
        // The reference run, into a pipe.
        let normal = run_limited(&mut sgtab(&w.args));
        normal.assert_ok(&what);
        assert_eq!(normal.stdout.is_empty(), !w.prints, "{what}");
        assert!(normal.stderr.is_empty(), "{what}: {}", normal.err());

        // Closed (`>&-`): the runtime would reopen it as /dev/null and the output be lost.
        let mut closed = Command::new("sh");
        closed
            .arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(SGTAB)
            .args(&w.args)
            .stderr(Stdio::piped());
        let ran = run_limited(&mut closed);
        if w.prints {
            ran.assert_refused(&format!("{what} >&-"), "standard output is closed");
        } else {
            ran.assert_ok(&format!("{what} >&-"));
        }

        // Full.
        let ran = run_limited(
            sgtab(&w.args).stdout(fs::OpenOptions::new().write(true).open(&full).unwrap()),
        );
        if w.prints {
            ran.assert_refused(
                &format!("{what} >full"),
                "cannot write output: No space left on device",
            );
        } else {
            ran.assert_ok(&format!("{what} >full"));
        }

        // A pipe whose reader has gone before the first write: status 1, quietly (as sgq).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let ran = run_limited(sgtab(&w.args).stdout(writer));
        ran.assert_no_crash(&format!("{what} | (gone)"));
        assert_eq!(ran.code, Some(if w.prints { 1 } else { 0 }), "{what} | (gone): {}", ran.err());
        assert!(ran.stderr.is_empty(), "{what} | (gone): {}", ran.err());

        // stderr full: a success is still one; a failure still fails, without a panic.
        let errfull = || fs::OpenOptions::new().write(true).open(&full).unwrap();
        let ran = run_limited(sgtab(&w.args).stderr(errfull()));
        ran.assert_ok(&format!("{what} 2>full"));
        if w.name == "build" {
            // Its report says how long the build took.
            assert_eq!(
                text(&ran.stdout).lines().count(),
                text(&normal.stdout).lines().count(),
                "{what} 2>full"
            );
        } else {
            assert_eq!(ran.stdout, normal.stdout, "{what} 2>full");
        }
        let ran = run_limited(sgtab(&w.failing).stderr(errfull()));
        ran.assert_no_crash(&format!("{:?} 2>full", w.failing));
        assert_eq!(ran.code, Some(1), "{:?} 2>full", w.failing);
        // And with a readable stderr, the failure is one line.
        let ran = run_limited(&mut sgtab(&w.failing));
        ran.assert_refused(&format!("{:?}", w.failing), "");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// What `-o` is pointed at, and what must come of it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Existing,
    New,
    LinkToFile,
    Dangling,
    LinkToStdout,
    CharDevice,
    FifoNoReader,
    FifoWithReader,
    Directory,
    MissingDirectory,
    ReadOnlyDirectory,
    Name255,
    Name256,
    RefusedOverExisting,
}

const KINDS: [Kind; 14] = [
    Kind::Existing,
    Kind::New,
    Kind::LinkToFile,
    Kind::Dangling,
    Kind::LinkToStdout,
    Kind::CharDevice,
    Kind::FifoNoReader,
    Kind::FifoWithReader,
    Kind::Directory,
    Kind::MissingDirectory,
    Kind::ReadOnlyDirectory,
    Kind::Name255,
    Kind::Name256,
    Kind::RefusedOverExisting,
];

/// The arguments of a command writing to `out` (`fail`: a variant refused before it writes).
fn command_to(cmd: &str, ext: &str, out: &Path, fail: bool) -> Vec<String> {
    let t = table();
    let args = match cmd {
        "export" => vec![
            "export",
            &t,
            "--lang",
            ext_lang(ext),
            "--max-bytes",
            if fail { "10" } else { "65536" },
        ],
        _ => vec!["plot", &t, "--size", if fail { "1x1" } else { "300x200" }],
    };
    let out = out.to_str().unwrap();
    args.into_iter().chain(["-o", out]).map(String::from).collect()
}

fn ext_lang(ext: &str) -> &'static str {
    match ext {
        "c" => "c",
        "cpp" => "cpp",
        "rs" => "rust",
        _ => "python",
    }
}

/// `export -o` in each language and `plot -o` as SVG and PNG, against every kind of path.
#[test]
fn export_and_plot_against_every_kind_of_output_path() {
    let root = scratch("paths");
    let outputs = [
        ("export", "c"),
        ("export", "cpp"),
        ("export", "rs"),
        ("export", "py"),
        ("plot", "svg"),
        ("plot", "png"),
    ];
    for (cmd, ext) in outputs {
        // The bytes every successful write must give: those of a plain new file.
        let reference = root.join(format!("reference.{ext}"));
        run_limited(&mut sgtab(&command_to(cmd, ext, &reference, false))).assert_ok(cmd);
        let want = fs::read(&reference).unwrap();
        assert!(want.len() > 100, "{cmd} {ext}");
        for kind in KINDS {
            let what = format!("{cmd} -o ({kind:?}, .{ext})");
            let dir = root.join(format!("{cmd}-{ext}-{kind:?}"));
            fs::create_dir(&dir).unwrap();
            let file = |name: &str| dir.join(format!("{name}.{ext}"));
            let old = b"the old content".to_vec();
            match kind {
                Kind::Existing => {
                    fs::write(file("out"), &old).unwrap();
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("out"), false)))
                        .assert_ok(&what);
                    assert_eq!(fs::read(file("out")).unwrap(), want, "{what}");
                    assert_eq!(names(&dir), [format!("out.{ext}")], "{what}");
                }
                Kind::New => {
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("out"), false)))
                        .assert_ok(&what);
                    assert_eq!(fs::read(file("out")).unwrap(), want, "{what}");
                    assert_eq!(names(&dir), [format!("out.{ext}")], "{what}");
                }
                Kind::LinkToFile | Kind::Dangling => {
                    let target = if kind == Kind::Dangling { "missing" } else { "real" };
                    if kind == Kind::LinkToFile {
                        fs::write(file("real"), &old).unwrap();
                    }
                    std::os::unix::fs::symlink(format!("{target}.{ext}"), file("link")).unwrap();
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("link"), false)))
                        .assert_ok(&what);
                    assert!(
                        fs::symlink_metadata(file("link")).unwrap().is_symlink(),
                        "{what}: the link was replaced"
                    );
                    assert_eq!(fs::read(file(target)).unwrap(), want, "{what}");
                    assert_eq!(
                        names(&dir),
                        [format!("link.{ext}"), format!("{target}.{ext}")],
                        "{what}"
                    );
                }
                Kind::LinkToStdout => {
                    std::os::unix::fs::symlink("/proc/self/fd/1", file("link")).unwrap();
                    let ran = run_limited(&mut sgtab(&command_to(cmd, ext, &file("link"), false)));
                    ran.assert_ok(&what);
                    assert_eq!(ran.stdout, want, "{what}: written through to stdout");
                    assert!(
                        fs::symlink_metadata(file("link")).unwrap().is_symlink(),
                        "{what}: the link was replaced"
                    );
                    assert_eq!(names(&dir), [format!("link.{ext}")], "{what}");
                }
                Kind::CharDevice => {
                    char_device(&file("null"), 3);
                    let rdev = fs::metadata(file("null")).unwrap().rdev();
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("null"), false)))
                        .assert_ok(&what);
                    let meta = fs::symlink_metadata(file("null")).unwrap();
                    assert!(
                        meta.file_type().is_char_device() && meta.rdev() == rdev,
                        "{what}: no longer the device"
                    );
                    assert_eq!(names(&dir), [format!("null.{ext}")], "{what}");
                    // A full device gives one line, and stays the device.
                    char_device(&file("full"), 7);
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("full"), false)))
                        .assert_refused(&what, "No space left on device");
                    assert!(
                        fs::symlink_metadata(file("full")).unwrap().file_type().is_char_device(),
                        "{what}"
                    );
                    assert_eq!(
                        names(&dir),
                        [format!("full.{ext}"), format!("null.{ext}")],
                        "{what}"
                    );
                }
                Kind::FifoNoReader => {
                    fifo(&file("fifo"));
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("fifo"), false)))
                        .assert_refused(&what, "nothing is reading from it");
                    assert!(
                        fs::symlink_metadata(file("fifo")).unwrap().file_type().is_fifo(),
                        "{what}"
                    );
                    assert_eq!(names(&dir), [format!("fifo.{ext}")], "{what}");
                }
                Kind::FifoWithReader => {
                    fifo(&file("fifo"));
                    // Opened for reading and writing, so this open does not wait for a writer,
                    // and reads never see an end: read exactly what should come.
                    let mut end =
                        fs::OpenOptions::new().read(true).write(true).open(file("fifo")).unwrap();
                    let len = want.len();
                    let reader = std::thread::spawn(move || {
                        let mut got = vec![0; len];
                        end.read_exact(&mut got).map(|_| got)
                    });
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("fifo"), false)))
                        .assert_ok(&what);
                    assert_eq!(reader.join().unwrap().unwrap(), want, "{what}");
                    assert!(
                        fs::symlink_metadata(file("fifo")).unwrap().file_type().is_fifo(),
                        "{what}"
                    );
                    assert_eq!(names(&dir), [format!("fifo.{ext}")], "{what}");
                }
                Kind::Directory => {
                    fs::create_dir(file("d")).unwrap();
                    fs::write(file("d").join("inside"), &old).unwrap();
                    run_limited(&mut sgtab(&command_to(cmd, ext, &file("d"), false)))
                        .assert_refused(&what, "it is a directory");
                    assert_eq!(names(&file("d")), ["inside"], "{what}");
                    assert_eq!(names(&dir), [format!("d.{ext}")], "{what}");
                }
                Kind::MissingDirectory => {
                    let out = dir.join("none").join(format!("out.{ext}"));
                    run_limited(&mut sgtab(&command_to(cmd, ext, &out, false)))
                        .assert_refused(&what, "No such file or directory");
                    assert!(names(&dir).is_empty(), "{what}: {:?}", names(&dir));
                }
                Kind::ReadOnlyDirectory => {
                    // Root may write anywhere; the run is made as `nobody` so that the
                    // directory's mode is what stops it.
                    fs::write(file("out"), &old).unwrap();
                    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
                    let mut args = command_to(cmd, ext, &file("out"), false);
                    let mut cmd_ro = sgtab(&args);
                    // SAFETY: geteuid has no preconditions.
                    if unsafe { libc::geteuid() } == 0 {
                        let (bin, table) = for_nobody(&root);
                        args[1] = table;
                        cmd_ro = sgtab_at(&bin, &args);
                        cmd_ro.uid(65534).gid(65534);
                    }
                    run_limited(&mut cmd_ro).assert_refused(&what, "Permission denied");
                    assert_eq!(fs::read(file("out")).unwrap(), old, "{what}");
                    assert_eq!(names(&dir), [format!("out.{ext}")], "{what}");
                    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
                }
                Kind::Name255 | Kind::Name256 => {
                    let len = if kind == Kind::Name255 { 255 } else { 256 };
                    let name = format!("{}.{ext}", "n".repeat(len - 1 - ext.len()));
                    assert_eq!(name.len(), len);
                    let ran =
                        run_limited(&mut sgtab(&command_to(cmd, ext, &dir.join(&name), false)));
                    if kind == Kind::Name255 {
                        ran.assert_ok(&what);
                        assert_eq!(fs::read(dir.join(&name)).unwrap(), want, "{what}");
                        assert_eq!(names(&dir), [name], "{what}");
                    } else {
                        ran.assert_refused(&what, "File name too long");
                        assert!(names(&dir).is_empty(), "{what}: {:?}", names(&dir));
                    }
                }
                Kind::RefusedOverExisting => {
                    fs::write(file("out"), &old).unwrap();
                    let ran = run_limited(&mut sgtab(&command_to(cmd, ext, &file("out"), true)));
                    ran.assert_refused(&what, "");
                    assert_eq!(fs::read(file("out")).unwrap(), old, "{what}");
                    assert_eq!(names(&dir), [format!("out.{ext}")], "{what}");
                }
            }
        }
    }
    fs::remove_dir_all(&root).unwrap();
}

/// A PID that no process has now: a child that has exited and been waited for.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// A killed `export -o` or `plot -o` never leaves a part of a file: its target is the whole
/// output, and beside it there is nothing, or (when the kill lands between the finished file's
/// link under its temporary name and the rename, a few microseconds) that whole file under
/// sgtab's temporary name (`.sgtab-PID-SEQ.tmp`), which the next write into the directory
/// removes once its writer is gone; names of any other form (`.solution.cpp.tmp3999999`) are
/// never touched.
#[test]
fn a_killed_export_or_plot_leaves_nothing_behind() {
    let dir = scratch("killed");
    let built = run_limited(&mut sgtab(
        &["build", "chess:24", "--backend", "simd", "--dir", dir.to_str().unwrap()]
            .map(String::from),
    ));
    built.assert_ok("build chess:24");
    let t = dir.join("chess-24.sgt");
    let out = dir.join("out");
    fs::create_dir(&out).unwrap();
    let t = t.to_str().unwrap();
    let (source, picture) = (out.join("x.py"), out.join("x.png"));
    let export = [
        "export",
        t,
        "--lang",
        "python",
        "--max-bytes",
        "1000000000",
        "-o",
        source.to_str().unwrap(),
    ];
    let plot = ["plot", t, "--size", "4000x3000", "-o", picture.to_str().unwrap()];
    // Temporaries a kill stranded (rare: the kill must land in the microseconds between link
    // and rename); each must go with the next write. Where the file system has no anonymous
    // files (O_TMPFILE) the file is written under its temporary name, and a kill may leave a
    // part of it there.
    let mut stranded = Vec::new();
    let mut killed = Vec::new();
    let anonymous = fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(&out)
        .is_ok();
    for (args, target) in [(&export[..], &source), (&plot[..], &picture)] {
        // The file is written in the last quarter or so of a run: kills are spread over a whole
        // run's time, most of them late.
        let start = Instant::now();
        run_limited(&mut sgtab(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>()))
            .assert_ok("a whole run");
        let whole = start.elapsed();
        let complete = fs::read(target).unwrap();
        for fraction in [0.05, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0] {
            let mut child = Command::new(SGTAB)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            killed.push(child.id());
            std::thread::sleep(whole.mul_f64(fraction));
            let _ = child.kill(); // SIGKILL, if it has not finished
            child.wait().unwrap();
            let what = format!("{args:?} killed at {fraction} of {whole:?}");
            // The same table gives the same bytes, so the target is `complete` whether this run
            // replaced it or not; anything else is a part of a file.
            assert!(fs::read(target).unwrap() == complete, "{what}: the target changed");
            // A temporary stranded by an earlier kill may still be there: only a write that
            // gets as far as its file removes it.
            for name in names(&out).into_iter().filter(|n| n != "x.py" && n != "x.png") {
                let ours = killed.iter().any(|pid| {
                    name.starts_with(&format!(".sgtab-{pid}-")) && name.ends_with(".tmp")
                });
                assert!(ours, "{what}: {name} left beside the target");
                if stranded.contains(&name) {
                    continue; // seen (and its bytes checked) after the kill that left it
                }
                if anonymous {
                    let left = fs::read(out.join(&name)).unwrap();
                    assert!(left == complete, "{what}: {name} is not the whole file");
                }
                stranded.push(name);
            }
        }
    }
    // Temporaries of dead writers in sgtab's naming go; one of a live process (this test) and
    // files that only look alike (a user's own temporaries) stay.
    let (dead, live) = (dead_pid(), std::process::id());
    let stale: Vec<String> = [format!(".sgtab-{dead}-0.tmp")].into_iter().chain(stranded).collect();
    let kept = [
        format!(".sgtab-{live}-7.tmp"),
        format!(".x.py.tmp{dead}"),
        format!(".x.png.tmp{dead}"),
        format!(".chess-20.sgt.tmp{dead}"),
        format!(".solution.cpp.tmp{dead}"),
        format!(".notes.txt.tmp{dead}"),
        "x.py.tmp1".to_string(),
    ];
    for name in stale.iter().chain(&kept) {
        fs::write(out.join(name), b"partial").unwrap();
    }
    let small = ["export", &table(), "--lang", "c", "-o", out.join("small.c").to_str().unwrap()]
        .map(String::from);
    run_limited(&mut sgtab(&small)).assert_ok("export -o");
    for name in &stale {
        assert!(!out.join(name).exists(), "{name} is still there");
    }
    for name in &kept {
        assert!(out.join(name).exists(), "{name} was removed");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// `plot --font` (and `$SGTAB_FONT`) read only a regular file of at most 64 MiB, and never wait
/// on a FIFO: /dev/zero once grew until memory ran out, and a FIFO hung.
#[test]
fn plot_fonts_are_regular_files_of_bounded_size() {
    let dir = scratch("fonts");
    let (zero, pipe, big) = (dir.join("zero"), dir.join("fifo.ttf"), dir.join("big.ttf"));
    char_device(&zero, 5);
    fifo(&pipe);
    fs::File::create(&big).unwrap().set_len(65 << 20).unwrap();
    let picture = dir.join("x.svg");
    let plot = |font: Option<&Path>, env: Option<&Path>| {
        let mut args =
            ["plot", &table(), "-o", picture.to_str().unwrap()].map(String::from).to_vec();
        if let Some(f) = font {
            args.extend(["--font".to_string(), f.to_str().unwrap().to_string()]);
        }
        let mut cmd = sgtab(&args);
        if let Some(e) = env {
            cmd.env("SGTAB_FONT", e);
        }
        run_limited(&mut cmd)
    };
    for font in [&zero, &pipe] {
        plot(Some(font), None)
            .assert_refused(&format!("--font {}", font.display()), "is not a regular file");
        plot(None, Some(font))
            .assert_refused(&format!("SGTAB_FONT={}", font.display()), "is not a regular file");
    }
    plot(Some(&big), None).assert_refused("--font big.ttf", "larger than the 64 MiB a font may be");
    plot(Some(&dir), None).assert_refused("--font DIR", "is a directory");
    assert!(!picture.exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// The line of `show`'s output that starts with `key`.
fn show_line(file: &Path, key: &str) -> String {
    let ran = run_limited(&mut sgtab(&["show".into(), file.to_str().unwrap().into()]));
    ran.assert_ok("show");
    text(&ran.stdout)
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} in {}", text(&ran.stdout)))
        .to_string()
}

/// `show` says what its numbers count: the margin in values and in periods, against a need in
/// values with the reason; and it calls values rare only when together they hold at most 10%
/// of the entries, saying that threshold either way.
#[test]
fn show_says_what_its_numbers_count() {
    // sub:1,3,9 is 0 1 0 1 ...: any split leaves half the entries on each side, so none is rare.
    let sub = tables_dir().join("sub-1_3_9-1024.sgt");
    let rare = show_line(&sub, "rare:");
    assert!(
        rare.starts_with(
            "rare:     none: values are called rare when together they hold at most 10% of the \
                entries"
        ),
        "{rare}"
    );
    assert!(
        rare.contains("leaves 512 of 1024 entries, 50.0%") && !rare.contains("are rare, held by"),
        "{rare}"
    );
    assert_eq!(
        show_line(&sub, "margin:"),
        "margin:   checked over the 1024 values from n = 0 to the table's end, 512.0 periods of 2 \
            values; a rule must hold over at least 18 values here (one period and 16 values more)"
    );
    // Funny's one rare value holds 1 of its 32 entries: listed, with the share and the threshold.
    let rare = show_line(&tables_dir().join("funny-32.sgt"), "rare:");
    assert!(
        rare.starts_with("rare:     1 of the 32 values are rare, held by 1 of 32 entries, 3.1% (")
            && rare.contains("held by at most 10% of the entries"),
        "{rare}"
    );
}
