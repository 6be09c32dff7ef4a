//! `sgtab.Table`: a built or loaded table, its values as a NumPy array in the game's shape, its
//! rule, and its positions answered as `sgq value` answers them.

use crate::Error;
use crate::library::{self, ValueError};
use numpy::prelude::*;
use numpy::{Element, PyArray1};
use pyo3::exceptions::{PyIndexError, PyMemoryError, PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use std::ffi::CString;
use std::path::PathBuf;

/// A rule g(n + period) = g(n) + saltus for n ≥ pre, checked over the table, `proven` where a
/// theorem makes the check a proof.
#[pyclass(frozen, get_all, name = "Rule", module = "sgtab")]
pub struct Rule {
    pre: u64,
    period: u64,
    saltus: u64,
    /// The rule was checked for every n ≥ pre with n + period < checked.
    checked: u64,
    proven: bool,
    text: String,
}

#[pymethods]
impl Rule {
    fn __repr__(&self) -> String {
        format!(
            "sgtab.Rule(pre={}, period={}, saltus={}, checked={}, proven={})",
            self.pre,
            self.period,
            self.saltus,
            self.checked,
            if self.proven { "True" } else { "False" }
        )
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Rule>().is_ok_and(|o| {
            let o = o.get();
            (o.pre, o.period, o.saltus, o.checked, o.proven)
                == (self.pre, self.period, self.saltus, self.checked, self.proven)
        })
    }
}

/// A table of Sprague-Grundy values.
#[pyclass(frozen, name = "Table", module = "sgtab")]
pub struct Table {
    inner: library::Table,
    engine: Option<String>,
    values: PyOnceLock<Py<PyAny>>,
}

impl Table {
    pub fn new(inner: library::Table, engine: Option<String>) -> Table {
        Table { inner, engine, values: PyOnceLock::new() }
    }
}

/// The values as an array of `T` in the table's shape, read-only. The unpacking runs without the
/// GIL.
fn array<'py, T: Element + Copy + Default + Send>(
    py: Python<'py>,
    table: &library::Table,
    to: fn(u32) -> T,
) -> PyResult<Bound<'py, PyAny>> {
    let len = usize::try_from(table.len())
        .map_err(|_| PyMemoryError::new_err("the table does not fit in memory here"))?;
    let values = py.detach(|| {
        let mut values: Vec<T> = Vec::new();
        values.try_reserve_exact(len).ok()?;
        values.resize(len, T::default());
        table.values_into(&mut values, to);
        Some(values)
    });
    let values = values.ok_or_else(|| {
        PyMemoryError::new_err(format!(
            "the {len} values of {} do not fit in memory here",
            table.spec()
        ))
    })?;
    let shape: Vec<usize> = table.shape().iter().map(|&d| d as usize).collect();
    let flat = PyArray1::from_vec(py, values);
    let shaped = flat.reshape(&shape[..])?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("write", false)?;
    shaped.call_method("setflags", (), Some(&kwargs))?;
    Ok(shaped.into_any())
}

#[pymethods]
impl Table {
    /// The game's canonical spec, as `sgtab build` prints it.
    #[getter]
    fn spec(&self) -> String {
        self.inner.spec()
    }

    /// The values as a read-only NumPy array in the game's shape: (N,) for heaps and rows,
    /// (N, N) for boards, the shape of a k-D game. The dtype is the smallest unsigned integer that
    /// holds them (uint8, uint16 or uint32).
    #[getter]
    fn values(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let made = self.values.get_or_try_init(py, || {
            let bits = self.inner.bits();
            let array = if bits <= 8 {
                array(py, &self.inner, |v| v as u8)
            } else if bits <= 16 {
                array(py, &self.inner, |v| v as u16)
            } else {
                array(py, &self.inner, |v| v)
            };
            array.map(Bound::unbind)
        })?;
        Ok(made.clone_ref(py))
    }

    /// The shape of `values`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }

    /// The rule found in the values (`None` where there is none).
    #[getter]
    fn rule(&self) -> Option<Rule> {
        self.inner.rule().map(|r| Rule {
            pre: r.pre,
            period: r.period,
            saltus: r.saltus,
            checked: r.checked,
            proven: r.proven,
            text: r.text,
        })
    }

    /// The engine that built it (`simd`, `gpu`, `generic`, ...); `None` for a loaded table.
    #[getter]
    fn engine(&self) -> Option<&str> {
        self.engine.as_deref()
    }

    /// The file name `sgtab build` gives it.
    #[getter]
    fn file_name(&self) -> String {
        self.inner.file_name()
    }

    fn __len__(&self) -> usize {
        self.inner.len() as usize
    }

    fn __repr__(&self) -> String {
        let rule = self.inner.rule().map_or("no rule".to_string(), |r| r.text);
        let shape: Vec<String> = self.inner.shape().iter().map(u64::to_string).collect();
        format!("<sgtab.Table {}: {} values, {rule}>", self.inner.spec(), shape.join("×"))
    }

    /// The value of a position: `value(n)` for a heap or a row, `value(x, y)` on a board,
    /// `value(p1, ..., pk)` (or `value((p1, ..., pk))`) in a k-D game. Past the table it is
    /// answered from the rule as `sgq value` answers it (with a warning where the rule is only
    /// checked); where neither covers it, IndexError says why and which build would.
    #[pyo3(signature = (*position))]
    fn value(&self, py: Python<'_>, position: &Bound<'_, PyTuple>) -> PyResult<u64> {
        let items: Vec<Bound<'_, PyAny>> = match position.len() {
            1 => match position.get_item(0)?.cast_into::<PyTuple>() {
                Ok(t) => t.iter().collect(),
                Err(e) => vec![e.into_inner()],
            },
            _ => position.iter().collect(),
        };
        let mut coords = Vec::with_capacity(items.len());
        for x in &items {
            let int = x.call_method0("__index__").map_err(|_| {
                PyTypeError::new_err(format!(
                    "a position is given by ints, not {}",
                    crate::game::describe(x)
                ))
            })?;
            coords.push(int.str()?.to_string());
        }
        match self.inner.value(&coords) {
            Ok((v, note)) => {
                if let Some(note) = note {
                    let text = CString::new(note).unwrap_or_default();
                    PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1)?;
                }
                Ok(v)
            }
            Err(ValueError::Arity(why)) => Err(PyTypeError::new_err(why)),
            Err(ValueError::Beyond(why)) => Err(PyIndexError::new_err(why)),
        }
    }

    /// Writes the table as `sgtab build` does (atomically; a file that is not a table of this
    /// game is not replaced). A directory takes it under its file name, as `tables/`, where sgq
    /// finds it. Returns the path written.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<String> {
        let written = py.detach(|| self.inner.save(&path)).map_err(Error::new_err)?;
        Ok(written.display().to_string())
    }
}
