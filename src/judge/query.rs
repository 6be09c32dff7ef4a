//! `sgq value SPEC` and `sgq sum SPEC`: any table's positions answered from its file, with the
//! same streaming scanner as the five problems.
//!
//! A position is read as the game reads its index ([`Positions`]): a heap size, a row bitmask,
//! or a board square `x y`. A heap past the table is answered from the stored rule: silently
//! when the rule is proven, with one note (once) when it is only checked, and refused when there
//! is no rule. Refusals keep the scanner's line and column and say which build would cover the
//! position. Values are never computed past 64 bits: the rule's reach is cut where its values
//! would overflow.

use super::JudgeError;
use super::input::{Beyond, Buf, Halt, Scanner};
use super::lookup::{Found, Lookup, with_value};
use super::parallel::{self, Body, Cases, Parallel, Sum, Walked};
use super::tokens::{self, Token};
use crate::games::{Dims, Positions};
use std::io::{Read, Write};
use std::ops::Range;

/// `sgq value`: every position on the input, its value on a line of its own, until the end.
pub fn value<'a>(table: impl Into<Found<'a>>, input: impl Read, out: &mut impl Write, note: &mut dyn FnMut(&str)) -> Result<(), JudgeError> {
    let g = Lookup::new(table)?;
    let noted = !g.unproven();
    value_from(&g, &mut Scanner::new(input), out, note, 1, noted)
}

/// [`value`] for an input all in memory. Heaps and rows: each position is a line of its own,
/// so a piece's lines depend on that piece alone: the pieces are read and their lines written
/// on `par.threads` threads (a piece's lines in a buffer), and the buffers written in order,
/// with the note (if any) before the first line that needs it. A piece stops at its first token
/// that is not a position in range; its lines before it are written, and the streaming path
/// takes over at that token, so the error is its own. Boards: `board_value`.
pub fn value_bytes<'a>(table: impl Into<Found<'a>>, data: &[u8], par: Parallel, out: &mut impl Write, note: &mut dyn FnMut(&str)) -> Result<(), JudgeError> {
    let g = Lookup::new(table)?;
    let mut noted = !g.unproven();
    if let Positions::Grid(_) = g.positions {
        // k coordinates a position: read in order on one thread.
        return value_from(&g, &mut Scanner::over(data, 0, 0, 0), out, note, 1, noted);
    }
    if let Positions::Board { n } = g.positions {
        return board_value(&g, n, data, par, out, note, noted);
    }
    let (max, len) = (g.number_range(), g.len);
    let ranges = parallel::cut(data, par.piece, par.threads);
    let lines = |r: Range<usize>| {
        let mut scan = Scanner::over(&data[r.clone()], r.start as u64, 0, 0);
        let mut buf = itoa::Buffer::new();
        // A line is about as long as its position (the buffer grows where values are longer).
        // The lines are written to, not carried in the fold, which moves its state once a token.
        let mut lines = Vec::with_capacity(r.len() + 64);
        let ((count, past), _, halt) = scan.fold_some(u64::MAX, 0, max, &"", None, (0u64, false), |(count, past), p| {
            lines.extend_from_slice(buf.format(g.get(p)).as_bytes());
            lines.push(b'\n');
            (count + 1, past | (p >= len))
        });
        Piece { lines, count, past, stopped: matches!(halt, Some(Halt::Bad(_))) }
    };
    // Where the streaming path takes over: piece, tokens into it, and that position's number.
    let stop = tokens::ordered(par.threads, &lines, |pieces| {
        let (mut fed, mut position) = (0, 1u64);
        for p in 0..ranges.len() {
            while fed < ranges.len() && pieces.in_flight() < pieces.window {
                pieces.send(ranges[fed].clone());
                fed += 1;
            }
            let Some(piece) = pieces.recv() else { break };
            if piece.past && !noted {
                note(&g.note());
                noted = true;
            }
            out.write_all(&piece.lines)?;
            position += piece.count;
            if piece.stopped {
                return Ok(Some((p, piece.count, position)));
            }
        }
        Ok::<_, JudgeError>(None)
    })?;
    let Some((p, skip, from)) = stop else { return Ok(()) };
    let offset = tokens::token_start(data, ranges[p].start, skip);
    value_from(&g, &mut Scanner::resume(data, offset), out, note, from, noted)
}

