//! The walk over counted cases in memory (`T`, then cases of a count n and n body numbers,
//! each worth a value of its own: `lasker`, `sgq sum` on heaps and rows). A sum of games is an
//! XOR, and XOR is associative and its own inverse, so the sum over any run of tokens is the
//! difference of two prefix sums. Headers are few (one a case) and body tokens all the rest,
//! so:
//!
//! 1. **On the threads, per piece** (all the per-token work): every token is read *as a body
//!    number* (range check, value, XOR into a running sum), and every 4096 tokens a mark keeps
//!    (token index, byte offset, running sum). A token that is not a valid body number (a bad
//!    character, out of the body's range) is noted as *odd* and adds nothing; a mark follows
//!    it. A header read as a body number adds its value to the running sum like any other
//!    token, which does no harm: a case's sum is taken between its header and the next.
//! 2. **In order, per case** (per header, not per token): the header of case k is token h
//!    (h = 0 for the first case, then h + 1 + n). Its prefix sum and value come from the
//!    nearest mark before it and at most 4096 tokens read again from there. The case's sum is
//!    P(h + 1 + n) − P(h + 1); it is answered if no odd token lies inside it.
//!
//! Anything unusual (a header out of its range or not a number, an odd token inside a case,
//! the input ending inside a case, input after the last case, a piece with too many odd tokens)
//! stops the walk at the start of that case ([`Walked::Resume`]).

use super::{LONG_TOKEN, Parallel, Walked, cut_from, ordered};
use crate::judge::input::{Halt, Scanner, Want};
use std::ops::Range;

/// Tokens between marks: a header is found by reading at most this many tokens again.
const MARK_EVERY: u64 = 4096;
/// Odd tokens a piece notes before it gives up (the walk then hands over to the streaming
/// path there): valid input has none, so this only bounds the memory bad input can take.
const MAX_ODD: usize = 64;

/// A sum of body tokens: the XOR of their values and how many were flagged (`sgq sum` flags
/// positions past the table, for its note). Both parts have an inverse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sum {
    pub xor: u64,
    pub flagged: u64,
}

impl Sum {
    #[inline(always)]
    pub fn of(xor: u64, flagged: bool) -> Sum {
        Sum { xor, flagged: flagged as u64 }
    }

    /// The sum of both runs of tokens.
    #[inline(always)]
    pub fn plus(self, o: Sum) -> Sum {
        Sum { xor: self.xor ^ o.xor, flagged: self.flagged.wrapping_add(o.flagged) }
    }

    /// The sum of the tokens of this run past those of `o` (a run this one starts with): the
    /// difference of two prefix sums.
    #[inline(always)]
    pub fn minus(self, o: Sum) -> Sum {
        Sum { xor: self.xor ^ o.xor, flagged: self.flagged.wrapping_sub(o.flagged) }
    }
}

/// The body tokens of a case: their range and each one's value.
pub struct Body<F> {
    pub min: u64,
    pub max: u64,
    pub value: F,
}

/// A point of a piece to start reading from: local token index, absolute byte offset, and the
/// piece's sum of the tokens before it.
#[derive(Clone, Copy, Debug)]
struct Mark {
    token: u64,
    offset: usize,
    sum: Sum,
}

/// What the read of a piece knows of it.
struct PieceSums {
    range: Range<usize>,
    /// Tokens read (through the last odd one when `stopped`).
    tokens: u64,
    total: Sum,
    marks: Vec<Mark>,
    /// Local indexes of odd tokens.
    odd: Vec<u64>,
    /// Gave up after too many odd tokens: nothing past `tokens` is known.
    stopped: bool,
}

