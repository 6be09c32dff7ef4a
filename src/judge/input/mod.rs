//! The input layer of `sgq`: judge input as whitespace-separated unsigned numbers, apart from
//! what any problem makes of them. A problem's grammar reads its numbers through [`Numbers`],
//! whatever the input is:
//!
//! - a stream (a pipe, a terminal, a small file): the [`Scanner`] (`scanner`), through one
//!   fixed buffer, with a reader thread beside it on a pipe ([`read_ahead`]);
//! - a regular file, mapped into memory ([`open`]): read on every core ([`mapped`]), pieces cut
//!   at whitespace, and walked in order; anything unusual is handed to a scanner at its byte,
//!   so every message is the scanner's own;
//! - either way, runs of numbers go to one of the bulk kernels ([`kernel`]: portable, or AVX2
//!   where the CPU has it).
//!
//! [`cases`] holds the two shapes of case both paths share: counted cases (`T`, then cases of a
//! count and that many numbers, each worth a value on its own: `lasker`, `sgq sum`), and cases a
//! grammar reads one by one, answered in batches on the threads (`snim`, `funny`).

pub mod cases;
pub mod kernel;
pub mod mapped;
pub mod open;
pub mod read_ahead;
mod scanner;

pub use kernel::NumberKernel;
pub use scanner::{BUFFER, Buf, Halt, Scanner};

use std::fmt;
use std::io;

const OTHER: u8 = 0;
pub(crate) const SPACE: u8 = 1;

/// Space, tab, newline, vertical tab, form feed, carriage return separate tokens.
pub(crate) static CLASS: [u8; 256] = {
    let mut c = [OTHER; 256];
    c[b' ' as usize] = SPACE;
    c[b'\t' as usize] = SPACE;
    c[b'\n' as usize] = SPACE;
    c[0x0b] = SPACE;
    c[0x0c] = SPACE;
    c[b'\r' as usize] = SPACE;
    c
};

/// Whether `b` separates tokens.
#[inline]
pub fn is_space(b: u8) -> bool {
    CLASS[b as usize] == SPACE
}

/// Where a token stands: 1-based line and column (in bytes), and 0-based byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: u64,
    pub column: u64,
    pub offset: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {} (byte {})", self.line, self.column, self.offset)
    }
}

/// Input that breaks the format, or that could not be read.
#[derive(Debug)]
pub enum InputError {
    Format { at: Position, message: String },
    Io(io::Error),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Format { at, message } => write!(f, "{at}: {message}"),
            InputError::Io(e) => write!(f, "cannot read input: {e}"),
        }
    }
}

/// Says why a number is past its range, for callers whose numbers have a reason to stop where
/// they do (a position past a table, a square off the board): given the token as shown and its
/// value (`None` past 64 bits), the whole message (after the place). Called only on that error,
/// from the cold path, so it costs the fast path nothing.
pub type Beyond<'a> = Option<&'a dyn Fn(&str, Option<u64>) -> String>;

/// The number a grammar reads next: its range `min..=max`, its name for messages (`what`: "a
/// heap size in case 3") and, where a number past `max` has a reason to stop there, the message
/// for it ([`Beyond`]).
#[derive(Clone, Copy)]
pub struct Want<'a> {
    pub min: u64,
    pub max: u64,
    pub what: &'a dyn fmt::Display,
    pub beyond: Beyond<'a>,
}

impl<'a> Want<'a> {
    /// A number in `min..=max` named `what`.
    pub fn new(min: u64, max: u64, what: &'a dyn fmt::Display) -> Want<'a> {
        Want { min, max, what, beyond: None }
    }

    /// Any number in `min..=max`, unnamed: for the walks over input in memory, which stop at
    /// anything else and leave the message to the streaming path.
    pub fn any(min: u64, max: u64) -> Want<'static> {
        Want { min, max, what: &"", beyond: None }
    }

    /// The same number, with `beyond` writing the message for one past `max`.
    pub fn or(self, beyond: &'a dyn Fn(&str, Option<u64>) -> String) -> Want<'a> {
        Want { beyond: Some(beyond), ..self }
    }
}

/// The numbers of a judge input, in order, as a problem's grammar reads them: the streaming
/// [`Scanner`], or the tokens of an input in memory read on every core
/// (`super::tokens::Mapped`). Each problem's grammar is written once, against this, so the
/// two paths cannot drift apart; a source that meets anything unusual hands it to a scanner at
/// that byte, so every message is the scanner's own.
pub trait Numbers {
    /// The next number, which must lie in `min..=max`; the end of the input is an error.
    /// `what` names the number for messages ("a heap size in case 3").
    fn next(&mut self, min: u64, max: u64, what: &dyn fmt::Display) -> Result<u64, InputError>;

    /// The same, `None` at the end of the input.
    fn next_in(
        &mut self,
        min: u64,
        max: u64,
        what: &dyn fmt::Display,
    ) -> Result<Option<u64>, InputError>;

    /// `count` numbers in `min..=max`, folded into `acc` by `f` (the scanner's bulk path).
    fn fold<A>(
        &mut self,
        count: u64,
        min: u64,
        max: u64,
        what: &dyn fmt::Display,
        mut acc: A,
        mut f: impl FnMut(A, u64) -> A,
    ) -> Result<A, InputError> {
        for _ in 0..count {
            acc = f(acc, self.next(min, max, what)?);
        }
        Ok(acc)
    }

    /// An error about the number read last (a check beyond its range: a repeated column).
    fn error_at_last(&mut self, message: String) -> InputError;

    /// Fails if any token is left; `after` names what came last.
    fn expect_end(&mut self, after: &str) -> Result<(), InputError>;
}
