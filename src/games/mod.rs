//! The games, each family defined once, in one file, by its moves, each with a scalar reference
//! that computes its table straight from the definition: the value of a position is the mex
//! (minimum excludant) of its options' values. These references are the judges of every faster
//! engine.
//!
//! A family is the unit of change. Its file holds:
//! - a [`Family`]: its name, its spec grammar (for `--help` and errors) and its parser;
//! - a type implementing [`Game`]: entry count, canonical text, how an index reads as a
//!   position, the scalar reference, and which theorem (if any) turns a checked rule into a
//!   proven one;
//! - where it has fast engines, a [`FastEngines`]: which ones, and how to run them.
//!
//! Adding a family is that file plus one line in [`FAMILIES`] (and, with fast engines, one in
//! [`crate::engine::FAST`]); nothing else matches on games. The fast engines are kept out of
//! [`Game`] so that `sgq`, which reads tables through `Game`, links no engine code (no GPU).

pub mod chess;
pub mod corner;
pub mod funny;
pub mod grundy;
pub mod lasker;
pub mod sub;
pub mod takebreak;

use crate::engine::{Backend, EngineError, Engines, Timings};
use crate::progress::Progress;
use crate::spec::SpecError;
use crate::table::{Packed, Rule};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Every family sgtab knows, in the order their grammars are listed in help and errors. A spec
/// is offered to each parser in turn; the first that recognises its syntax owns it.
pub static FAMILIES: &[&Family] = &[
    &chess::FAMILY,
    &sub::FAMILY,
    &lasker::FAMILY,
    &funny::FAMILY,
    &takebreak::FAMILY,
    &grundy::FAMILY,
    &corner::QUEEN,
    &corner::ROOK,
    &corner::KING,
];

/// A family of games: its name and the grammar of its specs.
pub struct Family {
    /// The word that starts its specs (`chess`), or a short name where specs have no word.
    pub name: &'static str,
    /// Its grammar with an example, e.g. `chess[:W] (W 1 to 32)`.
    pub grammar: &'static str,
    /// Parses a whole spec (already trimmed). `None`: not this family's syntax; `Some(Err)`:
    /// this family's, but wrong, with a message saying what was expected.
    pub parse: Parse,
}

/// A family's parser: see [`Family::parse`].
pub type Parse = fn(&str) -> Option<Result<Arc<dyn Game>, SpecError>>;

/// A family's fast engines, registered in [`crate::engine::FAST`].
pub struct FastEngines {
    pub family: &'static Family,
    /// Which engines it has besides its reference: `Simd` (the fast CPU engine, all cores)
    /// and/or `Gpu`.
    pub engines: &'static [Backend],
    /// Computes a game of this family with one of `engines`, recording its phases in the
    /// timings (at least "kernel").
    pub compute: Compute,
}

/// A family's fast-engine entry: see [`FastEngines::compute`].
pub type Compute = fn(&dyn Game, Backend, &Engines, &Progress, &mut Timings) -> Result<Packed, EngineError>;

/// How a table index reads as a position, for queries, plots and exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Positions {
    /// One heap (or one counter): index n is the heap of n.
    Heap,
    /// A row of `width` cells as a bitmask (chess rows).
    Row { width: u32 },
    /// A piece on an n×n board at (x, y), index x·n + y.
    Board { n: u64 },
}

/// A theorem that turns a checked rule into a proven one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theorem {
    /// Its name as `sgtab show` prints it, e.g. "Guy-Smith periodicity theorem".
    pub name: &'static str,
    /// The rule is proven once it has been checked this far: `rule.checked >= needs`.
    pub needs: u64,
}

/// A game given by its options: for each position (a table index), what one move leaves. The
/// generic engine ([`crate::engine::generic`]) computes the table of any such game as the mex
/// over the options' values.
pub trait Moves: Sync {
    /// Positions 0..count.
    fn count(&self) -> u64;

    /// Calls `f` once for each option of position `p` with the positions the move leaves side by
    /// side: one for a plain move, several for a sum (worth the XOR of their values), none for a
    /// move that leaves nothing (worth 0). An option reached two ways may be given twice.
    fn options(&self, p: u64, f: &mut dyn FnMut(&[u64]));
}

/// One game with all its parameters: a family member.
// A table is never empty (`len` is at least 1), so an `is_empty` would always say false.
#[allow(clippy::len_without_is_empty)]
pub trait Game: fmt::Debug + Send + Sync + 'static {
    fn family(&self) -> &'static Family;

    /// The canonical spec: every spelling of this game prints this text, and the `.sgt` file
    /// stores it (so parsing it gives this game back).
    fn canonical(&self) -> String;

    /// Number of entries in the table (never zero).
    fn len(&self) -> u64;

    /// How an index reads as a position.
    fn positions(&self) -> Positions {
        Positions::Heap
    }

    /// The table straight from the definition (mex over the options).
    fn reference(&self, progress: &Progress) -> Packed;

    /// The game as its options, where it is given that way.
    fn moves(&self) -> Option<&dyn Moves> {
        None
    }

    /// Whether a rule g(n+p) = g(n) + s along the index means anything (not for bitmasks).
    fn has_rule(&self) -> bool {
        matches!(self.positions(), Positions::Heap)
    }

    /// The theorem that proves `rule` for this game once it is checked far enough, if any.
    fn theorem(&self, _rule: &Rule) -> Option<Theorem> {
        None
    }

    /// For the rare family-specific question (`sgq snim` wants a `sub` game's moves).
    fn as_any(&self) -> &dyn Any;
}

