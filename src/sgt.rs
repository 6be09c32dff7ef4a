//! The `.sgt` file format, version 3: its bytes. All integers little-endian.
//!
//! This layer knows values, rules and shapes, not games: a reader shows what a header claims
//! ([`Header`]) to its caller, which admits or refuses the game before any value is read
//! (`crate::table::format` does, with the games), and gets the values, the rule (checked
//! against the values) and the game block back ([`Sgt`]).
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8 | magic `89 53 47 54 0D 0A 1A 0A` (`\x89SGT\r\n\x1a\n`) |
//! | 8  | 2 | format version (3; 1 and 2 are read too) |
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
//! | 57 | 1 | game block kind G: 0 none (a family's game), 1 a script's, 2 an imported table's |
//! | 58 | 2 | zero |
//! | 60 | 4 | game block length E (0 when G is 0) |
//! | 64 | L | the game spec, canonical text (UTF-8), then zeros up to H |
//! | H  | ⌈N·b/8⌉ | values bit-packed, value i in bits [i·b, (i+1)·b) LSB first; unused bits zero |
//! | H + ⌈N·b/8⌉ | E | the game block (below) |
//! | end−4 | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! The game block carries what a game that is not one of sgtab's families needs to be read
//! back without running anything (`crate::games::stored`): a byte k (1 to 8 axes), seven zero
//! bytes, the k sizes of its shape as 8-byte integers (their product is N), then for a script
//! its whole text (UTF-8; the spec's hash is checked against it).
//!
//! With no rule, the rule fields (bytes 24..57) are zero. Reading checks every field against the
//! others and says which check failed: the spec must be canonical and name N entries, the file
//! must be exactly as long as H, N and b say, and all of that is settled (from the header and the
//! file's length alone) before memory is taken for the values, so a forged header cannot make a
//! reader allocate more than the file holds. Then the checksum, and a stored rule is checked
//! against the stored values (g(n + p) = g(n) + s over the range it claims, in linear time).
//!
//! Version 3 is version 2 with the game block (bytes 57..64 were zero). Version 2 is version 1
//! with the rule chosen as `crate::table::find_rule` chooses it (the
//! earliest start, then the smallest period; proven by the theorems as they stand). A version 1
//! file was written by a finder that took the smallest period, and by a proof that took n0 = pre
//! where it must be max(pre, 1): its values are read as they are and its rule is found again.

use crate::values::{Dims, MAX_AXES, MAX_LEN, Packed, Rule};
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

pub const MAGIC: [u8; 8] = *b"\x89SGT\r\n\x1a\n";
pub const VERSION: u16 = 3;
/// The first version whose rule is chosen as today's finder chooses it.
pub const RULES_AS_TODAY: u16 = 2;
/// Longest source text (a script's) a game block carries, in bytes.
pub const MAX_SOURCE: usize = 1 << 20;

/// What a game that is not one of sgtab's families carries in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// A script's game: its shape and its text.
    Script = 1,
    /// Values imported from another program: their shape.
    Imported = 2,
}

impl BlockKind {
    fn from_byte(b: u8) -> Option<BlockKind> {
        match b {
            1 => Some(BlockKind::Script),
            2 => Some(BlockKind::Imported),
            _ => None,
        }
    }
}

/// The game block of a table: the shape of its positions and, for a script, its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameBlock {
    pub kind: BlockKind,
    pub dims: Dims,
    pub source: Option<String>,
    /// For a C++ source, the version of sgtab's header it was compiled against (0 otherwise).
    pub header: u32,
}

/// A table as its file holds it: the game's canonical text, its game block where it has one,
/// the values and the rule. The values are borrowed from a table being written (a table of
/// hundreds of MB is not copied to be written) and owned by one read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sgt<'a> {
    /// The version the file was written in (a reader finds an older file's rule again).
    pub version: u16,
    pub spec: String,
    pub block: Option<GameBlock>,
    pub values: Cow<'a, Packed>,
    pub rule: Option<Rule>,
}

/// What a header claims, shown to the reader's caller before any value is read.
pub struct Header<'a> {
    pub version: u16,
    /// The game's canonical text.
    pub spec: &'a str,
    /// Entries the values hold.
    pub count: u64,
    /// The kind of the game block, where there is one.
    pub block: Option<BlockKind>,
    /// The stored rule (checked against the values once they are read).
    pub rule: Option<Rule>,
}
/// The oldest version read: its rule is found again from its values.
pub const OLDEST: u16 = 1;
const FIXED: usize = 64;

