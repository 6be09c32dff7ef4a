//! A C++ game compiled once: the library of a source, its parameters, the compiler and the
//! header is cached under the user's cache directory and found again by a hash of all four.
//!
//! The compile runs in a fresh directory beside the cache's files, with the header and the
//! source written there (the source behind a `#line` that gives its own file name, so the
//! compiler's diagnostics name it); the library is renamed into place when it is complete, so
//! builds of the same game at once never see half a library, and the last rename wins with the
//! same bytes' worth of code.

use crate::games::GameError;
use crate::games::stored::Script;
use std::hash::{Hash, Hasher};
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The flags every game is compiled with. `-Wl,-z,defs`: a missing `moves` or `shape` is a
/// link error naming it, not a library that fails to load. `-fvisibility=hidden`: the game's
/// own functions are not interposable, so calls to them are direct and may be inlined (only
/// `sgtab_call` is exported). `-falign-loops=64`: each loop starts a 64-byte line, so that a
/// game's inner loop runs as fast wherever the compiler happens to place it (measured: the
/// same Lasker's Nim ran 1.4x slower at one placement than at another). `-funroll-loops`
/// ([`UNROLL`]) in the first of a game's two compiles ([`Libraries`]).
pub(super) const FLAGS: [&str; 8] = [
    "-O2",
    "-std=c++17",
    "-shared",
    "-fPIC",
    UNROLL,
    "-fvisibility=hidden",
    "-falign-loops=64",
    "-Wl,-z,defs",
];

/// Loops unrolled: a loop of options runs several to a turn of the loop, so that the bound
/// check each option pays (a plain table loop has none) shares the loop's own compare and
/// branch: Grundy's game ran 16% faster so on an Intel Xeon, 10 to 20% on an AMD EPYC. But a
/// short search loop that leaves by `break` (the chess row's "first empty cell to the right")
/// is unrolled behind a dispatch on its count, and the row ran 6% slower so on the Xeon. No
/// compiler setting served both, so a game is compiled both ways and the faster kept as it
/// runs (`super::Pick`).
pub(super) const UNROLL: &str = "-funroll-loops";

/// The flags of one of the two compiles.
fn flags(unrolled: bool) -> impl Iterator<Item = &'static str> {
    FLAGS.into_iter().filter(move |&f| unrolled || f != UNROLL)
}

/// A game's two libraries: its loops unrolled, and not (where that compile succeeded).
pub(super) struct Libraries {
    pub unrolled: PathBuf,
    pub rolled: Option<PathBuf>,
}

/// The compiler: `$CXX`, else `c++`.
fn compiler() -> String {
    std::env::var("CXX").ok().filter(|c| !c.trim().is_empty()).unwrap_or_else(|| "c++".into())
}

/// `$XDG_CACHE_HOME/sgtab`, else `~/.cache/sgtab`.
pub fn cache_dir() -> Result<PathBuf, String> {
    let base = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let base = base.or_else(|| {
        std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".cache"))
    });
    base.map(|b| b.join("sgtab"))
        .ok_or_else(|| "no cache directory for compiled games: set XDG_CACHE_HOME or HOME".into())
}

/// The `-D` flags of the parameters: `-DN=40`, `-DS={2,5,7}`.
pub(super) fn defines(script: &Script) -> Vec<String> {
    script.params.iter().map(|(k, v)| format!("-D{k}={v}")).collect()
}

/// The compiled libraries of `script`, compiled now (both at once) where the cache has none;
/// with `dynamic_tls`, their thread-local state allocated on demand (`SGTAB_DYNAMIC_TLS`, for a
/// process whose loader has no room left for initial-exec thread-locals).
pub(super) fn library(script: &Script, dynamic_tls: bool) -> Result<Libraries, GameError> {
    let fail = |why: String| GameError(format!("{}: {why}", script.canonical()));
    let cxx = compiler();
    let compiler = match identity(&cxx) {
        Some(found) => found.into_bytes(),
        None => version(&cxx).map_err(fail)?,
    };
    let mut h = std::hash::DefaultHasher::new();
    (&script.text, defines(script), &cxx, &compiler, super::HEADER, FLAGS, dynamic_tls)
        .hash(&mut h);
    let key = format!("{:016x}{:08x}", h.finish(), crc32fast::hash(script.text.as_bytes()));
    let dir = cache_dir().map_err(&fail)?.join("native");
    std::fs::create_dir_all(&dir)
        .map_err(|e| fail(format!("cannot make the cache directory {}: {e}", dir.display())))?;
    let unrolled = dir.join(format!("{}-{key}.so", script.name));
    let rolled = dir.join(format!("{}-{key}-rolled.so", script.name));
    let missing: Vec<(bool, &Path)> = [(true, unrolled.as_path()), (false, rolled.as_path())]
        .into_iter()
        .filter(|(_, lib)| !lib.is_file())
        .collect();
    if !missing.is_empty() {
        compile(script, &cxx, &dir, &missing, dynamic_tls).map_err(fail)?;
    }
    let rolled = rolled.is_file().then_some(rolled);
    Ok(Libraries { unrolled, rolled })
}

