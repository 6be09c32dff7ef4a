//! Two tables compared (`sgtab diff`): the same game or not, and their values position by
//! position over what both hold: the common prefix of two 1-D tables, the common square of two
//! boards, the common box of two k-D tables of as many axes.

use super::Table;
use crate::games::Positions;

/// What a comparison found.
#[derive(Debug, PartialEq, Eq)]
pub struct Diff {
    /// Both tables are of the same game (the same canonical spec).
    pub same_game: bool,
    /// Positions compared.
    pub compared: u64,
    /// Positions whose values differ.
    pub differences: u64,
    /// The first of them (in index order of the first table): the position in words, and the
    /// two values.
    pub first: Option<(String, u32, u32)>,
    /// Where the tables' extents differ: what was compared, in words ("the first 1024 entries",
    /// "the common 8×8 square").
    pub partial: Option<String>,
}

impl Diff {
    /// Whether the values are all equal and cover the same positions.
    pub fn equal(&self) -> bool {
        self.differences == 0 && self.partial.is_none()
    }
}

impl Diff {
    /// What `sgtab diff` prints for this comparison of `a` and `b` (named `a_name` and `b_name`
    /// in the line of the first difference), one line each: the games, what was compared where
    /// the extents differ, equal or the first difference and the count, and the rules where
    /// they differ.
    pub fn report(&self, a: &Table, b: &Table, a_name: &str, b_name: &str) -> Vec<String> {
        let mut lines = vec![if self.same_game {
            format!("same game: {}", a.spec)
        } else {
            format!("different games: {} and {}", a.spec, b.spec)
        }];
        if let Some(part) = &self.partial {
            lines.push(format!("compared over {part}"));
        }
        let of = |n: u64| if n == 1 { "1 value".to_string() } else { format!("{n} values") };
        lines.push(match &self.first {
            None if self.compared == 1 => "equal: the 1 value compared".to_string(),
            None => format!("equal: all {} compared", of(self.compared)),
            Some((at, va, vb)) => {
                let verb = if self.differences == 1 { "differs" } else { "differ" };
                format!(
                    "differ: first at {at} ({a_name} has {va}, {b_name} has {vb}); {} of {} {verb}",
                    self.differences,
                    of(self.compared)
                )
            }
        });
        if a.rule != b.rule {
            let rule = |t: &Table| t.rule.map_or("none".to_string(), |r| r.to_string());
            lines.push(format!("rules: {} and {}", rule(a), rule(b)));
        }
        lines
    }
}

/// Compares `a` and `b`; an error where their positions cannot be matched (a board against a
/// heap table, boxes of different numbers of axes).
pub fn diff(a: &Table, b: &Table) -> Result<Diff, String> {
    let same_game = a.spec.to_string() == b.spec.to_string();
    // Each table's extent as sizes of its axes, row-major.
    let axes = |t: &Table| -> Vec<u64> {
        match t.spec.positions() {
            Positions::Board { n } => vec![n, n],
            Positions::Grid(dims) => dims.sizes().to_vec(),
            Positions::Heap | Positions::Row { .. } => vec![t.values.len()],
        }
    };
    let (da, db) = (axes(a), axes(b));
    if da.len() != db.len() {
        let axes = |n: usize| if n == 1 { "1 axis".to_string() } else { format!("{n} axes") };
        return Err(format!(
            "cannot compare {} ({}) with {} ({}): their positions do not match",
            a.spec,
            axes(da.len()),
            b.spec,
            axes(db.len())
        ));
    }
    let common: Vec<u64> = da.iter().zip(&db).map(|(&x, &y)| x.min(y)).collect();
    let partial = (da != db).then(|| match (a.spec.positions(), common.len()) {
        (Positions::Board { .. }, _) => format!(
            "the common {}×{} square (the boards are {}×{} and {}×{})",
            common[0], common[1], da[0], da[1], db[0], db[1]
        ),
        (_, 1) if common[0] == 1 => {
            format!("the first entry (the tables have {} and {})", da[0], db[0])
        }
        (_, 1) => {
            format!("the first {} entries (the tables have {} and {})", common[0], da[0], db[0])
        }
        _ => {
            let text = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join("×");
            format!(
                "the common box {} (the tables are {} and {})",
                text(&common),
                text(&da),
                text(&db)
            )
        }
    });
    let index =
        |sizes: &[u64], point: &[u64]| point.iter().zip(sizes).fold(0, |i, (&p, &d)| i * d + p);
    let total: u64 = common.iter().product();
    let (mut differences, mut first) = (0, None);
    let mut point = vec![0u64; common.len()];
    for _ in 0..total {
        let (va, vb) = (a.values.get(index(&da, &point)), b.values.get(index(&db, &point)));
        if va != vb {
            differences += 1;
            if first.is_none() {
                let at = match (a.spec.positions(), point.len()) {
                    (Positions::Row { .. }, _) => format!("row {}", point[0]),
                    (_, 1) => format!("n = {}", point[0]),
                    _ => format!(
                        "({})",
                        point.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
                    ),
                };
                first = Some((at, va, vb));
            }
        }
        // The next point of the common box, row-major.
        for (p, &d) in point.iter_mut().zip(&common).rev() {
            *p += 1;
            if *p < d {
                break;
            }
            *p = 0;
        }
    }
    Ok(Diff { same_game, compared: total, differences, first, partial })
}
