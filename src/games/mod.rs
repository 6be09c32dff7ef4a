//! The games, each family defined once, in one file, by its moves, each with a scalar reference
//! that computes its table straight from the definition: the value of a position is the mex
//! (minimum excludant) of its options' values. These references are the judges of every faster
//! engine.
//!
//! A family is the unit of change. Its file holds:
//! - a [`Family`]: its name, its spec grammar (for `--help` and errors) and its parser;
//! - a type implementing [`Game`]: entry count, canonical text, how an index reads as a
//!   position, its options ([`Moves`]), the scalar reference, and which theorem (if any) turns
//!   a checked rule into a proven one.
//!
//! Adding a family is that file plus one line in [`FAMILIES`]; nothing else matches on games.
//! Games name no engine: a family with a fast engine adds an engine module and one line in the
//! engines' registry, which is where a game is turned back into its
//! family's type. So `sgq`, which reads tables through `Game`, links no engine code (no GPU).

pub mod chess;
pub mod corner;
pub mod funny;
pub mod grundy;
pub mod lasker;
pub mod stored;
pub mod sub;
pub mod summary;
pub mod takebreak;

use crate::progress::Progress;
pub use crate::values::{Dims, MAX_AXES, MAX_LEN};
use crate::values::{Packed, Rule};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A game as the resolver hands it out: shared, immutable, usable from every thread.
pub type GameRef = Arc<dyn Game>;

/// File names longer than this keep a readable prefix and a hash of the canonical text.
pub(crate) const MAX_FILE_STEM: usize = 96;

line_error! {
    /// A spec that could not be parsed; the message says what was expected.
    #[derive(Clone, Debug, PartialEq, Eq)]
    SpecError
}

/// File name for a canonical text: see `crate::spec::GameSpec::file_name`.
pub fn file_name_of(text: &str) -> String {
    let stem: String = text
        .chars()
        .map(|c| match c {
            ':' => '-',
            ',' | '[' | ']' => '_',
            c if c.is_ascii_alphanumeric() || ".-_@=".contains(c) => c,
            _ => '~',
        })
        .collect();
    if stem.len() <= MAX_FILE_STEM {
        return format!("{stem}.sgt");
    }
    let hash = crc32fast::hash(text.as_bytes()) as u64 | (text.len() as u64) << 32;
    format!("{}~{hash:012x}.sgt", &stem[..MAX_FILE_STEM - 13])
}

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
    &stored::LUA,
    &stored::CPP,
    &stored::NATIVE,
    &stored::IMPORT,
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

/// How a table index reads as a position, for queries, plots and exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Positions {
    /// One heap (or one counter): index n is the heap of n.
    Heap,
    /// A row of `width` cells as a bitmask (chess rows).
    Row { width: u32 },
    /// A piece on an n×n board at (x, y), index x·n + y.
    Board { n: u64 },
    /// A point (p1, ..., pk) of a box of k sizes, index row-major ((p1·d2 + p2)·d3 + p3)…
    /// (games given by scripts, imported tables).
    Grid(Dims),
}

line_error! {
    /// Why a game could not give its options or values (a script failed, a position is off its
    /// shape): one line, naming the position.
    #[derive(Clone, Debug, PartialEq, Eq)]
    GameError
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
/// generic engine computes the table of any such game as the mex
/// over the options' values.
pub trait Moves: Sync {
    /// Positions 0..count.
    fn count(&self) -> u64;

    /// Calls `f` once for each option of position `p` with the positions the move leaves side by
    /// side: one for a plain move, several for a sum (worth the XOR of their values), none for a
    /// move that leaves nothing (worth 0). An option reached two ways may be given twice.
    fn options(&self, p: u64, f: &mut dyn FnMut(&[u64]));
}

/// A game as the generic engine reads it: options for lists of positions, given by a
/// [`Worker`] made on each thread that asks (so a worker may hold what cannot cross threads,
/// such as a script's interpreter), fallibly (user code can fail). Every [`Moves`] is one;
/// scripts implement it directly.
pub trait Source: Sync {
    /// Positions 0..count.
    fn count(&self) -> u64;

    /// Whether workers give ranks ([`Worker::ranks`]): an integer per position that every
    /// option's positions have smaller, so that the positions of one rank can be computed at once.
    fn ranked(&self) -> bool {
        false
    }

    /// Whether the engine should ask workers for summaries ([`Worker::summaries`]) rather than
    /// options: a worker that folds options where they are made (a native game) gains by it.
    fn summarizes(&self) -> bool {
        false
    }

    /// A worker for the calling thread.
    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError>;

    /// Position `p` in words, for messages (`7`, `(3, 4)`).
    fn name(&self, p: u64) -> String {
        p.to_string()
    }
}

/// One thread's reader of a [`Source`].
pub trait Worker {
    /// Calls `f(p, option)` for each option of each position p of `positions`, in that order;
    /// an option is the positions it leaves side by side, as in [`Moves::options`].
    fn options(
        &mut self,
        positions: &[u64],
        f: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), GameError>;

    /// The rank of each position of `positions`, pushed in order onto `out` (only asked of a
    /// source that is [`Source::ranked`]).
    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
        let _ = (positions, out);
        Err(GameError("this game gives no ranks".into()))
    }

    /// The summaries of `ask`'s positions into `out` ([`summary`]: each position's value, or
    /// its options not yet known and the values its known options miss). By default made from
    /// [`Worker::options`].
    fn summaries(
        &mut self,
        ask: &summary::Ask,
        out: &mut summary::Summaries,
    ) -> Result<(), GameError> {
        summary::from_options(self, ask, out)
    }
}

