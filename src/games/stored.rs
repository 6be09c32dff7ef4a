//! Games that are not a family of sgtab's own: a user's **script** (`lua:PATH[:NAME=VALUE,...]`,
//! a game given by its moves in Lua) and an **imported** table (`import:NAME`, values from a
//! user's own program). What a table of such a game needs besides its values travels in its
//! `.sgt` file (see [`crate::table::format`]): the shape of its positions, and for a script its
//! text. Read back, the table's game is a [`Stored`]: it knows its name, shape and origin, and
//! needs no Lua, so `sgq`, `show`, `dump`, `plot` and `export` serve it; only `sgtab build` and
//! `sgtab verify` run the script again (`crate::lua`, in `sgtab` alone).
//!
//! Naming: a script's canonical spec is `lua:NAME@HASH[:K=V,...]`: NAME its file's name without
//! `.lua`, HASH eight hex digits of the CRC-32 of its text, the parameters sorted by name. The
//! same text with the same parameters names the same table wherever the file lies; an edited
//! script names a new one.

use super::{Dims, Family, Game, GameError, Positions};
use super::{MAX_LEN, SpecError};
use crate::progress::Progress;
use crate::values::Packed;
use std::path::Path;
use std::sync::Arc;

/// The family of games given by Lua scripts.
pub static LUA: Family = Family {
    name: "lua",
    grammar: "lua:PATH[:NAME=VALUE,...] (a Lua script, see docs/scripts.md)",
    parse: parse_lua,
};

/// The family of games given by C++ sources (built by `crate::native`, in `sgtab` alone).
pub static CPP: Family = Family {
    name: "cpp",
    grammar: "cpp:PATH[:NAME=VALUE,...] (C++, see docs/native.md)",
    parse: parse_native,
};

/// The family of games given by a shared library (`native:PATH`).
pub static NATIVE: Family = Family {
    name: "native",
    grammar: "native:PATH (a shared library, see docs/native.md)",
    parse: parse_native,
};

/// The family of imported tables.
pub static IMPORT: Family =
    Family { name: "import", grammar: "import:NAME (made by sgtab import)", parse: parse_import };

/// Longest script read, in bytes.
pub const MAX_SCRIPT: usize = crate::sgt::MAX_SOURCE;
/// Most parameters a script is given.
pub const MAX_PARAMS: usize = 16;
/// Longest name (of a script, a parameter, an import).
const MAX_NAME: usize = 40;

/// `lua:...` through [`crate::spec::GameSpec::parse`]: a script's game needs Lua to learn its
/// shape, so it is opened by [`Script::parse`] and built by `sgtab build`; a canonical
/// `lua:NAME@HASH` names a table, which `sgq` and `sgtab` find by [`Script::file_name`].
fn parse_lua(spec: &str) -> Option<Result<Arc<dyn Game>, SpecError>> {
    spec.strip_prefix("lua:")?;
    Some(Err(SpecError(format!(
        "`{}` is a script's game: build it with `sgtab build {}`, or query its table with `sgq \
            value {}`",
        spec.escape_debug(),
        spec.escape_debug(),
        spec.escape_debug()
    ))))
}

/// `cpp:...` and `native:...` through [`crate::spec::GameSpec::parse`]: such a game is compiled
/// or loaded by `sgtab build`, not parsed here.
fn parse_native(spec: &str) -> Option<Result<Arc<dyn Game>, SpecError>> {
    if !spec.starts_with("cpp:") && !spec.starts_with("native:") {
        return None;
    }
    Some(Err(SpecError(format!(
        "`{}` is a native game: build it with `sgtab build {}`, or query its table with `sgq \
            value {}`",
        spec.escape_debug(),
        spec.escape_debug(),
        spec.escape_debug()
    ))))
}

fn parse_import(spec: &str) -> Option<Result<Arc<dyn Game>, SpecError>> {
    let name = spec.strip_prefix("import:")?;
    Some(check_name(name, "import name").and_then(|_| {
        Err(SpecError(format!(
            "`import:{name}` is an imported table: make it with `sgtab import FILE --name {name} \
                --shape N`, query it with `sgq value import:{name}`"
        )))
    }))
}

/// A name as sgtab keeps it: letters, digits, `_`, `-` and `.`, not starting with `.` or `-`,
/// at most 40 characters.
pub fn check_name(name: &str, what: &str) -> Result<(), SpecError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        && !name.starts_with(['.', '-']);
    if ok {
        Ok(())
    } else {
        Err(SpecError(format!(
            "bad {what} `{}`: use 1 to {MAX_NAME} letters, digits, `_`, `-` or `.`, not starting \
                with `.` or `-`",
            name.escape_debug()
        )))
    }
}

