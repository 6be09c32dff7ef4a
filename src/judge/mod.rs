//! What the `sgq` binary runs: answers for the five judge problems (`docs/problems.md`) and for
//! any table's positions (`sgq value`, `sgq sum`), read from judge input and answered from table
//! files. The layout (`docs/sgq.md`), each layer looking only down:
//!
//! - [`run`]: a job, from an opened input to an exit status;
//! - this module: the problems ([`Problem`]), their errors ([`JudgeError`]), where tables are
//!   found and loaded;
//! - one module a problem ([`snim`], [`chess`], [`lasker`], [`stones`], [`funny`]): its grammar,
//!   written once for every way its input arrives, and its answer; [`query`] for `sgq value`
//!   and `sgq sum`, and [`lookup`] for a table's values and rule;
//! - [`input`]: judge input as numbers, streamed or read on every core, apart from any problem.
//!
//! A problem writes whole lines only once a case has been read completely, so a broken case
//! leaves no partial line.

pub mod chess;
pub mod funny;
pub mod generate;
pub mod input;
pub mod lasker;
pub mod lookup;
pub mod query;
pub mod run;
pub mod snim;
pub mod stones;

use crate::games::stored::shell_word;
use crate::spec::{GameSpec, Resolver};
use crate::table::{Table, format};
use input::open::Input;
use input::{InputError, Scanner};
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The judge problems `sgq` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    Snim,
    Chess,
    Lasker,
    Stones,
    Funny,
}

impl Problem {
    pub const ALL: [Problem; 5] =
        [Problem::Snim, Problem::Chess, Problem::Lasker, Problem::Stones, Problem::Funny];

    pub fn name(self) -> &'static str {
        match self {
            Problem::Snim => "snim",
            Problem::Chess => "chess",
            Problem::Lasker => "lasker",
            Problem::Stones => "stones",
            Problem::Funny => "funny",
        }
    }

    pub fn parse(name: &str) -> Option<Problem> {
        Problem::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The table file this problem answers from (snim builds its own from the input).
    pub fn table(self) -> Option<GameSpec> {
        let spec = match self {
            Problem::Snim => return None,
            Problem::Chess => "chess",
            Problem::Lasker => "lasker",
            Problem::Stones => "sub:1,3,9",
            Problem::Funny => "funny",
        };
        Some(GameSpec::parse(spec).expect("built-in spec"))
    }
}

/// What answering a whole input gives: the answers were written, or why not.
pub type Answered = Result<(), JudgeError>;

/// Why an answer could not be given.
#[derive(Debug)]
pub enum JudgeError {
    Input(InputError),
    /// A table file is missing, damaged or unsuitable; the text says what to do.
    Table(String),
    Output(io::Error),
}

impl From<InputError> for JudgeError {
    fn from(e: InputError) -> Self {
        JudgeError::Input(e)
    }
}

impl From<io::Error> for JudgeError {
    fn from(e: io::Error) -> Self {
        JudgeError::Output(e)
    }
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::Input(e) => write!(f, "bad input: {e}"),
            JudgeError::Table(why) => f.write_str(why),
            JudgeError::Output(e) => write!(f, "cannot write output: {e}"),
        }
    }
}

/// Where `sgq` looks for tables, first match wins: `--tables DIR`; the environment variable
/// `SGTAB_TABLES`; `./tables` if it exists; the `tables/` of the source tree it was built from.
pub fn table_dir(flag: Option<PathBuf>) -> PathBuf {
    if let Some(dir) = flag {
        return dir;
    }
    if let Some(dir) = std::env::var_os("SGTAB_TABLES").filter(|d| !d.is_empty()) {
        return dir.into();
    }
    let here = PathBuf::from("tables");
    if here.is_dir() {
        return here;
    }
    built_tables()
}

/// The source tree's `tables/`: the last place of the search order.
fn built_tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tables")
}

/// Where a table sgq did not find should be built, as a shell word: the directory it looked in,
/// except the source tree it was built from (the last resort of the search), for which
/// `./tables` is what a user means (and sgq looks there first next time).
fn out_dir(dir: &Path) -> String {
    if dir.as_os_str().is_empty() {
        ".".to_string()
    } else if dir == built_tables()
        && std::env::var_os("SGTAB_TABLES").is_none_or(|d| Path::new(&d) != dir)
    {
        "tables".to_string()
    } else {
        shell_word(&dir.to_string_lossy())
    }
}

