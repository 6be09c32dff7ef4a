//! Game specs: the text a user types (`chess:20`, `sub:1,3,9`, `lasker`, `funny:32`), parsed by
//! the family that owns its syntax (see [`crate::games::FAMILIES`]) into a [`GameSpec`] with
//! every default filled in, and printed back as canonical text.
//!
//! The canonical text is what a `.sgt` file stores and what its file name is made from, so two
//! specs that build the same table always print the same.

use crate::games::stored::Origin;
use crate::games::{self, Game};
pub use crate::games::{MAX_LEN, SpecError, file_name_of};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// Longest spec text accepted (the `.sgt` header stores its length in 16 bits).
pub const MAX_SPEC_LEN: usize = 4096;

/// One game, with all its parameters: a shared handle to its family's [`Game`].
#[derive(Clone)]
pub struct GameSpec(Arc<dyn Game>);

impl GameSpec {
    /// Parses user text; whitespace around the spec is ignored.
    pub fn parse(spec: &str) -> Result<GameSpec, SpecError> {
        let text = spec.trim();
        if text.is_empty() {
            return Err(SpecError(format!(
                "bad game spec ``: empty spec (expected one of: {})",
                games::grammar()
            )));
        }
        if text.len() > MAX_SPEC_LEN {
            return Err(SpecError(format!(
                "bad game spec: {} bytes long, more than {MAX_SPEC_LEN}",
                text.len()
            )));
        }
        for family in games::FAMILIES {
            if let Some(game) = (family.parse)(text) {
                return game.map(GameSpec);
            }
        }
        let word: String = text.chars().take_while(|c| c.is_alphanumeric()).take(32).collect();
        Err(SpecError(format!(
            "bad game spec `{}`: unknown game `{word}` (expected one of: {})",
            text.escape_debug(),
            games::grammar()
        )))
    }

    /// Wraps a game built in code.
    pub fn new(game: impl Game) -> GameSpec {
        GameSpec(Arc::new(game))
    }

    /// Wraps a shared game (one a resolver made).
    pub fn from_arc(game: Arc<dyn Game>) -> GameSpec {
        GameSpec(game)
    }

    /// The same game at another size ([`Game::with_size`]).
    pub fn with_size(&self, size: u64) -> Option<GameSpec> {
        self.0.with_size(size).map(GameSpec)
    }

    /// The game's family name (`chess`, `sub`, ...).
    pub fn game(&self) -> &'static str {
        self.0.family().name
    }

    /// File name for this table: the canonical text with `:` as `-`, `,` as `_` and brackets
    /// as `_`; a long one keeps a readable prefix and a hash of the whole text, so that every
    /// name stays well within file-name limits (with room for a temporary suffix).
    pub fn file_name(&self) -> String {
        self.0.file_name().unwrap_or_else(|| file_name_of(&self.to_string()))
    }

    /// The tables `sgtab build` makes when it is given no spec: the ones `sgq` answers from.
    pub fn defaults() -> Vec<GameSpec> {
        ["chess", "lasker", "sub:1,3,9", "funny"]
            .iter()
            .map(|s| GameSpec::parse(s).expect("default spec"))
            .collect()
    }
}

impl Deref for GameSpec {
    type Target = dyn Game;
    fn deref(&self) -> &dyn Game {
        &*self.0
    }
}

impl PartialEq for GameSpec {
    fn eq(&self, other: &GameSpec) -> bool {
        self.0.canonical() == other.0.canonical()
    }
}

impl Eq for GameSpec {}

impl Hash for GameSpec {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.canonical().hash(state)
    }
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.canonical())
    }
}

impl fmt::Debug for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GameSpec({})", self.0.canonical())
    }
}

impl std::str::FromStr for GameSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        GameSpec::parse(s)
    }
}

/// What runs a kind of stored game (a script, user code): linked in by the program that can run
/// it (`sgtab` registers Lua's), absent from the ones that only read tables (`sgq`). The
/// resolver knows every kind by its [`Origin`]; a runtime only turns one into a game.
pub trait Runtime: Send + Sync {
    /// Whether it runs games of this kind, as [`Origin::kind`] names them (`lua`, `cpp`).
    fn runs(&self, kind: &str) -> bool;

    /// The runnable game of `origin` (a script is run once to learn its shape): `given` is the
    /// spec as the user typed it, `None` for a table's game read back from its file (which a
    /// runtime of code that runs unsandboxed refuses unless it was told it may).
    fn open(&self, origin: &Origin, given: Option<&str>) -> Result<Arc<dyn Game>, SpecError>;
}

