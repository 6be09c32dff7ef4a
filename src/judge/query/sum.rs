//! `sgq sum`: `T`, then T cases of `n` and n positions; a line a case, the first word when the
//! XOR of the values is not 0 (the player to move wins), else the second. Heaps and rows are
//! counted cases ([`Counted`]: the stream, and on every core the prefix-sum walk); a board's
//! positions are two tokens each ([`super::board`]); a grid's are k.

use super::board::board_sum;
use super::{Words, grid_position};
use crate::games::Positions;
use crate::judge::JudgeError;
use crate::judge::input::cases::Counted;
use crate::judge::input::mapped::prefix::{Body, Sum};
use crate::judge::input::open::Input;
use crate::judge::input::{Beyond, Buf, Scanner, Want};
use crate::judge::lookup::{FoundTable, Lookup, with_value};
use std::io::{Read, Write};

/// The grammar on heaps and rows: T (any u64) cases, each n and n positions.
const FORMAT: Counted = Counted {
    cases: (0, u64::MAX),
    count: (0, u64::MAX),
    count_name: "the position count n",
    body_name: "a position",
};

/// What `sgq sum` carries from case to case.
pub(super) struct Summer<'g, 'n, 'a> {
    pub(super) g: &'g Lookup<'a>,
    first: String,
    second: String,
    /// The note on a checked rule is written (or not needed).
    noted: bool,
    note: &'n mut dyn FnMut(&str),
}

impl<'g, 'n, 'a> Summer<'g, 'n, 'a> {
    fn new(g: &'g Lookup<'a>, words: &Words, note: &'n mut dyn FnMut(&str)) -> Self {
        Summer {
            g,
            first: format!("{}\n", words.first),
            second: format!("{}\n", words.second),
            noted: !g.unproven(),
            note,
        }
    }

    /// The answer to a case whose values XOR to `x`; `beyond`: a position in it is past the table.
    pub(super) fn say(
        &mut self,
        out: &mut impl Write,
        x: u64,
        beyond: bool,
    ) -> Result<(), JudgeError> {
        if beyond && !self.noted {
            (self.note)(&self.g.note());
            self.noted = true;
        }
        out.write_all(if x != 0 { self.first.as_bytes() } else { self.second.as_bytes() })?;
        Ok(())
    }

    /// T and every case from a stream, and the check that nothing follows them.
    pub(super) fn all(
        &mut self,
        input: &mut Scanner<impl Read, impl Buf>,
        out: &mut impl Write,
    ) -> Result<(), JudgeError> {
        let cases = input.next(FORMAT.cases.0, FORMAT.cases.1, &"the case count T")?;
        self.cases(input, out, cases, 1)
    }

    /// Cases `from..=cases` from a stream, and the check that nothing follows them.
    pub(super) fn cases(
        &mut self,
        input: &mut Scanner<impl Read, impl Buf>,
        out: &mut impl Write,
        cases: u64,
        from: u64,
    ) -> Result<(), JudgeError> {
        let g = self.g;
        let count = |input: &mut Scanner<_, _>, case, max| {
            input.next(0, max, &format_args!("{} of case {case}", FORMAT.count_name))
        };
        match g.positions {
            Positions::Grid(dims) => {
                for case in from..=cases {
                    let mut x = 0;
                    for _ in 0..count(input, case, u64::MAX)? {
                        let index = grid_position(
                            g,
                            &dims,
                            input,
                            &format_args!("a position in case {case}"),
                            false,
                        )?;
                        x ^= g.get(index.unwrap_or(0));
                    }
                    self.say(out, x, false)?;
                }
            }
            Positions::Board { n } => {
                for case in from..=cases {
                    let count = count(input, case, u64::MAX / 2)?;
                    let what = format!("a coordinate in case {case}");
                    let beyond: Beyond = Some(&|t, v| g.beyond(&what, t, v));
                    let want = Want { min: 0, max: g.number_range(), what: &what, beyond };
                    let (x, _) = input.fold_or(
                        2 * count,
                        &want,
                        (0, None),
                        |(x, pending), c| match pending {
                            None => (x, Some(c)),
                            Some(px) => (x ^ g.get(px * n + c), None),
                        },
                    )?;
                    self.say(out, x, false)?;
                }
            }
            _ => {
                let (len, beyond) =
                    (g.len, |what: &dyn std::fmt::Display, t: &str, v| g.beyond(what, t, v));
                let body =
                    Body { min: 0, max: g.number_range(), value: |p| Sum::of(g.get(p), p >= len) };
                return FORMAT.answer_from(
                    &body,
                    Some(&beyond),
                    input,
                    cases,
                    from,
                    &mut |_, s| self.say(out, s.xor, s.flagged != 0),
                );
            }
        }
        input.expect_end(&format!("the {cases} cases"))?;
        Ok(())
    }
}

/// `sgq sum`: an input in memory is read with heaps and rows on `par.threads` threads
/// (counted cases: a position's value and whether it is past the table are its sum), boards
/// by `board_sum`, grids in order on one thread.
pub fn sum<'a>(
    table: impl Into<FoundTable<'a>>,
    words: &Words,
    input: Input,
    out: &mut impl Write,
    note: &mut dyn FnMut(&str),
) -> Result<(), JudgeError> {
    let g = Lookup::new(table)?;
    let mut summer = Summer::new(&g, words, note);
    let (data, par) = match input {
        Input::Stream(r) => return summer.all(&mut Scanner::new(r), out),
        Input::Bytes(data, par) => (data, par),
    };
    match g.positions {
        Positions::Board { n } => board_sum(&mut summer, n, data, par, out),
        Positions::Grid(_) => summer.all(&mut Scanner::over(data, 0, 0, 0), out),
        _ => {
            let (len, max) = (g.len, g.number_range());
            let beyond = |what: &dyn std::fmt::Display, t: &str, v| g.beyond(what, t, v);
            let mut say = |_, s: Sum| summer.say(out, s.xor, s.flagged != 0);
            with_value!(&g, |value| FORMAT.answer_mapped(
                &Body { min: 0, max, value: move |p| Sum::of(value(p), p >= len) },
                Some(&beyond),
                data,
                par,
                &mut say
            ))
        }
    }
}