/// The language a game's source is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// A Lua script (`lua:`), run sandboxed.
    Lua,
    /// A C++ source (`cpp:`), compiled against sgtab's header and run natively.
    Cpp,
}

impl Lang {
    /// The spec's prefix word: `lua`, `cpp`.
    pub fn word(self) -> &'static str {
        match self {
            Lang::Lua => "lua",
            Lang::Cpp => "cpp",
        }
    }

    /// The file extension a source of this language is shown with: `lua`, `cpp`.
    pub fn extension(self) -> &'static str {
        self.word()
    }

    fn of(spec: &str) -> Option<(Lang, &str)> {
        [Lang::Lua, Lang::Cpp].into_iter().find_map(|l| {
            spec.strip_prefix(l.word()).and_then(|r| r.strip_prefix(':')).map(|r| (l, r))
        })
    }
}

/// A parameter's value: an integer, or a list of integers (`S={2,5,7}`: a Lua table in a
/// script, a braced list in C++, usable in a range-for).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Param {
    Int(i64),
    List(Vec<i64>),
}

impl From<i64> for Param {
    fn from(v: i64) -> Param {
        Param::Int(v)
    }
}

impl Param {
    /// The integer, where it is one.
    pub fn int(&self) -> Option<i64> {
        match self {
            Param::Int(v) => Some(*v),
            Param::List(_) => None,
        }
    }
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Param::Int(v) => write!(f, "{v}"),
            Param::List(l) => {
                let parts: Vec<String> = l.iter().map(i64::to_string).collect();
                write!(f, "{{{}}}", parts.join(","))
            }
        }
    }
}

/// Most integers in one list parameter.
pub const MAX_LIST: usize = 256;

/// A game's source (a Lua script, a C++ file) and the parameters it is run with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// Its language.
    pub lang: Lang,
    /// Its file's name without the extension (sanitized to a [`check_name`] name).
    pub name: String,
    /// Its text.
    pub text: String,
    /// Parameters (a script's globals, C++ macros), sorted by name.
    pub params: Vec<(String, Param)>,
    /// For C++, the version of sgtab's header it was compiled against (0 for Lua).
    pub header: u32,
}

impl Script {
    /// `lua:PATH[:NAME=VALUE,...]` or `cpp:PATH[:NAME=VALUE,...]`, reading the source at
    /// PATH; `None` when `spec` starts with neither. A spec in canonical form
    /// (`lua:NAME@HASH...`) names a table, not a file: it is refused here with a pointer to the
    /// file.
    pub fn parse(spec: &str) -> Option<Result<Script, SpecError>> {
        let (lang, rest) = Lang::of(spec.trim())?;
        Some(Self::open(lang, rest))
    }

    fn open(lang: Lang, rest: &str) -> Result<Script, SpecError> {
        let word = lang.word();
        let bad = |why: String| {
            SpecError(format!(
                "bad {} spec `{word}:{}`: {why}",
                if lang == Lang::Lua { "script" } else { "C++" },
                rest.escape_debug()
            ))
        };
        // PATH may hold `:`; the parameters are what follows the last `:` outside braces, if
        // it has a `=`.
        let (path, params) = match split_params(rest) {
            Some((path, params)) if params.contains('=') => (path, params),
            _ => (rest, ""),
        };
        if path.is_empty() {
            return Err(bad(format!("no path (expected {word}:PATH[:NAME=VALUE,...])")));
        }
        let params = parse_params(params).map_err(&bad)?;
        let file = Path::new(path);
        let text = read_script(file).map_err(bad)?;
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let header = if lang == Lang::Cpp { HEADER_VERSION } else { 0 };
        Ok(Script { lang, name: sanitize(&stem), text, params, header })
    }

    /// A Lua script from its parts (a table's stored script; tests).
    pub fn new(name: &str, text: &str, params: Vec<(String, i64)>) -> Result<Script, SpecError> {
        Script::with(
            Lang::Lua,
            name,
            text,
            params.into_iter().map(|(k, v)| (k, Param::Int(v))).collect(),
        )
    }

    /// A source of `lang` from its parts.
    pub fn with(
        lang: Lang,
        name: &str,
        text: &str,
        params: Vec<(String, Param)>,
    ) -> Result<Script, SpecError> {
        check_name(name, "source name")?;
        let mut params = params;
        params.sort();
        let header = if lang == Lang::Cpp { HEADER_VERSION } else { 0 };
        Ok(Script { lang, name: name.to_string(), text: text.to_string(), params, header })
    }

