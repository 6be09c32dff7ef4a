//! Games defined in Python: `sgtab.Game(shape=..., moves=..., rank=...)` (one call of `moves`
//! a position) or `sgtab.Game(shape=..., batch=...)` (one call a block of positions, NumPy arrays
//! in and out), and `sgtab.sum(...)`, a move to several games side by side.
//!
//! The library's generic engine asks for the options of blocks of positions, each thread its own
//! worker; a worker takes the GIL for a whole block, hands each option to the engine as it reads
//! it, and lets go. A Python exception stops the build: the first one is kept, with the call and
//! position it came from, and raised again by `build`.

use crate::library::{self, Enumerate, Lister};
use crate::{batch, plain};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyTuple};
use std::sync::Mutex;

/// `sgtab.sum(a, b, ...)`: a move that leaves several games side by side, worth the XOR of their
/// values; each part a position (an int in a 1-D game, a tuple of k ints in a k-D one), and
/// `sum()` a move to nothing (worth 0). It is the tuple of its parts, made by CPython itself
/// (`METH_VARARGS`: the argument tuple is the result), so that a game with a sum for each of
/// millions of options pays a builtin's call and no more; a game reads a tuple as a sum where
/// it cannot be a position.
unsafe extern "C" fn sum_parts(
    _module: *mut ffi::PyObject,
    parts: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython hands a live tuple; the result is a new reference to it.
    unsafe { ffi::Py_INCREF(parts) };
    parts
}

/// The definition of `sgtab.sum`: CPython keeps a pointer to it for as long as the function
/// lives, so it is static.
static mut SUM: ffi::PyMethodDef = ffi::PyMethodDef {
    ml_name: c"sum".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer { PyCFunction: sum_parts },
    ml_flags: ffi::METH_VARARGS,
    ml_doc: c"sum(*parts)\n--\n\nA move to several games side by side, worth the XOR of their \
        values: the tuple of its parts, each a position (an int in a 1-D game, a tuple of k ints \
        in a k-D one). sum() is a move to nothing (worth 0)."
        .as_ptr(),
};

/// `sgtab.sum`, as a builtin function of `module`.
pub fn sum_function<'py>(module: &Bound<'py, PyModule>) -> PyResult<Bound<'py, PyAny>> {
    let py = module.py();
    let name = module.name()?;
    // SAFETY: SUM is never written; CPython reads it through the pointer for as long as the
    // function lives (the process). The result is a new reference or null with an error set.
    unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyCFunction_NewEx(&raw mut SUM, std::ptr::null_mut(), name.as_ptr()),
        )
    }
}

/// `type value` for messages, the value's repr cut short.
pub fn describe(x: &Bound<'_, PyAny>) -> String {
    let ty = x.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    let repr = x.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    let repr = if repr.chars().count() > 60 {
        format!("{}...", repr.chars().take(57).collect::<String>())
    } else {
        repr
    };
    format!("{ty} {repr}")
}

/// `sgtab.Game`: a game given by its moves.
#[pyclass(frozen, name = "Game", module = "sgtab")]
pub struct Game {
    pub shape: Vec<u64>,
    pub name: String,
    pub moves: Option<Py<PyAny>>,
    pub batch: Option<Py<PyAny>>,
    pub rank: Option<Py<PyAny>>,
}

/// The shape argument: an int, or a tuple (or list) of ints.
fn shape_of(shape: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    let bad = || {
        PyTypeError::new_err(format!("shape is an int or a tuple of ints, not {}", describe(shape)))
    };
    let sizes: Vec<Bound<'_, PyAny>> =
        if shape.is_instance_of::<PyInt>() || shape.hasattr("__index__")? {
            vec![shape.clone()]
        } else {
            shape.try_iter().map_err(|_| bad())?.collect::<PyResult<_>>()?
        };
    let mut out = Vec::with_capacity(sizes.len());
    for s in &sizes {
        let v: i64 = s.extract().map_err(|_| bad())?;
        out.push(u64::try_from(v).map_err(|_| {
            PyValueError::new_err(format!(
                "size {v} of the shape is negative; every size is at least 1"
            ))
        })?);
    }
    library::check_shape(&out).map_err(PyValueError::new_err)?;
    Ok(out)
}

