//! Subtraction games with a finite move set: a move takes s stones from one heap, s in the set,
//! when the heap holds at least s. Used by `stones` (S = {1, 3, 9}) and `snim` (S from input).

use super::MexSet;

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
            mex.mark(table[next as usize] as u64);
        }
        table.push(mex.mex() as u32);
    }
    table
}

/// A subtraction game's value at n depends only on the t values before it (t the largest
/// move), so a period p that holds (with saltus 0) on t consecutive n ≥ pre holds for ever.
pub fn proves_period(moves: &[u32], pre: u64, period: u64, saltus: u64, checked: u64) -> bool {
    let t = moves.iter().copied().max().unwrap_or(0) as u64;
    saltus == 0 && checked >= pre + period + t
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_three_nine_alternates() {
        let t = super::reference(&[1, 3, 9], 40);
        assert!(t.iter().enumerate().all(|(n, &v)| v == (n % 2) as u32));
    }
}
