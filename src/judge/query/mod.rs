//! `sgq value SPEC` and `sgq sum SPEC`: any table's positions answered from its file, with the
//! same input layer as the five problems.
//!
//! A position is read as the game reads its index ([`Positions`]): a heap size, a row bitmask,
//! a board square `x y` (`board`), or k coordinates of a grid. A heap past the table is
//! answered from the stored rule: silently when the rule is proven, with one note (once) when
//! it is only checked, and refused when there is no rule. Refusals keep the scanner's line and
//! column and say which build would cover the position. Values are never computed past 64
//! bits: the rule's reach is cut where its values would overflow.

mod board;
mod sum;

pub use super::input::open::Input;
pub use sum::sum;

use super::JudgeError;
use super::input::mapped::{cut, ordered, token_start};
use super::input::{Buf, Halt, Scanner, Want};
use super::lookup::{FoundTable, Lookup};
use crate::games::{Dims, Positions};
use board::board_value;
use std::io::{Read, Write};
use std::ops::Range;

/// `sgq value`: every position on the input, its value on a line of its own, until the end.
///
/// An input in memory is cut into pieces. Heaps and rows: each position is a line of its own,
/// so a piece's lines depend on that piece alone: the pieces are read and their lines written
/// on `par.threads` threads (a piece's lines in a buffer), and the buffers written in order,
/// with the note (if any) before the first line that needs it. A piece stops at its first token
/// that is not a position in range; its lines before it are written, and the streaming path
/// takes over at that token, so the error is its own. Boards: `board_value`.
pub fn value<'a>(
    table: impl Into<FoundTable<'a>>,
    input: Input,
    out: &mut impl Write,
    note: &mut dyn FnMut(&str),
) -> Result<(), JudgeError> {
    let g = Lookup::new(table)?;
    let mut noted = !g.unproven();
    let (data, par) = match (input, g.positions) {
        (Input::Stream(r), _) => return value_from(&g, &mut Scanner::new(r), out, note, 1, noted),
        // k coordinates a position: read in order on one thread.
        (Input::Bytes(data, _), Positions::Grid(_)) => {
            return value_from(&g, &mut Scanner::over(data, 0, 0, 0), out, note, 1, noted);
        }
        (Input::Bytes(data, par), Positions::Board { n }) => {
            return board_value(&g, n, data, par, out, note, noted);
        }
        (Input::Bytes(data, par), _) => (data, par),
    };
    let (max, len) = (g.number_range(), g.len);
    let ranges = cut(data, par.piece, par.threads);
    let lines = |r: Range<usize>| {
        let mut scan = Scanner::over(&data[r.clone()], r.start as u64, 0, 0);
        let mut buf = itoa::Buffer::new();
        // A line is about as long as its position (the buffer grows where values are longer).
        // The lines are written to, not carried in the fold, which moves its state once a token.
        let mut lines = Vec::with_capacity(r.len() + 64);
        let ((count, past), _, halt) =
            scan.fold_some(u64::MAX, &Want::any(0, max), (0u64, false), |(count, past), p| {
                lines.extend_from_slice(buf.format(g.get(p)).as_bytes());
                lines.push(b'\n');
                (count + 1, past | (p >= len))
            });
        ValueLines { lines, count, past, stopped: matches!(halt, Some(Halt::Bad(_))) }
    };
    // Where the streaming path takes over: piece, tokens into it, and that position's number.
    let stop = ordered(par.threads, &lines, |pieces| {
        let (mut p, mut position) = (0, 1u64);
        while let Some(piece) = pieces.next_in_order(&ranges) {
            if piece.past && !noted {
                note(&g.note());
                noted = true;
            }
            out.write_all(&piece.lines)?;
            position += piece.count;
            if piece.stopped {
                return Ok(Some((p, piece.count, position)));
            }
            p += 1;
        }
        Ok::<_, JudgeError>(None)
    })?;
    let Some((p, skip, from)) = stop else { return Ok(()) };
    let offset = token_start(data, ranges[p].start, skip);
    value_from(&g, &mut Scanner::resume(data, offset), out, note, from, noted)
}

/// What a piece of `sgq value` input gives: its lines, the positions they answer, whether one
/// of them is past the table, and whether it stopped at a token that is not a position.
struct ValueLines {
    lines: Vec<u8>,
    count: u64,
    past: bool,
    stopped: bool,
}

/// Positions from number `from` on, to the end; `noted`: the note on a checked rule is written
/// (or not needed).
pub(super) fn value_from(
    g: &Lookup,
    input: &mut Scanner<impl Read, impl Buf>,
    out: &mut impl Write,
    note: &mut dyn FnMut(&str),
    from: u64,
    mut noted: bool,
) -> Result<(), JudgeError> {
    let max = g.number_range();
    let mut buf = itoa::Buffer::new();
    for i in from.. {
        let index = match g.positions {
            Positions::Grid(dims) => {
                match grid_position(g, &dims, input, &format_args!("position {i}"), true)? {
                    Some(index) => index,
                    None => break,
                }
            }
            Positions::Board { n } => {
                let what = format_args!("the x of position {i}");
                let Some(x) = input
                    .next_in_or(&Want::new(0, max, &what).or(&|t, v| g.beyond(&what, t, v)))?
                else {
                    break;
                };
                let what = format_args!("the y of position {i}");
                let y =
                    input.next_or(&Want::new(0, max, &what).or(&|t, v| g.beyond(&what, t, v)))?;
                x * n + y
            }
            _ => {
                // Formatted only for an error: this loop runs once a number.
                let what = format_args!("position {i}");
                let Some(n) = input
                    .next_in_or(&Want::new(0, max, &what).or(&|t, v| g.beyond(&what, t, v)))?
                else {
                    break;
                };
                n
            }
        };
        if !noted && index >= g.len {
            note(&g.note());
            noted = true;
        }
        out.write_all(buf.format(g.get(index)).as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A point of a grid, its k coordinates each within its axis: its index; `None` where the input
/// ends before it starts (`optional`), an error where it ends inside it.
pub(super) fn grid_position(
    g: &Lookup,
    dims: &Dims,
    input: &mut Scanner<impl Read, impl Buf>,
    what: &dyn std::fmt::Display,
    optional: bool,
) -> Result<Option<u64>, JudgeError> {
    let mut index = 0;
    for (axis, &size) in dims.sizes().iter().enumerate() {
        let what = format_args!("coordinate {} of {what}", axis + 1);
        let beyond = |t: &str, c: Option<u64>| g.off_grid(&what, t, axis, c);
        let c = if axis == 0 && optional {
            match input.next_in_or(&Want::new(0, size - 1, &what).or(&beyond))? {
                Some(c) => c,
                None => return Ok(None),
            }
        } else {
            input.next_or(&Want::new(0, size - 1, &what).or(&beyond))?
        };
        index = index * size + c;
    }
    Ok(Some(index))
}

/// The words `sgq sum` writes for a first-player win and a loss.
pub struct Words<'w> {
    pub first: &'w str,
    pub second: &'w str,
}

#[cfg(test)]
mod tests;
