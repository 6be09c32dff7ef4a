//! `sgtab show`: a table's header, its rule in words (and why it is not proven, where it is
//! not), its rare values, its first values, and the rule along each row of a board or k-D game.

use super::*;

pub(crate) fn show(file: &Path, count: u64, rows: Option<u64>) -> Result<()> {
    let table = read(file)?;
    if rows.is_some() && !matches!(table.spec.positions(), games::Positions::Board { .. } | games::Positions::Grid(_)) {
        return Err(fail!("--rows is for boards and games of several axes (queen, rook, king, a script's k-D game); {} is not one", table.spec));
    }
    let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    let version = match format::version_of(file) {
        Some(v) if v < format::VERSION => format!("format version {v}, its rule found again on reading"),
        Some(v) => format!("format version {v}"),
        None => "format version unknown".to_string(),
    };
    out!("file:     {} ({size} bytes, {version})", file.display());
    out!("game:     {}", table.spec);
    if let Some(stored) = table.spec.stored() {
        match stored.script() {
            Some(script) => out!(
                "script:   {}.lua, hash {} ({} bytes, stored in the file; `sgtab verify` runs it again), parameters: {}",
                script.name,
                script.hash(),
                script.text.len(),
                script.params_text()
            ),
            None => out!("import:   values imported by `sgtab import` (no definition to recompute them from)"),
        }
    }
    if let games::Positions::Grid(dims) = table.spec.positions() {
        let point: Vec<String> = (1..=dims.axes()).map(|i| format!("p{i}")).collect();
        out!(
            "shape:    {} (position ({}) is index {})",
            dims.sizes().iter().map(u64::to_string).collect::<Vec<_>>().join("×"),
            point.join(", "),
            dims.formula()
        );
    }
    out!("entries:  {}", table.values.len());
    out!("bits:     {} per value (largest value {})", table.values.bits(), table.values.max());
    out!("rule:     {}", describe_rule(&table));
    if let Some(r) = table.rule {
        let past = r.checked - r.pre;
        out!(
            "margin:   checked over the {past} values from n = {} to the table's end, {:.1} periods (a rule needs {} here)",
            r.pre,
            past as f64 / r.period as f64,
            sgtab::table::rule::margin(r.period)
        );
    }
    if let Some(why) = why_unproven(&table) {
        out!("proof:    {why}");
    }
    out!("rare:     {}", describe_rare(&table));
    let shown: Vec<String> = table.values.iter().take(count as usize).map(|v| v.to_string()).collect();
    let more = if table.values.len() > count { " ..." } else { "" };
    out!("values:   {}{more}", shown.join(" "));
    if let Some(rows) = rows {
        show_rows(&table, rows)?;
    }
    Ok(())
}

/// Why a table's rule is not proven, where it has one that is not.
fn why_unproven(table: &Table) -> Option<String> {
    let rule = table.rule.filter(|r| !r.proven)?;
    if let Some(t) = table.spec.theorem(&rule) {
        // --prove grows a table from its own length, so the same spec is the command.
        let base = &table.spec;
        return Some(format!(
            "not yet: {} proves this rule once it is checked to n = {} (this table reaches n = {}); \
             `sgtab build {base} --prove` grows the table until it is",
            t.name,
            t.needs.saturating_sub(1),
            rule.checked - 1
        ));
    }
    let why = table.spec.no_theorem(&rule).unwrap_or("this game has no theorem that proves a rule, so the rule is checked only");
    Some(format!("not proven: {why}"))
}

/// Values shown at most in the `rare:` line.
const RARE_SHOWN: usize = 24;

/// The rare values of a table and the mask that makes them (see [`table::rare_split`]).
fn describe_rare(table: &Table) -> String {
    let Some(split) = table::rare_split(&table.values) else {
        return if table.values.max() == 0 {
            "none (every value is 0)".to_string()
        } else {
            format!("not computed (values need more than {} bits)", table::RARE_SPLIT_BITS)
        };
    };
    let mut list: Vec<String> = split.rare.iter().take(RARE_SHOWN).map(|v| v.to_string()).collect();
    if split.rare.len() > RARE_SHOWN {
        list.push("...".into());
    }
    format!(
        "{} ({} rare values under bit mask {:#x}, at {} of {} entries; the other values are common)",
        list.join(" "),
        split.rare.len(),
        split.mask,
        split.rare_entries,
        table.values.len()
    )
}

/// The rule along each of the first `rows` rows of a board table.
fn show_rows(table: &Table, rows: u64) -> Result<()> {
    if let games::Positions::Grid(dims) = table.spec.positions() {
        return show_axis_rules(table, dims, rows);
    }
    let games::Positions::Board { n } = table.spec.positions() else {
        return Err(fail!("--rows is for boards and games of several axes; {} is not one", table.spec));
    };
    out!("rows:     g(x, y + p) = g(x, y) + s for y >= pre, as found in each row x (checked for y < {n}, not proven beyond)");
    for row in games::corner::row_rules(&table.values, n, rows) {
        match row.rule {
            Some(r) => out!("  row {}: pre-period {}, period {}, saltus {}", row.x, r.pre, r.period, r.saltus),
            None => out!("  row {}: none within {n}", row.x),
        }
    }
    Ok(())
}

/// The rule along the last axis of each of the first `rows` rows of a k-D table (a row: the
/// first k − 1 coordinates fixed, the last one the heap).
fn show_axis_rules(table: &Table, dims: games::Dims, rows: u64) -> Result<()> {
    let k = dims.axes();
    let across = dims.sizes()[k - 1];
    out!("rows:     g(..., y + p) = g(..., y) + s for y >= pre along the last axis, as found in each row (checked for y < {across}, not proven beyond)");
    let mut point = [0u64; games::MAX_AXES];
    for row in 0..rows.min(dims.len() / across) {
        dims.point(row * across, &mut point);
        let at: Vec<String> = point[..k - 1].iter().map(u64::to_string).collect();
        let rule = table::Rule::find(across, |y| table.values.get(row * across + y) as u64);
        match rule {
            Some(r) => out!("  row ({}, y): pre-period {}, period {}, saltus {}", at.join(", "), r.pre, r.period, r.saltus),
            None => out!("  row ({}, y): none within {across}", at.join(", ")),
        }
    }
    Ok(())
}
