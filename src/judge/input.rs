//! Judge input as a stream of whitespace-separated unsigned numbers.
//!
//! Input is read through one fixed buffer, so memory stays bounded however long the input is;
//! the token being read is kept whole by moving it to the front of the buffer before a refill.
//! Line and column are not tracked per byte: newlines are counted in bulk as the buffer is
//! discarded, and the exact position is worked out only when an error is reported.

use std::fmt;
use std::io::{self, Read};

/// Size of the input buffer.
pub const BUFFER: usize = 1 << 18;
/// A token longer than this is an error however it continues (no legal token comes close).
const MAX_TOKEN: usize = 4096;

const OTHER: u8 = 0;
const SPACE: u8 = 1;

/// Space, tab, newline, vertical tab, form feed, carriage return separate tokens.
static CLASS: [u8; 256] = {
    let mut c = [OTHER; 256];
    c[b' ' as usize] = SPACE;
    c[b'\t' as usize] = SPACE;
    c[b'\n' as usize] = SPACE;
    c[0x0b] = SPACE;
    c[0x0c] = SPACE;
    c[b'\r' as usize] = SPACE;
    c
};

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

/// Reads unsigned decimal numbers from a byte stream.
pub struct Scanner<R> {
    src: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Stream offset of buf[0].
    base: u64,
    /// Newlines in the stream before buf[0].
    lines: u64,
    /// Stream offset just past the last newline before buf[0] (0 if none).
    line_start: u64,
}

/// Describes the token found, for messages: at most 24 bytes of it, escaped.
fn show(token: &[u8]) -> String {
    let cut = &token[..token.len().min(24)];
    let mut s = String::from_utf8_lossy(cut).escape_debug().to_string();
    if token.len() > cut.len() {
        s.push('…');
    }
    s
}

impl<R: Read> Scanner<R> {
    pub fn new(src: R) -> Scanner<R> {
        Scanner::with_capacity(src, BUFFER)
    }

    /// A scanner with a small buffer, to test tokens split across refills.
    pub fn with_capacity(src: R, capacity: usize) -> Scanner<R> {
        let capacity = capacity.max(16);
        Scanner { src, buf: vec![0; capacity].into_boxed_slice(), pos: 0, end: 0, eof: false, base: 0, lines: 0, line_start: 0 }
    }

