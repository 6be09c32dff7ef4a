//! The `.sgt` file format, version 1. All integers little-endian.
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8 | magic `89 53 47 54 0D 0A 1A 0A` (`\x89SGT\r\n\x1a\n`) |
//! | 8  | 2 | format version (1) |
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
//! With no rule, the rule fields are zero. Reading checks every field against the others (the
//! spec must be canonical and name N entries, the file must be exactly as long as H, N and b
//! say) and the checksum, and says which check failed.

use super::packed::{payload_len, Packed};
use super::rule::Rule;
use super::Table;
use crate::spec::GameSpec;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

pub const MAGIC: [u8; 8] = *b"\x89SGT\r\n\x1a\n";
pub const VERSION: u16 = 1;
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

/// Writes `table` to `path` atomically: to a temporary file beside it, then renamed over the
/// real name, so that a failed write (a full disk, a killed process) never leaves a half-written
/// table there; the temporary file is removed on error. There is no fsync: it would cost more
/// than building chess:20, and a table torn by a power cut fails its checksum when read.
pub fn write(table: &Table, path: &Path) -> io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| io::Error::other("no file name"))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        let mut crc = crc32fast::Hasher::new();
        for part in [&header(table)[..], table.values.payload()] {
            crc.update(part);
            w.write_all(part)?;
        }
        w.write_all(&crc.finalize().to_le_bytes())?;
        w.into_inner().map_err(|e| e.into_error())?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Why a file is not a table we can use.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// The file is damaged or not a table; the text says which check failed.
    Bad(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Bad(why) => f.write_str(why),
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

/// Reads and checks a table from any reader holding exactly one file's bytes.
pub fn read_from(mut r: impl Read, file_len: u64) -> Result<Table, ReadError> {
    let short = |what: &str| ReadError::Bad(format!("file is truncated: it ends inside the {what}"));
    let io = |e: io::Error, what: &str| {
        if e.kind() == io::ErrorKind::UnexpectedEof { short(what) } else { ReadError::Io(e) }
    };
    let mut crc = crc32fast::Hasher::new();
    let mut fixed = [0u8; FIXED];
    let got = r.read(&mut fixed[..8]).map_err(ReadError::Io)?;
    if got < 8 && r.read_exact(&mut fixed[got..8]).is_err() || fixed[..8] != MAGIC {
        return bad("not an sgtab table (wrong magic number)");
    }
    r.read_exact(&mut fixed[8..]).map_err(|e| io(e, "header"))?;
    crc.update(&fixed);
    let version = u16_at(&fixed, 8);
    if version != VERSION {
        return bad(format!("table format version {version} is not supported (this sgtab reads version {VERSION}); rebuild it with `sgtab build`"));
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
        return bad(format!("damaged header: {bits} bits per value is outside 1..=32"));
    }
    if rule_kind > 1 || fixed[56] > 1 || fixed[57..].iter().any(|&b| b != 0) {
        return bad("damaged header: unknown rule kind or flags");
    }
    let payload = payload_len(count, bits);
    let expect = (h as u64).checked_add(payload).and_then(|n| n.checked_add(4));
    if expect != Some(file_len) {
        return if expect.is_some_and(|e| file_len < e) {
            bad(format!("file is truncated (or its header damaged): the header says {} bytes, the file has {file_len}", expect.unwrap()))
        } else {
            bad(format!("damaged header or trailing data: header implies {} bytes, file has {file_len}",
                expect.map_or("too many".to_string(), |e| e.to_string())))
        };
    }
    let mut spec_bytes = vec![0u8; h - FIXED];
    r.read_exact(&mut spec_bytes).map_err(|e| io(e, "header"))?;
    crc.update(&spec_bytes);
    let mut values = vec![0u8; payload as usize + 8];
    r.read_exact(&mut values[..payload as usize]).map_err(|e| io(e, "values"))?;
    crc.update(&values[..payload as usize]);
    let mut stored = [0u8; 4];
    r.read_exact(&mut stored).map_err(|e| io(e, "checksum"))?;
    if crc.finalize() != u32::from_le_bytes(stored) {
        return bad("checksum mismatch: the file is damaged; rebuild it with `sgtab build`");
    }
    // The checksum matched, so what follows is what the writer wrote; still check it agrees.
    let text = std::str::from_utf8(&spec_bytes[..spec_len])
        .map_err(|_| ReadError::Bad("damaged header: spec is not UTF-8".into()))?;
    let spec = GameSpec::parse(text).map_err(|e| ReadError::Bad(format!("damaged header: {e}")))?;
    if spec.to_string() != text || spec.len() != count || spec_bytes[spec_len..].iter().any(|&b| b != 0) {
        return bad(format!("damaged header: spec `{text}` does not match {count} entries"));
    }
    let values = Packed::from_payload(bits, count, values).map_err(|e| ReadError::Bad(format!("damaged values: {e}")))?;
    let rule = (rule_kind == 1).then(|| Rule {
        pre: u64_at(&fixed, 24),
        period: u64_at(&fixed, 32),
        saltus: u64_at(&fixed, 40),
        checked: u64_at(&fixed, 48),
        proven: fixed[56] == 1,
    });
    if let Some(r) = rule {
        if r.period == 0 || r.checked > count || r.pre.checked_add(r.period).is_none_or(|e| e > r.checked) {
            return bad("damaged header: the stored rule is inconsistent with the table");
        }
    }
    Ok(Table { spec, values, rule })
}

/// Reads and checks the table in `path`.
pub fn read(path: &Path) -> Result<Table, ReadError> {
    let file = File::open(path).map_err(ReadError::Io)?;
    let len = file.metadata().map_err(ReadError::Io)?.len();
    read_from(io::BufReader::with_capacity(1 << 16, file), len)
}

/// Decodes a whole file held in memory.
pub fn decode(bytes: &[u8]) -> Result<Table, ReadError> {
    read_from(bytes, bytes.len() as u64)
}
