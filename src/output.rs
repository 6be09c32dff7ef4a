//! Where sgtab's outputs go: every file it writes (tables, `export -o`, `plot -o`) goes through
//! [`write()`], and [`stdout_was_closed`] tells whether there is a standard output to print to.
//!
//! [`write()`] looks at what the path names first:
//!
//! - nothing, or a regular file: the new file is written beside it and renamed over it, so that a
//!   failed write (a full disk, a killed process) never leaves a half-written file there, nor a
//!   temporary one beside it but for a kill in the microseconds before the rename, whose whole
//!   file the next write removes (see [`write()`] for how);
//! - a symbolic link: the file it points to is written that way, and the link stays a link (a
//!   dangling link gets its target created);
//! - a character device or a FIFO: written through, as a shell's `>` would; never replaced by a
//!   regular file. A FIFO nobody reads is refused rather than waited on;
//! - a directory, or a socket: refused.

mod failure;
pub use failure::{Failure, stdout_or_file};

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes the bytes `fill` produces to `path` (see the module's description for what each kind
/// of path gets). `fill` may be called twice: on Linux, when an anonymous file cannot be given a
/// name (no `/proc`), the file is written again under a temporary name.
///
/// A regular file is written atomically:
///
/// - On Linux the file is first an anonymous one (`O_TMPFILE` in the target directory): a process
///   killed while writing leaves nothing behind. Once complete it is linked (`linkat`) under
///   `path` where nothing is there; otherwise under a short temporary name, renamed over `path`.
/// - Where the file system has no `O_TMPFILE`, it is written under that temporary name directly,
///   removed on error.
///
/// The temporary name is `.sgtab-PID-SEQ.tmp`: under 40 bytes whatever `path` is, so it fits
/// wherever the final name does (up to 255 bytes). A kill -9 can still strand one (between the
/// link and the rename over an existing file, or anywhere on the fallback path); every write
/// first removes those whose writer is gone (its PID not running, the lock it held on the file
/// released), and no other name. A file that is replaced keeps its permission bits. There is no
/// fsync: it would cost more than building chess:20, and a table torn by a power cut fails its
/// checksum when read.
pub fn write(
    path: &Path,
    mut fill: impl FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match target(path)? {
        Target::Replace { path, mode } => replace(&path, mode, &mut fill),
        Target::Through(file) => {
            let mut w = BufWriter::with_capacity(1 << 16, file);
            fill(&mut w)?;
            w.flush()
        }
    }
}

/// Refuses an output that is one of the command's `inputs`: `output` is a path given with `-o`
/// (its links followed), `None` the standard output (where it is a regular file, as after
/// `>> T.sgt`). Files that exist are compared by device and inode, so a hard link, a symbolic
/// link or `./T.sgt` for `T.sgt` is the same file; a path that names nothing yet is compared by
/// its canonical form (its directory resolved). The message says which input it is.
pub fn refuse_onto_input(output: Option<&Path>, inputs: &[&Path]) -> Result<(), String> {
    let out_meta = match output {
        Some(path) => fs::metadata(path).ok(),
        None => stdout_metadata().filter(|m| m.is_file()),
    };
    let out_path = output.and_then(|p| dangling_end(p).ok()).and_then(|p| canonical_beside(&p));
    for &input in inputs {
        let same = match (&out_meta, fs::metadata(input)) {
            (Some(a), Ok(b)) => same_file(a, &b),
            (None, Err(_)) => out_path.is_some() && out_path == canonical_beside(input),
            _ => false,
        };
        if same {
            return Err(match output {
                Some(path) => format!(
                    "the output {} is the input {} (the same file): writing it would destroy the \
                        input; choose another output file",
                    path.display(),
                    input.display()
                ),
                None => format!(
                    "standard output goes into the input {} (the same file), which this would \
                        damage; send the output elsewhere",
                    input.display()
                ),
            });
        }
    }
    Ok(())
}

/// The metadata of what descriptor 1 is open on, if it is open.
fn stdout_metadata() -> Option<fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

/// `path` with its directory made canonical (the file itself need not exist).
fn canonical_beside(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Some(p);
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(fs::canonicalize(dir).ok()?.join(path.file_name()?))
}

/// Makes the directory `dir` (and its parents) where it is missing; one line where it cannot
/// be made or something else is there.
pub fn make_dir(dir: &Path) -> Result<(), String> {
    match fs::create_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(_) if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) => {
            Err(format!("cannot write into {}: it is not a directory", dir.display()))
        }
        Err(e) => Err(format!("cannot create the directory {}: {e}", dir.display())),
    }
}

/// Opens an input file (a script, values to import): a regular file only, opened without
/// blocking (a FIFO with no writer would hang the open). Returns it with its length.
pub fn open_regular(path: &Path) -> io::Result<(fs::File, u64)> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("it is {kind}")));
    }
    Ok((file, meta.len()))
}