/// The game block's bytes (none for a family's game) and its kind byte.
fn block_bytes(block: Option<&GameBlock>) -> (u8, Vec<u8>) {
    let Some(block) = block else { return (0, Vec::new()) };
    let mut bytes = vec![block.dims.axes() as u8, 0, 0, 0];
    bytes.extend_from_slice(&block.header.to_le_bytes());
    for &d in block.dims.sizes() {
        bytes.extend_from_slice(&d.to_le_bytes());
    }
    if let Some(text) = &block.source {
        bytes.extend_from_slice(text.as_bytes());
    }
    (block.kind as u8, bytes)
}

fn header(table: &Sgt<'_>, (kind, block): &(u8, Vec<u8>)) -> Vec<u8> {
    let spec = &table.spec;
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
    out.push(*kind);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(block.len() as u32).to_le_bytes());
    out.extend_from_slice(spec.as_bytes());
    out.resize(h, 0);
    out
}

/// The whole file as bytes (for small tables and tests; `write` streams instead).
pub fn encode(table: &Sgt<'_>) -> Vec<u8> {
    let block = block_bytes(table.block.as_ref());
    let mut out = header(table, &block);
    out.extend_from_slice(table.values.payload());
    out.extend_from_slice(&block.1);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Writes `table` to `path` atomically, so that a failed write (a full disk, a killed process)
/// never leaves a half-written table there, nor a temporary file beside it; see
/// [`crate::output::write`], which every file sgtab writes goes through.
pub fn write(table: &Sgt<'_>, path: &Path) -> io::Result<()> {
    crate::output::write(path, |w| {
        let mut crc = crc32fast::Hasher::new();
        let block = block_bytes(table.block.as_ref());
        for part in [&header(table, &block)[..], table.values.payload(), &block.1] {
            crc.update(part);
            w.write_all(part)?;
        }
        w.write_all(&crc.finalize().to_le_bytes())
    })
}

/// Why a file is not a table we can use.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// The file is damaged or not a table; the text says which check failed.
    Bad(String),
    /// A sound header names another game (its canonical text) than the one asked for (see
    /// `read_expecting`); its values were not read.
    OtherGame(String),
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

/// Most bytes a game block may have: eight axes and the longest script.
const MAX_BLOCK: u64 = 8 + 8 * MAX_AXES as u64 + MAX_SOURCE as u64;

/// A file that ends inside its `what`.
fn short(what: &str) -> ReadError {
    ReadError::Bad(format!("file is truncated: it ends inside the {what}"))
}

/// A read error: an early end is a truncated file, anything else the system's error.
fn io_err(e: io::Error, what: &str) -> ReadError {
    if e.kind() == io::ErrorKind::UnexpectedEof { short(what) } else { ReadError::Io(e) }
}

/// The fixed part of a header, checked in itself and against the file's length.
struct Fixed {
    fixed: [u8; FIXED],
    version: u16,
    /// Header length (fixed part, spec, padding).
    len: usize,
    bits: u32,
    rule_kind: u8,
    spec_len: usize,
    count: u64,
    block_kind: u8,
    block_len: u64,
    /// Bytes of packed values.
    payload: u64,
}

/// Reads the fixed part of the header into `crc` and checks every field that can be checked
/// before the spec is read, the file's length among them.
fn read_fixed(
    r: &mut impl Read,
    crc: &mut crc32fast::Hasher,
    file_len: u64,
) -> Result<Fixed, ReadError> {
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
    r.read_exact(&mut fixed[8..]).map_err(|e| io_err(e, "header"))?;
    crc.update(&fixed);
    let version = u16_at(&fixed, 8);
    if !(OLDEST..=VERSION).contains(&version) {
        return bad(format!(
            "table format version {version} is not supported (this sgtab reads versions {OLDEST} \
                to {VERSION})"
        ));
    }
    let (len, bits, rule_kind, spec_len, count) = (
        u16_at(&fixed, 10) as usize,
        fixed[12] as u32,
        fixed[13],
        u16_at(&fixed, 14) as usize,
        u64_at(&fixed, 16),
    );
    if len != (FIXED + spec_len).next_multiple_of(8) {
        return bad(format!(
            "damaged header: header length {len} does not match spec length {spec_len}"
        ));
    }
    if !(1..=32).contains(&bits) {
        return bad(format!("damaged header: {bits} bits per value is outside 1 to 32"));
    }
    if rule_kind > 1 {
        return bad(format!("damaged header: unknown rule kind {rule_kind}"));
    }
    let (block_kind, block_len) =
        (fixed[57], u32::from_le_bytes(fixed[60..64].try_into().unwrap()) as u64);
    if fixed[56] > 1
        || fixed[58..60].iter().any(|&b| b != 0)
        || (version < 3 && fixed[57..].iter().any(|&b| b != 0))
    {
        return bad("damaged header: unknown flags (bytes 56..64)");
    }
    if block_kind > 2 || (block_kind == 0) != (block_len == 0) || block_len > MAX_BLOCK {
        return bad(format!("damaged header: game block kind {block_kind} of {block_len} bytes"));
    }
    if rule_kind == 0 && fixed[24..57].iter().any(|&b| b != 0) {
        return bad(
            "damaged header: no rule is stored, but the rule fields (bytes 24..57) are not zero",
        );
    }
    // count · bits cannot overflow in 128 bits; a payload past u64 cannot match any file.
    let payload = u64::try_from((count as u128 * bits as u128).div_ceil(8)).ok();
    let expect = payload
        .and_then(|p| (len as u64).checked_add(p))
        .and_then(|n| n.checked_add(block_len + 4));
    match (expect, payload) {
        (Some(e), Some(payload)) if e == file_len => Ok(Fixed {
            fixed,
            version,
            len,
            bits,
            rule_kind,
            spec_len,
            count,
            block_kind,
            block_len,
            payload,
        }),
        (Some(e), _) if file_len < e => bad(format!(
            "file is truncated (or its header damaged): the header says {e} bytes, the file has \
                {file_len}"
        )),
        _ => bad(format!(
            "damaged header or trailing data: the header implies {} bytes, the file has {file_len}",
            expect.map_or("more than 2^64".to_string(), |e| e.to_string())
        )),
    }
}

/// A spec from a file as messages quote it: at most 48 characters of what may be 64 KiB of
/// anything, escaped.
pub fn quoted(text: &str) -> String {
    let cut: String = text.chars().take(48).collect();
    format!("`{}`{}", cut.escape_debug(), if cut.len() < text.len() { "…" } else { "" })
}

/// Reads and checks a table from any reader holding exactly one file's bytes (`file_len` of
/// them). `admit` sees what the header claims and refuses it, or answers with what the caller
/// needs of it, before anything is allocated for the values: a header that claims more entries
/// than its game has is refused whatever the file's length. Memory taken is bounded by
/// `file_len`, and only once the header agrees with it.
pub fn read_from<T>(
    mut r: impl Read,
    file_len: u64,
    admit: impl FnOnce(&Header) -> Result<T, ReadError>,
) -> Result<(Sgt<'static>, T), ReadError> {
    let mut crc = crc32fast::Hasher::new();
    let head = read_fixed(&mut r, &mut crc, file_len)?;
    let mut spec_bytes = vec![0u8; head.len - FIXED];
    r.read_exact(&mut spec_bytes).map_err(|e| io_err(e, "header"))?;
    crc.update(&spec_bytes);
    let text = std::str::from_utf8(&spec_bytes[..head.spec_len])
        .map_err(|_| ReadError::Bad("damaged header: the game spec is not UTF-8".into()))?;
    if spec_bytes[head.spec_len..].iter().any(|&b| b != 0) {
        return bad(format!(
            "damaged header: the game spec {} is not in canonical form",
            quoted(text)
        ));
    }
    let block_kind = BlockKind::from_byte(head.block_kind);
    if block_kind.is_some() && (head.count == 0 || head.count > MAX_LEN) {
        return bad(format!(
            "damaged header: {} entries, but a script's or an imported table has 1 to {MAX_LEN}",
            head.count
        ));
    }
    let f = &head.fixed;
    let rule = (head.rule_kind == 1).then(|| Rule {
        pre: u64_at(f, 24),
        period: u64_at(f, 32),
        saltus: u64_at(f, 40),
        checked: u64_at(f, 48),
        proven: f[56] == 1,
    });
    let admitted = admit(&Header {
        version: head.version,
        spec: text,
        count: head.count,
        block: block_kind,
        rule,
    })?;
    let values = read_bytes(&mut r, head.payload, "values")?;
    crc.update(&values);
    let block = read_bytes(&mut r, head.block_len, "game block")?;
    crc.update(&block);
    let mut stored = [0u8; 4];
    r.read_exact(&mut stored).map_err(|e| io_err(e, "checksum"))?;
    if crc.finalize() != u32::from_le_bytes(stored) {
        return bad("checksum mismatch: the file is damaged");
    }
    // The checksum matched, so what follows is what the writer wrote; still check it agrees.
    let block = block_kind.map(|kind| game_block(kind, &block, head.count)).transpose()?;
    let values = Packed::from_payload(head.bits, head.count, values)
        .map_err(|e| ReadError::Bad(format!("damaged values: {e}")))?;
    if let Some(rule) = &rule {
        check_rule(rule, head.count, |i| values.get(i) as u64).map_err(|why| {
            ReadError::Bad(format!("the stored rule contradicts the stored values: {why}"))
        })?;
    }
    let values = Cow::Owned(values);
    Ok((Sgt { version: head.version, spec: text.to_string(), block, values, rule }, admitted))
}

/// `len` bytes of what follows, allocated only once they are known to fit.
fn read_bytes(r: &mut impl Read, len: u64, what: &str) -> Result<Vec<u8>, ReadError> {
    let too_big = || {
        ReadError::Io(io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("its {len} bytes of {what} do not fit in memory here"),
        ))
    };
    let want = usize::try_from(len).ok().and_then(|p| p.checked_add(8)).ok_or_else(too_big)?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(want).map_err(|_| too_big())?;
    r.by_ref().take(len).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if (bytes.len() as u64) < len {
        return Err(short(what));
    }
    Ok(bytes)
}

