//! Subtraction games with a finite move set: a move takes s stones from one heap, s in the set,
//! when the heap holds at least s. Used by `stones` (S = {1, 3, 9}) and `snim` (S from input).

use super::{Family, Game, MexSet, Theorem, parse};
use super::{MAX_LEN, SpecError};
use crate::progress::Progress;
use crate::values::{Packed, Rule};
use std::sync::Arc;

/// Largest move in a subtraction set (the S-Nim judge allows 10 000).
pub const MAX_MOVE: u32 = 1 << 20;
/// Entries when the spec names no count.
pub const DEFAULT_LEN: u64 = 1024;

const GRAMMAR: &str = "sub:S1,S2,...[:N] (take S1, S2, ... stones; N heaps, default 1024)";

pub static FAMILY: Family = Family { name: "sub", grammar: GRAMMAR, parse: parse_spec };

fn parse_spec(spec: &str) -> Option<Result<Arc<dyn Game>, SpecError>> {
    let rest = parse::named(spec, "sub")?;
    Some((|| {
        let Some(rest) = rest else {
            return parse::err(spec, "sub needs its move set, e.g. sub:1,3,9", GRAMMAR);
        };
        let mut it = rest.splitn(2, ':');
        let mut moves = Vec::new();
        for m in it.next().unwrap_or("").split(',') {
            let m = parse::num(spec, "move", m, GRAMMAR)?;
            if m == 0 || m > MAX_MOVE as u64 {
                return parse::err(spec, format!("move {m} is outside 1 to {MAX_MOVE}"), GRAMMAR);
            }
            moves.push(m as u32);
        }
        moves.sort_unstable();
        moves.dedup();
        let len =
            parse::bounded(spec, "entry count", it.next(), DEFAULT_LEN, (1, MAX_LEN), GRAMMAR)?;
        Ok(Arc::new(Sub { moves, len }) as Arc<dyn Game>)
    })())
}

/// A subtraction game with a finite move set (sorted, no duplicates); `len` entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sub {
    pub moves: Vec<u32>,
    pub len: u64,
}

impl Game for Sub {
    fn family(&self) -> &'static Family {
        &FAMILY
    }

    fn canonical(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
        format!("sub:{}:{}", moves.join(","), self.len)
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn reference(&self, _progress: &Progress) -> Result<Packed, super::GameError> {
        Ok(Packed::from_values(&reference(&self.moves, self.len)))
    }

    /// A subtraction game's value at n depends only on the t values before it (t the largest
    /// move), so a period p that holds (with saltus 0) on t consecutive n ≥ pre holds for ever.
    fn periods_provable(&self) -> Result<(), Option<&'static str>> {
        Ok(())
    }

    fn theorem(&self, rule: &Rule) -> Option<Theorem> {
        let t = self.moves.iter().copied().max().unwrap_or(0) as u64;
        (rule.saltus == 0).then_some(Theorem {
            name: "the subtraction-game window (as long as the largest move)",
            needs: rule.pre + rule.period + t,
        })
    }

    fn moves(&self) -> Option<&dyn super::Moves> {
        Some(self)
    }

    fn with_size(&self, len: u64) -> Option<Arc<dyn Game>> {
        (1..=MAX_LEN)
            .contains(&len)
            .then(|| Arc::new(Sub { moves: self.moves.clone(), len }) as Arc<dyn Game>)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl super::Moves for Sub {
    fn count(&self) -> u64 {
        self.len
    }

    fn options(&self, p: u64, f: &mut dyn FnMut(&[u64])) {
        for q in options(&self.moves, p) {
            f(&[q]);
        }
    }
}

/// Heaps reachable from a heap of `heap` stones.
pub fn options(moves: &[u32], heap: u64) -> impl Iterator<Item = u64> + '_ {
    moves.iter().filter(move |&&s| s as u64 <= heap).map(move |&s| heap - s as u64)
}

/// Scalar reference: values of heaps 0..len.
pub fn reference(moves: &[u32], len: u64) -> Vec<u32> {
    let mut table = Vec::with_capacity(len as usize);
    let mut mex = MexSet::new(moves.len());
    for heap in 0..len {
        mex.clear();
        for next in options(moves, heap) {
            mex.mark_growing(table[next as usize] as usize);
        }
        table.push(mex.mex() as u32);
    }
    table
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_three_nine_alternates() {
        let t = super::reference(&[1, 3, 9], 40);
        assert!(t.iter().enumerate().all(|(n, &v)| v == (n % 2) as u32));
    }
}
