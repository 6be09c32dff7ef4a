//! Game specs: the text a user types (`chess:20`, `sub:1,3,9`, `lasker`, `funny:32`), parsed into
//! a [`GameSpec`] with every default filled in, and printed back as canonical text.
//!
//! The canonical text is what a `.sgt` file stores and what its file name is made from, so two
//! specs that build the same table always print the same.

use std::fmt;

/// Widest chess row: a row is a bitmask held in a `u32`.
pub const CHESS_MAX_WIDTH: u32 = 32;
/// The judge's board width (HDU 5724).
pub const CHESS_DEFAULT_WIDTH: u32 = 20;
/// Entries in a `sub:` or `lasker` table when the spec names no count.
pub const DEFAULT_LEN: u64 = 1024;
/// Entries in a `funny` table when the spec names no count (the judge needs 23).
pub const FUNNY_DEFAULT_LEN: u64 = 32;
/// The judge's funny game has at most 23 piles, so a stone has at most 22 piles to its right.
pub const FUNNY_MIN_LEN: u64 = 23;
/// Largest move in a subtraction set (the S-Nim judge allows 10 000).
pub const SUB_MAX_MOVE: u32 = 1 << 20;
/// Largest table of a 1-D game we build (values are computed in memory, one `u32` each).
pub const MAX_LEN: u64 = 1 << 26;
/// `funny` is cubic in its length; beyond this it is not a table anyone needs.
pub const FUNNY_MAX_LEN: u64 = 4096;
/// `lasker`'s reference is quadratic in its length.
pub const LASKER_MAX_LEN: u64 = 1 << 16;

/// One game, with all its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameSpec {
    /// A row of `width` cells (HDU 5724); the table has 2^width entries, one per bitmask.
    Chess { width: u32 },
    /// Subtraction game with a finite move set (sorted, no duplicates); `len` entries.
    Sub { moves: Vec<u32>, len: u64 },
    /// Lasker's Nim: take any number, or split a heap in two; `len` entries.
    Lasker { len: u64 },
    /// One stone of A Funny Stone Game, entry i = the stone with i piles to its right.
    Funny { len: u64 },
}

/// A spec that could not be parsed; the message says what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

pub const SPEC_HELP: &str =
    "expected one of: chess[:W] (1..=32), sub:S1,S2,...[:N], lasker[:N], funny[:N]";

fn err<T>(spec: &str, why: impl fmt::Display) -> Result<T, SpecError> {
    Err(SpecError(format!("bad game spec `{spec}`: {why} ({SPEC_HELP})")))
}

fn parse_num(spec: &str, what: &str, text: &str) -> Result<u64, SpecError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return err(spec, format!("{what} `{text}` is not a whole number"));
    }
    match text.parse::<u64>() {
        Ok(n) => Ok(n),
        Err(_) => err(spec, format!("{what} `{text}` is too large")),
    }
}

fn parse_len(spec: &str, text: Option<&str>, default: u64, min: u64, max: u64) -> Result<u64, SpecError> {
    let Some(text) = text else { return Ok(default) };
    let n = parse_num(spec, "entry count", text)?;
    if n < min || n > max {
        return err(spec, format!("entry count {n} is outside {min}..={max}"));
    }
    Ok(n)
}

