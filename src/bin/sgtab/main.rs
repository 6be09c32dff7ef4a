//! `sgtab`: builds, verifies, shows and dumps Sprague–Grundy tables.

mod cli;

use clap::Parser;
use cli::{Cli, Command, DumpArg, LangArg, ScriptArgs, usage_error};
use sgtab::build::Verified;
use sgtab::engine::{Backend, Engines, Timings};
use sgtab::games;
use sgtab::judge::Problem;
use sgtab::judge::generate::Size;
use sgtab::progress::Progress;
use sgtab::spec::{GameSpec, Resolver};
use sgtab::table::{self, Table, format};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Why a command failed.
enum Failure {
    /// One line for stderr.
    Line(String),
    /// Nothing more to say: the details were printed already, or the reader of stdout went away.
    Said,
}

impl From<String> for Failure {
    fn from(line: String) -> Failure {
        Failure::Line(line)
    }
}

impl From<&str> for Failure {
    fn from(line: &str) -> Failure {
        Failure::Line(line.to_string())
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Line(line) => f.write_str(line),
            Failure::Said => Ok(()),
        }
    }
}

type Result<T> = std::result::Result<T, Failure>;

/// `Err(fail!(...))`: a failure of one formatted line.
macro_rules! fail {
    ($($arg:tt)*) => {
        Failure::Line(format!($($arg)*))
    };
}

/// Writes `table` to `path` (atomically) where no other file would be lost: nothing is there,
/// or a table of the same game ([`format::check_replaceable`]); the file's size.
fn write_table(table: &Table, path: &Path) -> Result<u64> {
    format::write_replacing(table, path)?;
    Ok(std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
}

fn main() -> ExitCode {
    // Mesa's Vulkan drivers print `error: XDG_RUNTIME_DIR is invalid or not set` when it is
    // unset, which reads like an error of sgtab's; point it at the temporary directory. This is
    // the first thing main does, before any thread exists, as `set_var` requires.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none_or(|d| d.is_empty()) {
        // SAFETY: single-threaded here; no other thread can read the environment meanwhile.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir()) };
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    if let Some(what) = cli.command.prints().filter(|_| sgtab::output::stdout_was_closed()) {
        say_error(&format!(
            "standard output is closed, so {what} would be lost; give sgtab somewhere to write it"
        ));
        return ExitCode::FAILURE;
    }
    // An output onto an input of the same command (`dump T.sgt -o T.sgt`, `show T.sgt >> T.sgt`)
    // would destroy it: refused before anything is read.
    let (inputs, output) = cli.command.files();
    let onto = match output {
        Some(path) => sgtab::output::refuse_onto_input(Some(path), &inputs),
        None if cli.command.prints().is_some() => sgtab::output::refuse_onto_input(None, &inputs),
        None => Ok(()),
    };
    if let Err(e) = onto {
        say_error(&e);
        return if matches!(cli.command, Command::Diff { .. }) {
            ExitCode::from(2)
        } else {
            ExitCode::FAILURE
        };
    }
    if let Command::Diff { a, b } = &cli.command {
        return diff(a, b);
    }
    let result = match cli.command {
        Command::Diff { .. } => unreachable!("answered above"),
        Command::Build { specs, backend, dir, timings, prove, max, from, cross_check, script } => {
            let how = BuildHow {
                backend: backend.into(),
                timings,
                prove: prove.then_some(max),
                cross_check,
            };
            build(&specs, &from, script, &dir.resolve("build"), how)
        }
        Command::Verify { files, backend, script } => verify(&files, script, backend.into()),
        Command::Show { file, values, rows } => show(&file, values, rows),
        Command::Dump { file, format, range, out } => {
            dump(&file, format, range.as_deref(), out.as_deref())
        }
        Command::Export { file, lang, out, max_bytes, name } => {
            export(&file, lang, out.as_deref(), max_bytes, &name)
        }
        Command::Plot { file, out, size, font, range, detrend } => {
            plot(&file, &out, size, font.as_deref(), range.as_deref(), detrend)
        }
        Command::Import { file, name, shape, dir } => {
            import(&file, &name, shape, &dir.resolve("import"))
        }
        Command::Gen { problem, seed, cases, per_case, chips } => {
            generate(&problem, seed, Size { cases, per_case, chips })
        }
        Command::Header => {
            write!(io::stdout().lock(), "{}", sgtab::native::HEADER).map_err(stdout_error)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Said) => ExitCode::FAILURE,
        Err(Failure::Line(e)) => {
            say_error(&e);
            ExitCode::FAILURE
        }
    }
}

/// Prints a line on stdout, as `println!` does, but a failed write returns from the enclosing
/// function with the error [`stdout_error`] makes, instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        writeln!(io::stdout().lock(), $($arg)*).map_err(stdout_error)?
    };
}

