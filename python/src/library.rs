//! Every use of the sgtab library by the binding, in one file: parsing and building a spec,
//! building a game given by its options, reading, writing and querying a table. The rest of the
//! binding deals in the types defined here ([`Table`], [`Enumerate`], [`Lister`]),
//! so that a change of the library's API is met here alone.

use sgtab::engine::{Backend, Engines, Timings};
use sgtab::games::stored::{self, Stored};
use sgtab::games::{Dims, Family, Game, GameError, Positions, Source, Worker};
use sgtab::judge::JudgeError;
use sgtab::judge::input::InputError;
use sgtab::lua::LuaRuntime;
use sgtab::native::NativeRuntime;
use sgtab::progress::Progress;
use sgtab::spec::{GameSpec, Resolver};
use sgtab::table::format;
use sgtab::values::Packed;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a build did not give a table.
pub enum Failure {
    /// The spec, or the game's definition, is not one sgtab takes: the message says why.
    Spec(String),
    /// The build ran and failed: the one line the command line prints.
    Build(String),
}

/// How to build: the engine asked for (`auto`, `simd`, ...) and the threads of the engines that
/// take a count (every core when `None`).
pub struct How<'a> {
    pub backend: &'a str,
    pub threads: Option<usize>,
}

/// The backend named `name`, as `sgtab build --backend` takes it.
fn backend(name: &str) -> Result<Backend, Failure> {
    Ok(match name {
        "auto" => Backend::Auto,
        "scalar" => Backend::Scalar,
        "simd" => Backend::Simd,
        "gpu" => Backend::Gpu,
        "generic" => Backend::Generic,
        _ => {
            return Err(Failure::Spec(format!(
                "unknown backend `{name}`: give auto, scalar, simd, gpu or generic"
            )));
        }
    })
}

/// A rule found in a table (the library's, with its text).
pub struct Rule {
    pub pre: u64,
    pub period: u64,
    pub saltus: u64,
    pub checked: u64,
    pub proven: bool,
    /// `g(n+12) = g(n) for n >= 71 (proven)`.
    pub text: String,
}

/// A table: its game, values and rule.
pub struct Table(sgtab::table::Table);

/// A built table and the engine that computed it.
pub struct Built {
    pub table: Table,
    pub engine: String,
}

/// Builds the table of `text`: any spec `sgtab build` takes, a script's (`lua:PATH[:K=V]`)
/// among them, the engine chosen as `sgtab build` chooses it.
pub fn build_spec(text: &str, how: &How) -> Result<Built, Failure> {
    let engines = engines(how)?;
    run(&engines, &resolve(text)?)
}

/// The game `text` names, resolved once (a script's file read once). What names no game (an
/// unknown family, a script that cannot be read, a bad parameter) is the caller's mistake; a
/// game that fails to open (a script that fails when run to learn its shape) or that this
/// module cannot compute is a failed build, as `sgtab build` words it.
fn resolve(text: &str) -> Result<GameSpec, Failure> {
    let resolver = Resolver::new()
        .with(LuaRuntime(sgtab::lua::Limits::default()))
        .with(NativeRuntime { limits: sgtab::native::Limits { seconds: 10 }, allow_stored: false });
    let named = resolver.name(text).map_err(|e| Failure::Spec(e.0))?;
    resolver.open_named(&named).map_err(|e| Failure::Build(e.0))
}

fn engines(how: &How) -> Result<Engines, Failure> {
    Ok(Engines::new(backend(how.backend)?).with_threads(how.threads))
}

/// `sgtab build` on one game: the error message as the command line words it.
fn run(engines: &Engines, spec: &GameSpec) -> Result<Built, Failure> {
    let built = sgtab::build::build(engines, spec, &Progress::silent(), &mut Timings::default())
        .map_err(|e| {
            // A script's errors name its game already.
            Failure::Build(e.about(spec))
        })?;
    Ok(Built { table: Table(built.table), engine: built.engine.to_string() })
}

/// A game given by its options, defined outside the library (in Python): its shape, and workers
/// that list options. Each thread that asks gets its own worker.
pub trait Enumerate: Send + Sync {
    /// The sizes of its shape, one an axis.
    fn shape(&self) -> &[u64];
    /// Whether its workers give ranks.
    fn ranked(&self) -> bool;
    fn worker(&self) -> Result<Box<dyn Lister + '_>, String>;
}

/// One thread's lister of options and ranks (see [`Enumerate`]).
pub trait Lister {
    /// Calls `each(p, option)` for each option of each position p of `positions` (table
    /// indices), in that order; an option is the positions it leaves side by side (table
    /// indices: one for a plain move, several for a sum, none for a move to nothing).
    fn options(
        &mut self,
        positions: &[u64],
        each: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), String>;
    /// The rank of each of `positions`, pushed in order onto `out`.
    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), String>;
}

