//! A whole build, spec → engine → table, with the rules that prove themselves. One driver
//! serves every engine: a table grows through a list of stops, and the rule is looked for at
//! each.
//!
//! - [`build`]: where the game has a theorem that can prove a period and the table is long,
//!   the first stops are short prefixes (256, 1024, ... while a quarter of the length); if a
//!   prefix's rule is proven, the rest of the table is filled from the rule (exact, since it is
//!   proven) instead of computed. Kayles or Dawson's Kayles to a million heaps then cost a few
//!   thousand heaps of work. The last stop is the table's length.
//! - [`prove`]: the same stops, then on past the length: to the length the theorem needs for
//!   the rule found so far, or twice the last without one, until the rule is proven or a limit
//!   is reached.
//!
//! An engine that grows a table in place ([`Grow`]: take-and-break codes) keeps its state from
//! stop to stop, so proving at N costs one build to N plus a near-linear rule search per stop;
//! any other engine grows a table by building it again at the larger size ([`Rebuild`]).

mod command;
pub use command::{Job, build_into, verify_files};

use crate::engine::{Backend, EngineError, Engines, Grow, Timings};
use crate::memory;
use crate::progress::Progress;
use crate::spec::{GameSpec, Resolver};
use crate::table::{Table, find_rule_in};
use crate::values::packed::{bits_for, payload_len};
use crate::values::{Packed, Rule};

/// Shortest prefix tried first, and the factor between tries. Short, because a prefix costs
/// the cube of its length for codes with three-heap moves (0.F: 3.3 s for 4096 heaps, a few
/// milliseconds for 256, which prove its rule already), and a few quick steps cost little for
/// the others.
const FIRST_PREFIX: u64 = 256;
const GROWTH: u64 = 4;

/// A built table, the engine that computed it, and where the rule took over.
pub struct Built {
    pub table: Table,
    pub engine: Backend,
    /// Values from this index on were filled from the proven rule, not computed.
    pub filled_from: Option<u64>,
}

/// The same heap game with `len` entries, where its family has that size.
pub fn resized(spec: &GameSpec, len: u64) -> Option<GameSpec> {
    spec.with_size(len).filter(|s| s.len() == len)
}

/// Whether the game has a theorem that can prove a plain period at all.
pub fn can_prove(spec: &GameSpec) -> bool {
    spec.has_rule() && spec.periods_provable().is_ok()
}

/// Why no table of `spec`'s game can have its rule proven, in words; `None` when its game has
/// a theorem that can.
pub fn why_unprovable(spec: &GameSpec) -> Option<String> {
    Some(match spec.periods_provable() {
        Ok(()) if spec.has_rule() => return None,
        Err(Some(why)) => why.to_string(),
        _ if !spec.has_rule() => {
            format!("a {} table has no rule along its index to prove", spec.game())
        }
        _ => format!(
            "no theorem proves the rules of {} games here, so their rules are checked only",
            spec.game()
        ),
    })
}

