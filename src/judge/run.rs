//! What `sgq` runs once its command line is read: the input opened ([`InputChoice::open`]),
//! the job answered to standard output through a 64 KiB buffer, and the outcome as an exit
//! status with at most one line on standard error.

use super::input::open::{InputChoice, Opened};
use super::lookup::FoundTable;
use super::query::{self, Words};
use super::{Answered, JudgeError, Problem};
use crate::table::{Table, format};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `sgq` answers.
pub enum Job {
    /// `sgq PROBLEM`: a judge problem's input.
    Problem(Problem),
    /// `sgq value` or `sgq sum`: positions of any table.
    Query(Query),
}

/// `sgq value` or `sgq sum` on a game's table.
pub struct Query {
    /// The game as given (any spec `sgq` accepts), or the path of the table file.
    pub spec: String,
    /// `--table FILE`: `spec` is the table file to answer from.
    pub file: bool,
    /// `sgq sum`'s words for a win of the player to move and for a loss; `None`: `sgq value`.
    pub sum: Option<(String, String)>,
}

impl Job {
    /// How messages name the job: `lasker`, `value lasker`, `sum queen:5`.
    fn label(&self) -> String {
        match self {
            Job::Problem(p) => p.name().to_string(),
            Job::Query(q) => format!("{} {}", q.kind(), q.spec),
        }
    }
}

impl Query {
    fn kind(&self) -> &'static str {
        if self.sum.is_some() { "sum" } else { "value" }
    }

    /// Loads the table: from its file, or found by its spec in `tables`.
    fn table(&self, tables: &Path) -> Result<Table, JudgeError> {
        if self.file {
            return format::read(Path::new(&self.spec))
                .map_err(|e| JudgeError::Table(format!("cannot use table {}: {e}", self.spec)));
        }
        super::load_any(tables, &self.spec)
    }

    /// Answers the positions of `input` from the table, to `out`; a note (a checked rule
    /// answered past the table) goes to stderr, once.
    fn answer(&self, tables: &Path, input: &InputChoice, out: &mut impl Write) -> Answered {
        let table = self.table(tables)?;
        // Where the table was found, for a message about a position past it.
        let path =
            if self.file { PathBuf::from(&self.spec) } else { tables.join(table.spec.file_name()) };
        let found = FoundTable {
            table: &table,
            file: Some(&path),
            spec: (!self.file).then_some(self.spec.as_str()),
        };
        let kind = self.kind();
        let note = &mut |line: &str| eprintln!("sgq {kind}: {line}");
        let mut opened = open(input)?;
        match &self.sum {
            None => query::value(found, opened.input(), out, note),
            Some((first, second)) => {
                query::sum(found, &Words { first, second }, opened.input(), out, note)
            }
        }
    }
}

/// Opens the input, or says why it cannot be.
fn open(input: &InputChoice) -> Result<Opened, JudgeError> {
    input.open().map_err(|e| {
        JudgeError::Table(format!(
            "cannot open input {}: {e}",
            input.path.as_deref().unwrap_or(Path::new("-")).display()
        ))
    })
}

/// Runs `job` with tables from `tables` (or the search order of [`table_dir`](super::table_dir)):
/// answers to standard output. The exit status: success once every answer is written; failure
/// with one line on stderr naming the job and what went wrong (`sgq lasker: error: ...`), or
/// with none where the reader of the output went away (`sgq ... | head`: the answers after it
/// are lost, so the status says so, but a message would only be noise).
pub fn run(job: &Job, tables: Option<PathBuf>, input: &InputChoice) -> ExitCode {
    let tables = super::table_dir(tables);
    let label = job.label();
    if crate::output::stdout_was_closed() {
        eprintln!(
            "sgq {label}: error: standard output is closed, so the answers would be lost; give \
                sgq somewhere to write them"
        );
        return ExitCode::FAILURE;
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match job {
        Job::Problem(problem) => match open(input) {
            Ok(mut opened) => super::answer(*problem, &tables, opened.input(), &mut out),
            Err(e) => Err(e),
        },
        Job::Query(query) => query.answer(&tables, input, &mut out),
    };
    let flushed = out.flush();
    match result.and(flushed.map_err(JudgeError::Output)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(JudgeError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("sgq {label}: error: {e}");
            ExitCode::FAILURE
        }
    }
}
