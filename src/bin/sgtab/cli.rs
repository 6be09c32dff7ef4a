//! The command line: every subcommand, its flags and their help, and a refused command line
//! in one line.

use clap::{Parser, Subcommand};
use sgtab::engine::Backend;
use sgtab::games;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::say_error;

#[derive(Parser)]
#[command(name = "sgtab", version, about = "Sprague-Grundy tables of impartial games: build them \
    (GPU, SIMD or scalar), check them, look inside them", long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// How scripts' games run (`lua:PATH` specs, and tables made from scripts).
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct ScriptArgs {
    /// Threads for games given by their moves (scripts): default every core
    #[arg(long, value_parser = u64s(1..=1024))]
    pub(crate) threads: Option<u64>,
    /// Memory each Lua interpreter (one a thread) may hold, in MiB
    #[arg(long, default_value_t = 256, value_name = "MIB", value_parser = u64s(1..=1 << 20))]
    pub(crate) lua_memory: u64,
    /// Seconds one call of a script's function (or a native game's position) may run before it
    /// is stopped (an endless loop)
    #[arg(long, default_value_t = 10, value_name = "S", value_parser = u64s(1..=1 << 30))]
    pub(crate) lua_seconds: u64,
    /// Compile and run the C++ source a table carries (verify, build --from): native code runs
    /// unsandboxed, so a table never runs it unasked
    #[arg(long)]
    pub(crate) allow_native: bool,
}

impl ScriptArgs {
    pub(crate) fn native(&self) -> sgtab::native::Limits {
        sgtab::native::Limits { seconds: self.lua_seconds }
    }

