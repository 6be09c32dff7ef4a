//! Judge input as a stream of whitespace-separated unsigned numbers.
//!
//! Input is read through one fixed buffer, so memory stays bounded however long the input is;
//! the token being read is kept whole by moving it to the front of the buffer before a refill.
//! Line and column are not tracked per byte, which would cost the hot loop registers: newlines
//! are counted in bulk (a vectorised count) as each buffer is dropped, and the exact position
//! is worked out only when an error is reported.
//!
//! Numbers take a fast path when enough bytes are buffered around them: the end of a token is
//! found eight bytes at a time (SWAR, or block bit masks in `fold`), and its digits are
//! converted by one routine, `digits_before`, with no loop over them. Long runs (`fold`) go to
//! one of two kernels of the same walk ([`Kernel`]): the portable one (SSE2 through `wide`),
//! or, chosen at run time where the CPU has it, the AVX2 one in `input/avx2.rs`. Anything unusual (a
//! token of 16 or more bytes, a bad character, a number out of range, a token split by a refill)
//! falls back to the byte-at-a-time path, which also writes the error message.
//!
//! The verdict on a token never depends on where it falls in the buffer or how the input
//! arrives: the byte-at-a-time path streams a token of any length (it keeps its start offset and
//! first bytes, not the token), so a number with any count of leading zeros is read as its value
//! everywhere, and one with more than 20 significant digits is out of range everywhere.

use std::fmt;
use std::io::{self, Read};
use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
mod avx2;

