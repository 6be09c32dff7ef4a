//! The rare/common split: a class's common pairs and its forbidden set, chosen greedily, and the
//! bit sets they live in.

#[inline(always)]
pub(super) fn set(bits: &mut [u64], i: usize) {
    bits[i >> 6] |= 1 << (i & 63);
}

#[inline(always)]
pub(super) fn has(bits: &[u64], i: usize) -> bool {
    bits.get(i >> 6).is_some_and(|w| (w >> (i & 63)) & 1 != 0)
}

pub(super) fn or_into(to: &mut [u64], from: &[u64]) {
    for (t, f) in to.iter_mut().zip(from) {
        *t |= *f;
    }
}

/// The pair of a value at heap n: (v, n mod 2) as one index.
#[inline(always)]
pub(super) fn pair(v: u32, n: usize) -> usize {
    ((v as usize) << 1) | (n & 1)
}

/// The split moves of one parity class d of beans removed, and its common/rare split.
pub(super) struct Class {
    pub(super) d: usize,
    /// Beans removed before these splits, ascending.
    pub(super) bs: Vec<usize>,
    /// Common pairs, one bit each.
    pub(super) common: Vec<u64>,
    /// c1 ⊕ c2 ⊕ (0, d) for every common c1, c2: no common pair is one.
    pub(super) forbidden: Vec<u64>,
    /// The common pairs as a list.
    pub(super) members: Vec<u32>,
    /// Rare heaps (≥ 1, ascending) with their values.
    pub(super) rare: Vec<(u32, u32)>,
}

impl Class {
    pub(super) fn new(d: usize, bs: Vec<usize>, words: usize) -> Class {
        Class {
            d,
            bs,
            common: vec![0; words],
            forbidden: vec![0; words],
            members: vec![],
            rare: vec![],
        }
    }

    /// Whether pair p can join C: (0, d) never can (c ⊕ c ⊕ (0, d) is itself), nor a pair
    /// already forbidden.
    pub(super) fn addable(&self, p: usize) -> bool {
        p != self.d && !has(&self.forbidden, p)
    }

    pub(super) fn add(&mut self, p: usize) {
        set(&mut self.common, p);
        for &c in &self.members {
            set(&mut self.forbidden, p ^ c as usize ^ self.d);
        }
        set(&mut self.forbidden, self.d);
        self.members.push(p as u32);
    }

    pub(super) fn clear(&mut self) {
        self.common.fill(0);
        self.forbidden.fill(0);
        self.members.clear();
        self.rare.clear();
    }

    pub(super) fn resize(&mut self, words: usize) {
        self.common.resize(words, 0);
        self.forbidden.resize(words, 0);
    }

    /// C chosen greedily in `order`; returns how many heaps it leaves rare.
    pub(super) fn greedy(&mut self, order: &[usize], counts: &[u64]) -> u64 {
        self.clear();
        for &p in order {
            if self.addable(p) {
                self.add(p);
            }
        }
        counts.iter().enumerate().filter(|&(p, _)| !has(&self.common, p)).map(|(_, &c)| c).sum()
    }
}