/// How [`prove`] ended.
pub enum Proof {
    /// Proven, by the named theorem, with a table of this many entries.
    Proven { theorem: &'static str, len: u64 },
    /// Not proven by `max` entries.
    NotProven { max: u64 },
}

/// Why `--prove` up to `max` entries cannot be asked of these games, before any work: a game no
/// theorem proves (growing it could never end in a proof), or one already longer than `max`.
pub fn prove_refusal(specs: &[GameSpec], max: u64) -> Option<String> {
    if let Some((spec, why)) = specs.iter().find_map(|s| why_unprovable(s).map(|w| (s, w))) {
        return Some(format!(
            "--prove cannot prove a rule of {spec}: {why}; build it without --prove"
        ));
    }
    let spec = specs.iter().find(|s| s.len() > max)?;
    Some(format!(
        "--max {max} is below the {} entries of {spec}: --prove grows a table from its own \
            length; give --max {} or more, or a shorter table",
        spec.len(),
        spec.len()
    ))
}

impl Proof {
    /// The line `sgtab build --prove` reports for `table`.
    pub fn describe(&self, table: &Table) -> String {
        let spec = &table.spec;
        match *self {
            Proof::Proven { theorem, len } => {
                // How many entries the proof needed, where the table is longer than that.
                match table
                    .rule
                    .and_then(|r| spec.theorem(&r))
                    .map(|t| t.needs)
                    .filter(|&n| n < len)
                {
                    Some(n) => format!(
                        "{spec}: rule proven by {theorem} with {len} entries (the theorem needs \
                            {n})"
                    ),
                    None => format!("{spec}: rule proven by {theorem} with {len} entries"),
                }
            }
            Proof::NotProven { max } => {
                format!("{spec}: rule not proven by {max} entries (--max); {}", table.rule_text())
            }
        }
    }
}

/// What [`verify`] found.
pub enum Verified {
    /// Computed again by this engine, equal value for value, with the same rule and width.
    Recomputed(Backend),
    /// Values from another program: reading the file checked all there is to check.
    AsStored,
}

/// Computes `table`'s values again (its game run through `resolver`) and compares them with
/// the file's: a difference is one line naming the first position and both values.
pub fn verify(
    table: &Table,
    resolver: &Resolver,
    engines: &Engines,
    progress: &Progress,
    timings: &mut Timings,
) -> Result<Verified, String> {
    if table.spec.stored().is_some_and(|s| s.script().is_none()) {
        return Ok(Verified::AsStored);
    }
    let game = resolver.runnable(&table.spec).map_err(|e| e.0)?;
    let (fresh, engine) = engines.compute(&game, progress, timings).map_err(|e| e.line)?;
    if let Some(i) = table.values.first_difference(&fresh) {
        let (a, b) = (table.values.get(i), fresh.get(i));
        return Err(format!("MISMATCH at index {i}: the file holds {a}, {engine} computes {b}"));
    }
    let fresh = Table::new(table.spec.clone(), fresh);
    if fresh.rule != table.rule || fresh.values.bits() != table.values.bits() {
        return Err(format!(
            "MISMATCH: values agree but the stored rule or width differs from a fresh build ({})",
            fresh.rule_text()
        ));
    }
    Ok(Verified::Recomputed(engine))
}

/// Builds `spec`'s table (see the module docs).
pub fn build(
    engines: &Engines,
    spec: &GameSpec,
    progress: &Progress,
    timings: &mut Timings,
) -> Result<Built, EngineError> {
    drive(engines, spec, None, progress, timings).map(|(built, _)| built)
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
    if let Some(why) = prove_refusal(std::slice::from_ref(spec), max) {
        return Err(EngineError::refused(why));
    }
    drive(engines, spec, Some(max), progress, timings)
        .map(|(built, proof)| (built, proof.expect("a limit gives a proof or its absence")))
}

/// A table that grows by being built again at each larger size, by whatever engine `engines`
/// chooses for the game: how an engine without a [`Grow`] of its own takes part in the stops.
pub struct Rebuild<'a> {
    engines: &'a Engines,
    spec: GameSpec,
    values: Packed,
    engine: Backend,
    /// The phases of the builds so far, handed to the driver's timings after each.
    timings: Timings,
}

impl<'a> Rebuild<'a> {
    pub fn new(engines: &'a Engines, spec: &GameSpec) -> Rebuild<'a> {
        let engine = engines.choose(spec);
        Rebuild {
            engines,
            spec: spec.clone(),
            values: Packed::with_bits::<u32>(&[], 1),
            engine,
            timings: Timings::default(),
        }
    }
}

impl Grow for Rebuild<'_> {
    fn len(&self) -> u64 {
        self.values.len()
    }

    fn get(&self, n: u64) -> u32 {
        self.values.get(n)
    }

    fn engine(&self) -> Backend {
        self.engine
    }

    fn reserve(&mut self, _len: u64) -> Result<(), EngineError> {
        // Each build checks its own memory before it starts.
        Ok(())
    }

    fn grow(&mut self, len: u64, progress: &Progress) -> Result<(), EngineError> {
        let spec = if len == self.spec.len() { self.spec.clone() } else { sized(&self.spec, len)? };
        let (values, engine) = self.engines.compute(&spec, progress, &mut self.timings)?;
        (self.values, self.engine) = (values, engine);
        Ok(())
    }