/// Size of the input buffer.
pub const BUFFER: usize = 1 << 18;
/// Bytes of a bad token kept for its message (one more than shown, to know it goes on).
const SHOWN: usize = 24;

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
        Scanner { src: io::empty(), end: input.len(), buf: input, pos: 0, eof: true, base: at, lines, line_start, slow_token: (u64::MAX, u64::MAX) }
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
    pub fn next_in(&mut self, min: u64, max: u64, what: &dyn fmt::Display) -> Result<Option<u64>, InputError> {
        self.next_in_or(min, max, what, None)
    }

    /// [`next_in`](Scanner::next_in), with `beyond` writing the message for a number past `max`.
    #[inline]
    pub fn next_in_or(&mut self, min: u64, max: u64, what: &dyn fmt::Display, beyond: Beyond) -> Result<Option<u64>, InputError> {
        if !self.skip_space()? {
            return Ok(None);
        }
        if let Some((value, len)) = self.fast_digits()
            && (min..=max).contains(&value)
        {
            self.pos += len;
            return Ok(Some(value));
        }
        self.slow_number(min, max, what, beyond).map(Some)
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
    fn slow_number(&mut self, min: u64, max: u64, what: &dyn fmt::Display, beyond: Beyond) -> Result<u64, InputError> {
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
            let message = format!("expected {what} (a whole number {min} to {max}), found `{}`", head.show());
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
    pub fn fold<A>(&mut self, count: u64, min: u64, max: u64, what: &dyn fmt::Display, acc: A, f: impl FnMut(A, u64) -> A) -> Result<A, InputError> {
        self.fold_or(count, min, max, what, None, acc, f)
    }

    /// [`fold`](Scanner::fold), with `beyond` writing the message for a number past `max`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn fold_or<A>(
        &mut self,
        count: u64,
        min: u64,
        max: u64,
        what: &dyn fmt::Display,
        beyond: Beyond,
        acc: A,
        f: impl FnMut(A, u64) -> A,
    ) -> Result<A, InputError> {
        match self.fold_some(count, min, max, what, beyond, acc, f) {
            (acc, _, None) => Ok(acc),
            (_, _, Some(Halt::End)) => self.error(self.pos, format!("input ends where {what} was expected")),
            (_, _, Some(Halt::Bad(e))) => Err(e),
        }
    }

    /// [`fold_or`](Scanner::fold_or) that keeps what it folded when it stops early: the value,
    /// how many of the `count` numbers are left, and why it stopped (`None`: all were read).
    /// The parallel path ([`super::parallel`]) folds a piece this way and steps over bad tokens.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn fold_some<A>(
        &mut self,
        count: u64,
        min: u64,
        max: u64,
        what: &dyn fmt::Display,
        beyond: Beyond,
        mut acc: A,
        mut f: impl FnMut(A, u64) -> A,
    ) -> (A, u64, Option<Halt>) {
        let mut left = count;
        while left > 0 {
            let mut pos = self.pos;
            let window = &self.buf[..self.end];
            (acc, left, pos) = blocks(window, pos, left, min, max, acc, &mut f);
            self.pos = pos;
            if left > 0 {
                match self.next_in_or(min, max, what, beyond) {
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
        self.next_or(min, max, what, None)
    }

    /// [`next`](Scanner::next), with `beyond` writing the message for a number past `max`.
    #[inline]
    pub fn next_or(&mut self, min: u64, max: u64, what: &dyn fmt::Display, beyond: Beyond) -> Result<u64, InputError> {
        match self.next_in_or(min, max, what, beyond)? {
            Some(v) => Ok(v),
            None => self.error(self.pos, format!("input ends where {what} was expected")),
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
        let at = if start == 0 && slow_end == self.offset() && slow_start < self.base { self.position_of(slow_start) } else { self.position(start) };
        InputError::Format { at, message }
    }
}

/// The bulk path of [`Scanner::fold_some`] over `window` from `pos` (at whitespace or at a
/// token's start): 64-byte blocks whose bytes SIMD compares classify as whitespace, digit or
/// other, so that all token boundaries of a block are known at once as bit masks and each
/// number is converted independently of the one before (no serial byte loop, no branch per
/// byte). Returns the fold, the count left and where it stopped: at a block holding another
/// byte, an over-long token or an out-of-range number (which the caller's byte-at-a-time path
/// then reads), or where fewer than 64 bytes are left.
///
/// Runs of 64 numbers or more go to the AVX2 kernel where [`Kernel::chosen`] says so.
#[inline(always)]
pub(crate) fn blocks<A>(window: &[u8], pos: usize, left: u64, min: u64, max: u64, acc: A, f: &mut impl FnMut(A, u64) -> A) -> (A, u64, usize) {
    blocks_on(Kernel::chosen(), window, pos, left, min, max, acc, f)
}

/// [`blocks`] on `kernel`, which must be [`available`](Kernel::available).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn blocks_on<A>(kernel: Kernel, window: &[u8], pos: usize, left: u64, min: u64, max: u64, acc: A, f: &mut impl FnMut(A, u64) -> A) -> (A, u64, usize) {
    #[cfg(target_arch = "x86_64")]
    if left >= 64 && kernel == Kernel::Avx2 {
        assert!(avx2::available(), "the AVX2 kernel on a CPU without AVX2");
        // SAFETY: the CPU has AVX2, BMI1 and POPCNT (just checked; the check is cached).
        return unsafe { avx2::blocks(window, pos, left, min, max, acc, f) };
    }
    portable(window, pos, left, min, max, acc, f)
}

/// Which bulk kernel reads numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// SSE2 (any x86-64) or scalar code through `wide`: every machine.
    Portable,
    /// AVX2, chosen at run time on a CPU that has it.
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU runs, unless the environment variable `SGQ_KERNEL` is
    /// `portable` (for timing the two side by side). Decided once.
    pub fn chosen() -> Kernel {
        static CHOSEN: OnceLock<Kernel> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let forced = std::env::var_os("SGQ_KERNEL").is_some_and(|k| k == "portable");
            if !forced && Kernel::Avx2.available() { Kernel::Avx2 } else { Kernel::Portable }
        })
    }

    /// Whether this CPU runs the kernel.
    pub fn available(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => avx2::available(),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx2 => false,
        }
    }
}