/// A name the library keeps from a function's `__name__`: letters, digits, `_`, `-`, `.`.
fn name_from(f: &Bound<'_, PyAny>) -> String {
    let raw = f.getattr("__name__").and_then(|n| n.extract::<String>()).unwrap_or_default();
    let mut name: String =
        raw.chars().filter(|c| c.is_ascii_alphanumeric() || "_-.".contains(*c)).take(40).collect();
    if name.is_empty() || name.starts_with(['.', '-']) || library::check_name(&name).is_err() {
        name = "game".into();
    }
    name
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (shape, moves = None, *, rank = None, batch = None, name = None))]
    fn new(
        shape: &Bound<'_, PyAny>,
        moves: Option<Bound<'_, PyAny>>,
        rank: Option<Bound<'_, PyAny>>,
        batch: Option<Bound<'_, PyAny>>,
        name: Option<String>,
    ) -> PyResult<Game> {
        let shape = shape_of(shape)?;
        let f = match (&moves, &batch) {
            (Some(f), None) | (None, Some(f)) => f.clone(),
            (Some(_), Some(_)) => {
                return Err(PyTypeError::new_err(
                    "give moves (one position a call) or batch (an array of positions a call), \
                        not both",
                ));
            }
            (None, None) => {
                return Err(PyTypeError::new_err(
                    "a game needs its moves: give moves=f (f(*position) returns its options) or \
                        batch=f",
                ));
            }
        };
        for (what, g) in [("moves", &moves), ("batch", &batch), ("rank", &rank)] {
            if let Some(g) = g.as_ref().filter(|g| !g.is_callable()) {
                return Err(PyTypeError::new_err(format!(
                    "{what} is a function, not {}",
                    describe(g)
                )));
            }
        }
        let name = match name {
            Some(n) => {
                library::check_name(&n).map_err(PyValueError::new_err)?;
                n
            }
            None => name_from(&f),
        };
        Ok(Game {
            shape,
            name,
            moves: moves.map(Bound::unbind),
            batch: batch.map(Bound::unbind),
            rank: rank.map(Bound::unbind),
        })
    }

    /// The sizes of its shape.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }

    /// The name its table is saved under: `NAME.sgt`, the spec `import:NAME`.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The spec of its table: `import:NAME`.
    #[getter]
    fn spec(&self) -> String {
        format!("import:{}", self.name)
    }

    fn __repr__(&self) -> String {
        let shape: Vec<String> = self.shape.iter().map(u64::to_string).collect();
        let form = if self.batch.is_some() { "batch" } else { "moves" };
        let rank = if self.rank.is_some() { ", rank" } else { "" };
        format!("sgtab.Game(import:{}, shape {}, {form}{rank})", self.name, shape.join("×"))
    }
}

/// A Python exception raised by the game's code during a build, with where it was raised.
pub struct Raised {
    pub err: PyErr,
    /// `moves(3, 4)`, `batch(positions 256 to 511)`, ...; empty for an interrupt (Ctrl-C).
    pub call: String,
}

/// A game being built: its functions, and the first exception they raised.
pub struct Running {
    pub shape: Vec<u64>,
    pub moves: Option<Py<PyAny>>,
    pub batch: Option<Py<PyAny>>,
    pub rank: Option<Py<PyAny>>,
    pub raised: Mutex<Option<Raised>>,
}

impl Running {
    pub fn new(py: Python<'_>, game: &Game) -> Running {
        Running {
            shape: game.shape.clone(),
            moves: game.moves.as_ref().map(|f| f.clone_ref(py)),
            batch: game.batch.as_ref().map(|f| f.clone_ref(py)),
            rank: game.rank.as_ref().map(|f| f.clone_ref(py)),
            raised: Mutex::new(None),
        }
    }

    /// Keeps `err` (the first one only) and returns the line that stops the build.
    pub fn raise(&self, py: Python<'_>, err: PyErr, call: String) -> String {
        let line = format!(
            "{call} raised {}",
            err.value(py).repr().map(|r| r.to_string()).unwrap_or_default()
        );
        let mut kept = self.raised.lock().unwrap_or_else(|e| e.into_inner());
        if kept.is_none() {
            *kept = Some(Raised { err, call });
        }
        line
    }

    /// The exception kept, noted with where it was raised.
    pub fn take_raised(&self, py: Python<'_>, spec: &str) -> Option<PyErr> {
        let Raised { err, call } = self.raised.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        if call.is_empty() {
            return Some(err);
        }
        let note = format!("sgtab: raised by {call}, building {spec}");
        // Python 3.11 and later show notes under the traceback; before, they are kept unshown.
        if err.value(py).hasattr("add_note").unwrap_or(false) {
            let _ = err.value(py).call_method1("add_note", (note,));
        }
        Some(err)
    }

    /// `f(3, 4)` for messages: the call at position index `p`.
    pub fn call_text(&self, f: &str, p: u64) -> String {
        let name = library::position_name(&self.shape, p);
        if name.starts_with('(') { format!("{f}{name}") } else { format!("{f}({name})") }
    }

    /// The coordinates of index `p` into `out` (row-major).
    #[inline]
    pub fn point(&self, mut p: u64, out: &mut [u64]) {
        for (o, &d) in out[..self.shape.len()].iter_mut().zip(&self.shape).rev() {
            *o = p % d;
            p /= d;
        }
    }

    /// The shape in words: `0..9` in 1-D, `8×8` in k-D.
    pub fn shape_text(&self) -> String {
        match self.shape[..] {
            [n] => format!("0..{}", n - 1),
            _ => self.shape.iter().map(u64::to_string).collect::<Vec<_>>().join("×"),
        }
    }
}

impl Enumerate for Running {
    fn shape(&self) -> &[u64] {
        &self.shape
    }

    fn ranked(&self) -> bool {
        self.rank.is_some()
    }

    fn worker(&self) -> Result<Box<dyn Lister + '_>, String> {
        Ok(if self.batch.is_some() {
            Box::new(batch::Batch::new(self))
        } else {
            Box::new(plain::Plain::new(self))
        })
    }
}
