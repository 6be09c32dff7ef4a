//! The fast engine for take-and-break games (octal and hexadecimal codes, codes with repeating
//! tails, Grundy's game): the rare/common split of values, as the field computes octal games
//! (Gangolli and Plambeck; Flammenkamp; the public solvers `beling/impartial-games`, methods
//! `rc`/`rc2`, and `rogalski-wmii-uni-lodz-pl/octal`).
//!
//! Heap n is worth the mex of its options. Removing and leaving one heap, or taking a whole
//! heap, are a handful of options each; splitting into two heaps, g(a) ⊕ g(s−a) for every a, is
//! the quadratic part. The split makes it near-linear where the game allows:
//!
//! - Each value is taken with the parity of its heap, a *pair* (v, n mod 2). Split moves fall
//!   in two classes by the parity of the beans removed, d (d0's split removes none: class 0).
//!   A class keeps a set C of *common* pairs chosen so that no c1 ⊕ c2 ⊕ (0, d) is in C (its
//!   *forbidden* set F = {c1 ⊕ c2 ⊕ (0, d)}); every other heap is *rare* for that class.
//! - A split of n in class d into two common heaps gives a pair in F (the pairs' parities add
//!   up to n − d). So every option of n whose pair is not in F comes from a split with a rare
//!   heap: those few splits are enumerated first, and the smallest value not seen whose pair is
//!   outside F of every class is the mex unless a smaller value, unseen and in some F, is an
//!   option after all. Those few *wanted* values are then looked for in the full scan of the
//!   classes where they are in F, which stops as soon as all are found; usually very early.
//!   This is exact whatever C is (an empty C is the plain quadratic scan); a good C only makes
//!   it fast. C is chosen greedily, most frequent pair first (by pair, or by value with both
//!   parities, whichever leaves fewer rare heaps), and rechosen as the counts change.
//! - The values met among a heap's splits are kept as stamps (`mark[v] = stamp`, a new stamp
//!   per heap, the array wiped once every 255 heaps): one store per split, no clearing and no
//!   read-modify-write chain through a bit set; the candidate is read straight from them.
//! - The full scan reads g(a) ⊕ g(s−a) a chunk at a time. Up to eight wanted values are compared
//!   lane by lane, written so that the compiler vectorises it (plain arrays: `wide` has no lane
//!   reversal, which the reversed half needs); more are marked and looked up per chunk, and
//!   the first few dozen splits (where most scans end) are marked too. The whole loop is also
//!   compiled for AVX2 and picked at run time. Scans longer than 2^17 splits are shared by the
//!   threads; the heaps themselves form one dependency chain (a split reads g(n−b−1)), so a
//!   single long table gains little from more cores.
//! - Moves of a repeating tail (`0.[3]`, take any number) are infinitely many: they are kept as
//!   per-residue sets of the values (or split values) of every rest so far, each grown by one
//!   rest per heap, so a heap costs a few set unions instead of a pass over all smaller heaps.
//! - Splits into three heaps (digit 8) are enumerated in full: correct, cubic.
//!
//! Values are stored at the narrowest of u8, u16, u32 that holds them (widened when a value
//! outgrows the type) and packed in place at the end, so a table of small values costs one byte
//! a heap while it is built.
//!
//! A table can grow ([`Growing`]): the engine keeps its state between calls, so `sgtab build`
//! and `--prove` look for a rule at 4096, 16384, ... heaps and at the lengths the Guy–Smith
//! theorem asks for on one table, never recomputing a heap.

use super::EngineError;
use crate::games::takebreak::Code;
use crate::memory;
use crate::progress::Progress;
use crate::table::Packed;
use crate::table::packed::bits_for;
use std::ops::BitXor;

/// The moves of a heap game as the engine uses them.
#[derive(Clone, Debug)]
pub struct Moves {
    /// Digits d1..dm of the finite part (index k−1).
    finite: Vec<u8>,
    /// k ≤ m whose digit has 2: remove k, leave one heap.
    take: Vec<usize>,
    /// Beans removed before a split into two heaps (0 for d0's 4), finite part.
    split2: Vec<usize>,
    /// Beans removed before a split into three heaps (0 for d0's 8), finite part.
    split3: Vec<usize>,
    /// Digits repeating for ever after the finite part.
    tail: Vec<u8>,
    /// Grundy's game: the two heaps of a split must differ.
    unequal: bool,
}

