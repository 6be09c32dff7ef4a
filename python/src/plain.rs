//! The plain form of a Python game: `moves(*position)` called once a position, its options read
//! straight from the list it returns (ints in 1-D, tuples in k-D, `sgtab.sum(...)`), without a
//! conversion through generic extraction: the fast paths are CPython's own (exact ints, lists,
//! tuples), and anything else (a NumPy integer, a generator) takes the general one.

use crate::game::{Running, describe};
use crate::library::Lister;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// One thread's caller of `moves` and `rank`.
pub struct Plain<'a> {
    game: &'a Running,
    /// The parts of the sum being read.
    parts: Vec<u64>,
}

impl<'a> Plain<'a> {
    pub fn new(game: &'a Running) -> Plain<'a> {
        Plain { game, parts: Vec::new() }
    }
}

/// Where the options read go: the engine's `each(p, option)`, and a buffer for a sum's parts.
struct Sink<'s, F: FnMut(u64, &[u64]) + ?Sized> {
    each: &'s mut F,
    parts: &'s mut Vec<u64>,
}

/// `f(*point)` for the point of index `p`: the coordinates as ints, passed by vectorcall (no
/// argument tuple).
fn call_at<'py>(
    py: Python<'py>,
    game: &Running,
    f: &Bound<'py, PyAny>,
    p: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let k = game.shape.len();
    let mut point = [0u64; 8];
    game.point(p, &mut point);
    let mut args: [*mut ffi::PyObject; 8] = [std::ptr::null_mut(); 8];
    for i in 0..k {
        // SAFETY: the GIL is held (py); a null return is an error set, handled below.
        args[i] = unsafe { ffi::PyLong_FromUnsignedLongLong(point[i]) };
        if args[i].is_null() {
            for a in &args[..i] {
                unsafe { ffi::Py_DECREF(*a) };
            }
            return Err(PyErr::fetch(py));
        }
    }
    // SAFETY: `f` and the k arguments are live objects; the result is a new reference or null
    // with an error set.
    unsafe {
        let r = ffi::PyObject_Vectorcall(f.as_ptr(), args.as_ptr(), k, std::ptr::null_mut());
        for a in &args[..k] {
            ffi::Py_DECREF(*a);
        }
        Bound::from_owned_ptr_or_err(py, r)
    }
}

impl Lister for Plain<'_> {
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

impl Plain<'_> {
    /// [`Lister::options`], with `each` known to the compiler (the in-order fold inlines it).
    pub fn list<F: FnMut(u64, &[u64]) + ?Sized>(
        &mut self,
        positions: &[u64],
        each: &mut F,
    ) -> Result<(), String> {
        let game = self.game;
        let out = &mut Sink { each, parts: &mut self.parts };
        Python::attach(|py| {
            let moves = game.moves.as_ref().expect("a plain game has moves").bind(py);
            for &p in positions {
                let listed = match call_at(py, game, moves, p) {
                    Ok(listed) => listed,
                    Err(e) => return Err(game.raise(py, e, game.call_text("moves", p))),
                };
                if let Err(why) = read_options(game, &listed, p, out) {
                    return match why {
                        Bad::Raised(e) => Err(game.raise(py, e, game.call_text("moves", p))),
                        Bad::Said(why) => Err(format!(
                            "at position {}: {}",
                            crate::library::position_name(&game.shape, p),
                            why
                        )),
                    };
                }
            }
            Ok(())
        })
    }

    fn rank(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), String> {
        let game = self.game;
        Python::attach(|py| {
            let rank = game.rank.as_ref().expect("ranks are asked of a ranked game").bind(py);
            for &p in positions {
                let r = call_at(py, game, rank, p)
                    .map_err(|e| game.raise(py, e, game.call_text("rank", p)))?;
                match r.extract::<i64>() {
                    Ok(r) => out.push(r),
                    Err(_) => {
                        let at = crate::library::position_name(&game.shape, p);
                        return Err(format!(
                            "at position {at}: rank returned {}, not an int",
                            describe(&r)
                        ));
                    }
                }
            }
            Ok(())
        })
    }
}

/// Why the options of a position could not be read.
enum Bad {
    /// Python raised (iterating a generator, `__index__`).
    Raised(PyErr),
    /// They are not options: the words say why.
    Said(String),
}