    /// The spec that runs this source at `path` with `params`: `lua:PATH[:K=V,...]`.
    pub fn spec_at(&self, path: &str, params: &[(String, Param)]) -> String {
        let params: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let word = self.lang.word();
        if params.is_empty() {
            format!("{word}:{path}")
        } else {
            format!("{word}:{path}:{}", params.join(","))
        }
    }

    /// The source path a spec `lua:PATH[:NAME=VALUE,...]` (or `cpp:`) names, as
    /// [`Script::parse`] reads it.
    pub fn path_of(spec: &str) -> Option<&str> {
        let (_, rest) = Lang::of(spec.trim())?;
        Some(match split_params(rest) {
            Some((path, params)) if params.contains('=') => path,
            _ => rest,
        })
    }

    /// The file name it is shown by: `knight.lua`, `knight.cpp`.
    pub fn file(&self) -> String {
        format!("{}.{}", self.name, self.lang.extension())
    }

    /// Eight hex digits of the CRC-32 of the text.
    pub fn hash(&self) -> String {
        format!("{:08x}", crc32fast::hash(self.text.as_bytes()))
    }

    /// `lua:NAME@HASH[:K=V,...]` (`cpp:` for C++).
    pub fn canonical(&self) -> String {
        let mut text = format!("{}:{}@{}", self.lang.word(), self.name, self.hash());
        if !self.params.is_empty() {
            let params: Vec<String> = self.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            text.push(':');
            text.push_str(&params.join(","));
        }
        text
    }

    /// The file name of its table (as [`crate::spec::GameSpec::file_name`] makes it).
    pub fn file_name(&self) -> String {
        super::file_name_of(&self.canonical())
    }

    /// The parameters as `N=8, W=3` (or `none`).
    pub fn params_text(&self) -> String {
        if self.params.is_empty() {
            return "none".into();
        }
        self.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
    }

    /// The script named by a canonical `lua:NAME@HASH[:...]` (or `cpp:`) and the stored
    /// text: the hash must be the text's.
    pub fn from_canonical(canonical: &str, text: &str) -> Result<Script, String> {
        let (lang, rest) = Lang::of(canonical).ok_or("not a script's spec")?;
        let (head, params) = rest.split_once(':').unwrap_or((rest, ""));
        let (name, hash) = head.split_once('@').ok_or("no @HASH after the script's name")?;
        let params = parse_params(params)?;
        let script = Script::with(lang, name, text, params).map_err(|e| e.0)?;
        if script.hash() != hash {
            return Err(format!(
                "the stored script's hash is {}, its spec says {hash}",
                script.hash()
            ));
        }
        if script.canonical() != canonical {
            return Err("the script's spec is not in canonical form".into());
        }
        Ok(script)
    }
}

/// A script file's text: a regular file of at most [`MAX_SCRIPT`] bytes of UTF-8.
fn read_script(path: &Path) -> Result<String, String> {
    let bytes = crate::output::read_small(path, MAX_SCRIPT as u64)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// A file stem as a name: other characters become `_`, at most [`MAX_NAME`] of them.
fn sanitize(stem: &str) -> String {
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "_-.".contains(c) { c } else { '_' })
        .take(MAX_NAME)
        .collect();
    if name.is_empty() || name.starts_with(['.', '-']) {
        name.insert(0, 's');
        name.truncate(MAX_NAME);
    }
    name
}

/// The header version a C++ source is compiled against today (`crate::native`'s header).
pub const HEADER_VERSION: u32 = 1;

/// `PATH:PARAMS` split at the last `:` outside braces (a list `S={1,2}` holds no `:`, but a
/// path may).
fn split_params(rest: &str) -> Option<(&str, &str)> {
    let (mut depth, mut at) = (0i32, None);
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ':' if depth == 0 => at = Some(i),
            _ => {}
        }
    }
    at.map(|i| (&rest[..i], &rest[i + 1..]))
}

/// `text` split at the commas outside braces.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// A parameter's value: a 64-bit integer, or a list `{a,b,...}` of them.
fn parse_value(name: &str, value: &str) -> Result<Param, String> {
    let int = |v: &str| {
        v.trim().parse::<i64>().map_err(|_| {
            format!(
                "parameter {name} = `{value}` is not a whole number (a 64-bit integer) or a list \
                    {{a,b,...}} of them"
            )
        })
    };
    match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
        Some(inner) if inner.trim().is_empty() => Ok(Param::List(Vec::new())),
        Some(inner) => {
            let list = inner.split(',').map(int).collect::<Result<Vec<i64>, String>>()?;
            if list.len() > MAX_LIST {
                return Err(format!(
                    "parameter {name} lists {} integers, more than {MAX_LIST}",
                    list.len()
                ));
            }
            Ok(Param::List(list))
        }
        None => int(value).map(Param::Int),
    }
}

