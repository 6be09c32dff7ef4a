//! Tables: values with the game they belong to and the rule found in them, and the `.sgt`
//! file format that stores them.

pub mod diff;
pub mod format;
pub mod show;

pub use crate::values::import;

use crate::spec::GameSpec;
use crate::values::{Packed, Rule};

/// A built table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub spec: GameSpec,
    pub values: Packed,
    pub rule: Option<Rule>,
}

impl Table {
    /// Wraps freshly computed values, finding their rule (and proving it where the game allows).
    pub fn new(spec: GameSpec, values: Packed) -> Table {
        assert_eq!(spec.len(), values.len());
        let rule = find_rule(&spec, &values);
        Table { spec, values, rule }
    }

    /// Its rule in words, with the theorem that proves it (`no rule` where it has none).
    pub fn rule_text(&self) -> String {
        match self.rule {
            None => "no rule".to_string(),
            Some(r) if r.proven => match self.spec.theorem(&r) {
                Some(t) => r.to_string().replace("(proven)", &format!("(proven by {})", t.name)),
                None => r.to_string(),
            },
            Some(r) => r.to_string(),
        }
    }

    /// g(n) for any n: from the table below its length, from the rule beyond it (`None` past
    /// the table without a rule, or where the rule's value would not fit in 64 bits).
    pub fn value(&self, n: u64) -> Option<u64> {
        let len = self.values.len();
        match self.rule {
            Some(r) => r.extend(n, len, |i| self.values.get(i) as u64),
            None => (n < len).then(|| self.values.get(n) as u64),
        }
    }
}

/// The table `import:NAME` of the values in `file` (`-`: standard input), in `shape` where given
/// (else one axis as long as the values), as `sgtab import` makes it.
pub fn imported(
    file: &std::path::Path,
    name: &str,
    shape: Option<crate::values::Dims>,
) -> Result<Table, String> {
    use crate::games::stored::Stored;
    use std::io;
    let one = crate::values::Dims::new(&[1], 1).expect("one position");
    let game = Stored::imported(name, one).map_err(|e| format!("--name: {e}"))?;
    let stdin = file == std::path::Path::new("-");
    let shown = if stdin { "standard input".to_string() } else { file.display().to_string() };
    let values = if stdin {
        import::read_values(io::stdin().lock(), &shown, shape)
    } else {
        let (f, _) = crate::output::open_regular(file).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidInput => {
                format!("cannot read {shown}: {e}; pipe values in with `sgtab import - ...`")
            }
            _ => format!("cannot read {shown}: {e}"),
        })?;
        import::read_values(io::BufReader::with_capacity(1 << 16, f), &shown, shape)
    }?;
    Ok(Table::new(GameSpec::new(Stored { dims: values.dims, ..game }), values.values))
}

/// The rule a table's values support, proven where the game has a theorem that makes the check
/// a proof. Games whose index is not a heap (chess rows) skip the search.
///
/// The rule is the one that starts earliest, then has the smallest period, among those the
/// values support with margin ([`Rule::find`]); where the game's theorem proves some of them,
/// the earliest-starting of those instead (a proven rule holds for ever, the others only as far
/// as they were checked).
pub fn find_rule(spec: &GameSpec, values: &Packed) -> Option<Rule> {
    find_rule_in(spec, values.len(), |i| values.get(i) as u64)
}

/// [`find_rule`] over the first `len` values given by `get`, for values not yet packed (a
/// table still growing, `crate::build`).
pub fn find_rule_in(spec: &GameSpec, len: u64, get: impl Fn(u64) -> u64) -> Option<Rule> {
    if !spec.has_rule() {
        return None;
    }
    let proves = |r: &Rule| spec.theorem(r).is_some_and(|t| r.checked >= t.needs);
    let (mut best, mut proven): (Option<Rule>, Option<Rule>) = (None, None);
    // One pass: candidates come in increasing period, so a strictly earlier start replaces.
    Rule::each(len, get, |r| {
        if best.is_none_or(|b| r.pre < b.pre) {
            best = Some(r);
        }
        if proven.is_none_or(|b| r.pre < b.pre) && proves(&r) {
            proven = Some(Rule { proven: true, ..r });
        }
    });
    proven.or(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_from_the_start_wins_over_a_stretch_that_happens_to_repeat() {
        // Period 40 from n = 0 whose block ends in 20 equal values: a table that stops at the
        // end of a block ends with 20 equal values, which period 1 supports with margin.
        let block: Vec<u32> = (0..40).map(|i| if i < 20 { i * 7 % 11 } else { 5 }).collect();
        let values: Vec<u32> = (0..400).map(|n| block[n % 40]).collect();
        let packed = Packed::from_values(&values);
        let first = Rule::find(400, |i| packed.get(i) as u64).unwrap();
        assert_eq!((first.period, first.pre, first.proven), (40, 0, false));
        assert!(
            Rule::find_where(400, |i| packed.get(i) as u64, |r| r.period == 1)
                .is_some_and(|r| r.pre == 380)
        );
        // 0.07 is a finite octal code: Guy-Smith proves period 40 from n0 = 1 by 2·1 + 2·40 + 2.
        let rule = find_rule(&GameSpec::parse("0.07:400").unwrap(), &packed).unwrap();
        assert_eq!((rule.pre, rule.period, rule.saltus, rule.proven), (0, 40, 0, true));
        // Without a theorem (a code with a tail) the same rule stands, checked only.
        assert_eq!(find_rule(&GameSpec::parse("0.0[7]:400").unwrap(), &packed), Some(first));
    }
}
