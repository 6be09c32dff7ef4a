//! `sgtab`: builds, verifies, shows and dumps Sprague–Grundy tables.

use clap::{Parser, Subcommand, ValueEnum};
use sgtab::build::Proof;
use sgtab::engine::{Backend, Engines, Timings};
use sgtab::games;
use sgtab::judge::Problem;
use sgtab::judge::generate::Size;
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
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

#[derive(Parser)]
#[command(name = "sgtab", version, about = "Sprague-Grundy tables of impartial games: build them (GPU, SIMD or scalar), check them, look inside them", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    /// Per game: its GPU engine if it has one and a hardware adapter is found (a software
    /// driver such as lavapipe is slower than simd, so auto passes it over), else its fast CPU
    /// engine, else its reference
    Auto,
    /// The plain reference: each game straight from its definition
    Scalar,
    /// The game's fast CPU engine (SIMD, all cores); its reference where it has none
    Simd,
    /// The game's GPU engine (wgpu compute shaders); its fast CPU engine where it has none
    Gpu,
}

impl From<BackendArg> for Backend {
    fn from(b: BackendArg) -> Backend {
        match b {
            BackendArg::Auto => Backend::Auto,
            BackendArg::Scalar => Backend::Scalar,
            BackendArg::Simd => Backend::Simd,
            BackendArg::Gpu => Backend::Gpu,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DumpArg {
    Text,
    Csv,
    Json,
    Npy,
    Bfile,
}

#[derive(Clone, Copy, ValueEnum)]
enum LangArg {
    C,
    Cpp,
    Rust,
    Python,
}

/// How scripts' games run (`lua:PATH` specs, and tables made from scripts).
#[derive(clap::Args, Clone, Copy)]
struct ScriptArgs {
    /// Threads for games given by their moves (scripts): default every core
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// Memory each Lua interpreter (one a thread) may hold, in MiB
    #[arg(long, default_value_t = 256, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    lua_memory: u64,
    /// Seconds one call of a script's function may run before it is stopped (an endless loop)
    #[arg(long, default_value_t = 10, value_name = "S", value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    lua_seconds: u64,
}

impl ScriptArgs {
    #[cfg(feature = "lua")]
    fn limits(&self) -> sgtab::lua::Limits {
        sgtab::lua::Limits { memory: self.lua_memory << 20, seconds: self.lua_seconds }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Build tables and write them as .sgt files (no SPEC: every default table)
    #[command(after_help = format!("SPEC is one of: {}.\nDefaults: chess:20, lasker:1024, sub:1,3,9:1024, funny:32.\nEach game is built by the engine asked for where it has one; the line written for each table says which engine built it.", games::grammar()))]
    Build {
        /// Game specs, e.g. chess:24 sub:1,3,9 lasker funny:40
        specs: Vec<String>,
        /// Engine to compute with
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
        /// Directory to write the tables into (created if missing)
        #[arg(short, long, default_value = "tables")]
        out: PathBuf,
        /// Report the time of each phase (device set-up, upload, kernel, readback, file write)
        #[arg(long)]
        timings: bool,
        /// Grow each table (from its N) until its rule is proven by its game's theorem, or
        /// until --max entries, and say which happened
        #[arg(long)]
        prove: bool,
        /// With --prove: the most entries to grow a table to (at least the N of each SPEC)
        #[arg(long, default_value_t = 1 << 27, requires = "prove", value_parser = clap::value_parser!(u64).range(1..=sgtab::spec::MAX_LEN))]
        max: u64,
        /// Rebuild the game of these table files (a script's table carries its script)
        #[arg(long, value_name = "FILE.sgt")]
        from: Vec<PathBuf>,
        #[command(flatten)]
        script: ScriptArgs,
    },
    /// Check tables: checksum and header, then recompute and compare every value
    Verify {
        files: Vec<PathBuf>,
        /// Engine to recompute with
        #[arg(long, value_enum, default_value = "scalar")]
        backend: BackendArg,
        #[command(flatten)]
        script: ScriptArgs,
    },
    /// Show a table's header, its rule in words and its first values
    Show {
        file: PathBuf,
        /// How many values to show (default 32); for a board or a game of several axes, the
        /// side of the corner shown as a grid (default 12)
        #[arg(long, value_name = "N")]
        values: Option<u64>,
        /// Board games (queen, rook, king): the rule found along each of the first K rows
        #[arg(long, value_name = "K")]
        rows: Option<u64>,
    },
    /// Compare two tables: the same game or not, then their values position by position
    #[command(
        after_help = "Tables of different lengths are compared over the entries both have, boards of different sides over the common square, k-D tables over the common box; the line says so. Exit status: 0 when the values are equal (and cover the same positions), 1 when they differ or one table has positions the other lacks, 2 when a table cannot be read or the two cannot be compared."
    )]
    Diff {
        /// The first .sgt table file
        a: PathBuf,
        /// The second .sgt table file
        b: PathBuf,
    },
    /// Write a table's values: one a line, CSV, JSON, NumPy .npy or an OEIS b-file; all, or a range
    Dump {
        /// The .sgt table file
        file: PathBuf,
        /// text (a value a line), csv (with a header: n,g / row,g / x,y,g / p1,...,pk,g), json
        /// (spec, shape, rule, values), npy (NumPy, the narrowest unsigned dtype, the table's
        /// shape) or bfile (OEIS b-file: n a(n))
        #[arg(long, value_enum, default_value = "text")]
        format: DumpArg,
        /// Only the indexes A..B, both included (for a board or a k-D game, of its first axis)
        #[arg(long, value_name = "A..B")]
        range: Option<String>,
        /// Write here instead of to stdout (atomically: nothing half-written)
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Write a table as one source file defining sg(n), values bit-packed in a string literal
    #[command(
        after_help = "Where the table has a rule, only g(0..pre+period) is stored and the rule gives the rest; the function's comment says whether the rule is proven. Without a rule, every value is stored and sg stops the program past the table."
    )]
    Export {
        /// The .sgt table file
        file: PathBuf,
        /// Language of the source
        #[arg(long, value_enum)]
        lang: LangArg,
        /// Write here instead of to stdout (atomically: nothing half-written)
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Refuse a source larger than this many bytes (65536 is a usual judge's limit)
        #[arg(long, default_value_t = 65536)]
        max_bytes: u64,
        /// Name of the exported function (its helpers are named from it); an identifier every
        /// language takes. Contest code often has an `sg` array already
        #[arg(long, default_value = "sg")]
        name: String,
    },
    /// Draw a table as an SVG or PNG picture: g(n) against n, or a heat map of rows
    #[command(
        after_help = "A heap game: points, or when the table is longer than twice the plot's width in pixels, a pale bar per pixel column from its least to its largest value and a dark one over the middle half of its values; the pre-period ended by a red line and one period shaded. A chess row, board or k-D game: a heat map (high bits of the row, x, or the first axis down), each cell the mean value of the entries it covers, with a colour bar. Text uses a TrueType font: --font, $SGTAB_FONT, DejaVu Sans or Liberation Sans where they usually are, or what fc-match names."
    )]
    Plot {
        /// The .sgt table file
        file: PathBuf,
        /// The picture to write, .svg or .png (written atomically)
        #[arg(short, long)]
        out: PathBuf,
        /// Size in pixels, WIDTHxHEIGHT
        #[arg(long, default_value = "1000x600", value_parser = parse_size)]
        size: (u32, u32),
        /// TrueType font for the text
        #[arg(long)]
        font: Option<PathBuf>,
        /// Only the indexes A..B, both included (a heat map: its rows, e.g. x on a board)
        #[arg(long, value_name = "A..B")]
        range: Option<String>,
        /// For a rule with a saltus s and period p: plot g(n) - s*floor((n - pre)/p) past the
        /// pre-period, so that the repeating shape shows instead of a diagonal
        #[arg(long)]
        detrend: bool,
    },
    /// Make a table of values another program computed: sgtab's rules, show, plot, export and
    /// `sgq value import:NAME` then serve a game written in any language
    #[command(
        after_help = "FILE holds one value a line in index order, or `index value` lines in any order (an OEIS b-file is of this form); blank lines and lines starting with # are skipped. A position (p1, ..., pk) of a shape D1x...xDk is index ((p1*D2 + p2)*D3 + p3)... Bad lines are refused with their line number; the table is written only when every line is good."
    )]
    Import {
        /// The values: a text file, or - for standard input
        file: PathBuf,
        /// The game's name (letters, digits, _ - .): the table is import:NAME, in NAME.sgt
        #[arg(long)]
        name: String,
        /// The shape of the positions: N (0 to N-1) or D1xD2x... (default: N, as many as the values)
        #[arg(long, value_parser = parse_shape)]
        shape: Option<games::Dims>,
        /// Directory to write the table into (created if missing)
        #[arg(short, long, default_value = "tables")]
        out: PathBuf,
    },
    /// Write a legal judge input for `sgq` (deterministic for a given seed) to stdout: a few MB by
    /// default, about half its cases won by the second player, so an answer's both branches are tested
    Gen {
        /// snim, chess, lasker, stones or funny
        problem: String,
        /// Seed of the generator
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Test cases: lasker 1 to 100 (default 10), chess 1 to 10^9 (default 100), snim move
        /// sets 1 to 10^9 (default 100), stones lines 1 to 10^9 (default 100000), funny games 1
        /// to 10^9 (default 10000)
        #[arg(long)]
        cases: Option<u64>,
        /// Per case: heaps (lasker, 1 to 10^6, default 50000), rows (chess, 1 to 1000, default
        /// 1000), positions (snim, 1 to 100, default 100), piles (funny, 1 to 23, default a random
        /// count). Not for stones. The largest lasker input (1.05 GB): --cases 100 --per-case 1000000
        #[arg(long)]
        per_case: Option<u64>,
        /// Chess only: chips in every row, 0 to 20 (default: a random count 0..=20)
        #[arg(long)]
        chips: Option<u32>,
    },
}