/// `sgq value` on a board of side `n`: a position is two tokens, `x y`, so a piece's lines
/// depend on whether its first token is an x. Pieces are cut just after a newline where one is
/// near ([`parallel::cut_lines`]), and each is read and its lines written on the threads as if
/// it starts with an x, which holds for input with whole positions on each line. The walk knows
/// the truth: where the piece before left an x waiting for its y, that piece is read again on
/// the walk's thread with that x, and the pieces after it are taken as they come. A piece stops
/// at its first token that is not a coordinate; the streaming path takes over at the start of
/// the position it is in (its x, maybe in the piece before), and also where the input ends
/// after an x, so every error is its own.
fn board_value(g: &Lookup, n: u64, data: &[u8], par: Parallel, out: &mut impl Write, note: &mut dyn FnMut(&str), noted: bool) -> Result<(), JudgeError> {
    let ranges = parallel::cut_lines(data, par.piece, par.threads);
    let lines = |(r, carried): (Range<usize>, Option<Pending>)| {
        let mut scan = Scanner::over(&data[r.clone()], r.start as u64, 0, 0);
        let mut buf = itoa::Buffer::new();
        // A line is about as long as its position: the buffer grows where values are longer.
        let mut lines = Vec::with_capacity(r.len() + 64);
        // (positions answered, tokens read, the x waiting for its y or NO_X); the lines are
        // written to, not carried in the fold, which moves its state once a token.
        const NO_X: u64 = u64::MAX;
        let start = (0u64, 0u64, carried.map_or(NO_X, |p| p.x));
        let ((count, tokens, x), _, halt) = scan.fold_some(u64::MAX, 0, n - 1, &"", None, start, |(count, tokens, x), c| {
            if x == NO_X {
                return (count, tokens + 1, c);
            }
            lines.extend_from_slice(buf.format(g.get(x * n + c)).as_bytes());
            lines.push(b'\n');
            (count + 1, tokens + 1, NO_X)
        });
        let x = (x != NO_X).then_some(x);
        // Where the x waiting for its y starts: read in this piece (its last token read), or
        // carried into it.
        let pending = match (x, tokens) {
            (None, _) => None,
            (Some(_), 0) => carried,
            (Some(x), t) => Some(Pending { x, at: tokens::token_start(data, r.start, t - 1) }),
        };
        let stop = matches!(halt, Some(Halt::Bad(_))).then(|| pending.map_or_else(|| tokens::token_start(data, r.start, tokens), |p| p.at));
        BoardPiece { lines, count, pending, stop }
    };
    // Where the streaming path takes over: a byte offset, and that position's number.
    let stop = tokens::ordered(par.threads, &lines, |pieces| {
        let (mut fed, mut position, mut carry) = (0, 1u64, None);
        for p in 0..ranges.len() {
            while fed < ranges.len() && pieces.in_flight() < pieces.window {
                pieces.send((ranges[fed].clone(), None));
                fed += 1;
            }
            let Some(mut piece) = pieces.recv() else { break };
            if carry.is_some() {
                piece = lines((ranges[p].clone(), carry));
            }
            out.write_all(&piece.lines)?;
            position += piece.count;
            if let Some(at) = piece.stop {
                return Ok(Some((at, position)));
            }
            carry = piece.pending;
        }
        Ok::<_, JudgeError>(carry.map(|c| (c.at, position)))
    })?;
    let Some((offset, from)) = stop else { return Ok(()) };
    value_from(g, &mut Scanner::resume(data, offset), out, note, from, noted)
}

/// An x read on a board whose y is yet to come, and the byte where it starts.
#[derive(Clone, Copy)]
struct Pending {
    x: u64,
    at: usize,
}

