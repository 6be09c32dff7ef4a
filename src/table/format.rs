//! The `.sgt` file format, version 2. All integers little-endian.
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8 | magic `89 53 47 54 0D 0A 1A 0A` (`\x89SGT\r\n\x1a\n`) |
//! | 8  | 2 | format version (2; 1 is read too) |
//! | 10 | 2 | header length H: offset of the payload (64 + spec length, rounded up to 8) |
//! | 12 | 1 | bits per value b (1..=32): the fewest that hold the largest value |
//! | 13 | 1 | rule kind: 0 none, 1 period with saltus |
//! | 14 | 2 | spec length L |
//! | 16 | 8 | entry count N |
//! | 24 | 8 | rule: pre-period |
//! | 32 | 8 | rule: period |
//! | 40 | 8 | rule: saltus |
//! | 48 | 8 | rule: checked (the rule was verified for n + period < checked) |
//! | 56 | 1 | rule: proven (0 or 1) |
//! | 57 | 7 | zero |
//! | 64 | L | the game spec, canonical text (UTF-8), then zeros up to H |
//! | H  | ⌈N·b/8⌉ | values bit-packed, value i in bits [i·b, (i+1)·b) LSB first; unused bits zero |
//! | end−4 | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! With no rule, the rule fields (bytes 24..57) are zero. Reading checks every field against the
//! others and says which check failed: the spec must be canonical and name N entries, the file
//! must be exactly as long as H, N and b say, and all of that is settled (from the header and the
//! file's length alone) before memory is taken for the values, so a forged header cannot make a
//! reader allocate more than the file holds. Then the checksum, and a stored rule is checked
//! against the stored values (g(n + p) = g(n) + s over the range it claims, in linear time).
//!
//! Version 2 is version 1 with the rule chosen as [`crate::table::find_rule`] chooses it (the
//! earliest start, then the smallest period; proven by the theorems as they stand). A version 1
//! file was written by a finder that took the smallest period, and by a proof that took n0 = pre
//! where it must be max(pre, 1): its values are read as they are and its rule is found again.

use super::packed::Packed;
use super::rule::Rule;
use super::Table;
use crate::spec::GameSpec;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub const MAGIC: [u8; 8] = *b"\x89SGT\r\n\x1a\n";
pub const VERSION: u16 = 2;
/// The oldest version read: its rule is found again from its values.
pub const OLDEST: u16 = 1;
const FIXED: usize = 64;

fn header(table: &Table) -> Vec<u8> {
    let spec = table.spec.to_string();
    let h = (FIXED + spec.len()).next_multiple_of(8);
    let mut out = Vec::with_capacity(h);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(h as u16).to_le_bytes());
    out.push(table.values.bits() as u8);
    out.push(table.rule.is_some() as u8);
    out.extend_from_slice(&(spec.len() as u16).to_le_bytes());
    out.extend_from_slice(&table.values.len().to_le_bytes());
    let r = table.rule.unwrap_or(Rule { pre: 0, period: 0, saltus: 0, checked: 0, proven: false });
    for f in [r.pre, r.period, r.saltus, r.checked] {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.push(r.proven as u8);
    out.resize(FIXED, 0);
    out.extend_from_slice(spec.as_bytes());
    out.resize(h, 0);
    out
}

/// The whole file as bytes (for small tables and tests; `write` streams instead).
pub fn encode(table: &Table) -> Vec<u8> {
    let mut out = header(table);
    out.extend_from_slice(table.values.payload());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Writes `table` to `path` atomically, so that a failed write (a full disk, a killed process)
/// never leaves a half-written table there, nor a temporary file beside it:
///
/// - On Linux the file is first an anonymous one (`O_TMPFILE` in the target directory): a
///   build killed while writing leaves nothing behind. Once complete it gets a short temporary
///   name (`linkat`) and is renamed over `path`.
/// - Where the file system has no `O_TMPFILE`, it is written under that temporary name directly,
///   removed on error.
///
/// The temporary name is `.sgtab-PID-SEQ.tmp`: under 40 bytes whatever `path` is, so it fits
/// wherever a table's own name does. A kill -9 can still strand one (between the link and the
/// rename, or anywhere on the fallback path); every write first removes those whose PID is no
/// longer running. There is no fsync: it would cost more than building chess:20, and a table torn
/// by a power cut fails its checksum when read.
pub fn write(table: &Table, path: &Path) -> io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    remove_stale_temporaries(dir);
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(".sgtab-{}-{}.tmp", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed)));
    #[cfg(target_os = "linux")]
    if let Some(file) = anonymous::create(dir) {
        let placed = fill(file?, table).and_then(|file| anonymous::link(&file, &tmp));
        return match placed {
            Ok(()) => rename_or_remove(&tmp, path),
            // No /proc to link through: write it again under the name instead.
            Err(e) if e.kind() == io::ErrorKind::NotFound && !tmp.exists() && dir.is_dir() => named(table, &tmp, path),
            Err(e) => Err(e),
        };
    }
    named(table, &tmp, path)
}