/// Reads one piece on a thread: every token read as a body number.
fn summarize<F: Fn(u64) -> Sum>(data: &[u8], range: Range<usize>, body: &Body<F>) -> PieceSums {
    let mut scan = Scanner::over(&data[range.clone()], range.start as u64, 0, 0);
    let mut sum = Sum::default();
    let mut tokens = 0;
    let mut marks = vec![Mark { token: 0, offset: range.start, sum }];
    let mut odd = Vec::new();
    loop {
        let (s, left, halt) =
            scan.fold_some(MARK_EVERY, &Want::any(body.min, body.max), sum, |s, v| {
                s.plus((body.value)(v))
            });
        sum = s;
        tokens += MARK_EVERY - left;
        match halt {
            Some(Halt::End) => break,
            Some(Halt::Bad(_)) => {
                // A slice never fails to read, so stepping over the token cannot fail. A token
                // longer than any number's (a run of NULs in a sparse file, say) is not read to
                // its end here: the piece gives up, and the streaming path, which says what is
                // wrong from the token's first bytes, takes over before it.
                let ended = scan.skip_token_within(LONG_TOKEN).unwrap_or(false);
                odd.push(tokens);
                tokens += 1;
                if odd.len() > MAX_ODD || !ended {
                    return PieceSums { range, tokens, total: sum, marks, odd, stopped: true };
                }
            }
            None => {}
        }
        marks.push(Mark { token: tokens, offset: scan.offset() as usize, sum });
    }
    PieceSums { range, tokens, total: sum, marks, odd, stopped: false }
}

/// Token `i` as phase 2 sees it.
struct At {
    /// Sum of the body tokens before it.
    prefix: Sum,
    /// Where a scanner stands before it (just past the token before).
    offset: usize,
    /// Its value, if it was read as a header and is a number in the header's range.
    value: Option<u64>,
}

/// Phase 2: the pieces with their global token indexes, read again near a header.
struct Walk<'d, 'b, F> {
    data: &'d [u8],
    body: &'b Body<F>,
    pieces: Vec<PieceSums>,
    /// Global index of each piece's first token, and the sum of all pieces before it.
    first: Vec<u64>,
    before: Vec<Sum>,
    /// Tokens known (all of them unless a piece stopped), their sum, and whether that is all.
    known: u64,
    total: Sum,
    complete: bool,
    /// Global indexes of odd tokens, in order.
    odd: Vec<u64>,
    /// Just past the last header read: (piece, mark), to go on from there.
    cursor: Option<(usize, Mark)>,
}

impl<'d, 'b, F: Fn(u64) -> Sum> Walk<'d, 'b, F> {
    fn new(data: &'d [u8], body: &'b Body<F>, mut pieces: Vec<PieceSums>) -> Self {
        let (mut first, mut before, mut odd) = (Vec::new(), Vec::new(), Vec::new());
        let (mut known, mut total, mut complete) = (0, Sum::default(), true);
        for p in &pieces {
            first.push(known);
            before.push(total);
            odd.extend(p.odd.iter().map(|&o| known + o));
            known += p.tokens;
            total = total.plus(p.total);
            if p.stopped {
                complete = false;
                break;
            }
        }
        pieces.truncate(first.len());
        Walk { data, body, pieces, first, before, known, total, complete, odd, cursor: None }
    }

    /// Whether an odd token lies in tokens `from..to`.
    fn odd_in(&self, from: u64, to: u64) -> bool {
        let i = self.odd.partition_point(|&o| o < from);
        self.odd.get(i).is_some_and(|&o| o < to)
    }