impl Moves {
    /// The moves of a take-and-break code.
    pub fn code(code: &Code) -> Moves {
        let finite = code.digits.clone();
        let with = |bit: u8| (1..=finite.len()).filter(|&k| finite[k - 1] & bit != 0).collect::<Vec<_>>();
        let mut split2 = with(4);
        let mut split3 = with(8);
        if code.d0 & 4 != 0 {
            split2.insert(0, 0);
        }
        if code.d0 & 8 != 0 {
            split3.insert(0, 0);
        }
        Moves { take: with(2), split2, split3, finite, tail: code.tail.clone(), unequal: false }
    }

    /// Grundy's game: split a heap into two unequal non-empty heaps.
    pub fn grundy() -> Moves {
        Moves { finite: vec![], take: vec![], split2: vec![0], split3: vec![], tail: vec![], unequal: true }
    }

    /// Whether a heap of exactly n may be taken whole.
    fn whole(&self, n: usize) -> bool {
        let m = self.finite.len();
        if n == 0 {
            false
        } else if n <= m {
            self.finite[n - 1] & 1 != 0
        } else if self.tail.is_empty() {
            false
        } else {
            self.tail[(n - m - 1) % self.tail.len()] & 1 != 0
        }
    }

    fn tail_has(&self, bit: u8) -> bool {
        self.tail.iter().any(|&d| d & bit != 0)
    }
}

/// Values of heaps 0..len of `code`, on up to `threads` threads.
pub fn takebreak(code: &Code, len: u64, threads: usize, progress: &Progress) -> Result<Packed, EngineError> {
    run(&Moves::code(code), len, Par { threads, from: PARALLEL_SCAN }, progress)
}

/// Values of heaps 0..len of Grundy's game, on up to `threads` threads.
pub fn grundy(len: u64, threads: usize, progress: &Progress) -> Result<Packed, EngineError> {
    run(&Moves::grundy(), len, Par { threads, from: PARALLEL_SCAN }, progress)
}

/// Threads for the long scans, and from how long a scan they are used.
#[derive(Clone, Copy, Debug)]
pub struct Par {
    pub threads: usize,
    pub from: usize,
}

/// What a fast-engine registration for Grundy's game calls: the table of heaps 0..len on all
/// cores, timed as the "kernel" phase.
pub fn grundy_compute(len: u64, progress: &Progress, timings: &mut super::Timings) -> Result<Packed, EngineError> {
    timings.time("kernel", || grundy(len, super::simd::threads(), progress))
}

/// Values of heaps 0..len of the game with `moves`; tests lower `par.from` so that short scans
/// take the threaded path too. Fails where the values do not fit in memory.
pub fn run(moves: &Moves, len: u64, par: Par, progress: &Progress) -> Result<Packed, EngineError> {
    let mut table = Growing::new(moves, par);
    table.grow(len, progress)?;
    Ok(table.into_packed())
}

/// A table that can be extended: the engine keeps its state (common sets, rare heaps, tail sets)
/// between calls, so growing to N in steps costs what one build to N costs. `sgtab build
/// --prove` grows one of these and looks for a rule at each step instead of rebuilding.
pub struct Growing {
    engine: Engine,
    store: Store,
}

/// The values so far at the narrowest width that holds them.
enum Store {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Growing {
    /// An empty table of the game with `moves`.
    pub fn new(moves: &Moves, par: Par) -> Growing {
        let par = Par { threads: par.threads.max(1), from: par.from.max(8) };
        Growing { engine: Engine::new(moves.clone(), 0, par), store: Store::U8(vec![]) }
    }

    /// An empty table of `code`, on up to `threads` threads.
    pub fn code(code: &Code, threads: usize) -> Growing {
        Growing::new(&Moves::code(code), Par { threads, from: PARALLEL_SCAN })
    }

