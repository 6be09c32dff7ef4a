//! Games at native speed: `cpp:PATH[:NAME=VALUE,...]`, a C++ file compiled against sgtab's
//! header (`sgtab.h`, [`HEADER`]), and `native:PATH`, a shared library built by any language
//! against the C interface that header wraps. docs/native.md is the user's guide.
//!
//! A C++ game is compiled once (`compile`: `$CXX` or `c++`, cached under the user's cache
//! directory), loaded, and handed to the generic engine as a [`Source`] whose workers answer
//! blocks of positions with summaries (`crate::games::summary`) through the library's one
//! entry point, `sgtab_call`: the header folds each option whose positions are known straight
//! into a mark array, as a plain table loop does, so options never cross into Rust one by one.
//!
//! The user's code runs unsandboxed in this process. A crash in it or a call past the time
//! bound ends the process with one line naming the position (`guard`): while a native game's
//! workers live, sgtab holds handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT and a
//! watchdog thread, and puts the handlers before back when they end. A program that embeds
//! sgtab's library and builds native games must know this.
//!
//! A table never runs code unasked: `verify` and `build --from` run a stored C++ source only
//! when told to (`--allow-native`); everything else reads the table alone.

mod compile;
mod guard;
mod library;

use crate::games::stored::{self, Origin, Script, Stored};
use crate::games::summary::{Ask, Summaries};
use crate::games::{Dims, Game, GameError, Source, SpecError, Worker};
use crate::spec::MAX_LEN;
pub use compile::cache_dir;
use library::{Call, Library};
use std::path::Path;
use std::sync::Arc;

/// The header a C++ game includes (`#include <sgtab.h>`): `sgtab header` prints it.
pub const HEADER: &str = include_str!("sgtab.h");

/// Bounds on a native game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Seconds one position's `moves` or `rank` may run.
    pub seconds: u64,
}

/// A native game, loaded and its shape known.
#[derive(Debug)]
pub struct NativeGame {
    canonical: String,
    /// The file it is shown by: `knight.cpp`, `libgame.so`.
    file: String,
    ranked: bool,
    /// Whether the library computes runs of positions itself (`SGTAB_VALUES`).
    fills: bool,
    /// Its `SGTAB_VALUES` answers the largest value known (flags bit 1).
    tells_vmax: bool,
    library: Arc<Library>,
    /// A C++ game's second compile, its loops not unrolled, and which of the two computes its
    /// runs of positions ([`Pick`]).
    rolled: Option<Arc<Library>>,
    pick: Pick,
    limits: Limits,
    /// Its source (or library's name) and shape, as its table stores them.
    stored: Stored,
}

/// What runs native games (`cpp:`, `native:`) for the [`crate::spec::Resolver`]. A table's
/// stored C++ source is compiled and run again only where `allow_stored` says it may
/// (`--allow-native`): a table file never runs code unasked.
#[derive(Clone, Copy, Debug)]
pub struct NativeRuntime {
    pub limits: Limits,
    pub allow_stored: bool,
}

impl crate::spec::Runtime for NativeRuntime {
    fn runs(&self, kind: &str) -> bool {
        kind == stored::CPP.name || kind == stored::NATIVE.name
    }

    fn open(&self, origin: &Origin, given: Option<&str>) -> Result<Arc<dyn Game>, SpecError> {
        let game = match (origin, given) {
            (Origin::Script(script), Some(_)) => NativeGame::open(script.clone(), self.limits),
            (Origin::Script(script), None) if self.allow_stored => {
                NativeGame::open(script.clone(), self.limits)
            }
            (Origin::Script(_), None) => {
                return Err(SpecError(format!(
                    "{} carries C++ source, which runs unsandboxed: sgtab compiles and runs it \
                        only with --allow-native (read the source first: `sgtab show` names it)",
                    origin.canonical()
                )));
            }
            (Origin::Library(_), Some(text)) => NativeGame::open_library(
                Path::new(text.trim().trim_start_matches("native:")),
                self.limits,
            ),
            _ => {
                return Err(SpecError(format!(
                    "{} holds values computed by a shared library the table does not carry; sgtab \
                        cannot recompute them",
                    origin.canonical()
                )));
            }
        };
        game.map(|g| Arc::new(g) as Arc<dyn Game>).map_err(|e| SpecError(e.0))
    }
}

