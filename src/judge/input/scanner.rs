//! The streaming scanner: judge input read through one fixed buffer, so memory stays bounded
//! however long the input is; the token being read is kept whole by moving it to the front of
//! the buffer before a refill. Line and column are not tracked per byte, which would cost the
//! hot loop registers: newlines are counted in bulk (a vectorised count) as each buffer is
//! dropped, and the exact position is worked out only when an error is reported. Over a slice
//! (`B = &[u8]`: a mapped file, or a piece of one) the same scanner reads in place.
//!
//! Numbers take a fast path when enough bytes are buffered around them: the end of a token is
//! found eight bytes at a time (SWAR, or block bit masks in `fold`), and its digits are
//! converted by one routine, `digits_before`, with no loop over them. Long runs (`fold`) go to
//! the bulk kernels ([`super::kernel`]). Anything unusual (a token of 16 or more bytes, a bad
//! character, a number out of range, a token split by a refill) falls back to the
//! byte-at-a-time path, which also writes the error message.
//!
//! The verdict on a token never depends on where it falls in the buffer or how the input
//! arrives: the byte-at-a-time path streams a token of any length (it keeps its start offset and
//! first bytes, not the token), so a number with any count of leading zeros is read as its value
//! everywhere, and one with more than 20 significant digits is out of range everywhere.

use super::kernel::{self, count_newlines, digits_before, token_len};
use super::{CLASS, InputError, Numbers, Position, SPACE, Want};
use std::fmt;
use std::io::{self, Read};

/// Size of the input buffer.
pub const BUFFER: usize = 1 << 18;
/// Bytes of a bad token kept for its message (one more than shown, to know it goes on).
const SHOWN: usize = 24;

/// What a scanner reads from: its own buffer, refilled from a stream, or a slice that holds the
/// whole input (a mapped file, or a piece of one), read in place with no copy.
pub trait Buf: std::ops::Deref<Target = [u8]> {
    /// The buffer to refill; a slice scanner is at the end of its input from the start and never
    /// refills, so it has none.
    fn writable(&mut self) -> Option<&mut [u8]>;
}

impl Buf for Box<[u8]> {
    fn writable(&mut self) -> Option<&mut [u8]> {
        Some(self)
    }
}

impl Buf for &[u8] {
    fn writable(&mut self) -> Option<&mut [u8]> {
        None
    }
}

/// Why [`Scanner::fold_some`] stopped before its count.
pub enum Halt {
    /// The input ended.
    End,
    /// A token that is not a number in range; the scanner stands inside or just past it.
    Bad(InputError),
}

/// Reads unsigned decimal numbers from a byte stream (or a slice, `B = &[u8]`).
pub struct Scanner<R, B = Box<[u8]>> {
    src: R,
    buf: B,
    pos: usize,
    end: usize,
    eof: bool,
    /// Stream offset of buf[0].
    base: u64,
    /// Newlines in the stream before buf[0], counted in bulk as buffers are dropped.
    lines: u64,
    /// Stream offset just past the last newline before buf[0] (0 if none).
    line_start: u64,
    /// Stream offsets of the start and end of the last token read by the byte-at-a-time path,
    /// whose start may have been dropped from the buffer since (see `error_at_last`).
    slow_token: (u64, u64),
}

/// Describes the token found, for messages: at most 24 bytes of it, escaped, with a byte that
/// is not UTF-8 shown as `\xff` (not as `�`, which would hide which byte it was).
fn show(token: &[u8]) -> String {
    let cut = &token[..token.len().min(SHOWN)];
    let mut s = String::new();
    for chunk in cut.utf8_chunks() {
        s.extend(chunk.valid().chars().flat_map(char::escape_debug));
        for b in chunk.invalid() {
            s += &format!("\\x{b:02x}");
        }
    }
    if token.len() > cut.len() {
        s.push('…');
    }
    s
}

/// A token's first bytes, gathered while it streams past (for its message).
struct Head {
    bytes: [u8; SHOWN + 1],
    len: usize,
}

impl Head {
    fn new() -> Head {
        Head { bytes: [0; SHOWN + 1], len: 0 }
    }

    #[inline]
    fn push(&mut self, b: u8) {
        if self.len < self.bytes.len() {
            self.bytes[self.len] = b;
            self.len += 1;
        }
    }

    fn full(&self) -> bool {
        self.len == self.bytes.len()
    }

    fn show(&self) -> String {
        show(&self.bytes[..self.len])
    }
}