    /// Heaps tabulated so far.
    pub fn len(&self) -> u64 {
        (match &self.store {
            Store::U8(g) => g.len(),
            Store::U16(g) => g.len(),
            Store::U32(g) => g.len(),
        }) as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room for `len` heaps in all, so that growing to it neither copies nor over-allocates;
    /// fails where that does not fit in memory.
    pub fn reserve(&mut self, len: u64) -> Result<(), EngineError> {
        let more = usize::try_from(len).unwrap_or(usize::MAX).saturating_sub(self.len() as usize);
        match &mut self.store {
            Store::U8(g) => memory::reserve(g, more, "its values"),
            Store::U16(g) => memory::reserve(g, more, "its values"),
            Store::U32(g) => memory::reserve(g, more, "its values"),
        }
    }

    /// The value of heap n < len().
    pub fn get(&self, n: u64) -> u32 {
        let n = n as usize;
        match &self.store {
            Store::U8(g) => g[n] as u32,
            Store::U16(g) => g[n] as u32,
            Store::U32(g) => g[n],
        }
    }

    /// Computes heaps len()..len (nothing if len ≤ len()); fails where they do not fit in
    /// memory (what was computed stays).
    pub fn grow(&mut self, len: u64, progress: &Progress) -> Result<(), EngineError> {
        let len = usize::try_from(len).expect("table length fits in memory");
        assert!(len <= u32::MAX as usize, "heaps are counted in 32 bits");
        let engine = &mut self.engine;
        engine.len = len;
        loop {
            let stopped = match &mut self.store {
                Store::U8(g) => {
                    memory::reserve(g, len.saturating_sub(g.len()), "its values")?;
                    engine.fill(g, progress)
                }
                Store::U16(g) => {
                    memory::reserve(g, len.saturating_sub(g.len()), "its values")?;
                    engine.fill(g, progress)
                }
                Store::U32(g) => {
                    memory::reserve(g, len.saturating_sub(g.len()), "its values")?;
                    engine.fill(g, progress)
                }
            };
            let Err(v) = stopped else { return Ok(()) };
            // A value outgrew the width: widen, push it, go on.
            self.store = match std::mem::replace(&mut self.store, Store::U8(vec![])) {
                Store::U8(g) => {
                    let mut w = widen::<u8, u16>(g, len)?;
                    w.push(v as u16);
                    engine.pushed(&w, v);
                    Store::U16(w)
                }
                Store::U16(g) => {
                    let mut w = widen::<u16, u32>(g, len)?;
                    w.push(v);
                    engine.pushed(&w, v);
                    Store::U32(w)
                }
                Store::U32(_) => unreachable!("u32 holds every value"),
            };
        }
    }

    /// The values, packed in place at the fewest bits that hold them.
    pub fn into_packed(self) -> Packed {
        let max = self.engine.max;
        match self.store {
            Store::U8(g) => pack(g, max),
            Store::U16(g) => pack(g, max),
            Store::U32(g) => pack(g, max),
        }
    }
}

fn widen<A: Word, B: Word>(from: Vec<A>, len: usize) -> Result<Vec<B>, EngineError> {
    let mut to = Vec::new();
    memory::reserve(&mut to, len, "its values at the wider width they have reached")?;
    to.extend(from.iter().map(|&v| B::new(v.get())));
    Ok(to)
}

/// Packs the table in its own buffer (each value's bits land at or before where it was read),
/// at the fewest bits that hold `max`: the bytes of `Packed::from_values`.
fn pack<T: Word>(mut table: Vec<T>, max: u32) -> Packed {
    let bits = bits_for(max as u64);
    let len = table.len();
    let size = std::mem::size_of::<T>();
    let out = {
        // SAFETY: u8, u16 and u32 have no padding and every byte pattern is valid; the view
        // covers exactly the table's initialised elements and ends with this block.
        let bytes = unsafe { std::slice::from_raw_parts_mut(table.as_mut_ptr() as *mut u8, len * size) };
        let (mut acc, mut have, mut out) = (0u64, 0u32, 0usize);
        for i in 0..len {
            let at = i * size;
            let mut v = 0u64;
            for (j, &b) in bytes[at..at + size].iter().enumerate() {
                v |= (b as u64) << (8 * j);
            }
            acc |= v << have;
            have += bits;
            while have >= 8 {
                // out < (i+1)·bits/8 ≤ (i+1)·size: never past the bytes still to be read.
                bytes[out] = acc as u8;
                out += 1;
                acc >>= 8;
                have -= 8;
            }
        }
        if have > 0 {
            bytes[out] = acc as u8;
            out += 1;
        }
        out
    };
    let payload = match T::into_bytes(table) {
        // The same allocation, no copy: a u8 table (the big ones) peaks at one byte a heap.
        Ok(mut bytes) => {
            bytes.truncate(out);
            // Give back the bytes packing freed (a large block shrinks in place), with room for
            // the payload's padding: the rule search that follows then adds to the packed size.
            bytes.shrink_to(out + 64);
            bytes
        }
        Err(table) => {
            // SAFETY: as above.
            let bytes = unsafe { std::slice::from_raw_parts(table.as_ptr() as *const u8, len * size) };
            bytes[..out].to_vec()
        }
    };
    Packed::from_payload(bits, len as u64, payload).expect("packed in place")
}

/// A table entry: u8, u16 or u32, little-endian in memory as in `.sgt` payloads.
pub trait Word: Copy + Eq + Default + BitXor<Output = Self> + Send + Sync + 'static {
    const MAX: u32;
    fn new(v: u32) -> Self;
    fn get(self) -> u32;
    /// The vector itself when it is already bytes.
    fn into_bytes(v: Vec<Self>) -> Result<Vec<u8>, Vec<Self>>;
}

impl Word for u8 {
    const MAX: u32 = u8::MAX as u32;
    #[inline(always)]
    fn new(v: u32) -> u8 {
        v as u8
    }
    #[inline(always)]
    fn get(self) -> u32 {
        self as u32
    }
    fn into_bytes(v: Vec<u8>) -> Result<Vec<u8>, Vec<u8>> {
        Ok(v)
    }
}

impl Word for u16 {
    const MAX: u32 = u16::MAX as u32;
    #[inline(always)]
    fn new(v: u32) -> u16 {
        v as u16
    }
    #[inline(always)]
    fn get(self) -> u32 {
        self as u32
    }
    fn into_bytes(v: Vec<u16>) -> Result<Vec<u8>, Vec<u16>> {
        Err(v)
    }
}

impl Word for u32 {
    const MAX: u32 = u32::MAX;
    #[inline(always)]
    fn new(v: u32) -> u32 {
        v
    }
    #[inline(always)]
    fn get(self) -> u32 {
        self
    }
    fn into_bytes(v: Vec<u32>) -> Result<Vec<u8>, Vec<u32>> {
        Err(v)
    }
}

#[inline(always)]
fn set(bits: &mut [u64], i: usize) {
    bits[i >> 6] |= 1 << (i & 63);
}

#[inline(always)]
fn has(bits: &[u64], i: usize) -> bool {
    bits.get(i >> 6).is_some_and(|w| (w >> (i & 63)) & 1 != 0)
}

fn or_into(to: &mut [u64], from: &[u64]) {
    for (t, f) in to.iter_mut().zip(from) {
        *t |= *f;
    }
}

/// The pair of a value at heap n: (v, n mod 2) as one index.
#[inline(always)]
fn pair(v: u32, n: usize) -> usize {
    ((v as usize) << 1) | (n & 1)
}

/// The split moves of one parity class d of beans removed, and its common/rare split.
struct Class {
    d: usize,
    /// Beans removed before these splits, ascending.
    bs: Vec<usize>,
    /// Common pairs, one bit each.
    common: Vec<u64>,
    /// c1 ⊕ c2 ⊕ (0, d) for every common c1, c2: no common pair is one.
    forbidden: Vec<u64>,
    /// The common pairs as a list.
    members: Vec<u32>,
    /// Rare heaps (≥ 1, ascending) with their values.
    rare: Vec<(u32, u32)>,
}

impl Class {
    fn new(d: usize, bs: Vec<usize>, words: usize) -> Class {
        Class { d, bs, common: vec![0; words], forbidden: vec![0; words], members: vec![], rare: vec![] }
    }