/// Bytes ahead of the block being read that the kernels ask the cache for. A mapped file's
/// pages are 4 KiB, and the hardware's stream prefetcher stops at each page's end; asking a
/// kilobyte ahead keeps the next page coming (about 10% off a mapped input's time, measured;
/// no change on input already in cache).
const PREFETCH: usize = 1024;

/// Asks for `window[pos + PREFETCH]` to be brought into the cache (a hint, if it exists).
#[inline(always)]
fn prefetch(window: &[u8], pos: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(ahead) = window.get(pos + PREFETCH) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint: it reads nothing into the program, and it cannot
        // fault even where the address were not mapped (this one is: it is in `window`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>((ahead as *const u8).cast()) };
    }
}

/// The portable kernel of [`blocks`].
#[inline(always)]
fn portable<A>(window: &[u8], mut pos: usize, mut left: u64, min: u64, max: u64, mut acc: A, f: &mut impl FnMut(A, u64) -> A) -> (A, u64, usize) {
    // Blocks of 64 bytes, with the 16 bytes before each in view too, so that the 16
    // bytes that end at a token's end can be loaded.
    while left > 0 && pos >= 16 && pos + 64 <= window.len() {
        let block: &[u8; 80] = window[pos - 16..pos + 64].try_into().unwrap();
        prefetch(window, pos);
        let (space, other) = classify(block[16..].try_into().unwrap());
        if other != 0 {
            break;
        }
        let (mut starts, mut ends, short) = block_marks(space, left);
        let mut end = 0;
        while ends != 0 {
            let s = starts.trailing_zeros() as usize;
            end = ends.trailing_zeros() as usize;
            starts &= starts - 1;
            ends &= ends - 1;
            let len = end - s;
            let value = digits_before(block[end..end + 16].try_into().unwrap(), len);
            if len > 16 || !(min..=max).contains(&value) {
                pos += s;
                return (acc, left, pos);
            }
            acc = f(acc, value);
            left -= 1;
        }
        let next = after_block(short, end, starts);
        if next == 0 {
            break; // one token fills the whole block: too long, let `next` say so
        }
        pos += next;
    }
    (acc, left, pos)
}

/// The token marks of a 64-byte block with whitespace mask `space`, for a walk (of either
/// kernel) that stands at whitespace or at a token's start at the block's first byte, with
/// `left` numbers still wanted: (starts, ends, short). Bit 0 may start a token, and a token
/// ends (at a whitespace byte) only after it started in this block. No block holds 64 tokens,
/// so only near the end of the run can `left` stop short of the block's last token: then only
/// the first `left` ends are kept, and `short` says that some were dropped.
#[inline(always)]
fn block_marks(space: u64, left: u64) -> (u64, u64, bool) {
    let starts = !space & (space << 1 | 1);
    let mut ends = space & !space << 1;
    let mut short = false;
    if left < 64 {
        let (mut rest, mut kept) = (ends, 0u64);
        for _ in 0..left {
            kept |= rest & rest.wrapping_neg();
            rest &= rest.wrapping_sub(1);
        }
        short = rest != 0;
        ends = kept;
    }
    (starts, ends, short)
}

/// Bytes from a block's start to where the walk goes on, after the tokens that ended in it were
/// taken (`end`: the last one's end; `starts`: the starts not yet taken): just past the last
/// token taken if `left` ran out (`short`), else the start of a token that runs on past the
/// block, else the next block. 0 means one token fills the whole block.
#[inline(always)]
fn after_block(short: bool, end: usize, starts: u64) -> usize {
    if short {
        end
    } else if starts != 0 {
        starts.trailing_zeros() as usize
    } else {
        64
    }
}

/// Newlines in `bytes`, counted in blocks whose byte-wide sums the compiler vectorises.
fn count_newlines(bytes: &[u8]) -> u64 {
    let mut blocks = bytes.chunks_exact(128);
    let mut n: u64 = (&mut blocks).map(|b| b.iter().map(|&c| (c == b'\n') as u8).sum::<u8>() as u64).sum();
    n += blocks.remainder().iter().filter(|&&c| c == b'\n').count() as u64;
    n
}