/// `sgtab show FILE`: the table described on stdout.
fn show(file: &Path, count: Option<u64>, rows: Option<u64>) -> Result<()> {
    let table = read(file)?;
    table::show::show(&table, file, count, rows, &mut io::stdout().lock()).map_err(|e| match e {
        table::show::ShowError::Refused(line) => Failure::Line(line),
        table::show::ShowError::Io(e) => stdout_error(e),
    })
}

/// The error a failed write to stdout ends the command with. A reader that went away (a broken
/// pipe, `sgtab dump T | head`) ends it with status 1 and no message, as `sgq` does: what was
/// not written is lost, but saying so would only be noise. Anything else (a full disk) is one
/// line.
fn stdout_error(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::Said
    } else {
        fail!("cannot write output: {e}")
    }
}

/// Prints `sgtab: error: {e}` on stderr. A stderr that cannot be written to is ignored: the
/// exit status still says the command failed.
fn say_error(e: &str) {
    let _ = writeln!(io::stderr().lock(), "sgtab: error: {e}");
}

/// Prints what the engines chose and opened since the last call, on stderr.
fn print_notes(engines: &Engines) {
    for note in engines.take_notes() {
        // A note that cannot be printed (stderr is full or closed) is dropped; the work goes on.
        let _ = writeln!(io::stderr().lock(), "sgtab: {note}");
    }
}

/// The games of `specs` (a script is run once to learn its shape) and of the tables `from`;
/// none at all: every default table.
fn parse_specs(specs: &[String], from: &[PathBuf], script: ScriptArgs) -> Result<Vec<GameSpec>> {
    if specs.is_empty() && from.is_empty() {
        return Ok(GameSpec::defaults());
    }
    let resolver = resolver(script);
    let mut games = Vec::new();
    for s in specs {
        games.push(resolver.game(s).map_err(|e| e.to_string())?);
    }
    for file in from {
        let table = read(file)?;
        games.push(resolver.runnable(&table.spec).map_err(|e| format!("{}: {e}", file.display()))?);
    }
    Ok(games)
}

/// The resolver of every kind of game this program runs.
fn resolver(args: ScriptArgs) -> Resolver {
    let resolver = Resolver::new();
    let resolver = resolver.with(sgtab::native::NativeRuntime {
        limits: args.native(),
        allow_stored: args.allow_native,
    });
    #[cfg(feature = "lua")]
    let resolver = resolver.with(sgtab::lua::LuaRuntime(args.limits()));
    #[cfg(not(feature = "lua"))]
    let _ = args;
    resolver
}

/// How `sgtab build` builds: the engine, whether it reports each step's time, grows tables
/// to a proof (up to a length), and checks each table on a second engine.
struct BuildHow {
    backend: Backend,
    timings: bool,
    prove: Option<u64>,
    cross_check: bool,
}

