//! `sgq PROBLEM [--tables DIR]`: answers judge input on stdin from table files.
//!
//! Kept tiny on purpose: it parses its few arguments by hand (no clap) and references no GPU
//! code, so it starts in about a millisecond.

use sgtab::judge::lookup::FoundTable;
use sgtab::judge::input::mapped::Parallel;
use sgtab::judge::input::read_ahead::ReadAhead;
use sgtab::judge::{self, JudgeError, Problem, query};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: sgq PROBLEM [--tables DIR] [--input FILE] [--threads N] < input
       sgq value SPEC|--table FILE [--tables DIR] [--input FILE] [--threads N] < positions
       sgq sum SPEC|--table FILE [--first WORD] [--second WORD] [--tables DIR] [--input FILE] [--threads N] < cases
       sgq --version

Answers judge input on standard input, writing the judge's output on standard output.

PROBLEM is one of:
  snim     S-Nim (HDU 1536): the table is built from each case's move set
  chess    Chess (HDU 5724), from the chess:20 table
  lasker   Nim or not Nim? (HDU 3032), from the lasker table's stored rule
  stones   Taking stones 1/3/9 (Nowcoder 122 B), from the sub:1,3,9 table
  funny    A Funny Stone Game (UVa 1378), from the funny table

value SPEC writes the value of each position on the input, one a line. sum SPEC reads T, then
T cases of n and n positions, and writes one line a case: WORD of --first (default First) when
the XOR of the values is not 0, WORD of --second (default Second) otherwise. SPEC is any game
spec (`lasker`, `sub:1,3,9`, `chess:20`, `0.77`), a script `lua:PATH[:N=40,...]` (the script
is read to name the table `sgtab build` made from it; nothing runs) or `import:NAME`; its table
is loaded. --table FILE answers from that table file instead. A position is a heap, a row
bitmask, a board square `x y`, or k numbers for a game of k axes. Heaps past the table come
from its stored rule (a rule that is only checked, not proven, says so once on stderr); with
no rule they are refused.

The input is standard input, or FILE with --input. When it is a regular file, it is mapped
and every problem, `sum` and `value` are answered on N threads (default: every core; N is cut
to four a core, or 16 if that is more); a pipe is read as a stream, by a reader thread beside
the parse when N is more than 1. The answers are the same either way. Numbers are read with
AVX2 where the CPU has it (SGQ_KERNEL=portable forces the portable kernel).

Tables are looked for in, first match wins: --tables DIR; $SGTAB_TABLES; ./tables if it
exists; the tables/ directory of the source tree sgq was built from. Make them with
`sgtab build`; a table not found is named with where sgq looked and the command that makes it.";

fn main() -> ExitCode {
    let mut problem = None;
    let mut tables = None;
    let mut source = Source::default();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some(kind @ ("value" | "sum")) if problem.is_none() => return query(kind, tables, source, args),
            Some(flag @ ("--input" | "--threads")) => match source.set(flag, args.next()) {
                Ok(()) => {}
                Err(why) => return usage(&why),
            },
            Some("-V" | "--version") => return print(&format!("sgq {}", env!("CARGO_PKG_VERSION"))),
            Some("-h" | "--help") => return print(USAGE),
            Some("--tables") => match args.next() {
                Some(dir) if dir.is_empty() => return usage("--tables needs a directory, not an empty string (use `--tables .` for this one)"),
                Some(dir) => tables = Some(PathBuf::from(dir)),
                None => return usage("--tables needs a directory"),
            },
            Some(name) if problem.is_none() && !name.starts_with('-') => match Problem::parse(name) {
                Some(p) => problem = Some(p),
                None => return usage(&format!("unknown problem `{name}`")),
            },
            _ => return usage(&format!("unexpected argument `{}`", arg.to_string_lossy())),
        }
    }
    let Some(problem) = problem else { return usage("which problem?") };
    let tables = judge::table_dir(tables);

    if sgtab::output::stdout_was_closed() {
        eprintln!("sgq {}: error: standard output is closed, so the answers would be lost; give sgq somewhere to write them", problem.name());
        return ExitCode::FAILURE;
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match source.open() {
        Ok(Input::Stream(r)) => judge::answer(problem, &tables, r, &mut out),
        Ok(Input::Mapped(data, par)) => judge::answer_bytes(problem, &tables, &data, par, &mut out),
        Err(e) => Err(e),
    };
    let flushed = out.flush();
    match result.and(flushed.map_err(JudgeError::Output)) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`sgq … | head`): the answers after it are lost, so the exit
        // status says so, but a message would only be noise.
        Err(JudgeError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("sgq {}: error: {e}", problem.name());
            ExitCode::FAILURE
        }
    }
}

