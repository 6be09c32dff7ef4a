//! What `sgtab show` prints: a table's header, its rule in words (and why it is not proven,
//! where it is not), its rare values, its first values, and the rule along each row of a board
//! or k-D game.

use super::{Table, format};
use crate::games;
use std::io::{self, Write};
use std::path::Path;

/// Why `show` stopped: a request that does not fit the table, or the output failed.
#[derive(Debug)]
pub enum ShowError {
    /// One line saying what to ask instead.
    Refused(String),
    /// Writing to the output failed (a closed pipe, a full disk).
    Io(io::Error),
}

impl From<io::Error> for ShowError {
    fn from(e: io::Error) -> ShowError {
        ShowError::Io(e)
    }
}

type Result<T> = std::result::Result<T, ShowError>;

macro_rules! out {
    ($w:expr, $($arg:tt)*) => {
        writeln!($w, $($arg)*)?
    };
}

macro_rules! fail {
    ($($arg:tt)*) => {
        ShowError::Refused(format!($($arg)*))
    };
}

/// Describes `table`, read from `file`, on `w`: its first `count` values (or corner), and with
/// `rows` the rule along each of the first rows.
pub fn show(
    table: &Table,
    file: &Path,
    count: Option<u64>,
    rows: Option<u64>,
    w: &mut dyn Write,
) -> Result<()> {
    if rows.is_some()
        && !matches!(
            table.spec.positions(),
            games::Positions::Board { .. } | games::Positions::Grid(_)
        )
    {
        return Err(fail!(
            "--rows is for boards and games of several axes (queen, rook, king, a script's k-D \
                game); {} is not one",
            table.spec
        ));
    }
    let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    let version = match format::version_of(file) {
        Some(v) if v < format::VERSION => {
            format!("format version {v}, its rule found again on reading")
        }
        Some(v) => format!("format version {v}"),
        None => "format version unknown".to_string(),
    };
    out!(w, "file:     {} ({size} bytes, {version})", file.display());
    out!(w, "game:     {}", table.spec);
    if let Some(stored) = table.spec.stored() {
        match (stored.script(), &stored.origin) {
            (Some(script), _) if script.lang == games::stored::Lang::Cpp => out!(
                w,
                "source:   {}, C++, hash {} ({} bytes, stored in the file, compiled against \
                    sgtab.h version {}; `sgtab verify --allow-native` compiles and runs it \
                    again), parameters: {}",
                script.file(),
                script.hash(),
                script.text.len(),
                script.header,
                script.params_text()
            ),
            (Some(script), _) => out!(
                w,
                "script:   {}, hash {} ({} bytes, stored in the file; `sgtab verify` runs it \
                    again), parameters: {}",
                script.file(),
                script.hash(),
                script.text.len(),
                script.params_text()
            ),
            (None, games::stored::Origin::Library(_)) => {
                out!(
                    w,
                    "library:  values computed by a shared library (native:), which the file does \
                        not carry: no definition to recompute them from"
                )
            }
            (None, _) => out!(
                w,
                "import:   values imported by `sgtab import` (no definition to recompute them from)"
            ),
        }
    }
    if let games::Positions::Grid(dims) = table.spec.positions() {
        let point: Vec<String> = (1..=dims.axes()).map(|i| format!("p{i}")).collect();
        out!(
            w,
            "shape:    {} (position ({}) is index {})",
            dims.sizes().iter().map(u64::to_string).collect::<Vec<_>>().join("×"),
            point.join(", "),
            dims.formula()
        );
    }
    out!(w, "entries:  {}", table.values.len());
    out!(w, "bits:     {} per value (largest value {})", table.values.bits(), table.values.max());
    out!(w, "rule:     {}", table.rule_text());
    if let Some(r) = table.rule {
        out!(w, "margin:   {}", describe_margin(&r));
    }
    if let Some(why) = why_unproven(table) {
        out!(w, "proof:    {why}");
    }
    out!(w, "rare:     {}", describe_rare(table));
    for line in histogram(table) {
        out!(w, "{line}");
    }
    match corner_of(table) {
        Some((across, down)) => {
            let side = count.unwrap_or(CORNER);
            for line in corner(table, across, down, side) {
                out!(w, "{line}");
            }
        }
        None => {
            let count = count.unwrap_or(32);
            let shown: Vec<String> =
                table.values.iter().take(count as usize).map(|v| v.to_string()).collect();
            let more = if table.values.len() > count { " ..." } else { "" };
            out!(w, "values:   {}{more}", shown.join(" "));
        }
    }
    if let Some(rows) = rows {
        show_rows(table, rows, w)?;
    }
    Ok(())
}

/// How far past its start a rule was checked, in values and in periods, against the margin a
/// rule must have to be taken (so the reader sees which counts values and which periods).
fn describe_margin(r: &crate::values::Rule) -> String {
    let (past, need) = (r.checked - r.pre, crate::values::rule::margin(r.period));
    let why = if need == 3 * r.period { "three periods" } else { "one period and 16 values more" };
    format!(
        "checked over the {past} values from n = {} to the table's end, {:.1} periods of {} \
            values; a rule must hold over at least {need} values here ({why})",
        r.pre,
        past as f64 / r.period as f64,
        r.period
    )
}

