//! `sgtab dump`: a table's values in a form another program loads: plain text, CSV with a
//! header, JSON with the spec and the rule, NumPy's `.npy` with the table's shape, or an OEIS
//! b-file; all of it or an inclusive range of its indexes (for a board or a k-D game, of its
//! first axis).
//!
//! The JSON and `.npy` writers are written here: each is a header line and a stream of
//! integers (the `.npy` header is one Python dict literal, NumPy's format 1.0), and a
//! serialisation crate would hold the whole table as values first.

use crate::games::Positions;
use crate::table::Table;
use std::io::{self, Write};

/// A form to dump in: one value a line (`Text`); CSV with a header (`n,g`; `row,g` for chess
/// rows; `x,y,g` for boards; `p1,...,pk,g` for k-D games), then a line a position (`Csv`);
/// `{"spec": ..., "shape": [...], "rule": ..., "proven": ..., "first": ..., "values": [...]}`
/// (`Json`); NumPy's `.npy`, the narrowest unsigned dtype, the table's shape (`Npy`); an OEIS
/// b-file, `n a(n)` a line (`Bfile`). (The variants have no docs of their own, which would show
/// as a second list in `sgtab dump --help` beside the flag's.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    Text,
    Csv,
    Json,
    Npy,
    Bfile,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Npy => "npy",
            Format::Bfile => "bfile",
        }
    }
}

/// An inclusive range of the first axis, `A..B`: both ends a number, A ≤ B.
pub fn parse_range(text: &str) -> Result<(u64, u64), String> {
    let bad = || {
        format!(
            "--range {text:?} is not A..B (two indexes, A at most B, both ends included), e.g. \
                --range 0..99"
        )
    };
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let (a, b) =
        (a.trim().parse::<u64>().map_err(|_| bad())?, b.trim().parse::<u64>().map_err(|_| bad())?);
    if a > b {
        return Err(bad());
    }
    Ok((a, b))
}

/// What a dump covers: the first axis's indexes `first..=last`, and the sizes of the other axes.
struct Span {
    first: u64,
    last: u64,
    /// Sizes of the axes after the first (none for a 1-D table).
    rest: Vec<u64>,
}

impl Span {
    /// Table indexes per step of the first axis.
    fn stride(&self) -> u64 {
        self.rest.iter().product()
    }

    /// The table indexes it covers.
    fn indexes(&self) -> std::ops::Range<u64> {
        self.first * self.stride()..(self.last + 1) * self.stride()
    }

    /// The shape of the values dumped: the first axis cut to the range.
    fn shape(&self) -> Vec<u64> {
        let mut shape = vec![self.last - self.first + 1];
        shape.extend(&self.rest);
        shape
    }
}

/// The first axis and the others of `table`, and the range asked for checked against it.
fn span(table: &Table, range: Option<(u64, u64)>) -> Result<Span, String> {
    let len = table.values.len();
    let (first_axis, rest) = match table.spec.positions() {
        Positions::Board { n } => (n, vec![n]),
        Positions::Grid(dims) => (dims.sizes()[0], dims.sizes()[1..].to_vec()),
        Positions::Heap | Positions::Row { .. } => (len, vec![]),
    };
    let (first, last) = range.unwrap_or((0, first_axis - 1));
    if last >= first_axis {
        let what = if rest.is_empty() { "indexes" } else { "first coordinates" };
        return Err(format!(
            "--range {first}..{last} is past {}: its {what} run from 0 to {}",
            table.spec,
            first_axis - 1
        ));
    }
    Ok(Span { first, last, rest })
}

/// Writes `table`'s values (those of `range`, or all) to `out` in `format`; a range that does
/// not fit the table is an `InvalidInput` error ([`check`] says so before any output).
pub fn dump(
    table: &Table,
    format: Format,
    range: Option<(u64, u64)>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let span = span(table, range).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    write(table, format, &span, out)
}

/// Checks that `range` fits `table`, so that a bad one is refused before any output is made.
pub fn check(table: &Table, range: Option<(u64, u64)>) -> Result<(), String> {
    span(table, range).map(|_| ())
}