/// Checks a shape as the library takes it (1 to 8 sizes, each at least 1, at most 2^30
/// positions in all).
pub fn check_shape(sizes: &[u64]) -> Result<(), String> {
    Dims::new(sizes, sgtab::games::MAX_LEN).map(drop)
}

/// Checks a table's name as `sgtab import --name` takes it.
pub fn check_name(name: &str) -> Result<(), String> {
    stored::check_name(name, "game name").map_err(|e| e.0)
}

/// A position in words, as the library's messages write it: `7`, `(3, 4)`.
pub fn position_name(shape: &[u64], index: u64) -> String {
    Dims::new(shape, u64::MAX).map_or_else(|_| index.to_string(), |d| d.name(index))
}

/// Builds the table of a game given by its options, named `import:NAME` (a table of values
/// sgtab cannot compute itself, as a Rust program's own game is), on the generic engine.
pub fn build_game(name: &str, game: Arc<dyn Enumerate>, how: &How) -> Result<Built, Failure> {
    let engines = engines(how)?;
    run(&engines, &defined(name, game)?)
}

/// The table of a game given by its options whose values were computed here (in index order,
/// [`crate::resolve`]): packed, its rule found, as any build's; `engine` names what computed them.
pub fn game_table(
    name: &str,
    game: Arc<dyn Enumerate>,
    values: &[u32],
    engine: &str,
) -> Result<Built, Failure> {
    let spec = defined(name, game)?;
    let table = sgtab::table::Table::new(spec, Packed::from_values(values));
    Ok(Built { table: Table(table), engine: engine.to_string() })
}

/// A failed build of the game `name` given by its options, as `sgtab build` words it.
pub fn game_failure(name: &str, line: &str) -> Failure {
    Failure::Build(format!("import:{name}: {line}"))
}

/// The spec of a game given by its options: `import:NAME`, its shape.
fn defined(name: &str, game: Arc<dyn Enumerate>) -> Result<GameSpec, Failure> {
    let dims = Dims::new(game.shape(), sgtab::games::MAX_LEN).map_err(Failure::Spec)?;
    let stored = Stored::imported(name, dims).map_err(|e| Failure::Spec(e.0))?;
    Ok(GameSpec::new(Defined { game, stored }))
}

/// A game defined outside the library as the library sees it: an imported table's game (its
/// name, its shape) that is also a [`Source`] for the generic engine.
struct Defined {
    game: Arc<dyn Enumerate>,
    stored: Stored,
}

impl std::fmt::Debug for Defined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Defined({})", self.stored.canonical())
    }
}

impl Game for Defined {
    fn family(&self) -> &'static Family {
        &stored::IMPORT
    }

    fn canonical(&self) -> String {
        self.stored.canonical()
    }

    fn len(&self) -> u64 {
        self.stored.dims.len()
    }

    fn positions(&self) -> Positions {
        stored::positions_of(&self.stored.dims)
    }

    fn reference(&self, _: &Progress) -> Result<Packed, GameError> {
        Err(GameError("a game defined in Python is computed by the generic engine".into()))
    }

    fn source(&self) -> Option<&dyn Source> {
        Some(self)
    }

    fn stored(&self) -> Option<Stored> {
        Some(self.stored.clone())
    }

    fn file_name(&self) -> Option<String> {
        self.stored.file_name()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Source for Defined {
    fn count(&self) -> u64 {
        self.stored.dims.len()
    }

    fn ranked(&self) -> bool {
        self.game.ranked()
    }

    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        let lister = self.game.worker().map_err(GameError)?;
        Ok(Box::new(Listed { lister }))
    }

    fn name(&self, p: u64) -> String {
        self.stored.dims.name(p)
    }
}

/// A [`Lister`] as the generic engine's [`Worker`].
struct Listed<'a> {
    lister: Box<dyn Lister + 'a>,
}

impl Worker for Listed<'_> {
    fn options(
        &mut self,
        positions: &[u64],
        f: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), GameError> {
        self.lister.options(positions, f).map_err(GameError)
    }

    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
        self.lister.ranks(positions, out).map_err(GameError)
    }
}

/// Reads a table file, checked as every sgtab command reads one.
pub fn load(path: &Path) -> Result<Table, LoadError> {
    format::read(path).map(Table).map_err(|e| match e {
        format::ReadError::Io(e) => LoadError::Io(e),
        e => LoadError::Bad(format!("{}: {e}", path.display())),
    })
}

