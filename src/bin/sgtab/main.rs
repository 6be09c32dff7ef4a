//! `sgtab`: builds, verifies, shows and dumps Sprague–Grundy tables.

mod cli;

use clap::Parser;
use cli::{Cli, Command, ScriptArgs, usage_error};
use sgtab::build::Job;
use sgtab::dump::Format;
use sgtab::engine::{Backend, Engines};
use sgtab::export::Lang;
use sgtab::games;
use sgtab::judge::Problem;
use sgtab::judge::generate::Size;
use sgtab::output::{Failure, stdout_or_file};
use sgtab::spec::{GameSpec, Resolver};
use sgtab::table::{self, Table, format};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Result<T> = std::result::Result<T, Failure>;

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
            let job = Job { timings, prove: prove.then_some(max), cross_check };
            build(&specs, &from, script, &dir.resolve("build"), backend, job)
        }
        Command::Verify { files, backend, script } => {
            let engines = Engines::new(backend).with_threads(script.threads.map(|t| t as usize));
            let out = &mut io::stdout().lock();
            sgtab::build::verify_files(&files, &resolver(script), &engines, out, &mut say_error)
        }
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
        Command::Header => stdout_or_file(None, sgtab::native::HEADER.as_bytes()),
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
        writeln!(io::stdout().lock(), $($arg)*).map_err(Failure::stdout)?
    };
}

/// `sgtab show FILE`: the table described on stdout.
fn show(file: &Path, count: Option<u64>, rows: Option<u64>) -> Result<()> {
    let table = read(file)?;
    table::show::show(&table, file, count, rows, &mut io::stdout().lock()).map_err(|e| match e {
        table::show::ShowError::Refused(line) => Failure::Line(line),
        table::show::ShowError::Io(e) => Failure::stdout(e),
    })
}

/// Prints `sgtab: error: {e}` on stderr. A stderr that cannot be written to is ignored: the
/// exit status still says the command failed.
fn say_error(e: &str) {
    let _ = writeln!(io::stderr().lock(), "sgtab: error: {e}");
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

/// `sgtab build`: the games of `specs` and of the tables `from`, built into `out`.
fn build(
    specs: &[String],
    from: &[PathBuf],
    script: ScriptArgs,
    out: &Path,
    backend: Backend,
    job: Job,
) -> Result<()> {
    let specs = parse_specs(specs, from, script)?;
    // A test hook of the GPU self-check: see `Engines::with_gpu_fault`.
    let fault = std::env::var("SGTAB_TEST_GPU_FAULT").ok().and_then(|v| v.parse().ok());
    let engines = Engines::new(backend)
        .with_threads(script.threads.map(|t| t as usize))
        .with_gpu_fault(fault);
    sgtab::build::build_into(&engines, specs, out, job, &mut io::stdout().lock())
}

fn read(file: &Path) -> Result<Table> {
    Ok(format::load(file)?)
}

fn dump(file: &Path, format: Format, range: Option<&str>, out: Option<&Path>) -> Result<()> {
    use sgtab::dump;
    let range = range.map(dump::parse_range).transpose()?;
    let table = read(file)?;
    dump::check(&table, range)?;
    match out {
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            dump::dump(&table, format, range, &mut out)
                .and_then(|()| out.flush())
                .map_err(Failure::stdout)
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
        .map_err(Failure::stdout)
}

fn export(file: &Path, lang: Lang, out: Option<&Path>, max_bytes: u64, name: &str) -> Result<()> {
    sgtab::export::check_name(name)?;
    let source = sgtab::export::export(&read(file)?, lang, max_bytes, name)?;
    stdout_or_file(out, source.as_bytes())
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
    let size = format::write_replacing(&table, &path)?;
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
    stdout_or_file(Some(out), &bytes)
}