/// The game block of a table: its shape (whose size must be the entry count) and, for a
/// script, its text.
fn game_block(kind: BlockKind, block: &[u8], count: u64) -> Result<GameBlock, ReadError> {
    let damaged = |why: String| ReadError::Bad(format!("damaged game block: {why}"));
    let k = block.first().copied().unwrap_or(0) as usize;
    if !(1..=MAX_AXES).contains(&k)
        || block.len() < 8 + 8 * k
        || block[1..4].iter().any(|&b| b != 0)
    {
        return Err(damaged(format!("{k} axes")));
    }
    let sizes: Vec<u64> = (0..k).map(|i| u64_at(block, 8 + 8 * i)).collect();
    let dims = Dims::new(&sizes, MAX_LEN).map_err(&damaged)?;
    if dims.len() != count {
        return Err(damaged(format!(
            "its shape {} has {} positions, the header says {count}",
            dims.text(),
            dims.len()
        )));
    }
    let rest = &block[8 + 8 * k..];
    let source = match kind {
        BlockKind::Script => Some(
            std::str::from_utf8(rest)
                .map_err(|_| damaged("the script is not UTF-8".into()))?
                .to_string(),
        ),
        BlockKind::Imported if !rest.is_empty() => {
            return Err(damaged("bytes after the shape of an imported table".into()));
        }
        BlockKind::Imported => None,
    };
    let header = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
    if header != 0 && kind != BlockKind::Script {
        return Err(damaged("a header version for a game without a source".into()));
    }
    Ok(GameBlock { kind, dims, source, header })
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
        return Err(format!(
            "it claims to be checked up to {checked}, past the table's {len} entries"
        ));
    }
    if pre.checked_add(period).is_none_or(|e| e >= checked) {
        return Err(format!(
            "pre-period {pre} plus period {period} leaves nothing checked below {checked}"
        ));
    }
    for n in pre..checked - period {
        let (a, b) = (get(n), get(n + period));
        if a.checked_add(saltus) != Some(b) {
            return Err(format!(
                "g({}) = {b} is not g({n}) + {saltus} = {a} + {saltus}",
                n + period
            ));
        }
    }
    Ok(())
}

