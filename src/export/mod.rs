//! `sgtab export`: a table as one self-contained source file defining `sg`, for pasting into
//! a contest submission (C, C++, Rust or Python): `sg(n)` where the table's index is the
//! position's own name (a heap, a chess row's bitmask, a 1-D script's position), `sg(x, y)` on a
//! board and `sg(p1, ..., pk)` in k-D, each coordinate checked against its size.
//!
//! The values are stored bit-packed in a string literal, six bits a character (`'0'` + bits,
//! so characters `0` to `o`; `\` and, for C's trigraphs, `?` are escaped), value i at bits
//! [i·b, i·b + b) of the stream, lowest bit first, and decoded by a few lines of plain code.
//! Hand-written because the encoding is the point: base64 would need a decoding table in every
//! language, a hex array takes twice the bytes.
//!
//! Where the table has a rule, only g(0 .. pre + period) is stored and the rule gives the
//! rest: exact below the table's length (the rule was checked there), and past it exact when
//! the rule is proven; the function's comment says which. A table without a rule stores every
//! value; past it, and at a coordinate past its size, the function writes why on stderr and
//! exits with status 1 (`exit(1)`, `std::process::exit(1)`, `SystemExit`), not `abort()`, so
//! what the program wrote before it is flushed and a judge shows that output.
//!
//! The function is named `sg` unless the user names it (`--name`): contest code often has an
//! `sg` array of its own.

use crate::games::Positions;
use crate::table::Table;
use crate::values::Packed;
use crate::values::packed::bits_for;
use std::borrow::Cow;
use std::fmt::{self, Write};

mod render;

/// A language to export to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Lang {
    C,
    Cpp,
    Rust,
    Python,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "C",
            Lang::Cpp => "C++",
            Lang::Rust => "Rust",
            Lang::Python => "Python",
        }
    }
}

/// How the comment line about values past 32 bits starts (Python's integers have no such limit: it
/// leaves it out).
const OVER32: &str = "g(n) passes 32 bits";

/// Longest function name `--name` takes.
const MAX_NAME: usize = 64;

/// Words no exported function may be named: keywords of C, C++, Rust or Python, and names the
/// exported code itself uses.
#[rustfmt::skip]
const RESERVED: &[&str] = &[
    "and", "as", "assert", "async", "auto", "await", "bool", "break", "case", "catch", "char",
    "class", "const", "continue", "crate", "def", "default", "del", "delete", "do", "double", "dyn",
    "elif", "else", "enum", "except", "exit", "extern", "false", "final", "finally", "float", "fn",
    "for", "friend", "from", "global", "goto", "if", "impl", "import", "in", "inline", "int", "is",
    "lambda", "let", "long", "loop", "main", "match", "mod", "move", "mut", "namespace", "new",
    "nonlocal", "not", "operator", "or", "pass", "private", "protected", "pub", "public", "raise",
    "ref", "register", "return", "self", "short", "signed", "sizeof", "static", "struct", "super",
    "switch", "template", "this", "throw", "trait", "true", "try", "type", "typedef", "union",
    "unsafe", "unsigned", "use", "virtual", "void", "volatile", "where", "while", "with", "yield",
    "None", "True", "False", "Self", "abort", "printf", "fprintf", "stderr", "std",
];

/// Whether `name` can name the exported function in every language: an identifier of ASCII
/// letters, digits and `_` (not first a digit, not starting with `__`), at most 64 characters,
/// and no keyword; the message says what is wrong.
pub fn check_name(name: &str) -> Result<(), String> {
    let ident = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && !name.starts_with("__")
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(format!(
            "--name {name:?} is not a function name every language takes: use ASCII letters, \
                digits and _ (not first a digit, not starting with __), at most {MAX_NAME} \
                characters"
        ));
    }
    if RESERVED.contains(&name) {
        return Err(format!(
            "--name {name} is a keyword or a name the exported code uses; pick another, such as \
                grundy"
        ));
    }
    Ok(())
}

