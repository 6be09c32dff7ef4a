//! The two shapes of case that both the streaming path and the walks over input in memory
//! read:
//!
//! - [`Counted`]: `T`, then T cases, each a count n and n body numbers that each count on their
//!   own (`lasker`'s heaps, `sgq sum`'s heaps and rows). The format is declared once, as data,
//!   and both paths read it: the stream case by case, input in memory by the prefix-sum walk
//!   (`mapped::prefix`), which hands over to the stream where it stops.
//! - [`answer_cases`]: cases a problem's grammar reads one by one (through [`Numbers`]: the
//!   scanner, or `TokenNumbers`), answered as they come on one
//!   thread or in batches on the threads where answering is most of the work (`snim`, `funny`).

use super::mapped::prefix::{self, Body, Sum};
use super::mapped::{Parallel, Walked, ordered};
use super::{Buf, InputError, Numbers, Scanner, Want};
use std::fmt;
use std::io::{self, Read, Write};

/// Writes the message for a body number past its range (a position past a table): given what
/// the number is ("a position in case 3"), its token as shown and its value (`None` past 64
/// bits). See [`Beyond`](super::Beyond).
pub type BeyondIn<'a> = Option<&'a dyn Fn(&dyn fmt::Display, &str, Option<u64>) -> String>;

/// A format of counted cases: `T` in `cases`, then T cases, each a count n in `count` and n
/// body numbers. The names say what a count and a body number are in messages: with "the heap
/// count N" and "a heap size", a message names "the heap count N of case 3" and "a heap size
/// in case 3".
pub struct Counted {
    pub cases: (u64, u64),
    pub count: (u64, u64),
    pub count_name: &'static str,
    pub body_name: &'static str,
}

impl Counted {
    /// Reads T and every case from a stream, `answer(case, sum)` for each in order, and checks
    /// that nothing follows. `body` gives each number's range and value; `beyond` words the
    /// message for a number past the range.
    pub fn answer_stream<F, E>(
        &self,
        body: &Body<F>,
        beyond: BeyondIn,
        input: &mut Scanner<impl Read, impl Buf>,
        answer: &mut impl FnMut(u64, Sum) -> Result<(), E>,
    ) -> Result<(), E>
    where
        F: Fn(u64) -> Sum,
        E: From<InputError>,
    {
        let cases = input.next(self.cases.0, self.cases.1, &"the case count T")?;
        self.answer_from(body, beyond, input, cases, 1, answer)
    }

    /// Cases `from..=cases` from a stream, and the check that nothing follows them.
    #[allow(clippy::too_many_arguments)]
    pub fn answer_from<F, E>(
        &self,
        body: &Body<F>,
        beyond: BeyondIn,
        input: &mut Scanner<impl Read, impl Buf>,
        cases: u64,
        from: u64,
        answer: &mut impl FnMut(u64, Sum) -> Result<(), E>,
    ) -> Result<(), E>
    where
        F: Fn(u64) -> Sum,
        E: From<InputError>,
    {
        for case in from..=cases {
            let n = input.next(
                self.count.0,
                self.count.1,
                &format_args!("{} of case {case}", self.count_name),
            )?;
            let what = format_args!("{} in case {case}", self.body_name);
            let say = beyond.map(|b| move |token: &str, v: Option<u64>| b(&what, token, v));
            let say = say.as_ref().map(|s| s as &dyn Fn(&str, Option<u64>) -> String);
            let sum = input.fold_or(
                n,
                &Want { min: body.min, max: body.max, what: &what, beyond: say },
                Sum::default(),
                |s, v| s.plus((body.value)(v)),
            )?;
            answer(case, sum)?;
        }
        input.expect_end(&format!("the {cases} cases"))?;
        Ok(())
    }

    /// The same answers for an input all in memory: T read first, then the cases on
    /// `par.threads` threads ([`prefix::walk_cases`]); where the walk stops, the stream takes
    /// over from that byte, so its output and messages are the stream's own.
    pub fn answer_mapped<F, E>(
        &self,
        body: &Body<F>,
        beyond: BeyondIn,
        data: &[u8],
        par: Parallel,
        answer: &mut impl FnMut(u64, Sum) -> Result<(), E>,
    ) -> Result<(), E>
    where
        F: Fn(u64) -> Sum + Sync,
        E: From<InputError>,
    {
        let mut head = Scanner::over(data, 0, 0, 0);
        let Ok(Some(cases)) = head.next_in(self.cases.0, self.cases.1, &"") else {
            return self.answer_stream(body, beyond, &mut Scanner::over(data, 0, 0, 0), answer);
        };
        match prefix::walk_cases(
            data,
            head.offset() as usize,
            par,
            cases,
            self.count,
            body,
            &mut *answer,
        )? {
            Walked::Done => Ok(()),
            Walked::Resume { case, offset } => self.answer_from(
                body,
                beyond,
                &mut Scanner::resume(data, offset),
                cases,
                case,
                answer,
            ),
        }
    }
}

/// Cases 1, 2, ... read by `read` from `src` (`Ok(None)`: the input ended where it may) and
/// answered by `answer` (case number, case, where to write its lines), the lines written to
/// `out` in order. On one thread each case is answered as soon as it is read; on more, in
/// batches of `batch` cases on `threads` threads (where answering is most of the work), with at
/// most two batches a thread in flight. Either way, an error is returned once the lines of every
/// case before it are written.
pub fn answer_cases<S: Numbers, C: Send, E: From<io::Error>>(
    src: &mut S,
    threads: usize,
    batch: usize,
    out: &mut impl Write,
    mut read: impl FnMut(&mut S, u64) -> Result<Option<C>, E>,
    answer: &(dyn Fn(u64, &C, &mut Vec<u8>) + Sync),
) -> Result<(), E> {
    if threads <= 1 {
        let mut lines = Vec::new();
        for case in 1.. {
            let Some(c) = read(src, case)? else { return Ok(()) };
            lines.clear();
            answer(case, &c, &mut lines);
            out.write_all(&lines)?;
        }
        return Ok(());
    }
    let work = |(first, cases): (u64, Vec<C>)| {
        let mut lines = Vec::new();
        for (case, c) in (first..).zip(&cases) {
            answer(case, c, &mut lines);
        }
        lines
    };
    ordered(threads, &work, |batches| {
        let (mut first, mut cases) = (1u64, Vec::with_capacity(batch));
        let read = loop {
            match read(src, first + cases.len() as u64) {
                Ok(Some(c)) => cases.push(c),
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
            if cases.len() == batch {
                if batches.in_flight() >= batches.window {
                    out.write_all(&batches.recv().unwrap_or_default())?;
                }
                first += batch as u64;
                batches.send((
                    first - batch as u64,
                    std::mem::replace(&mut cases, Vec::with_capacity(batch)),
                ));
            }
        };
        batches.send((first, cases));
        while let Some(lines) = batches.recv() {
            out.write_all(&lines)?;
        }
        read
    })
}