/// The whole file into `file`, which is returned flushed.
fn fill(file: File, table: &Table) -> io::Result<File> {
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut crc = crc32fast::Hasher::new();
    for part in [&header(table)[..], table.values.payload()] {
        crc.update(part);
        w.write_all(part)?;
    }
    w.write_all(&crc.finalize().to_le_bytes())?;
    w.into_inner().map_err(|e| e.into_error())
}

/// The fallback: written under the temporary name, then renamed.
fn named(table: &Table, tmp: &Path, path: &Path) -> io::Result<()> {
    let written = File::create_new(tmp).and_then(|f| fill(f, table));
    if let Err(e) = written {
        let _ = std::fs::remove_file(tmp);
        return Err(e);
    }
    rename_or_remove(tmp, path)
}

fn rename_or_remove(tmp: &Path, path: &Path) -> io::Result<()> {
    std::fs::rename(tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(tmp);
    })
}

/// The PID in a temporary name this module makes (`.sgtab-PID-SEQ.tmp`), or an older version
/// made (`.NAME.sgt.tmpPID`).
fn temporary_pid(name: &str) -> Option<u32> {
    let digits = if let Some(rest) = name.strip_prefix(".sgtab-").and_then(|r| r.strip_suffix(".tmp")) {
        let (pid, seq) = rest.split_once('-')?;
        (!seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit())).then_some(pid)?
    } else {
        let at = name.rfind(".sgt.tmp").filter(|_| name.starts_with('.'))?;
        &name[at + 8..]
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
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

/// Removes the temporary files in `dir` left by builds that were killed (their PID is gone).
/// Best effort: a directory that cannot be listed is left as it is.
fn remove_stale_temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_pid) else { continue };
        if pid != std::process::id() && !running(pid) && entry.file_type().is_ok_and(|t| t.is_file()) {
            let path = entry.path();
            if std::fs::remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed
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
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL | libc::ENOENT)) && dir.is_dir() => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// Gives the anonymous `file` the name `to` (which must not exist).
    pub fn link(file: &File, to: &Path) -> io::Result<()> {
        let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).expect("no NUL");
        let to = CString::new(to.as_os_str().as_bytes()).map_err(io::Error::other)?;
        // SAFETY: both are valid NUL-terminated paths; AT_SYMLINK_FOLLOW resolves the /proc link
        // to the open file itself, the documented way to link an O_TMPFILE file unprivileged.
        let r = unsafe { libc::linkat(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::AT_SYMLINK_FOLLOW) };
        if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
    }
}

/// Why a file is not a table we can use.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// The file is damaged or not a table; the text says which check failed.
    Bad(String),
    /// A sound header names another game than the one asked for (see [`read_expecting`]); its
    /// values were not read.
    OtherGame(GameSpec),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Bad(why) => f.write_str(why),
            ReadError::OtherGame(spec) => write!(f, "it holds {spec}"),
        }
    }
}

