//! Tables: values with the game they belong to and the rule found in them, and the `.sgt`
//! file format that stores them.

pub mod format;
pub mod packed;
pub mod rule;

pub use packed::Packed;
pub use rule::Rule;

use crate::games::sub;
use crate::spec::GameSpec;

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

    /// g(n) for any n: from the table below its length, from the rule beyond it.
    pub fn value(&self, n: u64) -> Option<u64> {
        if n < self.values.len() {
            return Some(self.values.get(n) as u64);
        }
        self.rule.map(|r| r.extend(n, |i| self.values.get(i) as u64))
    }
}

/// The rule a table's values support. Chess rows have none to find (no index rule makes sense
/// for a bitmask), so their tables skip the search.
pub fn find_rule(spec: &GameSpec, values: &Packed) -> Option<Rule> {
    if let GameSpec::Chess { .. } = spec {
        return None;
    }
    let mut rule = Rule::find(values.len(), |i| values.get(i) as u64)?;
    if let GameSpec::Sub { moves, .. } = spec {
        rule.proven = sub::proves_period(moves, rule.pre, rule.period, rule.saltus, rule.checked);
    }
    Some(rule)
}
