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
pub static LUA: Family = Family { name: "lua", grammar: "lua:PATH[:NAME=VALUE,...] (a Lua script, see docs/scripts.md)", parse: parse_lua };

/// The family of imported tables.
pub static IMPORT: Family = Family { name: "import", grammar: "import:NAME (made by sgtab import)", parse: parse_import };

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
        "`{}` is a script's game: build it with `sgtab build {}`, or query its table with `sgq value {}`",
        spec.escape_debug(),
        spec.escape_debug(),
        spec.escape_debug()
    ))))
}

fn parse_import(spec: &str) -> Option<Result<Arc<dyn Game>, SpecError>> {
    let name = spec.strip_prefix("import:")?;
    Some(check_name(name, "import name").and_then(|_| {
        Err(SpecError(format!(
            "`import:{name}` is an imported table: make it with `sgtab import FILE --name {name} --shape N`, query it with `sgq value import:{name}`"
        )))
    }))
}

/// A name as sgtab keeps it: letters, digits, `_`, `-` and `.`, not starting with `.` or `-`,
/// at most 40 characters.
pub fn check_name(name: &str, what: &str) -> Result<(), SpecError> {
    let ok =
        !name.is_empty() && name.len() <= MAX_NAME && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)) && !name.starts_with(['.', '-']);
    if ok {
        Ok(())
    } else {
        Err(SpecError(format!("bad {what} `{}`: use 1 to {MAX_NAME} letters, digits, `_`, `-` or `.`, not starting with `.` or `-`", name.escape_debug())))
    }
}

/// A Lua script and the parameters it is run with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// Its file's name without `.lua` (sanitized to a [`check_name`] name).
    pub name: String,
    /// Its text.
    pub text: String,
    /// Integer globals set before it runs, sorted by name.
    pub params: Vec<(String, i64)>,
}

impl Script {
    /// `lua:PATH[:NAME=VALUE,...]`, reading the script at PATH; `None` when `spec` does not
    /// start with `lua:`. A spec in canonical form (`lua:NAME@HASH...`) names a table, not a
    /// file: it is refused here with a pointer to the file.
    pub fn parse(spec: &str) -> Option<Result<Script, SpecError>> {
        let rest = spec.trim().strip_prefix("lua:")?;
        Some(Self::open(rest))
    }

    fn open(rest: &str) -> Result<Script, SpecError> {
        let bad = |why: String| SpecError(format!("bad script spec `lua:{}`: {why}", rest.escape_debug()));
        // PATH may hold `:`; the parameters are what follows the last `:`, if it has a `=`.
        let (path, params) = match rest.rsplit_once(':') {
            Some((path, params)) if params.contains('=') => (path, params),
            _ => (rest, ""),
        };
        if path.is_empty() {
            return Err(bad("no script path (expected lua:PATH[:NAME=VALUE,...])".into()));
        }
        let params = parse_params(params).map_err(&bad)?;
        let file = Path::new(path);
        let text = read_script(file).map_err(bad)?;
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Script { name: sanitize(&stem), text, params })
    }

    /// A script from its parts (a table's stored script; tests).
    pub fn new(name: &str, text: &str, params: Vec<(String, i64)>) -> Result<Script, SpecError> {
        check_name(name, "script name")?;
        let mut params = params;
        params.sort();
        Ok(Script { name: name.to_string(), text: text.to_string(), params })
    }

    /// The spec that runs the script at `path` with `params`: `lua:PATH[:K=V,...]`.
    pub fn spec_at(path: &str, params: &[(String, i64)]) -> String {
        let params: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if params.is_empty() { format!("lua:{path}") } else { format!("lua:{path}:{}", params.join(",")) }
    }

    /// The script path a spec `lua:PATH[:NAME=VALUE,...]` names, as [`Script::parse`] reads it.
    pub fn path_of(spec: &str) -> Option<&str> {
        let rest = spec.trim().strip_prefix("lua:")?;
        Some(match rest.rsplit_once(':') {
            Some((path, params)) if params.contains('=') => path,
            _ => rest,
        })
    }

    /// Eight hex digits of the CRC-32 of the text.
    pub fn hash(&self) -> String {
        format!("{:08x}", crc32fast::hash(self.text.as_bytes()))
    }

    /// `lua:NAME@HASH[:K=V,...]`.
    pub fn canonical(&self) -> String {
        let mut text = format!("lua:{}@{}", self.name, self.hash());
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

    /// The script named by a canonical `lua:NAME@HASH[:...]` and the stored text: the hash
    /// must be the text's.
    pub fn from_canonical(canonical: &str, text: &str) -> Result<Script, String> {
        let rest = canonical.strip_prefix("lua:").ok_or("not a script's spec")?;
        let (head, params) = rest.split_once(':').unwrap_or((rest, ""));
        let (name, hash) = head.split_once('@').ok_or("no @HASH after the script's name")?;
        let params = parse_params(params)?;
        let script = Script::new(name, text, params).map_err(|e| e.0)?;
        if script.hash() != hash {
            return Err(format!("the stored script's hash is {}, its spec says {hash}", script.hash()));
        }
        if script.canonical() != canonical {
            return Err("the script's spec is not in canonical form".into());
        }
        Ok(script)
    }
}

