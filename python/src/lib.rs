//! sgtab from Python: the module `sgtab._sgtab`, which the package `sgtab` re-exports.
//!
//! - `build(spec_or_game, *, backend="auto", threads=None)`: a table, from a spec string (any
//!   `sgtab build` takes) or an `sgtab.Game`; the engines run without the GIL.
//! - `load(path)`: any `.sgt` file.
//! - `Table`, `Rule`, `Game`, `sum`, `Error`.
//!
//! Every call into the library is in `library.rs`.

mod batch;
mod game;
mod library;
mod plain;
mod resolve;
mod table;

use game::{Game, Running};
use library::{Failure, How, LoadError};
use pyo3::exceptions::{PyException, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use table::Table;

pyo3::create_exception!(
    sgtab,
    Error,
    PyException,
    "A build, a save or a load that failed: the message is the line the sgtab command prints."
);

/// The table of `spec_or_game`: a spec as `sgtab build` takes it (`"0.77:2000"`, `"queen:64"`,
/// `"lua:games/knight.lua:N=64"`), or an `sgtab.Game`. The engine is chosen as `sgtab build`
/// chooses it (`backend="auto"`); `threads` bounds the engines that take a count (every core by
/// default). A bad spec raises ValueError; a failing build, `sgtab.Error` with the line the
/// command prints; an exception raised by a game's own functions propagates as it is, with a
/// note naming the call and position.
#[pyfunction(signature = (spec_or_game, *, backend = "auto", threads = None))]
fn build(
    py: Python<'_>,
    spec_or_game: &Bound<'_, PyAny>,
    backend: &str,
    threads: Option<usize>,
) -> PyResult<Table> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1 (None: every core)"));
    }
    let how = How { backend, threads };
    if let Ok(spec) = spec_or_game.extract::<String>() {
        let built = py.detach(|| library::build_spec(&spec, &how)).map_err(raise)?;
        return Ok(Table::new(built.table, Some(built.engine)));
    }
    let Ok(game) = spec_or_game.cast::<Game>() else {
        return Err(PyTypeError::new_err(format!(
            "build takes a spec (a str) or an sgtab.Game, not {}",
            game::describe(spec_or_game)
        )));
    };
    let game = game.get();
    let running = Arc::new(Running::new(py, game));
    let run = running.clone();
    let built = py.detach(|| {
        // In index order here where the game allows (see resolve.rs), else the library's engine.
        if backend == "auto" && run.rank.is_none() {
            match resolve::in_order(&run) {
                Ok(Some(values)) => {
                    return library::game_table(&game.name, run, &values, "in-order");
                }
                Ok(None) => {}
                Err(line) => return Err(library::game_failure(&game.name, &line)),
            }
        }
        library::build_game(&game.name, run, &how)
    });
    // An exception from the game's own code is raised as it is, whatever line it stopped on.
    if let Some(err) = running.take_raised(py, &format!("import:{}", game.name)) {
        return Err(err);
    }
    let built = built.map_err(raise)?;
    Ok(Table::new(built.table, Some(built.engine)))
}

fn raise(failure: Failure) -> PyErr {
    match failure {
        Failure::Spec(why) => PyValueError::new_err(why),
        Failure::Build(why) => Error::new_err(why),
    }
}

/// The table in the file `path` (any `.sgt` file: built here, by `sgtab build` or
/// `sgtab import`), checked as every sgtab command checks it.
#[pyfunction]
fn load(py: Python<'_>, path: PathBuf) -> PyResult<Table> {
    match py.detach(|| library::load(&path)) {
        Ok(table) => Ok(Table::new(table, None)),
        Err(LoadError::Bad(why)) => Err(Error::new_err(why)),
        Err(LoadError::Io(e)) => Err(match e.raw_os_error() {
            // OSError(errno, text, filename) is the subclass for its errno (FileNotFoundError).
            Some(errno) => PyOSError::new_err((errno, e.to_string(), path.display().to_string())),
            None => Error::new_err(format!("{}: {e}", path.display())),
        }),
    }
}

#[pymodule]
fn _sgtab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add("sum", game::sum_function(m)?)?;
    m.add_class::<Table>()?;
    m.add_class::<table::Rule>()?;
    m.add_class::<Game>()?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("gpu", cfg!(feature = "gpu"))?;
    Ok(())
}
