//! The shape of a game's positions: a box of k sizes, numbered row-major.

/// Most axes a game's positions may have.
pub const MAX_AXES: usize = 8;

/// The sizes of a box of positions, k of them (1 to [`MAX_AXES`]): positions (p1, ..., pk) with
/// 0 ≤ pi < di, numbered row-major. A `Copy` value, so that `crate::games::Positions` stays one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dims {
    k: u8,
    d: [u64; MAX_AXES],
}

impl Dims {
    /// The box of these sizes: 1 to [`MAX_AXES`] of them, each at least 1, their product at
    /// most `max_len`; the message says which rule a shape breaks.
    pub fn new(sizes: &[u64], max_len: u64) -> Result<Dims, String> {
        if sizes.is_empty() || sizes.len() > MAX_AXES {
            return Err(format!("a shape has 1 to {MAX_AXES} sizes, not {}", sizes.len()));
        }
        if let Some(i) = sizes.iter().position(|&s| s == 0) {
            return Err(format!("size {} of the shape is 0; every size is at least 1", i + 1));
        }
        let len = sizes.iter().try_fold(1u64, |a, &s| a.checked_mul(s)).filter(|&n| n <= max_len);
        if len.is_none() {
            let shown: Vec<String> = sizes.iter().map(u64::to_string).collect();
            return Err(format!("the shape {} has more than {max_len} positions", shown.join("×")));
        }
        let mut d = [0; MAX_AXES];
        d[..sizes.len()].copy_from_slice(sizes);
        Ok(Dims { k: sizes.len() as u8, d })
    }

    /// The sizes, one an axis.
    pub fn sizes(&self) -> &[u64] {
        &self.d[..self.k as usize]
    }

    /// How many axes.
    pub fn axes(&self) -> usize {
        self.k as usize
    }

    /// The number of positions (the product of the sizes; checked in [`Dims::new`]).
    pub fn len(&self) -> u64 {
        self.sizes().iter().product()
    }

    /// Never: a shape has at least one position.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index of a point, `None` if a coordinate is off its axis.
    pub fn index(&self, point: &[u64]) -> Option<u64> {
        if point.len() != self.axes() {
            return None;
        }
        let mut i = 0u64;
        for (&p, &d) in point.iter().zip(self.sizes()) {
            if p >= d {
                return None;
            }
            i = i * d + p;
        }
        Some(i)
    }

    /// The point of index `i` (below [`Dims::len`]), into `out` (k coordinates).
    pub fn point(&self, mut i: u64, out: &mut [u64]) {
        for (o, &d) in out[..self.axes()].iter_mut().zip(self.sizes()).rev() {
            *o = i % d;
            i /= d;
        }
    }

    /// The sizes as `D1xD2x...` (a 1-D shape: its length).
    pub fn text(&self) -> String {
        self.sizes().iter().map(u64::to_string).collect::<Vec<_>>().join("x")
    }

    /// Index `i` as a position in words: `7` in 1-D, `(3, 4)` in k-D.
    pub fn name(&self, i: u64) -> String {
        if self.axes() == 1 {
            return i.to_string();
        }
        let mut point = [0; MAX_AXES];
        self.point(i, &mut point);
        let parts: Vec<String> = point[..self.axes()].iter().map(u64::to_string).collect();
        format!("({})", parts.join(", "))
    }

    /// The index formula in words, for exports: `(p1*d2 + p2)*d3 + p3`.
    pub fn formula(&self) -> String {
        let mut f = "p1".to_string();
        for i in 1..self.axes() {
            let base = if i == 1 { f } else { format!("({f})") };
            f = format!("{base}*{} + p{}", self.d[i], i + 1);
        }
        f
    }
}
