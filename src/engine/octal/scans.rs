//! The scans over a heap's splits: the mex of a bit set, stamps for the values met, and the
//! chunked search for wanted values (vectorised; shared by the threads on long scans).

use super::*;
use crate::values::stamps::Stamps;

/// Smallest value not in the set.
pub(super) fn mex(seen: &[u64]) -> u32 {
    for (i, &w) in seen.iter().enumerate() {
        if w != u64::MAX {
            return (i as u32) * 64 + w.trailing_ones();
        }
    }
    seen.len() as u32 * 64
}

/// Every split of s into three heaps a ≤ b ≤ c: f(g(a) ⊕ g(b) ⊕ g(c)).
pub(super) fn split3<T: Word>(g: &[T], s: usize, mut f: impl FnMut(u32)) {
    for a in 1..=s / 3 {
        let ga = g[a];
        for b in a..=(s - a) / 2 {
            f((ga ^ g[b] ^ g[s - a - b]).get());
        }
    }
}

/// A set of the values below a power of two ([`Stamps`] of one byte a value, wiped once every
/// 255 sets), which the scans write directly.
pub(super) struct Marks {
    set: Stamps<u8>,
}

impl Marks {
    pub(super) fn new(cap: usize) -> Marks {
        Marks { set: Stamps::new(cap) }
    }

    /// The values it holds are those below this.
    pub(super) fn cap(&self) -> usize {
        self.set.len()
    }

    /// Holds the values below `cap` from now on (an allocation that fails aborts, as a
    /// vector's growth does).
    pub(super) fn grow(&mut self, cap: usize) {
        if self.set.grow(cap).is_err() {
            std::alloc::handle_alloc_error(std::alloc::Layout::array::<u8>(cap).unwrap());
        }
    }

    /// Starts an empty set.
    pub(super) fn next(&mut self) {
        self.set.clear();
    }

    #[inline(always)]
    pub(super) fn has(&self, v: u32) -> bool {
        self.set.has(v as usize)
    }

    /// Marks x ⊕ g(s − r) for every rare heap (r, x) with 1 ≤ r < s ≤ g.len(): the splits of s
    /// with a rare heap. The hottest loop of most codes: one load and one store a split, no bounds
    /// checks (they were a third of its instructions).
    #[inline(always)]
    pub(super) fn rare_splits<T: Word>(&mut self, g: &[T], s: usize, rare: &[(u32, u32)]) {
        let (mark, stamp) = self.set.parts();
        assert!(mark.len().is_power_of_two() && s <= g.len());
        assert!(
            rare.first().is_none_or(|&(r, _)| r >= 1)
                && rare.last().is_none_or(|&(r, _)| (r as usize) < s)
        );
        let top = mark.len() - 1;
        for &(r, x) in rare {
            // SAFETY: rare heaps ascend, so 1 ≤ r < s ≤ g.len() for each (asserted at both ends),
            // and the mask keeps the index below mark.len(), a power of two.
            unsafe {
                let y = g.get_unchecked(s - r as usize).get();
                *mark.get_unchecked_mut((x ^ y) as usize & top) = stamp;
            }
        }
    }

    /// Marks front[i] ⊕ back[len − 1 − i] for every i.
    #[inline(always)]
    pub(super) fn pairs<T: Word>(&mut self, front: &[T], back: &[T]) {
        let (mark, stamp) = self.set.parts();
        assert!(mark.len().is_power_of_two());
        let top = mark.len() - 1;
        for (&f, &b) in front.iter().zip(back.iter().rev()) {
            // SAFETY: masked below mark.len(), a power of two.
            unsafe { *mark.get_unchecked_mut((f ^ b).get() as usize & top) = stamp };
        }
    }
}

/// Removes from `want` every value g(a) ⊕ g(s−a) for a in lo..hi, stopping once none is left;
/// on `par.threads` threads when the range is longer than `par.from`.
#[inline(always)]
pub(super) fn scan<T: Word>(
    g: &[T],
    s: usize,
    lo: usize,
    hi: usize,
    want: &mut Vec<u32>,
    par: Par,
    marks: &mut Marks,
) {
    let threads = par.threads;
    if threads > 1 && hi > lo + par.from {
        // A first stretch alone: most scans end in it.
        let first = lo + par.from / 4;
        scan_here(g, s, lo, first, want, marks);
        if want.is_empty() {
            return;
        }
        let step = (hi - first).div_ceil(threads);
        let found: Vec<Vec<u32>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|i| {
                    let mut mine = want.clone();
                    let cap = marks.cap();
                    let (a, b) = (first + i * step, (first + (i + 1) * step).min(hi));
                    scope.spawn(move || {
                        let before = mine.clone();
                        if a < b {
                            let mut own = Marks::new(cap);
                            own.next();
                            scan_here(g, s, a, b, &mut mine, &mut own);
                        }
                        before.into_iter().filter(|y| !mine.contains(y)).collect::<Vec<u32>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("scan thread")).collect()
        });
        want.retain(|y| !found.iter().any(|f| f.contains(y)));
        return;
    }
    scan_here(g, s, lo, hi, want, marks)
}

