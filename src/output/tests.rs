use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sgtab-output-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn only_sgtabs_own_temporary_names_are_recognised() {
    assert_eq!(temporary_pid(".sgtab-123-0.tmp"), Some(123));
    assert_eq!(temporary_pid(".sgtab-123-45.tmp"), Some(123));
    for other in [
        "chess-20.sgt",
        ".sgtab-x-0.tmp",
        ".sgtab-1-.tmp",
        ".sgtab--1.tmp",
        ".sgtab-1-2x.tmp",
        "sgtab-1-1.tmp",
        ".sgtab-1-2.tmp.sgt",
        ".sgtab-99999999999-1.tmp",
        // A user's (or another program's) temporaries, whatever their extension.
        ".chess-20.sgt.tmp4567",
        ".solution.cpp.tmp3999999",
        ".lasker.c.tmp77",
        ".notes.txt.tmp12",
    ] {
        assert_eq!(temporary_pid(other), None, "{other}");
    }
}

#[test]
fn a_locked_temporary_of_a_gone_pid_is_kept_and_an_unlocked_one_removed() {
    let dir = scratch("sweep");
    // A PID that is surely not running: past the kernel's largest (2^22).
    let (held, stale, users) = (
        dir.join(".sgtab-4999999-1.tmp"),
        dir.join(".sgtab-4999999-2.tmp"),
        dir.join(".solution.cpp.tmp4999999"),
    );
    for p in [&held, &stale, &users] {
        fs::write(p, b"partial").unwrap();
    }
    // A writer in another PID namespace: its PID means nothing here, its lock does. Locks
    // are per open file, so one taken through another descriptor excludes the sweep's.
    let writer = File::open(&held).unwrap();
    assert!(lock(&writer, true));
    assert_eq!(remove_stale_temporaries(&dir), vec![stale]);
    assert_eq!(names(&dir), [".sgtab-4999999-1.tmp", ".solution.cpp.tmp4999999"]);
    drop(writer);
    assert_eq!(remove_stale_temporaries(&dir), vec![held]);
    assert_eq!(names(&dir), [".solution.cpp.tmp4999999"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_named_fallback_writes_the_same_bytes_and_leaves_nothing() {
    let dir = scratch("named");
    let (a, b) = (dir.join("a"), dir.join("b"));
    write_bytes(&a, b"hello").unwrap();
    named(&dir.join(".sgtab-1-1.tmp"), &b, None, &mut |w| w.write_all(b"hello")).unwrap();
    assert_eq!(fs::read(&a).unwrap(), b"hello");
    assert_eq!(fs::read(&b).unwrap(), b"hello");
    // Over an existing file, too.
    write_bytes(&b, b"again").unwrap();
    assert_eq!(fs::read(&b).unwrap(), b"again");
    assert_eq!(names(&dir), ["a", "b"]);
    // A write into a directory that does not exist fails, leaving nothing.
    assert!(write_bytes(&dir.join("none/c"), b"x").is_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_fill_leaves_the_old_file_and_nothing_else() {
    let dir = scratch("failed");
    let a = dir.join("a");
    write_bytes(&a, b"old").unwrap();
    let err = write(&a, |w| {
        w.write_all(&[7; 3 << 20])?;
        Err(io::Error::other("stopped"))
    });
    assert_eq!(err.unwrap_err().to_string(), "stopped");
    let err =
        named(&dir.join(".sgtab-1-1.tmp"), &a, None, &mut |_| Err(io::Error::other("stopped")));
    assert!(err.is_err());
    assert_eq!(fs::read(&a).unwrap(), b"old");
    assert_eq!(names(&dir), ["a"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn links_are_followed_and_kept_and_modes_kept() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = scratch("links");
    fs::create_dir(dir.join("sub")).unwrap();
    fs::write(dir.join("sub/real"), b"old").unwrap();
    fs::set_permissions(dir.join("sub/real"), fs::Permissions::from_mode(0o751)).unwrap();
    symlink("sub/real", dir.join("link")).unwrap();
    symlink("sub/missing", dir.join("dangling")).unwrap();
    symlink("dangling", dir.join("chain")).unwrap();
    write_bytes(&dir.join("link"), b"new").unwrap();
    assert!(fs::symlink_metadata(dir.join("link")).unwrap().is_symlink());
    assert_eq!(fs::read(dir.join("sub/real")).unwrap(), b"new");
    assert_eq!(fs::metadata(dir.join("sub/real")).unwrap().permissions().mode() & 0o777, 0o751);
    write_bytes(&dir.join("chain"), b"made").unwrap();
    assert!(fs::symlink_metadata(dir.join("chain")).unwrap().is_symlink());
    assert!(fs::symlink_metadata(dir.join("dangling")).unwrap().is_symlink());
    assert_eq!(fs::read(dir.join("sub/missing")).unwrap(), b"made");
    assert_eq!(names(&dir), ["chain", "dangling", "link", "sub"]);
    assert_eq!(names(&dir.join("sub")), ["missing", "real"]);
    // A loop of links is an error, not a hang.
    symlink("loop2", dir.join("loop1")).unwrap();
    symlink("loop1", dir.join("loop2")).unwrap();
    assert!(write_bytes(&dir.join("loop1"), b"x").is_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_without_a_reader_is_refused_at_once_and_directories_refused() {
    let dir = scratch("fifo");
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let err = write_bytes(&fifo, b"x").unwrap_err();
    assert!(err.to_string().contains("nothing is reading from it"), "{err}");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &fs::symlink_metadata(&fifo).unwrap().file_type()
    ));
    let err = write_bytes(&dir, b"x").unwrap_err();
    assert_eq!(err.to_string(), "it is a directory");
    assert_eq!(names(&dir), ["fifo"]);
    fs::remove_dir_all(&dir).unwrap();
}