/// What a piece of `sgq value` input on a board gives: its lines and the positions they answer,
/// the x left waiting for its y at its end, and where the streaming path must take over if it
/// stopped at a token that is not a coordinate.
struct BoardPiece {
    lines: Vec<u8>,
    count: u64,
    pending: Option<Pending>,
    stop: Option<usize>,
}

/// What a piece of `sgq value` input gives: its lines, the positions they answer, whether one
/// of them is past the table, and whether it stopped at a token that is not a position.
struct Piece {
    lines: Vec<u8>,
    count: u64,
    past: bool,
    stopped: bool,
}

/// Positions from number `from` on, to the end; `noted`: the note on a checked rule is written
/// (or not needed).
fn value_from(
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
            Positions::Grid(dims) => match grid_position(g, &dims, input, &format_args!("position {i}"), true)? {
                Some(index) => index,
                None => break,
            },
            Positions::Board { n } => {
                let what = format_args!("the x of position {i}");
                let Some(x) = input.next_in_or(0, max, &what, Some(&|t, v| g.beyond(&what, t, v)))? else { break };
                let what = format_args!("the y of position {i}");
                let y = input.next_or(0, max, &what, Some(&|t, v| g.beyond(&what, t, v)))?;
                x * n + y
            }
            _ => {
                // Formatted only for an error: this loop runs once a number.
                let what = format_args!("position {i}");
                let Some(n) = input.next_in_or(0, max, &what, Some(&|t, v| g.beyond(&what, t, v)))? else { break };
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
fn grid_position(
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
            match input.next_in_or(0, size - 1, &what, Some(&beyond))? {
                Some(c) => c,
                None => return Ok(None),
            }
        } else {
            input.next_or(0, size - 1, &what, Some(&beyond))?
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

/// What `sgq sum` carries from case to case.
struct Summer<'g, 'n, 'a> {
    g: &'g Lookup<'a>,
    first: String,
    second: String,
    /// The note on a checked rule is written (or not needed).
    noted: bool,
    note: &'n mut dyn FnMut(&str),
}

impl Summer<'_, '_, '_> {
    /// The answer to a case whose values XOR to `x`; `beyond`: a position in it is past the table.
    fn say(&mut self, out: &mut impl Write, x: u64, beyond: bool) -> Result<(), JudgeError> {
        if beyond && !self.noted {
            (self.note)(&self.g.note());
            self.noted = true;
        }
        out.write_all(if x != 0 { self.first.as_bytes() } else { self.second.as_bytes() })?;
        Ok(())
    }

    /// Cases `from..=cases` and the check that nothing follows them.
    fn cases(&mut self, input: &mut Scanner<impl Read, impl Buf>, out: &mut impl Write, cases: u64, from: u64) -> Result<(), JudgeError> {
        let (g, max) = (self.g, self.g.number_range());
        for case in from..=cases {
            let what = format!("a position in case {case}");
            let beyond: Beyond = Some(&|t, v| g.beyond(&what, t, v));
            let (x, past) = match g.positions {
                Positions::Grid(dims) => {
                    let count = input.next(0, u64::MAX, &format_args!("the position count n of case {case}"))?;
                    let mut x = 0;
                    for _ in 0..count {
                        let index = grid_position(g, &dims, input, &format_args!("a position in case {case}"), false)?;
                        x ^= g.get(index.unwrap_or(0));
                    }
                    (x, false)
                }
                Positions::Board { n } => {
                    let count = input.next(0, u64::MAX / 2, &format_args!("the position count n of case {case}"))?;
                    let what = format!("a coordinate in case {case}");
                    let beyond: Beyond = Some(&|t, v| g.beyond(&what, t, v));
                    let (x, _) = input.fold_or(2 * count, 0, max, &what, beyond, (0, None), |(x, pending), c| match pending {
                        None => (x, Some(c)),
                        Some(px) => (x ^ g.get(px * n + c), None),
                    })?;
                    (x, false)
                }
                _ => {
                    let count = input.next(0, u64::MAX, &format_args!("the position count n of case {case}"))?;
                    let len = g.len;
                    input.fold_or(count, 0, max, &what, beyond, (0, false), |(x, past), p| (x ^ g.get(p), past | (p >= len)))?
                }
            };
            self.say(out, x, past)?;
        }
        input.expect_end(&format!("the {cases} cases"))?;
        Ok(())
    }
}

/// `sgq sum`: `T`, then T cases of `n` and n positions; a line per case, `first` when the XOR
/// of the values is not 0 (the player to move wins), else `second`.
pub fn sum<'a>(table: impl Into<Found<'a>>, words: &Words, input: impl Read, out: &mut impl Write, note: &mut dyn FnMut(&str)) -> Result<(), JudgeError> {
    let g = Lookup::new(table)?;
    let mut summer = Summer::new(&g, words, note);
    let mut input = Scanner::new(input);
    let cases = input.next(0, u64::MAX, &"the case count T")?;
    summer.cases(&mut input, out, cases, 1)
}