/// Where the input comes from, and how many threads answer it.
#[derive(Default)]
struct Source {
    path: Option<PathBuf>,
    threads: Option<usize>,
}

/// The input, opened: a stream, or a regular file mapped, with the threads to answer it on.
enum Input {
    Stream(Box<dyn Read>),
    Mapped(Mapped, Parallel),
}

/// A mapped file from the offset the input stands at (stdin may have been read from before).
struct Mapped {
    map: memmap2::Mmap,
    from: usize,
}

impl std::ops::Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map[self.from..]
    }
}

impl Source {
    fn set(&mut self, flag: &str, value: Option<std::ffi::OsString>) -> Result<(), String> {
        let value = value.filter(|v| !v.is_empty()).ok_or(format!("{flag} needs a value"))?;
        if flag == "--input" {
            self.path = Some(value.into());
            return Ok(());
        }
        match value.to_str().and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0) {
            Some(n) => {
                self.threads = Some(n);
                Ok(())
            }
            None => Err(format!("--threads needs a whole number of threads, 1 or more, not `{}`", value.to_string_lossy())),
        }
    }

    /// Opens the input. A regular file is mapped unless it is small (two pieces or less: one
    /// thread reads it as fast through the buffer, and mapping costs a few system calls); any
    /// other kind (a pipe, a terminal, a socket) is streamed through the scanner's buffer.
    fn open(&self) -> Result<Input, JudgeError> {
        let mut par = self.threads.map_or_else(Parallel::all_cores, Parallel::new);
        // For tests: pieces of a few bytes put piece boundaries everywhere in a small input.
        if let Some(piece) = std::env::var("SGQ_PIECE_BYTES").ok().and_then(|v| v.parse().ok()) {
            par.piece = piece;
        }
        let file = match &self.path {
            Some(path) => std::fs::File::open(path).map_err(|e| cannot_open(path, e))?,
            None => match stdin_file() {
                Some(f) => f,
                None => return Ok(Input::Stream(Box::new(io::stdin().lock()))),
            },
        };
        let meta = file.metadata().ok();
        let from = (&file).stream_position().unwrap_or(0);
        let mapped = match meta {
            Some(ref m) if m.is_file() && m.len().saturating_sub(from) > 2 * par.piece as u64 => {
                // SAFETY: the map is read only, and sgq never writes the file. What mapping cannot
                // rule out is another process changing the file while sgq reads it: bytes that
                // change under the map are read as they are (as with read(2), the answers are
                // then those of some mix of the old and new input), and a file truncated while
                // mapped makes the pages past its new end unreadable: reading one raises SIGBUS,
                // which `on_truncated_input` turns into a one-line error and status 1 (ripgrep,
                // which maps files the same way, dies of it). Judge inputs are not rewritten
                // while they are answered; a file that is should be piped in
                // (`cat FILE | sgq ...`), which streams it.
                on_truncated_input();
                unsafe { memmap2::Mmap::map(&file) }.ok()
            }
            _ => None,
        };
        match mapped {
            Some(map) if from <= map.len() as u64 => {
                // Pages are read in order by each thread; the kernel may read ahead.
                let _ = map.advise(memmap2::Advice::Sequential);
                // SAFETY: every input `par` answers is this read-only mapping of a file, which
                // sgq never writes.
                par = unsafe { par.over_mapped_file() };
                Ok(Input::Mapped(Mapped { map, from: from as usize }, par))
            }
            // A pipe, with a core to spare: read ahead on a thread of its own.
            _ if par.threads > 1 && meta.as_ref().is_some_and(|m| m.file_type().is_fifo()) => match ReadAhead::new(file) {
                Ok(r) => Ok(Input::Stream(Box::new(r))),
                Err(file) => Ok(Input::Stream(Box::new(file))),
            },
            // Not a regular file, small, or the system would not map it: stream it.
            _ => Ok(Input::Stream(Box::new(file))),
        }
    }
}