    /// Drops buf[..keep], moves the rest to the front and reads more. Returns false at the end
    /// of the input (nothing more was read).
    #[cold]
    fn refill(&mut self, keep: usize) -> Result<bool, InputError> {
        if self.eof {
            return Ok(false);
        }
        let gone = &self.buf[..keep];
        self.lines += gone.iter().filter(|&&b| b == b'\n').count() as u64;
        if let Some(nl) = gone.iter().rposition(|&b| b == b'\n') {
            self.line_start = self.base + nl as u64 + 1;
        }
        self.base += keep as u64;
        self.buf.copy_within(keep..self.end, 0);
        self.end -= keep;
        self.pos -= keep;
        loop {
            match self.src.read(&mut self.buf[self.end..]) {
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
        let lines = before.iter().filter(|&&b| b == b'\n').count() as u64;
        let line_start = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => self.base + nl as u64 + 1,
            None => self.line_start,
        };
        let offset = self.base + i as u64;
        Position { line: self.lines + lines + 1, column: offset - line_start + 1, offset }
    }

    /// Position of the next token (or of the end of input).
    pub fn here(&mut self) -> Result<Position, InputError> {
        self.skip_space()?;
        Ok(self.position(self.pos))
    }

    fn error<T>(&self, at: usize, message: String) -> Result<T, InputError> {
        Err(InputError::Format { at: self.position(at), message })
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
    pub fn next_in(&mut self, min: u64, max: u64, what: &dyn fmt::Display) -> Result<Option<u64>, InputError> {
        if !self.skip_space()? {
            return Ok(None);
        }
        let mut start = self.pos;
        let mut value: u64 = 0;
        let mut digits = 0usize; // significant digits (leading zeros do not count)
        loop {
            while self.pos < self.end {
                let d = self.buf[self.pos].wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                if digits > 0 || d != 0 {
                    digits += 1;
                    value = value.wrapping_mul(10).wrapping_add(d as u64);
                }
                self.pos += 1;
            }
            // A token as long as the buffer can hold is too long to be a number: stop reading it.
            if self.pos < self.end || self.eof || self.pos - start >= MAX_TOKEN.min(self.buf.len() - 1) {
                break;
            }
            let kept = self.pos - start;
            self.refill(start)?;
            start = 0;
            debug_assert_eq!(self.pos, kept);
            if self.pos == self.end {
                break;
            }
        }
        let ends_cleanly = self.pos == self.end || CLASS[self.buf[self.pos] as usize] == SPACE;
        if self.pos == start || !ends_cleanly {
            let mut stop = self.pos;
            while stop < self.end && stop - start < 32 && CLASS[self.buf[stop] as usize] != SPACE {
                stop += 1;
            }
            let token = show(&self.buf[start..stop]);
            return self.error(start, format!("expected {what} (a whole number {min}..={max}), found `{token}`"));
        }
        if digits == 20 {
            // Twenty digits may have wrapped around u64 in the fast loop: redo them exactly.
            let exact = self.buf[start..self.pos]
                .iter()
                .try_fold(0u64, |v, &b| v.checked_mul(10)?.checked_add((b - b'0') as u64));
            match exact {
                Some(v) => value = v,
                None => digits = 21,
            }
        }
        if digits > 20 || value < min || value > max {
            let token = show(&self.buf[start..self.pos]);
            return self.error(start, format!("{what} `{token}` is out of range {min}..={max}"));
        }
        Ok(Some(value))
    }

    /// Reads the next number in `min..=max`; the end of the input here is an error.
    #[inline]
    pub fn next(&mut self, min: u64, max: u64, what: &dyn fmt::Display) -> Result<u64, InputError> {
        match self.next_in(min, max, what)? {
            Some(v) => Ok(v),
            None => self.error(self.pos, format!("input ends where {what} was expected")),
        }
    }

    /// Fails if any token is left.
    pub fn expect_end(&mut self, after: &str) -> Result<(), InputError> {
        if !self.skip_space()? {
            return Ok(());
        }
        let start = self.pos;
        let mut stop = start;
        while stop < self.end && stop - start < 32 && CLASS[self.buf[stop] as usize] != SPACE {
            stop += 1;
        }
        let token = show(&self.buf[start..stop]);
        self.error(start, format!("extra input `{token}` after {after}"))
    }

    /// Reports a format error at the token just read (for checks beyond the range, such as a
    /// repeated chip column): `start` is found again by stepping back over the token.
    pub fn error_at_last(&self, message: String) -> InputError {
        let mut start = self.pos;
        while start > 0 && CLASS[self.buf[start - 1] as usize] != SPACE {
            start -= 1;
        }
        InputError::Format { at: self.position(start), message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &str, cap: usize) -> Result<Vec<u64>, String> {
        let mut s = Scanner::with_capacity(input.as_bytes(), cap);
        let mut out = Vec::new();
        while let Some(v) = s.next_in(0, u64::MAX, &"number").map_err(|e| e.to_string())? {
            out.push(v);
        }
        Ok(out)
    }

    #[test]
    fn separators_of_every_kind() {
        for cap in [16, 17, 23, 1024] {
            assert_eq!(all("1 22\t333\r\n4444\n\n 5", cap).unwrap(), vec![1, 22, 333, 4444, 5]);
            assert_eq!(all("", cap).unwrap(), Vec::<u64>::new());
            assert_eq!(all(" \r\n", cap).unwrap(), Vec::<u64>::new());
            assert_eq!(all("7", cap).unwrap(), vec![7]);
        }
    }

    #[test]
    fn numbers_split_across_refills() {
        let text: String = (0..2000u64).map(|i| format!("{}{}", i * 7919, if i % 3 == 0 { "\r\n" } else { " " })).collect();
        let want: Vec<u64> = (0..2000u64).map(|i| i * 7919).collect();
        for cap in 16..40 {
            assert_eq!(all(&text, cap).unwrap(), want, "capacity {cap}");
        }
    }

    #[test]
    fn ranges_are_exact() {
        let mut s = Scanner::new("2147483647 2147483648 0 00000000000000000000000000001".as_bytes());
        let max = (1u64 << 31) - 1;
        assert_eq!(s.next(1, max, &"heap").unwrap(), max);
        let e = s.next(1, max, &"heap").unwrap_err().to_string();
        assert_eq!(e, "line 1, column 12 (byte 11): heap `2147483648` is out of range 1..=2147483647");
        assert!(s.next(1, max, &"heap").unwrap_err().to_string().contains("`0` is out of range"));
        assert_eq!(s.next(1, max, &"heap").unwrap(), 1);
        let mut s = Scanner::new("99999999999999999999 18446744073709551615 18446744073709551616".as_bytes());
        assert!(s.next(0, u64::MAX, &"n").unwrap_err().to_string().contains("out of range"));
        assert_eq!(s.next(0, u64::MAX, &"n").unwrap(), u64::MAX);
        // 20 digits that wrap around u64 must not pass as a small number.
        assert!(s.next(0, u64::MAX, &"n").unwrap_err().to_string().contains("out of range"));
    }

    #[test]
    fn bad_tokens_are_named_with_their_position() {
        let mut s = Scanner::with_capacity("1\n 2 -3".as_bytes(), 16);
        s.next(0, 9, &"k").unwrap();
        s.next(0, 9, &"k").unwrap();
        let e = s.next(0, 9, &"a heap size").unwrap_err().to_string();
        assert_eq!(e, "line 2, column 4 (byte 5): expected a heap size (a whole number 0..=9), found `-3`");
        for (input, found) in [("+5", "`+5`"), ("12a", "`12a`"), ("x", "`x`"), ("1.5", "`1.5`")] {
            let e = Scanner::new(input.as_bytes()).next(0, 99, &"n").unwrap_err().to_string();
            assert!(e.contains(found), "{input}: {e}");
        }
        let mut s = Scanner::new("5".as_bytes());
        s.next(0, 9, &"k").unwrap();
        let e = s.next(0, 9, &"the heap count").unwrap_err().to_string();
        assert_eq!(e, "line 1, column 2 (byte 1): input ends where the heap count was expected");
    }

    #[test]
    fn positions_survive_refills() {
        let text = "1\n".repeat(100) + "  x";
        let mut s = Scanner::with_capacity(text.as_bytes(), 16);
        for _ in 0..100 {
            s.next(0, 9, &"n").unwrap();
        }
        let e = s.next(0, 9, &"n").unwrap_err().to_string();
        assert!(e.starts_with("line 101, column 3 (byte 202)"), "{e}");
    }
}