/// A script file's text: a regular file of at most [`MAX_SCRIPT`] bytes of UTF-8.
fn read_script(path: &Path) -> Result<String, String> {
    let bytes = crate::output::read_small(path, MAX_SCRIPT as u64).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// A file stem as a name: other characters become `_`, at most [`MAX_NAME`] of them.
fn sanitize(stem: &str) -> String {
    let mut name: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || "_-.".contains(c) { c } else { '_' }).take(MAX_NAME).collect();
    if name.is_empty() || name.starts_with(['.', '-']) {
        name.insert(0, 's');
        name.truncate(MAX_NAME);
    }
    name
}

/// `NAME=VALUE,...`: Lua names, integer values, each name once; sorted by name.
pub fn parse_params(text: &str) -> Result<Vec<(String, i64)>, String> {
    let mut params: Vec<(String, i64)> = Vec::new();
    if text.is_empty() {
        return Ok(params);
    }
    for part in text.split(',') {
        let (name, value) = part.split_once('=').ok_or_else(|| format!("parameter `{part}` is not NAME=VALUE"))?;
        let ident = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && name.len() <= MAX_NAME;
        if !ident {
            return Err(format!("parameter name `{name}` is not a Lua name (a letter or `_`, then letters, digits or `_`)"));
        }
        let value: i64 = value.parse().map_err(|_| format!("parameter {name} = `{value}` is not a whole number (a 64-bit integer)"))?;
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

/// Where a stored game came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A script, with its text and parameters.
    Script(Script),
    /// Values imported under this name.
    Import(String),
}

impl Origin {
    /// The origin a spec names: `lua:PATH[:NAME=VALUE,...]` (the script is read; nothing runs)
    /// or `import:NAME`; `None` where `text` is no stored kind's spec.
    pub fn parse(text: &str) -> Option<Result<Origin, SpecError>> {
        let text = text.trim();
        if let Some(script) = Script::parse(text) {
            return Some(script.map(Origin::Script));
        }
        let name = text.strip_prefix("import:")?;
        Some(check_name(name, "import name").map(|_| Origin::Import(name.to_string())))
    }

    /// Whether `text` is written as a stored kind's spec (its prefix alone is looked at).
    pub fn is_spelled(text: &str) -> bool {
        [&LUA, &IMPORT].iter().any(|f| text.trim().strip_prefix(f.name).is_some_and(|r| r.starts_with(':')))
    }

    /// The kind of game it is, as a runtime names what it runs (`lua`, `import`).
    pub fn kind(&self) -> &'static str {
        self.family().name
    }

    fn family(&self) -> &'static Family {
        match self {
            Origin::Script(_) => &LUA,
            Origin::Import(_) => &IMPORT,
        }
    }

    /// Its canonical spec: `lua:NAME@HASH[:K=V,...]` or `import:NAME`.
    pub fn canonical(&self) -> String {
        match self {
            Origin::Script(s) => s.canonical(),
            Origin::Import(name) => format!("import:{name}"),
        }
    }

    /// The file name of its table.
    pub fn file_name(&self) -> String {
        match self {
            Origin::Script(s) => s.file_name(),
            Origin::Import(name) => format!("{name}.sgt"),
        }
    }

    /// The `sgtab` command that makes its table in `dir` (a shell word), `given` being the spec
    /// as the user typed it.
    pub fn make_command(&self, given: &str, dir: &str) -> String {
        match self {
            Origin::Script(_) => format!("sgtab build {} --dir {dir}", shell_word(given.trim())),
            Origin::Import(name) => format!("sgtab import FILE --name {name} --shape N --dir {dir}"),
        }
    }
}

/// `text` as one shell word: as it is when that is safe, else in single quotes.
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-:,+=@%".contains(c);
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
    /// The game of a table whose file holds `canonical`, `dims` and (for a script) its text.
    pub fn from_parts(canonical: &str, dims: Dims, script: Option<&str>) -> Result<Stored, String> {
        let origin = match (canonical.strip_prefix("import:"), script) {
            (Some(name), None) => {
                check_name(name, "import name").map_err(|e| e.0)?;
                Origin::Import(name.to_string())
            }
            (None, Some(text)) => Origin::Script(Script::from_canonical(canonical, text)?),
            _ => return Err(format!("`{canonical}` is neither a script's nor an imported table's spec")),
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
            Origin::Import(_) => None,
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
            Origin::Script(_) => "a script's table is recomputed by running its script, which this program cannot (sgtab verify can)".into(),
            Origin::Import(name) => format!("import:{name} holds values imported from another program; sgtab cannot recompute them"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_checked_and_sorted() {
        assert_eq!(parse_params("W=3,N=-8").unwrap(), [("N".to_string(), -8), ("W".to_string(), 3)]);
        for bad in ["N", "1N=2", "N=x", "N=1,N=2", "N=99999999999999999999", "math.x=1"] {
            assert!(parse_params(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn canonical_names_round_trip_and_check_the_hash() {
        let s = Script::new("knight", "shape = 4", vec![("N".into(), 8)]).unwrap();
        let c = s.canonical();
        assert!(c.starts_with("lua:knight@") && c.ends_with(":N=8"), "{c}");
        assert_eq!(Script::from_canonical(&c, "shape = 4").unwrap(), s);
        assert!(Script::from_canonical(&c, "shape = 5").unwrap_err().contains("hash"));
        assert_eq!(s.file_name(), format!("lua-knight@{}-N=8.sgt", s.hash()));
    }

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize("my game!"), "my_game_");
        assert_eq!(sanitize(".hidden"), "s.hidden");
        assert!(check_name("../x", "n").is_err() && check_name("a.b-c_1", "n").is_ok());
    }
}