/// From here on, a SIGBUS (a page of the mapped input that no longer exists: another process
/// truncated the file) ends sgq with a one-line error on stderr and status 1, like any other
/// input it cannot answer, instead of killing it by the signal. Answers not yet written are
/// lost, as with any error that ends a run. Written by hand on `libc` (sgq already links it):
/// the handler may only call async-signal-safe functions, so it writes a fixed message with
/// write(2) and leaves with _exit(2).
#[cfg(target_os = "linux")]
fn on_truncated_input() {
    extern "C" fn on_sigbus(_: libc::c_int) {
        const MESSAGE: &[u8] = b"sgq: error: the input file was cut short while sgq read it (did another process truncate it?); \
answer a file that changes through a pipe: cat FILE | sgq ...\n";
        // SAFETY: write(2) and _exit(2) are async-signal-safe; MESSAGE is static.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(1);
        }
    }
    // SAFETY: a zeroed sigaction is a valid one (no flags, empty mask set below); the handler
    // only calls async-signal-safe functions. Failure leaves the default (death by the signal).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

#[cfg(not(target_os = "linux"))]
fn on_truncated_input() {}

fn cannot_open(path: &Path, e: io::Error) -> JudgeError {
    JudgeError::Table(format!("cannot open input {}: {e}", path.display()))
}

/// Standard input as a file of its own (a duplicate descriptor, sharing its offset), to ask what
/// it is and map it.
fn stdin_file() -> Option<std::fs::File> {
    use std::os::fd::AsFd;
    io::stdin().as_fd().try_clone_to_owned().ok().map(std::fs::File::from)
}

