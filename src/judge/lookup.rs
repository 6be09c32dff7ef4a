//! A table ready to answer any of its positions ([`Lookup`]), and past its end the stored rule
//! g(n) = g(pre + r) + k·saltus for n = pre + k·period + r ([`Extension`]), applied without a
//! division by the run-time period where it can be: a power-of-two period is a shift and a mask,
//! any other a multiply by a precomputed reciprocal, and a saltus equal to a power-of-two period
//! of at most 64 (Lasker's Nim) an add from a table of offsets.
//!
//! One lookup serves `sgq value`, `sgq sum` and the `lasker` problem. The hot loops of `lasker`
//! and `sgq sum` take the value function from `with_value!`, which compiles them once for a
//! table alone, once for an offset table and once for any other rule.

use super::JudgeError;
use crate::games::Positions;
use crate::games::stored::{Origin, Param, Script, shell_word};
use crate::spec::GameSpec;
use crate::table::Table;
use crate::values::Packed;
use std::path::Path;

/// A table and where it was found: its file and the spec the user named its game by, which
/// the message for a position past a script's or an imported table names (the file, and the
/// command that makes a larger one). A bare `&Table` is one found nowhere in particular.
#[derive(Clone, Copy)]
pub struct FoundTable<'a> {
    pub table: &'a Table,
    /// The file it was read from.
    pub file: Option<&'a Path>,
    /// The spec it was asked for by (`lua:games/g.lua:N=100`), where it was asked for so.
    pub spec: Option<&'a str>,
}

impl<'a> From<&'a Table> for FoundTable<'a> {
    fn from(table: &'a Table) -> FoundTable<'a> {
        FoundTable { table, file: None, spec: None }
    }
}

/// The rule past the table, ready to apply: g(n) for n ≥ pre.
pub struct Extension<'a> {
    /// The table, read in place for g(pre .. pre + period): a copy widened to u64 would take
    /// up to 64 times the file's size (a period of 2^30 − 2 at one bit a value: 8 GiB).
    values: &'a Packed,
    pre: u64,
    saltus: u64,
    pub(crate) split: PeriodSplit,
}

/// How n − pre is cut into periods.
pub(crate) enum PeriodSplit {
    /// saltus = period = 2^k ≤ 64 (Lasker's Nim: g(4k + 3) = 4k + 4): then g(n) − n depends
    /// only on n mod period, so on n mod 64 (the period divides 64), and g(n) = n + offset[n mod
    /// 64] (mod 2^64, exact wherever the value fits) needs no shift, no multiply, no pre-period,
    /// no mask but the 63, and no bounds check.
    Offset { offset: Box<[u64; 64]> },
    /// period = 2^shift
    Pow2 { shift: u32, mask: u64 },
    /// For x < 2^32: q = (x · magic) >> 64 with magic = ⌈2^64 / period⌉ (exact there); above
    /// that a plain division.
    Magic { magic: u64, period: u64 },
}

/// (x / period, x % period) by a multiply with magic = ⌈2^64 / period⌉ below 2^32, where it is
/// exact; by a division above.
#[inline(always)]
fn magic_divide(x: u64, magic: u64, period: u64) -> (u64, u64) {
    if x >> 32 == 0 {
        let q = ((x as u128 * magic as u128) >> 64) as u64;
        (q, x - q * period)
    } else {
        (x / period, x % period)
    }
}

