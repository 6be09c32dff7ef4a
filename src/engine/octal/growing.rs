//! A table that grows ([`Growing`]): the engine's state kept between calls, values stored at
//! the narrowest word that holds them ([`Word`]) and widened when one outgrows it, packed at the
//! end.

use super::*;

/// A table that can be extended: the engine keeps its state (common sets, rare heaps, tail sets)
/// between calls, so growing to N in steps costs what one build to N costs. `sgtab build
/// --prove` grows one of these and looks for a rule at each step instead of rebuilding.
pub struct Growing {
    pub(super) engine: Engine,
    pub(super) store: Store,
}

/// The values so far at the narrowest width that holds them.
pub(super) enum Store {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Growing {
    /// An empty table of the game with `moves`.
    pub fn new(moves: &OctalMoves, par: Par) -> Growing {
        let par = Par { threads: par.threads.max(1), from: par.from.max(8) };
        Growing { engine: Engine::new(moves.clone(), 0, par), store: Store::U8(vec![]) }
    }

    /// An empty table of `code`, on up to `threads` threads.
    pub fn code(code: &Code, threads: usize) -> Growing {
        Growing::new(&OctalMoves::code(code), Par { threads, from: PARALLEL_SCAN })
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
        Ok(match &mut self.store {
            Store::U8(g) => memory::reserve(g, more, "its values"),
            Store::U16(g) => memory::reserve(g, more, "its values"),
            Store::U32(g) => memory::reserve(g, more, "its values"),
        }?)
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

pub(super) fn widen<A: Word, B: Word>(from: Vec<A>, len: usize) -> Result<Vec<B>, EngineError> {
    let mut to = Vec::new();
    memory::reserve(&mut to, len, "its values at the wider width they have reached")?;
    to.extend(from.iter().map(|&v| B::new(v.get())));
    Ok(to)
}

/// Packs the table in its own buffer (each value's bits land at or before where it was read),
/// at the fewest bits that hold `max`: the bytes of `Packed::from_values`.
pub(super) fn pack<T: Word>(mut table: Vec<T>, max: u32) -> Packed {
    let bits = bits_for(max as u64);
    let len = table.len();
    let size = std::mem::size_of::<T>();
    let out = {
        // SAFETY: u8, u16 and u32 have no padding and every byte pattern is valid; the view
        // covers exactly the table's initialised elements and ends with this block.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(table.as_mut_ptr() as *mut u8, len * size) };
        let (mut writer, mut out) = (BitWriter::default(), 0usize);
        for i in 0..len {
            let at = i * size;
            let mut v = 0u64;
            for (j, &b) in bytes[at..at + size].iter().enumerate() {
                v |= (b as u64) << (8 * j);
            }
            // out < (i+1)·bits/8 ≤ (i+1)·size: never past the bytes still to be read.
            writer.put(v, bits, |b| {
                bytes[out] = b;
                out += 1;
            });
        }
        writer.finish(|b| {
            bytes[out] = b;
            out += 1;
        });
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
            let bytes =
                unsafe { std::slice::from_raw_parts(table.as_ptr() as *const u8, len * size) };
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

/// [`Word`] for an unsigned type; `$into_bytes` is the vector as bytes, where it is.
macro_rules! word {
    ($t:ty, $into_bytes:expr) => {
        impl Word for $t {
            const MAX: u32 = <$t>::MAX as u32;
            #[inline(always)]
            fn new(v: u32) -> $t {
                v as $t
            }
            #[inline(always)]
            fn get(self) -> u32 {
                self as u32
            }
            fn into_bytes(v: Vec<$t>) -> Result<Vec<u8>, Vec<$t>> {
                $into_bytes(v)
            }
        }
    };
}
word!(u8, Ok);
word!(u16, Err);
word!(u32, Err);

/// The growing table as `build` drives it (inherent methods of the same names do the work).
impl crate::engine::Grow for Growing {
    fn len(&self) -> u64 {
        Growing::len(self)
    }
    fn get(&self, n: u64) -> u32 {
        Growing::get(self, n)
    }
    fn reserve(&mut self, len: u64) -> Result<(), EngineError> {
        Growing::reserve(self, len)
    }
    fn grow(&mut self, len: u64, progress: &Progress) -> Result<(), EngineError> {
        Growing::grow(self, len, progress)
    }
    fn into_packed(self: Box<Self>) -> Packed {
        Growing::into_packed(*self)
    }
}
