//! The walk over token arrays: for formats whose numbers are not "a header and n numbers that
//! each count on their own" ([`super::prefix`] reads those): a chess row is a count and that
//! many columns combined into one mask, an S-Nim case starts with the move set its table is
//! built from, a square of a board is two tokens. Used by `chess`, `snim`, `funny`, `stones`
//! and `sgq sum` on a board.
//!
//! 1. **On the threads, per piece** (the text parsing, nearly all of the work): every token of
//!    a piece is read as a number in `0..=max` (a small per-format bound, so a `u16` holds it)
//!    into a compact array, with the scanner's bulk path ([`Scanner::fold_some`]). A token that
//!    is not a number in that bound is stored as [`Token::ODD`], and the piece ends there:
//!    nothing after it is needed.
//! 2. **In order, on one thread** (a cheap loop over integers, no text): the problem's own
//!    grammar reads the numbers through [`TokenNumbers`], the same grammar, written once
//!    against [`Numbers`], that reads a stream through the scanner.
//!
//! Memory stays bounded whatever the input size: pieces are read in a sliding window of about
//! two per thread ahead of the reading ([`Ordered`]), and each piece's array is dropped once it
//! has been read.
//!
//! Anything unusual (an odd token, a value out of the range the grammar asks for, a failed
//! check such as a repeated chess column, the input ending inside a case, input after the last
//! case) makes [`TokenNumbers`] hand over to the streaming scanner at the byte where that token
//! starts ([`Tokens::offset_of`], which reads that one piece again to find it): the grammar
//! goes on reading from the scanner, so the message (text, line, column, byte) and exit status
//! are the streaming path's own, and so is any output before it. A walk of its own over
//! [`Tokens`] ([`walk`]: `sgq sum` on a board) hands back at the start of a case instead.

use super::{Ordered, Parallel, Walked, cut_from, ordered, token_start};
use crate::judge::input::{Halt, InputError, Numbers, Scanner, Want};
use std::ops::Range;

/// What a piece's tokens are stored as: `u16` for the five problems (their numbers are small),
/// `u32` for `sgq sum` on a board (counts and coordinates past 65 533). The top two values are
/// [`Token::ODD`] and [`Token::END`].
pub trait Token: Copy + Eq + Ord + Send + Sync + 'static {
    /// A token that is not a number in the piece's bound (the read of a piece stops there).
    const ODD: Self;
    /// What [`Tokens::read`] gives past the last token.
    const END: Self;
    /// The largest bound a format may give: every value is below [`Token::END`].
    const MAX_BOUND: Self;
    /// `x`, which is at most [`Token::MAX_BOUND`].
    fn of(x: u64) -> Self;
    fn get(self) -> u64;
}

/// [`Token`] for an unsigned integer type: its top two values are odd and end.
macro_rules! token {
    ($t:ty) => {
        impl Token for $t {
            const ODD: $t = <$t>::MAX;
            const END: $t = <$t>::MAX - 1;
            const MAX_BOUND: $t = <$t>::MAX - 2;
            #[inline(always)]
            fn of(x: u64) -> $t {
                x as $t
            }
            #[inline(always)]
            fn get(self) -> u64 {
                self as u64
            }
        }
    };
}
token!(u16);
token!(u32);

/// Reads one piece on a thread: its tokens as numbers in `0..=max`, through the first odd one.
pub fn read_piece<T: Token>(data: &[u8], range: Range<usize>, max: T) -> Vec<T> {
    let max = max.min(T::MAX_BOUND);
    let mut scan = Scanner::over(&data[range.clone()], range.start as u64, 0, 0);
    // A token and its separator take at least two bytes: this never grows.
    let mut values = Vec::with_capacity(range.len() / 2 + 1);
    let (v, _, halt) =
        scan.fold_some(u64::MAX, &Want::any(0, max.get()), values, |mut v: Vec<T>, x| {
            v.push(T::of(x));
            v
        });
    values = v;
    if let Some(Halt::Bad(_)) = halt {
        values.push(T::ODD);
    }
    values
}