/// What a spec names, resolved without running anything: the canonical text and the file of
/// its table, and how to make that table.
#[derive(Clone, Debug)]
pub struct Named {
    /// The canonical spec its table's header holds.
    pub canonical: String,
    /// The table's file name.
    pub file_name: String,
    /// The game, where it is a family's (a stored kind's needs its runtime: [`Resolver::game`]).
    pub spec: Option<GameSpec>,
    origin: Option<Origin>,
    given: String,
}

impl Named {
    /// The `sgtab` command that makes its table in `dir`.
    pub fn make_command(&self, dir: &str) -> String {
        match &self.origin {
            Some(origin) => origin.make_command(&self.given, dir),
            None => format!("sgtab build {} --dir {dir}", self.canonical),
        }
    }
}

/// The one place every kind of game is resolved: sgtab's families, scripts (`lua:`), imported
/// tables (`import:`), and the games of tables read back. Kinds whose games run user code need
/// a [`Runtime`], which the program that runs them adds; without it such a spec still names its
/// table ([`Resolver::name`]), which is all `sgq` asks.
#[derive(Default)]
pub struct Resolver {
    runtimes: Vec<Box<dyn Runtime>>,
}

impl Resolver {
    /// A resolver of families and of table names, running nothing.
    pub fn new() -> Self {
        Resolver { runtimes: Vec::new() }
    }

    /// The same, able to run the games of `runtime`'s kind.
    pub fn with(mut self, runtime: impl Runtime + 'static) -> Self {
        self.runtimes.push(Box::new(runtime));
        self
    }

    /// What `text` names: a family's game, or a stored kind's table (a script's file is read to
    /// name it; nothing runs).
    pub fn name(&self, text: &str) -> Result<Named, SpecError> {
        let given = text.trim().to_string();
        match Origin::parse(text) {
            Some(origin) => {
                let origin = origin?;
                Ok(Named {
                    canonical: origin.canonical(),
                    file_name: origin.file_name(),
                    spec: None,
                    origin: Some(origin),
                    given,
                })
            }
            None => {
                let spec = GameSpec::parse(text)?;
                Ok(Named {
                    canonical: spec.to_string(),
                    file_name: spec.file_name(),
                    spec: Some(spec),
                    origin: None,
                    given,
                })
            }
        }
    }

    /// Why `text` names no game, judged from its text alone (a stored kind's spec is checked
    /// where its table is looked for).
    pub fn refusal(&self, text: &str) -> Option<SpecError> {
        if Origin::is_spelled(text) { None } else { GameSpec::parse(text).err() }
    }

    /// The runnable game of what [`Resolver::name`] resolved: a caller that tells a spec that
    /// names nothing (its own mistake) from a game that fails to open asks both, and the
    /// script named is read once.
    pub fn open_named(&self, named: &Named) -> Result<GameSpec, SpecError> {
        match (&named.spec, &named.origin) {
            (Some(spec), _) => Ok(spec.clone()),
            (None, Some(origin)) => self.open(origin, Some(&named.given)),
            (None, None) => Err(SpecError(format!("{}: names no game", named.given))),
        }
    }

    /// The runnable game `text` names.
    pub fn game(&self, text: &str) -> Result<GameSpec, SpecError> {
        match Origin::parse(text) {
            Some(origin) => self.open(&origin?, Some(text)),
            None => GameSpec::parse(text),
        }
    }

    /// A table's game as one that can be computed again: a stored game runs through its
    /// runtime, which must give the table's shape; a family's game is itself.
    pub fn runnable(&self, spec: &GameSpec) -> Result<GameSpec, SpecError> {
        let Some(stored) = spec.stored().filter(|_| spec.source().is_none()) else {
            return Ok(spec.clone());
        };
        let game = self.open(&stored.origin, None)?;
        let now = game.stored().map(|s| s.dims);
        if now != Some(stored.dims) {
            let shape = now.map_or("no shape".to_string(), |d| format!("the shape {}", d.text()));
            return Err(SpecError(format!(
                "its {} game now gives {shape}, the table has {}",
                stored.origin.kind(),
                stored.dims.text()
            )));
        }
        Ok(game)
    }