/// Where sgq looked for tables, for a table it did not find: the directory, why that one, and
/// the places of the search order that are set or exist.
fn looked(dir: &Path) -> String {
    let env = std::env::var_os("SGTAB_TABLES").filter(|d| !d.is_empty()).map(PathBuf::from);
    let why = if env.as_deref() == Some(dir) {
        "$SGTAB_TABLES"
    } else if dir == Path::new("tables") {
        "./tables"
    } else if dir == built_tables() {
        "the tables of the source tree sgq was built from"
    } else {
        "--tables"
    };
    let mut order = vec!["--tables DIR".to_string()];
    order.push(match &env {
        Some(d) => format!("$SGTAB_TABLES ({})", d.display()),
        None => "$SGTAB_TABLES (not set)".to_string(),
    });
    order.push(if Path::new("tables").is_dir() {
        "./tables".to_string()
    } else {
        "./tables (none here)".to_string()
    });
    let built = built_tables();
    if built.is_dir() {
        order.push(format!("{} (where sgq was built)", built.display()));
    }
    format!(
        "sgq looked in {} ({why}); it looks in {}, the first that applies",
        dir.display(),
        order.join(", then ")
    )
}

/// Loads the table `spec` from `dir`, checked, or says how to make it (once, at the end of the
/// line). The file's header must name `spec` before any of its values is read.
pub fn load_table(dir: &Path, spec: &GameSpec) -> Result<Table, JudgeError> {
    let fix = format!("build it with `sgtab build {spec} --dir {}`", out_dir(dir));
    load_named(dir, &spec.to_string(), &spec.file_name(), &fix)
}

/// The table of a game named by anything `sgq` accepts: a family's spec, `lua:PATH[:...]`
/// (the script is read to name its table; nothing runs) or `import:NAME`, as the one
/// [`Resolver`] names it.
pub fn load_any(dir: &Path, text: &str) -> Result<Table, JudgeError> {
    let named = Resolver::new().name(text).map_err(|e| JudgeError::Table(e.0))?;
    match &named.spec {
        Some(spec) => load_table(dir, spec),
        None => {
            let fix = format!("make it with `{}`", named.make_command(&out_dir(dir)));
            load_named(dir, &named.canonical, &named.file_name, &fix)
        }
    }
}

/// Why `text` is refused as the game of `sgq value` or `sgq sum` before any table is looked
/// for ([`Resolver::refusal`]: a stored kind's spec is checked where its table is loaded).
pub fn spec_refusal(text: &str) -> Option<String> {
    Resolver::new().refusal(text).map(|e| e.to_string())
}

/// Loads the table of canonical spec `spec` from the file `name` in `dir`, checked; `fix` says
/// how to make it.
fn load_named(dir: &Path, spec: &str, name: &str, fix: &str) -> Result<Table, JudgeError> {
    let path = dir.join(name);
    match format::read_expecting(&path, spec) {
        Ok(table) => Ok(table),
        Err(format::ReadError::OtherGame(found)) => Err(JudgeError::Table(format!(
            "table {} holds {found}, not {spec}; {fix}",
            path.display()
        ))),
        Err(format::ReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
            Err(JudgeError::Table(format!(
                "table {} not found; {fix} ({})",
                path.display(),
                looked(dir)
            )))
        }
        // A damaged table is rebuilt; one that cannot be read here (no memory for it, no
        // permission) would not be helped by rebuilding it.
        Err(e @ format::ReadError::Bad(_)) => {
            Err(JudgeError::Table(format!("cannot use table {}: {e}; {fix}", path.display())))
        }
        Err(e) => Err(JudgeError::Table(format!("cannot use table {}: {e}", path.display()))),
    }
}

/// Answers `problem` for the judge input on `input`, writing the judge output to `out`. An input
/// all in memory (a mapped file) gives the same output and errors, byte for byte, read on
/// `par.threads` threads ([`input::mapped`]).
pub fn answer(problem: Problem, tables: &Path, input: Input, out: &mut impl Write) -> Answered {
    let table = problem_table(problem, tables)?;
    let (data, par) = match input {
        Input::Stream(r) => {
            let input = &mut Scanner::new(r);
            return match (problem, &table) {
                (Problem::Snim, _) => snim::answer(input, out),
                (Problem::Chess, Some(t)) => chess::answer(t, input, out),
                (Problem::Lasker, Some(t)) => lasker::answer(t, input, out),
                (Problem::Stones, Some(t)) => stones::answer(t, input, out),
                (Problem::Funny, Some(t)) => funny::answer(t, input, out),
                _ => unreachable!("table loaded for every problem but snim"),
            };
        }
        Input::Bytes(data, par) => (data, par),
    };
    match (problem, &table) {
        (Problem::Lasker, Some(t)) => lasker::answer_bytes(t, data, par, out),
        (Problem::Chess, Some(t)) => chess::answer_bytes(t, data, par, out),
        (Problem::Snim, _) => snim::answer_bytes(data, par, out),
        (Problem::Stones, Some(t)) => stones::answer_bytes(t, data, par, out),
        (Problem::Funny, Some(t)) => funny::answer_bytes(t, data, par, out),
        _ => unreachable!("table loaded for every problem but snim"),
    }
}

fn problem_table(problem: Problem, tables: &Path) -> Result<Option<Table>, JudgeError> {
    problem.table().map(|spec| load_table(tables, &spec)).transpose()
}