    fn take_timings(&mut self) -> Vec<(String, std::time::Duration)> {
        std::mem::take(&mut self.timings.phases)
    }

    fn into_packed(self: Box<Self>) -> Packed {
        self.values
    }
}

/// [`build`] (no `max`) or [`prove`] (`max`): one table grown through the stops, empty at
/// first.
///
/// Stops: 256·4^k while a quarter of the spec's length (where a theorem can prove a rule),
/// then the spec's length; a rule proven at a stop below it fills the rest. With `max`, past
/// the spec's length each stop is the length the theorem needs for the rule found so far, or
/// twice the last without one, up to `max`.
fn drive(
    engines: &Engines,
    spec: &GameSpec,
    max: Option<u64>,
    progress: &Progress,
    timings: &mut Timings,
) -> Result<(Built, Option<Proof>), EngineError> {
    let mut g: Box<dyn Grow + '_> =
        engines.growing(spec).unwrap_or_else(|| Box::new(Rebuild::new(engines, spec)));
    let len = spec.len();
    let provable = can_prove(spec);
    let mut stop =
        if provable && FIRST_PREFIX.saturating_mul(GROWTH) <= len { FIRST_PREFIX } else { len };
    if max.is_none() && stop == len {
        // A plain build that goes straight to `len`: one allocation, no copy when growing (peak
        // memory). One that may stop early at a proven rule reserves no more than it reaches.
        g.reserve(len)?;
    }
    loop {
        progress.set_label(match sized(spec, stop) {
            Ok(step) if stop < len => {
                format!("building {step} (a prefix of {spec} that may prove its rule)")
            }
            Ok(step) => format!("building {step}"),
            Err(_) => format!("building {spec}"),
        });
        let grown = g.grow(stop, progress);
        timings.phases.extend(g.take_timings());
        grown?;
        if max.is_none() && stop == len {
            // The last stop of a plain build: packed first, so that the rule search's memory
            // (8 bytes a value of its window) comes on top of the packed table, not the wider
            // one being grown (0.106 to 2^26: 119 MB peak the other way round).
            let engine = g.engine();
            let values = g.into_packed();
            let table = timings.time(&searched(spec, stop), || Table::new(spec.clone(), values));
            return Ok((Built { table, engine, filled_from: None }, None));
        }
        let rule = timings
            .time(&searched(spec, stop), || find_rule_in(spec, g.len(), |i| g.get(i) as u64));
        let proven = rule.filter(|r| r.proven);
        if stop < len {
            if let Some(r) = proven {
                // Exact from here on: the rest of the table comes from the rule.
                if let Some(full) = fill(g.len(), |i| g.get(i), &r, len)? {
                    let table = timings.time(&format!("filled from the rule to {len}"), || {
                        Table::new(spec.clone(), full)
                    });
                    let proof = max.map(|_| proven_by(spec, &r, len));
                    return Ok((
                        Built { table, engine: g.engine(), filled_from: Some(stop) },
                        proof,
                    ));
                }
            }
            stop = if stop.saturating_mul(GROWTH * GROWTH) <= len { stop * GROWTH } else { len };
            continue;
        }
        let Some(max) = max else { unreachable!("a plain build returns at its length") };
        let proof = match proven {
            Some(r) => Some(proven_by(spec, &r, stop)),
            None => (stop >= max).then_some(Proof::NotProven { max }),
        };
        if let Some(proof) = proof {
            // The rule was searched on these very values: the table's own.
            let spec = sized(spec, stop)?;
            let engine = g.engine();
            let table = Table { spec, values: g.into_packed(), rule };
            return Ok((Built { table, engine, filled_from: None }, Some(proof)));
        }
        let needed = rule.and_then(|r| spec.theorem(&r)).map(|t| t.needs).filter(|&n| n > stop);
        stop = needed.unwrap_or(stop.saturating_mul(2)).min(max);
    }
}

