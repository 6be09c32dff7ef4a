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

use super::Packed;
use crate::games::stored::MAX_POSITIONS;
use crate::games::Dims;
use std::io::BufRead;

/// Longest line read, in bytes: two 20-digit numbers and spaces fit many times over. A longer
/// line is refused, not buffered, so a file without line breaks cannot inflate memory.
const MAX_LINE: usize = 256;

/// The values read, and the shape they fill.
pub struct Imported {
    pub dims: Dims,
    pub values: Packed,
}

/// Reads values in either form from `input` (`name` says where they come from in messages),
/// into `shape` when given. Errors are one line: `NAME:LINE: what is wrong`.
pub fn read_values(mut input: impl BufRead, name: &str, shape: Option<Dims>) -> Result<Imported, String> {
    let mut values: Vec<u32> = Vec::new();
    // Indexed form: which indexes were given (a bit each), and how many.
    let mut seen: Vec<u64> = Vec::new();
    let mut indexed: Option<bool> = None;
    let mut line = Vec::with_capacity(MAX_LINE + 1);
    let mut number = 0u64;
    loop {
        line.clear();
        let read = std::io::Read::take(&mut input, MAX_LINE as u64 + 1).read_until(b'\n', &mut line).map_err(|e| format!("{name}: cannot read: {e}"))?;
        if read == 0 {
            break;
        }
        number += 1;
        let at = |what: String| format!("{name}:{number}: {what}");
        if line.len() > MAX_LINE && !line.ends_with(b"\n") {
            return Err(at(format!("a line longer than {MAX_LINE} bytes; each line holds one value, or an index and a value")));
        }
        let text = std::str::from_utf8(&line).map_err(|_| at("not text (UTF-8)".into()))?.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = text.split_ascii_whitespace().collect();
        let form = *indexed.get_or_insert(fields.len() == 2);
        let want = if form { 2 } else { 1 };
        if fields.len() != want {
            let expected = if form { "`index value` as the lines before" } else { "one value as the lines before" };
            return Err(at(format!("{} fields where {expected}", fields.len())));
        }
        let value = parse_value(fields[want - 1]).map_err(at)?;
        if form {
            let i = parse_index(fields[0]).map_err(&at)?;
            if let Some(dims) = shape.filter(|d| i >= d.len()) {
                return Err(at(format!("index {i} is outside the shape {} (indexes 0 to {})", dims.text(), dims.len() - 1)));
            }
            if i >= MAX_POSITIONS {
                return Err(at(format!("index {i} is past the largest table, {MAX_POSITIONS} entries")));
            }
            let need = usize::try_from(i + 1).map_err(|_| at("index too large for this machine".into()))?;
            if values.len() < need {
                grow(&mut values, need).map_err(&at)?;
                seen.resize(need.div_ceil(64), 0);
            }
            let (word, bit) = ((i / 64) as usize, i % 64);
            if seen[word] >> bit & 1 == 1 {
                return Err(at(format!("index {i} is given a second time")));
            }
            seen[word] |= 1 << bit;
            values[i as usize] = value;
        } else {
            if let Some(dims) = shape.filter(|d| values.len() as u64 >= d.len()) {
                return Err(at(format!("more values than the {} positions of the shape {}", dims.len(), dims.text())));
            }
            if values.len() as u64 >= MAX_POSITIONS {
                return Err(at(format!("more values than the largest table, {MAX_POSITIONS} entries")));
            }
            if values.len() == values.capacity() {
                let more = values.len().clamp(1 << 12, 1 << 26);
                crate::memory::reserve(&mut values, more, "the imported values").map_err(|e| at(e.0))?;
            }
            values.push(value);
        }
    }
    if values.is_empty() {
        return Err(format!("{name}: no values (one a line, or `index value` lines)"));
    }
    let dims = match shape {
        Some(d) => d,
        None => Dims::new(&[values.len() as u64], MAX_POSITIONS)?,
    };
    if (values.len() as u64) < dims.len() {
        return Err(format!("{name}: {} values for the {} positions of the shape {}", values.len(), dims.len(), dims.text()));
    }
    if indexed == Some(true) {
        if let Some(i) = first_missing(&seen, values.len() as u64) {
            return Err(format!("{name}: index {i} is missing (every index from 0 to {} is given once)", values.len() - 1));
        }
    }
    let values = Packed::try_from_fn(values.len() as u64, super::packed::bits_for(values.iter().copied().max().unwrap_or(0) as u64), |i| values[i as usize])
        .map_err(|_| format!("{name}: not enough memory for the table"))?;
    Ok(Imported { dims, values })
}

/// A value: decimal digits, at most 2^32 − 1.
fn parse_value(text: &str) -> Result<u32, String> {
    let n = parse_index(text)?;
    u32::try_from(n).map_err(|_| format!("the value {n} is more than 2^32 - 1, the largest a table holds"))
}

/// A non-negative decimal integer.
fn parse_index(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        let shown: String = text.chars().take(24).collect();
        return Err(format!("`{}` is not a non-negative decimal integer", shown.escape_debug()));
    }
    text.parse().map_err(|_| format!("`{text}` is too large"))
}

/// `values` grown to `len` (new entries 0), allocated fallibly in steps that at least double.
fn grow(values: &mut Vec<u32>, len: usize) -> Result<(), String> {
    let more = len - values.len();
    if values.capacity() < len {
        let step = more.max(values.len()).max(1 << 12);
        let step = step.min(MAX_POSITIONS as usize - values.len()).max(more);
        crate::memory::reserve(values, step, "the imported values").map_err(|e| e.0)?;
    }
    values.resize(len, 0);
    Ok(())
}

/// The first index below `len` whose bit is clear.
fn first_missing(seen: &[u64], len: u64) -> Option<u64> {
    (0..len).find(|&i| seen[(i / 64) as usize] >> (i % 64) & 1 == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, shape: Option<&[u64]>) -> Result<Vec<u32>, String> {
        let dims = shape.map(|s| Dims::new(s, MAX_POSITIONS).unwrap());
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
        let cases: [(&str, Option<&[u64]>, &str); 11] = [
            ("0\n1\nx\n", None, "in:3: `x` is not a non-negative decimal integer"),
            ("0\n-1\n", None, "in:2: `-1` is not"),
            ("0\n4294967296\n", None, "in:2: the value 4294967296 is more than"),
            ("0\n1 2\n", None, "in:2: 2 fields where one value"),
            ("0 1\n1\n", None, "in:2: 1 fields where `index value`"),
            ("0 1\n0 2\n", None, "in:2: index 0 is given a second time"),
            ("0 1\n2 2\n", None, "in: index 1 is missing"),
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
        assert_eq!(read_values(&b"0\n\xff\n"[..], "in", None).map(|_| ()).unwrap_err(), "in:2: not text (UTF-8)");
        assert!(read(&format!("{} 1\n", MAX_POSITIONS), None).unwrap_err().contains("past the largest table"));
    }
}
