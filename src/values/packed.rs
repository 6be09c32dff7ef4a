//! Values bit-packed at a fixed width: value i occupies bits [i·b, (i+1)·b) of a little-endian,
//! least-significant-bit-first bit stream. This is the `.sgt` payload byte for byte, and the
//! layout the SIMD and GPU engines write directly (5 bits a value for chess rows).

/// Bytes kept past the payload so that any value can be read with one unaligned 8-byte load.
const PAD: usize = 8;

/// A packed table of `len` values of `bits` bits each (1..=32).
#[derive(Clone, PartialEq, Eq)]
pub struct Packed {
    bits: u32,
    len: u64,
    /// payload_len(len, bits) bytes, then PAD zero bytes.
    bytes: Vec<u8>,
}

impl std::fmt::Debug for Packed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Packed {{ bits: {}, len: {} }}", self.bits, self.len)
    }
}

/// Bytes that `len` values of `bits` bits take.
pub fn payload_len(len: u64, bits: u32) -> u64 {
    (len * bits as u64).div_ceil(8)
}

/// Values written `bits` bits each, lowest bit first, as whole bytes: the layout of [`Packed`],
/// which every packer (a table, a shrink in place, an engine's tile) writes through.
#[derive(Default)]
pub struct BitWriter {
    acc: u64,
    have: u32,
}

impl BitWriter {
    /// A writer whose first byte holds `skip` bits (below 8) of other values before its own:
    /// they are zero in the bytes it hands out, for the caller to OR in.
    pub fn new(skip: u32) -> BitWriter {
        BitWriter { acc: 0, have: skip }
    }

    /// Appends `v` (below 2^bits, bits at most 32), handing each byte it completes to `emit`.
    #[inline(always)]
    pub fn put(&mut self, v: u64, bits: u32, mut emit: impl FnMut(u8)) {
        self.acc |= v << self.have;
        self.have += bits;
        while self.have >= 8 {
            emit(self.acc as u8);
            self.acc >>= 8;
            self.have -= 8;
        }
    }

    /// Appends `v` as [`BitWriter::put`] does, to `out`, four bytes at a time: fewer than 32
    /// bits are held between values, so a value of up to 32 bits always fits beside them.
    #[inline(always)]
    pub fn put_into(&mut self, v: u64, bits: u32, out: &mut Vec<u8>) {
        self.acc |= v << self.have;
        self.have += bits;
        if self.have >= 32 {
            out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.have -= 32;
        }
    }

    /// Hands the bytes still held, the last one partly filled, to `emit`.
    #[inline(always)]
    pub fn finish(mut self, mut emit: impl FnMut(u8)) {
        while self.have > 0 {
            emit(self.acc as u8);
            self.acc >>= 8;
            self.have = self.have.saturating_sub(8);
        }
    }
}

/// The fewest bits that hold `max` (at least 1).
pub fn bits_for(max: u64) -> u32 {
    (64 - max.leading_zeros()).max(1)
}

impl Packed {
    /// Packs `values`, at the fewest bits that hold the largest.
    pub fn from_values<T: Copy + Into<u64>>(values: &[T]) -> Packed {
        let max = values.iter().map(|&v| v.into()).max().unwrap_or(0);
        Packed::with_bits(values, bits_for(max))
    }

    /// Packs `values` at `bits` bits each; every value must fit.
    pub fn with_bits<T: Copy + Into<u64>>(values: &[T], bits: u32) -> Packed {
        match bits {
            1 => return Packed::narrow::<T, 1>(values),
            2 => return Packed::narrow::<T, 2>(values),
            3 => return Packed::narrow::<T, 3>(values),
            4 => return Packed::narrow::<T, 4>(values),
            5 => return Packed::narrow::<T, 5>(values),
            6 => return Packed::narrow::<T, 6>(values),
            7 => return Packed::narrow::<T, 7>(values),
            8 => return Packed::narrow::<T, 8>(values),
            _ => {}
        }
        let value = |i: u64| -> u32 {
            let v: u64 = values[i as usize].into();
            debug_assert!(v >> bits == 0, "value {v} does not fit {bits} bits");
            v as u32
        };
        Packed::try_from_fn(values.len() as u64, bits, value)
            .unwrap_or_else(|_| std::alloc::handle_alloc_error(std::alloc::Layout::new::<u8>()))
    }