impl From<PyErr> for Bad {
    fn from(e: PyErr) -> Bad {
        Bad::Raised(e)
    }
}

/// The options `moves` returned for position `p`, into `out`. A list or a tuple is read in
/// place; any other iterable item by item.
fn read_options<F: FnMut(u64, &[u64]) + ?Sized>(
    game: &Running,
    listed: &Bound<'_, PyAny>,
    p: u64,
    out: &mut Sink<'_, F>,
) -> Result<(), Bad> {
    let py = listed.py();
    let ptr = listed.as_ptr();
    // SAFETY: `listed` is a live list or tuple (checked); an item is read borrowed and used only
    // while no Python code runs (the fast paths), or made an owned reference first (`option`).
    unsafe {
        if ffi::PyList_CheckExact(ptr) != 0 {
            let mut i = 0;
            while i < ffi::PyList_GET_SIZE(ptr) {
                option(
                    game,
                    Borrowed::from_ptr(py, ffi::PyList_GET_ITEM(ptr, i)),
                    i as usize,
                    p,
                    out,
                )?;
                i += 1;
            }
            return Ok(());
        }
        if ffi::PyTuple_CheckExact(ptr) != 0 {
            for i in 0..ffi::PyTuple_GET_SIZE(ptr) {
                option(
                    game,
                    Borrowed::from_ptr(py, ffi::PyTuple_GET_ITEM(ptr, i)),
                    i as usize,
                    p,
                    out,
                )?;
            }
            return Ok(());
        }
    }
    if listed.is_none() {
        return Err(Bad::Said(
            "moves returned None: return a list of options ([] for none)".into(),
        ));
    }
    let Ok(items) = listed.try_iter() else {
        return Err(Bad::Said(format!(
            "moves returned {}: return a list of options",
            describe(listed)
        )));
    };
    for (i, item) in items.enumerate() {
        option(game, item?.as_borrowed(), i, p, out)?;
    }
    Ok(())
}

/// An exact int's value; `None` for anything else, or an int past 64 bits. Runs no Python code.
#[inline]
fn exact_int(x: Borrowed<'_, '_, PyAny>) -> Option<i64> {
    // SAFETY: a live object; the check is a type comparison, the conversion of an exact int
    // calls nothing but CPython's own.
    unsafe {
        if ffi::PyLong_CheckExact(x.as_ptr()) == 0 {
            return None;
        }
        let v = ffi::PyLong_AsLongLong(x.as_ptr());
        if v == -1 && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        Some(v)
    }
}

/// A k-D point given as an exact tuple of k exact ints (its coordinates); `None` for anything
/// else. Runs no Python code.
#[inline]
fn exact_point(x: Borrowed<'_, '_, PyAny>, k: usize) -> Option<[i64; 8]> {
    let t = x.as_ptr();
    // SAFETY: a live object; a tuple's items are read borrowed, and `exact_int` runs no Python.
    unsafe {
        if ffi::PyTuple_CheckExact(t) == 0 || ffi::PyTuple_GET_SIZE(t) != k as ffi::Py_ssize_t {
            return None;
        }
        let mut c = [0i64; 8];
        for (j, slot) in c[..k].iter_mut().enumerate() {
            *slot = exact_int(Borrowed::from_ptr(
                x.py(),
                ffi::PyTuple_GET_ITEM(t, j as ffi::Py_ssize_t),
            ))?;
        }
        Some(c)
    }
}

/// An int's value: an exact one at once, anything else through `__index__` (a NumPy integer).
fn any_int(x: Borrowed<'_, '_, PyAny>) -> Option<i64> {
    exact_int(x).or_else(|| x.to_owned().extract::<i64>().ok())
}