/// The tokens of a run of pieces, in order, as phase 2 reads them.
pub struct Tokens<'d, 'o, 's, 'f, T: Token = u16> {
    data: &'d [u8],
    ranges: Vec<Range<usize>>,
    pieces: &'o mut Ordered<'s, 'f, Range<usize>, Vec<T>>,
    /// The index of the first token of each piece received.
    first: Vec<u64>,
    cur: Vec<T>,
    pos: usize,
}

impl<T: Token> Tokens<'_, '_, '_, '_, T> {
    /// The next token's value, [`Token::ODD`] for one that is not a number in the bound
    /// (nothing follows it), [`Token::END`] past the last.
    #[inline(always)]
    pub fn read(&mut self) -> T {
        match self.cur.get(self.pos) {
            Some(&v) => {
                self.pos += 1;
                v
            }
            None => self.next_piece(),
        }
    }

    #[cold]
    #[inline(never)]
    fn next_piece(&mut self) -> T {
        loop {
            if self.cur.last() == Some(&T::ODD) {
                return T::END; // never reached: the walk stops at the odd token
            }
            let Some(piece) = self.pieces.next_in_order(&self.ranges) else {
                self.pos = self.cur.len();
                return T::END;
            };
            self.first.push(self.index());
            self.cur = piece;
            self.pos = 0;
            if let Some(&v) = self.cur.first() {
                self.pos = 1;
                return v;
            }
        }
    }

    /// The tokens left in the current piece (none at its end: [`read`](Tokens::read) moves on),
    /// for a walk to read a run of them in place and step past with [`skip`](Tokens::skip).
    #[inline(always)]
    pub fn rest(&self) -> &[T] {
        &self.cur[self.pos..]
    }

    /// Steps past `n` tokens of [`rest`](Tokens::rest) (no more than it holds).
    #[inline(always)]
    pub fn skip(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.cur.len());
    }

    /// The index of the next token (tokens counted from the start of the run).
    #[inline(always)]
    pub fn index(&self) -> u64 {
        self.first.last().copied().unwrap_or(0) + self.pos as u64
    }

    /// The byte offset where token `index` starts (the end of the data past the last one):
    /// its piece is read again, once, from its start. `index` must be in the current piece
    /// or one received before it.
    pub fn offset_of(&self, index: u64) -> usize {
        let p = self.first.partition_point(|&f| f <= index).saturating_sub(1);
        match self.first.get(p) {
            Some(&f) => token_start(self.data, self.ranges[p].start, index - f),
            None => token_start(
                self.data,
                self.ranges.first().map_or(self.data.len(), |r| r.start),
                index,
            ),
        }
    }
}

/// Runs `body` over the tokens of `data[start..]`, read in parallel (each a number in `0..=max`).
fn with_tokens<T: Token, R>(
    data: &[u8],
    start: usize,
    par: Parallel,
    max: T,
    body: impl FnOnce(&mut Tokens<T>) -> R,
) -> R {
    let ranges = cut_from(data, start, par);
    let read = |r: Range<usize>| {
        let tokens = read_piece(data, r.clone(), max);
        par.release(&data[r]);
        tokens
    };
    ordered(par.threads, &read, |pieces| {
        body(&mut Tokens { data, ranges, pieces, first: Vec::new(), cur: Vec::new(), pos: 0 })
    })
}

/// Reads the tokens of `data[start..]` in parallel (each a number in `0..=max`) and runs `walk`
/// over them in order; turns where it stopped into a byte offset for the streaming path. The
/// walk says `None` when it is done, else the case to hand over at and the index of its first
/// token ([`Tokens::index`] before it was read).
pub fn walk<T: Token, E>(
    data: &[u8],
    start: usize,
    par: Parallel,
    max: T,
    walk: impl FnOnce(&mut Tokens<T>) -> Result<Option<(u64, u64)>, E>,
) -> Result<Walked, E> {
    with_tokens(data, start, par, max, |tokens| {
        Ok(match walk(tokens)? {
            None => Walked::Done,
            Some((case, index)) => Walked::Resume { case, offset: tokens.offset_of(index) },
        })
    })
}