fn build(
    specs: &[String],
    from: &[PathBuf],
    script: ScriptArgs,
    out: &Path,
    how: BuildHow,
) -> Result<()> {
    let BuildHow { backend, timings: show_timings, prove, cross_check } = how;
    let specs = parse_specs(specs, from, script)?;
    if let Some(why) = prove.and_then(|max| sgtab::build::prove_refusal(&specs, max)) {
        return Err(why.into());
    }
    sgtab::output::make_dir(out)?;
    let mut timings = Timings::default();
    // A test hook of the GPU self-check: see `Engines::with_gpu_fault`.
    let fault = std::env::var("SGTAB_TEST_GPU_FAULT").ok().and_then(|v| v.parse().ok());
    let engines = Engines::new(backend)
        .with_threads(script.threads.map(|t| t as usize))
        .with_gpu_fault(fault);
    for spec in specs {
        // Checked again as it is written; here so that a long build is not lost to it. A build
        // that grows its table learns the final name only at the end.
        if prove.is_none() {
            format::check_replaceable(&out.join(spec.file_name()), &spec.to_string())?;
        }
        let start = Instant::now();
        let progress = Progress::new(format!("building {spec}"));
        let built = match prove {
            None => {
                sgtab::build::build(&engines, &spec, &progress, &mut timings).map(|b| (b, None))
            }
            Some(max) => sgtab::build::prove(&engines, &spec, max, &progress, &mut timings)
                .map(|(b, p)| (b, Some(p))),
        };
        print_notes(&engines);
        // A script's errors name its game already.
        let (built, proof) = built.map_err(|e| e.about(&spec))?;
        if cross_check {
            let (other, compared) =
                sgtab::build::cross_check(&engines, &built, &progress, &mut timings)
                    .map_err(|e| e.line)?;
            out!(
                "{spec}: {} and {other} agree on all {compared} values (--cross-check)",
                built.engine
            );
        }
        progress.finish();
        let (table, engine) = (built.table, built.engine);
        let spec = table.spec.clone();
        if let Some(proof) = proof {
            out!("{}", proof.describe(&table));
        }
        if let Some(n) = built.filled_from {
            out!("{spec}: the first {n} values proved the rule; the rest were filled from it");
        }
        let path = out.join(spec.file_name());
        let size = timings.time("file write", || write_table(&table, &path))?;
        out!(
            "wrote {} ({size} bytes, {} entries, {} bits each, {}) with {engine} in {:.3} s",
            path.display(),
            table.values.len(),
            table.values.bits(),
            table.rule_text(),
            start.elapsed().as_secs_f64()
        );
        if show_timings {
            let width =
                timings.phases.iter().map(|(p, _)| p.chars().count()).max().unwrap_or(0).max(24);
            for (phase, took) in timings.phases.drain(..) {
                out!("  {phase:<width$} {:>10.3} ms", took.as_secs_f64() * 1e3);
            }
        }
        timings.phases.clear();
    }
    Ok(())
}

fn read(file: &Path) -> Result<Table> {
    Ok(format::read(file).map_err(|e| match e {
        format::ReadError::Bad(_) => {
            format!("{}: {e}; rebuild it with `sgtab build`", file.display())
        }
        _ => format!("{}: {e}", file.display()),
    })?)
}

fn verify(files: &[PathBuf], script: ScriptArgs, backend: Backend) -> Result<()> {
    if files.is_empty() {
        return Err("no files to verify; usage: sgtab verify FILE...".into());
    }
    let mut timings = Timings::default();
    let engines = Engines::new(backend).with_threads(script.threads.map(|t| t as usize));
    let mut failed = false;
    for file in files {
        let outcome = (|| {
            let table = read(file)?;
            let progress = Progress::new(format!("recomputing {}", table.spec));
            let verified =
                sgtab::build::verify(&table, &resolver(script), &engines, &progress, &mut timings);
            print_notes(&engines);
            progress.finish();
            Ok((verified.map_err(|e| format!("{}: {e}", file.display()))?, table))
        })();
        match outcome {
            Ok((Verified::Recomputed(engine), t)) => out!(
                "{}: OK ({}, {} entries, checked with {engine})",
                file.display(),
                t.spec,
                t.values.len()
            ),
            Ok((Verified::AsStored, t)) => out!(
                "{}: OK as stored ({}, {} entries: checksum, header and rule hold); its values \
                    were imported from another program, so sgtab cannot recompute them",
                file.display(),
                t.spec,
                t.values.len()
            ),
            Err(Failure::Line(e)) => {
                say_error(&e);
                failed = true;
            }
            Err(Failure::Said) => failed = true,
        }
    }
    if failed { Err(Failure::Said) } else { Ok(()) }
}