/// The `have` values given by `get` continued to `len` entries by a proven `rule`, packed as
/// they are made (a Vec<u32> of them first took 8 times the table's size); `None` if a value
/// would not fit in 32 bits, an error if the table does not fit in memory.
fn fill(
    have: u64,
    get: impl Fn(u64) -> u32,
    rule: &Rule,
    len: u64,
) -> Result<Option<Packed>, EngineError> {
    let value =
        |n: u64| -> Option<u32> { u32::try_from(rule.extend(n, have, |i| get(i) as u64)?).ok() };
    // The width first: each residue's value grows with n, so the largest of the rule's values
    // are in its last period (the rule holds from pre + period ≤ have on).
    let mut max = 0;
    for n in (0..have).chain(len.saturating_sub(rule.period).max(have)..len) {
        let Some(v) = value(n) else { return Ok(None) };
        max = max.max(v);
    }
    let bits = bits_for(max as u64);
    Packed::try_from_fn(len, bits, |n| value(n).unwrap_or(0))
        .map(Some)
        .map_err(|_| memory::short("its values", payload_len(len, bits), memory::room()).into())
}

/// The timing's name of a rule search over `len` entries.
fn searched(spec: &GameSpec, len: u64) -> String {
    if spec.has_rule() {
        format!("rule search over {len} heaps")
    } else {
        "rule search".to_string()
    }
}

fn proven_by(spec: &GameSpec, rule: &Rule, len: u64) -> Proof {
    Proof::Proven { theorem: spec.theorem(rule).map_or("its game's theorem", |t| t.name), len }
}

/// `spec`'s game at `len` entries (itself at its own length).
fn sized(spec: &GameSpec, len: u64) -> Result<GameSpec, EngineError> {
    if len == spec.len() {
        return Ok(spec.clone());
    }
    resized(spec, len)
        .ok_or_else(|| EngineError::refused(format!("{spec} cannot be grown to {len} entries")))
}

/// A second engine's table of the same game compared value for value with `built`'s: a table
/// built on the GPU is checked against the fast CPU engine, one from the fast CPU engine against
/// the game's reference, one from the reference against the fast CPU engine, a game given by its
/// options (the generic engine) against the same engine on one thread. Returns the second engine
/// and how many values were compared; an error names the first difference, or says that there
/// is no second engine to compare with.
pub fn cross_check(
    engines: &Engines,
    built: &Built,
    progress: &Progress,
    timings: &mut Timings,
) -> Result<(Backend, u64), EngineError> {
    let spec = &built.table.spec;
    let threads = Some(engines.threads());
    let other = match built.engine {
        Backend::Gpu | Backend::Scalar => Engines::new(Backend::Simd).with_threads(threads),
        Backend::Generic if engines.threads() > 1 => {
            Engines::new(Backend::Generic).with_threads(Some(1))
        }
        _ => Engines::new(Backend::Scalar),
    };
    let engine = other.choose(spec);
    if engine == built.engine && engine != Backend::Generic
        || engine == Backend::Generic && engines.threads() == 1
    {
        let why = if engine == Backend::Generic {
            " (give --threads 2 or more to compare one thread with several)"
        } else {
            ""
        };
        return Err(EngineError::refused(format!(
            "--cross-check: {spec} has no engine besides {engine} to compare with{why}"
        )));
    }
    progress.set_label(format!("cross-checking {spec} on {engine}"));
    let start = std::time::Instant::now();
    let (values, _) = other.compute(spec, progress, &mut Timings::default())?;
    timings.add(format!("cross-check on {engine}"), start.elapsed());
    let ours = &built.table.values;
    let Some(first) = ours.first_difference(&values) else { return Ok((engine, values.len())) };
    let differ = (0..values.len()).filter(|&i| ours.get(i) != values.get(i)).count();
    Err(EngineError::check(format!(
        "--cross-check: {spec}: {} and {engine} differ first at {} ({} has {}, {engine} has {}); \
            {differ} of {} values differ; nothing written",
        built.engine,
        crate::engine::check::position(spec.positions(), first),
        built.engine,
        ours.get(first),
        values.get(first),
        values.len()
    )))
}