/// Why a table could not be read.
pub enum LoadError {
    Io(std::io::Error),
    /// Not a table, or a damaged one: the message says which check failed.
    Bad(String),
}

/// A position asked of [`Table::value`] that the table does not answer.
pub enum ValueError {
    /// The position has the wrong number of coordinates (the message says how many).
    Arity(String),
    /// The table cannot answer it (past the table without a rule, off the board): the message
    /// says why, as `sgq value` does.
    Beyond(String),
}

impl Table {
    pub fn spec(&self) -> String {
        self.0.spec.to_string()
    }

    pub fn len(&self) -> u64 {
        self.0.values.len()
    }

    /// Bits a value takes (1 to 32).
    pub fn bits(&self) -> u32 {
        self.0.values.bits()
    }

    /// The shape of the values as an array: the game's shape (a board's N×N, a script's sizes),
    /// else one axis as long as the table.
    pub fn shape(&self) -> Vec<u64> {
        match self.0.spec.positions() {
            Positions::Board { n } => vec![n, n],
            Positions::Grid(dims) => dims.sizes().to_vec(),
            Positions::Heap | Positions::Row { .. } => vec![self.0.values.len()],
        }
    }

    /// How many numbers name a position in `value`: two on a board, k in a k-D game, else one.
    pub fn arity(&self) -> usize {
        match self.0.spec.positions() {
            Positions::Board { .. } => 2,
            Positions::Grid(dims) => dims.axes(),
            Positions::Heap | Positions::Row { .. } => 1,
        }
    }

    /// What a position is in words, for messages: `a heap`, `a row bitmask`, `(x, y)`.
    pub fn position_words(&self) -> String {
        match self.0.spec.positions() {
            Positions::Heap => "a heap size n".into(),
            Positions::Row { width } => format!("a row, a bitmask of {width} bits"),
            Positions::Board { .. } => "a square (x, y)".into(),
            Positions::Grid(dims) => {
                let names: Vec<String> = (1..=dims.axes()).map(|i| format!("p{i}")).collect();
                format!("a point ({})", names.join(", "))
            }
        }
    }

    /// Every value in index order into `out` (as long as the table), each converted by `to`.
    pub fn values_into<T>(&self, out: &mut [T], to: impl Fn(u32) -> T) {
        for (o, v) in out.iter_mut().zip(self.0.values.iter()) {
            *o = to(v);
        }
    }

    pub fn rule(&self) -> Option<Rule> {
        self.0.rule.map(|r| Rule {
            pre: r.pre,
            period: r.period,
            saltus: r.saltus,
            checked: r.checked,
            proven: r.proven,
            text: r.to_string(),
        })
    }

    /// The value of a position given by its numbers (decimal text), answered as `sgq value` answers
    /// it: from the table, past it from the rule (with the note `sgq value` writes once where the
    /// rule is only checked), and refused where neither covers it.
    pub fn value(&self, coords: &[String]) -> Result<(u64, Option<String>), ValueError> {
        if coords.len() != self.arity() {
            let words = self.position_words();
            return Err(ValueError::Arity(format!(
                "a position of {} is {words}: give {} numbers, not {}",
                self.0.spec,
                self.arity(),
                coords.len()
            )));
        }
        let (mut out, mut note) = (Vec::new(), None);
        let line = format!("{}\n", coords.join(" "));
        let answered = sgtab::judge::query::value(
            &self.0,
            sgtab::judge::query::Input::Stream(&mut line.as_bytes()),
            &mut out,
            &mut |n: &str| note = Some(n.to_string()),
        );
        match answered {
            Ok(()) => {
                let text = String::from_utf8_lossy(&out);
                let value = text
                    .trim()
                    .parse()
                    .map_err(|_| ValueError::Beyond(format!("sgq value gave `{}`", text.trim())))?;
                Ok((value, note))
            }
            // The query's place in its input (line 1, position 1) means nothing here.
            Err(JudgeError::Input(InputError::Format { message, .. })) => Err(ValueError::Beyond(
                message.replace(" of position 1", "").replace("position 1 ", "position "),
            )),
            Err(e) => Err(ValueError::Beyond(e.to_string())),
        }
    }

    /// The table's file name, as `sgtab build` names it.
    pub fn file_name(&self) -> String {
        self.0.spec.file_name()
    }

    /// Writes the table to `path` (into it under [`Table::file_name`] where it is a directory),
    /// atomically, as `sgtab build` writes it: a file that is not a table of the same game is not
    /// replaced. The path written.
    pub fn save(&self, path: &Path) -> Result<PathBuf, String> {
        let path = if path.is_dir() { path.join(self.file_name()) } else { path.to_path_buf() };
        format::write_replacing(&self.0, &path)?;
        Ok(path)
    }
}