/// Prints `text` and a newline on stdout: success, or (a stdout that fails) a line on stderr
/// and failure, never a panic.
fn print(text: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(e) => {
            let _ = writeln!(io::stderr().lock(), "sgq: error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A command line refused: one line, and where the usage is.
fn usage(why: &str) -> ExitCode {
    let _ = writeln!(io::stderr().lock(), "sgq: {why}; see `sgq --help`");
    ExitCode::from(2)
}

/// The command line of `sgq value` or `sgq sum`, read.
struct QueryArgs {
    spec: String,
    /// `--table FILE`: answer from this file (then `spec` is its path).
    file: Option<String>,
    tables: Option<String>,
    first: String,
    second: String,
}

/// Reads the arguments of `sgq value` or `sgq sum` (`kind`); `Err` is the exit status of a
/// refusal already said, or of `--help` already printed.
fn query_args(kind: &str, tables: Option<PathBuf>, source: &mut Source, mut args: impl Iterator<Item = std::ffi::OsString>) -> Result<QueryArgs, ExitCode> {
    let mut tables = tables.map(|t| t.to_string_lossy().into_owned());
    let (mut spec, mut first, mut second, mut file) = (None, None, None, None);
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str().map(str::to_string) else {
            return Err(usage(&format!("unexpected argument `{}`", arg.to_string_lossy())));
        };
        let mut value = |flag: &str| args.next().map(|v| v.to_string_lossy().into_owned()).ok_or(format!("{flag} needs a value"));
        let slot = match arg.as_str() {
            "-h" | "--help" => return Err(print(USAGE)),
            "--tables" => &mut tables,
            "--table" => &mut file,
            "--input" | "--threads" => match source.set(&arg, args.next()) {
                Ok(()) => continue,
                Err(why) => return Err(usage(&why)),
            },
            "--first" if kind == "sum" => &mut first,
            "--second" if kind == "sum" => &mut second,
            a if spec.is_none() && !a.starts_with('-') => {
                spec = Some(arg);
                continue;
            }
            _ => return Err(usage(&format!("unexpected argument `{arg}` for sgq {kind}"))),
        };
        *slot = Some(value(&arg).map_err(|why| usage(&why))?);
    }
    let spec = match (spec, &file) {
        (Some(_), Some(_)) => return Err(usage(&format!("sgq {kind} takes a game spec or --table FILE, not both"))),
        (Some(spec), None) => spec,
        (None, Some(file)) => file.clone(),
        (None, None) => return Err(usage(&format!("sgq {kind} needs a game spec or --table FILE, e.g. sgq {kind} lasker"))),
    };
    // A family's spec is checked here, as a usage error; scripts and imports when loaded.
    if !spec.starts_with("lua:")
        && !spec.starts_with("import:")
        && file.is_none()
        && let Err(e) = sgtab::spec::GameSpec::parse(&spec)
    {
        return Err(usage(&e.to_string()));
    }
    let (first, second) = (first.unwrap_or_else(|| "First".into()), second.unwrap_or_else(|| "Second".into()));
    for word in [&first, &second] {
        if word.is_empty() || word.chars().any(char::is_control) {
            return Err(usage(&format!("the words of sgq sum must be non-empty, on one line: {word:?}")));
        }
    }
    Ok(QueryArgs { spec, file, tables, first, second })
}

/// `sgq value SPEC ...` and `sgq sum SPEC ...`.
fn query(kind: &str, tables: Option<PathBuf>, mut source: Source, args: impl Iterator<Item = std::ffi::OsString>) -> ExitCode {
    let QueryArgs { spec, file, tables, first, second } = match query_args(kind, tables, &mut source, args) {
        Ok(a) => a,
        Err(status) => return status,
    };
    let tables = judge::table_dir(tables.map(PathBuf::from));
    if sgtab::output::stdout_was_closed() {
        eprintln!("sgq {kind} {spec}: error: standard output is closed, so the answers would be lost; give sgq somewhere to write them");
        return ExitCode::FAILURE;
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut note = |line: &str| eprintln!("sgq {kind}: {line}");
    let words = query::Words { first: &first, second: &second };
    let loaded = match &file {
        Some(path) => sgtab::table::format::read(Path::new(path)).map_err(|e| JudgeError::Table(format!("cannot use table {path}: {e}"))),
        None => judge::load_any(&tables, &spec),
    };
    let result = loaded.and_then(|table| {
        // Where the table was found, for a message about a position past it.
        let path = file.as_ref().map_or_else(|| tables.join(table.spec.file_name()), PathBuf::from);
        let found = FoundTable { table: &table, file: Some(&path), spec: file.is_none().then_some(spec.as_str()) };
        match (kind, source.open()?) {
            ("value", Input::Stream(r)) => query::value(found, r, &mut out, &mut note),
            ("value", Input::Mapped(data, par)) => query::value_bytes(found, &data, par, &mut out, &mut note),
            (_, Input::Stream(r)) => query::sum(found, &words, r, &mut out, &mut note),
            (_, Input::Mapped(data, par)) => query::sum_bytes(found, &words, &data, par, &mut out, &mut note),
        }
    });
    let flushed = out.flush();
    match result.and(flushed.map_err(JudgeError::Output)) {
        Ok(()) => ExitCode::SUCCESS,
        // As for the problems: the answers after it are lost, so the status says so, quietly.
        Err(JudgeError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("sgq {kind} {spec}: error: {e}");
            ExitCode::FAILURE
        }
    }
}
