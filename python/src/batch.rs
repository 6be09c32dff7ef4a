//! The batch form of a Python game: `batch(positions)` called once a block of positions with a
//! NumPy array of them (shape (m,) in 1-D, (m, k) in k-D), returning `(which, options)`:
//!
//! - `which`: an int array of shape (M,), the row of `positions` each option belongs to, in any
//!   order (options of one position keep their order);
//! - `options`: an int array of the options' positions, shape (M,) in 1-D or (M, k) in k-D; or
//!   of sums, shape (M, s) in 1-D or (M, s, k) in k-D, s parts side by side, a part of -1 (all
//!   its coordinates -1) standing for no game, so that sums of fewer parts pad with -1.
//!
//! `rank` then takes the same array and returns the ranks as an int array of shape (m,).
//!
//! The arrays are read in place, with the GIL held (they are Python's), and each option handed
//! to the engine as it is read; options already in the order of their rows (`which` sorted, as
//! most batch functions make it) are read in one pass, others through a counting sort.

use crate::game::{Running, describe};
use crate::library::Lister;
use numpy::prelude::*;
use numpy::{PyArray1, PyArray2, PyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// One thread's caller of `batch` and `rank`.
pub struct Batch<'a> {
    game: &'a Running,
    /// Options a position had in the last call, on average: the next call is sized by it.
    per_position: f64,
}

/// Options one call of `batch` should return, about: a block of the engine's may hold millions,
/// and arrays that large are fresh memory from the system at each call (their pages cleared by
/// the kernel: a fifth of the time of Lasker's Nim where one call took a whole block).
const CALL_OPTIONS: f64 = (1 << 17) as f64;

impl<'a> Batch<'a> {
    pub fn new(game: &'a Running) -> Batch<'a> {
        Batch { game, per_position: 1.0 }
    }

    /// How many of `left` positions the next call takes.
    fn call_len(&self, left: usize) -> usize {
        ((CALL_OPTIONS / self.per_position.max(1.0)) as usize).max(16).min(left)
    }
}

/// An int array of Python's: its shape, and its elements in C order (read in place).
struct Ints<'py> {
    shape: Vec<usize>,
    array: numpy::PyReadonlyArrayDyn<'py, i64>,
}

impl Ints<'_> {
    fn data(&self) -> &[i64] {
        self.array.as_slice().expect("a C-contiguous array")
    }
}

/// The positions as the array `batch` and `rank` take: int64, (m,) or (m, k).
fn positions_array<'py>(py: Python<'py>, game: &Running, positions: &[u64]) -> Bound<'py, PyAny> {
    let k = game.shape.len();
    if k == 1 {
        return PyArray1::from_vec(py, positions.iter().map(|&p| p as i64).collect()).into_any();
    }
    let mut flat = vec![0i64; positions.len() * k];
    let mut point = [0u64; 8];
    for (row, &p) in flat.chunks_mut(k).zip(positions) {
        game.point(p, &mut point);
        for (r, &c) in row.iter_mut().zip(&point) {
            *r = c as i64;
        }
    }
    let array = PyArray1::from_vec(py, flat);
    let shaped: Bound<'py, PyArray2<i64>> =
        array.reshape([positions.len(), k]).expect("m·k elements reshape to (m, k)");
    shaped.into_any()
}

/// `x` as int64 elements, C order: any integer array or sequence of ints; the words say what
/// it was where it is not.
fn ints<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, what: &str) -> Result<Ints<'py>, String> {
    let np = py.import("numpy").map_err(|e| e.to_string())?;
    let array = np
        .call_method1("asarray", (x,))
        .map_err(|_| format!("{what} is {}, not an array of ints", describe(x)))?;
    let kind: String = array
        .getattr("dtype")
        .and_then(|d| d.getattr("kind"))
        .and_then(|k| k.extract())
        .unwrap_or_default();
    // An empty list has dtype float64, and holds no float.
    let size: usize = array.getattr("size").and_then(|s| s.extract()).unwrap_or(1);
    if !(kind == "i" || kind == "u" || size == 0) {
        let dtype =
            array.getattr("dtype").and_then(|d| d.str()).map(|d| d.to_string()).unwrap_or_default();
        return Err(format!("{what} is an array of {dtype}, not of ints"));
    }
    let array = np
        .call_method1("ascontiguousarray", (array, np.getattr("int64").map_err(|e| e.to_string())?))
        .map_err(|e| format!("{what}: {e}"))?;
    let array =
        array.cast::<PyArrayDyn<i64>>().map_err(|_| format!("{what} did not convert to int64"))?;
    Ok(Ints { shape: array.shape().to_vec(), array: array.readonly() })
}

impl Lister for Batch<'_> {
    fn options(
        &mut self,
        positions: &[u64],
        each: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), String> {
        self.list(positions, each)
    }

    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), String> {
        self.rank(positions, out)
    }
}