impl NativeGame {
    /// Compiles (or finds in the cache) and loads a C++ game.
    pub fn open(script: Script, limits: Limits) -> Result<NativeGame, GameError> {
        check_params(&script)?;
        let canonical = script.canonical();
        let libs = compile::library(&script, false)?;
        let (libs, library) = match Library::open(&libs.unrolled) {
            // The loader's room for initial-exec thread-locals is spent (many games loaded in
            // one process): the game again, its thread-local state allocated on demand.
            Err(e) if e.contains("static TLS") => {
                let libs = compile::library(&script, true)?;
                let library = Library::open(&libs.unrolled);
                (libs, library)
            }
            loaded => (libs, loaded),
        };
        let library = library.map_err(|e| GameError(format!("{canonical}: {e}")))?;
        // The second compile only where it loads (it is a choice, not a need).
        let rolled = libs.rolled.and_then(|path| Library::open(&path).ok());
        let file = script.file();
        let mut game = NativeGame::with(Some(script), canonical, file, library, limits)?;
        game.rolled = rolled.filter(|_| game.fills).map(Arc::new);
        Ok(game)
    }

    /// Loads a shared library built against the C interface of `sgtab.h`.
    pub fn open_library(path: &Path, limits: Limits) -> Result<NativeGame, GameError> {
        let canonical = stored::library_canonical(path).map_err(|e| GameError(e.0))?;
        let library = Library::open(path).map_err(|e| GameError(format!("{canonical}: {e}")))?;
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        NativeGame::with(None, canonical, file, library, limits)
    }

    fn with(
        script: Option<Script>,
        canonical: String,
        file: String,
        library: Library,
        limits: Limits,
    ) -> Result<NativeGame, GameError> {
        let context = Arc::new(guard::Context {
            prefix: format!("sgtab: error: {canonical}: {file} at position ").into_bytes(),
            dims: Dims::new(&[1], 1).expect("one position"),
            seconds: limits.seconds,
        });
        let slot = guard::Slot::register(context);
        let mut call = Call::new(library::SHAPE, slot.current.as_ptr());
        let asked = slot.run(|| library.call(&mut call));
        guard::release(&slot);
        asked.map_err(|e| GameError(format!("{canonical}: {file}: {e}")))?;
        let axes = call.axes as usize;
        if !(1..=crate::values::MAX_AXES).contains(&axes) {
            return Err(GameError(format!(
                "{canonical}: {file} gives a shape of {axes} sizes; give 1 to 8"
            )));
        }
        let dims = Dims::new(&call.sizes[..axes], MAX_LEN).map_err(|e| {
            GameError(format!(
                "{canonical}: {file}: {e} (sgtab builds tables of up to 2^30 positions)"
            ))
        })?;
        let (fills, tells_vmax) = (call.flags & 1 != 0, call.flags & 2 != 0);
        let origin = match &script {
            Some(s) => stored::Origin::Script(s.clone()),
            None => stored::Origin::Library(canonical.clone()),
        };
        Ok(NativeGame {
            canonical,
            file,
            ranked: call.ranked != 0,
            fills,
            tells_vmax,
            library: Arc::new(library),
            rolled: None,
            pick: Pick::default(),
            limits,
            stored: Stored { origin, dims },
        })
    }

    pub fn dims(&self) -> Dims {
        self.stored.dims
    }

    fn error(&self, slot: &guard::Slot, why: String) -> GameError {
        GameError(format!(
            "{}: {} at position {}: {why}",
            self.canonical,
            self.file,
            slot.position()
        ))
    }
}

/// Every parameter must be named in the source: `cpp:x.cpp:n=2` for a source that reads `N`
/// would build the default game under a name that says `n=2`.
fn check_params(script: &Script) -> Result<(), GameError> {
    let words: std::collections::HashSet<&str> =
        script.text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).collect();
    match script.params.iter().find(|(name, _)| !words.contains(name.as_str())) {
        Some((name, _)) => Err(GameError(format!(
            "{}: parameter {name} is never named in {}; parameter names are case-sensitive macros \
                (-D{name}=...)",
            script.canonical(),
            script.file()
        ))),
        None => Ok(()),
    }
}

impl stored::Runs for NativeGame {
    fn as_stored(&self) -> &Stored {
        &self.stored
    }
}

impl Source for NativeGame {
    fn count(&self) -> u64 {
        self.stored.dims.len()
    }

    fn ranked(&self) -> bool {
        self.ranked
    }