/// Runs a problem's grammar (`read`) over the numbers of `data[start..]`, their tokens read on
/// `par.threads` threads (each a number in `0..=max`, `max` at least every number the grammar
/// accepts there): see [`TokenNumbers`].
pub fn read<T: Token, R>(
    data: &[u8],
    start: usize,
    par: Parallel,
    max: T,
    read: impl FnOnce(&mut TokenNumbers<T>) -> R,
) -> R {
    with_tokens(data, start, par, max, |tokens| read(&mut TokenNumbers { tokens, stream: None }))
}

/// The numbers of an input in memory as [`Numbers`]: each taken from the tokens read in
/// parallel while it is a plain number in the range asked for. At the first that is not (an odd
/// token, a number out of range, the end where a number is needed, a failed check, input after
/// the last case), a scanner takes over at the byte where that token starts and reads the rest
/// of the input, so the message, and everything after, is the streaming path's own.
pub struct TokenNumbers<'t, 'd, 'o, 's, 'f, T: Token> {
    tokens: &'t mut Tokens<'d, 'o, 's, 'f, T>,
    stream: Option<Scanner<std::io::Empty, &'d [u8]>>,
}

impl<'d, T: Token> TokenNumbers<'_, 'd, '_, '_, '_, T> {
    /// The scanner, from the start of token `index` on.
    #[cold]
    #[inline(never)]
    fn hand_over(&mut self, index: u64) -> &mut Scanner<std::io::Empty, &'d [u8]> {
        let at = self.tokens.offset_of(index);
        self.stream.insert(Scanner::resume(self.tokens.data, at))
    }

    /// The index of the token `v` just read ([`Tokens::read`] stays at the end).
    fn index_of(&self, v: T) -> u64 {
        if v == T::END { self.tokens.index() } else { self.tokens.index() - 1 }
    }
}