impl Batch<'_> {
    /// [`Lister::options`], with `each` known to the compiler (the in-order fold inlines it).
    pub fn list<F: FnMut(u64, &[u64]) + ?Sized>(
        &mut self,
        positions: &[u64],
        each: &mut F,
    ) -> Result<(), String> {
        let game = self.game;
        Python::attach(|py| {
            let batch = game.batch.as_ref().expect("a batch game has batch").bind(py);
            let mut at = 0;
            while at < positions.len() {
                let block = &positions[at..at + self.call_len(positions.len() - at)];
                let call = || block_text(game, block);
                let got = batch
                    .call1((positions_array(py, game, block),))
                    .map_err(|e| game.raise(py, e, format!("batch({})", call())))?;
                let pair = got.cast::<PyTuple>().ok().filter(|t| t.len() == 2);
                let Some(pair) = pair else {
                    return Err(format!(
                        "batch({}) returned {}, not a pair (which, options) of int arrays",
                        call(),
                        describe(&got)
                    ));
                };
                let arrays = ints(py, &pair.get_item(0).map_err(|e| e.to_string())?, "which")
                    .and_then(|which| {
                        Ok((
                            which,
                            ints(py, &pair.get_item(1).map_err(|e| e.to_string())?, "options")?,
                        ))
                    });
                let (which, options) = arrays.map_err(|why| format!("batch({}): {why}", call()))?;
                read(game, block, &which, &options, each)
                    .map_err(|why| format!("batch({}): {why}", call()))?;
                self.per_position = which.data().len() as f64 / block.len() as f64;
                at += block.len();
            }
            Ok(())
        })
    }

    fn rank(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), String> {
        let game = self.game;
        Python::attach(|py| {
            let rank = game.rank.as_ref().expect("ranks are asked of a ranked game").bind(py);
            let got = rank
                .call1((positions_array(py, game, positions),))
                .map_err(|e| game.raise(py, e, format!("rank({})", block_text(game, positions))))?;
            let ranks = ints(py, &got, "rank's result")
                .map_err(|why| format!("rank({}): {why}", block_text(game, positions)))?;
            if ranks.shape != [positions.len()] {
                return Err(format!(
                    "rank({}) returned an array of shape {:?}, not ({},)",
                    block_text(game, positions),
                    ranks.shape,
                    positions.len()
                ));
            }
            out.extend_from_slice(ranks.data());
            Ok(())
        })
    }
}

/// The block of positions a call was given, in words: `positions 256 to 511` (index order), or
/// `512 positions from 3 on`.
fn block_text(game: &Running, positions: &[u64]) -> String {
    let name = |p: u64| crate::library::position_name(&game.shape, p);
    match positions {
        [] => "no positions".into(),
        [p] => format!("position {}", name(*p)),
        [a, .., b] if b - a + 1 == positions.len() as u64 => {
            format!("the {} positions {} to {}", positions.len(), name(*a), name(*b))
        }
        [a, ..] => format!("{} positions from {} on", positions.len(), name(*a)),
    }
}

