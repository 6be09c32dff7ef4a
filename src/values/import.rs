//! Values from a user's own program made into a table (`sgtab import`), so that a game written
//! in any language gets sgtab's rule finder, `show`, `plot`, `export` and `sgq`.
//!
//! The input is text, one entry a line, in either of two forms (the first entry decides which,
//! and every line keeps to it):
//! - **values**: one value a line, in index order (`0`, `1`, `1`, `2`, ...);
//! - **indexed**: `index value` a line, in any order, every index of the shape exactly once
//!   (an OEIS b-file, `n a(n)`, is of this form).
//!
//! Blank lines and lines starting with `#` are skipped. Numbers are decimal; a value is at most
//! 2^32 − 1. Anything else is refused with its line number. Without a shape, the table is 1-D
//! and as long as the input; with one, the input must fill it exactly.

use super::{Dims, MAX_LEN, Packed};
use std::io::BufRead;

/// Longest line read, in bytes: two 20-digit numbers and spaces fit many times over. A longer
/// line is refused, not buffered, so a file without line breaks cannot inflate memory.
const MAX_LINE: usize = 256;

/// The values read, and the shape they fill.
pub struct Imported {
    pub dims: Dims,
    pub values: Packed,
}

/// Lines numbered past this are refused: an indexed entry keeps its line in 34 bits.
const MAX_LINES: u64 = 1 << 34;