impl<'a> Extension<'a> {
    /// The rule's extension from g(pre .. pre + period), read from `values` (which must hold
    /// them).
    fn new(values: &'a Packed, pre: u64, p: u64, saltus: u64) -> Extension<'a> {
        let split = if p.is_power_of_two() && p <= 64 && saltus == p {
            // Every residue mod 64 from the period's: n = pre + r has n mod p = r' and
            // g(n) − n = offset[r'], for each of the 64 / p residues mod 64 that are r' mod p.
            let mut offset = Box::new([0u64; 64]);
            for r in 0..p {
                let (n, g) = (pre + r, values.get(pre + r) as u64);
                for i in (((n & (p - 1)) as usize)..64).step_by(p as usize) {
                    offset[i] = g.wrapping_sub(n);
                }
            }
            PeriodSplit::Offset { offset }
        } else if p.is_power_of_two() {
            PeriodSplit::Pow2 { shift: p.trailing_zeros(), mask: p - 1 }
        } else {
            PeriodSplit::Magic { magic: (u64::MAX / p).wrapping_add(1), period: p }
        };
        Extension { values, pre, saltus, split }
    }

    /// g(n) for pre ≤ n ≤ the lookup's limit (which keeps the value within u64); a hot loop
    /// takes `with_value!` instead.
    #[inline]
    pub fn get(&self, n: u64) -> u64 {
        match self.split {
            PeriodSplit::Offset { ref offset } => offset_value(n, offset),
            PeriodSplit::Pow2 { shift, mask } => self.divided_value(n, |x| (x >> shift, x & mask)),
            PeriodSplit::Magic { magic, period } => {
                self.divided_value(n, |x| magic_divide(x, magic, period))
            }
        }
    }

    /// g(n) for pre ≤ n ≤ the lookup's limit, with `split` dividing by the period: (quotient,
    /// remainder).
    #[inline(always)]
    fn divided_value(&self, n: u64, split: impl Fn(u64) -> (u64, u64)) -> u64 {
        let (k, r) = split(n - self.pre);
        self.values.get(self.pre + r) as u64 + k * self.saltus
    }
}

/// g(n) by [`PeriodSplit::Offset`], for pre ≤ n ≤ the lookup's limit.
#[inline(always)]
pub(crate) fn offset_value(n: u64, offset: &[u64; 64]) -> u64 {
    n.wrapping_add(offset[(n & 63) as usize])
}

/// `with_value!(lookup, |g| body)`: `body` with `g` bound to a closure n ↦ g(n) (for
/// n ≤ the lookup's limit) specialised to the lookup: a table without a rule, a rule with an
/// offset table (Lasker's Nim), or any other rule. `body` is compiled once for each, so a loop
/// in it matches on the kind once, not once a number.
macro_rules! with_value {
    ($lookup:expr, |$g:ident| $body:expr) => {{
        use $crate::judge::lookup::{Lookup, PeriodSplit, offset_value};
        let lookup: &Lookup = $lookup;
        // The closures copy what they read (`move`, of numbers and references): a loop over
        // them then keeps more of it in registers instead of loading it again once a number.
        let values = lookup.values;
        match &lookup.ext {
            None => {
                let $g = move |n: u64| values.get(n) as u64;
                $body
            }
            Some(ext) => {
                let from = lookup.rule_from;
                match ext.split {
                    PeriodSplit::Offset { ref offset } => {
                        // A copy in the closure: one pointer fewer to follow once a number.
                        let offset: [u64; 64] = **offset;
                        let $g = move |n: u64| {
                            if n < from { values.get(n) as u64 } else { offset_value(n, &offset) }
                        };
                        $body
                    }
                    // A shift or a multiply, chosen once a number: one more copy of each hot
                    // loop is not worth its size in `sgq` (which must stay small).
                    _ => {
                        let $g =
                            move |n: u64| if n < from { values.get(n) as u64 } else { ext.get(n) };
                        $body
                    }
                }
            }
        }
    }};
}
pub(crate) use with_value;

/// A table ready to answer positions.
pub struct Lookup<'a> {
    pub(crate) table: &'a Table,
    /// Where the table was found, for messages.
    found: FoundTable<'a>,
    pub(crate) values: &'a Packed,
    /// The table's entries: below it a value is read from the table, from it on from the rule.
    pub(crate) len: u64,
    pub(crate) ext: Option<Extension<'a>>,
    /// Where values start to come from the rule: its pre-period where the rule was checked over
    /// the whole table (a table built by sgtab), else the table's end.
    pub(crate) rule_from: u64,
    /// The largest index answered: the table's last, or as far as the rule's values fit u64.
    pub(crate) limit: u64,
    pub(crate) positions: Positions,
}