/// Writes `table` to `path` (atomically); the file's size.
fn write_table(table: &Table, path: &Path) -> Result<u64> {
    format::write(table, path).map_err(|e| fail!("cannot write {}: {e}", path.display()))?;
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
        say_error(&format!("standard output is closed, so {what} would be lost; give sgtab somewhere to write it"));
        return ExitCode::FAILURE;
    }
    if let Command::Diff { a, b } = &cli.command {
        return diff(a, b);
    }
    let result = match cli.command {
        Command::Diff { .. } => unreachable!("answered above"),
        Command::Build { specs, backend, out, timings, prove, max, from, script } => {
            build(&specs, &from, script, backend.into(), &out, timings, prove.then_some(max))
        }
        Command::Verify { files, backend, script } => verify(&files, script, backend.into()),
        Command::Show { file, values, rows } => show(&file, values, rows),
        Command::Dump { file, format, range, out } => dump(&file, format, range.as_deref(), out.as_deref()),
        Command::Export { file, lang, out, max_bytes, name } => export(&file, lang, out.as_deref(), max_bytes, &name),
        Command::Plot { file, out, size, font, range, detrend } => plot(&file, &out, size, font.as_deref(), range.as_deref(), detrend),
        Command::Import { file, name, shape, out } => import(&file, &name, shape, &out),
        Command::Gen { problem, seed, cases, per_case, chips } => generate(&problem, seed, Size { cases, per_case, chips }),
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

/// A command line clap refused, in one line with the pointer to `--help`; `--help` and
/// `--version` themselves print in full.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
        // Help asked for is printed in full; a stdout that fails takes the exit status with it.
        return match write!(io::stdout().lock(), "{}", e.render()) {
            Ok(()) if e.exit_code() == 0 => ExitCode::SUCCESS,
            _ => ExitCode::from(2),
        };
    }
    say_error(&one_line(&e.render().to_string()));
    ExitCode::from(2)
}

