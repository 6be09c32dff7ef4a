//! Where the fast engines register against the games they serve: one entry a family in
//! [`FAST`]. Games define positions and options only and name no engine; this file is the one
//! place that turns a `&dyn Game` back into its family's type (the only downcasts) to hand an
//! engine the parameters it needs.
//!
//! A family with a fast engine is one engine module and one entry here; a family without one
//! builds with its reference (or, given by its options alone, with the generic engine).

#[cfg(feature = "gpu")]
use super::check;
use super::{Backend, EngineError, Engines, Timings, chess as rows, corner, octal, threads};
use crate::games::chess::Chess;
use crate::games::corner::Corner;
use crate::games::grundy::Grundy;
use crate::games::takebreak::TakeBreak;
use crate::games::{self, Family, Game};
use crate::progress::Progress;
use crate::values::Packed;

/// A family's fast engines.
pub struct FastEngines {
    pub family: &'static Family,
    /// Which engines it has besides its reference: `Simd` (the fast CPU engine, all cores)
    /// and/or `Gpu`.
    pub engines: &'static [Backend],
    /// Computes a game of this family with one of `engines`, recording its phases in the
    /// timings (at least "kernel").
    pub compute: Compute,
    /// Where the fast CPU engine can grow a table in place: an empty one for the game.
    pub grow: Option<Start>,
}

/// An empty growing table of a game, where the engine can grow one: see [`FastEngines::grow`].
pub type Start = fn(&dyn Game) -> Option<Box<dyn Grow>>;

/// A family's fast-engine entry: see [`FastEngines::compute`].
pub type Compute = fn(Job<'_>) -> Result<Packed, EngineError>;

/// What a family's entry is asked to compute: its game on one of its engines, with the state
/// the engines share (the GPU), the build's progress and its phase timings.
pub struct Job<'a> {
    pub game: &'a dyn Game,
    pub backend: Backend,
    pub engines: &'a Engines,
    pub progress: &'a Progress,
    pub timings: &'a mut Timings,
}

impl<'a> Job<'a> {
    /// The game as its family's type (`family` names it where the game is of another).
    fn game<G: 'static>(&self, family: &str) -> Result<&'a G, EngineError> {
        self.game.as_any().downcast_ref::<G>().ok_or_else(|| {
            EngineError::refused(format!("{} is not a {family} game", self.game.canonical()))
        })
    }
}

/// The error for a backend the game's family has no engine on.
fn no_engine(game: &dyn Game, backend: Backend) -> EngineError {
    EngineError::refused(format!("{} has no {backend} engine in this build", game.canonical()))
}

/// A table that an engine extends in place, keeping its state between steps, so that growing to
/// N in steps costs what one build to N costs (`build` and `--prove` look for a rule at each
/// step instead of rebuilding).
pub trait Grow: Send {
    /// Entries tabulated so far.
    fn len(&self) -> u64;
    /// Whether none is yet.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The value of entry n < len().
    fn get(&self, n: u64) -> u32;
    /// Room for `len` entries in all (no copy while growing to it); fails where that does not fit.
    fn reserve(&mut self, len: u64) -> Result<(), EngineError>;
    /// Extends the table to `len` entries.
    fn grow(&mut self, len: u64, progress: &Progress) -> Result<(), EngineError>;
    /// The engine that computed the values so far.
    fn engine(&self) -> Backend {
        Backend::Simd
    }
    /// The phases timed since the last call, for `--timings`.
    fn take_timings(&mut self) -> Vec<(String, std::time::Duration)> {
        Vec::new()
    }
    /// The values, packed at the fewest bits that hold them.
    fn into_packed(self: Box<Self>) -> Packed;
}

/// Every family's fast engines.
pub static FAST: &[&FastEngines] = &[&CHESS, &QUEEN, &ROOK, &KING, &TAKEBREAK, &GRUNDY];

static CHESS: FastEngines = FastEngines {
    family: &games::chess::FAMILY,
    engines: &[Backend::Simd, Backend::Gpu],
    compute: chess,
    grow: None,
};

const BOARD: &[Backend] = &[Backend::Simd, Backend::Gpu];
static QUEEN: FastEngines =
    FastEngines { family: &games::corner::QUEEN, engines: BOARD, compute: corner, grow: None };
static ROOK: FastEngines =
    FastEngines { family: &games::corner::ROOK, engines: BOARD, compute: corner, grow: None };
static KING: FastEngines =
    FastEngines { family: &games::corner::KING, engines: BOARD, compute: corner, grow: None };

static TAKEBREAK: FastEngines = FastEngines {
    family: &games::takebreak::FAMILY,
    engines: &[Backend::Simd],
    compute: takebreak,
    grow: Some(|g| Some(Box::new(Timed::new(grow_takebreak(g)?)))),
};

static GRUNDY: FastEngines = FastEngines {
    family: &games::grundy::FAMILY,
    engines: &[Backend::Simd],
    compute: grundy,
    grow: None,
};

/// The fast engines of `game`'s family.
pub fn of(game: &dyn Game) -> Option<&'static FastEngines> {
    FAST.iter().copied().find(|f| std::ptr::eq(f.family, game.family()))
}