/// The exported function's arguments.
enum Args {
    /// One, the table's index `n`: where it is the position's natural name (a heap, a chess
    /// row's bitmask, a 1-D script's position).
    Index,
    /// One a coordinate (a board's x and y, a k-D game's p1 to pk), each checked against its
    /// size; `outside` says where a point past them lies, for the stop's message.
    Point { names: Vec<String>, sizes: Vec<u64>, outside: String },
}

impl Args {
    fn of(table: &Table) -> Args {
        match table.spec.positions() {
            Positions::Heap | Positions::Row { .. } => Args::Index,
            Positions::Board { n } => Args::Point {
                names: vec!["x".into(), "y".into()],
                sizes: vec![n, n],
                outside: format!("off the board, 0 <= x, y < {n}"),
            },
            Positions::Grid(dims) => Args::Point {
                names: (1..=dims.axes()).map(|i| format!("p{i}")).collect(),
                sizes: dims.sizes().to_vec(),
                outside: format!("outside the shape {}", dims.text()),
            },
        }
    }
}

/// What the exported function stores and how it answers past what it stores.
struct Plan<'a> {
    table: &'a Table,
    /// The function's name (`sg` by default); its helpers' names are made from it.
    name: &'a str,
    /// Holds the stored values g(0 .. count) first: the table itself where its width serves
    /// (no copy), or the head repacked at the fewer bits it needs (smaller than the table).
    stored: Cow<'a, Packed>,
    /// How many values are stored.
    count: u64,
    /// The function's arguments.
    args: Args,
    /// (pre, period, saltus) where a rule answers past `stored`.
    rule: Option<(u64, u64, u64)>,
    /// The first n whose value does not fit 32 bits (the C, C++ and Rust return type), if the
    /// rule grows; values past it may fit again (Lasker's Nim: g(2^32 − 1) = 2^32 but
    /// g(2^32) = 2^32 − 1), so the functions test each value, not a bound on n.
    first_over32: Option<u64>,
}

