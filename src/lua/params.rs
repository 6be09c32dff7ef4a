//! A parameter the script never reads is an error: `lua:x.lua:a=2` for a script that reads `A`
//! would otherwise build the default game under a name that says `a=2`.
//!
//! While the top level runs, the parameters are not globals but answers of the globals'
//! `__index` ([`super::library::PRELUDE`]), which notes each one read and each name read that
//! nothing set. A parameter not read there may still be read later, inside `moves`: it passes
//! where the script's text names it (an identifier outside comments and strings, not a field
//! after `.` or `:`), and is an error otherwise, naming it and the names the script read.

use super::state::{State, lua_message};
use crate::games::GameError;
use crate::games::stored::{Param, Script};

/// A parameter as the script sees it: an integer, or a list (`S={2,5,7}`) as a table with
/// keys 1 to n.
pub(crate) fn to_lua(lua: &mlua::Lua, value: &Param) -> mlua::Result<mlua::Value> {
    match value {
        Param::Int(v) => Ok(mlua::Value::Integer(*v)),
        Param::List(list) => lua.create_sequence_from(list.iter().copied()).map(mlua::Value::Table),
    }
}

const KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// Checks that every parameter of `script` was read by its top level or is named in its text.
pub(crate) fn check(
    state: &State,
    script: &Script,
    control: &mlua::Table,
) -> Result<(), GameError> {
    let names = |key: &str| -> Result<Vec<String>, GameError> {
        let t: mlua::Table = control.raw_get(key).map_err(|e| state.error(lua_message(&e)))?;
        let mut out: Vec<String> =
            t.pairs::<String, bool>().filter_map(Result::ok).map(|(k, _)| k).collect();
        out.sort();
        Ok(out)
    };
    let read = names("read")?;
    let unread: Vec<&str> = script
        .params
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !read.iter().any(|r| r == n))
        .collect();
    if unread.is_empty() {
        return Ok(());
    }
    let named = identifiers(&script.text);
    let Some(never) = unread.iter().find(|n| !named.iter().any(|w| w == *n)) else { return Ok(()) };
    let missing = names("missing")?;
    let reads = if missing.is_empty() {
        "it reads no global that it does not set".to_string()
    } else {
        let shown: Vec<String> =
            missing.iter().take(12).map(|m| super::library::escape_controls(m)).collect();
        format!(
            "the globals it reads without setting them: {}{}",
            shown.join(", "),
            if missing.len() > 12 { ", ..." } else { "" }
        )
    };
    Err(state.error(format!(
        "parameter {never} is never read by {} ({reads}); parameter names are case-sensitive",
        state.file
    )))
}

/// The identifiers of a Lua text that may name a global: outside comments and strings, not a
/// keyword, not a field after `.` or `:`.
fn identifiers(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // The last token's last byte, to tell a field (`t.N`) from a name (`x .. N`).
    let mut before = (b' ', b' ');
    while i < b.len() {
        let c = b[i];
        if b[i..].starts_with(b"--") {
            i = match long_bracket(b, i + 2) {
                Some(level) => close_long(b, i + 2, level),
                None => b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p),
            };
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            before = (b' ', b'"');
        } else if let Some(level) = (c == b'[').then(|| long_bracket(b, i)).flatten() {
            i = close_long(b, i, level);
            before = (b' ', b']');
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let field = (before.1 == b'.' && before.0 != b'.') || before.1 == b':';
            if !field && !KEYWORDS.contains(&word) {
                out.push(word);
            }
            before = (b' ', b'a');
        } else {
            if !c.is_ascii_whitespace() {
                before = (before.1, c);
            }
            i += 1;
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The level of a long bracket opening at `i` (`[[` is 0, `[==[` is 2), if one does.
fn long_bracket(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let level = b[i + 1..].iter().take_while(|&&c| c == b'=').count();
    (b.get(i + 1 + level) == Some(&b'[')).then_some(level)
}

/// Where the long bracket of `level` opened at `i` closes (past its end), or the text's end.
fn close_long(b: &[u8], i: usize, level: usize) -> usize {
    let mut close = vec![b']'];
    close.extend(std::iter::repeat_n(b'=', level));
    close.push(b']');
    let from = i + level + 2;
    b[from.min(b.len())..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(b.len(), |p| from + p + close.len())
}

#[cfg(test)]
mod tests {
    use super::identifiers;

    #[test]
    fn names_outside_comments_strings_and_fields() {
        let text = "-- N is the size\nlocal t = {}\nt.W = K .. M\nprint('P', [[Q]], \
            \"R\")\n--[==[ S ]==] obj:T()\nx = a..B\n";
        assert_eq!(identifiers(text), ["B", "K", "M", "a", "obj", "print", "t", "x"]);
    }
}