impl<'a> Scanner<io::Empty, &'a [u8]> {
    /// A scanner over `input` in place, which stands at stream offset `at`: line `lines + 1`,
    /// whose first byte is at offset `line_start` (for positions in messages; all 0 for input
    /// that starts there).
    pub fn over(input: &'a [u8], at: u64, lines: u64, line_start: u64) -> Self {
        Scanner {
            src: io::empty(),
            end: input.len(),
            buf: input,
            pos: 0,
            eof: true,
            base: at,
            lines,
            line_start,
            slow_token: (u64::MAX, u64::MAX),
        }
    }

    /// A scanner over `data[at..]` that names places as in the whole of `data` (the newlines
    /// before `at` are counted here, once): where the streaming path takes over from the
    /// parallel one.
    pub fn resume(data: &'a [u8], at: usize) -> Self {
        let before = &data[..at];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |nl| nl as u64 + 1);
        Scanner::over(&data[at..], at as u64, count_newlines(before), line_start)
    }
}

impl<R: Read> Scanner<R> {
    pub fn new(src: R) -> Scanner<R> {
        Scanner::with_capacity(src, BUFFER)
    }

    /// A scanner with a small buffer, to test tokens split across refills.
    pub fn with_capacity(src: R, capacity: usize) -> Scanner<R> {
        let capacity = capacity.max(16);
        Scanner {
            src,
            buf: vec![0; capacity].into_boxed_slice(),
            pos: 0,
            end: 0,
            eof: false,
            base: 0,
            lines: 0,
            line_start: 0,
            slow_token: (u64::MAX, u64::MAX),
        }
    }
}

impl<R: Read, B: Buf> Scanner<R, B> {
    /// Drops buf[..keep], moves the rest to the front and reads more. Returns false at the end
    /// of the input (nothing more was read).
    #[cold]
    fn refill(&mut self, keep: usize) -> Result<bool, InputError> {
        let (false, Some(buf)) = (self.eof, self.buf.writable()) else { return Ok(false) };
        let gone = &buf[..keep];
        self.lines += count_newlines(gone);
        if let Some(nl) = gone.iter().rposition(|&b| b == b'\n') {
            self.line_start = self.base + nl as u64 + 1;
        }
        self.base += keep as u64;
        buf.copy_within(keep..self.end, 0);
        self.end -= keep;
        self.pos -= keep;
        loop {
            match self.src.read(&mut buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(InputError::Io(e)),
            }
        }
    }