impl<'a> Plan<'a> {
    fn new(table: &'a Table, name: &'a str) -> Result<Plan<'a>, String> {
        let values = &table.values;
        let len = values.len();
        let rule = table.rule.filter(|_| matches!(table.spec.positions(), Positions::Heap));
        match rule {
            // Checked over the whole table: the rule reproduces every stored value from pre +
            // period on.
            Some(r)
                if r.checked >= len
                    && r.period > 0
                    && r.pre.checked_add(r.period).is_some_and(|end| end <= len) =>
            {
                let count = r.pre + r.period;
                // Read in place from the table: a copy of the head widened to a machine word
                // would take up to 32 times the table's size.
                let max = (0..count).map(|i| values.get(i)).max().unwrap_or(0);
                let bits = bits_for(max as u64);
                let stored = if bits == values.bits() {
                    Cow::Borrowed(values)
                } else {
                    let packed =
                        Packed::try_from_fn(count, bits, |i| values.get(i)).map_err(|_| {
                            format!(
                                "{}: no memory left to repack its {count} stored values; export \
                                    on a machine with more memory",
                                table.spec
                            )
                        })?;
                    Cow::Owned(packed)
                };
                let first_over32 = match r.saltus {
                    0 => None,
                    s => (0..r.period)
                        .filter_map(|i| {
                            // The first k with g(pre + i) + k·s > u32::MAX.
                            let k = (u32::MAX - values.get(r.pre + i)) as u64 / s + 1;
                            k.checked_mul(r.period)?.checked_add(r.pre + i)
                        })
                        .min(),
                };
                Ok(Plan {
                    table,
                    name,
                    stored,
                    count,
                    args: Args::of(table),
                    rule: Some((r.pre, r.period, r.saltus)),
                    first_over32,
                })
            }
            Some(r) => Err(format!(
                "the rule stored with {} ({r}) does not cover its table; rebuild it",
                table.spec
            )),
            None => Ok(Plan {
                table,
                name,
                stored: Cow::Borrowed(values),
                count: len,
                args: Args::of(table),
                rule: None,
                first_over32: None,
            }),
        }
    }

    /// The six-bit groups of the stored bit stream, in order; bits past the last stored value
    /// (where the stream is the whole table's) read as 0.
    fn chars(&self) -> impl Iterator<Item = u8> + '_ {
        let payload = self.stored.payload();
        let total = self.count * self.stored.bits() as u64;
        let count = total.div_ceil(6);
        (0..count).map(move |j| {
            let at = j * 6;
            let byte = (at / 8) as usize;
            let word =
                payload[byte] as u16 | (payload.get(byte + 1).copied().unwrap_or(0) as u16) << 8;
            let keep = (total - at).min(6);
            b'0' + (word >> (at % 8) & ((1 << keep) - 1)) as u8
        })
    }

    /// What the function answers, for its comment (lines without comment markers).
    fn doc(&self) -> Vec<String> {
        let (t, name) = (self.table, self.name);
        let len = t.values.len();
        let holds = match &self.args {
            Args::Index => format!("the table holds n < {len}"),
            Args::Point { sizes, .. } => format!(
                "the table holds all {len} positions of {}",
                sizes.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
            ),
        };
        let mut doc = vec![
            format!("Sprague-Grundy values of {}, exported by sgtab ({holds}).", t.spec),
            self.argument(),
        ];
        let stops = format!(
            "{name} writes why on stderr and exits with status 1 (what the program wrote before \
                is flushed)"
        );
        match (self.rule, t.rule, &self.args) {
            (Some(_), Some(r), _) => {
                let count = self.count;
                doc.push(format!(
                    "Stores the {count} values g(0) to g({}); the rest from the rule {}.",
                    count - 1,
                    r.equation()
                ));
                if r.proven {
                    let theorem =
                        t.spec.theorem(&r).map(|th| format!(" ({})", th.name)).unwrap_or_default();
                    doc.push(format!("The rule is PROVEN{theorem}: every value is exact."));
                } else {
                    doc.push(format!(
                        "The rule was CHECKED up to n = {} only, NOT PROVEN: values for n >= \
                            {len} are a conjecture.",
                        r.checked - 1
                    ));
                }
                if let Some(n) = self.first_over32 {
                    doc.push(format!(
                        "{OVER32} first at n = {n}: for each n whose g(n) does not fit, {stops}."
                    ));
                }
            }
            (_, _, Args::Point { .. }) => doc.push(format!(
                "Stores all {len} values, one a position; for a coordinate past its size, {stops}."
            )),
            _ => doc.push(format!(
                "Stores all {len} values, g(0) to g({}); no rule is known past the table: for n \
                    >= {len}, {stops}.",
                len - 1
            )),
        }
        doc
    }

    /// What the argument means, in the comment's words: the game's own (a heap, a stone, a row,
    /// a square, a script's position), never a heap where the game has none.
    fn argument(&self) -> String {
        let t = self.table;
        match (t.spec.positions(), &self.args) {
            (Positions::Row { width }, _) => {
                format!(
                    "The argument n is a row of {width} cells as a bitmask: a chip in column p (1 \
                        = left, {width} = right) is bit {width} - p."
                )
            }
            (Positions::Board { n }, _) => {
                format!("The arguments are the square (x, y) of the piece, 0 <= x, y < {n}.")
            }
            (Positions::Grid(dims), _) => {
                let point: Vec<String> = (1..=dims.axes()).map(|i| format!("p{i}")).collect();
                format!(
                    "The arguments are a position ({}) of the box {}: 0 <= pi < the i-th size.",
                    point.join(", "),
                    dims.text()
                )
            }
            (Positions::Heap, _) => match t.spec.stored() {
                Some(stored) => match stored.script() {
                    Some(script) => format!(
                        "The argument n is position n of the script {}.lua (its positions are 0 \
                            to {}).",
                        script.name,
                        t.values.len() - 1
                    ),
                    None => format!(
                        "The argument n is the index of a value imported by sgtab import (0 to \
                            {}).",
                        t.values.len() - 1
                    ),
                },
                None if t.spec.game() == "funny" => {
                    "The argument n is a stone with n piles to its right.".to_string()
                }
                None => "The argument n is the heap size.".to_string(),
            },
        }
    }
}