fn bad<T>(why: impl Into<String>) -> Result<T, ReadError> {
    Err(ReadError::Bad(why.into()))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Reads and checks a table from any reader holding exactly one file's bytes (`file_len` of
/// them). Memory taken is bounded by `file_len`, and only once the header agrees with it.
pub fn read_from(r: impl Read, file_len: u64) -> Result<Table, ReadError> {
    read_checked(r, file_len, None)
}

fn read_checked(mut r: impl Read, file_len: u64, want: Option<&GameSpec>) -> Result<Table, ReadError> {
    let short = |what: &str| ReadError::Bad(format!("file is truncated: it ends inside the {what}"));
    let io = |e: io::Error, what: &str| {
        if e.kind() == io::ErrorKind::UnexpectedEof { short(what) } else { ReadError::Io(e) }
    };
    let mut crc = crc32fast::Hasher::new();
    let mut fixed = [0u8; FIXED];
    let mut got = 0;
    while got < 8 {
        match r.read(&mut fixed[got..8]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
    }
    if fixed[..8] != MAGIC {
        return bad("not an sgtab table (wrong magic number)");
    }
    r.read_exact(&mut fixed[8..]).map_err(|e| io(e, "header"))?;
    crc.update(&fixed);
    let version = u16_at(&fixed, 8);
    if !(OLDEST..=VERSION).contains(&version) {
        return bad(format!("table format version {version} is not supported (this sgtab reads versions {OLDEST} to {VERSION})"));
    }
    let h = u16_at(&fixed, 10) as usize;
    let bits = fixed[12] as u32;
    let rule_kind = fixed[13];
    let spec_len = u16_at(&fixed, 14) as usize;
    let count = u64_at(&fixed, 16);
    if h != (FIXED + spec_len).next_multiple_of(8) {
        return bad(format!("damaged header: header length {h} does not match spec length {spec_len}"));
    }
    if !(1..=32).contains(&bits) {
        return bad(format!("damaged header: {bits} bits per value is outside 1 to 32"));
    }
    if rule_kind > 1 {
        return bad(format!("damaged header: unknown rule kind {rule_kind}"));
    }
    if fixed[56] > 1 || fixed[57..].iter().any(|&b| b != 0) {
        return bad("damaged header: unknown flags (bytes 56..64)");
    }
    if rule_kind == 0 && fixed[24..57].iter().any(|&b| b != 0) {
        return bad("damaged header: no rule is stored, but the rule fields (bytes 24..57) are not zero");
    }
    // count · bits cannot overflow in 128 bits; a payload past u64 cannot match any file.
    let payload = u64::try_from((count as u128 * bits as u128).div_ceil(8)).ok();
    let expect = payload.and_then(|p| (h as u64).checked_add(p)).and_then(|n| n.checked_add(4));
    if expect != Some(file_len) {
        return if expect.is_some_and(|e| file_len < e) {
            bad(format!("file is truncated (or its header damaged): the header says {} bytes, the file has {file_len}", expect.unwrap()))
        } else {
            bad(format!("damaged header or trailing data: the header implies {} bytes, the file has {file_len}",
                expect.map_or("more than 2^64".to_string(), |e| e.to_string())))
        };
    }
    let payload = payload.unwrap();
    // The spec is read and checked before anything is allocated for the values: a header that
    // claims more entries than its game has is refused here, whatever the file's length.
    let mut spec_bytes = vec![0u8; h - FIXED];
    r.read_exact(&mut spec_bytes).map_err(|e| io(e, "header"))?;
    crc.update(&spec_bytes);
    let text = std::str::from_utf8(&spec_bytes[..spec_len])
        .map_err(|_| ReadError::Bad("damaged header: the game spec is not UTF-8".into()))?;
    // At most 48 characters of a spec that may be 4 KiB of anything.
    let shown = || {
        let cut: String = text.chars().take(48).collect();
        format!("`{}`{}", cut.escape_debug(), if cut.len() < text.len() { "…" } else { "" })
    };
    let spec = GameSpec::parse(text)
        .map_err(|_| ReadError::Bad(format!("damaged header: the game spec {} is not one this sgtab reads", shown())))?;
    if spec.to_string() != text || spec_bytes[spec_len..].iter().any(|&b| b != 0) {
        return bad(format!("damaged header: the game spec {} is not in canonical form", shown()));
    }
    if spec.len() != count {
        return bad(format!("damaged header: {spec} has {} entries, the header says {count}", spec.len()));
    }
    if want.is_some_and(|w| *w != spec) {
        return Err(ReadError::OtherGame(spec));
    }
    let too_big = || {
        ReadError::Io(io::Error::new(io::ErrorKind::OutOfMemory, format!("its {payload} bytes of values do not fit in memory here")))
    };
    let want_bytes = usize::try_from(payload).ok().and_then(|p| p.checked_add(8)).ok_or_else(too_big)?;
    let mut values = Vec::new();
    values.try_reserve_exact(want_bytes).map_err(|_| too_big())?;
    r.by_ref().take(payload).read_to_end(&mut values).map_err(ReadError::Io)?;
    if (values.len() as u64) < payload {
        return Err(short("values"));
    }
    crc.update(&values);
    let mut stored = [0u8; 4];
    r.read_exact(&mut stored).map_err(|e| io(e, "checksum"))?;
    if crc.finalize() != u32::from_le_bytes(stored) {
        return bad("checksum mismatch: the file is damaged");
    }
    // The checksum matched, so what follows is what the writer wrote; still check it agrees.
    let values = Packed::from_payload(bits, count, values).map_err(|e| ReadError::Bad(format!("damaged values: {e}")))?;
    let rule = (rule_kind == 1).then(|| Rule {
        pre: u64_at(&fixed, 24),
        period: u64_at(&fixed, 32),
        saltus: u64_at(&fixed, 40),
        checked: u64_at(&fixed, 48),
        proven: fixed[56] == 1,
    });
    if let Some(rule) = rule {
        if !spec.has_rule() {
            return bad(format!("damaged header: a rule is stored, but {spec} has none (its index is not a heap)"));
        }
        check_rule(&rule, count, |i| values.get(i) as u64)
            .map_err(|why| ReadError::Bad(format!("the stored rule contradicts the stored values: {why}")))?;
        if version < VERSION {
            // An older writer chose this rule by an older finder and proof: find it again.
        } else if rule.proven && spec.theorem(&rule).is_none_or(|t| rule.checked < t.needs) {
            return bad(format!("damaged header: the stored rule is marked proven, but no theorem proves it for {spec}"));
        }
    }
    let rule = if version < VERSION { super::find_rule(&spec, &values) } else { rule };
    Ok(Table { spec, values, rule })
}

/// Checks a rule read from a file against the table's `len` values: 1 ≤ period,
/// pre + period < checked ≤ len, and g(n + period) = g(n) + saltus for every n in
/// [pre, checked − period), in one linear pass with checked arithmetic (a saltus whose addition
/// wraps is a mismatch, not a pass). With values below 2^32 this bounds the saltus below 2^32,
/// so applying the rule to any n below 2^32 cannot overflow 64 bits. Says what failed.
pub fn check_rule(rule: &Rule, len: u64, get: impl Fn(u64) -> u64) -> Result<(), String> {
    let Rule { pre, period, saltus, checked, .. } = *rule;
    if period == 0 {
        return Err("its period is 0".into());
    }
    if checked > len {
        return Err(format!("it claims to be checked up to {checked}, past the table's {len} entries"));
    }
    if pre.checked_add(period).is_none_or(|e| e >= checked) {
        return Err(format!("pre-period {pre} plus period {period} leaves nothing checked below {checked}"));
    }
    for n in pre..checked - period {
        let (a, b) = (get(n), get(n + period));
        if a.checked_add(saltus) != Some(b) {
            return Err(format!("g({}) = {b} is not g({n}) + {saltus} = {a} + {saltus}", n + period));
        }
    }
    Ok(())
}

/// Opens `path` for reading, refusing anything but a regular file. The open itself never
/// blocks (`O_NONBLOCK`: a FIFO with no writer would otherwise hang the open, and its reads).
fn open_regular(path: &Path) -> Result<(File, u64), ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file (a FIFO, socket or device)" };
        return Err(ReadError::Io(io::Error::new(io::ErrorKind::InvalidInput, format!("it is {kind}, not a table file"))));
    }
    Ok((file, meta.len()))
}