/// The length of the number at the start of `bytes`, if it has 1 to 15 digits and whitespace
/// follows it.
#[inline(always)]
fn token_len(bytes: &[u8; 16]) -> Option<usize> {
    let lo = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    let hi = u64::from_le_bytes(bytes[8..].try_into().unwrap());
    let len = match swar::non_digits(lo) {
        0 => match swar::non_digits(hi) {
            0 => return None,
            m => 8 + m.trailing_zeros() as usize / 8,
        },
        m => m.trailing_zeros() as usize / 8,
    };
    (len > 0 && CLASS[bytes[len] as usize] == SPACE).then_some(len)
}

/// `KEEP[len]` keeps the last `len` of 16 bytes (all 16 from 16 on: any length a token in a
/// 64-byte block can have indexes it).
static KEEP: [[u8; 16]; 64] = {
    let mut k = [[0; 16]; 64];
    let mut len = 0;
    while len < 64 {
        let mut i = 16usize.saturating_sub(len);
        while i < 16 {
            k[len][i] = 0xFF;
            i += 1;
        }
        len += 1;
    }
    k
};

/// The value of the `len` (1..=16) ASCII digits at the end of `bytes` (`len` up to 63 is
/// allowed but gives a meaningless value), with no branch on
/// `len`: the bytes before them are cleared (leading zeros) and all 16 are converted at once
/// in SSE registers (SSE2 only): pairs of digits by one 16-bit multiply, then pairs of pairs
/// and pairs of those by multiply-adds.
#[inline(always)]
fn digits_before(bytes: &[u8; 16], len: usize) -> u64 {
    use wide::{bytemuck::cast, i16x8, i32x4, u8x16, u64x2};
    let digits = (u8x16::new(*bytes) & u8x16::new(KEEP[len & 63])).saturating_sub(u8x16::splat(b'0'));
    // Lane = d0 + 256·d1 (d0 the higher digit); · (1 + 256·10) puts 10·d0 + d1 in the high byte.
    let pairs: i16x8 = (cast::<u8x16, i16x8>(digits) * i16x8::splat(1 + 256 * 10)) >> 8_i32;
    let quads: i32x4 = pairs.dot(i16x8::new([100, 1, 100, 1, 100, 1, 100, 1]));
    // Each quad is below 10^4: move the odd ones next to the even ones, as 16-bit lanes.
    let quads = cast::<i32x4, u64x2>(quads);
    let quads = cast::<u64x2, i16x8>(quads | quads >> 16);
    let eights: [u64; 2] = cast(quads.dot(i16x8::new([10_000, 1, 0, 0, 10_000, 1, 0, 0])));
    eights[0] * 100_000_000 + eights[1]
}

/// For 64 bytes: a bit mask of the bytes that are not ASCII digits, which are whitespace if the
/// second value is 0; otherwise some byte is neither whitespace nor a digit.
#[inline(always)]
fn classify(block: &[u8; 64]) -> (u64, u32) {
    use wide::u8x16;
    let mut digit = 0u64;
    let mut valid = u8x16::splat(0xFF);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        let v = u8x16::new(chunk.try_into().unwrap());
        let is_digit = (v - u8x16::splat(b'0')).simd_lt(u8x16::splat(10));
        // space, or \t \n \v \f \r (9..=13)
        let is_space = v.simd_eq(u8x16::splat(b' ')) | (v - u8x16::splat(9)).simd_lt(u8x16::splat(5));
        valid &= is_digit | is_space;
        digit |= (is_digit.to_bitmask() as u64) << (16 * i);
    }
    (!digit, !valid.to_bitmask() & 0xFFFF)
}

/// Eight bytes at a time in a `u64` (byte 0 = the first character).
mod swar {
    const ZEROS: u64 = 0x3030_3030_3030_3030;