    /// Whether pair p can join C: (0, d) never can (c ⊕ c ⊕ (0, d) is itself), nor a pair
    /// already forbidden.
    fn addable(&self, p: usize) -> bool {
        p != self.d && !has(&self.forbidden, p)
    }

    fn add(&mut self, p: usize) {
        set(&mut self.common, p);
        for &c in &self.members {
            set(&mut self.forbidden, p ^ c as usize ^ self.d);
        }
        set(&mut self.forbidden, self.d);
        self.members.push(p as u32);
    }

    fn clear(&mut self) {
        self.common.fill(0);
        self.forbidden.fill(0);
        self.members.clear();
        self.rare.clear();
    }

    fn resize(&mut self, words: usize) {
        self.common.resize(words, 0);
        self.forbidden.resize(words, 0);
    }

    /// C chosen greedily in `order`; returns how many heaps it leaves rare.
    fn greedy(&mut self, order: &[usize], counts: &[u64]) -> u64 {
        self.clear();
        for &p in order {
            if self.addable(p) {
                self.add(p);
            }
        }
        counts.iter().enumerate().filter(|&(p, _)| !has(&self.common, p)).map(|(_, &c)| c).sum()
    }
}

/// Chunk lengths for the scan kernel, by entry width: 64 bytes.
const CHUNK_BYTES: usize = 64;

/// Scans shorter than this stay on one thread.
const PARALLEL_SCAN: usize = 1 << 17;

struct Engine {
    mv: Moves,
    len: usize,
    par: Par,
    /// A power of two above every value so far (at least 64): every option is below it.
    cap: usize,
    max: u32,
    /// The options of the heap being computed, cap + 1 bits.
    seen: Vec<u64>,
    classes: Vec<Class>,
    /// Heaps ≥ 1 per pair.
    counts: Vec<u64>,
    rare_since: usize,
    rare_after: usize,
    next_choice: usize,
    /// Per residue of the rest (mod the tail's length): the values of every rest so far
    /// (tail digits with 2), the values of their splits into two (4) and three heaps (8).
    tail_take: Vec<Vec<u64>>,
    tail_split2: Vec<Vec<u64>>,
    tail_split3: Vec<Vec<u64>>,
    want: Vec<u32>,
    /// Values met among the splits of the heap being computed: `mark[v] == stamp`. A store per
    /// split, no read-modify-write chain through a bit set, and nothing cleared per heap.
    marks: Marks,
    /// One class's wanted values.
    mine: Vec<u32>,
}

impl Engine {
    fn new(mv: Moves, len: usize, par: Par) -> Engine {
        let cap = 64;
        let mut classes = vec![];
        for d in 0..2 {
            let bs: Vec<usize> = mv.split2.iter().copied().filter(|b| b & 1 == d).collect();
            if !bs.is_empty() {
                classes.push(Class::new(d, bs, 2 * cap / 64));
            }
        }
        let t = mv.tail.len();
        let sets = |bit: u8| if mv.tail_has(bit) { vec![vec![0u64; cap / 64 + 1]; t] } else { vec![] };
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
    fn fill<T: Word>(&mut self, g: &mut Vec<T>, progress: &Progress) -> Result<(), u32> {
        #[cfg(target_arch = "x86_64")]
        if crate::isa::features().avx2 {
            // SAFETY: this CPU has AVX2 (checked just above), all `fill_avx2` asks of it.
            return unsafe { self.fill_avx2(g, progress) };
        }
        self.fill_here(g, progress)
    }

    /// The same loop compiled for AVX2: the scans' compares and the folds run 32 bytes wide.
    /// (Portable builds target SSE2 only; this picks the wider code at run time.)
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn fill_avx2<T: Word>(&mut self, g: &mut Vec<T>, progress: &Progress) -> Result<(), u32> {
        self.fill_here(g, progress)
    }

    #[inline(always)]
    fn fill_here<T: Word>(&mut self, g: &mut Vec<T>, progress: &Progress) -> Result<(), u32> {
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
    fn pushed<T: Word>(&mut self, g: &[T], v: u32) {
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
            self.marks.mark.resize(self.cap, 0);
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
    fn choose<T: Word>(&mut self, g: &[T]) {
        let n = g.len();
        let mut by_pair: Vec<usize> = (0..self.counts.len()).filter(|&p| self.counts[p] > 0).collect();
        by_pair.sort_by_key(|&p| (std::cmp::Reverse(self.counts[p]), p));
        let mut values: Vec<usize> = (0..self.cap).filter(|&v| self.counts[2 * v] + self.counts[2 * v + 1] > 0).collect();
        values.sort_by_key(|&v| (std::cmp::Reverse(self.counts[2 * v] + self.counts[2 * v + 1]), v));
        let by_value: Vec<usize> = values.iter().flat_map(|&v| [2 * v, 2 * v + 1]).filter(|&p| self.counts[p] > 0).collect();
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

    /// The value of heap n, every smaller heap known.
    #[inline(always)]
    fn value<T: Word>(&mut self, g: &[T], n: usize) -> u32 {
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
        if self.classes.is_empty() {
            return mex(seen);
        }
        // Splits with a rare heap.
        let p = n & 1;
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
                    let skip = half + usize::from(c.rare.get(half).is_some_and(|&(r, _)| r as usize == s / 2));
                    mark(&c.rare[..half]);
                    mark(&c.rare[skip..below.max(skip)]);
                } else {
                    mark(&c.rare[..below]);
                }
            }
        }
        // The smallest value neither seen nor marked whose pair no two common heaps make;
        // smaller such values whose pair they do make are wanted.
        let classes = &self.classes;
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
        if want.is_empty() {
            return x;
        }
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

/// Smallest value not in the set.
fn mex(seen: &[u64]) -> u32 {
    for (i, &w) in seen.iter().enumerate() {
        if w != u64::MAX {
            return (i as u32) * 64 + w.trailing_ones();
        }
    }
    seen.len() as u32 * 64
}

/// Every split of s into three heaps a ≤ b ≤ c: f(g(a) ⊕ g(b) ⊕ g(c)).
fn split3<T: Word>(g: &[T], s: usize, mut f: impl FnMut(u32)) {
    for a in 1..=s / 3 {
        let ga = g[a];
        for b in a..=(s - a) / 2 {
            f((ga ^ g[b] ^ g[s - a - b]).get());
        }
    }
}

/// A set of values below a power of two, as stamps: `mark[v] == stamp` for the values in it.
/// Emptied by taking the next stamp, wiped only once every 255 sets.
struct Marks {
    mark: Vec<u8>,
    stamp: u8,
}

impl Marks {
    fn new(cap: usize) -> Marks {
        Marks { mark: vec![0; cap], stamp: 0 }
    }

    /// Starts an empty set.
    fn next(&mut self) {
        if self.stamp == u8::MAX {
            self.mark.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    #[inline(always)]
    fn has(&self, v: u32) -> bool {
        self.mark.get(v as usize) == Some(&self.stamp)
    }

    /// Marks x ⊕ g(s − r) for every rare heap (r, x) with 1 ≤ r < s ≤ g.len(): the splits of s
    /// with a rare heap. The hottest loop of most codes: one load and one store a split, no bounds
    /// checks (they were a third of its instructions).
    #[inline(always)]
    fn rare_splits<T: Word>(&mut self, g: &[T], s: usize, rare: &[(u32, u32)]) {
        let (mark, stamp) = (&mut self.mark[..], self.stamp);
        assert!(mark.len().is_power_of_two() && s <= g.len());
        assert!(rare.first().is_none_or(|&(r, _)| r >= 1) && rare.last().is_none_or(|&(r, _)| (r as usize) < s));
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
    fn pairs<T: Word>(&mut self, front: &[T], back: &[T]) {
        let (mark, stamp) = (&mut self.mark[..], self.stamp);
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
fn scan<T: Word>(g: &[T], s: usize, lo: usize, hi: usize, want: &mut Vec<u32>, par: Par, marks: &mut Marks) {
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
                    let cap = marks.mark.len();
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
fn scan_here<T: Word>(g: &[T], s: usize, lo: usize, hi: usize, want: &mut Vec<u32>, marks: &mut Marks) {
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
const MANY: usize = 8;

/// From `*a`, the first chunk of `lanes` splits with a wanted value (`*a` left at its start), or
/// None (`*a` left where whole chunks end).
#[inline(always)]
fn find_chunk<T: Word, const K: usize>(g: &[T], s: usize, a: &mut usize, hi: usize, lanes: usize, want: &[u32]) -> Option<usize> {
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
fn any_wanted<T: Word, const K: usize>(front: &[T], back: &[T], w: &[T; K]) -> bool {
    let mut hit = false;
    for (&f, &b) in front.iter().zip(back.iter().rev()) {
        let x = f ^ b;
        for &y in w {
            hit |= x == y;
        }
    }
    hit
}
