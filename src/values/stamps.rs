//! A set of small values kept as stamps: `seen[v] == stamp` marks v in the current set, so
//! emptying it is one increment (a wipe only when the stamp wraps round). The mex of a
//! position's option values is its first unmarked value: the families' references, the
//! generic engine and the take-and-break engine all take theirs from this one set.

/// A stamp: an unsigned integer type, u8 for the densest sets of the hottest loops.
pub trait Stamp: Copy + Eq + Default + std::fmt::Debug {
    const MAX: Self;
    fn succ(self) -> Self;
}

macro_rules! stamp {
    ($($t:ty),*) => {$(
        impl Stamp for $t {
            const MAX: $t = <$t>::MAX;
            #[inline(always)]
            fn succ(self) -> $t {
                self + 1
            }
        }
    )*};
}
stamp!(u8, u32, u64);

/// A set of the values below its length, emptied in O(1).
#[derive(Clone, Debug, Default)]
pub struct Stamps<S: Stamp> {
    seen: Vec<S>,
    stamp: S,
}

impl<S: Stamp> Stamps<S> {
    /// An empty set of the values below `len`.
    pub fn new(len: usize) -> Stamps<S> {
        Stamps { seen: vec![S::default(); len], stamp: S::default().succ() }
    }

    /// The values it holds are those below this.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Empties the set.
    #[inline(always)]
    pub fn clear(&mut self) {
        if self.stamp == S::MAX {
            self.seen.fill(S::default());
            self.stamp = S::default();
        }
        self.stamp = self.stamp.succ();
    }

    /// Holds the values below `len` from now on (those marked stay marked); an allocation
    /// that fails is an error, not an abort.
    pub fn grow(&mut self, len: usize) -> Result<(), std::collections::TryReserveError> {
        if len > self.seen.len() {
            self.seen.try_reserve_exact(len - self.seen.len())?;
            self.seen.resize(len, S::default());
        }
        Ok(())
    }

    /// Marks `v`; a value the set does not hold is left out (the caller sized the set to the
    /// values that can matter: a mex is at most the number of options).
    #[inline(always)]
    pub fn mark(&mut self, v: usize) {
        if let Some(s) = self.seen.get_mut(v) {
            *s = self.stamp;
        }
    }

    /// Marks `v`, growing the set to hold it.
    #[inline]
    pub fn mark_growing(&mut self, v: usize) {
        if v >= self.seen.len() {
            self.seen.resize(v + 1, S::default());
        }
        self.seen[v] = self.stamp;
    }

    #[inline(always)]
    pub fn has(&self, v: usize) -> bool {
        self.seen.get(v) == Some(&self.stamp)
    }

    /// The smallest value not marked (the length, where every value below it is).
    pub fn mex(&self) -> usize {
        self.seen.iter().position(|&s| s != self.stamp).unwrap_or(self.seen.len())
    }

    /// The marks and the current stamp, for loops that write them directly.
    #[inline(always)]
    pub fn parts(&mut self) -> (&mut [S], S) {
        (&mut self.seen, self.stamp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mex_is_the_first_value_unmarked_across_many_sets_and_wraps() {
        let mut set = Stamps::<u8>::new(8);
        // 600 sets: the u8 stamp wraps twice, and no mark of an earlier set survives it.
        for round in 0..600usize {
            set.clear();
            let skip = round % 9;
            for v in (0..8).filter(|&v| v != skip) {
                set.mark(v);
            }
            assert_eq!(set.mex(), skip.min(8), "round {round}");
            assert!((0..8).all(|v| set.has(v) == (v != skip)));
        }
        set.clear();
        assert_eq!(set.mex(), 0);
        set.mark(100);
        assert!(!set.has(100), "a value past the set is left out");
        set.mark_growing(100);
        assert!(set.has(100) && set.len() == 101 && set.mex() == 0);
    }
}
