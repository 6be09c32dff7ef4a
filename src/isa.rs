//! The instruction sets this CPU has beyond the build's baseline, detected once and cached:
//! every kernel with a wider variant (the chess block kernel, the corner tile kernel, the
//! take-and-break scans, `sgq`'s number reader) asks here, and picks its variant from the
//! answer. Builds target plain x86-64, so without this a kernel would never use AVX2.

use std::sync::OnceLock;

/// What the CPU offers, as the kernels need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// AVX2: 32-byte integer vectors.
    pub avx2: bool,
    /// BMI1 (`tzcnt`, `andn`, `blsr`), LZCNT and POPCNT: the bit scans of the kernels' masks.
    pub bit_scans: bool,
}

impl Features {
    /// AVX2 with the bit scans: what the AVX2 kernels are compiled for.
    pub fn avx2_with_bit_scans(self) -> bool {
        self.avx2 && self.bit_scans
    }
}

/// The CPU's features, detected on the first call.
pub fn features() -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Features {
    use std::arch::is_x86_feature_detected as has;
    Features { avx2: has!("avx2"), bit_scans: has!("bmi1") && has!("lzcnt") && has!("popcnt") }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Features {
    Features { avx2: false, bit_scans: false }
}