    fn summarizes(&self) -> bool {
        true
    }

    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        let prefix =
            format!("sgtab: error: {}: {} at position ", self.canonical, self.file).into_bytes();
        let context = Arc::new(guard::Context {
            prefix,
            dims: self.stored.dims,
            seconds: self.limits.seconds,
        });
        Ok(Box::new(NativeWorker {
            game: self,
            slot: guard::Slot::register(context),
            summaries: Summaries::default(),
        }))
    }

    fn name(&self, p: u64) -> String {
        self.stored.dims.name(p)
    }
}

/// One thread's caller of the library.
struct NativeWorker<'a> {
    game: &'a NativeGame,
    slot: Arc<guard::Slot>,
    summaries: Summaries,
}

impl Drop for NativeWorker<'_> {
    fn drop(&mut self) {
        guard::release(&self.slot);
    }
}

impl Worker for NativeWorker<'_> {
    fn summaries(&mut self, ask: &Ask, out: &mut Summaries) -> Result<(), GameError> {
        out.filled = false;
        out.below = None;
        out.vmax = None;
        if ask.fill && self.game.fills && ask.ranks.is_none() {
            return self.fill(ask, out);
        }
        let mut call = Call::new(library::SUMMARIES, self.slot.current.as_ptr());
        call.positions = ask.positions.as_ptr();
        call.count = ask.positions.len() as u64;
        // AtomicU32 has u32's layout; the library reads only known positions, which no
        // thread writes during the call.
        call.values = ask.values.as_ptr().cast();
        call.known = ask.known;
        call.vmax = ask.vmax;
        if let Some((ranks, rank)) = ask.ranks {
            call.ranks = ranks.as_ptr();
            call.rank = rank;
        }
        let library = &self.game.library;
        self.slot.run(|| library.call(&mut call)).map_err(|e| self.game.error(&self.slot, e))?;
        out.words.clear();
        if call.nwords > 0 {
            // SAFETY: the interface says `words` holds `nwords` words until the next call.
            out.words.extend_from_slice(unsafe {
                std::slice::from_raw_parts(call.words, call.nwords as usize)
            });
        }
        out.options = call.options;
        Ok(())
    }

    fn options(
        &mut self,
        positions: &[u64],
        f: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), GameError> {
        // Nothing known: every option comes back kept, as its positions.
        let mut summaries = std::mem::take(&mut self.summaries);
        let values: Vec<std::sync::atomic::AtomicU32> = Vec::new();
        let got = self.summaries(
            &Ask { positions, values: &values, known: 0, ranks: None, vmax: 0, fill: false },
            &mut summaries,
        );
        let result = got.and_then(|()| each_option(&summaries.words, positions, f));
        self.summaries = summaries;
        result
    }

    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
        let mut call = Call::new(library::RANKS, self.slot.current.as_ptr());
        call.positions = positions.as_ptr();
        call.count = positions.len() as u64;
        let library = &self.game.library;
        self.slot.run(|| library.call(&mut call)).map_err(|e| self.game.error(&self.slot, e))?;
        if !positions.is_empty() {
            // SAFETY: the interface says `rank_out` holds `count` ranks until the next call.
            out.extend_from_slice(unsafe {
                std::slice::from_raw_parts(call.rank_out, positions.len())
            });
        }
        Ok(())
    }
}

impl NativeWorker<'_> {
    /// `ask`'s positions computed by the library itself, in order, into the table: by the
    /// compile [`Pick`] chose, or, while it has not, in four quarters it times.
    fn fill(&mut self, ask: &Ask, out: &mut Summaries) -> Result<(), GameError> {
        let game = self.game;
        let n = ask.positions.len();
        let (mut options, mut vmax) = (0, ask.vmax);
        out.words.clear();
        out.filled = true;
        let rolled = game.rolled.as_deref().filter(|_| game.tells_vmax);
        let parts: Vec<(bool, std::ops::Range<usize>)> = match (rolled, game.pick.chosen()) {
            (Some(_), None) if n >= 4 * Pick::QUARTER => {
                let q = n / 4;
                vec![(false, 0..q), (true, q..2 * q), (true, 2 * q..3 * q), (false, 3 * q..n)]
            }
            (Some(_), Some(true)) => vec![(true, 0..n)],
            _ => vec![(false, 0..n)],
        };
        // Seconds each side took, noted once all four quarters are done (so that each side's
        // sum weighs the same positions).
        let mut timed = (parts.len() > 1).then_some([0.0; 2]);
        for (second, run) in parts {
            let library = match rolled {
                Some(rolled) if second => rolled,
                _ => &*game.library,
            };
            let mut call = Call::new(library::VALUES, self.slot.current.as_ptr());
            let positions = &ask.positions[run.clone()];
            call.positions = positions.as_ptr();
            call.count = positions.len() as u64;
            call.values = ask.values.as_ptr().cast();
            // The positions asked are this thread's alone until the reply: no one else reads
            // or writes them meanwhile (AtomicU32 has u32's layout).
            call.fill = ask.values.as_ptr().cast_mut().cast();
            // Consecutive from `known`: a part's first position follows the parts before it.
            call.known = ask.known + run.start as u64;
            call.vmax = vmax;
            let started = std::time::Instant::now();
            let code = self.slot.run(|| library.raw(&mut call));
            match code {
                0 | 2 => options += call.options,
                _ => return Err(game.error(&self.slot, call.error_text())),
            }
            vmax = vmax.max(call.vmax);
            if code == 2 {
                out.below = Some((call.stop_at, call.stop_option));
                timed = None;
                break;
            }
            if let Some(timed) = &mut timed {
                timed[second as usize] += started.elapsed().as_secs_f64();
            }
        }
        if let Some(timed) = timed {
            game.pick.spent(timed);
        }
        out.options = options;
        out.vmax = game.tells_vmax.then_some(vmax);
        Ok(())
    }
}

