//! Lua 5.4's pattern matching (lstrlib.c's `match` and its helpers), in Rust, bounded in time.
//!
//! Lua's matcher backtracks: `string.find(("a"):rep(3000), ".-.-.-.-.-.-b")` tries on the order
//! of n^7 / 6! steps, inside one C call that no hook can stop. This is the same algorithm, step
//! for step and with the same errors, except that it counts its steps and asks the watchdog
//! ([`super::watchdog::poll`]) every [`POLL`] of them whether the call was stopped. It owns no
//! heap memory (the captures are a fixed array), so a Lua error may unwind over a frame that
//! holds it.
//!
//! Character classes are the C locale's, which is the only one sgtab runs Lua in.

/// Most captures a pattern may hold (LUA_MAXCAPTURES).
pub const MAX_CAPTURES: usize = 32;
/// Deepest recursion of `do_match` (lstrlib.c's MAXCCALLS).
const MAX_DEPTH: u32 = 200;
/// Steps between two questions to the watchdog.
const POLL: u32 = 1 << 14;
/// A capture's length while it is open, and the length of a position capture.
pub const UNFINISHED: isize = -1;
pub const POSITION: isize = -2;
const ESC: u8 = b'%';
/// A pattern without these is matched as plain text by `find`.
pub const SPECIALS: &[u8] = b"^$*+?.([%-";

/// Why matching stopped without an answer.
#[derive(Debug)]
pub enum Fail {
    /// The pattern is malformed (Lua's message).
    Error(String),
    /// The watchdog stopped the call.
    Stopped,
}

type Step<T> = Result<T, Fail>;

/// One match attempt's state over a subject and a pattern (MatchState).
pub struct Matcher<'a> {
    pub src: &'a [u8],
    pub pat: &'a [u8],
    /// Captures: start in `src`, length (or [`UNFINISHED`], [`POSITION`]).
    pub capture: [(usize, isize); MAX_CAPTURES],
    pub level: usize,
    depth: u32,
    steps: u32,
}