/// `NAME=VALUE,...`: Lua names, integer or list values, each name once; sorted by name.
pub fn parse_params(text: &str) -> Result<Vec<(String, Param)>, String> {
    let mut params: Vec<(String, Param)> = Vec::new();
    if text.is_empty() {
        return Ok(params);
    }
    for part in split_top(text) {
        let (name, value) =
            part.split_once('=').ok_or_else(|| format!("parameter `{part}` is not NAME=VALUE"))?;
        let ident = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && name.len() <= MAX_NAME;
        if !ident {
            return Err(format!(
                "parameter name `{name}` is not a Lua name (a letter or `_`, then letters, digits \
                    or `_`)"
            ));
        }
        let value = parse_value(name, value)?;
        if params.iter().any(|(n, _)| n == name) {
            return Err(format!("parameter {name} is given twice"));
        }
        params.push((name.to_string(), value));
    }
    if params.len() > MAX_PARAMS {
        return Err(format!("{} parameters, more than {MAX_PARAMS}", params.len()));
    }
    params.sort();
    Ok(params)
}

/// Most bytes of a shared library `native:PATH` names.
pub const MAX_LIBRARY: u64 = 1 << 30;

/// The canonical spec of the game of the shared library at `path`: `native:NAME@HASH`, NAME
/// its file's name up to the first `.` (`libgame.so` is `libgame`), HASH eight hex digits of
/// the CRC-32 of its bytes, so that a rebuilt library names a new table.
pub fn library_canonical(path: &Path) -> Result<String, SpecError> {
    let bytes = crate::output::read_small(path, MAX_LIBRARY)
        .map_err(|e| SpecError(format!("cannot read the library {}: {e}", path.display())))?;
    let stem = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = stem.split('.').next().unwrap_or_default();
    Ok(format!("native:{}@{:08x}", sanitize(stem), crc32fast::hash(&bytes)))
}

/// Where a stored game came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A script, with its text and parameters.
    Script(Script),
    /// Values imported under this name.
    Import(String),
    /// Values computed by a shared library (`native:PATH`), named by its canonical spec
    /// `native:NAME@HASH` (HASH: the CRC-32 of the library's bytes). The file does not carry
    /// the library, so the table cannot be recomputed from it.
    Library(String),
}

impl Origin {
    /// The origin a spec names: `lua:PATH[:NAME=VALUE,...]` or `cpp:PATH[...]` (the source is
    /// read), `native:PATH` (the library is read to name it), `import:NAME`; nothing runs.
    /// `None` where `text` is no stored kind's spec.
    pub fn parse(text: &str) -> Option<Result<Origin, SpecError>> {
        let text = text.trim();
        if let Some(script) = Script::parse(text) {
            return Some(script.map(Origin::Script));
        }
        if let Some(path) = text.strip_prefix("native:") {
            return Some(library_canonical(Path::new(path)).map(Origin::Library));
        }
        let name = text.strip_prefix("import:")?;
        Some(check_name(name, "import name").map(|_| Origin::Import(name.to_string())))
    }

    /// Whether `text` is written as a stored kind's spec (its prefix alone is looked at).
    pub fn is_spelled(text: &str) -> bool {
        [&LUA, &CPP, &NATIVE, &IMPORT]
            .iter()
            .any(|f| text.trim().strip_prefix(f.name).is_some_and(|r| r.starts_with(':')))
    }

    /// The kind of game it is, as a runtime names what it runs (`lua`, `cpp`, `native`,
    /// `import`).
    pub fn kind(&self) -> &'static str {
        self.family().name
    }

    fn family(&self) -> &'static Family {
        match self {
            Origin::Script(s) if s.lang == Lang::Cpp => &CPP,
            Origin::Script(_) => &LUA,
            Origin::Import(_) => &IMPORT,
            Origin::Library(_) => &NATIVE,
        }
    }

    /// Its canonical spec: `lua:NAME@HASH[:K=V,...]`, `native:NAME@HASH`, `import:NAME`.
    pub fn canonical(&self) -> String {
        match self {
            Origin::Script(s) => s.canonical(),
            Origin::Import(name) => format!("import:{name}"),
            Origin::Library(canonical) => canonical.clone(),
        }
    }

    /// The file name of its table.
    pub fn file_name(&self) -> String {
        match self {
            Origin::Import(name) => format!("{name}.sgt"),
            _ => super::file_name_of(&self.canonical()),
        }
    }

    /// The `sgtab` command that makes its table in `dir`, `given` being the spec as the user
    /// typed it.
    pub fn make_command(&self, given: &str, dir: &str) -> String {
        match self {
            Origin::Import(name) => {
                format!("sgtab import FILE --name {name} --shape N --dir {dir}")
            }
            _ => format!("sgtab build {} --dir {dir}", shell_word(given.trim())),
        }
    }
}