    /// The position of buf[i].
    fn position(&self, i: usize) -> Position {
        let before = &self.buf[..i];
        let lines = count_newlines(before);
        let line_start = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => self.base + nl as u64 + 1,
            None => self.line_start,
        };
        let offset = self.base + i as u64;
        Position { line: self.lines + lines + 1, column: offset - line_start + 1, offset }
    }

    /// The position of stream offset `at`, which is in the buffer or starts a run of
    /// non-newline bytes that reaches into it (a token streamed past by the slow path).
    fn position_of(&self, at: u64) -> Position {
        if at >= self.base {
            return self.position((at - self.base) as usize);
        }
        // Every newline before buf[0] was before `at` (the bytes from `at` on are a token's).
        Position { line: self.lines + 1, column: at - self.line_start + 1, offset: at }
    }

    fn error<T>(&self, at: usize, message: String) -> Result<T, InputError> {
        Err(InputError::Format { at: self.position(at), message })
    }

    /// The offset of `buf[pos]` in the stream: just past the last token read.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads the rest of the token at `pos` (up to whitespace or the end) into `head`,
    /// streaming: nothing of it is kept in the buffer. For messages only.
    #[cold]
    fn gather(&mut self, head: &mut Head) -> Result<(), InputError> {
        loop {
            while self.pos < self.end && !head.full() {
                if CLASS[self.buf[self.pos] as usize] == SPACE {
                    return Ok(());
                }
                head.push(self.buf[self.pos]);
                self.pos += 1;
            }
            if head.full() || !self.refill(self.end)? {
                return Ok(());
            }
        }
    }

    /// Skips whitespace; returns false at the end of the input.
    #[inline]
    fn skip_space(&mut self) -> Result<bool, InputError> {
        loop {
            while self.pos < self.end {
                if CLASS[self.buf[self.pos] as usize] != SPACE {
                    return Ok(true);
                }
                self.pos += 1;
            }
            if !self.refill(self.end)? {
                return Ok(false);
            }
        }
    }

    /// Reads the next token as a number in `min..=max`; `None` at the end of the input.
    /// `what` names the number for messages ("heap size in case 3").
    #[inline]
    pub fn next_in(
        &mut self,
        min: u64,
        max: u64,
        what: &dyn fmt::Display,
    ) -> Result<Option<u64>, InputError> {
        self.next_in_or(&Want::new(min, max, what))
    }

    /// [`next_in`](Scanner::next_in), with `beyond` writing the message for a number past `max`.
    #[inline]
    pub fn next_in_or(&mut self, want: &Want) -> Result<Option<u64>, InputError> {
        if !self.skip_space()? {
            return Ok(None);
        }
        if let Some((value, len)) = self.fast_digits()
            && (want.min..=want.max).contains(&value)
        {
            self.pos += len;
            return Ok(Some(value));
        }
        self.slow_number(want).map(Some)
    }

    /// The number at `pos` and its length, if it has 1 to 15 digits, whitespace follows it and
    /// the 16 bytes from its start and the 16 up to its end are buffered. Consumes nothing.
    #[inline(always)]
    fn fast_digits(&self) -> Option<(u64, usize)> {
        let window = &self.buf[..self.end];
        let len = token_len(window.get(self.pos..self.pos + 16)?.try_into().unwrap())?;
        let end = self.pos + len;
        let before: &[u8; 16] = window.get(end.checked_sub(16)?..end)?.try_into().unwrap();
        Some((digits_before(before, len), len))
    }

    /// The byte-at-a-time path for the token at `pos`: any length, any split across refills,
    /// and the error messages. It streams: the buffer is refilled past the token's digits
    /// (leading zeros are skipped as they come), and only its start offset and first bytes are
    /// kept, so a token is judged the same wherever it falls and however the input arrives.
    #[cold]
    fn slow_number(&mut self, want: &Want) -> Result<u64, InputError> {
        let &Want { min, max, what, beyond } = want;
        let start = self.offset();
        let mut head = Head::new();
        let mut value: Option<u64> = Some(0); // None once past u64
        let mut digits = false;
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                let d = b.wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                digits = true;
                head.push(b);
                value = value.and_then(|v| v.checked_mul(10)?.checked_add(d as u64));
                self.pos += 1;
            }
            if self.pos < self.end || !self.refill(self.end)? {
                break;
            }
        }
        self.slow_token = (start, self.offset());
        let ends_cleanly = self.pos == self.end || CLASS[self.buf[self.pos] as usize] == SPACE;
        if !digits || !ends_cleanly {
            self.gather(&mut head)?;
            let message =
                format!("expected {what} (a whole number {min} to {max}), found `{}`", head.show());
            return Err(InputError::Format { at: self.position_of(start), message });
        }
        match value {
            Some(v) if (min..=max).contains(&v) => Ok(v),
            v => {
                let message = match beyond {
                    Some(say) if v.is_none_or(|v| v > max) => say(&head.show(), v),
                    _ => format!("{what} `{}` is out of range {min} to {max}", head.show()),
                };
                Err(InputError::Format { at: self.position_of(start), message })
            }
        }
    }

    /// [`fold`](Numbers::fold), with `beyond` writing the message for a number past `max`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn fold_or<A>(
        &mut self,
        count: u64,
        want: &Want,
        acc: A,
        f: impl FnMut(A, u64) -> A,
    ) -> Result<A, InputError> {
        match self.fold_some(count, want, acc, f) {
            (acc, _, None) => Ok(acc),
            (_, _, Some(Halt::End)) => {
                self.error(self.pos, format!("input ends where {} was expected", want.what))
            }
            (_, _, Some(Halt::Bad(e))) => Err(e),
        }
    }

    /// [`fold_or`](Scanner::fold_or) that keeps what it folded when it stops early: the value,
    /// how many of the `count` numbers are left, and why it stopped (`None`: all were read).
    /// The parallel path (`super::parallel`) folds a piece this way and steps over bad tokens.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn fold_some<A>(
        &mut self,
        count: u64,
        want: &Want,
        mut acc: A,
        mut f: impl FnMut(A, u64) -> A,
    ) -> (A, u64, Option<Halt>) {
        let mut left = count;
        while left > 0 {
            let mut pos = self.pos;
            let window = &self.buf[..self.end];
            (acc, left, pos) = kernel::blocks(
                kernel::Run { window, pos, left, min: want.min, max: want.max },
                acc,
                &mut f,
            );
            self.pos = pos;
            if left > 0 {
                match self.next_in_or(want) {
                    Ok(Some(v)) => acc = f(acc, v),
                    Ok(None) => return (acc, left, Some(Halt::End)),
                    Err(e) => return (acc, left, Some(Halt::Bad(e))),
                }
                left -= 1;
            }
        }
        (acc, 0, None)
    }

    /// Steps over the rest of the token at `pos` (after a [`Halt::Bad`] that stopped inside it),
    /// if it ends within `most` bytes: whether it did (if not, the scanner stops inside it).
    #[cold]
    #[inline(never)]
    pub fn skip_token_within(&mut self, most: usize) -> Result<bool, InputError> {
        let mut seen = 0usize;
        loop {
            while self.pos < self.end {
                if CLASS[self.buf[self.pos] as usize] == SPACE {
                    return Ok(true);
                }
                if seen == most {
                    return Ok(false);
                }
                self.pos += 1;
                seen += 1;
            }
            if !self.refill(self.end)? {
                return Ok(true);
            }
        }
    }

    /// Reads the next number in `min..=max`; the end of the input here is an error.
    #[inline]
    pub fn next(&mut self, min: u64, max: u64, what: &dyn fmt::Display) -> Result<u64, InputError> {
        self.next_or(&Want::new(min, max, what))
    }

    /// [`next`](Scanner::next), with `beyond` writing the message for a number past `max`.
    #[inline]
    pub fn next_or(&mut self, want: &Want) -> Result<u64, InputError> {
        match self.next_in_or(want)? {
            Some(v) => Ok(v),
            None => self.error(self.pos, format!("input ends where {} was expected", want.what)),
        }
    }

    /// Fails if any token is left.
    pub fn expect_end(&mut self, after: &str) -> Result<(), InputError> {
        if !self.skip_space()? {
            return Ok(());
        }
        let start = self.offset();
        let mut head = Head::new();
        self.gather(&mut head)?;
        let message = format!("extra input `{}` after {after}", head.show());
        Err(InputError::Format { at: self.position_of(start), message })
    }

    /// Reports a format error at the token just read (for checks beyond the range, such as a
    /// repeated chip column): `start` is found again by stepping back over the token, or, for a
    /// token the slow path streamed past the start of the buffer, from where it noted it.
    pub fn error_at_last(&self, message: String) -> InputError {
        let mut start = self.pos;
        while start > 0 && CLASS[self.buf[start - 1] as usize] != SPACE {
            start -= 1;
        }
        let (slow_start, slow_end) = self.slow_token;
        let at = if start == 0 && slow_end == self.offset() && slow_start < self.base {
            self.position_of(slow_start)
        } else {
            self.position(start)
        };
        InputError::Format { at, message }
    }
}