    fn open(&self, origin: &Origin, given: Option<&str>) -> Result<GameSpec, SpecError> {
        if let Origin::Import(name) = origin {
            return Err(SpecError(format!(
                "import:{name} holds values imported from another program; sgtab cannot compute \
                    them (make its table with `sgtab import FILE --name {name} --shape N`)"
            )));
        }
        match self.runtimes.iter().find(|r| r.runs(origin.kind())) {
            Some(runtime) => runtime.open(origin, given).map(GameSpec),
            None => Err(SpecError(format!(
                "{}: this program cannot run {} games (sgtab can)",
                origin.canonical(),
                origin.kind()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_specs() {
        let g = GameSpec::parse("queen").unwrap();
        assert_eq!(g.to_string(), "queen:1024");
        assert_eq!(g.file_name(), "queen-1024.sgt");
        assert_eq!(g.positions(), crate::games::Positions::Board { n: 1024 });
        assert_eq!(GameSpec::parse("king:65536").unwrap().len(), 1 << 32);
        for bad in ["rook:0", "rook:65537", "queen:x", "queen:", "king:-1"] {
            let e = GameSpec::parse(bad).unwrap_err().0;
            assert!(e.contains("N 1 to 65536") && !e.contains('\n'), "{bad}: {e}");
        }
    }

    #[test]
    fn canonical_round_trip() {
        for (input, canon) in [
            ("chess", "chess:20"),
            ("chess:7", "chess:7"),
            ("sub:9,3,1,3", "sub:1,3,9:1024"),
            ("sub:2,5:100", "sub:2,5:100"),
            ("lasker", "lasker:1024"),
            ("funny", "funny:32"),
            (" funny:40 ", "funny:40"),
        ] {
            let spec = GameSpec::parse(input).unwrap();
            assert_eq!(spec.to_string(), canon);
            assert_eq!(GameSpec::parse(canon).unwrap(), spec);
        }
        assert_eq!(GameSpec::parse("sub:1,3,9").unwrap().file_name(), "sub-1_3_9-1024.sgt");
    }

    #[test]
    fn bad_specs_say_why() {
        for bad in [
            "",
            "chess:0",
            "chess:33",
            "chess:x",
            "sub",
            "sub:",
            "sub:0",
            "sub:1,,2",
            "sub:1:0",
            "funny:22",
            "lasker:-1",
            "go",
            "chess:99999999999999999999999",
            "chessy",
            "lasker:",
        ] {
            let e = GameSpec::parse(bad).unwrap_err();
            assert!(e.0.starts_with("bad game spec"), "{bad}: {e}");
        }
    }

    #[test]
    fn long_specs_get_bounded_unique_names() {
        let moves: Vec<String> = (1..=400).map(|m| m.to_string()).collect();
        let a = GameSpec::parse(&format!("sub:{}:100", moves.join(","))).unwrap();
        let b = GameSpec::parse(&format!("sub:{}:101", moves.join(","))).unwrap();
        let (na, nb) = (a.file_name(), b.file_name());
        assert!(
            na.len() <= crate::games::MAX_FILE_STEM + 4
                && nb.len() <= crate::games::MAX_FILE_STEM + 4,
            "{na}"
        );
        assert!(na.starts_with("sub-1_2_3_4_5_"), "{na}");
        assert_ne!(na, nb);
    }

    #[test]
    fn one_resolver_names_every_kind_and_runs_only_with_a_runtime() {
        use super::{Named, Resolver};
        let dir = std::env::temp_dir().join(format!("sgtab-resolver-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("loop.lua");
        // A script that would never end if it ran: naming its table must not run it.
        std::fs::write(&path, "while true do end\n").unwrap();
        let text = format!("lua:{}:N=3", path.display());
        let resolver = Resolver::new();
        let named: Named = resolver.name(&text).unwrap();
        assert!(
            named.canonical.starts_with("lua:loop@") && named.canonical.ends_with(":N=3"),
            "{}",
            named.canonical
        );
        assert_eq!(named.file_name, super::file_name_of(&named.canonical));
        assert!(named.spec.is_none());
        assert!(
            named.make_command("t").starts_with("sgtab build lua:")
                && named.make_command("t").ends_with("--dir t")
        );
        // Without a runtime the game is refused in one line saying why.
        let e = resolver.game(&text).unwrap_err().0;
        assert!(e.contains("cannot run lua games") && !e.contains('\n'), "{e}");
        // A family's spec names its game; imports name a table that only `sgtab import` makes.
        let kayles = resolver.name("0.77:100").unwrap();
        assert_eq!(kayles.spec.as_ref().map(|s| s.to_string()), Some(kayles.canonical.clone()));
        let import = resolver.name("import:mine").unwrap();
        assert_eq!(
            (import.canonical.as_str(), import.file_name.as_str()),
            ("import:mine", "mine.sgt")
        );
        assert!(
            resolver.game("import:mine").unwrap_err().0.contains("sgtab import FILE --name mine")
        );
        // Refusals from the text alone: a stored kind waits for its table, a bad family spec not.
        assert!(
            resolver.refusal("lua:missing.lua").is_none() && resolver.refusal("import:x").is_none()
        );
        assert!(
            resolver.refusal("nosuchgame:3").is_some() && resolver.name("import:../x").is_err()
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
