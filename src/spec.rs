//! Game specs: the text a user types (`chess:20`, `sub:1,3,9`, `lasker`, `funny:32`), parsed by
//! the family that owns its syntax (see [`crate::games::FAMILIES`]) into a [`GameSpec`] with
//! every default filled in, and printed back as canonical text.
//!
//! The canonical text is what a `.sgt` file stores and what its file name is made from, so two
//! specs that build the same table always print the same.

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
            return Err(SpecError(format!("bad game spec ``: empty spec (expected one of: {})", games::grammar())));
        }
        if text.len() > MAX_SPEC_LEN {
            return Err(SpecError(format!("bad game spec: {} bytes long, more than {MAX_SPEC_LEN}", text.len())));
        }
        for family in games::FAMILIES {
            if let Some(game) = (family.parse)(text) {
                return game.map(GameSpec);
            }
        }
        let word: String = text.chars().take_while(|c| c.is_alphanumeric()).take(32).collect();
        Err(SpecError(format!("bad game spec `{}`: unknown game `{word}` (expected one of: {})", text.escape_debug(), games::grammar())))
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
        ["chess", "lasker", "sub:1,3,9", "funny"].iter().map(|s| GameSpec::parse(s).expect("default spec")).collect()
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
        assert!(na.len() <= crate::games::MAX_FILE_STEM + 4 && nb.len() <= crate::games::MAX_FILE_STEM + 4, "{na}");
        assert!(na.starts_with("sub-1_2_3_4_5_"), "{na}");
        assert_ne!(na, nb);
    }
}
