//! Values, the first layer: a table's values bit-packed ([`Packed`]), the rules they follow
//! ([`Rule`]: a period and a saltus, and the search that finds one), the shape of a game's
//! positions ([`Dims`]) and the rare/common split. Nothing here knows a game: the games, the
//! engines and the `.sgt` format are built on these.

/// Most entries a table may have (values are computed and read in memory).
pub const MAX_LEN: u64 = 1 << 30;

pub mod dims;
pub mod import;
pub mod packed;
pub mod rare;
pub mod rule;
pub mod stamps;

pub use dims::{Dims, MAX_AXES};
pub use packed::Packed;
pub use rare::{RARE_SPLIT_BITS, RareSplit, rare_split};
pub use rule::Rule;