    /// [`Packed::with_bits`] for widths of 8 bits and fewer (most tables): eight values fill
    /// exactly `BITS` bytes, so each eight are gathered in one u64 and stored whole, the next
    /// eight overwriting the zero bytes above them (the padding takes the last store's). The
    /// width is a constant, so that the gathering is shifts by constants.
    fn narrow<T: Copy + Into<u64>, const BITS: u32>(values: &[T]) -> Packed {
        let len = values.len() as u64;
        let payload = payload_len(len, BITS) as usize;
        let mut bytes = vec![0u8; payload + PAD];
        let chunks = values.chunks_exact(8);
        let rest = chunks.remainder();
        let mut at = 0;
        for eight in chunks {
            let mut acc = 0u64;
            for (j, &v) in eight.iter().enumerate() {
                let v: u64 = v.into();
                debug_assert!(v >> BITS == 0, "value {v} does not fit {BITS} bits");
                acc |= v << (j as u32 * BITS);
            }
            bytes[at..at + 8].copy_from_slice(&acc.to_le_bytes());
            at += BITS as usize;
        }
        // The last values (fewer than eight) from a whole byte on.
        let mut writer = BitWriter::default();
        for &v in rest {
            writer.put(v.into(), BITS, |b| {
                bytes[at] = b;
                at += 1;
            });
        }
        writer.finish(|b| {
            bytes[at] = b;
            at += 1;
        });
        debug_assert_eq!(at, payload);
        Packed { bits: BITS, len, bytes }
    }

    /// Packs the `len` values that `value` gives for 0, 1, .. (in that order) at `bits` bits
    /// each, allocating only the packed bytes, and fallibly: a table too large for the memory
    /// left is an error for the caller to report, not an abort.
    pub fn try_from_fn(
        len: u64,
        bits: u32,
        mut value: impl FnMut(u64) -> u32,
    ) -> Result<Packed, std::collections::TryReserveError> {
        assert!((1..=32).contains(&bits));
        let mut bytes = Vec::new();
        let want =
            usize::try_from(payload_len(len, bits)).unwrap_or(usize::MAX).saturating_add(PAD);
        bytes.try_reserve_exact(want)?;
        let mut writer = BitWriter::default();
        for i in 0..len {
            let v = value(i) as u64;
            debug_assert!(v >> bits == 0, "value {v} does not fit {bits} bits");
            writer.put_into(v, bits, &mut bytes);
        }
        writer.finish(|b| bytes.push(b));
        bytes.resize(bytes.len() + PAD, 0);
        Ok(Packed { bits, len, bytes })
    }

    /// Takes a payload as an engine or a file gives it. `bytes` may already carry the padding
    /// (it is trimmed or added). Fails if the length is wrong or bits past the last value are set.
    pub fn from_payload(bits: u32, len: u64, mut bytes: Vec<u8>) -> Result<Packed, String> {
        if !(1..=32).contains(&bits) {
            return Err(format!("{bits} bits per value is outside 1..=32"));
        }
        let want = payload_len(len, bits) as usize;
        if bytes.len() < want {
            return Err(format!(
                "payload holds {} bytes, {len} values of {bits} bits need {want}",
                bytes.len()
            ));
        }
        if bytes[want..].iter().any(|&b| b != 0) {
            return Err("payload has data past its last value".into());
        }
        let used = (len * bits as u64 % 8) as u32;
        if used != 0 && bytes[want - 1] >> used != 0 {
            return Err("payload has bits set past its last value".into());
        }
        bytes.resize(want + PAD, 0);
        Ok(Packed { bits, len, bytes })
    }

    pub fn bits(&self) -> u32 {
        self.bits
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The payload as stored in a file (no padding).
    pub fn payload(&self) -> &[u8] {
        &self.bytes[..self.bytes.len() - PAD]
    }

    /// Value `i`; `i` must be below `len`.
    #[inline]
    pub fn get(&self, i: u64) -> u32 {
        assert!(i < self.len, "index {i} past the table's {} values", self.len);
        let bit = i * self.bits as u64;
        let at = (bit / 8) as usize;
        let word = u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap());
        ((word >> (bit % 8)) & ((1u64 << self.bits) - 1)) as u32
    }