/// [`sum`] for an input all in memory: heaps and rows on `par.threads` threads
/// ([`parallel::cases`]: a position is a body token, its value and whether it is past the table
/// its sum); boards (a position is two tokens) by `board_sum`.
pub fn sum_bytes<'a>(
    table: impl Into<Found<'a>>,
    words: &Words,
    data: &[u8],
    par: Parallel,
    out: &mut impl Write,
    note: &mut dyn FnMut(&str),
) -> Result<(), JudgeError> {
    let g = Lookup::new(table)?;
    let mut summer = Summer::new(&g, words, note);
    let walked = match g.positions {
        Positions::Board { n } => return board_sum(&mut summer, n, data, par, out),
        Positions::Grid(_) => {
            let mut input = Scanner::over(data, 0, 0, 0);
            let cases = input.next(0, u64::MAX, &"the case count T")?;
            return summer.cases(&mut input, out, cases, 1);
        }
        _ => {
            let (len, max) = (g.len, g.number_range());
            let format = Cases { cases: (0, u64::MAX), count: (0, u64::MAX) };
            with_value!(&g, |value| {
                let body = Body { min: 0, max, value: move |p| Sum::of(value(p), p >= len) };
                parallel::cases(data, par, format, &body, |_, s| summer.say(out, s.xor, s.flagged != 0))?
            })
        }
    };
    match walked {
        Walked::Done => Ok(()),
        Walked::Resume { at: None, .. } => {
            let mut input = Scanner::over(data, 0, 0, 0);
            let cases = input.next(0, u64::MAX, &"the case count T")?;
            summer.cases(&mut input, out, cases, 1)
        }
        Walked::Resume { at: Some((cases, from)), offset } => summer.cases(&mut Scanner::resume(data, offset), out, cases, from),
    }
}

/// `sgq sum` on a board of side `n`, its tokens read on `par.threads` threads ([`tokens`]) and
/// walked here in order: a position is two tokens, `x y`, which the walk pairs. T (any u64) is
/// read first, on its own. Tokens are stored as `u16` (half the memory traffic of `u32`, 10%
/// faster); a count or coordinate past that (a case of more than 65 533 squares, a board of
/// 65 535 and more) goes on from its case with `u32` tokens. A count past that, a coordinate off
/// the board, the input ending inside a case, or input after the last one hands over to
/// [`Summer::cases`] at the start of that case.
fn board_sum(summer: &mut Summer, n: u64, data: &[u8], par: Parallel, out: &mut impl Write) -> Result<(), JudgeError> {
    let mut head = Scanner::over(data, 0, 0, 0);
    let Ok(Some(cases)) = head.next_in(0, u64::MAX, &"the case count T") else {
        let mut input = Scanner::over(data, 0, 0, 0);
        let cases = input.next(0, u64::MAX, &"the case count T")?;
        return summer.cases(&mut input, out, cases, 1);
    };
    let mut squares = Vec::new();
    let Some(at) = board_walk::<u16>(summer, n, data, par, out, cases, (1, head.offset() as usize), &mut squares)? else { return Ok(()) };
    let Some((case, offset)) = board_walk::<u32>(summer, n, data, par, out, cases, at, &mut squares)? else { return Ok(()) };
    summer.cases(&mut Scanner::resume(data, offset), out, cases, case)
}