fn chess(job: Job) -> Result<Packed, EngineError> {
    let &Chess { width } = job.game("chess")?;
    let Job { game, backend, engines, progress, timings } = job;
    match backend {
        Backend::Simd => {
            Ok(timings.time("kernel", || rows::chess(width, threads(), progress))?.shrink())
        }
        #[cfg(feature = "gpu")]
        Backend::Gpu => {
            let gpu = engines.gpu(timings)?;
            let values = gpu.chess(width, progress, timings)?.shrink();
            self_checked(
                game,
                gpu,
                engines.gpu_fault(values),
                check::chess_first_layers(width, FIRST_CHESS_LAYERS),
                timings,
            )
        }
        _ => {
            let _ = engines;
            Err(no_engine(game, backend))
        }
    }
}

fn corner(job: Job) -> Result<Packed, EngineError> {
    let &Corner { piece, n } = job.game("corner")?;
    let Job { game, backend, engines, progress, timings } = job;
    let values = match backend {
        Backend::Simd => {
            corner::check_memory(piece, n)?;
            timings.time("kernel", || corner::corner(piece, n, corner::threads(), progress))?
        }
        #[cfg(feature = "gpu")]
        Backend::Gpu => {
            let gpu = engines.gpu(timings)?;
            let values = gpu.corner(piece, n, progress, timings)?;
            let values = timings.time("shrink", || values.shrink());
            return self_checked(
                game,
                gpu,
                engines.gpu_fault(values),
                check::corner_first_layers(n as u64, FIRST_LAYERS),
                timings,
            );
        }
        _ => {
            let _ = engines;
            return Err(no_engine(game, backend));
        }
    };
    Ok(timings.time("shrink", || values.shrink()))
}

/// Layers of a GPU table the self-check takes whole: board cells with x + y below 64 (the
/// first 2,080 cells, past the values where a line's set first needs a second word), chess
/// rows of excess below 12 (3,348 rows of 32 cells, 1,766 of 20).
#[cfg(feature = "gpu")]
const FIRST_LAYERS: u64 = 64;
#[cfg(feature = "gpu")]
const FIRST_CHESS_LAYERS: u32 = 12;

/// `values`, computed by `gpu`, once a sample of them (`first`, and positions spread over the
/// table) has been recomputed on the CPU from the table itself: see [`check`]. A wrong value
/// fails the build with one line naming the adapter and the position.
#[cfg(feature = "gpu")]
fn self_checked(
    game: &dyn Game,
    gpu: &super::gpu::GpuEngine,
    values: Packed,
    first: Vec<u64>,
    timings: &mut Timings,
) -> Result<Packed, EngineError> {
    let moves = game.moves().ok_or_else(|| {
        EngineError::refused(format!(
            "{} gives no options to check its GPU table against",
            game.canonical()
        ))
    })?;
    let positions = check::sample(values.len(), first);
    let wrong = timings.time(&format!("self-check ({} positions)", positions.len()), || {
        check::check(moves, &values, &positions, threads())
    });
    match wrong {
        None => Ok(values),
        Some(w) => Err(EngineError::check(format!(
            "{}: the GPU table failed its self-check on {}: at {} it holds {} where the mex of \
                its options' values is {}; nothing written (build it with --backend simd)",
            game.canonical(),
            gpu.describe(),
            w.position(game.positions()),
            w.held,
            w.mex
        ))),
    }
}

fn takebreak(job: Job) -> Result<Packed, EngineError> {
    let t: &TakeBreak = job.game("take-and-break")?;
    match job.backend {
        Backend::Simd => {
            job.timings.time("kernel", || octal::takebreak(&t.code, t.len, threads(), job.progress))
        }
        _ => Err(no_engine(job.game, job.backend)),
    }
}

/// A growing table whose every step is timed as "kernel, heaps FROM to TO", for `--timings`.
struct Timed<G> {
    table: G,
    phases: Vec<(String, std::time::Duration)>,
}

impl<G: Grow> Timed<G> {
    fn new(table: G) -> Timed<G> {
        Timed { table, phases: Vec::new() }
    }
}

impl<G: Grow> Grow for Timed<G> {
    fn len(&self) -> u64 {
        self.table.len()
    }
    fn get(&self, n: u64) -> u32 {
        self.table.get(n)
    }
    fn reserve(&mut self, len: u64) -> Result<(), EngineError> {
        self.table.reserve(len)
    }
    fn grow(&mut self, len: u64, progress: &Progress) -> Result<(), EngineError> {
        let (from, start) = (self.table.len(), std::time::Instant::now());
        let grown = self.table.grow(len, progress);
        self.phases.push((format!("kernel, heaps {from} to {len}"), start.elapsed()));
        grown
    }
    fn engine(&self) -> Backend {
        self.table.engine()
    }
    fn take_timings(&mut self) -> Vec<(String, std::time::Duration)> {
        std::mem::take(&mut self.phases)
    }
    fn into_packed(self: Box<Self>) -> Packed {
        Box::new(self.table).into_packed()
    }
}

fn grow_takebreak(game: &dyn Game) -> Option<octal::Growing> {
    let t = game.as_any().downcast_ref::<TakeBreak>()?;
    Some(octal::Growing::code(&t.code, threads()))
}

fn grundy(job: Job) -> Result<Packed, EngineError> {
    let g: &Grundy = job.game("Grundy's")?;
    match job.backend {
        Backend::Simd => {
            job.timings.time("kernel", || octal::grundy(g.len, threads(), job.progress))
        }
        _ => Err(no_engine(job.game, job.backend)),
    }
}