    /// Every value in index order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// The largest value (0 for an empty table).
    pub fn max(&self) -> u32 {
        self.iter().max().unwrap_or(0)
    }

    /// The same values at the fewest bits that hold them (engines that compute at a fixed width
    /// call this so that every backend stores the same bytes). Repacks in place: a large table
    /// never needs a second copy.
    pub fn shrink(mut self) -> Packed {
        // One value that needs the top bit settles it, and big tables have one early.
        let top = 1u32 << (self.bits - 1);
        let mut max = 0;
        for i in 0..self.len {
            let v = self.get(i);
            if v >= top {
                return self;
            }
            max = max.max(v);
        }
        let bits = bits_for(max as u64);
        if bits == self.bits {
            return self;
        }
        // Value i moves from bit i·b to bit i·b' < i·b: a byte is written only once every value
        // that reached it has been read, and before any byte a later value is read from.
        let (mut writer, mut out) = (BitWriter::default(), 0usize);
        for i in 0..self.len {
            let v = self.get(i) as u64;
            writer.put(v, bits, |b| {
                self.bytes[out] = b;
                out += 1;
            });
        }
        writer.finish(|b| self.bytes[out] = b);
        let len = payload_len(self.len, bits) as usize;
        self.bytes.truncate(len);
        self.bytes.resize(len + PAD, 0);
        self.bytes.shrink_to_fit();
        self.bits = bits;
        self
    }

    /// First index where two tables differ (a length difference counts at the shorter length).
    pub fn first_difference(&self, other: &Packed) -> Option<u64> {
        let n = self.len.min(other.len);
        if self.bits == other.bits && self.payload() == other.payload() {
            return None;
        }
        (0..n).find(|&i| self.get(i) != other.get(i)).or((self.len != other.len).then_some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_width() {
        for bits in 1..=32u32 {
            let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
            let values: Vec<u32> = (0..301u32).map(|i| i.wrapping_mul(2654435761) & mask).collect();
            let p = Packed::with_bits(&values, bits);
            assert_eq!(p.payload().len() as u64, payload_len(301, bits));
            assert!(p.iter().eq(values.iter().copied()), "bits {bits}");
            let q = Packed::from_payload(bits, 301, p.payload().to_vec()).unwrap();
            assert_eq!(p, q);
        }
    }

    #[test]
    fn from_fn_packs_as_with_bits() {
        for bits in 1..=32u32 {
            let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
            let values: Vec<u32> = (0..301u32).map(|i| i.wrapping_mul(2654435761) & mask).collect();
            let p = Packed::try_from_fn(301, bits, |i| values[i as usize]).unwrap();
            assert_eq!(p, Packed::with_bits(&values, bits), "bits {bits}");
        }
    }

    #[test]
    fn fewest_bits() {
        assert_eq!(Packed::from_values(&[0u32, 0]).bits(), 1);
        assert_eq!(Packed::from_values(&[0u32, 16]).bits(), 5);
        assert_eq!(Packed::from_values(&[15u32]).bits(), 4);
        assert_eq!(Packed::with_bits(&[3u8, 1], 5).shrink().bits(), 2);
        // In-place repacking, every pair of widths, against packing afresh.
        for from in 1..=32u32 {
            for to in 1..from {
                let values: Vec<u32> =
                    (0..203u32).map(|i| i.wrapping_mul(2654435761) >> (32 - to)).collect();
                let mut values = values;
                values[7] = (1 << to) - 1;
                let shrunk = Packed::with_bits(&values, from).shrink();
                assert_eq!(shrunk, Packed::with_bits(&values, to), "{from} -> {to}");
            }
        }
    }

    #[test]
    fn payload_checks() {
        assert!(Packed::from_payload(5, 3, vec![0; 1]).is_err());
        assert!(Packed::from_payload(5, 3, vec![0, 0x80]).is_err());
        assert!(Packed::from_payload(5, 3, vec![0, 0x40]).is_ok());
        assert!(Packed::from_payload(0, 3, vec![0, 0]).is_err());
    }
}