    /// Token `i`, read as a header in `header` if given; `None` where it is not known.
    fn at(&mut self, i: u64, header: Option<(u64, u64)>) -> Option<At> {
        if i >= self.known {
            return (i == self.known && self.complete).then_some(At {
                prefix: self.total,
                offset: self.data.len(),
                value: None,
            });
        }
        let p = self.first.partition_point(|&f| f <= i) - 1;
        let piece = &self.pieces[p];
        let local = i - self.first[p];
        let mut mark = piece.marks[piece.marks.partition_point(|m| m.token <= local) - 1];
        if let Some((cp, c)) = self.cursor
            && cp == p
            && c.token <= local
            && c.token > mark.token
        {
            mark = c;
        }
        let mut scan =
            Scanner::over(&self.data[mark.offset..piece.range.end], mark.offset as u64, 0, 0);
        let body = self.body;
        let (sum, _, halt) =
            scan.fold_some(local - mark.token, &Want::any(body.min, body.max), mark.sum, |s, v| {
                s.plus((body.value)(v))
            });
        if halt.is_some() {
            return None; // no odd token lies between a mark and the next; never happens
        }
        let offset = scan.offset() as usize;
        let prefix = self.before[p].plus(sum);
        let value = header.and_then(|(min, max)| scan.next_in(min, max, &"").ok().flatten());
        if let Some(v) = value {
            let own =
                if (body.min..=body.max).contains(&v) { (body.value)(v) } else { Sum::default() };
            self.cursor = Some((
                p,
                Mark { token: local + 1, offset: scan.offset() as usize, sum: sum.plus(own) },
            ));
        }
        Some(At { prefix, offset, value })
    }
}