/// Cases `from..=cases` of a board sum, from byte `start` (where case `from` starts), with
/// tokens stored as `T`: `None` when every case is answered and nothing follows, else the case
/// where the walk stopped and the byte where it starts.
#[allow(clippy::too_many_arguments)]
fn board_walk<T: Token>(
    summer: &mut Summer,
    n: u64,
    data: &[u8],
    par: Parallel,
    out: &mut impl Write,
    cases: u64,
    (from, start): (u64, usize),
    squares: &mut Vec<u64>,
) -> Result<Option<(u64, usize)>, JudgeError> {
    let g = summer.g;
    let bound = T::MAX_BOUND.get();
    let side = n.min(bound + 1);
    let walked = tokens::walk(data, start, par, T::MAX_BOUND, |t| {
        for case in from..=cases {
            let start = t.index();
            let count = t.read().get();
            if count > bound {
                return Ok(Some((case, start)));
            }
            // The squares first, then their values: the table lookups (random reads of a
            // table larger than a core's cache) then overlap instead of waiting on the parse.
            // At most SQUARES at a time, so that a case of millions of squares needs no more.
            const SQUARES: usize = 1 << 16;
            squares.clear();
            let (mut x, mut left) = (0, count as usize);
            while left > 0 {
                if squares.len() >= SQUARES {
                    x = squares.iter().fold(x, |x, &i| x ^ g.get(i));
                    squares.clear();
                }
                // Whole pairs in this piece, read in place; a pair across pieces, one by one.
                let rest = t.rest();
                let pairs = (rest.len() / 2).min(left).min(SQUARES);
                let before = squares.len();
                squares.extend(
                    rest[..2 * pairs].chunks_exact(2).map(|p| (p[0].get(), p[1].get())).take_while(|&(a, b)| a < side && b < side).map(|(a, b)| a * n + b),
                );
                let done = squares.len() - before;
                t.skip(2 * done);
                left -= done;
                if done < pairs {
                    return Ok(Some((case, start)));
                }
                if left > 0 {
                    let (a, b) = (t.read().get(), t.read().get());
                    if a >= side || b >= side {
                        return Ok(Some((case, start)));
                    }
                    squares.push(a * n + b);
                    left -= 1;
                }
            }
            let x = squares.iter().fold(x, |x, &i| x ^ g.get(i));
            summer.say(out, x, false)?;
        }
        let start = t.index();
        Ok((t.read() != T::END).then_some((cases + 1, start)))
    })?;
    Ok(match walked {
        tokens::Walked::Done => None,
        tokens::Walked::Resume { case, offset } => Some((case, offset)),
    })
}

impl<'g, 'n, 'a> Summer<'g, 'n, 'a> {
    fn new(g: &'g Lookup<'a>, words: &Words, note: &'n mut dyn FnMut(&str)) -> Self {
        Summer { g, first: format!("{}\n", words.first), second: format!("{}\n", words.second), noted: !g.unproven(), note }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Family, Game};
    use crate::progress::Progress;
    use crate::spec::GameSpec;
    use crate::table::Table;
    use crate::values::{Packed, Rule};

    fn run_value(table: &Table, input: &str) -> (Result<String, String>, Vec<String>) {
        let mut out = Vec::new();
        let mut notes = Vec::new();
        let r = value(table, input.as_bytes(), &mut out, &mut |s| notes.push(s.to_string()));
        (r.map(|_| String::from_utf8(out).unwrap()).map_err(|e| e.to_string()), notes)
    }

    fn heap_table(spec: &str, values: &[u32], rule: Option<Rule>) -> Table {
        Table { spec: GameSpec::parse(spec).unwrap(), values: Packed::from_values(values), rule }
    }