/// Opens `path` for reading, refusing anything but a regular file. The open itself never
/// blocks (`O_NONBLOCK`: a FIFO with no writer would otherwise hang the open, and its reads).
pub fn open_regular(path: &Path) -> Result<(File, u64), ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(ReadError::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {kind}, not a table file"),
        )));
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

/// Reads and checks the table in `path`, admitted by `admit` as [`read_from`] says.
pub fn read<T>(
    path: &Path,
    admit: impl FnOnce(&Header) -> Result<T, ReadError>,
) -> Result<(Sgt<'static>, T), ReadError> {
    let (file, len) = open_regular(path)?;
    read_from(io::BufReader::with_capacity(1 << 16, file), len, admit)
}

/// What a file holds where a table is to be written, as far as its start tells.
enum Holds {
    /// Nothing is there (or a link to nothing).
    Nothing,
    /// A table whose header names this game (canonical text).
    Game(String),
    /// A table whose header is too short or damaged to name its game.
    Unknown,
    /// Not a table: why.
    Other(String),
}

/// Reads only the magic and the spec of the file at `path`: a damaged table still names its game.
fn holds(path: &Path) -> Holds {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Holds::Nothing,
        Ok(m) if m.is_dir() => return Holds::Other("it is a directory".into()),
        Ok(m) if !m.is_file() => return Holds::Other("it is a FIFO, socket or device".into()),
        _ => {}
    }
    let mut file = match open_regular(path) {
        Ok((file, _)) => file,
        Err(e) => return Holds::Other(format!("cannot read it: {e}")),
    };
    let mut fixed = Vec::with_capacity(FIXED);
    if let Err(e) = file.by_ref().take(FIXED as u64).read_to_end(&mut fixed) {
        return Holds::Other(format!("cannot read it: {e}"));
    }
    if fixed.len() < 8 || fixed[..8] != MAGIC {
        return Holds::Other("it is not an sgtab table".into());
    }
    if fixed.len() < FIXED {
        return Holds::Unknown;
    }
    let spec_len = u16_at(&fixed, 14) as u64;
    let mut spec = Vec::new();
    match file.take(spec_len).read_to_end(&mut spec) {
        Ok(n) if n as u64 == spec_len => {
            String::from_utf8(spec).map_or(Holds::Unknown, Holds::Game)
        }
        _ => Holds::Unknown,
    }
}