/// Answers cases `1..=cases` of `data[start..]` (the case count T is read: `start` is just
/// past it), each a count in `count` and that many body numbers, on `par.threads` threads:
/// `answer(case, sum)` for each case answered, in order. Returns where the streaming path
/// must take over, if anywhere.
pub fn walk_cases<F, A, E>(
    data: &[u8],
    start: usize,
    par: Parallel,
    cases: u64,
    count: (u64, u64),
    body: &Body<F>,
    mut answer: A,
) -> Result<Walked, E>
where
    F: Fn(u64) -> Sum + Sync,
    A: FnMut(u64, Sum) -> Result<(), E>,
{
    let ranges = cut_from(data, start, par);
    let read = |r: Range<usize>| {
        let sums = summarize(data, r.clone(), body);
        par.release(&data[r]);
        sums
    };
    let pieces = ordered(par.threads.min(ranges.len()), &read, |pieces| {
        std::iter::from_fn(|| pieces.next_in_order(&ranges)).collect()
    });
    let mut walk = Walk::new(data, body, pieces);
    // The header of the next case: its index, and what it is (read with the count's range).
    let mut h = 0;
    let Some(mut head) = walk.at(h, (cases > 0).then_some(count)) else {
        return Ok(Walked::Resume { case: 1, offset: start });
    };
    for case in 1..=cases {
        let resume = Walked::Resume { case, offset: head.offset };
        let Some(n) = head.value else { return Ok(resume) };
        let own = if (body.min..=body.max).contains(&n) { (body.value)(n) } else { Sum::default() };
        let first = h + 1;
        let Some(end) = first.checked_add(n).filter(|&e| e <= walk.known) else {
            return Ok(resume);
        };
        if walk.odd_in(first, end) {
            return Ok(resume);
        }
        let Some(next) = walk.at(end, (case < cases).then_some(count)) else { return Ok(resume) };
        answer(case, next.prefix.minus(head.prefix.plus(own)))?;
        (h, head) = (end, next);
    }
    if h == walk.known && walk.complete {
        return Ok(Walked::Done);
    }
    Ok(Walked::Resume { case: cases + 1, offset: head.offset })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::input::is_space;

    /// xorshift64
    fn rng(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// Random inputs of the case format (T, then count and tokens), with odd whitespace.
    fn make(seed: u64, cases: u64) -> (Vec<u8>, Vec<(usize, u64)>) {
        let mut x = seed | 1;
        let mut text = String::new();
        // (offset where the header starts, xor of the case)
        let mut heads = Vec::new();
        let sep = |x: &mut u64| ["\n", " ", "\t", "\r\n", "   "][(rng(x) % 5) as usize];
        text += &format!("{}{}", cases, sep(&mut x));
        for _ in 0..cases {
            let n = rng(&mut x) % 40;
            heads.push((text.len(), 0));
            text += &format!("{n}{}", sep(&mut x));
            let mut xor = 0;
            for _ in 0..n {
                let v = rng(&mut x) % 1000;
                xor ^= v * 3;
                text += &format!(
                    "{}{v}{}",
                    if rng(&mut x).is_multiple_of(9) { "000" } else { "" },
                    sep(&mut x)
                );
            }
            heads.last_mut().unwrap().1 = xor;
        }
        (text.into_bytes(), heads)
    }

    /// The walk over `data` (T, then its cases), T read first as the counted format reads it.
    fn walk(data: &[u8], threads: usize, piece: usize) -> (Vec<(u64, u64)>, Walked) {
        let body = Body { min: 0, max: 999, value: |v| Sum::of(v * 3, false) };
        let mut head = Scanner::over(data, 0, 0, 0);
        let cases = head.next(0, 1000, &"T").unwrap();
        let mut got = Vec::new();
        let par = Parallel { threads, piece, ..Parallel::new(1) };
        let walked =
            walk_cases(data, head.offset() as usize, par, cases, (0, 1000), &body, |case, s| {
                got.push((case, s.xor));
                Ok::<_, ()>(())
            })
            .unwrap();
        (got, walked)
    }

    #[test]
    fn case_sums_agree_with_a_plain_reading() {
        for seed in 1..30 {
            let (data, heads) = make(seed, seed * 3);
            let want: Vec<(u64, u64)> =
                heads.iter().enumerate().map(|(i, &(_, x))| (i as u64 + 1, x)).collect();
            for (threads, piece) in [(1, 1), (2, 7), (3, 64), (7, 13), (2, 1 << 20)] {
                assert_eq!(
                    walk(&data, threads, piece),
                    (want.clone(), Walked::Done),
                    "seed {seed}, {threads} threads, pieces of {piece}"
                );
            }
        }
    }

    #[test]
    fn a_broken_case_hands_over_at_its_header() {
        for seed in 1..20 {
            let (data, heads) = make(seed, 12);
            for broken in [0usize, 5, 11] {
                let (at, _) = heads[broken];
                // The first token after the header, or the next header: a letter either way.
                let mut bad = data.clone();
                let next = (at..bad.len()).find(|&i| is_space(bad[i])).unwrap();
                let tok = (next..bad.len()).find(|&i| !is_space(bad[i])).unwrap_or(bad.len() - 1);
                bad[tok] = b'x';
                // Many odd tokens in one piece as well (past MAX_ODD), after the broken one.
                let mut many = bad.clone();
                many.extend(b" y".repeat(200));
                for data in [&bad, &many] {
                    for (threads, piece) in [(1, 5), (2, 50), (7, 3), (2, 1 << 20)] {
                        let (got, walked) = walk(data, threads, piece);
                        let want: Vec<(u64, u64)> = heads[..broken]
                            .iter()
                            .enumerate()
                            .map(|(i, &(_, x))| (i as u64 + 1, x))
                            .collect();
                        // A letter in the last token of a case may be the next header: the case
                        // before it is then answered too (as the streaming path answers it).
                        assert!(
                            got.len() == broken || got.len() == broken + 1,
                            "seed {seed}: {got:?}"
                        );
                        assert_eq!(
                            got[..broken],
                            want[..],
                            "seed {seed}, broken case {}",
                            broken + 1
                        );
                        let Walked::Resume { case, offset } = walked else {
                            panic!("seed {seed}: {walked:?}")
                        };
                        assert_eq!(case, got.len() as u64 + 1);
                        // Case 13: the letter came after the last case (which had no tokens).
                        let head = heads.get(case as usize - 1).map_or(tok, |h| h.0);
                        assert!(
                            offset <= head && data[offset..head].iter().all(|&b| is_space(b)),
                            "seed {seed}: offset {offset}, header at {head}"
                        );
                    }
                }
            }
        }
    }
}