impl<R: Read, B: Buf> Numbers for Scanner<R, B> {
    #[inline]
    fn next(&mut self, min: u64, max: u64, what: &dyn fmt::Display) -> Result<u64, InputError> {
        Scanner::next(self, min, max, what)
    }

    #[inline]
    fn next_in(
        &mut self,
        min: u64,
        max: u64,
        what: &dyn fmt::Display,
    ) -> Result<Option<u64>, InputError> {
        Scanner::next_in(self, min, max, what)
    }

    /// Reads `count` numbers in `min..=max` and folds them into `acc` with `f`: the bulk form
    /// of [`next`] for long runs such as a case's heaps.
    ///
    /// The fast path works a 64-byte block at a time: SIMD compares classify every byte as
    /// whitespace, digit or other, so all token boundaries of the block are known at once as
    /// bit masks and each number is converted independently of the one before (no serial
    /// byte loop, no branch per byte). A block holding any other byte, an over-long token or an
    /// out-of-range number hands over to [`next`], which reports it.
    ///
    /// [`next`]: Scanner::next
    #[inline]
    fn fold<A>(
        &mut self,
        count: u64,
        min: u64,
        max: u64,
        what: &dyn fmt::Display,
        acc: A,
        f: impl FnMut(A, u64) -> A,
    ) -> Result<A, InputError> {
        self.fold_or(count, &Want::new(min, max, what), acc, f)
    }

    fn error_at_last(&mut self, message: String) -> InputError {
        Scanner::error_at_last(self, message)
    }

    fn expect_end(&mut self, after: &str) -> Result<(), InputError> {
        Scanner::expect_end(self, after)
    }
}

#[cfg(test)]
mod tests;