impl GameSpec {
    /// Parses user text; whitespace around the spec is ignored, case matters.
    pub fn parse(spec: &str) -> Result<GameSpec, SpecError> {
        let text = spec.trim();
        let mut parts = text.splitn(2, ':');
        let name = parts.next().unwrap_or("");
        let rest = parts.next();
        match name {
            "chess" => {
                let width = match rest {
                    None => CHESS_DEFAULT_WIDTH,
                    Some(w) => {
                        let w = parse_num(text, "width", w)?;
                        if !(1..=CHESS_MAX_WIDTH as u64).contains(&w) {
                            return err(text, format!("chess width {w} is outside 1..=32"));
                        }
                        w as u32
                    }
                };
                Ok(GameSpec::Chess { width })
            }
            "sub" => {
                let Some(rest) = rest else {
                    return err(text, "sub needs its move set, e.g. sub:1,3,9");
                };
                let mut it = rest.splitn(2, ':');
                let set = it.next().unwrap_or("");
                let mut moves = Vec::new();
                for m in set.split(',') {
                    let m = parse_num(text, "move", m)?;
                    if m == 0 || m > SUB_MAX_MOVE as u64 {
                        return err(text, format!("move {m} is outside 1..={SUB_MAX_MOVE}"));
                    }
                    moves.push(m as u32);
                }
                moves.sort_unstable();
                moves.dedup();
                let len = parse_len(text, it.next(), DEFAULT_LEN, 1, MAX_LEN)?;
                Ok(GameSpec::Sub { moves, len })
            }
            "lasker" => Ok(GameSpec::Lasker { len: parse_len(text, rest, DEFAULT_LEN, 1, LASKER_MAX_LEN)? }),
            "funny" => Ok(GameSpec::Funny {
                len: parse_len(text, rest, FUNNY_DEFAULT_LEN, FUNNY_MIN_LEN, FUNNY_MAX_LEN)?,
            }),
            "" => err(text, "empty spec"),
            other => err(text, format!("unknown game `{other}`")),
        }
    }

    /// Number of entries in the table (never zero).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        match self {
            GameSpec::Chess { width } => 1u64 << width,
            GameSpec::Sub { len, .. } | GameSpec::Lasker { len } | GameSpec::Funny { len } => *len,
        }
    }

    /// The game's short name (`chess`, `sub`, `lasker`, `funny`).
    pub fn game(&self) -> &'static str {
        match self {
            GameSpec::Chess { .. } => "chess",
            GameSpec::Sub { .. } => "sub",
            GameSpec::Lasker { .. } => "lasker",
            GameSpec::Funny { .. } => "funny",
        }
    }

    /// File name for this table: the canonical text with `:` as `-` and `,` as `_`.
    pub fn file_name(&self) -> String {
        format!("{}.sgt", self.to_string().replace(':', "-").replace(',', "_"))
    }

    /// The tables `sgtab build` makes when it is given no spec: the ones `sgq` answers from.
    pub fn defaults() -> Vec<GameSpec> {
        ["chess", "lasker", "sub:1,3,9", "funny"].iter().map(|s| GameSpec::parse(s).expect("default spec")).collect()
    }
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameSpec::Chess { width } => write!(f, "chess:{width}"),
            GameSpec::Sub { moves, len } => {
                f.write_str("sub:")?;
                for (i, m) in moves.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{m}")?;
                }
                write!(f, ":{len}")
            }
            GameSpec::Lasker { len } => write!(f, "lasker:{len}"),
            GameSpec::Funny { len } => write!(f, "funny:{len}"),
        }
    }
}

impl std::str::FromStr for GameSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        GameSpec::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_round_trip() {
        for (input, canon) in [
            ("chess", "chess:20"),
            ("chess:7", "chess:7"),
            ("sub:9,3,1,3", "sub:1,3,9:1024"),
            ("sub:2,5:100", "sub:2,5:100"),
            ("lasker", "lasker:1024"),
            ("funny", "funny:32"),
            (" funny:40 ", "funny:40"),
        ] {
            let spec = GameSpec::parse(input).unwrap();
            assert_eq!(spec.to_string(), canon);
            assert_eq!(GameSpec::parse(canon).unwrap(), spec);
        }
        assert_eq!(GameSpec::parse("sub:1,3,9").unwrap().file_name(), "sub-1_3_9-1024.sgt");
    }

    #[test]
    fn bad_specs_say_why() {
        for bad in ["", "chess:0", "chess:33", "chess:x", "sub", "sub:", "sub:0", "sub:1,,2", "sub:1:0",
            "funny:22", "lasker:-1", "go", "chess:99999999999999999999999"] {
            let e = GameSpec::parse(bad).unwrap_err();
            assert!(e.0.starts_with("bad game spec"), "{bad}: {e}");
        }
    }
}