    /// The high bit of every byte of `x` that is not an ASCII digit is set (the lowest such
    /// byte is exact; carries may mark the bytes above it too, which callers ignore).
    #[inline(always)]
    pub fn non_digits(x: u64) -> u64 {
        let below = x.wrapping_sub(ZEROS); // '0'.. wraps below zero
        let above = x.wrapping_add(0x4646_4646_4646_4646); // past '9' reaches 0x80
        (x | below | above) & 0x8080_8080_8080_8080
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
    fn a_token_is_skipped_within_a_bound() {
        // In a slice and in a stream whose buffer is refilled inside the token.
        let text = format!("{} 7", "x".repeat(5000));
        for capacity in [None, Some(64)] {
            let scan = |most: usize| {
                let mut s = match capacity {
                    None => Scanner::new(text.as_bytes()),
                    Some(c) => Scanner::with_capacity(text.as_bytes(), c),
                };
                let ended = s.skip_token_within(most).unwrap();
                (ended, s.offset())
            };
            assert_eq!(scan(5000), (true, 5000), "{capacity:?}");
            assert_eq!(scan(1 << 20), (true, 5000), "{capacity:?}");
            assert_eq!(scan(4999), (false, 4999), "{capacity:?}");
            assert_eq!(scan(100), (false, 100), "{capacity:?}");
        }
        let mut s = Scanner::new("abc".as_bytes());
        assert!(s.skip_token_within(10).unwrap(), "the input's end ends a token");
    }

    #[test]
    fn ranges_are_exact() {
        let mut s = Scanner::new("2147483647 2147483648 0 00000000000000000000000000001".as_bytes());
        let max = (1u64 << 31) - 1;
        assert_eq!(s.next(1, max, &"heap").unwrap(), max);
        let e = s.next(1, max, &"heap").unwrap_err().to_string();
        assert_eq!(e, "line 1, column 12 (byte 11): heap `2147483648` is out of range 1 to 2147483647");
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
        assert_eq!(e, "line 2, column 4 (byte 5): expected a heap size (a whole number 0 to 9), found `-3`");
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
    fn swar_finds_the_first_non_digit() {
        for len in 1..=8usize {
            for v in [0u64, 1, 7, 42, 1234, 99_999_999, 10_000_000, 31_415_926, 2_147_483] {
                let text = format!("{:0len$}", v % 10u64.pow(len as u32));
                let mut bytes = [b'x'; 8];
                bytes[..len].copy_from_slice(text.as_bytes());
                let x = u64::from_le_bytes(bytes);
                assert_eq!(swar::non_digits(x).trailing_zeros() as usize / 8, if len == 8 { 8 } else { len });
            }
        }
        for b in 0..=255u8 {
            let x = u64::from_le_bytes([b, b'1', b'2', b'3', b'4', b'5', b'6', b'7']);
            assert_eq!(swar::non_digits(x) & 0x80 != 0, !b.is_ascii_digit(), "byte {b}");
        }
    }

    #[test]
    fn digits_before_converts_every_length() {
        for len in 1..=16usize {
            for v in [0u64, 1, 7, 42, 1234, 99_999_999, 100_000_000, 2_147_483_647, 9_999_999_999_999_999, 1_234_567_890_123_456] {
                let v = v % 10u64.pow(len as u32);
                // Digits, and bytes of every kind before them: other digits, space, 0xFF.
                for fill in [b'9', b' ', b'0', 0xFF] {
                    let mut bytes = [fill; 16];
                    bytes[16 - len..].copy_from_slice(format!("{v:0len$}").as_bytes());
                    assert_eq!(digits_before(&bytes, len), v, "{len} digits of {v}, fill {fill}");
                }
            }
        }
    }

    #[test]
    fn fast_and_slow_paths_agree() {
        // Long enough that most numbers take the fast path; every length 1..=20 and boundary.
        let mut text = String::new();
        let mut want = Vec::new();
        for len in 1..=20u32 {
            for v in [10u64.pow(len - 1), 10u64.saturating_pow(len).saturating_sub(1), 10u64.pow(len - 1) * 3 + 7] {
                text += &format!("{v}{}", [" ", "\n", "\t", "\r\n"][(v % 4) as usize]);
                want.push(v);
            }
        }
        text += &"0".repeat(30);
        text += " 000000000000000000000000000000000000012 ";
        want.extend([0, 12]);
        for cap in [64, 65, 97, 1 << 16] {
            assert_eq!(all(&text, cap).unwrap(), want, "capacity {cap}");
        }
        let long = format!("1 {} 2", "9".repeat(40));
        assert!(all(&long, 16).unwrap_err().contains("`999999999999999999999999…` is out of range"));
        assert!(all(&"9".repeat(5000), 1 << 16).unwrap_err().contains("is out of range"));
    }

    #[test]
    fn fold_agrees_with_one_at_a_time() {
        // Numbers of every length 1..=20 with separators from one byte to runs longer than a
        // block, so tokens straddle blocks and buffer refills in every way.
        let mut text = String::new();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = 1 + (x % 20) as usize;
            let v = if digits >= 20 { x } else { x % 10u64.pow(digits as u32) };
            let sep = match i % 7 {
                0 => "\r\n".to_string(),
                1 => " ".repeat(1 + (x >> 40) as usize % 90),
                2 => "\t".to_string(),
                _ => " ".to_string(),
            };
            text += &format!("{v}{sep}");
        }
        let want = all(&text, 1 << 16).unwrap();
        for cap in [96, 97, 200, 4096, 1 << 18] {
            for split in [0usize, 1, 5, 1000, 2999, 3000] {
                let mut s = Scanner::with_capacity(text.as_bytes(), cap);
                let mut got = Vec::new();
                got = s
                    .fold(split as u64, 0, u64::MAX, &"n", got, |mut v, x| {
                        v.push(x);
                        v
                    })
                    .unwrap();
                while let Some(v) = s.next_in(0, u64::MAX, &"n").unwrap() {
                    got.push(v);
                }
                let first = got.iter().zip(&want).position(|(a, b)| a != b);
                assert!(got.len() == want.len() && first.is_none(), "capacity {cap}, fold of {split}: first difference at {first:?}");
            }
        }
    }

    #[test]
    fn fold_reports_errors_like_next() {
        let text = format!("{}7 12x 3", "1 ".repeat(100));
        let mut s = Scanner::new(text.as_bytes());
        let e = s.fold(103, 0, 99, &"heap", 0, |a, b| a + b).unwrap_err().to_string();
        assert_eq!(e, "line 1, column 203 (byte 202): expected heap (a whole number 0 to 99), found `12x`");
        let text = format!("{}100 3", "1 ".repeat(100));
        let e = Scanner::new(text.as_bytes()).fold(102, 0, 99, &"heap", 0, |a, b| a + b).unwrap_err().to_string();
        assert_eq!(e, "line 1, column 201 (byte 200): heap `100` is out of range 0 to 99");
        let e = Scanner::new("1 2".as_bytes()).fold(3, 0, 99, &"heap", 0, |a, b| a + b).unwrap_err().to_string();
        assert_eq!(e, "line 1, column 4 (byte 3): input ends where heap was expected");
    }

    /// A reader that hands out at most `chunk` bytes a read, like a pipe fed in small writes.
    struct Chunked<'a> {
        data: &'a [u8],
        chunk: usize,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.chunk).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn chunked(input: &[u8], cap: usize, chunk: usize) -> Result<Vec<u64>, String> {
        let mut s = Scanner::with_capacity(Chunked { data: input, chunk }, cap);
        let mut out = Vec::new();
        while let Some(v) = s.next_in(0, u64::MAX, &"number").map_err(|e| e.to_string())? {
            out.push(v);
        }
        Ok(out)
    }