    #[cfg(feature = "lua")]
    pub(crate) fn limits(&self) -> sgtab::lua::Limits {
        sgtab::lua::Limits { memory: self.lua_memory << 20, seconds: self.lua_seconds }
    }
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Build tables and write them as .sgt files into a directory (no SPEC: every default table)
    #[command(after_help = format!("SPEC is one of: {}.\nDefaults: chess:20, lasker:1024, \
        sub:1,3,9:1024, funny:32.\nEach game is built by the engine asked for where it has one; \
        the line written for each table says which engine built it. A table is named after its \
        spec (chess-20.sgt) and written atomically; a file of that name is replaced only when it \
        is a table of the same game.", buildable_specs()))]
    Build {
        /// Game specs, e.g. chess:24 sub:1,3,9 lasker funny:40 lua:game.lua:N=100
        #[arg(value_name = "SPEC")]
        specs: Vec<String>,
        /// Engine to compute with
        #[arg(long, value_enum, default_value = "auto")]
        backend: Backend,
        #[command(flatten)]
        dir: DirArgs,
        /// Report the time of each step: the GPU's device set-up, upload, kernel and readback,
        /// each kernel and rule search of a growing build, the file write
        #[arg(long)]
        timings: bool,
        /// Grow each table (from its N) until its rule is proven by its game's theorem, or
        /// until --max entries, and say which happened
        #[arg(long)]
        prove: bool,
        /// With --prove: the most entries to grow a table to (at least the N of each SPEC)
        #[arg(long, default_value_t = 1 << 27, requires = "prove")]
        #[arg(value_parser = u64s(1..=sgtab::spec::MAX_LEN))]
        max: u64,
        /// Rebuild the game of these table files (a script's table carries its script)
        #[arg(long, value_name = "FILE.sgt")]
        from: Vec<PathBuf>,
        /// Build each table on a second engine too and compare every value before writing (a
        /// GPU table against the SIMD engine, a SIMD one against the reference, a script's
        /// against one thread): exit 1 at the first difference, nothing written
        #[arg(long)]
        cross_check: bool,
        #[command(flatten)]
        script: ScriptArgs,
    },
    /// Check tables: checksum and header, then recompute every value and compare
    #[command(after_help = "A script's table is recomputed by running the script it carries. An \
            imported table's values came from another program, so only its checksum, header and \
            rule are checked, and the line says so. Exit status: 0 when every file holds, 1 when \
            one does not (each file gets its line).")]
    Verify {
        /// The .sgt table files to check, one line of verdict each
        #[arg(value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Engine to recompute with
        #[arg(long, value_enum, default_value = "scalar")]
        backend: Backend,
        #[command(flatten)]
        script: ScriptArgs,
    },
    /// Show a table: its header, rule in words, rare values, how often each value occurs, and its
    /// first values
    Show {
        /// The .sgt table file
        file: PathBuf,
        /// How many values to show (default 32); for a board or a game of several axes, the
        /// side of the corner shown as a grid (default 12)
        #[arg(long, value_name = "N")]
        values: Option<u64>,
        /// For a board or any game of two or more axes (queen, rook, king, a script's or an
        /// imported k-D table): the rule found along the last axis in each of the first K rows
        #[arg(long, value_name = "K")]
        rows: Option<u64>,
    },
    /// Compare two tables: the same game or not, then their values position by position
    #[command(
        after_help = "Tables of different lengths are compared over the entries both have, boards \
            of different sides over the common square, k-D tables over the common box; the line \
            says so. Exit status: 0 when the values are equal (and cover the same positions), 1 \
            when they differ or one table has positions the other lacks, 2 when a table cannot be \
            read or the two cannot be compared."
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
        format: sgtab::dump::Format,
        /// Only the indexes A..B, both included (for a board or a k-D game, of its first axis)
        #[arg(long, value_name = "A..B")]
        range: Option<String>,
        /// Write to this file instead of to stdout (atomically: nothing half-written)
        #[arg(short, long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Write a table as one source file (C, C++, Rust or Python) defining sg(n) (sg(x, y) on a
    /// board, sg(p1, ..., pk) for a k-D game), values bit-packed in a string literal
    #[command(
        after_help = "Where the table has a rule, only g(0..pre+period) is stored and the rule \
            gives the rest; the function's comment says whether the rule is proven. Without a \
            rule, every value is stored and sg stops the program past the table. A board's or k-D \
            game's sg takes one argument a coordinate, each checked against its size; past it, sg \
            stops the program too."
    )]
    Export {
        /// The .sgt table file
        file: PathBuf,
        /// Language of the source
        #[arg(long, value_enum)]
        lang: sgtab::export::Lang,
        /// Write to this file instead of to stdout (atomically: nothing half-written)
        #[arg(short, long, value_name = "FILE")]
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
        after_help = "A heap game: points, or when the table is longer than twice the plot's \
            width in pixels, a pale bar per pixel column from its least to its largest value and \
            a dark one over the middle half of its values; the pre-period ended by a red line and \
            one period shaded. A chess row, board or k-D game: a heat map (high bits of the row, \
            x, or the first axis down), each entry a whole number of pixels, or each pixel the \
            mean of a whole block of entries (the title says how many), with a colour bar. Text \
            uses a TrueType font: --font, $SGTAB_FONT, DejaVu Sans or Liberation Sans where they \
            usually are, or what fc-match names."
    )]
    Plot {
        /// The .sgt table file
        file: PathBuf,
        /// The picture to write, .svg or .png (written atomically)
        #[arg(short, long, value_name = "FILE")]
        out: PathBuf,
        /// Size in pixels, WIDTHxHEIGHT
        #[arg(long, default_value = "1000x600", value_parser = parse_size)]
        size: (u32, u32),
        /// TrueType font for the text
        #[arg(long, value_name = "FILE.ttf")]
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
        after_help = "FILE holds one value a line in index order, or `index value` lines in any \
            order (an OEIS b-file is of this form); blank lines and lines starting with # are \
            skipped. A position (p1, ..., pk) of a shape D1x...xDk is index ((p1*D2 + p2)*D3 + \
            p3)... Bad lines are refused with their line number; the table is written only when \
            every line is good, and a file NAME.sgt is replaced only when it is a table of \
            import:NAME."
    )]
    Import {
        /// The values: a text file, or - for standard input
        file: PathBuf,
        /// The game's name (letters, digits, _ - .): the table is import:NAME, in NAME.sgt
        #[arg(long)]
        name: String,
        /// The shape of the positions: N (0 to N-1) or D1xD2x... (default: N, as many as the
        /// values)
        #[arg(long, value_parser = parse_shape)]
        shape: Option<games::Dims>,
        #[command(flatten)]
        dir: DirArgs,
    },
    /// Write a legal judge input for `sgq` (deterministic for a given seed) to stdout: a few MB by
    /// default, about half its cases won by the second player, so an answer's both branches are
    /// tested
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
        /// count). Not for stones. The largest lasker input (1.05 GB): --cases 100 --per-case
        /// 1000000
        #[arg(long)]
        per_case: Option<u64>,
        /// Chess only: chips in every row, 0 to 20 (default: a random count 0..=20)
        #[arg(long)]
        chips: Option<u32>,
    },
    /// Print sgtab.h, the header a C++ game includes (sgtab writes it beside each compile)
    Header,
}

