//! Games written as Lua scripts: `sgtab build lua:PATH[:NAME=VALUE,...]`.
//!
//! A script sets `shape` (an integer N, or a list of k sizes) and defines `moves(p1, ..., pk)`,
//! returning its options as values (`return n - 1, n - 3`) or as a list: a position (an
//! integer in 1-D, a list of k integers in k-D) or `sum(pos, ...)` for a move that leaves
//! several games side by side. It may define
//! `rank(p1, ..., pk)`, an integer every option's positions have smaller. The integer
//! parameters of the spec are read as globals. `docs/scripts.md` is the user's guide.
//!
//! The game is handed to the generic engine (`engine::generic`) as a [`Source`]: each
//! engine thread gets its own interpreter running the same script, so options are enumerated
//! on every core (`worker`). The engine recomputes a sample of positions in a fresh interpreter
//! before the table is written, which catches moves that depend on what earlier calls did.
//!
//! **Sandbox.** The base, string, table, math and utf8 libraries only, less what loads code or
//! reaches outside (`load`, `loadfile`, `dofile`, `string.dump`, `collectgarbage`) and what
//! would make a table depend on the run: `math.random`, any memory address (`tostring` of a
//! table, `%p`), Lua's random pivot in `table.sort`, and a random string-hash seed (build.rs
//! compiles Lua with a fixed one, so `pairs` visits string keys in one order everywhere).
//! Globals are read-only once the top level has run; a parameter the script never reads is an
//! error; `__gc` finalizers are refused (they would run with hooks off, beyond any bound);
//! `print` writes to stderr. Each interpreter may hold `--lua-memory` bytes, and an
//! allocation the system refuses is an error in Lua, not an abort; each call may run
//! `--lua-seconds` ([`watchdog`]), Lua's long C functions included (`strings`, `library`).
//! Errors are one line with the script's name and line, control characters escaped.
//!
//! **Process-wide effect.** The first interpreter installs a `SIGURG` handler for the whole
//! process and starts a watchdog thread; other `SIGURG`s are passed on to the handler that was
//! there before ([`watchdog`] says how and why).

use crate::games::stored::{self, LUA, Origin, Script, Stored};
use crate::games::{Dims, Game, GameError, MAX_AXES, Source, Worker};
use crate::spec::MAX_LEN;
use state::State;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

mod blame;
mod library;
mod params;
mod pattern;
mod returned;
mod sort;
mod stack;
mod state;
mod strings;
mod table;
pub mod watchdog;
mod worker;

pub use library::escape_controls;

/// Bounds on a script's interpreters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of memory each interpreter may hold.
    pub memory: u64,
    /// Seconds one call (`moves`, `rank`, or the script's top level) may run.
    pub seconds: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { memory: 256 << 20, seconds: 10 }
    }
}

/// What runs scripts for the [`crate::spec::Resolver`]: each game opened with these bounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct LuaRuntime(pub Limits);

impl crate::spec::Runtime for LuaRuntime {
    fn runs(&self, kind: &str) -> bool {
        kind == LUA.name
    }

    fn open(
        &self,
        origin: &Origin,
        _: Option<&str>,
    ) -> Result<std::sync::Arc<dyn Game>, crate::games::SpecError> {
        match origin {
            Origin::Script(script) => LuaGame::open(script.clone(), self.0)
                .map(|g| std::sync::Arc::new(g) as std::sync::Arc<dyn Game>)
                .map_err(|e| crate::games::SpecError(e.0)),
            other => Err(crate::games::SpecError(format!(
                "{} is not a script's game",
                other.canonical()
            ))),
        }
    }
}

/// A script's game, its shape known (the script was run once to read it).
#[derive(Debug)]
pub struct LuaGame {
    /// Its script and shape, as its table stores them.
    stored: Stored,
    ranked: bool,
    limits: Limits,
    /// Interpreters made for workers and not yet dropped.
    workers: AtomicU64,
    /// What the process could still take when the first worker was made.
    room: OnceLock<Option<u64>>,
}

impl LuaGame {
    /// Runs `script` once on this thread to learn its shape and functions.
    pub fn open(script: Script, limits: Limits) -> Result<LuaGame, GameError> {
        let state = State::new(&script, limits)?;
        let dims = shape(&state)?;
        let ranked = state.has("rank")?;
        if !state.has("moves")? {
            return Err(state.error("the script defines no function `moves`"));
        }
        let stored = Stored { origin: stored::Origin::Script(script), dims };
        Ok(LuaGame { stored, ranked, limits, workers: AtomicU64::new(0), room: OnceLock::new() })
    }

    pub fn dims(&self) -> Dims {
        self.stored.dims
    }

