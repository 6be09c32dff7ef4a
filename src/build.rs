//! A whole build, spec → engine → table, with the rules that prove themselves:
//!
//! - [`build`]: where the game has a theorem that can prove a period and the table is long,
//!   a short prefix is built first; if its rule is proven, the rest of the table is filled from
//!   the rule (exact, since it is proven) instead of computed. Kayles or Dawson's Kayles to a
//!   million heaps then cost a few thousand heaps of work.
//! - [`prove`]: grows a table until its rule is proven or a limit is reached.

use crate::engine::{Backend, EngineError, Engines, Timings};
use crate::progress::Progress;
use crate::spec::GameSpec;
use crate::table::{find_rule, Packed, Rule, Table};

/// Shortest prefix tried first, and the factor between tries.
const FIRST_PREFIX: u64 = 4096;
const GROWTH: u64 = 4;

/// A built table, the engine that computed it, and where the rule took over.
pub struct Built {
    pub table: Table,
    pub engine: Backend,
    /// Values from this index on were filled from the proven rule, not computed.
    pub filled_from: Option<u64>,
}

/// The same game with `len` entries, for families whose canonical text ends in `:N`.
pub fn resized(spec: &GameSpec, len: u64) -> Option<GameSpec> {
    let text = spec.to_string();
    let (head, _) = text.rsplit_once(':')?;
    GameSpec::parse(&format!("{head}:{len}")).ok().filter(|s| s.len() == len && s.family().name == spec.family().name)
}

/// Whether the game has a theorem that can prove a plain period at all.
fn can_prove(spec: &GameSpec) -> bool {
    spec.has_rule() && spec.theorem(&Rule { pre: 0, period: 1, saltus: 0, checked: 0, proven: false }).is_some()
}

/// Builds `spec`'s table (see the module docs).
pub fn build(engines: &Engines, spec: &GameSpec, progress: &Progress, timings: &mut Timings) -> Result<Built, EngineError> {
    let len = spec.len();
    if can_prove(spec) {
        let mut n = FIRST_PREFIX;
        while n.saturating_mul(GROWTH) <= len {
            let Some(short) = resized(spec, n) else { break };
            let (values, engine) = engines.compute(&short, &Progress::silent(), timings)?;
            if let Some(rule) = find_rule(&short, &values).filter(|r| r.proven) {
                if let Some(full) = fill(&values, &rule, len) {
                    let table = timings.time("rule search", || Table::new(spec.clone(), full));
                    return Ok(Built { table, engine, filled_from: Some(n) });
                }
            }
            n *= GROWTH;
        }
    }
    let (values, engine) = engines.compute(spec, progress, timings)?;
    let table = timings.time("rule search", || Table::new(spec.clone(), values));
    Ok(Built { table, engine, filled_from: None })
}

/// `values` continued to `len` entries by a proven `rule`; `None` if a value would not fit
/// in 32 bits.
fn fill(values: &Packed, rule: &Rule, len: u64) -> Option<Packed> {
    let mut out = Vec::with_capacity(len as usize);
    for n in 0..len {
        let v = if n < values.len() {
            values.get(n) as u64
        } else {
            let k = (n - rule.pre) / rule.period;
            let r = (n - rule.pre) % rule.period;
            (values.get(rule.pre + r) as u64).checked_add(k.checked_mul(rule.saltus)?)?
        };
        out.push(u32::try_from(v).ok()?);
    }
    Some(Packed::from_values(&out))
}

/// How [`prove`] ended.
pub enum Proof {
    /// Proven, by the named theorem, with a table of this many entries.
    Proven { theorem: &'static str, len: u64 },
    /// Not proven by `max` entries.
    NotProven { max: u64 },
}

/// Grows `spec`'s table until its rule is proven (by its game's theorem) or its length reaches
/// `max`. Each step goes straight to the length the theorem needs for the rule found so far,
/// or doubles when there is none yet, so the work is at most a few times the last build's.
pub fn prove(
    engines: &Engines,
    spec: &GameSpec,
    max: u64,
    progress: &Progress,
    timings: &mut Timings,
) -> Result<(Built, Proof), EngineError> {
    let mut spec = spec.clone();
    loop {
        let built = build(engines, &spec, progress, timings)?;
        let len = spec.len();
        let rule = built.table.rule;
        if let Some(r) = rule.filter(|r| r.proven) {
            let theorem = spec.theorem(&r).map_or("its game's theorem", |t| t.name);
            return Ok((built, Proof::Proven { theorem, len }));
        }
        if len >= max {
            return Ok((built, Proof::NotProven { max }));
        }
        let needed = rule.and_then(|r| spec.theorem(&r)).map(|t| t.needs).filter(|&n| n > len);
        let next = needed.map_or(len.saturating_mul(2), |n| n.max(len + len / 4)).min(max);
        spec = resized(&spec, next).ok_or_else(|| EngineError(format!("{spec} cannot be grown to {next} entries")))?;
    }
}