/// Reads a small input file through [`open_regular`], refused past `max` bytes before they
/// are read.
pub fn read_small(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let (file, len) = open_regular(path)?;
    if len > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is {len} bytes long, more than {max}"),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it grew past {max} bytes while being read"),
        ));
    }
    Ok(bytes)
}

/// [`write()`] of bytes held in memory.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write(path, |w| w.write_all(bytes))
}

/// What a path given to [`write()`] gets.
enum Target {
    /// A regular file written beside this path and renamed over it; `mode`: the permission bits
    /// (read, write, execute) of the file it replaces, if there is one.
    Replace { path: PathBuf, mode: Option<u32> },
    /// Written through: a character device or a FIFO with a reader, opened.
    Through(File),
}

fn refused(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why.to_string())
}

/// Looks at what `path` names, following symbolic links.
fn target(path: &Path) -> io::Result<Target> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let mode = Some(permission_bits(&meta));
            if !fs::symlink_metadata(path)?.is_symlink() {
                return Ok(Target::Replace { path: path.to_path_buf(), mode });
            }
            // Replace the file the link points to, beside it; the link stays as it is. The
            // resolved path must still name that same file (a link through /proc to a deleted
            // file resolves to a name that does not).
            let real = fs::canonicalize(path)?;
            if !fs::metadata(&real).is_ok_and(|m| same_file(&m, &meta)) {
                return Err(refused(
                    "it is a link to a file that has no name to write beside (deleted?)",
                ));
            }
            Ok(Target::Replace { path: real, mode })
        }
        Ok(meta) if meta.is_dir() => Err(refused("it is a directory")),
        Ok(_) => open_through(path).map(Target::Through),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Ok(Target::Replace { path: dangling_end(path)?, mode: None })
        }
        Err(e) => Err(e),
    }
}

/// The path that will hold the file for a `path` that names nothing: `path` itself, or where the
/// chain of symbolic links starting at it ends (a link to a missing file gets that file).
fn dangling_end(path: &Path) -> io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    // Linux follows at most 40 links in a path; a longer chain here is a loop.
    for _ in 0..40 {
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_symlink() => {
                let to = fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

fn permission_bits(meta: &fs::Metadata) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777
}

fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// Opens a character device or FIFO for writing through, without creating or truncating it. The
/// open never blocks (`O_NONBLOCK`: a FIFO with no reader would otherwise hang it; it fails with
/// ENXIO instead, and so does a socket); the flag is cleared once open, so that writes wait for
/// a slow reader rather than fail.
fn open_through(path: &Path) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let file = fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENXIO) => {
                refused("nothing is reading from it (a FIFO with no reader, or a socket)")
            }
            _ => e,
        })?;
    let kind = file.metadata()?.file_type();
    if !(kind.is_char_device() || kind.is_fifo()) {
        // A block device, or the path changed under us: never write into those.
        return Err(refused("it is not a regular file, a character device or a FIFO"));
    }
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns; F_GETFL/F_SETFL change only its flags.
    let cleared = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags != -1 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) != -1
    };
    if !cleared {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// Writes a regular file at `path` atomically (see [`write()`]).
fn replace(
    path: &Path,
    mode: Option<u32>,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if path.file_name().is_none() {
        return Err(refused("it names no file"));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    remove_stale_temporaries(dir);
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        "{TEMPORARY_PREFIX}{}-{}{TEMPORARY_SUFFIX}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    #[cfg(target_os = "linux")]
    if let Some(file) = anonymous::create(dir) {
        // The lock is taken before the file has a name and held until it has its real one.
        let placed = file.and_then(|file| {
            lock(&file, false);
            let file = filled(file, mode, fill)?;
            // A new file takes its real name in one step, with no temporary to strand; a link
            // cannot replace a file, so one that exists (or has appeared) is renamed over.
            if mode.is_none() {
                match anonymous::link(&file, path) {
                    Ok(()) => return Ok(None),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
            }
            anonymous::link(&file, &tmp).map(|()| Some(file))
        });
        return match placed {
            Ok(None) => Ok(()),
            Ok(Some(_held)) => rename_or_remove(&tmp, path),
            // No /proc to link through: write it again under the name instead.
            Err(e) if e.kind() == io::ErrorKind::NotFound && !tmp.exists() && dir.is_dir() => {
                named(&tmp, path, mode, fill)
            }
            Err(e) => Err(e),
        };
    }
    named(&tmp, path, mode, fill)
}

/// `file` filled by `fill`, flushed, with permission bits `mode` where given.
fn filled(
    file: File,
    mode: Option<u32>,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<File> {
    if let Some(mode) = mode {
        file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
    }
    let mut w = BufWriter::with_capacity(1 << 20, file);
    fill(&mut w)?;
    w.into_inner().map_err(|e| e.into_error())
}

/// The fallback: written under the temporary name (locked while it has that name), then renamed.
fn named(
    tmp: &Path,
    path: &Path,
    mode: Option<u32>,
    fill: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let written = File::create_new(tmp).and_then(|f| {
        lock(&f, false);
        filled(f, mode, fill)
    });
    match written {
        Ok(_held) => rename_or_remove(tmp, path),
        Err(e) => {
            let _ = fs::remove_file(tmp);
            Err(e)
        }
    }
}

fn rename_or_remove(tmp: &Path, path: &Path) -> io::Result<()> {
    fs::rename(tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(tmp);
    })
}

/// The temporary names this module makes: `.sgtab-PID-SEQ.tmp`. Only names of this form are
/// ever removed by the sweep of [`remove_stale_temporaries`]; a user's own `.NAME.tmp123` never is.
const TEMPORARY_PREFIX: &str = ".sgtab-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// The PID in a temporary name this module makes (`.sgtab-PID-SEQ.tmp`, both decimal).
fn temporary_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMPORARY_PREFIX)?.strip_suffix(TEMPORARY_SUFFIX)?;
    let (pid, seq) = rest.split_once('-')?;
    let decimal = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (decimal(pid) && decimal(seq)).then(|| pid.parse().ok())?
}

/// Whether process `pid` is running (on this machine). Conservative: when unsure, yes.
fn running(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return true };
        // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
        if unsafe { libc::kill(pid, 0) } == 0 {
            return true;
        }
        io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Removes the temporary files in `dir` left by writers that were killed: names of sgtab's own
/// form ([`temporary_pid`]) whose PID is not running and whose lock nobody holds (a writer holds
/// one on its temporary from before it is named until it is renamed, so a writer in another PID
/// namespace sharing the directory keeps its file). Best effort: a directory that cannot be
/// listed is left as it is.
fn remove_stale_temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else { return removed };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_pid) else { continue };
        if pid == std::process::id()
            || running(pid)
            || !entry.file_type().is_ok_and(|t| t.is_file())
        {
            continue;
        }
        let path = entry.path();
        if remove_if_unlocked(&path) {
            removed.push(path);
        }
    }
    removed
}