impl<'a> Matcher<'a> {
    pub fn new(src: &'a [u8], pat: &'a [u8]) -> Matcher<'a> {
        Matcher { src, pat, capture: [(0, 0); MAX_CAPTURES], level: 0, depth: MAX_DEPTH, steps: 0 }
    }

    /// Clears the captures and the depth before an attempt at a new start (reprepstate).
    pub fn reset(&mut self) {
        self.level = 0;
        self.depth = MAX_DEPTH;
    }

    /// Counts a step; every [`POLL`] of them, asks whether the call was stopped.
    fn step(&mut self) -> Step<()> {
        self.steps = self.steps.wrapping_add(1);
        if self.steps.is_multiple_of(POLL) && super::watchdog::poll() {
            return Err(Fail::Stopped);
        }
        Ok(())
    }

    /// The pattern's byte at `i`, or 0 past its end (C reads the terminating NUL there).
    fn p(&self, i: usize) -> u8 {
        self.pat.get(i).copied().unwrap_or(0)
    }

    /// The subject's byte at `i`, or 0 past its end.
    fn s(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn error<T>(why: &str) -> Step<T> {
        Err(Fail::Error(why.to_string()))
    }

    fn check_capture(&self, l: u8) -> Step<usize> {
        let l = l as i32 - b'1' as i32;
        if l < 0 || l as usize >= self.level || self.capture[l as usize].1 == UNFINISHED {
            return Self::error(&format!("invalid capture index %{}", l + 1));
        }
        Ok(l as usize)
    }

    fn capture_to_close(&self) -> Step<usize> {
        (0..self.level)
            .rev()
            .find(|&l| self.capture[l].1 == UNFINISHED)
            .map_or_else(|| Self::error("invalid pattern capture"), Ok)
    }

    /// Where the single-character class at `p` ends.
    fn class_end(&self, mut p: usize) -> Step<usize> {
        let c = self.p(p);
        p += 1;
        match c {
            ESC => {
                if p >= self.pat.len() {
                    return Self::error("malformed pattern (ends with '%')");
                }
                Ok(p + 1)
            }
            b'[' => {
                if self.p(p) == b'^' {
                    p += 1;
                }
                loop {
                    // Look for a `]`.
                    if p >= self.pat.len() {
                        return Self::error("malformed pattern (missing ']')");
                    }
                    let c = self.p(p);
                    p += 1;
                    if c == ESC && p < self.pat.len() {
                        p += 1;
                    }
                    if self.p(p) == b']' {
                        return Ok(p + 1);
                    }
                }
            }
            _ => Ok(p),
        }
    }

    /// Whether `c` is in the set `[p..ec]` (p at the `[`, ec at the `]`).
    fn match_bracket_class(&self, c: u8, mut p: usize, ec: usize) -> bool {
        let mut sig = true;
        if self.p(p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        loop {
            p += 1;
            if p >= ec {
                break;
            }
            if self.p(p) == ESC {
                p += 1;
                if match_class(c, self.p(p)) {
                    return sig;
                }
            } else if self.p(p + 1) == b'-' && p + 2 < ec {
                p += 2;
                if self.p(p - 2) <= c && c <= self.p(p) {
                    return sig;
                }
            } else if self.p(p) == c {
                return sig;
            }
        }
        !sig
    }

    fn single_match(&self, s: usize, p: usize, ep: usize) -> bool {
        if s >= self.src.len() {
            return false;
        }
        let c = self.src[s];
        match self.p(p) {
            b'.' => true,
            ESC => match_class(c, self.p(p + 1)),
            b'[' => self.match_bracket_class(c, p, ep - 1),
            pc => pc == c,
        }
    }

    fn match_balance(&mut self, mut s: usize, p: usize) -> Step<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return Self::error("malformed pattern (missing arguments to '%b')");
        }
        if self.s(s) != self.p(p) {
            return Ok(None);
        }
        let (b, e) = (self.p(p), self.p(p + 1));
        let mut open = 1;
        loop {
            s += 1;
            if s >= self.src.len() {
                return Ok(None);
            }
            self.step()?;
            let c = self.src[s];
            if c == e {
                open -= 1;
                if open == 0 {
                    return Ok(Some(s + 1));
                }
            } else if c == b {
                open += 1;
            }
        }
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Step<Option<usize>> {
        let mut i = 0;
        while self.single_match(s + i, p, ep) {
            self.step()?;
            i += 1;
        }
        // Try with the most repetitions first.
        loop {
            if let Some(res) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(res));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> Step<Option<usize>> {
        loop {
            if let Some(res) = self.do_match(s, ep + 1)? {
                return Ok(Some(res));
            }
            if self.single_match(s, p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: isize) -> Step<Option<usize>> {
        let level = self.level;
        if level >= MAX_CAPTURES {
            return Self::error("too many captures");
        }
        self.capture[level] = (s, what);
        self.level = level + 1;
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.level -= 1;
        }
        Ok(res)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> Step<Option<usize>> {
        let l = self.capture_to_close()?;
        self.capture[l].1 = (s - self.capture[l].0) as isize;
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.capture[l].1 = UNFINISHED;
        }
        Ok(res)
    }

    fn match_capture(&mut self, s: usize, l: u8) -> Step<Option<usize>> {
        let l = self.check_capture(l)?;
        let (init, len) = (self.capture[l].0, self.capture[l].1 as usize);
        // Comparing a capture costs its length: count it.
        self.steps = self.steps.wrapping_add((len >> 6) as u32);
        self.step()?;
        if self.src.len() - s >= len && self.src[init..init + len] == self.src[s..s + len] {
            Ok(Some(s + len))
        } else {
            Ok(None)
        }
    }

    /// Matches the pattern from `p` against the subject from `s`: where the match ends.
    pub fn do_match(&mut self, mut s: usize, mut p: usize) -> Step<Option<usize>> {
        if self.depth == 0 {
            return Self::error("pattern too complex");
        }
        self.depth -= 1;
        let res = self.match_from(&mut s, &mut p);
        self.depth += 1;
        res
    }

    /// The body of `do_match`, its tail calls as a loop.
    fn match_from(&mut self, s: &mut usize, p: &mut usize) -> Step<Option<usize>> {
        loop {
            self.step()?;
            if *p == self.pat.len() {
                return Ok(Some(*s));
            }
            match self.p(*p) {
                b'(' => {
                    return if self.p(*p + 1) == b')' {
                        self.start_capture(*s, *p + 2, POSITION)
                    } else {
                        self.start_capture(*s, *p + 1, UNFINISHED)
                    };
                }
                b')' => return self.end_capture(*s, *p + 1),
                b'$' if *p + 1 == self.pat.len() => return Ok((*s == self.src.len()).then_some(*s)),
                ESC if self.p(*p + 1) == b'b' => match self.match_balance(*s, *p + 2)? {
                    Some(e) => (*s, *p) = (e, *p + 4),
                    None => return Ok(None),
                },
                ESC if self.p(*p + 1) == b'f' => {
                    *p += 2;
                    if self.p(*p) != b'[' {
                        return Self::error("missing '[' after '%f' in pattern");
                    }
                    let ep = self.class_end(*p)?;
                    let previous = if *s == 0 { 0 } else { self.src[*s - 1] };
                    if !self.match_bracket_class(previous, *p, ep - 1)
                        && self.match_bracket_class(self.s(*s), *p, ep - 1)
                    {
                        *p = ep;
                    } else {
                        return Ok(None);
                    }
                }
                ESC if self.p(*p + 1).is_ascii_digit() => {
                    match self.match_capture(*s, self.p(*p + 1))? {
                        Some(e) => (*s, *p) = (e, *p + 2),
                        None => return Ok(None),
                    }
                }
                _ => {
                    let ep = self.class_end(*p)?;
                    let suffix = self.p(ep);
                    if !self.single_match(*s, *p, ep) {
                        if matches!(suffix, b'*' | b'?' | b'-') {
                            // Accepts the empty match.
                            *p = ep + 1;
                            continue;
                        }
                        return Ok(None);
                    }
                    match suffix {
                        b'?' => match self.do_match(*s + 1, ep + 1)? {
                            Some(res) => return Ok(Some(res)),
                            None => *p = ep + 1,
                        },
                        b'+' => return self.max_expand(*s + 1, *p, ep),
                        b'*' => return self.max_expand(*s, *p, ep),
                        b'-' => return self.min_expand(*s, *p, ep),
                        _ => (*s, *p) = (*s + 1, ep),
                    }
                }
            }
        }
    }
}

/// Whether `c` is in the class `%cl` (lstrlib.c's match_class, C locale).
fn match_class(c: u8, cl: u8) -> bool {
    let res = match cl.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c < 32 || c == 127,
        b'd' => c.is_ascii_digit(),
        b'g' => c.is_ascii_graphic(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return cl == c,
    };
    if cl.is_ascii_lowercase() { res } else { !res }
}

/// Whether the pattern has none of [`SPECIALS`] (then `find` searches for it as plain text).
pub fn no_specials(pat: &[u8]) -> bool {
    !pat.iter().any(|c| SPECIALS.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first match of `pat` in `src` from each start (Lua's `string.find`, no anchor):
    /// (start, end, captures as text or position).
    fn find(src: &str, pat: &str) -> Option<(usize, usize, Vec<String>)> {
        let mut m = Matcher::new(src.as_bytes(), pat.as_bytes());
        for start in 0..=src.len() {
            m.reset();
            if let Some(end) = m.do_match(start, 0).unwrap() {
                let caps = (0..m.level)
                    .map(|i| match m.capture[i] {
                        (at, POSITION) => (at + 1).to_string(),
                        (at, len) => src[at..at + len as usize].to_string(),
                    })
                    .collect();
                return Some((start, end, caps));
            }
        }
        None
    }

    #[test]
    fn matches_as_lua_does() {
        // Each case checked against Lua 5.4's own string.find.
        assert_eq!(find("hello world", "o w"), Some((4, 7, vec![])));
        assert_eq!(
            find("key = value", "(%w+)%s*=%s*(%w+)"),
            Some((0, 11, vec!["key".into(), "value".into()]))
        );
        assert_eq!(find("THE (quick) fox", "%((%a+)%)"), Some((4, 11, vec!["quick".into()])));
        assert_eq!(find("f(a(b)c)d", "%b()"), Some((1, 8, vec![])));
        assert_eq!(find("THE (quick) fox", "%f[%a]%a+%f[%A]"), Some((0, 3, vec![])));
        assert_eq!(find("aaab", "a-b"), Some((0, 4, vec![])));
        assert_eq!(find("abc", "()b()"), Some((1, 2, vec!["2".into(), "3".into()])));
        assert_eq!(find("xyzzy", "(z)%1"), Some((2, 4, vec!["z".into()])));
        assert_eq!(find("abc", "^b"), None);
        assert_eq!(find("a.b", "[%.]"), Some((1, 2, vec![])));
        assert_eq!(find("a]b", "[]]"), Some((1, 2, vec![])));
        assert_eq!(find("abc", "c$"), Some((2, 3, vec![])));
        assert_eq!(find("x = 12", "%d+$"), Some((4, 6, vec![])));
        assert_eq!(find("abc", "[^a-b]"), Some((2, 3, vec![])));
        assert_eq!(find("", "a*"), Some((0, 0, vec![])));
    }

    #[test]
    fn malformed_patterns_are_lua_errors() {
        for (pat, want) in [
            ("%", "ends with '%'"),
            ("[a", "missing ']'"),
            ("(a", "unfinished"),
            ("a)", "invalid pattern capture"),
            ("%1", "invalid capture index %1"),
            ("%b", "missing arguments"),
        ] {
            let mut m = Matcher::new(b"abc", pat.as_bytes());
            let mut got = None;
            for start in 0..=3 {
                m.reset();
                match m.do_match(start, 0) {
                    Err(Fail::Error(e)) => {
                        got = Some(e);
                        break;
                    }
                    Ok(Some(_))
                        if m.level > 0
                            && m.capture[..m.level].iter().any(|c| c.1 == UNFINISHED) =>
                    {
                        got = Some("unfinished capture".into());
                        break;
                    }
                    _ => {}
                }
            }
            assert!(got.as_deref().is_some_and(|e| e.contains(want)), "{pat}: {got:?}");
        }
        let deep = "(".repeat(250);
        let mut m = Matcher::new(b"abc", deep.as_bytes());
        assert!(matches!(m.do_match(0, 0), Err(Fail::Error(e)) if e.contains("too")));
    }
}
