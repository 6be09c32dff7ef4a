//! `sgq PROBLEM [--tables DIR]`: answers judge input on stdin from table files.
//!
//! Kept tiny on purpose: it parses its few arguments by hand (no clap) and references no GPU
//! code, so it starts in about a millisecond.

use sgtab::judge::{self, query, JudgeError, Problem};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

const USAGE: &str = "usage: sgq PROBLEM [--tables DIR] < input
       sgq value SPEC [--tables DIR] < positions
       sgq sum SPEC [--first WORD] [--second WORD] [--tables DIR] < cases

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
spec (`lasker`, `sub:1,3,9`, `chess:20`, `0.77`); its table is loaded. A position is a heap, a
row bitmask, or a board square `x y`. Heaps past the table come from its stored rule (a rule
that is only checked, not proven, says so once on stderr); with no rule they are refused.

Tables are looked for in, first match wins: --tables DIR; $SGTAB_TABLES; ./tables if it
exists; the tables/ directory of the source tree sgq was built from.
Make them with `sgtab build`.";

fn main() -> ExitCode {
    let mut problem = None;
    let mut tables = None;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some(kind @ ("value" | "sum")) if problem.is_none() => return query(kind, tables, args),
            Some("-h" | "--help") => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
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

    if stdout_was_closed() {
        eprintln!("sgq {}: error: standard output is closed, so the answers would be lost; give sgq somewhere to write them", problem.name());
        return ExitCode::FAILURE;
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = judge::answer(problem, &tables, io::stdin().lock(), &mut out);
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

/// Whether descriptor 1 was closed when sgq started (`sgq … >&-`). Rust's runtime opens
/// /dev/null on a closed standard descriptor before `main`, so every write would then succeed
/// and the answers vanish; this looks before the runtime does, from an ELF initialiser (they run
/// before the runtime's start-up code, which runs inside the C `main`).
fn stdout_was_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static CHECK_STDOUT: extern "C" fn() = {
    extern "C" fn check() {
        // SAFETY: F_GETFD only asks whether descriptor 1 is open; it changes nothing.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    }
    check
};

fn usage(why: &str) -> ExitCode {
    eprintln!("sgq: {why}\n{USAGE}");
    ExitCode::from(2)
}

/// `sgq value SPEC ...` and `sgq sum SPEC ...`.
fn query(kind: &str, tables: Option<PathBuf>, mut args: impl Iterator<Item = std::ffi::OsString>) -> ExitCode {
    let mut tables = tables.map(|t| t.to_string_lossy().into_owned());
    let (mut spec, mut first, mut second) = (None, None, None);
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str().map(str::to_string) else {
            return usage(&format!("unexpected argument `{}`", arg.to_string_lossy()));
        };
        let mut value = |flag: &str| args.next().map(|v| v.to_string_lossy().into_owned()).ok_or(format!("{flag} needs a value"));
        let slot = match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--tables" => &mut tables,
            "--first" if kind == "sum" => &mut first,
            "--second" if kind == "sum" => &mut second,
            a if spec.is_none() && !a.starts_with('-') => {
                spec = Some(arg);
                continue;
            }
            _ => return usage(&format!("unexpected argument `{arg}` for sgq {kind}")),
        };
        match value(&arg) {
            Ok(v) => *slot = Some(v),
            Err(why) => return usage(&why),
        }
    }
    let Some(spec) = spec else { return usage(&format!("sgq {kind} needs a game spec, e.g. sgq {kind} lasker")) };
    let spec = match sgtab::spec::GameSpec::parse(&spec) {
        Ok(s) => s,
        Err(e) => return usage(&e.to_string()),
    };
    let (first, second) = (first.unwrap_or_else(|| "First".into()), second.unwrap_or_else(|| "Second".into()));
    for word in [&first, &second] {
        if word.is_empty() || word.chars().any(char::is_control) {
            return usage(&format!("the words of sgq sum must be non-empty, on one line: {word:?}"));
        }
    }
    let tables = judge::table_dir(tables.map(PathBuf::from));
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut note = |line: &str| eprintln!("sgq {kind}: {line}");
    let result = judge::load_table(&tables, &spec).and_then(|table| match kind {
        "value" => query::value(&table, io::stdin().lock(), &mut out, &mut note),
        _ => query::sum(&table, &query::Words { first: &first, second: &second }, io::stdin().lock(), &mut out, &mut note),
    });
    let flushed = out.flush();
    match result.and(flushed.map_err(JudgeError::Output)) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`sgq … | head`) is not an error worth a message.
        Err(JudgeError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sgq {kind} {spec}: error: {e}");
            ExitCode::FAILURE
        }
    }
}
