//! `sgq value` and `sgq sum` on a board, where a position is two tokens, `x y`: on input in
//! memory a token's meaning depends on whether it is an x or a y, so the pieces read on the
//! threads are paired up by the walk in order.

use super::sum::Summer;
use super::value_from;
use crate::judge::JudgeError;
use crate::judge::input::mapped::tokens::{self, Token};
use crate::judge::input::mapped::{Parallel, Walked, cut_lines, ordered, token_start};
use crate::judge::input::{Halt, Scanner, Want};
use crate::judge::lookup::Lookup;
use std::io::Write;
use std::ops::Range;

/// `sgq value` on a board of side `n`: a position is two tokens, `x y`, so a piece's lines
/// depend on whether its first token is an x. Pieces are cut just after a newline where one is
/// near ([`cut_lines`]), and each is read and its lines written on the threads as if
/// it starts with an x, which holds for input with whole positions on each line. The walk knows
/// the truth: where the piece before left an x waiting for its y, that piece is read again on
/// the walk's thread with that x, and the pieces after it are taken as they come. A piece stops
/// at its first token that is not a coordinate; the streaming path takes over at the start of
/// the position it is in (its x, maybe in the piece before), and also where the input ends
/// after an x, so every error is its own.
pub(super) fn board_value(
    g: &Lookup,
    n: u64,
    data: &[u8],
    par: Parallel,
    out: &mut impl Write,
    note: &mut dyn FnMut(&str),
    noted: bool,
) -> Result<(), JudgeError> {
    let ranges = cut_lines(data, par.piece, par.threads);
    let lines = |r: Range<usize>, carried: Option<Pending>| {
        let mut scan = Scanner::over(&data[r.clone()], r.start as u64, 0, 0);
        let mut buf = itoa::Buffer::new();
        // A line is about as long as its position: the buffer grows where values are longer.
        let mut lines = Vec::with_capacity(r.len() + 64);
        // (positions answered, tokens read, the x waiting for its y or NO_X); the lines are
        // written to, not carried in the fold, which moves its state once a token.
        const NO_X: u64 = u64::MAX;
        let start = (0u64, 0u64, carried.map_or(NO_X, |p| p.x));
        let ((count, tokens, x), _, halt) =
            scan.fold_some(u64::MAX, &Want::any(0, n - 1), start, |(count, tokens, x), c| {
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
            (Some(x), t) => Some(Pending { x, at: token_start(data, r.start, t - 1) }),
        };
        let stop = matches!(halt, Some(Halt::Bad(_)))
            .then(|| pending.map_or_else(|| token_start(data, r.start, tokens), |p| p.at));
        BoardLines { lines, count, pending, stop }
    };
    // Where the streaming path takes over: a byte offset, and that position's number.
    let read = |r: Range<usize>| lines(r, None);
    let stop = ordered(par.threads, &read, |pieces| {
        let (mut p, mut position, mut carry) = (0, 1u64, None);
        while let Some(mut piece) = pieces.next_in_order(&ranges) {
            if carry.is_some() {
                piece = lines(ranges[p].clone(), carry);
            }
            out.write_all(&piece.lines)?;
            position += piece.count;
            if let Some(at) = piece.stop {
                return Ok(Some((at, position)));
            }
            carry = piece.pending;
            p += 1;
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
struct BoardLines {
    lines: Vec<u8>,
    count: u64,
    pending: Option<Pending>,
    stop: Option<usize>,
}

/// `sgq sum` on a board of side `n`, its tokens read on `par.threads` threads ([`tokens`]) and
/// walked here in order: a position is two tokens, `x y`, which the walk pairs. T (any u64) is
/// read first, on its own. Tokens are stored as `u16` (half the memory traffic of `u32`); a
/// count or coordinate past that (a case of more than 65 533 squares, a board of
/// 65 535 and more) goes on from its case with `u32` tokens. A count past that, a coordinate off
/// the board, the input ending inside a case, or input after the last one hands over to
/// [`Summer::cases`] at the start of that case.
pub(super) fn board_sum(
    summer: &mut Summer,
    n: u64,
    data: &[u8],
    par: Parallel,
    out: &mut impl Write,
) -> Result<(), JudgeError> {
    let mut head = Scanner::over(data, 0, 0, 0);
    let Ok(Some(cases)) = head.next_in(0, u64::MAX, &"the case count T") else {
        return summer.all(&mut Scanner::over(data, 0, 0, 0), out);
    };
    let mut squares = Vec::new();
    let Some(at) = board_walk::<u16>(
        summer,
        n,
        data,
        par,
        out,
        cases,
        (1, head.offset() as usize),
        &mut squares,
    )?
    else {
        return Ok(());
    };
    let Some((case, offset)) =
        board_walk::<u32>(summer, n, data, par, out, cases, at, &mut squares)?
    else {
        return Ok(());
    };
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
    let walked = tokens::walk(data, start, par, T::MAX_BOUND, |t| -> Result<_, JudgeError> {
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
                    rest[..2 * pairs]
                        .chunks_exact(2)
                        .map(|p| (p[0].get(), p[1].get()))
                        .take_while(|&(a, b)| a < side && b < side)
                        .map(|(a, b)| a * n + b),
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
        Walked::Done => None,
        Walked::Resume { case, offset } => Some((case, offset)),
    })
}