/// The format version a table file says it has (its first ten bytes), for `sgtab show`;
/// `None` where the file does not start as a table.
pub fn version_of(path: &Path) -> Option<u16> {
    let (mut file, _) = open_regular(path).ok()?;
    let mut head = [0u8; 10];
    file.read_exact(&mut head).ok()?;
    (head[..8] == MAGIC).then(|| u16_at(&head, 8))
}

/// Reads and checks the table in `path`.
pub fn read(path: &Path) -> Result<Table, ReadError> {
    let (file, len) = open_regular(path)?;
    read_checked(io::BufReader::with_capacity(1 << 16, file), len, None)
}

/// Reads and checks the table in `path`, which must hold `want`: a sound header naming another
/// game gives [`ReadError::OtherGame`] before any value is read.
pub fn read_expecting(path: &Path, want: &GameSpec) -> Result<Table, ReadError> {
    let (file, len) = open_regular(path)?;
    read_checked(io::BufReader::with_capacity(1 << 16, file), len, Some(want))
}

/// Decodes a whole file held in memory.
pub fn decode(bytes: &[u8]) -> Result<Table, ReadError> {
    read_from(bytes, bytes.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table::new(GameSpec::parse("lasker:40").unwrap(), Packed::from_values(&(0..40u32).collect::<Vec<_>>()))
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sgtab-format-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn temporary_names_are_recognised() {
        assert_eq!(temporary_pid(".sgtab-123-0.tmp"), Some(123));
        assert_eq!(temporary_pid(".sgtab-123-45.tmp"), Some(123));
        assert_eq!(temporary_pid(".chess-20.sgt.tmp4567"), Some(4567));
        for other in ["chess-20.sgt", ".sgtab-x-0.tmp", ".sgtab-1-.tmp", ".sgtab--1.tmp", "sgtab-1-1.tmp", ".a.sgt.tmp", ".a.sgt.tmp12x", ".sgtab-1-2.tmp.sgt"] {
            assert_eq!(temporary_pid(other), None, "{other}");
        }
    }

    #[test]
    fn the_named_fallback_writes_the_same_bytes_and_leaves_nothing() {
        let dir = scratch("named");
        let (a, b) = (dir.join("a.sgt"), dir.join("b.sgt"));
        write(&table(), &a).unwrap();
        named(&table(), &dir.join(".sgtab-1-1.tmp"), &b).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), encode(&table()));
        assert_eq!(std::fs::read(&b).unwrap(), encode(&table()));
        // Over an existing file, too.
        write(&table(), &b).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["a.sgt", "b.sgt"]);
        // A write into a directory that does not exist fails, leaving nothing.
        assert!(write(&table(), &dir.join("none/c.sgt")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
