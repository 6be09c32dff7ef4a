//! The games, each defined once by its moves, each with a scalar reference that computes its
//! table straight from the definition: the value of a position is the mex (minimum excludant)
//! of its options' values. These references are the judges of every faster engine.

pub mod chess;
pub mod funny;
pub mod lasker;
pub mod sub;

/// Smallest value not marked, in a set that grows as needed and is reused between positions: `seen[v] == stamp`
/// means v was marked for the position being computed. The stamp trick avoids clearing.
pub(crate) struct MexSet {
    seen: Vec<u64>,
    stamp: u64,
}

impl MexSet {
    pub fn new(max_value: usize) -> MexSet {
        MexSet { seen: vec![0; max_value + 2], stamp: 0 }
    }

    /// Starts a new position.
    pub fn clear(&mut self) {
        self.stamp += 1;
    }

    pub fn mark(&mut self, v: u64) {
        let v = v as usize;
        if v >= self.seen.len() {
            self.seen.resize(v + 2, 0);
        }
        self.seen[v] = self.stamp;
    }

    /// The mex of the values marked since `clear`.
    pub fn mex(&self) -> u64 {
        self.seen.iter().position(|&s| s != self.stamp).unwrap_or(self.seen.len()) as u64
    }
}
