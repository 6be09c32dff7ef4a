//! The engine proper: heap after heap, the options of removing and tails, the rare splits first,
//! then the scans for the few values still wanted.

use super::*;

/// Chunk lengths for the scan kernel, by entry width: 64 bytes.
pub(super) const CHUNK_BYTES: usize = 64;

/// Scans shorter than this stay on one thread.
pub(super) const PARALLEL_SCAN: usize = 1 << 17;

/// The heap loop, compiled for the best instruction set this CPU has: chosen as the chess and
/// corner engines choose theirs, from [`crate::isa::features`] (detected once).
struct FillKernel<T>(unsafe fn(&mut Engine, &mut Vec<T>, &Progress) -> Result<(), u32>);

impl<T: Word> FillKernel<T> {
    fn detect() -> FillKernel<T> {
        #[cfg(target_arch = "x86_64")]
        if crate::isa::features().avx2 {
            return FillKernel(Engine::fill_avx2::<T>);
        }
        FillKernel(Engine::fill_here::<T>)
    }
}

pub(super) struct Engine {
    pub(super) mv: OctalMoves,
    pub(super) len: usize,
    pub(super) par: Par,
    /// A power of two above every value so far (at least 64): every option is below it.
    pub(super) cap: usize,
    pub(super) max: u32,
    /// The options of the heap being computed, cap + 1 bits.
    pub(super) seen: Vec<u64>,
    pub(super) classes: Vec<Class>,
    /// Heaps ≥ 1 per pair.
    pub(super) counts: Vec<u64>,
    pub(super) rare_since: usize,
    pub(super) rare_after: usize,
    pub(super) next_choice: usize,
    /// Per residue of the rest (mod the tail's length): the values of every rest so far
    /// (tail digits with 2), the values of their splits into two (4) and three heaps (8).
    pub(super) tail_take: Vec<Vec<u64>>,
    pub(super) tail_split2: Vec<Vec<u64>>,
    pub(super) tail_split3: Vec<Vec<u64>>,
    pub(super) want: Vec<u32>,
    /// Values met among the splits of the heap being computed: `mark[v] == stamp`. A store per
    /// split, no read-modify-write chain through a bit set, and nothing cleared per heap.
    pub(super) marks: Marks,
    /// One class's wanted values.
    pub(super) mine: Vec<u32>,
}

impl Engine {
    pub(super) fn new(mv: OctalMoves, len: usize, par: Par) -> Engine {
        let cap = 64;
        let mut classes = vec![];
        for d in 0..2 {
            let bs: Vec<usize> = mv.split2.iter().copied().filter(|b| b & 1 == d).collect();
            if !bs.is_empty() {
                classes.push(Class::new(d, bs, 2 * cap / 64));
            }
        }
        let t = mv.tail.len();
        let sets =
            |bit: u8| if mv.tail_has(bit) { vec![vec![0u64; cap / 64 + 1]; t] } else { vec![] };
        let (tail_take, tail_split2, tail_split3) = (sets(2), sets(4), sets(8));
        Engine {
            mv,
            len,
            par,
            cap,
            max: 0,
            seen: vec![0; cap / 64 + 1],
            classes,
            counts: vec![0; 2 * cap],
            rare_since: 0,
            rare_after: 0,
            next_choice: 64,
            tail_take,
            tail_split2,
            tail_split3,
            want: vec![],
            marks: Marks::new(cap),
            mine: vec![],
        }
    }

    /// Computes heaps g.len()..len. Stops with the value that does not fit T.
    pub(super) fn fill<T: Word>(&mut self, g: &mut Vec<T>, progress: &Progress) -> Result<(), u32> {
        let FillKernel(kernel) = FillKernel::detect();
        // SAFETY: `detect` chose a kernel this CPU runs.
        unsafe { kernel(self, g, progress) }
    }

    /// The same loop compiled for AVX2: the scans' compares and the folds run 32 bytes wide.
    /// (Portable builds target SSE2 only; this picks the wider code at run time.)
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn fill_avx2<T: Word>(
        &mut self,
        g: &mut Vec<T>,
        progress: &Progress,
    ) -> Result<(), u32> {
        self.fill_here(g, progress)
    }

    #[inline(always)]
    pub(super) fn fill_here<T: Word>(
        &mut self,
        g: &mut Vec<T>,
        progress: &Progress,
    ) -> Result<(), u32> {
        while g.len() < self.len {
            let n = g.len();
            let v = self.value(g, n);
            if v > T::MAX {
                return Err(v);
            }
            g.push(T::new(v));
            self.pushed(g, v);
            // Every 64 heaps: a heap of a code with three-heap moves can take milliseconds, and
            // a tick that prints nothing costs one clock read.
            if n & 63 == 63 {
                progress.tick(n as u64 + 1, self.len as u64);
            }
        }
        Ok(())
    }

