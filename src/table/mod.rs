//! Tables: values with the game they belong to and the rule found in them, and the `.sgt`
//! file format that stores them.

pub mod format;
pub mod packed;
pub mod rule;

pub use packed::Packed;
pub use rule::Rule;

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

    /// g(n) for any n: from the table below its length, from the rule beyond it (`None` past
    /// the table without a rule, or where the rule's value would not fit in 64 bits).
    pub fn value(&self, n: u64) -> Option<u64> {
        if n < self.values.len() {
            return Some(self.values.get(n) as u64);
        }
        // As Rule::extend, but checked: a rule from a file may have any saltus.
        let r = self.rule?;
        let past = n.checked_sub(r.pre)?;
        let (k, i) = (past.checked_div(r.period)?, r.pre + past % r.period);
        (i < self.values.len()).then_some(())?;
        (self.values.get(i) as u64).checked_add(k.checked_mul(r.saltus)?)
    }
}

/// The rule a table's values support, proven where the game has a theorem that makes the check
/// a proof. Games whose index is not a heap (chess rows) skip the search.
pub fn find_rule(spec: &GameSpec, values: &Packed) -> Option<Rule> {
    if !spec.has_rule() {
        return None;
    }
    let mut rule = Rule::find(values.len(), |i| values.get(i) as u64)?;
    rule.proven = spec.theorem(&rule).is_some_and(|t| rule.checked >= t.needs);
    Some(rule)
}