/// Why a table's rule is not proven, where it has one that is not.
fn why_unproven(table: &Table) -> Option<String> {
    let rule = table.rule.filter(|r| !r.proven)?;
    if let Some(t) = table.spec.theorem(&rule) {
        // --prove grows a table from its own length, so the same spec is the command.
        let base = &table.spec;
        return Some(format!(
            "not yet: {} proves this rule once it is checked to n = {} (this table reaches n = \
                {}); `sgtab build {base} --prove` grows the table until it is",
            t.name,
            t.needs.saturating_sub(1),
            rule.checked - 1
        ));
    }
    let why = table
        .spec
        .no_theorem(&rule)
        .unwrap_or("this game has no theorem that proves a rule, so the rule is checked only");
    Some(format!("not proven: {why}"))
}

/// Values shown at most in the `rare:` line.
const RARE_SHOWN: usize = 16;

/// The most of a table's entries, in percent, that values may hold and be called rare: a split
/// whose rare values hold more (half the table, as every split of some tables does) is no rare
/// set, and `show` says so instead of listing them.
const RARE_PERCENT: u64 = 10;

/// The side of a board's corner shown when `--values` does not say.
const CORNER: u64 = 12;

/// Distinct values the histogram lists in full; past that, the most frequent and the largest.
const HISTOGRAM_ALL: usize = 16;

/// Largest value the histogram counts (a count and a last index a value: 16 MiB at most).
const HISTOGRAM_MAX: u32 = 1 << 20;

/// For a board or a game of two or more axes: the sizes of its last two axes (across, down),
/// the corner shown being the slice where every other coordinate is 0.
fn corner_of(table: &Table) -> Option<(u64, u64)> {
    match table.spec.positions() {
        games::Positions::Board { n } => Some((n, n)),
        games::Positions::Grid(dims) if dims.axes() >= 2 => {
            let s = dims.sizes();
            Some((s[s.len() - 1], s[s.len() - 2]))
        }
        _ => None,
    }
}

/// The top-left `side`×`side` corner of a board (or of a k-D game's first slice across its last
/// two axes) as a grid of aligned columns.
fn corner(table: &Table, across: u64, down: u64, side: u64) -> Vec<String> {
    let (w, h) = (side.min(across), side.min(down));
    let (first, second) = match table.spec.positions() {
        games::Positions::Board { .. } => ("x", "y"),
        _ => ("second-last coordinate", "last coordinate"),
    };
    let slice = if matches!(table.spec.positions(), games::Positions::Grid(d) if d.axes() > 2) {
        ", the other coordinates 0"
    } else {
        ""
    };
    let cells: Vec<Vec<String>> = (0..h)
        .map(|r| (0..w).map(|c| table.values.get(r * across + c).to_string()).collect())
        .collect();
    let width = cells
        .iter()
        .flatten()
        .map(String::len)
        .max()
        .unwrap_or(1)
        .max(w.saturating_sub(1).to_string().len());
    let label = h.saturating_sub(1).to_string().len();
    let more = if w < across || h < down { format!(" of {down}×{across}") } else { String::new() };
    let mut lines =
        vec![format!("values:   the corner {h}×{w}{more}: {first} down, {second} across{slice}")];
    let head: Vec<String> = (0..w).map(|c| format!("{c:>width$}")).collect();
    lines.push(format!("          {:>label$}   {}", "", head.join(" ")));
    for (r, row) in cells.iter().enumerate() {
        let row: Vec<String> = row.iter().map(|v| format!("{v:>width$}")).collect();
        lines.push(format!("          {r:>label$} | {}", row.join(" ")));
    }
    lines
}

/// Index `i` of `table` as a position in words: `7`, `(3, 4)` on a board or in k-D.
fn at(table: &Table, i: u64) -> String {
    match table.spec.positions() {
        games::Positions::Board { n } => format!("({}, {})", i / n, i % n),
        games::Positions::Grid(dims) => dims.name(i),
        _ => i.to_string(),
    }
}

/// How often each value occurs and where last: every value where there are few, else the
/// smallest, the most frequent and the largest few.
fn histogram(table: &Table) -> Vec<String> {
    let values = &table.values;
    let max = values.max();
    if max >= HISTOGRAM_MAX {
        return vec![format!(
            "counts:   not computed (values up to {max}; counted up to {HISTOGRAM_MAX})"
        )];
    }
    let mut count = vec![0u64; max as usize + 1];
    let mut last = vec![0u64; max as usize + 1];
    for (i, v) in values.iter().enumerate() {
        count[v as usize] += 1;
        last[v as usize] = i as u64;
    }
    let present: Vec<u32> = (0..=max).filter(|&v| count[v as usize] > 0).collect();
    let line =
        |v: u32| format!("{v} ×{} (last at {})", count[v as usize], at(table, last[v as usize]));
    if present.len() <= HISTOGRAM_ALL {
        let all: Vec<String> = present.iter().map(|&v| line(v)).collect();
        return vec![format!("counts:   {} values: {}", present.len(), all.join(", "))];
    }
    let mut frequent = present.clone();
    frequent.sort_by_key(|&v| (std::cmp::Reverse(count[v as usize]), v));
    let list = |vs: &[u32]| vs.iter().map(|&v| line(v)).collect::<Vec<_>>().join(", ");
    vec![
        format!(
            "counts:   {} distinct values; the most frequent: {}",
            present.len(),
            list(&frequent[..6])
        ),
        format!(
            "          the smallest: {}; the largest: {}",
            list(&present[..4]),
            list(&present[present.len() - 4..])
        ),
    ]
}