/// Reads values in either form from `input` (`name` says where they come from in messages),
/// into `shape` when given. Errors are one line: `NAME:LINE: what is wrong`.
///
/// Memory grows with the input read, never with a number in it: indexed entries are kept as
/// (index, line, value) and sorted, so one line naming index 10^9 costs one entry, not a table
/// of 10^9 values.
pub fn read_values(
    mut input: impl BufRead,
    name: &str,
    shape: Option<Dims>,
) -> Result<Imported, String> {
    let mut values: Vec<u32> = Vec::new();
    // Indexed form: index << 34 | line, and the value.
    let mut indexed_entries: Vec<(u64, u32)> = Vec::new();
    let mut indexed: Option<bool> = None;
    let mut line = Vec::with_capacity(MAX_LINE + 1);
    let mut number = 0u64;
    loop {
        line.clear();
        let read = std::io::Read::take(&mut input, MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{name}: cannot read: {e}"))?;
        if read == 0 {
            break;
        }
        number += 1;
        let at = |what: String| format!("{name}:{number}: {what}");
        if number >= MAX_LINES {
            return Err(at(format!("more than {MAX_LINES} lines")));
        }
        if line.len() > MAX_LINE && !line.ends_with(b"\n") {
            return Err(at(format!(
                "a line longer than {MAX_LINE} bytes; each line holds one value, or an index and \
                    a value"
            )));
        }
        let text = std::str::from_utf8(&line).map_err(|_| at("not text (UTF-8)".into()))?.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = text.split_ascii_whitespace().collect();
        let first = indexed.is_none();
        let form = *indexed.get_or_insert(fields.len() == 2);
        let want = if form { 2 } else { 1 };
        if fields.len() != want {
            return Err(at(wrong_fields(fields.len(), first, form)));
        }
        let value = parse_value(fields[want - 1]).map_err(at)?;
        let (count, limit) = (
            if form { indexed_entries.len() } else { values.len() } as u64,
            shape.map_or(MAX_LEN, |d| d.len()),
        );
        if count >= limit {
            return Err(at(match shape {
                Some(d) => {
                    format!("more values than the {} positions of the shape {}", d.len(), d.text())
                }
                None => format!("more values than the largest table, {MAX_LEN} entries"),
            }));
        }
        if form {
            let i = parse_index(fields[0]).map_err(&at)?;
            if i >= limit {
                return Err(at(match shape {
                    Some(d) => format!(
                        "index {i} is outside the shape {} (indexes 0 to {})",
                        d.text(),
                        d.len() - 1
                    ),
                    None => format!("index {i} is past the largest table, {MAX_LEN} entries"),
                }));
            }
            push(&mut indexed_entries, (i << 34 | number, value)).map_err(at)?;
        } else {
            push(&mut values, value).map_err(at)?;
        }
    }
    if indexed == Some(true) {
        values = in_order(indexed_entries, shape.map(|d| d.len()), name)?;
    }
    if values.is_empty() {
        return Err(format!("{name}: no values (one a line, or `index value` lines)"));
    }
    let dims = match shape {
        Some(d) => d,
        None => Dims::new(&[values.len() as u64], MAX_LEN)?,
    };
    if (values.len() as u64) < dims.len() {
        return Err(format!(
            "{name}: {} values for the {} positions of the shape {}",
            values.len(),
            dims.len(),
            dims.text()
        ));
    }
    let bits = crate::values::packed::bits_for(values.iter().copied().max().unwrap_or(0) as u64);
    let values = Packed::try_from_fn(values.len() as u64, bits, |i| values[i as usize])
        .map_err(|_| format!("{name}: not enough memory for the table"))?;
    Ok(Imported { dims, values })
}

/// What is wrong with a line of `count` fields (`count` is not 1 or 2 on the `first` entry, or
/// not the count of the `indexed` form the first entry chose).
fn wrong_fields(count: usize, first: bool, indexed: bool) -> String {
    let fields = if count == 1 { "1 field".to_string() } else { format!("{count} fields") };
    if first {
        format!(
            "{fields} on the first line of values; a line holds one value, or an index and a value"
        )
    } else if indexed {
        format!("{fields}, but the lines before hold an index and a value each (`index value`)")
    } else {
        format!("{fields}, but the lines before hold one value each")
    }
}

/// Appends `item`, growing `v` fallibly by at most 2^26 entries at a time.
fn push<T>(v: &mut Vec<T>, item: T) -> Result<(), String> {
    if v.len() == v.capacity() {
        let more = v.len().clamp(1 << 12, 1 << 26);
        crate::memory::reserve(v, more, "the imported values").map_err(|e| e.0)?;
    }
    v.push(item);
    Ok(())
}

/// Indexed entries (index << 34 | line, value) as the values of indexes 0..N, N the shape's
/// length or the entries' count: every index once.
fn in_order(
    mut entries: Vec<(u64, u32)>,
    len: Option<u64>,
    name: &str,
) -> Result<Vec<u32>, String> {
    const LINE: u64 = (1 << 34) - 1;
    entries.sort_unstable_by_key(|e| e.0);
    let shaped = len.is_some();
    let len = len.unwrap_or(entries.len() as u64);
    // Twice the same index: name the later line. Sorted by index, then by line.
    let twice =
        entries.windows(2).filter(|w| w[0].0 >> 34 == w[1].0 >> 34).min_by_key(|w| w[1].0 & LINE);
    if let Some(w) = twice {
        return Err(format!(
            "{name}:{}: index {} is given a second time (first on line {})",
            w[1].0 & LINE,
            w[1].0 >> 34,
            w[0].0 & LINE
        ));
    }
    // Without a shape, N lines give indexes 0 to N - 1: one past them is out of range (with a
    // shape, indexes outside it were refused as they were read). The first such line is named.
    if !shaped
        && let Some(e) = entries.iter().filter(|e| e.0 >> 34 >= len).min_by_key(|e| e.0 & LINE)
    {
        let given = if len == 1 {
            "1 entry was given".to_string()
        } else {
            format!("{len} entries were given")
        };
        return Err(format!(
            "{name}:{}: index {} is out of range: {given}, so without --shape the indexes are 0 \
                to {}; give --shape N for a larger table (every index once)",
            e.0 & LINE,
            e.0 >> 34,
            len - 1
        ));
    }
    let gap = (0..len).zip(entries.iter()).find(|&(i, e)| e.0 >> 34 != i).map(|(i, _)| i);
    if let Some(i) = gap.or_else(|| ((entries.len() as u64) < len).then_some(entries.len() as u64))
    {
        let top = entries.last().map_or(0, |e| e.0 >> 34);
        return Err(format!(
            "{name}: index {i} is missing (every index from 0 to {} is given once; the largest \
                given is {top})",
            len.saturating_sub(1)
        ));
    }
    Ok(entries.into_iter().map(|e| e.1).collect())
}

/// A value: decimal digits, at most 2^32 − 1.
fn parse_value(text: &str) -> Result<u32, String> {
    let n = parse_index(text)?;
    u32::try_from(n)
        .map_err(|_| format!("the value {n} is more than 2^32 - 1, the largest a table holds"))
}

/// A non-negative decimal integer.
fn parse_index(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        let shown: String = text.chars().take(24).collect();
        return Err(format!("`{}` is not a non-negative decimal integer", shown.escape_debug()));
    }
    text.parse().map_err(|_| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, shape: Option<&[u64]>) -> Result<Vec<u32>, String> {
        let dims = shape.map(|s| Dims::new(s, MAX_LEN).unwrap());
        read_values(text.as_bytes(), "in", dims).map(|i| i.values.iter().collect())
    }

    #[test]
    fn both_forms_read_the_same_table() {
        assert_eq!(read("0\n1\n\n# a comment\n2\n0\n", None).unwrap(), vec![0, 1, 2, 0]);
        assert_eq!(read("3 0\n0 0\r\n2 2\n1 1\n", None).unwrap(), vec![0, 1, 2, 0]);
        assert_eq!(read("  7  \n", Some(&[1])).unwrap(), vec![7]);
        assert_eq!(read("0\n1\n1\n0\n2\n3\n", Some(&[2, 3])).unwrap(), vec![0, 1, 1, 0, 2, 3]);
        assert_eq!(read("4294967295\n", None).unwrap(), vec![u32::MAX]);
    }

    #[test]
    fn bad_lines_are_refused_with_their_number() {
        let cases: [(&str, Option<&[u64]>, &str); 14] = [
            ("0\n1\nx\n", None, "in:3: `x` is not a non-negative decimal integer"),
            ("0\n-1\n", None, "in:2: `-1` is not"),
            ("0\n4294967296\n", None, "in:2: the value 4294967296 is more than"),
            ("0\n1 2\n", None, "in:2: 2 fields, but the lines before hold one value each"),
            (
                "0 1\n1\n",
                None,
                "in:2: 1 field, but the lines before hold an index and a value each",
            ),
            (
                "0 1 2\n",
                None,
                "in:1: 3 fields on the first line of values; a line holds one value, or an index \
                    and a value",
            ),
            ("0 1\n0 2\n1 1\n", None, "in:2: index 0 is given a second time (first on line 1)"),
            (
                "0 1\n2 2\n",
                None,
                "in:2: index 2 is out of range: 2 entries were given, so without --shape the \
                    indexes are 0 to 1",
            ),
            (
                "0 1\n1073741823 5\n",
                None,
                "in:2: index 1073741823 is out of range: 2 entries were given",
            ),
            (
                "0 1\n2 2\n",
                Some(&[3]),
                "in: index 1 is missing (every index from 0 to 2 is given once",
            ),
            ("0\n1\n2\n", Some(&[2]), "in:3: more values than the 2 positions"),
            ("0\n", Some(&[2]), "in: 1 values for the 2 positions"),
            ("5 1\n", Some(&[2, 2]), "in:1: index 5 is outside the shape 2x2"),
            ("# only\n\n", None, "in: no values"),
        ];
        for (text, shape, want) in cases {
            let e = read(text, shape).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        let long = "1".repeat(300);
        assert!(read(&long, None).unwrap_err().starts_with("in:1: a line longer than 256 bytes"));
        assert_eq!(
            read_values(&b"0\n\xff\n"[..], "in", None).map(|_| ()).unwrap_err(),
            "in:2: not text (UTF-8)"
        );
        assert!(
            read(&format!("{} 1\n", MAX_LEN), None).unwrap_err().contains("past the largest table")
        );
        // One line naming a far index costs one entry, and is out of range of a one-entry table.
        assert!(read("1073741823 1\n", None).unwrap_err().starts_with(
            "in:1: index 1073741823 is out of range: 1 entry was given, so without --shape the \
                indexes are 0 to 0"
        ));
    }
}