/// clap's message in one line: its first line, and the possible values or tip it adds on the
/// lines below, without the usage and the "For more information" line, then where help is.
fn one_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"));
    let first = lines.next().unwrap_or("bad command line").trim_start_matches("error: ").to_string();
    let rest: Vec<&str> = lines.collect();
    let mut line = first;
    if !rest.is_empty() {
        let rest: Vec<&str> = rest.iter().map(|l| l.trim_start_matches('[').trim_end_matches(']')).collect();
        line.push_str(&format!(" ({})", rest.join("; ")));
    }
    line.push_str("; see `sgtab --help`");
    line
}

impl Command {
    /// What the command prints on stdout, for the error when stdout is closed; `None` for a
    /// command that prints nothing there (its output goes to a file).
    fn prints(&self) -> Option<&'static str> {
        match self {
            Command::Build { .. } => Some("the report of what was built"),
            Command::Verify { .. } => Some("the verdicts"),
            Command::Show { .. } => Some("the table's description"),
            Command::Dump { out: None, .. } => Some("the values"),
            Command::Diff { .. } => Some("the comparison"),
            Command::Dump { out: Some(_), .. } => None,
            Command::Import { .. } => Some("the report of what was written"),
            Command::Export { out: None, .. } => Some("the source"),
            Command::Export { out: Some(_), .. } | Command::Plot { .. } => None,
            Command::Gen { .. } => Some("the judge input"),
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

mod show;
use show::show;

/// The error a failed write to stdout ends the command with. A reader that went away (a broken
/// pipe, `sgtab dump T | head`) ends it with status 1 and no message, as `sgq` does: what was
/// not written is lost, but saying so would only be noise. Anything else (a full disk) is one
/// line.
fn stdout_error(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe { Failure::Said } else { fail!("cannot write output: {e}") }
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
    let mut games = Vec::new();
    for s in specs {
        games.push(match games::stored::Script::parse(s) {
            Some(parsed) => script_game(parsed.map_err(|e| e.to_string())?, script)?,
            None => GameSpec::parse(s).map_err(|e| e.to_string())?,
        });
    }
    for file in from {
        let table = read(file)?;
        games.push(runnable(&table.spec, script).map_err(|e| format!("{}: {e}", file.display()))?);
    }
    Ok(games)
}

/// A script's game, ready to build.
#[cfg(feature = "lua")]
fn script_game(script: games::stored::Script, args: ScriptArgs) -> Result<GameSpec> {
    Ok(sgtab::lua::LuaGame::open(script, args.limits()).map(GameSpec::new).map_err(|e| e.0)?)
}

#[cfg(not(feature = "lua"))]
fn script_game(script: games::stored::Script, _: ScriptArgs) -> Result<GameSpec> {
    Err(fail!("{}: this sgtab was built without the `lua` feature, so it cannot run scripts", script.canonical()))
}

/// A table's game as one that can be computed again: a script's game runs its stored script;
/// an imported table's cannot be recomputed.
fn runnable(spec: &GameSpec, args: ScriptArgs) -> Result<GameSpec> {
    // A game with a source runs already; a stored game (read back from its file) runs its script.
    let Some(stored) = spec.stored().filter(|_| spec.source().is_none()) else { return Ok(spec.clone()) };
    match stored.script() {
        Some(script) => {
            let game = script_game(script.clone(), args)?;
            let now = game.stored().map(|s| s.dims);
            if now != Some(stored.dims) {
                let shape = now.map_or("no shape".to_string(), |d| format!("the shape {}", d.text()));
                return Err(fail!("its script now gives {shape}, the table has {}", stored.dims.text()));
            }
            Ok(game)
        }
        None => Err(fail!("{spec} holds values imported from another program; sgtab cannot recompute them (only its checksum and header were checked)")),
    }
}

fn describe_rule(table: &Table) -> String {
    match table.rule {
        None => "no rule".to_string(),
        Some(r) if r.proven => match table.spec.theorem(&r) {
            Some(t) => r.to_string().replace("(proven)", &format!("(proven by {})", t.name)),
            None => r.to_string(),
        },
        Some(r) => r.to_string(),
    }
}

fn build(specs: &[String], from: &[PathBuf], script: ScriptArgs, backend: Backend, out: &Path, show_timings: bool, prove: Option<u64>) -> Result<()> {
    let specs = parse_specs(specs, from, script)?;
    // Where no theorem can prove a game's rules, growing its table could never end in a proof.
    if let Some((spec, why)) = prove.and_then(|_| specs.iter().find_map(|s| sgtab::build::why_unprovable(s).map(|w| (s, w)))) {
        return Err(fail!("--prove cannot prove a rule of {spec}: {why}; build it without --prove"));
    }
    // A --max below a table's own length would build the table and then report a limit it
    // already passed: refuse it before any work.
    if let Some((spec, max)) = prove.and_then(|max| specs.iter().find(|s| s.len() > max).map(|s| (s, max))) {
        return Err(fail!(
            "--max {max} is below the {} entries of {spec}: --prove grows a table from its own length; give --max {} or more, or a shorter table",
            spec.len(),
            spec.len()
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut timings = Timings::default();
    let engines = Engines::new(backend).with_threads(script.threads.map(|t| t as usize));
    for spec in specs {
        let start = Instant::now();
        let progress = Progress::new(format!("building {spec}"));
        let built = match prove {
            None => sgtab::build::build(&engines, &spec, &progress, &mut timings).map(|b| (b, None)),
            Some(max) => sgtab::build::prove(&engines, &spec, max, &progress, &mut timings).map(|(b, p)| (b, Some(p))),
        };
        print_notes(&engines);
        // A script's errors name its game already.
        let (built, proof) = built.map_err(|e| if e.0.starts_with(&spec.to_string()) { e.0 } else { format!("{spec}: {e}") })?;
        progress.finish();
        let (table, engine) = (built.table, built.engine);
        let spec = table.spec.clone();
        match proof {
            Some(Proof::Proven { theorem, len }) => {
                // How many entries the proof needed, where the table is longer than that.
                let needs = table.rule.and_then(|r| spec.theorem(&r)).map(|t| t.needs).filter(|&n| n < len);
                match needs {
                    Some(n) => out!("{spec}: rule proven by {theorem} with {len} entries (the theorem needs {n})"),
                    None => out!("{spec}: rule proven by {theorem} with {len} entries"),
                }
            }
            Some(Proof::NotProven { max }) => {
                out!("{spec}: rule not proven by {max} entries (--max); {}", describe_rule(&table))
            }
            None => {}
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
            describe_rule(&table),
            start.elapsed().as_secs_f64()
        );
        if show_timings {
            let width = timings.phases.iter().map(|(p, _)| p.chars().count()).max().unwrap_or(0).max(24);
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
        format::ReadError::Bad(_) => format!("{}: {e}; rebuild it with `sgtab build`", file.display()),
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
            let game = runnable(&table.spec, script).map_err(|e| format!("{}: {e}", file.display()))?;
            let progress = Progress::new(format!("recomputing {}", table.spec));
            let computed = engines.compute(&game, &progress, &mut timings);
            print_notes(&engines);
            let (fresh, engine) = computed.map_err(|e| format!("{}: {e}", file.display()))?;
            progress.finish();
            if let Some(i) = table.values.first_difference(&fresh) {
                let (a, b) = (table.values.get(i), fresh.get(i));
                return Err(fail!("{}: MISMATCH at index {i}: the file holds {a}, {engine} computes {b}", file.display()));
            }
            let fresh = Table::new(table.spec.clone(), fresh);
            if fresh.rule != table.rule || fresh.values.bits() != table.values.bits() {
                return Err(fail!(
                    "{}: MISMATCH: values agree but the stored rule or width differs from a fresh build ({})",
                    file.display(),
                    describe_rule(&fresh)
                ));
            }
            Ok((table, engine))
        })();
        match outcome {
            Ok((t, engine)) => out!("{}: OK ({}, {} entries, checked with {engine})", file.display(), t.spec, t.values.len()),
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
            dump::dump(&table, format, range, &mut out).and_then(|()| out.flush()).map_err(stdout_error)
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
    let compared = read(a).and_then(|ta| Ok((ta, read(b)?))).and_then(|(ta, tb)| Ok((sgtab::table::diff::diff(&ta, &tb)?, ta, tb)));
    let (d, ta, tb) = match compared {
        Ok(found) => found,
        Err(Failure::Line(e)) => {
            say_error(&e);
            return ExitCode::from(2);
        }
        Err(Failure::Said) => return ExitCode::from(2),
    };
    let mut lines = vec![if d.same_game { format!("same game: {}", ta.spec) } else { format!("different games: {} and {}", ta.spec, tb.spec) }];
    if let Some(part) = &d.partial {
        lines.push(format!("compared over {part}"));
    }
    lines.push(match &d.first {
        None => format!("equal: all {} values compared", d.compared),
        Some((at, va, vb)) => {
            format!("differ: first at {at} ({} has {va}, {} has {vb}); {} of {} values differ", a.display(), b.display(), d.differences, d.compared)
        }
    });
    if ta.rule != tb.rule {
        let rule = |t: &Table| t.rule.map_or("none".to_string(), |r| r.to_string());
        lines.push(format!("rules: {} and {}", rule(&ta), rule(&tb)));
    }
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
    let problem = Problem::parse(problem).ok_or_else(|| format!("unknown problem `{problem}`; expected snim, chess, lasker, stones or funny"))?;
    size.check(problem)?;
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    sgtab::judge::generate::generate(problem, seed, size, &mut out).and_then(|_| out.flush()).map_err(stdout_error)
}

fn export(file: &Path, lang: LangArg, out: Option<&Path>, max_bytes: u64, name: &str) -> Result<()> {
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
    Ok(sgtab::output::write_bytes(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?)
}

/// `N` or `D1xD2x...` (`×` too): the sizes of a shape.
fn parse_shape(text: &str) -> std::result::Result<games::Dims, String> {
    let sizes: std::result::Result<Vec<u64>, _> = text.split(['x', 'X', '×']).map(|s| s.trim().parse::<u64>()).collect();
    let sizes = sizes.map_err(|_| format!("`{text}` is not a shape: N, or sizes joined by x (8x8, 3x4x5)"))?;
    games::Dims::new(&sizes, games::stored::MAX_POSITIONS)
}

/// Reads another program's values into the table `import:NAME` and writes it to `out`.
fn import(file: &Path, name: &str, shape: Option<games::Dims>, out: &Path) -> Result<()> {
    let game = games::stored::Stored::imported(name, games::Dims::new(&[1], 1).expect("one position")).map_err(|e| format!("--name: {e}"))?;
    let shown = if file == Path::new("-") { "standard input".to_string() } else { file.display().to_string() };
    let imported = if file == Path::new("-") {
        table::import::read_values(io::stdin().lock(), &shown, shape)
    } else {
        let (f, _) = sgtab::output::open_regular(file).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidInput => format!("cannot read {shown}: {e}; pipe values in with `sgtab import - ...`"),
            _ => format!("cannot read {shown}: {e}"),
        })?;
        table::import::read_values(io::BufReader::with_capacity(1 << 16, f), &shown, shape)
    }?;
    let spec = GameSpec::new(games::stored::Stored { dims: imported.dims, ..game });
    let table = Table::new(spec.clone(), imported.values);
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let path = out.join(spec.file_name());
    // A file of that name holding another game's table is that game's: keep it.
    if path.exists() {
        match format::read_expecting(&path, &spec.canonical()) {
            Ok(_) => {}
            Err(format::ReadError::OtherGame(other)) => return Err(fail!("{} holds {other}, not {spec}; choose another --name or --out", path.display())),
            Err(e) => return Err(fail!("{} is there and is not a table of {spec} ({e}); move it away or choose another --out", path.display())),
        }
    }
    let size = write_table(&table, &path)?;
    out!(
        "wrote {} ({size} bytes, {spec}, shape {}, {} entries, {} bits each, {})",
        path.display(),
        imported.dims.text(),
        table.values.len(),
        table.values.bits(),
        describe_rule(&table)
    );
    Ok(())
}

fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("`{text}` is not WIDTHxHEIGHT, e.g. 1000x600");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?))
}

fn plot(file: &Path, out: &Path, size: (u32, u32), font: Option<&Path>, range: Option<&str>, detrend: bool) -> Result<()> {
    use sgtab::plot;
    let format = plot::Format::from_path(out)?;
    let range = range.map(sgtab::dump::parse_range).transpose()?;
    let table = read(file)?;
    plot::use_font(font)?;
    let bytes = plot::plot(&table, format, size, plot::Options { range, detrend })?;
    write_output(Some(out), &bytes)
}