/// The compiler's identity in the cache key, found without starting it: the file `cxx` runs
/// (looked up on PATH, links followed), its size and its modification time, so that another or
/// an upgraded compiler compiles again. `None` where it is not found this way.
fn identity(cxx: &str) -> Option<String> {
    let path = if cxx.contains('/') {
        PathBuf::from(cxx)
    } else {
        // As the system looks it up: the first executable file of that name.
        std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(cxx)).find(|p| {
            p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })?
    };
    let real = std::fs::canonicalize(path).ok()?;
    let meta = real.metadata().ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(format!("{} {} {}", real.display(), meta.len(), modified.as_nanos()))
}

/// The compiler's `--version`, its identity where [`identity`] finds none; fails with what to
/// do where it does not run.
fn version(cxx: &str) -> Result<Vec<u8>, String> {
    match Command::new(cxx).arg("--version").stdin(Stdio::null()).stderr(Stdio::null()).output() {
        Ok(out) if out.status.success() => Ok(out.stdout),
        Ok(out) => Err(format!(
            "the C++ compiler `{cxx}` does not answer --version ({}); set CXX to a C++ \
                compiler",
            out.status
        )),
        Err(e) if e.kind() == ErrorKind::NotFound => Err(format!(
            "no C++ compiler: `{cxx}` is not installed; install one (apt-get install g++) or \
                set CXX to a compiler"
        )),
        Err(e) => Err(format!("cannot run the C++ compiler `{cxx}`: {e}; set CXX to a compiler")),
    }
}

/// Compiles `script` with `cxx` in a fresh directory under `dir`, each of `libs` (unrolled or
/// not, and where it goes) at once, then renames each library into place. The unrolled
/// compile's diagnostics go to stderr as the compiler writes them, and its failure is the
/// game's; the rolled one's go nowhere (the same source: the same diagnostics), and where it
/// fails, its library is left out (a choice, not a need: even where it is the only compile).
fn compile(
    script: &Script,
    cxx: &str,
    dir: &Path,
    libs: &[(bool, &Path)],
    dynamic_tls: bool,
) -> Result<(), String> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let work = dir.join(format!(".build-{}-{}", std::process::id(), SEQ.fetch_add(1, Relaxed)));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir(&work).map_err(|e| format!("cannot make {}: {e}", work.display()))?;
    let cleanup = Cleanup(&work);
    let file = script.file();
    let source = work.join(&file);
    let text = format!("#line 1 \"{file}\"\n{}", script.text);
    std::fs::write(work.join("sgtab.h"), super::HEADER)
        .and_then(|_| std::fs::write(&source, text))
        .map_err(|e| format!("cannot write into {}: {e}", work.display()))?;
    let cannot_run = |e: std::io::Error| format!("cannot run the C++ compiler `{cxx}`: {e}");
    let mut running = Vec::new();
    for &(unrolled, lib) in libs {
        let out = work.join(if unrolled { "game.so" } else { "game-rolled.so" });
        let child = Command::new(cxx)
            .args(flags(unrolled))
            .arg("-I")
            .arg(&work)
            .args(defines(script))
            .args(dynamic_tls.then_some("-DSGTAB_DYNAMIC_TLS"))
            .arg("-o")
            .arg(&out)
            .arg(&source)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(if unrolled { Stdio::inherit() } else { Stdio::null() })
            .spawn();
        match child {
            Ok(child) => running.push((child, out, lib, unrolled)),
            Err(e) if unrolled => return Err(cannot_run(e)),
            Err(_) => {}
        }
    }
    // Every compile is waited for (none is left running), the unrolled one's failure reported.
    let finished: Vec<_> = running
        .into_iter()
        .map(|(mut child, out, lib, unrolled)| (child.wait(), out, lib, unrolled))
        .collect();
    for (status, out, lib, unrolled) in finished {
        match status {
            Ok(status) if status.success() => std::fs::rename(&out, lib).map_err(|e| {
                format!("cannot move the compiled library to {}: {e}", lib.display())
            })?,
            Ok(status) if unrolled => {
                return Err(format!(
                    "{file} did not compile ({cxx} {status}; its diagnostics are above)"
                ));
            }
            Err(e) if unrolled => return Err(cannot_run(e)),
            _ => {}
        }
    }
    drop(cleanup);
    Ok(())
}

/// Removes a compile's directory however the compile ends.
struct Cleanup<'a>(&'a Path);

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0);
    }
}