/// `text` as one shell word: as it is when that is safe, else in single quotes.
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-:,+=@%{}".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A script's or an imported table's game as its file describes it: its name, the shape of its
/// positions and where it came from. It computes nothing: its values are the table's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    pub origin: Origin,
    pub dims: Dims,
}

impl Stored {
    /// The game of a table whose file holds `canonical`, `dims` and (for a script) its text and
    /// the header version it was compiled against (0 for Lua).
    pub fn from_parts(
        canonical: &str,
        dims: Dims,
        script: Option<&str>,
        header: u32,
    ) -> Result<Stored, String> {
        let origin = match (canonical.strip_prefix("import:"), script) {
            (Some(name), None) => {
                check_name(name, "import name").map_err(|e| e.0)?;
                Origin::Import(name.to_string())
            }
            (None, None) if canonical.starts_with("native:") => {
                let (name, hash) = canonical["native:".len()..]
                    .split_once('@')
                    .ok_or("no @HASH after the library's name")?;
                check_name(name, "library name").map_err(|e| e.0)?;
                if hash.len() != 8
                    || !hash.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                {
                    return Err(format!("`{canonical}` is not a library's canonical spec"));
                }
                Origin::Library(canonical.to_string())
            }
            (None, Some(text)) => {
                let mut script = Script::from_canonical(canonical, text)?;
                if (script.lang == Lang::Cpp) != (header != 0) {
                    return Err(format!("a header version of {header} for {canonical}"));
                }
                script.header = header;
                Origin::Script(script)
            }
            _ => {
                return Err(format!(
                    "`{canonical}` is neither a script's nor an imported table's spec"
                ));
            }
        };
        Ok(Stored { origin, dims })
    }

    /// The game of values computed elsewhere (by `sgtab import`, or by a Rust program's own
    /// [`super::Moves`] through the generic engine), named `import:NAME`.
    pub fn imported(name: &str, dims: Dims) -> Result<Stored, SpecError> {
        check_name(name, "import name")?;
        Ok(Stored { origin: Origin::Import(name.to_string()), dims })
    }

    /// The script, where the table was made from one.
    pub fn script(&self) -> Option<&Script> {
        match &self.origin {
            Origin::Script(s) => Some(s),
            Origin::Import(_) | Origin::Library(_) => None,
        }
    }
}

/// How positions of a stored shape read: a heap in 1-D (rules along the index mean something),
/// a point of the box otherwise.
pub fn positions_of(dims: &Dims) -> Positions {
    if dims.axes() == 1 { Positions::Heap } else { Positions::Grid(*dims) }
}

impl Game for Stored {
    fn family(&self) -> &'static Family {
        self.origin.family()
    }

    fn canonical(&self) -> String {
        self.origin.canonical()
    }

    fn len(&self) -> u64 {
        self.dims.len()
    }

    fn positions(&self) -> Positions {
        positions_of(&self.dims)
    }

    fn reference(&self, _: &Progress) -> Result<Packed, GameError> {
        Err(GameError(match &self.origin {
            Origin::Script(_) => {
                "a script's table is recomputed by running its script, which this program cannot \
                    (sgtab verify can)"
                    .into()
            }
            Origin::Import(name) => format!(
                "import:{name} holds values imported from another program; sgtab cannot recompute \
                    them"
            ),
            Origin::Library(c) => format!(
                "{c} holds values computed by a shared library the table does not carry; sgtab \
                    cannot recompute them"
            ),
        }))
    }

    fn stored(&self) -> Option<Stored> {
        Some(self.clone())
    }

    fn file_name(&self) -> Option<String> {
        Some(self.origin.file_name())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The largest shape a stored game may have: a 1-D table's limit.
pub const MAX_POSITIONS: u64 = MAX_LEN;

mod runs;
pub use runs::Runs;

#[cfg(test)]
mod tests;