/// The options `batch` returned, checked, handed to `each` in the order of `positions`.
fn read<F: FnMut(u64, &[u64]) + ?Sized>(
    game: &Running,
    positions: &[u64],
    which: &Ints,
    options: &Ints,
    each: &mut F,
) -> Result<(), String> {
    let (m, k) = (positions.len(), game.shape.len());
    if which.shape.len() != 1 {
        return Err(format!(
            "which has shape {:?}; it is one row number an option, shape (M,)",
            which.shape
        ));
    }
    let rows = which.data();
    let count = rows.len();
    // Parts an option (s), and whether the options are sums (where a part of -1 is no game).
    let (s, sums) = match (k, &options.shape[..]) {
        (1, [n]) if *n == count => (1, false),
        (1, [n, s]) if *n == count => (*s, true),
        (k, [n, kk]) if k > 1 && *n == count && *kk == k => (1, false),
        (k, [n, s, kk]) if k > 1 && *n == count && *kk == k => (*s, true),
        (_, shape) => {
            let want = if k == 1 {
                "(M,) or (M, s) for sums".to_string()
            } else {
                format!("(M, {k}) or (M, s, {k}) for sums")
            };
            return Err(format!(
                "options has shape {shape:?} for {count} rows of which; expected {want}"
            ));
        }
    };
    let order = grouped(rows, m)?;
    let (data, sizes) = (options.data(), &game.shape[..]);
    let bad = |i: usize, p: u64, part: &[i64]| {
        let at = crate::library::position_name(sizes, p);
        format!("options[{i}] (of position {at}): {}", index(game, part).err().unwrap_or_default())
    };
    match (k, s) {
        // A plain move in 1-D: the common case, read straight.
        (1, 1) if !sums => in_order(rows, order.as_deref(), positions, |i, p| {
            let c = data[i];
            if c as u64 >= sizes[0] {
                return Err(bad(i, p, &data[i..i + 1]));
            }
            each(p, &[c as u64]);
            Ok(())
        }),
        // Two heaps side by side in 1-D (a split), or one and -1 (a plain move among splits).
        (1, 2) => in_order(rows, order.as_deref(), positions, |i, p| {
            let (a, b) = (data[2 * i], data[2 * i + 1]);
            let n = sizes[0];
            match (a == -1, b == -1) {
                (false, false) if (a as u64) < n && (b as u64) < n => {
                    each(p, &[a as u64, b as u64])
                }
                (false, true) if (a as u64) < n => each(p, &[a as u64]),
                (true, false) if (b as u64) < n => each(p, &[b as u64]),
                (true, true) => each(p, &[]),
                _ => {
                    return Err(bad(
                        i,
                        p,
                        &data[2 * i + usize::from(a == -1 || (a as u64) < n)..][..1],
                    ));
                }
            }
            Ok(())
        }),
        // Sums in 1-D: s heaps side by side, -1 for none.
        (1, s) if s <= SMALL => in_order(rows, order.as_deref(), positions, |i, p| {
            let mut parts = [0u64; SMALL];
            let mut n = 0;
            for (j, &c) in data[i * s..(i + 1) * s].iter().enumerate() {
                if c == -1 {
                    continue;
                }
                if c as u64 >= sizes[0] {
                    return Err(bad(i, p, &data[i * s + j..i * s + j + 1]));
                }
                parts[n] = c as u64;
                n += 1;
            }
            each(p, &parts[..n]);
            Ok(())
        }),
        _ => {
            let mut parts: Vec<u64> = Vec::with_capacity(s);
            in_order(rows, order.as_deref(), positions, |i, p| {
                parts.clear();
                for part in data[i * s * k..(i + 1) * s * k].chunks_exact(k) {
                    if sums && part.iter().all(|&c| c == -1) {
                        continue;
                    }
                    parts.push(index(game, part).map_err(|_| bad(i, p, part))?);
                }
                each(p, &parts);
                Ok(())
            })
        }
    }
}

/// Parts a sum in 1-D read without a buffer on the heap.
const SMALL: usize = 16;

/// The options grouped by their rows, each row's in the order given: `None` where `rows` is
/// sorted already (one pass), else the options' order (a counting sort).
fn grouped(rows: &[i64], m: usize) -> Result<Option<Vec<usize>>, String> {
    let (mut sorted, mut inside, mut last) = (true, true, i64::MIN);
    for &w in rows {
        inside &= (w as u64) < m as u64;
        sorted &= w >= last;
        last = w;
    }
    if !inside {
        let i = rows.iter().position(|&w| (w as u64) >= m as u64).unwrap_or(0);
        return Err(format!(
            "which[{i}] is {}, not a row of the {m} positions (0 to {})",
            rows[i],
            m.saturating_sub(1)
        ));
    }
    if sorted {
        return Ok(None);
    }
    let mut starts = vec![0usize; m + 1];
    for &w in rows {
        starts[w as usize + 1] += 1;
    }
    for r in 0..m {
        starts[r + 1] += starts[r];
    }
    let mut order = vec![0usize; rows.len()];
    for (i, &w) in rows.iter().enumerate() {
        order[starts[w as usize]] = i;
        starts[w as usize] += 1;
    }
    Ok(Some(order))
}

/// `option(i, p)` for each option i with its position p, grouped by row in the order of the
/// positions ([`grouped`]).
#[inline(always)]
fn in_order(
    rows: &[i64],
    order: Option<&[usize]>,
    positions: &[u64],
    mut option: impl FnMut(usize, u64) -> Result<(), String>,
) -> Result<(), String> {
    match order {
        None => {
            for (i, &w) in rows.iter().enumerate() {
                option(i, positions[w as usize])?;
            }
        }
        Some(order) => {
            for &i in order {
                option(i, positions[rows[i] as usize])?;
            }
        }
    }
    Ok(())
}

/// The index of a point, each coordinate checked against its axis.
#[inline]
fn index(game: &Running, c: &[i64]) -> Result<u64, String> {
    let mut index = 0u64;
    for (axis, (&x, &d)) in c.iter().zip(&game.shape).enumerate() {
        if x < 0 || x as u64 >= d {
            let shown: Vec<String> = c.iter().map(i64::to_string).collect();
            let at = if c.len() == 1 {
                String::new()
            } else {
                format!(" (coordinate {} is 0..={})", axis + 1, d - 1)
            };
            return Err(format!(
                "position {} is outside the shape {}{at}",
                shown.join(", "),
                game.shape_text()
            ));
        }
        index = index * d + x as u64;
    }
    Ok(index)
}