    #[test]
    fn rule_reach_stops_before_overflow() {
        // g(n) = n on 0..40, saltus 1 period 1: g(n) = n everywhere, fits u64 up to u64::MAX.
        let values: Vec<u32> = (0..40).collect();
        let rule = Rule { pre: 0, period: 1, saltus: 1, checked: 40, proven: true };
        let t = heap_table("sub:1:40", &values, Some(rule));
        let g = Lookup::new(&t).unwrap();
        assert_eq!(g.limit(), u64::MAX);
        assert_eq!(g.get(u64::MAX), u64::MAX);
        // Saltus 3, period 2: g(2k + r) = head[r] + 3k; head = [5, 7].
        let values: Vec<u32> = (0..40u32).map(|n| [5, 7][n as usize % 2] + 3 * (n / 2)).collect();
        let rule = Rule { pre: 0, period: 2, saltus: 3, checked: 40, proven: true };
        let t = heap_table("sub:1:40", &values, Some(rule));
        let g = Lookup::new(&t).unwrap();
        let kmax = (u64::MAX - 7) / 3;
        assert_eq!(g.limit(), 2 * kmax + 1);
        assert_eq!(g.get(g.limit()), 7 + 3 * kmax);
        let (r, _) = run_value(&t, &format!("{}\n", g.limit() + 1));
        let e = r.unwrap_err();
        assert!(e.contains("past the reach of the rule") && e.contains("line 1, column 1"), "{e}");
    }

    #[test]
    fn a_rule_that_does_not_fit_is_refused() {
        let rule = Rule { pre: 30, period: 20, saltus: 0, checked: 40, proven: true };
        let t = heap_table("sub:1:40", &[0; 40], Some(rule));
        assert!(Lookup::new(&t).err().unwrap().to_string().contains("does not fit its 40 entries"));
    }

    /// A board game made up for the tests (no board family may exist yet): g(x, y) = x XOR y,
    /// which is Nim on two heaps, on an n×n board.
    #[derive(Debug)]
    struct FakeBoard(u64);

    static FAKE: Family = Family { name: "fakeboard", grammar: "fakeboard", parse: |_| None };

    impl Game for FakeBoard {
        fn family(&self) -> &'static Family {
            &FAKE
        }
        fn canonical(&self) -> String {
            format!("fakeboard:{}", self.0)
        }
        fn len(&self) -> u64 {
            self.0 * self.0
        }
        fn positions(&self) -> Positions {
            Positions::Board { n: self.0 }
        }
        fn reference(&self, _: &Progress) -> Result<Packed, crate::games::GameError> {
            let n = self.0;
            Ok(Packed::from_values(&(0..n * n).map(|i| (i / n) ^ (i % n)).collect::<Vec<u64>>()))
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    #[test]
    fn board_positions_are_pairs() {
        let spec = GameSpec::new(FakeBoard(8));
        let t = Table { values: spec.reference(&Progress::silent()).unwrap(), spec, rule: None };
        let (r, _) = run_value(&t, "0 0\n3 5\n7 7\n7 0\n");
        assert_eq!(r.unwrap(), "0\n6\n0\n7\n");
        let (r, _) = run_value(&t, "1 2\n8 0\n");
        let e = r.unwrap_err();
        assert_eq!(
            e,
            "bad input: line 2, column 1 (byte 4): the x of position 2 `8` is off the board: fakeboard:8 is 8×8, coordinates 0..=7; no table that sgtab builds for this game covers it"
        );
        let (r, _) = run_value(&t, "1 2\n3");
        assert!(r.unwrap_err().contains("input ends where the y of position 2 was expected"));
        let mut out = Vec::new();
        let words = Words { first: "A", second: "B" };
        sum(&t, &words, "3\n2\n1 2 3 0\n1\n0 0\n0\n".as_bytes(), &mut out, &mut |_| panic!("no note")).unwrap();
        // 1^2 = 3, 3^0 = 3: XOR 0 → B; (0,0) → 0 → B; nothing → B.
        assert_eq!(String::from_utf8(out).unwrap(), "B\nB\nB\n");
        let mut out = Vec::new();
        sum(&t, &words, "1\n2\n1 2 3 1\n".as_bytes(), &mut out, &mut |_| panic!("no note")).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "A\n");
        let mut out = Vec::new();
        let e = sum(&t, &words, "1\n1\n1 9\n".as_bytes(), &mut out, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("line 3, column 3") && e.contains("`9` is off the board"), "{e}");
    }
}