/// The rare values of a table and the mask that makes them (see [`crate::values::rare_split`]).
fn describe_rare(table: &Table) -> String {
    let Some(split) = crate::values::rare_split(&table.values) else {
        return if table.values.max() == 0 {
            "none (every value is 0)".to_string()
        } else {
            format!("not computed (values need more than {} bits)", crate::values::RARE_SPLIT_BITS)
        };
    };
    let (entries, len) = (split.rare_entries, table.values.len());
    let percent = percent(entries, len);
    if entries * 100 > len * RARE_PERCENT {
        return format!(
            "none: values are called rare when together they hold at most {RARE_PERCENT}% of the \
                entries, and the split that leaves the fewest rare (an even number of bits in \
                common with the mask {:#x}) leaves {entries} of {len} entries, {percent}",
            split.mask
        );
    }
    // The last entry holding each rare value shown, in one pass.
    let shown = &split.rare[..split.rare.len().min(RARE_SHOWN)];
    let mut last = vec![None; shown.len()];
    for (i, v) in table.values.iter().enumerate() {
        if let Ok(k) = shown.binary_search(&v) {
            last[k] = Some(i);
        }
    }
    let mut list: Vec<String> = shown
        .iter()
        .zip(&last)
        .map(|(v, i)| format!("{v} (last at {})", at(table, i.unwrap_or(0) as u64)))
        .collect();
    if split.rare.len() > RARE_SHOWN {
        list.push("...".into());
    }
    format!(
        "{} of the {} values are rare, held by {entries} of {len} entries, {percent} (rare: an \
            even number of bits in common with the mask {:#x}, which leaves the fewest entries \
            rare, and held by at most {RARE_PERCENT}% of the entries; the other values are \
            common): {}",
        split.rare.len(),
        split.distinct,
        split.mask,
        list.join(", ")
    )
}

/// `part` of `whole` in percent, to two significant digits where it is under 1% (`0.0053%`).
fn percent(part: u64, whole: u64) -> String {
    let p = 100.0 * part as f64 / whole.max(1) as f64;
    let digits = if p > 0.0 { (1 - p.log10().floor() as i32).clamp(1, 8) as usize } else { 1 };
    format!("{p:.digits$}%")
}

/// The rule along each of the first `rows` rows of a board table.
fn show_rows(table: &Table, rows: u64, w: &mut dyn Write) -> Result<()> {
    if let games::Positions::Grid(dims) = table.spec.positions() {
        return show_axis_rules(table, dims, rows, w);
    }
    let games::Positions::Board { n } = table.spec.positions() else {
        return Err(fail!(
            "--rows is for boards and games of several axes; {} is not one",
            table.spec
        ));
    };
    out!(
        w,
        "rows:     g(x, y + p) = g(x, y) + s for y >= pre, as found in each row x (checked for y \
            < {n}, not proven beyond)"
    );
    for row in games::corner::row_rules(&table.values, n, rows) {
        match row.rule {
            Some(r) => out!(
                w,
                "  row {}: pre-period {}, period {}, saltus {}",
                row.x,
                r.pre,
                r.period,
                r.saltus
            ),
            None => out!(w, "  row {}: none within {n}", row.x),
        }
    }
    Ok(())
}

/// The rule along the last axis of each of the first `rows` rows of a k-D table (a row: the
/// first k − 1 coordinates fixed, the last one the heap).
fn show_axis_rules(table: &Table, dims: games::Dims, rows: u64, w: &mut dyn Write) -> Result<()> {
    let k = dims.axes();
    let across = dims.sizes()[k - 1];
    out!(
        w,
        "rows:     g(..., y + p) = g(..., y) + s for y >= pre along the last axis, as found in \
            each row (checked for y < {across}, not proven beyond)"
    );
    let mut point = [0u64; games::MAX_AXES];
    for row in 0..rows.min(dims.len() / across) {
        dims.point(row * across, &mut point);
        let at: Vec<String> = point[..k - 1].iter().map(u64::to_string).collect();
        let rule = crate::values::Rule::find(across, |y| table.values.get(row * across + y) as u64);
        match rule {
            Some(r) => out!(
                w,
                "  row ({}, y): pre-period {}, period {}, saltus {}",
                at.join(", "),
                r.pre,
                r.period,
                r.saltus
            ),
            None => out!(w, "  row ({}, y): none within {across}", at.join(", ")),
        }
    }
    Ok(())
}
