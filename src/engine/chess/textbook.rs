//! The textbook loop for chess rows, kept as the baseline the benches measure the fast engines
//! against: every row in increasing order, a cleared `seen` array, each chip scanned down to its
//! first empty cell, and the first unmarked value. It is what one writes first; the scalar
//! reference (`games::chess::reference`) computes the same values through iterators.

/// Values of every row of `width` cells (1..=32), one byte each.
pub fn chess(width: u32) -> Vec<u8> {
    assert!((1..=32).contains(&width));
    let len = 1usize << width;
    let mut table = vec![0u8; len];
    // A row has at most width − 1 options, so its value is at most width − 1.
    let mut seen = [false; 32];
    for row in 0..len {
        seen[..width as usize].fill(false);
        for i in (0..width as usize).rev() {
            if row >> i & 1 == 0 {
                continue;
            }
            if let Some(j) = (0..i).rev().find(|&j| row >> j & 1 == 0) {
                seen[table[row & !(1 << i) | 1 << j] as usize] = true;
            }
        }
        table[row] = seen.iter().position(|&s| !s).unwrap_or(32) as u8;
    }
    table
}