    #[test]
    fn long_tokens_get_one_verdict_wherever_they_fall() {
        let zeros = |n: usize| "0".repeat(n);
        let tokens = [
            zeros(5000) + "7",
            zeros(5000) + "x",
            zeros(300) + "18446744073709551615",
            zeros(300) + "18446744073709551616",
            "1".to_string() + &zeros(30),
            zeros(17),
            "12345678901234567\u{ff}".to_string(),
        ];
        for token in &tokens {
            let mut verdicts = Vec::new();
            for lead in [0usize, 1, 15, 16, 17, 63, 64, 65, 4095, 4097] {
                let input = format!("{}{token} 5\n", " ".repeat(lead));
                let want = chunked(input.as_bytes(), BUFFER, usize::MAX);
                for cap in [16, 17, 31, 64, 100, 4096, 4097, 1 << 13] {
                    for chunk in [1, 3, 1000, usize::MAX] {
                        let got = chunked(input.as_bytes(), cap, chunk);
                        assert_eq!(got, want, "token {:?}…, {lead} spaces before, capacity {cap}, reads of {chunk}", &token[..token.len().min(12)]);
                    }
                }
                // Across offsets only the position may differ.
                verdicts.push(want.map_err(|e| e.replace(&format!("line 1, column {} (byte {lead})", lead + 1), "AT")));
            }
            assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{verdicts:?}");
        }
        assert_eq!(chunked(format!("{}7 5", zeros(5000)).as_bytes(), 16, 1), Ok(vec![7, 5]));
        let e = chunked(format!("1\n{}x", zeros(100)).as_bytes(), 16, 1).unwrap_err();
        assert_eq!(e, "line 2, column 1 (byte 2): expected number (a whole number 0 to 18446744073709551615), found `000000000000000000000000…`");
        let e = chunked(b"1 \xff\xfeab", 16, 1).unwrap_err();
        assert_eq!(e, "line 1, column 3 (byte 2): expected number (a whole number 0 to 18446744073709551615), found `\\xff\\xfeab`");
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

    /// The kernels this CPU runs.
    fn kernels() -> Vec<Kernel> {
        let all = [Kernel::Portable, Kernel::Avx2].into_iter().filter(|k| k.available()).collect::<Vec<_>>();
        if all.len() < 2 {
            eprintln!("note: this CPU has no AVX2: only the portable kernel is tested");
        }
        all
    }

    /// A plain reading of `text` from byte `pos`: each token is a number in `min..=max` (any
    /// count of leading zeros) or the reading stops there. Returns the values and where it
    /// stopped (the bad token's start, or the end).
    fn plain(text: &[u8], mut pos: usize, count: u64, min: u64, max: u64) -> (Vec<u64>, usize) {
        let mut got = Vec::new();
        while (got.len() as u64) < count {
            while pos < text.len() && is_space(text[pos]) {
                pos += 1;
            }
            let start = pos;
            while pos < text.len() && !is_space(text[pos]) {
                pos += 1;
            }
            let token = &text[start..pos];
            let value = token.iter().try_fold(0u64, |v, &b| b.is_ascii_digit().then(|| v.checked_mul(10)?.checked_add((b - b'0') as u64)).flatten());
            match value {
                Some(v) if !token.is_empty() && (min..=max).contains(&v) => got.push(v),
                _ => return (got, start),
            }
        }
        (got, pos)
    }

    /// Reads as `plain` does, with `kernel` taking every run it can and `plain` one token
    /// where the kernel stops; checks each kernel stop on the way (a prefix of the tokens, at
    /// whitespace or a token's start).
    fn driven(kernel: Kernel, text: &[u8], count: u64, min: u64, max: u64) -> (Vec<u64>, usize) {
        let (mut got, mut pos) = (Vec::new(), 16);
        let mut left = count;
        while left > 0 {
            let before = (pos, left, got.len());
            (got, left, pos) = blocks_on(kernel, text, pos, left, min, max, got, &mut |mut v: Vec<u64>, x| {
                v.push(x);
                v
            });
            assert_eq!(left, count - got.len() as u64, "{kernel:?}: the count left does not match the numbers folded");
            assert!(pos >= before.0 && pos <= text.len(), "{kernel:?}: went back or past the end");
            let between = pos == text.len() || is_space(text[pos]) || is_space(text[pos - 1]);
            assert!(between, "{kernel:?}: stopped inside a token at byte {pos}");
            let (one, next) = plain(text, pos, left.min(1), min, max);
            if left == 0 || one.is_empty() {
                return (got, if left == 0 { pos } else { next });
            }
            got.extend(one);
            (left, pos) = (left - 1, next);
        }
        (got, pos)
    }

    fn random_text(seed: u64, tokens: usize, bad: bool) -> Vec<u8> {
        let mut x = seed | 1;
        let mut rng = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut text = " ".repeat(16).into_bytes();
        for _ in 0..tokens {
            let r = rng();
            let len = 1 + (r % 22) as usize; // 17 to 22 bytes: past the fast paths
            for i in 0..len {
                text.push(if i < (r >> 8) as usize % 4 && r % 3 == 0 { b'0' } else { b'0' + (rng() % 10) as u8 });
            }
            if bad && rng() % 50 == 0 {
                let at = text.len() - 1 - (rng() as usize % len);
                text[at] = [b'x', b'-', 0x80, 0, b'+', b'/', b':'][rng() as usize % 7];
            }
            let sep: &[u8] = [&b" "[..], b"\n", b"\t", b"\r\n", b"\x0b\x0c", b"  "][rng() as usize % 6];
            text.extend_from_slice(sep);
            if rng() % 40 == 0 {
                text.extend(std::iter::repeat_n(b' ', (rng() % 150) as usize));
            }
        }
        text
    }

    #[test]
    fn kernels_agree_with_a_plain_reading() {
        for seed in 1..60u64 {
            let bad = seed % 3 == 0;
            let text = random_text(seed * 0x9E37_79B9, 700, bad);
            for (min, max) in [(0, u64::MAX), (0, 999_999_999), (1, (1 << 31) - 1), (10, 10_000), (5, 4)] {
                for count in [64, 65, 100, 333, 699, 700, 5000] {
                    let want = plain(&text, 16, count, min, max);
                    for kernel in kernels() {
                        assert_eq!(driven(kernel, &text, count, min, max), want, "seed {seed}, {kernel:?}, {min}..={max}, count {count}");
                    }
                }
            }
        }
    }

    #[test]
    fn two_at_a_time_converts_every_length() {
        #[cfg(target_arch = "x86_64")]
        if Kernel::Avx2.available() {
            let mut x = 0x1234_5678_9ABC_DEF1u64;
            for round in 0..400 {
                let mut bytes = [[0u8; 16]; 2];
                for b in bytes.iter_mut().flatten() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Digits mostly, and any byte before a token's digits (they are cleared).
                    *b = if round % 5 == 0 { x as u8 } else { b'0' + (x % 10) as u8 };
                }
                for l0 in 1..=16 {
                    for l1 in 1..=16 {
                        let (mut a, mut b) = (bytes[0], bytes[1]);
                        a[16 - l0..].iter_mut().for_each(|d| *d = b'0' + *d % 10);
                        b[16 - l1..].iter_mut().for_each(|d| *d = b'0' + *d % 10);
                        let want = |t: &[u8; 16], l: usize| t[16 - l..].iter().fold(0u64, |v, &d| v * 10 + (d - b'0') as u64);
                        // SAFETY: the CPU has AVX2 (checked above).
                        let got = unsafe { avx2::two_for_tests(&a, l0, &b, l1) };
                        assert_eq!(got, (want(&a, l0), want(&b, l1)), "lengths {l0} and {l1}");
                        assert_eq!(digits_before(&a, l0), want(&a, l0));
                    }
                }
            }
        }
    }
}