/// Which of a C++ game's two compiles (its loops unrolled or not: `compile::UNROLL`) computes
/// its runs of positions. Until it is decided, a run of at least 4 [`Pick::QUARTER`] positions
/// is cut in four equal quarters computed unrolled, rolled, rolled, unrolled, each timed (in
/// that order a cost per position that grows linearly with the position weighs the same on
/// both sides); once each side has taken [`Pick::ENOUGH`] seconds, the faster computes the
/// rest. Both give the same values: the choice changes the time only.
/// `SGTAB_NATIVE_UNROLL=1` (or `0`) takes the unrolled (or rolled) compile from the start.
#[derive(Debug)]
struct Pick {
    /// 0 undecided, 1 unrolled, 2 rolled.
    chosen: std::sync::atomic::AtomicU8,
    /// Seconds taken unrolled and rolled.
    spent: std::sync::Mutex<[f64; 2]>,
}

impl Default for Pick {
    fn default() -> Pick {
        let chosen = match std::env::var("SGTAB_NATIVE_UNROLL").as_deref() {
            Ok("1") => 1,
            Ok("0") => 2,
            _ => 0,
        };
        Pick { chosen: chosen.into(), spent: Default::default() }
    }
}

impl Pick {
    /// The fewest positions a timed quarter holds.
    const QUARTER: usize = 16;
    /// Seconds each side takes before the choice.
    const ENOUGH: f64 = 0.004;

    /// `Some(true)` where the rolled compile was chosen, `Some(false)` the unrolled.
    fn chosen(&self) -> Option<bool> {
        match self.chosen.load(std::sync::atomic::Ordering::Relaxed) {
            0 => None,
            c => Some(c == 2),
        }
    }

    /// Notes the seconds a run's quarters took, unrolled and rolled; decides once both sides
    /// have taken enough.
    fn spent(&self, seconds: [f64; 2]) {
        let Ok(mut spent) = self.spent.lock() else { return };
        spent[0] += seconds[0];
        spent[1] += seconds[1];
        if spent[0] >= Pick::ENOUGH && spent[1] >= Pick::ENOUGH && self.chosen().is_none() {
            let rolled = spent[1] < spent[0];
            self.chosen.store(1 + rolled as u8, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The options of summaries made with nothing known: each position's r options, then r + 1
/// gaps to skip.
fn each_option(
    words: &[u64],
    positions: &[u64],
    f: &mut dyn FnMut(u64, &[u64]),
) -> Result<(), GameError> {
    let bad = || {
        GameError(
            "the game's summaries are malformed (a library that does not keep to sgtab.h's word \
                format?)"
                .into(),
        )
    };
    let mut at = 0;
    for &p in positions {
        let r = *words.get(at).ok_or_else(bad)?;
        if r >= words.len() as u64 {
            return Err(bad());
        }
        let r = r as usize;
        at += 1;
        if r == 0 {
            at += 1;
            continue;
        }
        for _ in 0..r {
            let k = *words.get(at).ok_or_else(bad)?;
            if k >= words.len() as u64 {
                return Err(bad());
            }
            let k = k as usize;
            let parts = words.get(at + 1..at + 1 + k).ok_or_else(bad)?;
            f(p, parts);
            at += 1 + k;
        }
        at = at.checked_add(r + 1).ok_or_else(bad)?;
    }
    if at == words.len() { Ok(()) } else { Err(bad()) }
}