    pub fn script(&self) -> &Script {
        self.stored.script().expect("a script game's origin is its script")
    }

    /// Counts one more worker's interpreter, refusing it where the interpreters' bounds
    /// together pass what the process may still take.
    fn admit(&self) -> Result<(), GameError> {
        let n = self.workers.fetch_add(1, Relaxed) + 1;
        let room = *self.room.get_or_init(crate::memory::room);
        let each = self.limits.memory;
        match room {
            Some(room) if n.saturating_mul(each) > room => {
                self.workers.fetch_sub(1, Relaxed);
                let fit = room / each.max(1);
                let fewer = if fit >= 1 {
                    format!("use --threads {fit} or fewer, or a smaller --lua-memory")
                } else {
                    "give a smaller --lua-memory".to_string()
                };
                Err(GameError(format!(
                    "{}: {n} interpreters of up to {} MiB each (--lua-memory) could take {}, but \
                        this process may take only {} more (ulimit -v / cgroup memory.max / \
                        MemAvailable); {fewer}",
                    self.canonical(),
                    each >> 20,
                    crate::memory::size(n.saturating_mul(each)),
                    crate::memory::size(room)
                )))
            }
            _ => Ok(()),
        }
    }
}

/// The script's `shape`: an integer, or a list of 1 to 8 integers.
fn shape(state: &State) -> Result<Dims, GameError> {
    let want =
        "`shape` must be a whole number N (positions 0..N-1) or a list of sizes {d1, ..., dk}";
    let size = |v: &mlua::Value| match v {
        mlua::Value::Integer(n) if *n >= 1 => Ok(*n as u64),
        mlua::Value::Integer(n) => Err(state.error(format!("shape size {n} is below 1"))),
        mlua::Value::Number(x) if x.fract() == 0.0 && *x >= 1.0 && x.log2().fract() == 0.0 => {
            Err(state.error(format!(
                "{want}; a size is the float {x:?}: 2^k is a float in Lua, write 1 << {}",
                x.log2() as u32
            )))
        }
        mlua::Value::Number(x) => Err(state.error(format!(
            "{want}; a size is the float {x:?}: use an integer (// divides to one)"
        ))),
        other => Err(state.error(format!("{want}; a size is a {}", other.type_name()))),
    };
    let sizes = match state.global::<mlua::Value>("shape")? {
        mlua::Value::Nil => return Err(state.error(format!("the script sets no `shape`: {want}"))),
        mlua::Value::Table(t) => {
            let n = t.raw_len();
            if n == 0 || n > MAX_AXES {
                return Err(state.error(format!("`shape` lists {n} sizes; give 1 to {MAX_AXES}")));
            }
            let get = |i| {
                t.raw_get::<mlua::Value>(i)
                    .map_err(|e| state.error(state::lua_message(&e)))
                    .and_then(|v| size(&v))
            };
            (1..=n).map(get).collect::<Result<Vec<_>, _>>()?
        }
        v => vec![size(&v)?],
    };
    Dims::new(&sizes, MAX_LEN)
        .map_err(|e| state.error(format!("{e} (sgtab builds tables of up to 2^30 positions)")))
}

impl stored::Runs for LuaGame {
    fn as_stored(&self) -> &Stored {
        &self.stored
    }
}

/// A worker's interpreter, counted by its game while it lives.
struct Counted<'a> {
    worker: worker::LuaWorker,
    game: &'a LuaGame,
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.game.workers.fetch_sub(1, Relaxed);
    }
}

impl Worker for Counted<'_> {
    fn options(
        &mut self,
        positions: &[u64],
        f: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), GameError> {
        self.worker.options(positions, f)
    }

    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
        self.worker.ranks(positions, out)
    }
}

impl Source for LuaGame {
    fn count(&self) -> u64 {
        self.stored.dims.len()
    }

    fn ranked(&self) -> bool {
        self.ranked
    }

    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        self.admit()?;
        let made = State::new(self.script(), self.limits).and_then(|state| {
            let moves: mlua::Function = state.global("moves")?;
            let rank: Option<mlua::Function> =
                if self.ranked { Some(state.global("rank")?) } else { None };
            Ok(worker::LuaWorker {
                state,
                moves,
                rank,
                dims: self.stored.dims,
                point: [0; MAX_AXES],
                parts: Vec::new(),
            })
        });
        match made {
            Ok(worker) => Ok(Box::new(Counted { worker, game: self })),
            Err(e) => {
                self.workers.fetch_sub(1, Relaxed);
                Err(e)
            }
        }
    }

    fn name(&self, p: u64) -> String {
        self.stored.dims.name(p)
    }
}