impl<'a> Lookup<'a> {
    /// Prepares `table` for queries; fails on a stored rule that does not fit its table.
    pub fn new(found: impl Into<FoundTable<'a>>) -> Result<Lookup<'a>, JudgeError> {
        let found = found.into();
        let table = found.table;
        let values = &table.values;
        let len = values.len();
        let positions = table.spec.positions();
        let mut ext = None;
        let mut limit = len - 1;
        let mut rule_from = len;
        if let (Some(rule), Positions::Heap) = (table.rule, positions) {
            if rule.period == 0 || rule.pre.checked_add(rule.period).is_none_or(|end| end > len) {
                return Err(JudgeError::Table(format!(
                    "table {} stores a rule (pre-period {}, period {}) that does not fit its \
                        {len} entries; rebuild it with `sgtab build {}`",
                    table.spec, rule.pre, rule.period, table.spec
                )));
            }
            // Every n ≤ limit has ⌊(n − pre)/p⌋ ≤ kmax, so its value is at most max + kmax·s.
            limit = match rule.saltus {
                0 => u64::MAX,
                s => {
                    let top = (rule.pre..rule.pre + rule.period)
                        .map(|i| values.get(i))
                        .max()
                        .unwrap_or(0);
                    let kmax = (u64::MAX - top as u64) / s;
                    kmax.checked_mul(rule.period)
                        .and_then(|x| x.checked_add(rule.pre + rule.period - 1))
                        .unwrap_or(u64::MAX)
                }
            }
            .max(len - 1);
            ext = Some(Extension::new(values, rule.pre, rule.period, rule.saltus));
            if rule.checked >= len {
                rule_from = rule.pre;
            }
        }
        Ok(Lookup { table, found, values, len, ext, rule_from, limit, positions })
    }

    /// The largest index answered.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// g(n) for n ≤ [`limit`](Lookup::limit).
    #[inline(always)]
    pub fn get(&self, n: u64) -> u64 {
        match &self.ext {
            Some(ext) if n >= self.rule_from => ext.get(n),
            _ => self.values.get(n) as u64,
        }
    }

    /// Whether answers past the table come from a rule that is only checked, not proven.
    pub(crate) fn unproven(&self) -> bool {
        self.table.rule.is_some_and(|r| !r.proven) && self.ext.is_some()
    }

    /// The note written (once) when a position past the table is answered from a checked rule.
    pub(crate) fn note(&self) -> String {
        let rule = self.table.rule.expect("a rule answers past the table");
        format!(
            "note: positions past the {} entries of {} are answered from its rule {rule}",
            self.len, self.table.spec
        )
    }

    /// Range of one number read: a heap or a row up to the limit, a board coordinate below n.
    pub(crate) fn number_range(&self) -> u64 {
        match self.positions {
            Positions::Board { n } => n - 1,
            Positions::Grid(dims) => dims.sizes().iter().max().map_or(0, |d| d - 1),
            _ => self.limit,
        }
    }

    /// The message for a number past [`number_range`](Lookup::number_range) (`n` is `None`
    /// past 64 bits): why it is out of reach and which build would cover it. The scanner calls it
    /// from its error path ([`Beyond`](super::input::Beyond)), so the message keeps the scanner's
    /// line and column.
    pub(crate) fn beyond(
        &self,
        what: &dyn std::fmt::Display,
        token: &str,
        n: Option<u64>,
    ) -> String {
        let max = self.number_range();
        let spec = &self.table.spec;
        let why = match (self.positions, n) {
            (_, None) => format!("out of reach: {spec} answers 0..={max}"),
            (Positions::Heap, Some(_)) if self.ext.is_some() => {
                format!(
                    "past the reach of the rule of {spec}: its value would not fit 64 bits \
                        (positions up to {} do)",
                    self.limit
                )
            }
            (Positions::Heap, Some(n)) => format!(
                "past the table: {spec} has {} entries (0..={max}) and no rule for positions past \
                    them; {}",
                self.len,
                self.cover_stored(None, n).unwrap_or_else(|| cover(
                    spec,
                    |s| matches!(s.positions(), Positions::Heap) && s.len() > n,
                    n.checked_add(1)
                ))
            ),
            (Positions::Row { width }, Some(n)) => format!(
                "not a row of {spec}: a row is a bitmask of {width} bits (0..={max}); {}",
                cover(
                    spec,
                    |s| matches!(s.positions(), Positions::Row { .. }) && s.len() > n,
                    Some(64 - n.leading_zeros() as u64)
                )
            ),
            (Positions::Grid(_), n) => return self.off_grid(what, token, 0, n),
            (Positions::Board { n: side }, Some(c)) => format!(
                "off the board: {spec} is {side}×{side}, coordinates 0..={max}; {}",
                cover(
                    spec,
                    |s| matches!(s.positions(), Positions::Board { n } if n > c),
                    c.checked_add(1)
                )
            ),
        };
        format!("{what} `{token}` is {why}")
    }

    /// The message for coordinate `axis` (from 0) of a grid position past its size (`c`, or
    /// `None` past 64 bits).
    pub(crate) fn off_grid(
        &self,
        what: &dyn std::fmt::Display,
        token: &str,
        axis: usize,
        c: Option<u64>,
    ) -> String {
        let Positions::Grid(dims) = self.positions else { return self.beyond(what, token, None) };
        let cover = c
            .and_then(|c| self.cover_stored(Some(axis), c))
            .map(|how| format!("; {how}"))
            .unwrap_or_default();
        format!(
            "{what} `{token}` is off the grid: {} is {} (coordinate {} is 0..={}){cover}",
            self.table.spec,
            dims.sizes().iter().map(u64::to_string).collect::<Vec<_>>().join("×"),
            axis + 1,
            dims.sizes()[axis] - 1
        )
    }

    /// For a game sgtab cannot grow by itself (a script's, an imported one), where the table
    /// reaching coordinate `c` along `axis` (`None`: the index of a 1-D game) would come from:
    /// the table found (its file and size), and the command that makes a larger one. `None`
    /// for sgtab's own families, whose larger specs [`cover`] names.
    fn cover_stored(&self, axis: Option<usize>, c: u64) -> Option<String> {
        let stored = self.table.spec.stored()?;
        let sizes: Vec<u64> = match self.positions {
            Positions::Grid(dims) => dims.sizes().to_vec(),
            _ => vec![self.len],
        };
        let axis = axis.unwrap_or(0).min(sizes.len() - 1);
        let shape = |sizes: &[u64]| sizes.iter().map(u64::to_string).collect::<Vec<_>>().join("x");
        let file = self
            .found
            .file
            .map_or_else(|| self.table.spec.file_name(), |f| f.display().to_string());
        let found = match sizes.len() {
            1 => format!("the table found, {file}, has {} entries", self.len),
            _ => format!(
                "the table found, {file}, has shape {} ({} entries)",
                shape(&sizes),
                self.len
            ),
        };
        let script = match &stored.origin {
            Origin::Script(script) => script,
            Origin::Import(name) => {
                let mut larger = sizes.clone();
                larger[axis] = c.saturating_add(1);
                return Some(format!(
                    "{found}; import a larger one: `sgtab import FILE --name {name} --shape {}`",
                    shape(&larger)
                ));
            }
            Origin::Library(_) => {
                return Some(format!(
                    "{found}; its library computes a larger one if it is built with a larger shape"
                ));
            }
        };
        // The source's path as the user gave it, else its name (the table stores its text).
        let path =
            self.found.spec.and_then(Script::path_of).map_or_else(|| script.file(), str::to_string);
        let command = |params: &[(String, Param)]| {
            format!("`sgtab build {}`", shell_word(&script.spec_at(&path, params)))
        };
        // A parameter equal to the size passed is most likely the one that sets it.
        let size = sizes[axis];
        let how = match script
            .params
            .iter()
            .position(|(_, v)| v.int().and_then(|v| u64::try_from(v).ok()) == Some(size))
        {
            Some(i) if c < i64::MAX as u64 => {
                let mut params = script.params.clone();
                params[i].1 = Param::Int(c as i64 + 1);
                format!(
                    "build a larger one from its script: {} (this one was built with {}={size})",
                    command(&params),
                    params[i].0
                )
            }
            _ => format!(
                "{} built this one: build it again with parameters that make its shape larger",
                command(&script.params)
            ),
        };
        Some(format!("{found}; {how}"))
    }
}

/// The `sgtab build` command for the table of `spec`'s game at `size` ([`GameSpec::with_size`]),
/// where that one `fits`; or a sentence saying there is none.
fn cover(spec: &GameSpec, fits: impl Fn(&GameSpec) -> bool, size: Option<u64>) -> String {
    let found = size.and_then(|size| spec.with_size(size)).filter(|s| fits(s));
    match found {
        Some(s) => format!("`sgtab build {s}` would cover it"),
        None => "no table that sgtab builds for this game covers it".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::Rule;

    /// g(n) by the rule's definition, in u128 so that it cannot wrap: head[(n − pre) mod p] +
    /// ⌊(n − pre) / p⌋·s.
    fn by_definition(head: &[u64], pre: u64, saltus: u64, n: u64) -> u128 {
        let (k, r) = ((n - pre) / head.len() as u64, (n - pre) % head.len() as u64);
        head[r as usize] as u128 + k as u128 * saltus as u128
    }

    #[test]
    fn every_split_matches_the_rule() {
        // (period, pre, saltus): offset tables (saltus = a power-of-two period ≤ 64, Lasker's Nim
        // is (4, 0, 4)), shifts (a power of two with another saltus, or past 64), multiplies
        // (any other period, exact below 2^32 and divided above).
        let offsets = [(1u64, 0u64, 1u64), (2, 3, 2), (4, 0, 4), (8, 1, 8), (64, 5, 64)];
        let shifts = [(4, 2, 3), (128, 2, 128), (1, 0, 0)];
        let multiplies =
            [(3, 0, 2), (5, 7, 5), (12, 1, 0), (1000, 3, 9), (65537, 0, 1), ((1 << 32) + 1, 0, 2)];
        for (period, pre, saltus) in offsets.into_iter().chain(shifts).chain(multiplies) {
            // Values below and above n (g(n) < n makes the offsets wrap).
            let head: Vec<u64> = (0..period.min(1000))
                .map(|r| (r * 5 + 3) % (period + 2))
                .chain((1000..period.min(70_000)).map(|r| r / 3))
                .collect();
            if head.len() as u64 != period {
                // 2^32 + 1 values cannot be held: only the division is checked.
                let magic = (u64::MAX / period).wrapping_add(1);
                for x in (0..3000u64).chain([
                    (1 << 32) - 1,
                    1 << 32,
                    (1 << 32) + 5,
                    1 << 40,
                    u64::MAX - 1,
                    u64::MAX,
                ]) {
                    assert_eq!(
                        magic_divide(x, magic, period),
                        (x / period, x % period),
                        "period {period}, x {x}"
                    );
                }
                continue;
            }
            let values: Vec<u64> =
                std::iter::repeat_n(0, pre as usize).chain(head.iter().copied()).collect();
            let packed = Packed::from_values(&values);
            let ext = Extension::new(&packed, pre, period, saltus);
            let kind = match ext.split {
                PeriodSplit::Offset { .. } => "offset",
                PeriodSplit::Pow2 { .. } => "shift",
                PeriodSplit::Magic { .. } => "multiply",
            };
            let want = if period.is_power_of_two() && period <= 64 && saltus == period {
                "offset"
            } else if period.is_power_of_two() {
                "shift"
            } else {
                "multiply"
            };
            assert_eq!(kind, want, "period {period}, saltus {saltus}");
            let far = [(1 << 31) - 1, (1 << 32) - 1, 1 << 32, (1 << 32) + 7, 1 << 45, 1 << 50];
            for n in (pre..pre + 3 * period + 500).chain(far) {
                assert_eq!(
                    ext.get(n) as u128,
                    by_definition(&head, pre, saltus, n),
                    "{kind}: period {period}, pre {pre}, saltus {saltus}, n {n}"
                );
            }
        }
    }

    #[test]
    fn with_value_reads_the_table_then_the_rule() {
        // One table per kind of split, its rule checked on its 3 periods and a bit; `with_value!`
        // must give what `get` gives on both sides of the table's end, and `get` what the
        // definition gives.
        for (period, pre, saltus) in [(4u64, 1u64, 4u64), (8, 0, 3), (6, 2, 2)] {
            let head: Vec<u64> = (0..period).map(|r| (r * 7 + 1) % (period + 1)).collect();
            let len = pre + 3 * period + 2;
            let g = |n: u64| {
                if n < pre { 100 + n } else { by_definition(&head, pre, saltus, n) as u64 }
            };
            let values: Vec<u64> = (0..len).map(g).collect();
            let spec = GameSpec::parse(&format!("sub:1:{len}")).unwrap();
            let mut table = Table::new(spec, Packed::from_values(&values));
            table.rule = Some(Rule { pre, period, saltus, checked: len, proven: false });
            let lookup = Lookup::new(&table).unwrap();
            let ns: Vec<u64> =
                (0..len + 3 * period).chain([(1 << 31) - 1, (1 << 32) + 3]).collect();
            let got: Vec<u64> =
                with_value!(&lookup, |value| ns.iter().map(|&n| value(n)).collect());
            for (&n, v) in ns.iter().zip(got) {
                assert_eq!(
                    (v, lookup.get(n)),
                    (g(n), g(n)),
                    "period {period}, pre {pre}, saltus {saltus}, n {n}"
                );
            }
        }
    }

    #[test]
    fn a_rule_checked_on_part_of_the_table_leaves_the_rest_to_the_table() {
        // g(n) = n on 0..30 (period 1, saltus 1), checked only up to 20; entries 20..30 are 0.
        let values: Vec<u64> = (0..30).map(|n| if n < 20 { n } else { 0 }).collect();
        let mut table =
            Table::new(GameSpec::parse("sub:1:30").unwrap(), Packed::from_values(&values));
        table.rule = Some(Rule { pre: 0, period: 1, saltus: 1, checked: 20, proven: false });
        let lookup = Lookup::new(&table).unwrap();
        assert_eq!(lookup.rule_from, 30);
        let got: Vec<u64> = with_value!(&lookup, |value| (0..40).map(value).collect());
        let want: Vec<u64> = values.iter().copied().chain(30..40).collect();
        assert_eq!(got, want);
        assert_eq!((0..40).map(|n| lookup.get(n)).collect::<Vec<_>>(), want);
        // Checked on all of it, the rule starts at its pre-period.
        table.rule = Some(Rule { pre: 0, period: 1, saltus: 1, checked: 30, proven: false });
        table.values = Packed::from_values(&(0..30).collect::<Vec<u64>>());
        assert_eq!(Lookup::new(&table).unwrap().rule_from, 0);
    }

    #[test]
    fn a_table_without_a_rule_reads_only_the_table() {
        let values: Vec<u64> = (0..50).map(|n| n * 3 % 7).collect();
        let mut table =
            Table::new(GameSpec::parse("sub:1:50").unwrap(), Packed::from_values(&values));
        table.rule = None;
        let lookup = Lookup::new(&table).unwrap();
        assert_eq!(lookup.limit(), 49);
        let got: Vec<u64> = with_value!(&lookup, |value| (0..50).map(value).collect());
        assert_eq!(got, values);
    }
}