/// `-d/--dir DIR`, the directory `build` and `import` write tables into. `-o/--out` names a file
/// in every other command; here it is still taken as the directory, with a note.
#[derive(clap::Args)]
pub(crate) struct DirArgs {
    /// Directory to write into (created if missing)
    #[arg(short = 'd', long = "dir", value_name = "DIR", default_value = "tables")]
    dir: PathBuf,
    /// The old spelling of --dir
    #[arg(short = 'o', long = "out", value_name = "DIR", hide = true, conflicts_with = "dir")]
    out: Option<PathBuf>,
}

impl DirArgs {
    /// The directory; the old spelling gets its one-line note on stderr (`command`: whose).
    pub(crate) fn resolve(self, command: &str) -> PathBuf {
        match self.out {
            Some(out) => {
                let _ = writeln!(
                    io::stderr().lock(),
                    "sgtab: note: `{command} -o/--out DIR` is spelled `-d/--dir DIR` now \
                        (-o/--out names an output file in every command); taken as --dir {}",
                    out.display()
                );
                out
            }
            None => self.dir,
        }
    }
}

/// The specs `build` takes, as `--help` lists them: every family but imported tables, which are
/// made by `sgtab import`, not built.
/// A whole-number flag's parser, bounded to `range`.
fn u64s(range: std::ops::RangeInclusive<u64>) -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(range)
}

fn buildable_specs() -> String {
    games::FAMILIES
        .iter()
        .filter(|f| f.name != "import")
        .map(|f| f.grammar)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A command line clap refused, in one line with the pointer to `--help`; `--help` and
/// `--version` themselves print in full.
pub(crate) fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
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
    let mut lines = text.lines().map(str::trim).filter(|l| {
        !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
    });
    let first =
        lines.next().unwrap_or("bad command line").trim_start_matches("error: ").to_string();
    let rest: Vec<&str> = lines.collect();
    let mut line = first;
    if !rest.is_empty() {
        let rest: Vec<&str> =
            rest.iter().map(|l| l.trim_start_matches('[').trim_end_matches(']')).collect();
        line.push_str(&format!(" ({})", rest.join("; ")));
    }
    line.push_str("; see `sgtab --help`");
    line
}

impl Command {
    /// What the command prints on stdout, for the error when stdout is closed; `None` for a
    /// command that prints nothing there (its output goes to a file).
    pub(crate) fn prints(&self) -> Option<&'static str> {
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
            Command::Header => Some("the header"),
        }
    }
}

impl Command {
    /// The files the command reads and where its output goes (`None`: the standard output, or
    /// nothing for a command whose only output is a file); an output may not be one of the
    /// inputs. `build` and `import` write tables into a directory, by the rule of
    /// `format::check_replaceable` instead.
    pub(crate) fn files(&self) -> (Vec<&Path>, Option<&Path>) {
        match self {
            Command::Build { from, .. } => (from.iter().map(PathBuf::as_path).collect(), None),
            Command::Verify { files, .. } => (files.iter().map(PathBuf::as_path).collect(), None),
            Command::Show { file, .. } => (vec![file], None),
            Command::Diff { a, b } => (vec![a, b], None),
            Command::Dump { file, out, .. } | Command::Export { file, out, .. } => {
                (vec![file], out.as_deref())
            }
            Command::Plot { file, out, font, .. } => {
                (std::iter::once(file).chain(font).map(PathBuf::as_path).collect(), Some(out))
            }
            Command::Import { file, .. } => {
                (if file == Path::new("-") { vec![] } else { vec![file.as_path()] }, None)
            }
            Command::Gen { .. } | Command::Header => (vec![], None),
        }
    }
}

/// `N` or `D1xD2x...` (`×` too): the sizes of a shape.
fn parse_shape(text: &str) -> std::result::Result<games::Dims, String> {
    let sizes: std::result::Result<Vec<u64>, _> =
        text.split(['x', 'X', '×']).map(|s| s.trim().parse::<u64>()).collect();
    let sizes = sizes
        .map_err(|_| format!("`{text}` is not a shape: N, or sizes joined by x (8x8, 3x4x5)"))?;
    games::Dims::new(&sizes, games::stored::MAX_POSITIONS)
}

/// `WIDTHxHEIGHT` in pixels.
fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("`{text}` is not WIDTHxHEIGHT, e.g. 1000x600");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?))
}