/// `scan` on this thread.
#[inline(always)]
pub(super) fn scan_here<T: Word>(
    g: &[T],
    s: usize,
    lo: usize,
    hi: usize,
    want: &mut Vec<u32>,
    marks: &mut Marks,
) {
    let lanes = CHUNK_BYTES / std::mem::size_of::<T>();
    let mut a = lo;
    while !want.is_empty() && a < hi {
        // Most scans end within a few dozen splits: those, and scans for many values, mark
        // every split's value and look the wanted ones up, with no second pass over a chunk.
        if want.len() > MANY || a == lo {
            // (The marks are the heap's: a wanted value was not among the rare splits, so its
            // mark is not yet the stamp.)
            let mut step = 32;
            let first = a == lo;
            while a < hi {
                let end = (a + step).min(hi);
                step = (2 * step).min(1024);
                let front = &g[a..end];
                let back = &g[s + 1 - end..=s - a];
                marks.pairs(front, back);
                a = end;
                want.retain(|&y| !marks.has(y));
                if want.len() <= MANY || first {
                    break;
                }
            }
            continue;
        }
        // Chunks of `lanes`: g(a..a+lanes) against g(s−a−lanes+1..=s−a) reversed, each lane
        // against every wanted value (padded by repeating one).
        let hit = match want.len() {
            1 => find_chunk::<T, 1>(g, s, &mut a, hi, lanes, want),
            2 => find_chunk::<T, 2>(g, s, &mut a, hi, lanes, want),
            3 | 4 => find_chunk::<T, 4>(g, s, &mut a, hi, lanes, want),
            _ => find_chunk::<T, MANY>(g, s, &mut a, hi, lanes, want),
        };
        if let Some(at) = hit {
            // Every wanted value in the chunk is found at once, each looked for over the whole
            // chunk (before, one split at a time against all of them, back to the chunk search
            // after each find: most of 0.161's time went there).
            let front = &g[at..at + lanes];
            let back = &g[s + 1 - at - lanes..=s - at];
            want.retain(|&y| !any_wanted(front, back, &[T::new(y)]));
            a = at + lanes;
            continue;
        }
        // The last splits, fewer than a chunk.
        while a < hi {
            let x = (g[a] ^ g[s - a]).get();
            a += 1;
            if let Some(i) = want.iter().position(|&y| y == x) {
                want.swap_remove(i);
                break;
            }
        }
    }
}

/// Up to this many wanted values are compared lane by lane; more are marked.
pub(super) const MANY: usize = 8;

/// From `*a`, the first chunk of `lanes` splits with a wanted value (`*a` left at its start), or
/// None (`*a` left where whole chunks end).
#[inline(always)]
pub(super) fn find_chunk<T: Word, const K: usize>(
    g: &[T],
    s: usize,
    a: &mut usize,
    hi: usize,
    lanes: usize,
    want: &[u32],
) -> Option<usize> {
    let w: [T; K] = std::array::from_fn(|i| T::new(want[i.min(want.len() - 1)]));
    while *a + lanes <= hi {
        let front = &g[*a..*a + lanes];
        let back = &g[s + 1 - *a - lanes..=s - *a];
        if any_wanted(front, back, &w) {
            return Some(*a);
        }
        *a += lanes;
    }
    None
}

/// Whether front[i] ⊕ back[len−1−i] is one of `w` for some i. Plain loops over equal-length
/// slices with no early exit, so that the compiler vectorises them.
#[inline(always)]
pub(super) fn any_wanted<T: Word, const K: usize>(front: &[T], back: &[T], w: &[T; K]) -> bool {
    let mut hit = false;
    for (&f, &b) in front.iter().zip(back.iter().rev()) {
        let x = f ^ b;
        for &y in w {
            hit |= x == y;
        }
    }
    hit
}