    /// Books the value just pushed at heap g.len() − 1.
    pub(super) fn pushed<T: Word>(&mut self, g: &[T], v: u32) {
        let n = g.len() - 1;
        if v as usize >= self.cap {
            while v as usize >= self.cap {
                self.cap *= 2;
            }
            let words = self.cap / 64 + 1;
            self.seen.resize(words, 0);
            for sets in [&mut self.tail_take, &mut self.tail_split2, &mut self.tail_split3] {
                for s in sets.iter_mut() {
                    s.resize(words, 0);
                }
            }
            for c in &mut self.classes {
                c.resize(2 * self.cap / 64);
            }
            self.counts.resize(2 * self.cap, 0);
            self.marks.grow(self.cap);
        }
        self.max = self.max.max(v);
        if n == 0 || self.classes.is_empty() {
            return;
        }
        let p = pair(v, n);
        self.counts[p] += 1;
        for c in &mut self.classes {
            if has(&c.common, p) {
                continue;
            }
            if c.addable(p) {
                c.add(p);
            } else {
                c.rare.push((n as u32, v));
                self.rare_since += 1;
            }
        }
        if n + 1 >= self.next_choice || self.rare_since > self.rare_after.max(256) {
            self.choose(g);
        }
    }

    /// Chooses each class's common pairs afresh from the counts so far and lists its rare heaps.
    pub(super) fn choose<T: Word>(&mut self, g: &[T]) {
        let n = g.len();
        let mut by_pair: Vec<usize> =
            (0..self.counts.len()).filter(|&p| self.counts[p] > 0).collect();
        by_pair.sort_by_key(|&p| (std::cmp::Reverse(self.counts[p]), p));
        let mut values: Vec<usize> =
            (0..self.cap).filter(|&v| self.counts[2 * v] + self.counts[2 * v + 1] > 0).collect();
        values
            .sort_by_key(|&v| (std::cmp::Reverse(self.counts[2 * v] + self.counts[2 * v + 1]), v));
        let by_value: Vec<usize> = values
            .iter()
            .flat_map(|&v| [2 * v, 2 * v + 1])
            .filter(|&p| self.counts[p] > 0)
            .collect();
        let mut rare = 0;
        for c in &mut self.classes {
            let a = c.greedy(&by_pair, &self.counts);
            let b = c.greedy(&by_value, &self.counts);
            if a < b {
                c.greedy(&by_pair, &self.counts);
            }
            for (i, &x) in g.iter().enumerate().skip(1) {
                if !has(&c.common, pair(x.get(), i)) {
                    c.rare.push((i as u32, x.get()));
                }
            }
            rare = rare.max(c.rare.len());
        }
        self.rare_after = rare;
        self.rare_since = 0;
        self.next_choice = (n + n / 2).max(64);
    }

    /// The value of heap n, every smaller heap known: the plain options first, then the splits
    /// with a rare heap, then the smallest value neither seen nor marked whose pair no two common
    /// heaps make; smaller values whose pair they do make are looked for in full scans.
    #[inline(always)]
    pub(super) fn value<T: Word>(&mut self, g: &[T], n: usize) -> u32 {
        self.plain_options(g, n);
        if self.classes.is_empty() {
            return mex(&self.seen);
        }
        let active = self.rare_splits(g, n);
        let x = self.candidate(n, active);
        if self.want.is_empty() {
            return x;
        }
        self.look_for_wanted(g, n, active, x)
    }