/// Whether the table of `spec` (canonical text) may be written at `path`: where nothing is, or
/// over a table of the same game, sound or damaged (a rebuild is how a damaged table is
/// mended). Anything else is kept, and the one-line message says what it is: a file that is not
/// an sgtab table, a table of another game (`import:chess-20` and `chess:20` share the file
/// name `chess-20.sgt`), or a table whose header is too damaged to tell which game it holds.
pub fn check_replaceable(path: &Path, spec: &str) -> Result<(), String> {
    let keep = |what: String| {
        Err(format!(
            "{} {what}, so it is kept; move it away or write into another --dir",
            path.display()
        ))
    };
    match holds(path) {
        Holds::Nothing => Ok(()),
        Holds::Game(text) if text == spec => Ok(()),
        Holds::Game(text) => keep(format!("holds the table of {}, not of {spec}", quoted(&text))),
        Holds::Unknown => {
            keep("is an sgtab table whose header is too damaged to tell its game".into())
        }
        Holds::Other(why) => keep(format!("is there and is not a table of {spec} ({why})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn table() -> Sgt<'static> {
        let values = Packed::from_values(&(0..40u32).collect::<Vec<_>>());
        let values = Cow::Owned(values);
        Sgt { version: VERSION, spec: "lasker:40".into(), block: None, values, rule: None }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sgtab-format-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn write_stores_the_encoded_bytes_and_leaves_nothing() {
        // The named fallback of the write itself is tested in `crate::output`.
        let dir = scratch("write");
        let (a, b) = (dir.join("a.sgt"), dir.join("b.sgt"));
        write(&table(), &a).unwrap();
        write(&table(), &b).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), encode(&table()));
        assert_eq!(std::fs::read(&b).unwrap(), encode(&table()));
        // Over an existing file, too.
        write(&table(), &b).unwrap();
        let mut names: Vec<_> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["a.sgt", "b.sgt"]);
        // A write into a directory that does not exist fails, leaving nothing.
        assert!(write(&table(), &dir.join("none/c.sgt")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
