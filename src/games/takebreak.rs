//! Take-and-break heap games written as codes, as in Winning Ways and CGSuite's `TakeAndBreak`:
//! `0.07` (Dawson's Kayles), `0.77` (Kayles), `4.[3]` (Lasker's Nim), `0.F`, `C.1`.
//!
//! A code is `d0.d1d2d3...`, digits 0–9 and A–F (either case), with an optional repeating tail
//! in brackets at the end (`0.1[23]` = 0.1232323...). Digit d_k, k ≥ 1, is a sum of
//! - 1: remove k beans from a heap of exactly k (leaving nothing);
//! - 2: remove k beans and leave one (non-empty) heap;
//! - 4: remove k beans and split the rest into two non-empty heaps;
//! - 8: remove k beans and split the rest into three non-empty heaps.
//!
//! d0, before the point, may be 0 (or absent: `.6`), 4 (split a heap into two non-empty heaps
//! without removing any), 8 (into three) or C (either). The spec may end in `:N`, the number
//! of heaps tabulated (0..N), default 1024.
//!
//! Canonical text: d0 always written, digits in upper-case hex, trailing zeros dropped, a tail
//! at its shortest period with as much of the finite part folded into it as repeats it
//! (`0.3[3]` and `0.[33]` are `0.[3]`), a tail of zeros dropped, then `:N`.

use super::{Family, Game, Theorem, parse};
use super::{MAX_LEN, SpecError};
use crate::progress::Progress;
use crate::values::{Packed, Rule};
use std::fmt;
use std::sync::Arc;

/// Heaps tabulated when the spec names no count.
pub const DEFAULT_LEN: u64 = 1024;
/// Longest code accepted (digits after the point, tail included).
pub const MAX_DIGITS: usize = 1024;

const GRAMMAR: &str = "a take-and-break code d0.d1d2...[tail][:N] such as 0.07, .6, 4.[3], 0.F, \
    C.1:5000 (digits 0-9 and A-F; d0 is 0, 4, 8 or C; N heaps, default 1024)";

pub static FAMILY: Family = Family { name: "code", grammar: GRAMMAR, parse: parse_spec };

/// A take-and-break code, normalised (see the module docs): every spelling of one game gives
/// the same `Code`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Code {
    /// d0: 0, 4, 8 or 12.
    pub d0: u8,
    /// d1, d2, ... of the finite part (no trailing zeros when there is no tail).
    pub digits: Vec<u8>,
    /// The digits that repeat for ever after `digits`; empty when none.
    pub tail: Vec<u8>,
}

impl Code {
    /// Digit d_k (k ≥ 1), the tail repeated for ever.
    #[inline]
    pub fn digit(&self, k: u64) -> u8 {
        debug_assert!(k >= 1);
        let i = k - 1;
        let m = self.digits.len() as u64;
        if i < m {
            self.digits[i as usize]
        } else if self.tail.is_empty() {
            0
        } else {
            self.tail[((i - m) % self.tail.len() as u64) as usize]
        }
    }

    /// The largest k with d_k ≠ 0 when the code is finite (0 if it has no take moves); `None`
    /// when a tail repeats for ever.
    pub fn last_nonzero(&self) -> Option<u64> {
        self.tail.is_empty().then_some(self.digits.len() as u64)
    }

    /// The most heaps a move leaves: 3 where a digit (or d0) has 8, 2 where one has 4, else 1
    /// (or 0 for a code with no move that leaves a heap).
    pub fn most_heaps_left(&self) -> u64 {
        let bits = self.digits.iter().chain(&self.tail).fold(self.d0, |a, &d| a | d);
        if bits & 8 != 0 {
            3
        } else if bits & 4 != 0 {
            2
        } else if bits & 2 != 0 {
            1
        } else {
            0
        }
    }

    /// Octal: every digit at most 7 (no move leaves three heaps) and d0 = 0.
    pub fn is_octal(&self) -> bool {
        self.d0 == 0 && self.digits.iter().chain(&self.tail).all(|&d| d < 8)
    }