/// Counts the bytes written, to size an export before making it.
struct Count(u64);

impl Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len() as u64;
        Ok(())
    }
}

/// The source text of `table` in `lang`, or why not: a table whose source would exceed
/// `max_bytes` is refused with the size it would have.
pub fn export(table: &Table, lang: Lang, max_bytes: u64, name: &str) -> Result<String, String> {
    check_name(name)?;
    let plan = Plan::new(table, name)?;
    let mut count = Count(0);
    plan.render(lang, &mut count).expect("counting never fails");
    if count.0 > max_bytes {
        return Err(format!(
            "the {} source for {} would be {} bytes ({:.1} KiB), more than --max-bytes \
                {max_bytes}; pass --max-bytes {} (or more) to write it",
            lang.name(),
            table.spec,
            count.0,
            count.0 as f64 / 1024.0,
            count.0
        ));
    }
    let mut source = String::new();
    source.try_reserve_exact(usize::try_from(count.0).unwrap_or(usize::MAX)).map_err(|_| {
        format!(
            "the {} source for {} would be {} bytes ({:.1} MiB), more than fits in memory here; \
                export a shorter table",
            lang.name(),
            table.spec,
            count.0,
            count.0 as f64 / (1 << 20) as f64
        )
    })?;
    plan.render(lang, &mut source).expect("writing to a String never fails");
    Ok(source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::GameSpec;
    use crate::values::Rule;

    /// Decodes the data characters back, as the exported code does.
    fn decode(chars: &[u8], b: u32, i: u64) -> u32 {
        (0..b as u64).fold(0, |v, j| {
            let bit = i * b as u64 + j;
            v | ((((chars[(bit / 6) as usize] - b'0') >> (bit % 6)) & 1) as u32) << j
        })
    }

    #[test]
    fn the_six_bit_stream_round_trips_every_width() {
        for bits in 1..=32u32 {
            let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
            let values: Vec<u32> = (0..301u32).map(|i| i.wrapping_mul(2654435761) & mask).collect();
            let spec = GameSpec::parse("sub:1:301").unwrap();
            let table = Table { spec, values: Packed::with_bits(&values, bits), rule: None };
            let plan = Plan::new(&table, "sg").unwrap();
            let chars: Vec<u8> = plan.chars().collect();
            assert_eq!(chars.len() as u64, (301 * bits as u64).div_ceil(6));
            assert!(chars.iter().all(|c| (b'0'..b'0' + 64).contains(c)));
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(decode(&chars, bits, i as u64), v, "bits {bits}, value {i}");
            }
        }
    }

    #[test]
    fn a_rule_stores_only_its_head_and_a_large_table_is_refused_with_its_size() {
        let values: Vec<u32> = (0..1000u32).map(|n| n % 2).collect();
        let mut table = Table {
            spec: GameSpec::parse("sub:1:1000").unwrap(),
            values: Packed::from_values(&values),
            rule: None,
        };
        let big = export(&table, Lang::C, 100, "sg").unwrap_err();
        assert!(
            big.starts_with("the C source for sub:1:1000 would be ") && big.contains("--max-bytes"),
            "{big}"
        );
        table.rule = Some(Rule { pre: 0, period: 2, saltus: 0, checked: 1000, proven: true });
        let small = export(&table, Lang::C, 65536, "sg").unwrap();
        assert!(small.len() < 1200 && small.contains("PROVEN"), "{small}");
    }
}