impl<M: Moves + ?Sized> Source for M {
    fn count(&self) -> u64 {
        Moves::count(self)
    }

    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        struct Plain<'a, M: ?Sized>(&'a M);
        impl<M: Moves + ?Sized> Worker for Plain<'_, M> {
            fn options(
                &mut self,
                positions: &[u64],
                f: &mut dyn FnMut(u64, &[u64]),
            ) -> Result<(), GameError> {
                for &p in positions {
                    self.0.options(p, &mut |o| f(p, o));
                }
                Ok(())
            }
        }
        Ok(Box::new(Plain(self)))
    }
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

    /// The table straight from the definition (mex over the options); an error where the game
    /// cannot be computed here (a stored table's game), or its definition fails. A game given
    /// as a [`Source`] has none of its own: the engines take the generic engine on one thread
    /// as its reference.
    fn reference(&self, progress: &Progress) -> Result<Packed, GameError> {
        let _ = progress;
        Err(GameError(format!(
            "{} has no reference of its own: it is built from its options",
            self.canonical()
        )))
    }

    /// The game as its options, where it is given that way.
    fn moves(&self) -> Option<&dyn Moves> {
        None
    }

    /// The game as a source for the generic engine, where that is how it is built (scripts):
    /// such a game has no reference of its own, the generic engine is its reference.
    fn source(&self) -> Option<&dyn Source> {
        None
    }

    /// What the table's file must carry besides the canonical text for the game to be read
    /// back (a script's text, a shape): games that are not a family of sgtab's own.
    fn stored(&self) -> Option<stored::Stored> {
        None
    }

    /// The file name of its table, where it is not made from the canonical text
    /// ([`crate::spec::GameSpec::file_name`]).
    fn file_name(&self) -> Option<String> {
        None
    }

    /// The same game at another size: `size` takes the place of the number that ends its spec
    /// (a heap game's entry count, a row's width, a board's side). `None` where the game has no
    /// such number or `size` is outside its family's bounds. `build` grows and shortens tables
    /// with it, and errors suggest the table that would cover a position.
    fn with_size(&self, size: u64) -> Option<Arc<dyn Game>> {
        let _ = size;
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

    /// Whether a theorem can prove this game's plain periods (rules without a saltus) once
    /// they are checked far enough: `Err` with why not, in words, where the family can say.
    fn periods_provable(&self) -> Result<(), Option<&'static str>> {
        Err(None)
    }

    /// Why no theorem proves `rule` for this game, in words, where its family can say (a code
    /// with a repeating tail; a saltus); asked where [`Game::theorem`] gave none.
    fn no_theorem(&self, _rule: &Rule) -> Option<&'static str> {
        None
    }

    /// The game as its own type, for the engines' registry, the one
    /// place that turns a game back into its family's type.
    fn as_any(&self) -> &dyn Any;
}

/// The grammars of every family, for help and error messages.
pub fn grammar() -> String {
    FAMILIES.iter().map(|f| f.grammar).collect::<Vec<_>>().join(", ")
}

/// The values of positions 0..len straight from the definition: each is the mex over its
/// options, which `options(n, values so far, set)` marks in the set (an option worth the XOR of
/// the values of the positions it leaves, all smaller than n). The families' references.
pub(crate) fn mex_table(
    len: u64,
    progress: &Progress,
    mut options: impl FnMut(u64, &[u32], &mut MexSet),
) -> Vec<u32> {
    let mut table: Vec<u32> = Vec::with_capacity(len as usize);
    let mut mex = MexSet::new(64);
    for n in 0..len {
        mex.clear();
        options(n, &table, &mut mex);
        table.push(mex.mex() as u32);
        if n & 0x3FF == 0x3FF {
            progress.tick(n + 1, len);
        }
    }
    table
}

/// [`mex_table`] of a game whose options are pairs of positions side by side (0 for none).
pub(crate) fn pair_table<I: Iterator<Item = (u64, u64)>>(
    len: u64,
    progress: &Progress,
    options: impl Fn(u64) -> I,
) -> Vec<u32> {
    mex_table(len, progress, |n, t, mex| {
        for (a, b) in options(n) {
            mex.mark_growing((t[a as usize] ^ t[b as usize]) as usize);
        }
    })
}

/// The set a reference takes its mexes from: it grows to hold any value marked.
pub(crate) type MexSet = crate::values::stamps::Stamps<u64>;

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
        $game:ident, name: $name:literal, default: $default:expr, bounds: $bounds:expr,
        grammar: $grammar:expr,
        reference: $reference:expr, options: $options:expr $(,)?
    ) => {
        pub static FAMILY: $crate::games::Family =
            $crate::games::Family { name: $name, grammar: $grammar, parse: parse_spec };

        fn parse_spec(
            spec: &str,
        ) -> Option<Result<$crate::games::GameRef, $crate::games::SpecError>> {
            let rest = $crate::games::parse::named(spec, $name)?;
            Some(
                $crate::games::parse::bounded(
                    spec, "entry count", rest, $default, $bounds, $grammar,
                )
                    .map(|len| std::sync::Arc::new($game { len }) as $crate::games::GameRef),
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

            fn reference(
                &self,
                progress: &$crate::progress::Progress,
            ) -> Result<$crate::values::Packed, $crate::games::GameError> {
                Ok($crate::values::Packed::from_values(&($reference)(self.len, progress)))
            }

            fn moves(&self) -> Option<&dyn $crate::games::Moves> {
                Some(self)
            }

            fn with_size(&self, len: u64) -> Option<$crate::games::GameRef> {
                let (min, max) = $bounds;
                (min..=max)
                    .contains(&len)
                    .then(|| std::sync::Arc::new($game { len }) as $crate::games::GameRef)
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
    use super::SpecError;

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
        if rest.is_empty() { Some(None) } else { rest.strip_prefix(':').map(Some) }
    }
}
