//! Tables in `.sgt` files: the format's bytes ([`crate::sgt`]) with the games behind them. A
//! table is read by admitting its game from its header before any value is read (a family's
//! spec must be canonical and name as many entries as the header; a stored game's spec must be
//! of its block's kind), then its game is made from the spec or the game block, and its rule is
//! checked against the game's theorems (an older file's rule is found again).

use super::Table;
use crate::games::stored::Stored;
use crate::sgt::{self, BlockKind, GameBlock, Header, Sgt, quoted};
use crate::spec::GameSpec;
use crate::values::{Packed, Rule};
use std::io::{self, Read};
use std::path::Path;

pub use crate::sgt::{
    MAGIC, OLDEST, ReadError, VERSION, check_replaceable, check_rule, version_of,
};

/// `table` as the format holds it.
fn to_sgt(table: &Table) -> Sgt<'_> {
    let block = table.spec.stored().map(|stored| GameBlock {
        kind: if stored.script().is_some() { BlockKind::Script } else { BlockKind::Imported },
        dims: stored.dims,
        source: stored.script().map(|s| s.text.clone()),
        header: stored.script().map_or(0, |s| s.header),
    });
    Sgt {
        version: VERSION,
        spec: table.spec.to_string(),
        block,
        values: std::borrow::Cow::Borrowed(&table.values),
        rule: table.rule,
    }
}

/// The whole file as bytes (for small tables and tests; `write` streams instead).
pub fn encode(table: &Table) -> Vec<u8> {
    sgt::encode(&to_sgt(table))
}

/// Writes `table` to `path` atomically, so that a failed write (a full disk, a killed process)
/// never leaves a half-written table there, nor a temporary file beside it; see
/// [`crate::output::write`], which every file sgtab writes goes through.
pub fn write(table: &Table, path: &Path) -> io::Result<()> {
    sgt::write(&to_sgt(table), path)
}

/// Writes `table` to `path` as [`write()`] does, where [`check_replaceable`] allows it: what
/// `sgtab build` and `sgtab import` write through. The file's size in bytes, for their report;
/// the error is one line.
pub fn write_replacing(table: &Table, path: &Path) -> Result<u64, String> {
    check_replaceable(path, &table.spec.to_string())?;
    write(table, path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(std::fs::metadata(path).map_or(0, |m| m.len()))
}

fn bad<T>(why: impl Into<String>) -> Result<T, ReadError> {
    Err(ReadError::Bad(why.into()))
}

/// The game of a header, admitted before its values are read: a family's game (its spec
/// canonical, of as many entries as the header says), or `None` for a stored game whose spec is
/// of its block's kind. A header naming another game than `want` is refused.
fn admit(head: &Header, want: Option<&str>) -> Result<Option<GameSpec>, ReadError> {
    let (text, shown) = (head.spec, quoted(head.spec));
    let game = match head.block {
        None => {
            let spec = GameSpec::parse(text).map_err(|_| {
                ReadError::Bad(format!(
                    "damaged header: the game spec {shown} is not one this sgtab reads"
                ))
            })?;
            if spec.to_string() != text {
                return bad(format!(
                    "damaged header: the game spec {shown} is not in canonical form"
                ));
            }
            if spec.len() != head.count {
                return bad(format!(
                    "damaged header: {spec} has {} entries, the header says {}",
                    spec.len(),
                    head.count
                ));
            }
            if head.rule.is_some() && !spec.has_rule() {
                return bad(format!(
                    "damaged header: a rule is stored, but {spec} has none (its index is not a \
                        heap)"
                ));
            }
            Some(spec)
        }
        Some(kind) => {
            let script = text.starts_with("lua:") || text.starts_with("cpp:");
            let imported = text.starts_with("import:") || text.starts_with("native:");
            if (kind == BlockKind::Script) != script || (kind == BlockKind::Imported) != imported {
                return bad(format!(
                    "damaged header: a game block of kind {} for the spec {shown}",
                    kind as u8
                ));
            }
            None
        }
    };
    if want.is_some_and(|w| w != text) {
        return Err(ReadError::OtherGame(text.to_string()));
    }
    Ok(game)
}

/// The table of a file's contents: its game, and its rule checked against the game's theorems.
fn table_of(sgt: Sgt<'_>, game: Option<GameSpec>) -> Result<Table, ReadError> {
    let spec = match (game, &sgt.block) {
        (Some(spec), _) => spec,
        (None, Some(block)) => GameSpec::new(
            Stored::from_parts(&sgt.spec, block.dims, block.source.as_deref(), block.header)
                .map_err(|why| ReadError::Bad(format!("damaged game block: {why}")))?,
        ),
        (None, None) => unreachable!("a header without a game block names a family's game"),
    };
    let rule = stored_rule(sgt.version, sgt.rule, &spec, &sgt.values)?;
    Ok(Table { spec, values: sgt.values.into_owned(), rule })
}

/// The stored rule, checked against the game's theorems (the format checked it against the
/// values); a file of a version before today's rule finder has its rule found again.
fn stored_rule(
    version: u16,
    rule: Option<Rule>,
    spec: &GameSpec,
    values: &Packed,
) -> Result<Option<Rule>, ReadError> {
    if let Some(rule) = rule {
        if !spec.has_rule() {
            return bad(format!(
                "damaged header: a rule is stored, but {spec} has none (its index is not a heap)"
            ));
        }
        if version >= sgt::RULES_AS_TODAY
            && rule.proven
            && spec.theorem(&rule).is_none_or(|t| rule.checked < t.needs)
        {
            return bad(format!(
                "damaged header: the stored rule is marked proven, but no theorem proves it for \
                    {spec}"
            ));
        }
    }
    // An older writer chose its rule by an older finder and proof: find it again.
    Ok(if version < sgt::RULES_AS_TODAY { super::find_rule(spec, values) } else { rule })
}

/// Reads and checks a table from any reader holding exactly one file's bytes (`file_len` of
/// them). Memory taken is bounded by `file_len`, and only once the header agrees with it.
pub fn read_from(r: impl Read, file_len: u64) -> Result<Table, ReadError> {
    let (sgt, game) = sgt::read_from(r, file_len, |h| admit(h, None))?;
    table_of(sgt, game)
}

/// Reads and checks the table in `path`.
pub fn read(path: &Path) -> Result<Table, ReadError> {
    let (sgt, game) = sgt::read(path, |h| admit(h, None))?;
    table_of(sgt, game)
}

/// Reads the table in `path` for a command: a failure is one line naming the file (a damaged
/// one: how to make it again).
pub fn load(path: &Path) -> Result<Table, String> {
    read(path).map_err(|e| match e {
        ReadError::Bad(_) => format!("{}: {e}; rebuild it with `sgtab build`", path.display()),
        _ => format!("{}: {e}", path.display()),
    })
}

/// Reads and checks the table in `path`, which must hold `want`: a sound header naming another
/// game gives [`ReadError::OtherGame`] before any value is read.
pub fn read_expecting(path: &Path, want: &str) -> Result<Table, ReadError> {
    let (sgt, game) = sgt::read(path, |h| admit(h, Some(want)))?;
    table_of(sgt, game)
}

/// Decodes a whole file held in memory.
pub fn decode(bytes: &[u8]) -> Result<Table, ReadError> {
    read_from(bytes, bytes.len() as u64)
}