/// The grammars of every family, for help and error messages.
pub fn grammar() -> String {
    FAMILIES.iter().map(|f| f.grammar).collect::<Vec<_>>().join(", ")
}

/// Smallest value not marked, in a set that grows as needed and is reused between positions: `seen[v] == stamp`
/// means v was marked for the position being computed. The stamp trick avoids clearing.
pub(crate) struct MexSet {
    seen: Vec<u64>,
    stamp: u64,
}

impl MexSet {
    pub fn new(max_value: usize) -> MexSet {
        MexSet { seen: vec![0; max_value + 2], stamp: 0 }
    }

    /// Starts a new position.
    pub fn clear(&mut self) {
        self.stamp += 1;
    }

    pub fn mark(&mut self, v: u64) {
        let v = v as usize;
        if v >= self.seen.len() {
            self.seen.resize(v + 2, 0);
        }
        self.seen[v] = self.stamp;
    }

    /// The mex of the values marked since `clear`.
    pub fn mex(&self) -> u64 {
        self.seen.iter().position(|&s| s != self.stamp).unwrap_or(self.seen.len()) as u64
    }
}

/// The boilerplate of a family of one-count heap games, `NAME` or `NAME:N`, written once for
/// `lasker`, `funny` and `grundy`: its [`Family`] as `FAMILY`, its parser (N within `bounds`,
/// `default` when absent, errors from [`parse::bounded`]) and a `Copy` struct of `len` entries
/// that is the family's [`Game`] (canonical text `NAME:N`, heap positions, no theorem), whose
/// reference is `reference(len, progress)`, and whose [`Moves`] are `options(p)`: pairs of
/// positions side by side (a pair with a 0 is a plain move, position 0 being worth 0). The
/// family file keeps its moves and reference.
macro_rules! heap_family {
    (
        $(#[$meta:meta])*
        $game:ident, name: $name:literal, default: $default:expr, bounds: $bounds:expr, grammar: $grammar:expr,
        reference: $reference:expr, options: $options:expr $(,)?
    ) => {
        pub static FAMILY: $crate::games::Family =
            $crate::games::Family { name: $name, grammar: $grammar, parse: parse_spec };

        fn parse_spec(
            spec: &str,
        ) -> Option<Result<std::sync::Arc<dyn $crate::games::Game>, $crate::spec::SpecError>> {
            let rest = $crate::games::parse::named(spec, $name)?;
            Some(
                $crate::games::parse::bounded(spec, "entry count", rest, $default, $bounds, $grammar)
                    .map(|len| std::sync::Arc::new($game { len }) as std::sync::Arc<dyn $crate::games::Game>),
            )
        }

        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $game {
            pub len: u64,
        }

        impl $crate::games::Game for $game {
            fn family(&self) -> &'static $crate::games::Family {
                &FAMILY
            }

            fn canonical(&self) -> String {
                format!(concat!($name, ":{}"), self.len)
            }

            fn len(&self) -> u64 {
                self.len
            }

            fn reference(&self, progress: &$crate::progress::Progress) -> $crate::table::Packed {
                $crate::table::Packed::from_values(&($reference)(self.len, progress))
            }

            fn moves(&self) -> Option<&dyn $crate::games::Moves> {
                Some(self)
            }

            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }

        impl $crate::games::Moves for $game {
            fn count(&self) -> u64 {
                self.len
            }

            fn options(&self, p: u64, f: &mut dyn FnMut(&[u64])) {
                for (a, b) in ($options)(p) {
                    f(&[a, b]);
                }
            }
        }
    };
}
pub(crate) use heap_family;

/// Helpers the family parsers share: numbers and entry counts with messages that say what
/// was expected.
pub mod parse {
    use crate::spec::SpecError;

    /// An error about `spec`, followed by what the family expects.
    pub fn err<T>(spec: &str, why: impl std::fmt::Display, grammar: &str) -> Result<T, SpecError> {
        Err(SpecError(format!("bad game spec `{spec}`: {why} (expected {grammar})")))
    }

    /// A whole decimal number.
    pub fn num(spec: &str, what: &str, text: &str, grammar: &str) -> Result<u64, SpecError> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return err(spec, format!("{what} `{text}` is not a whole number"), grammar);
        }
        match text.parse::<u64>() {
            Ok(n) => Ok(n),
            Err(_) => err(spec, format!("{what} `{text}` is too large"), grammar),
        }
    }

    /// A number in `min` to `max`, or `default` when absent.
    pub fn bounded(
        spec: &str,
        what: &str,
        text: Option<&str>,
        default: u64,
        (min, max): (u64, u64),
        grammar: &str,
    ) -> Result<u64, SpecError> {
        let Some(text) = text else { return Ok(default) };
        let n = num(spec, what, text, grammar)?;
        if n < min || n > max {
            return err(spec, format!("{what} {n} is outside {min} to {max}"), grammar);
        }
        Ok(n)
    }

    /// `name` or `name:REST`: `Some(REST)` (None when bare) if `spec` starts with the name.
    pub fn named<'a>(spec: &'a str, name: &str) -> Option<Option<&'a str>> {
        let rest = spec.strip_prefix(name)?;
        if rest.is_empty() {
            Some(None)
        } else {
            rest.strip_prefix(':').map(Some)
        }
    }
}