/// Option `i` (from 0) of position `p`: a position (an int in 1-D, a tuple of k ints in k-D),
/// or a sum, a tuple of positions (what `sgtab.sum` returns).
#[inline]
fn option<F: FnMut(u64, &[u64]) + ?Sized>(
    game: &Running,
    item: Borrowed<'_, '_, PyAny>,
    i: usize,
    p: u64,
    out: &mut Sink<'_, F>,
) -> Result<(), Bad> {
    let k = game.shape.len();
    if k == 1 {
        if let Some(v) = exact_int(item) {
            (out.each)(p, &[index_1d(game, v, i)?]);
            return Ok(());
        }
    } else if let Some(c) = exact_point(item, k) {
        (out.each)(p, &[index_kd(game, &c[..k], i)?]);
        return Ok(());
    }
    let item = item.to_owned();
    if let Ok(t) = item.cast::<PyTuple>() {
        // In 1-D a tuple is a sum; in k-D, a tuple of ints is a position and one of tuples
        // (or none) a sum.
        let is_sum =
            k == 1 || t.is_empty() || t.get_item(0).is_ok_and(|x| x.is_instance_of::<PyTuple>());
        out.parts.clear();
        if is_sum {
            for part in t.iter() {
                let index = if k == 1 {
                    let v = any_int(part.as_borrowed())
                        .ok_or_else(|| not_a_part(game, &item, &part, i))?;
                    index_1d(game, v, i)?
                } else {
                    let point =
                        part.cast::<PyTuple>().map_err(|_| not_a_part(game, &item, &part, i))?;
                    point_index(game, point, i).map_err(|_| not_a_part(game, &item, &part, i))??
                };
                out.parts.push(index);
            }
        } else {
            out.parts.push(point_index(game, t, i).map_err(Bad::Said)??);
        }
        (out.each)(p, out.parts);
        return Ok(());
    }
    if k == 1 {
        if let Some(v) = any_int(item.as_borrowed()) {
            (out.each)(p, &[index_1d(game, v, i)?]);
            return Ok(());
        }
        return Err(Bad::Said(format!(
            "option {} is {}, not a position (an int) or sgtab.sum(...)",
            i + 1,
            describe(&item)
        )));
    }
    Err(Bad::Said(format!(
        "option {} is {}, not a position (a tuple of {k} ints) or sgtab.sum(...)",
        i + 1,
        describe(&item)
    )))
}

/// The message for a part of a sum that is not a position of the game.
fn not_a_part(game: &Running, sum: &Bound<'_, PyAny>, part: &Bound<'_, PyAny>, i: usize) -> Bad {
    let k = game.shape.len();
    let what = if k == 1 { "an int".to_string() } else { format!("a tuple of {k} ints") };
    Bad::Said(format!(
        "option {} is the sum {}, whose part {} is not a position ({what})",
        i + 1,
        describe(sum),
        describe(part)
    ))
}

/// A 1-D position's index, checked against the shape.
#[inline]
fn index_1d(game: &Running, v: i64, i: usize) -> Result<u64, Bad> {
    if v < 0 || v as u64 >= game.shape[0] {
        return Err(Bad::Said(format!(
            "option {} is position {v}, outside the shape {}",
            i + 1,
            game.shape_text()
        )));
    }
    Ok(v as u64)
}

/// The index of a k-D point given as a tuple: the outer error where it is not k ints, the inner
/// where it is off the shape.
fn point_index(
    game: &Running,
    t: &Bound<'_, PyTuple>,
    i: usize,
) -> Result<Result<u64, Bad>, String> {
    let k = game.shape.len();
    if t.len() != k {
        return Err(format!(
            "option {} is {}, not a position of this game (a tuple of {k} ints)",
            i + 1,
            describe(t)
        ));
    }
    let mut c = [0i64; 8];
    for (slot, x) in c.iter_mut().zip(t.iter()) {
        *slot = any_int(x.as_borrowed()).ok_or_else(|| {
            format!("option {} has a coordinate {}, not an int", i + 1, describe(&x))
        })?;
    }
    Ok(index_kd(game, &c[..k], i))
}

/// A k-D position's index, each coordinate checked against its axis.
#[inline]
fn index_kd(game: &Running, c: &[i64], i: usize) -> Result<u64, Bad> {
    let mut index = 0u64;
    for (axis, (&x, &d)) in c.iter().zip(&game.shape).enumerate() {
        if x < 0 || x as u64 >= d {
            let shown: Vec<String> = c.iter().map(i64::to_string).collect();
            return Err(Bad::Said(format!(
                "option {} is position ({}), outside the shape {} (coordinate {} is 0..={})",
                i + 1,
                shown.join(", "),
                game.shape_text(),
                axis + 1,
                d - 1
            )));
        }
        index = index * d + x as u64;
    }
    Ok(index)
}