    /// Puts the code in its one canonical form.
    fn normalise(mut self) -> Code {
        // The tail at its shortest period.
        let t = self.tail.len();
        if let Some(p) = (1..=t)
            .find(|&p| t.is_multiple_of(p) && (p..t).all(|i| self.tail[i] == self.tail[i - p]))
        {
            self.tail.truncate(p);
        }
        if self.tail.iter().all(|&d| d == 0) {
            self.tail.clear();
        }
        // Fold the end of the finite part into the tail while it repeats it: 0.3[3] = 0.[3],
        // 0.1[21] = 0.[12].
        while !self.tail.is_empty() && self.digits.last() == self.tail.last() {
            self.digits.pop();
            self.tail.rotate_right(1);
        }
        if self.tail.is_empty() {
            while self.digits.last() == Some(&0) {
                self.digits.pop();
            }
        }
        self
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = |d: &u8| char::from_digit(*d as u32, 16).unwrap_or('?').to_ascii_uppercase();
        write!(f, "{}.", hex(&self.d0))?;
        if self.digits.is_empty() && self.tail.is_empty() {
            return f.write_str("0");
        }
        for d in &self.digits {
            write!(f, "{}", hex(d))?;
        }
        if !self.tail.is_empty() {
            f.write_str("[")?;
            for d in &self.tail {
                write!(f, "{}", hex(d))?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// Parses a code (without `:N`). Errors name the character and what was expected there.
pub fn parse_code(text: &str) -> Result<Code, String> {
    let bytes = text.as_bytes();
    let Some(point) = text.find('.') else {
        return Err("a code needs its point, as in 0.07 or .6".into());
    };
    let d0 = match &text[..point] {
        "" | "0" => 0,
        "4" => 4,
        "8" => 8,
        "C" | "c" => 12,
        other => {
            return Err(format!(
                "the digit before the point is `{}`; it must be 0, 4, 8 or C (splitting a heap \
                    without removing any)",
                other.escape_debug()
            ));
        }
    };
    let (mut digits, mut tail) = (Vec::new(), Vec::new());
    let mut in_tail = false;
    let mut closed = false;
    for (i, c) in text[point + 1..].char_indices() {
        let at = point + 1 + i + 1; // 1-based character position in the code
        if closed {
            return Err(format!(
                "`{}` at character {at} follows the repeating tail; `[...]` must end the code",
                c.escape_debug()
            ));
        }
        match c {
            '[' if !in_tail => in_tail = true,
            ']' if in_tail => {
                if tail.is_empty() {
                    return Err(format!("empty repeating tail `[]` at character {}", at - 1));
                }
                closed = true;
            }
            c if c.is_ascii_hexdigit() => {
                let d = c.to_digit(16).unwrap_or(0) as u8;
                if in_tail {
                    tail.push(d)
                } else {
                    digits.push(d)
                }
                if digits.len() + tail.len() > MAX_DIGITS {
                    return Err(format!("the code has more than {MAX_DIGITS} digits"));
                }
            }
            c => {
                let expected = if in_tail {
                    "a hex digit 0-9, A-F or the closing `]`"
                } else {
                    "a hex digit 0-9, A-F or `[`"
                };
                return Err(format!(
                    "`{}` at character {at} is not allowed; expected {expected}",
                    c.escape_debug()
                ));
            }
        }
    }
    if in_tail && !closed {
        return Err(format!(
            "the repeating tail opened with `[` is not closed with `]` (character {})",
            bytes.len() + 1
        ));
    }
    Ok(Code { d0, digits, tail }.normalise())
}

fn parse_spec(spec: &str) -> Option<Result<Arc<dyn Game>, SpecError>> {
    let first = spec.chars().next()?;
    // Codes start with a digit or the point; names start with a letter. A letter that is a hex
    // digit with a point before any `:` (`C.1`; `A.1`, which is then told that d0 must be 0, 4,
    // 8 or C) is a code too: no family's name has a point in it.
    let head = spec.split(':').next().unwrap_or("");
    if !(first.is_ascii_digit()
        || first == '.'
        || (first.is_ascii_hexdigit() && head.contains('.')))
    {
        return None;
    }
    let (code, count) = match spec.split_once(':') {
        Some((c, n)) => (c, Some(n)),
        None => (spec, None),
    };
    Some((|| {
        let code = parse_code(code).or_else(|why| parse::err(spec, why, GRAMMAR))?;
        let len = parse::bounded(spec, "entry count", count, DEFAULT_LEN, (1, MAX_LEN), GRAMMAR)?;
        Ok(Arc::new(TakeBreak { code, len }) as Arc<dyn Game>)
    })())
}

/// A take-and-break game and how many heaps to tabulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakeBreak {
    pub code: Code,
    pub len: u64,
}

impl Game for TakeBreak {
    fn family(&self) -> &'static Family {
        &FAMILY
    }

    fn canonical(&self) -> String {
        format!("{}:{}", self.code, self.len)
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn reference(&self, progress: &Progress) -> Result<Packed, super::GameError> {
        Ok(Packed::from_values(&reference(&self.code, self.len, progress)))
    }

    /// The Guy–Smith periodicity theorem (Winning Ways, ch. 4), in the form that covers every
    /// finite code: with t the largest removal (the last non-zero digit) and m = max(1, the
    /// most heaps a move leaves), if g(n + p) = g(n) for every n with n0 ≤ n < m·n0 + (m−1)·p + t,
    /// where n0 ≥ 1, then it holds for every n ≥ n0. A rule is checked for the n with
    /// n + p < checked, so the check proves it once checked ≥ m·n0 + m·p + t. Here
    /// n0 = max(pre, 1): from n0 = 0 the check is not enough (`0.4`, g = 0, 0, 0, 1: period 1
    /// holds over 0 ≤ n < 2 and fails at n = 2), since a part of 0 would turn a split into a
    /// move the code may not have. The proof is in `docs/rules.md`; for plain octal codes
    /// (d0 = 0, m ≤ 2) it is the published theorem.
    ///
    /// Plain periods only: a rule with a saltus, or a code with a repeating tail, is checked,
    /// not proven ([`no_theorem`] says why).
    fn periods_provable(&self) -> Result<(), Option<&'static str>> {
        match self.code.last_nonzero() {
            Some(_) => Ok(()),
            None => Err(Some(TAIL)),
        }
    }

    fn no_theorem(&self, rule: &Rule) -> Option<&'static str> {
        Some(no_theorem(&self.code, rule).unwrap_or("no theorem applies to this rule"))
    }

    fn theorem(&self, rule: &Rule) -> Option<Theorem> {
        let t = self.code.last_nonzero()?;
        if rule.saltus != 0 {
            return None;
        }
        let m = self.code.most_heaps_left().max(1);
        let n0 = rule.pre.max(1);
        let needs = n0.checked_add(rule.period)?.checked_mul(m)?.checked_add(t)?;
        let name = if self.code.d0 == 0 && m <= 2 { GUY_SMITH } else { GUY_SMITH_EXTENDED };
        Some(Theorem { name, needs })
    }

    fn moves(&self) -> Option<&dyn super::Moves> {
        Some(self)
    }

    fn with_size(&self, len: u64) -> Option<Arc<dyn Game>> {
        (1..=MAX_LEN)
            .contains(&len)
            .then(|| Arc::new(TakeBreak { code: self.code.clone(), len }) as Arc<dyn Game>)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl super::Moves for TakeBreak {
    fn count(&self) -> u64 {
        self.len
    }

    fn options(&self, p: u64, f: &mut dyn FnMut(&[u64])) {
        options(&self.code, p, f);
    }
}

/// The theorem's name for plain octal codes, and for codes that split without removing or leave
/// three heaps (the same argument with the largest of m parts; `docs/rules.md`).
pub const GUY_SMITH: &str = "the Guy-Smith periodicity theorem";
pub const GUY_SMITH_EXTENDED: &str =
    "the Guy-Smith periodicity theorem, extended to every finite code";

/// Why a code with a repeating tail has no proven rules.
const TAIL: &str = "a code with a repeating tail (take-any moves) has no periodicity theorem here";

/// Why no theorem proves `rule` for `code` ([`TakeBreak::theorem`] returned `None`), in words
/// for `sgtab show`; `None` when a theorem does apply (the rule may still need a longer table).
pub fn no_theorem(code: &Code, rule: &Rule) -> Option<&'static str> {
    if code.last_nonzero().is_none() {
        return Some(TAIL);
    }
    if rule.saltus != 0 {
        return Some(
            "the Guy-Smith theorem covers plain periods only, not a saltus (no \
                arithmetic-periodicity theorem is applied here)",
        );
    }
    None
}

/// Every option of a heap of `n`, as the heaps it leaves (0, 1, 2 or 3 of them, each ≥ 1),
/// straight from the digits. Calls `f` once per option (an option reached two ways may be
/// reported twice).
pub fn options(code: &Code, n: u64, mut f: impl FnMut(&[u64])) {
    let split = |rest: u64, bits: u8, f: &mut dyn FnMut(&[u64])| {
        if bits & 1 != 0 && rest == 0 {
            f(&[]);
        }
        if bits & 2 != 0 && rest >= 1 {
            f(&[rest]);
        }
        if bits & 4 != 0 {
            for a in 1..=rest / 2 {
                f(&[a, rest - a]);
            }
        }
        if bits & 8 != 0 {
            for a in 1..=rest / 3 {
                for b in a..=(rest - a) / 2 {
                    f(&[a, b, rest - a - b]);
                }
            }
        }
    };
    // d0: only its splits (4 and 8) mean anything; the parser refuses 1 and 2.
    split(n, code.d0 & 12, &mut f);
    for k in 1..=n {
        let d = code.digit(k);
        if d != 0 {
            split(n - k, d, &mut f);
        }
    }
}

/// Scalar reference: values of heaps 0..len, each the mex of its options' values (a list of
/// heaps is worth the XOR of theirs). Cubic in `len` where a digit has 8, quadratic otherwise.
pub fn reference(code: &Code, len: u64, progress: &Progress) -> Vec<u32> {
    super::mex_table(len, progress, |n, t, mex| {
        options(code, n, |heaps| {
            mex.mark_growing(heaps.iter().fold(0, |x, &h| x ^ t[h as usize]) as usize)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The game of `spec` as this family parses it (the resolver above adds nothing to a code).
    fn parse(spec: &str) -> Result<Arc<dyn Game>, SpecError> {
        (FAMILY.parse)(spec).expect("a take-and-break spec")
    }

    #[test]
    fn spellings_of_one_game_print_one_text() {
        for (input, canon) in [
            ("0.07", "0.07:1024"),
            (".07", "0.07:1024"),
            ("0.070", "0.07:1024"),
            ("0.[3]", "0.[3]:1024"),
            ("0.3[3]", "0.[3]:1024"),
            ("0.[33]:50", "0.[3]:50"),
            ("0.1[21]", "0.[12]:1024"),
            ("4.[3]", "4.[3]:1024"),
            ("0.f", "0.F:1024"),
            ("c.1", "C.1:1024"),
            ("0.7[0]", "0.7:1024"),
            ("4.", "4.0:1024"),
            ("0.137:100000", "0.137:100000"),
        ] {
            let spec = parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(spec.canonical(), canon, "{input}");
            assert_eq!(parse(canon).unwrap().canonical(), canon);
        }
    }

    #[test]
    fn bad_codes_name_the_character() {
        for (bad, says) in [
            ("0.0G7", "`G` at character 4"),
            ("1.07", "must be 0, 4, 8 or C"),
            ("0.[3", "not closed"),
            ("0.[]", "empty repeating tail"),
            ("0.[3]1", "must end the code"),
            ("0.07:0", "entry count 0"),
            ("07", "needs its point"),
            ("A.1", "must be 0, 4, 8 or C"),
            ("12.07", "before the point is `12`"),
            ("0.1]", "`]` at character 4 is not allowed; expected a hex digit 0-9, A-F or `[`"),
            (
                "0.[1[2]]",
                "`[` at character 5 is not allowed; expected a hex digit 0-9, A-F or the closing \
                    `]`",
            ),
            ("0.é7", "`é` at character 3"),
            ("0.7é", "`é` at character 4"),
            ("0.07:x", "entry count `x` is not a whole number"),
        ] {
            let e = parse(bad).unwrap_err().0;
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn kayles_and_dawson_start_as_published() {
        // Kayles (0.77): 0 1 2 3 1 4 3 2 1 4 2 6 4 1 2 7 (Winning Ways).
        let k = reference(&parse_code("0.77").unwrap(), 16, &Progress::silent());
        assert_eq!(k, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7]);
        // Dawson's Kayles (0.07): 0 0 1 1 2 0 3 1 1 0 3 3 2 2 4 0.
        let d = reference(&parse_code("0.07").unwrap(), 16, &Progress::silent());
        assert_eq!(d, [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0]);
    }
}