impl<T: Token> Numbers for TokenNumbers<'_, '_, '_, '_, '_, T> {
    #[inline(always)]
    fn next(
        &mut self,
        min: u64,
        max: u64,
        what: &dyn std::fmt::Display,
    ) -> Result<u64, InputError> {
        if let Some(scan) = &mut self.stream {
            return scan.next(min, max, what);
        }
        let v = self.tokens.read();
        let x = v.get();
        if x >= min && x <= max && x <= T::MAX_BOUND.get() {
            return Ok(x);
        }
        let i = self.index_of(v);
        self.hand_over(i).next(min, max, what)
    }

    #[inline(always)]
    fn next_in(
        &mut self,
        min: u64,
        max: u64,
        what: &dyn std::fmt::Display,
    ) -> Result<Option<u64>, InputError> {
        if let Some(scan) = &mut self.stream {
            return scan.next_in(min, max, what);
        }
        let v = self.tokens.read();
        let x = v.get();
        if x >= min && x <= max && x <= T::MAX_BOUND.get() {
            return Ok(Some(x));
        }
        if v == T::END {
            return Ok(None);
        }
        let i = self.index_of(v);
        self.hand_over(i).next_in(min, max, what)
    }

    fn error_at_last(&mut self, message: String) -> InputError {
        if let Some(scan) = &self.stream {
            return scan.error_at_last(message);
        }
        // The last token was a plain number: the scanner reads it again to stand where the
        // streaming path would.
        let scan = self.hand_over(self.tokens.index() - 1);
        let _ = scan.next(0, u64::MAX, &"");
        scan.error_at_last(message)
    }

    fn expect_end(&mut self, after: &str) -> Result<(), InputError> {
        if let Some(scan) = &mut self.stream {
            return scan.expect_end(after);
        }
        let v = self.tokens.read();
        if v == T::END {
            return Ok(());
        }
        let i = self.index_of(v);
        self.hand_over(i).expect_end(after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::input::is_space;

    fn rng(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// Random tokens (numbers in and past the bound, leading zeros, now and then a bad one)
    /// with separators of every kind.
    fn make(seed: u64, count: usize) -> Vec<u8> {
        let mut x = seed | 1;
        let mut text = String::new();
        for _ in 0..count {
            let sep = ["\n", " ", "\t", "\r\n", "    "][(rng(&mut x) % 5) as usize];
            let token = match rng(&mut x) % 100 {
                0 => "x1".to_string(),
                1 => format!("000000000000000000{}", rng(&mut x) % 1200),
                2 => format!("{}", rng(&mut x) % 100_000),
                _ => format!("{}", rng(&mut x) % 1001),
            };
            text += &token;
            text += sep;
        }
        text.into_bytes()
    }

    /// A plain reading: every token, as a number in `0..=max` or ODD; through the first ODD.
    fn plain<T: Token>(data: &[u8], max: T) -> Vec<T> {
        let mut out = Vec::new();
        for t in data.split(|&b| is_space(b)).filter(|t| !t.is_empty()) {
            let v = std::str::from_utf8(t)
                .ok()
                .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|s| {
                    let s = s.trim_start_matches('0');
                    if s.len() > 19 { None } else { Some(s.parse::<u64>().unwrap_or(0)) }
                });
            match v {
                Some(v) if v <= max.get() => out.push(T::of(v)),
                _ => {
                    out.push(T::ODD);
                    break;
                }
            }
        }
        out
    }

    /// Every token through `walk`, with the offset of each.
    fn all<T: Token + std::fmt::Debug>(
        data: &[u8],
        threads: usize,
        piece: usize,
        max: T,
    ) -> (Vec<T>, Vec<usize>) {
        let mut got = Vec::new();
        let mut offsets = Vec::new();
        let walked = walk(data, 0, Parallel { threads, piece, ..Parallel::new(1) }, max, |t| {
            loop {
                let i = t.index();
                let v = t.read();
                if v == T::END {
                    return Ok::<_, ()>(None);
                }
                got.push(v);
                offsets.push(t.offset_of(i));
                if v == T::ODD {
                    return Ok(Some((7, i)));
                }
            }
        })
        .unwrap();
        if got.last() == Some(&T::ODD) {
            assert_eq!(walked, Walked::Resume { case: 7, offset: *offsets.last().unwrap() });
        } else {
            assert_eq!(walked, Walked::Done);
        }
        (got, offsets)
    }

    #[test]
    fn tokens_agree_with_a_plain_reading() {
        for seed in 1..25 {
            let data = make(seed, 50 + seed as usize * 40);
            let starts: Vec<usize> = (0..data.len())
                .filter(|&i| !is_space(data[i]) && (i == 0 || is_space(data[i - 1])))
                .collect();
            for max in [1000u16, 1199, <u16 as Token>::MAX_BOUND] {
                let want = plain(&data, max);
                for (threads, piece) in [(1, 1), (1, 100), (2, 7), (3, 64), (7, 13), (2, 1 << 20)] {
                    let (got, offsets) = all(&data, threads, piece, max);
                    assert_eq!(
                        got, want,
                        "seed {seed}, max {max}, {threads} threads, pieces of {piece}"
                    );
                    assert_eq!(offsets[..], starts[..offsets.len()], "seed {seed}");
                }
            }
            // The wide tokens of a board sum: numbers past 65 533 are values, not odd.
            for max in [70_000u32, <u32 as Token>::MAX_BOUND] {
                let want = plain(&data, max);
                for (threads, piece) in [(1, 100), (2, 7), (7, 13)] {
                    let (got, offsets) = all(&data, threads, piece, max);
                    assert_eq!(
                        got, want,
                        "seed {seed}, max {max}, {threads} threads, pieces of {piece}"
                    );
                    assert_eq!(offsets[..], starts[..offsets.len()], "seed {seed}");
                }
            }
        }
    }

    #[test]
    fn the_end_and_a_start_past_the_first_token() {
        let data = b"5 1 2  3\n";
        let mut got = Vec::new();
        let w = walk(data, 1, Parallel { threads: 2, piece: 2, ..Parallel::new(1) }, 10, |t| {
            while t.read() != <u16 as Token>::END {}
            got.push(t.offset_of(t.index()));
            got.push(t.offset_of(0));
            got.push(t.offset_of(2));
            Ok::<_, ()>(Some((1, 3)))
        })
        .unwrap();
        assert_eq!(got, [9, 2, 7]);
        assert_eq!(w, Walked::Resume { case: 1, offset: 9 });
        assert_eq!(
            walk(b"   ", 0, Parallel { threads: 3, piece: 1, ..Parallel::new(1) }, 10, |t| Ok::<
                _,
                (),
            >(
                (t.read() != <u16 as Token>::END).then_some((1, 0))
            ))
            .unwrap(),
            Walked::Done
        );
    }
}