fn write(table: &Table, format: Format, span: &Span, out: &mut dyn Write) -> io::Result<()> {
    let values = &table.values;
    let mut buf = itoa::Buffer::new();
    match format {
        Format::Text => {
            for i in span.indexes() {
                out.write_all(buf.format(values.get(i)).as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        Format::Bfile => {
            for i in span.indexes() {
                writeln!(out, "{i} {}", values.get(i))?;
            }
        }
        Format::Csv => {
            let point_names: Vec<String> = match table.spec.positions() {
                Positions::Heap => vec!["n".into()],
                Positions::Row { .. } => vec!["row".into()],
                Positions::Board { .. } => vec!["x".into(), "y".into()],
                Positions::Grid(dims) => (1..=dims.axes()).map(|i| format!("p{i}")).collect(),
            };
            writeln!(out, "{},g", point_names.join(","))?;
            let mut sizes = vec![u64::MAX];
            sizes.extend(&span.rest);
            let mut point = vec![0u64; sizes.len()];
            for i in span.indexes() {
                // The point of index i, row-major (the first axis unbounded).
                let mut rest = i;
                for (p, &d) in point.iter_mut().zip(&sizes).rev() {
                    if d == u64::MAX {
                        *p = rest;
                    } else {
                        *p = rest % d;
                        rest /= d;
                    }
                }
                for p in &point {
                    out.write_all(buf.format(*p).as_bytes())?;
                    out.write_all(b",")?;
                }
                out.write_all(buf.format(values.get(i)).as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        Format::Json => json(table, span, out)?,
        Format::Npy => npy(table, span, out)?,
    }
    out.flush()
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

fn json(table: &Table, span: &Span, out: &mut dyn Write) -> io::Result<()> {
    let shape: Vec<String> = span.shape().iter().map(u64::to_string).collect();
    let rule = match &table.rule {
        Some(r) => format!(
            "{{\"pre\": {}, \"period\": {}, \"saltus\": {}, \"checked\": {}}}",
            r.pre, r.period, r.saltus, r.checked
        ),
        None => "null".to_string(),
    };
    let proven = table.rule.is_some_and(|r| r.proven);
    write!(
        out,
        "{{\"spec\": {}, \"shape\": [{}], \"first\": {}, \"rule\": {rule}, \"proven\": {proven}, \
            \"values\": [",
        json_string(&table.spec.to_string()),
        shape.join(", "),
        span.first
    )?;
    let mut buf = itoa::Buffer::new();
    for (k, i) in span.indexes().enumerate() {
        if k > 0 {
            out.write_all(if k % 32 == 0 { b",\n" } else { b", " })?;
        }
        out.write_all(buf.format(table.values.get(i)).as_bytes())?;
    }
    out.write_all(b"]}\n")
}

fn npy(table: &Table, span: &Span, out: &mut dyn Write) -> io::Result<()> {
    let indexes = span.indexes();
    let max = indexes.clone().map(|i| table.values.get(i)).max().unwrap_or(0);
    let width: usize = if max <= u8::MAX as u32 {
        1
    } else if max <= u16::MAX as u32 {
        2
    } else {
        4
    };
    let shape = span.shape();
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    // A 1-D shape is written `(N,)`, as Python writes a one-element tuple.
    let tuple =
        if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!(
        "{{'descr': '{}u{width}', 'fortran_order': False, 'shape': {tuple}, }}",
        if width == 1 { '|' } else { '<' }
    );
    // Magic, version, header length, header: the whole a multiple of 64 bytes, ending in '\n'.
    let total = (10 + header.len() + 1).next_multiple_of(64);
    header.extend(std::iter::repeat_n(' ', total - 10 - header.len() - 1));
    header.push('\n');
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    let mut chunk = Vec::with_capacity(1 << 16);
    for i in indexes {
        let v = table.values.get(i);
        chunk.extend_from_slice(&v.to_le_bytes()[..width]);
        if chunk.len() >= 1 << 16 {
            out.write_all(&chunk)?;
            chunk.clear();
        }
    }
    out.write_all(&chunk)
}