fn dump(file: &Path, format: DumpArg, range: Option<&str>, out: Option<&Path>) -> Result<()> {
    use sgtab::dump::{self, Format};
    let format = match format {
        DumpArg::Text => Format::Text,
        DumpArg::Csv => Format::Csv,
        DumpArg::Json => Format::Json,
        DumpArg::Npy => Format::Npy,
        DumpArg::Bfile => Format::Bfile,
    };
    let range = range.map(dump::parse_range).transpose()?;
    let table = read(file)?;
    dump::check(&table, range)?;
    match out {
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            dump::dump(&table, format, range, &mut out)
                .and_then(|()| out.flush())
                .map_err(stdout_error)
        }
        Some(path) => Ok(sgtab::output::write(path, |w| {
            let mut w = BufWriter::with_capacity(1 << 16, w);
            dump::dump(&table, format, range, &mut w)?;
            w.flush()
        })
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?),
    }
}

/// `sgtab diff A B`: exit 0 (equal), 1 (different, or covering different positions) or 2 (a
/// table unreadable, or the two not comparable).
fn diff(a: &Path, b: &Path) -> ExitCode {
    let compared = read(a)
        .and_then(|ta| Ok((ta, read(b)?)))
        .and_then(|(ta, tb)| Ok((sgtab::table::diff::diff(&ta, &tb)?, ta, tb)));
    let (d, ta, tb) = match compared {
        Ok(found) => found,
        Err(Failure::Line(e)) => {
            say_error(&e);
            return ExitCode::from(2);
        }
        Err(Failure::Said) => return ExitCode::from(2),
    };
    let lines = d.report(&ta, &tb, &a.display().to_string(), &b.display().to_string());
    let mut out = io::stdout().lock();
    if let Err(e) = lines.iter().try_for_each(|l| writeln!(out, "{l}")).and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            say_error(&format!("cannot write to standard output: {e}"));
        }
        return ExitCode::from(2);
    }
    if d.equal() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn generate(problem: &str, seed: u64, size: Size) -> Result<()> {
    let problem = Problem::parse(problem).ok_or_else(|| {
        format!("unknown problem `{problem}`; expected snim, chess, lasker, stones or funny")
    })?;
    size.check(problem)?;
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    sgtab::judge::generate::generate(problem, seed, size, &mut out)
        .and_then(|_| out.flush())
        .map_err(stdout_error)
}

fn export(
    file: &Path,
    lang: LangArg,
    out: Option<&Path>,
    max_bytes: u64,
    name: &str,
) -> Result<()> {
    use sgtab::export::Lang;
    sgtab::export::check_name(name)?;
    let table = read(file)?;
    let lang = match lang {
        LangArg::C => Lang::C,
        LangArg::Cpp => Lang::Cpp,
        LangArg::Rust => Lang::Rust,
        LangArg::Python => Lang::Python,
    };
    let source = sgtab::export::export(&table, lang, max_bytes, name)?;
    write_output(out, source.as_bytes())
}

/// Writes `bytes` to stdout, or to `path` through [`sgtab::output::write`] (atomically, or
/// through to a device or FIFO).
fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<()> {
    let Some(path) = path else {
        let mut stdout = io::stdout().lock();
        return stdout.write_all(bytes).and_then(|_| stdout.flush()).map_err(stdout_error);
    };
    Ok(sgtab::output::write_bytes(path, bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?)
}

/// Reads another program's values into the table `import:NAME` and writes it to `out`.
fn import(file: &Path, name: &str, shape: Option<games::Dims>, out: &Path) -> Result<()> {
    let table = table::imported(file, name, shape)?;
    let (spec, dims) = (
        &table.spec,
        table.spec.stored().map(|s| s.dims).expect("an imported table's game is stored"),
    );
    sgtab::output::make_dir(out)?;
    let path = out.join(spec.file_name());
    let size = write_table(&table, &path)?;
    out!(
        "wrote {} ({size} bytes, {spec}, shape {}, {} entries, {} bits each, {})",
        path.display(),
        dims.text(),
        table.values.len(),
        table.values.bits(),
        table.rule_text()
    );
    Ok(())
}

fn plot(
    file: &Path,
    out: &Path,
    size: (u32, u32),
    font: Option<&Path>,
    range: Option<&str>,
    detrend: bool,
) -> Result<()> {
    use sgtab::plot;
    let format = plot::Format::from_path(out)?;
    let range = range.map(sgtab::dump::parse_range).transpose()?;
    let table = read(file)?;
    plot::use_font(font)?;
    let bytes = plot::plot(&table, format, size, plot::Options { range, detrend })?;
    write_output(Some(out), &bytes)
}