/// Removes the regular file at `path` unless another process holds its lock; true if removed.
/// Where the file system has no locks, the PID's absence (checked by the caller) decides.
fn remove_if_unlocked(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let Ok(file) = opened else { return false };
    // Held while the file is removed, so a writer cannot take it in between.
    if !lock(&file, true) {
        return false;
    }
    // The name must still be the file that was locked (not renamed over meanwhile).
    let same = file
        .metadata()
        .ok()
        .zip(fs::symlink_metadata(path).ok())
        .is_some_and(|(a, b)| a.is_file() && same_file(&a, &b));
    same && fs::remove_file(path).is_ok()
}

/// Takes an exclusive `flock` on `file`. `probe`: without waiting, and true unless another
/// process holds it (also true where the file system has no locks); otherwise waits, and a file
/// system without locks is not an error (the writer's PID still marks the file as live).
fn lock(file: &File, probe: bool) -> bool {
    use std::os::fd::AsRawFd;
    let how = if probe { libc::LOCK_EX | libc::LOCK_NB } else { libc::LOCK_EX };
    // SAFETY: flock on a descriptor `file` owns; the lock goes with it when it is closed.
    if unsafe { libc::flock(file.as_raw_fd(), how) } == 0 {
        return true;
    }
    io::Error::last_os_error().raw_os_error() != Some(libc::EWOULDBLOCK)
}

/// Anonymous files (`O_TMPFILE`) and linking them into a directory.
#[cfg(target_os = "linux")]
mod anonymous {
    use std::ffi::CString;
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    use std::path::Path;

    /// An unnamed file in `dir`; `None` where the file system (or kernel) has no `O_TMPFILE`,
    /// `Some(Err)` for any other failure (such as a missing directory or no permission).
    pub fn create(dir: &Path) -> Option<io::Result<File>> {
        match OpenOptions::new().write(true).mode(0o666).custom_flags(libc::O_TMPFILE).open(dir) {
            Ok(file) => Some(Ok(file)),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL | libc::ENOENT)
                ) && dir.is_dir() =>
            {
                None
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// Gives the anonymous `file` the name `to` (which must not exist).
    pub fn link(file: &File, to: &Path) -> io::Result<()> {
        let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).expect("no NUL");
        let to = CString::new(to.as_os_str().as_bytes()).map_err(io::Error::other)?;
        // SAFETY: both are valid NUL-terminated paths; AT_SYMLINK_FOLLOW resolves the /proc link
        // to the open file itself, the documented way to link an O_TMPFILE file unprivileged.
        let r = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
    }
}

/// Whether descriptor 1 was closed when the process started (`sgtab … >&-`). Rust's runtime
/// opens /dev/null on a closed standard descriptor before `main`, so every write would then
/// succeed and the output vanish; this looks before the runtime does, from an ELF initialiser
/// (they run before the runtime's start-up code, which runs inside the C `main`). Always false
/// off Linux.
pub fn stdout_was_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static CHECK_STDOUT: extern "C" fn() = {
    extern "C" fn check() {
        // SAFETY: F_GETFD only asks whether descriptor 1 is open; it changes nothing.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    }
    check
};

#[cfg(test)]
mod tests;
