//! `sgq`: answers judge input from table files. Kept tiny on purpose: it reads its few
//! arguments by hand (no clap) and hands the job to the library ([`sgtab::judge::run`]), which
//! references no GPU, Lua or plotting code, so `sgq` starts in about a millisecond.

use sgtab::judge::input::open::InputChoice;
use sgtab::judge::run::{Job, Query, run};
use sgtab::judge::{self, Problem};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: sgq PROBLEM [--tables DIR] [--input FILE] [--threads N] < input
       sgq value SPEC|--table FILE [--tables DIR] [--input FILE] [--threads N] < positions
       sgq sum SPEC|--table FILE [--first WORD] [--second WORD] [--tables DIR] [--input FILE] \
           [--threads N] < cases
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
    let mut input = InputChoice::default();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some(kind @ ("value" | "sum")) if problem.is_none() => {
                return match query_args(kind, &mut tables, &mut input, args) {
                    Ok(query) => run(&Job::Query(query), tables, &input),
                    Err(status) => status,
                };
            }
            Some(flag @ ("--input" | "--threads")) => {
                if let Err(why) = input_flag(&mut input, flag, args.next()) {
                    return usage(&why);
                }
            }
            Some("-V" | "--version") => {
                return print(&format!("sgq {}", env!("CARGO_PKG_VERSION")));
            }
            Some("-h" | "--help") => return print(USAGE),
            Some("--tables") => match args.next() {
                Some(dir) if dir.is_empty() => {
                    return usage(
                        "--tables needs a directory, not an empty string (use `--tables .` for \
                            this one)",
                    );
                }
                Some(dir) => tables = Some(PathBuf::from(dir)),
                None => return usage("--tables needs a directory"),
            },
            Some(name) if problem.is_none() && !name.starts_with('-') => match Problem::parse(name)
            {
                Some(p) => problem = Some(p),
                None => return usage(&format!("unknown problem `{name}`")),
            },
            _ => return usage(&format!("unexpected argument `{}`", arg.to_string_lossy())),
        }
    }
    let Some(problem) = problem else { return usage("which problem?") };
    run(&Job::Problem(problem), tables, &input)
}

/// `--input FILE` or `--threads N` with its value, read into `input`.
fn input_flag(input: &mut InputChoice, flag: &str, value: Option<OsString>) -> Result<(), String> {
    let value = value.filter(|v| !v.is_empty()).ok_or(format!("{flag} needs a value"))?;
    if flag == "--input" {
        input.path = Some(value.into());
        return Ok(());
    }
    match value.to_str().and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0) {
        Some(n) => {
            input.threads = Some(n);
            Ok(())
        }
        None => Err(format!(
            "--threads needs a whole number of threads, 1 or more, not `{}`",
            value.to_string_lossy()
        )),
    }
}

/// Reads the arguments of `sgq value` or `sgq sum` (`kind`); `Err` is the exit status of a
/// refusal already said, or of `--help` already printed.
fn query_args(
    kind: &str,
    tables: &mut Option<PathBuf>,
    input: &mut InputChoice,
    mut args: impl Iterator<Item = OsString>,
) -> Result<Query, ExitCode> {
    let (mut spec, mut first, mut second, mut file) = (None, None, None, None);
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str().map(str::to_string) else {
            return Err(usage(&format!("unexpected argument `{}`", arg.to_string_lossy())));
        };
        let mut value = |flag: &str| {
            args.next()
                .map(|v| v.to_string_lossy().into_owned())
                .ok_or(format!("{flag} needs a value"))
        };
        let slot = match arg.as_str() {
            "-h" | "--help" => return Err(print(USAGE)),
            "--tables" => {
                *tables = Some(PathBuf::from(value(&arg).map_err(|why| usage(&why))?));
                continue;
            }
            "--table" => &mut file,
            "--input" | "--threads" => match input_flag(input, &arg, args.next()) {
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
    let (spec, file) = match (spec, file) {
        (Some(_), Some(_)) => {
            return Err(usage(&format!("sgq {kind} takes a game spec or --table FILE, not both")));
        }
        (Some(spec), None) => (spec, false),
        (None, Some(file)) => (file, true),
        (None, None) => {
            return Err(usage(&format!(
                "sgq {kind} needs a game spec or --table FILE, e.g. sgq {kind} lasker"
            )));
        }
    };
    if let Some(why) = (!file).then(|| judge::spec_refusal(&spec)).flatten() {
        return Err(usage(&why));
    }
    let (first, second) =
        (first.unwrap_or_else(|| "First".into()), second.unwrap_or_else(|| "Second".into()));
    for word in [&first, &second] {
        if word.is_empty() || word.chars().any(char::is_control) {
            return Err(usage(&format!(
                "the words of sgq sum must be non-empty, on one line: {word:?}"
            )));
        }
    }
    Ok(Query { spec, file, sum: (kind == "sum").then_some((first, second)) })
}

/// Prints `text` and a newline on stdout: success, or (a stdout that fails) a line on stderr
/// and failure, never a panic.
fn print(text: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(e) => {
            let _ =
                writeln!(io::stderr().lock(), "sgq: error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A command line refused: one line, and where the usage is.
fn usage(why: &str) -> ExitCode {
    let _ = writeln!(io::stderr().lock(), "sgq: {why}; see `sgq --help`");
    ExitCode::from(2)
}