    /// Marks in `seen` the options that are not two-heap splits: taking the whole heap, taking
    /// and leaving one heap, the moves of a repeating tail (their sets grown by one rest), and
    /// three-heap splits.
    #[inline(always)]
    fn plain_options<T: Word>(&mut self, g: &[T], n: usize) {
        let mv = &self.mv;
        let seen = &mut self.seen;
        seen.fill(0);
        if mv.whole(n) {
            set(seen, 0);
        }
        for &k in &mv.take {
            if k >= n {
                break;
            }
            set(seen, g[n - k].get() as usize);
        }
        let (m, t) = (mv.finite.len(), mv.tail.len());
        if t > 0 && n > m + 1 {
            // Rest h = n − m − 1 joins its residue's sets; slot j (k = m+1+j+i·t) then needs every
            // rest of its residue up to n − m − 1 − j, which is exactly what that set holds.
            let h = n - m - 1;
            if let Some(s) = self.tail_take.get_mut(h % t) {
                set(s, g[h].get() as usize);
            }
            if let Some(s) = self.tail_split2.get_mut(h % t) {
                for a in 1..=h / 2 {
                    set(s, (g[a] ^ g[h - a]).get() as usize);
                }
            }
            if let Some(s) = self.tail_split3.get_mut(h % t) {
                split3(g, h, |x| set(s, x as usize));
            }
            for (j, &d) in mv.tail.iter().enumerate() {
                if h < j + 1 {
                    break;
                }
                let r = (h - j) % t;
                if d & 2 != 0 {
                    or_into(seen, &self.tail_take[r]);
                }
                if d & 4 != 0 {
                    or_into(seen, &self.tail_split2[r]);
                }
                if d & 8 != 0 {
                    or_into(seen, &self.tail_split3[r]);
                }
            }
        }
        for &b in &mv.split3 {
            if n >= b + 3 {
                split3(g, n - b, |x| set(seen, x as usize));
            }
        }
    }

    /// Marks the splits of n with a rare heap, class by class; which classes have a split of n.
    #[inline(always)]
    fn rare_splits<T: Word>(&mut self, g: &[T], n: usize) -> [bool; 2] {
        let mv = &self.mv;
        let marks = &mut self.marks;
        marks.next();
        let mut active = [false; 2];
        for (ci, c) in self.classes.iter().enumerate() {
            for &b in &c.bs {
                if n < b + 2 {
                    break;
                }
                active[ci] = true;
                let s = n - b;
                let below = c.rare.partition_point(|&(r, _)| (r as usize) < s);
                let mut mark = |rare: &[(u32, u32)]| marks.rare_splits(g, s, rare);
                if mv.unequal && s.is_multiple_of(2) {
                    // Grundy's game: not the equal split.
                    let half = c.rare.partition_point(|&(r, _)| (r as usize) < s / 2);
                    let skip = half
                        + usize::from(c.rare.get(half).is_some_and(|&(r, _)| r as usize == s / 2));
                    mark(&c.rare[..half]);
                    mark(&c.rare[skip..below.max(skip)]);
                } else {
                    mark(&c.rare[..below]);
                }
            }
        }
        active
    }

    /// The smallest value neither seen nor marked whose pair no two common heaps make (of the
    /// classes with a split of n); the smaller unseen values whose pair they do make go into
    /// `want`.
    #[inline(always)]
    fn candidate(&mut self, n: usize, active: [bool; 2]) -> u32 {
        let (p, classes, seen, marks) = (n & 1, &self.classes, &self.seen, &self.marks);
        let unsafe_in = |ci: usize, x: u32| active[ci] && has(&classes[ci].forbidden, pair(x, p));
        let want = &mut self.want;
        want.clear();
        let mut x = 0u32;
        loop {
            if marks.has(x) || has(seen, x as usize) {
                x += 1;
            } else if (0..classes.len()).any(|ci| unsafe_in(ci, x)) {
                want.push(x);
                x += 1;
            } else {
                break;
            }
        }
        x
    }

    /// The value of heap n given the candidate `x` and the wanted values below it: the smallest
    /// wanted value that is not an option after all, else `x`.
    #[inline(always)]
    fn look_for_wanted<T: Word>(&mut self, g: &[T], n: usize, active: [bool; 2], x: u32) -> u32 {
        let (p, mv, classes, marks, want) =
            (n & 1, &self.mv, &self.classes, &mut self.marks, &mut self.want);
        let unsafe_in = |ci: usize, x: u32| active[ci] && has(&classes[ci].forbidden, pair(x, p));
        // Look for each wanted value among all splits of the classes where it is forbidden (in
        // the others it is not an option: it would have been seen).
        let mut mine = std::mem::take(&mut self.mine);
        for (ci, class) in classes.iter().enumerate() {
            mine.clear();
            mine.extend(want.iter().copied().filter(|&y| unsafe_in(ci, y)));
            let before = mine.len();
            for &b in &class.bs {
                if mine.is_empty() || n < b + 2 {
                    break;
                }
                let s = n - b;
                let hi = if mv.unequal { (s - 1) / 2 } else { s / 2 };
                scan(g, s, 1, hi + 1, &mut mine, self.par, marks);
            }
            if mine.len() < before {
                // Found: the class's wanted values no longer in `mine`.
                want.retain(|&y| !unsafe_in(ci, y) || mine.contains(&y));
            }
        }
        self.mine = mine;
        want.iter().copied().min().unwrap_or(x)
    }
}
