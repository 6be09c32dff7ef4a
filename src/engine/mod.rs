//! The engines that compute tables. They all compute the same values; tests hold the SIMD and
//! GPU engines to the scalar reference value for value.
//!
//! - `scalar`: the games' own references (every game).
//! - `chess`: chess rows with `wide`, on all cores (`chess::textbook`: the plain loop, the
//!   baseline the benches compare against).
//! - `corner`: queen, rook and king boards by anti-diagonals of tiles, on all cores.
//! - `octal`: take-and-break codes and Grundy's game by the rare/common split.
//! - `check`: the self-check of a GPU table, a sample recomputed from the table's own values.
//! - `registry`: which families have which fast engines, and the adapters that run them.
//! - `gpu`: chess rows with a wgpu compute shader, layer by layer (feature `gpu`).
//!
//! Each family with fast engines registers them in [`registry::FAST`]; [`Engines`] picks one
//! for the backend asked for, falling back to the game's reference where it has none, and says
//! which it used.

pub mod check;
pub mod chess;
pub mod corner;
pub mod generic;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod octal;
pub mod registry;

pub use registry::{FAST, FastEngines, Grow};

use crate::progress::Progress;
use crate::spec::GameSpec;
use crate::values::Packed;
use crate::values::packed::bits_for;
use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Worker threads to use: every core the process may run on.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Which engine to build with (the docs of the variants are `sgtab --backend`'s help).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Backend {
    /// Per game: its GPU engine if it has one and a hardware adapter is found (a software
    /// driver such as lavapipe is slower than simd, so auto passes it over), else its fast CPU
    /// engine, else its reference
    Auto,
    /// The plain reference: each game straight from its definition
    Scalar,
    /// The game's fast CPU engine (SIMD, all cores); its reference where it has none
    Simd,
    /// The game's GPU engine (wgpu compute shaders); its fast CPU engine where it has none
    Gpu,
    /// The generic engine: mex over the options a game gives, on all cores (games given by
    /// their options alone, such as scripts); not a choice of the command line
    #[cfg_attr(feature = "cli", value(skip))]
    Generic,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Scalar => "scalar",
            Backend::Simd => "simd",
            Backend::Gpu => "gpu",
            Backend::Generic => "generic",
            Backend::Auto => "auto",
        })
    }
}

/// Named phases of a build and how long each took, for `--timings`.
#[derive(Default, Debug)]
pub struct Timings {
    pub phases: Vec<(String, Duration)>,
}

impl Timings {
    pub fn add(&mut self, phase: impl Into<String>, took: Duration) {
        self.phases.push((phase.into(), took));
    }

    /// Runs `f`, recording its time under `phase`.
    pub fn time<T>(&mut self, phase: &str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.add(phase, start.elapsed());
        out
    }
}

/// What stopped a build, for callers to act on (`--backend auto` falls back to the CPU on a
/// device or check failure); the words of the line are for people only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not enough memory for the work; the line says how much it needed.
    Memory,
    /// The GPU could not run it (no adapter, a device limit, a lost device).
    Device,
    /// A table failed a check against another engine, or its own recheck: nothing is written.
    Check,
    /// The game failed: a script's error, a cycle, an option off the table.
    Game,
    /// This engine or build cannot take the game as asked (no such engine, a size out of range).
    Refused,
}

/// A build that could not run: its kind, and one line saying what to do.
#[derive(Clone, Debug)]
pub struct EngineError {
    pub kind: ErrorKind,
    pub line: String,
    /// Whether the line names its game already (a game's own errors do).
    named: bool,
}

impl EngineError {
    pub fn new(kind: ErrorKind, line: impl Into<String>) -> EngineError {
        EngineError { kind, line: line.into(), named: false }
    }
    pub fn memory(line: impl Into<String>) -> EngineError {
        EngineError::new(ErrorKind::Memory, line)
    }
    pub fn device(line: impl Into<String>) -> EngineError {
        EngineError::new(ErrorKind::Device, line)
    }
    pub fn check(line: impl Into<String>) -> EngineError {
        EngineError::new(ErrorKind::Check, line)
    }
    pub fn game(line: impl Into<String>) -> EngineError {
        EngineError::new(ErrorKind::Game, line)
    }
    pub fn refused(line: impl Into<String>) -> EngineError {
        EngineError::new(ErrorKind::Refused, line)
    }

    /// The line about `spec`'s build: prefixed with the spec unless it names its game already.
    pub fn about(&self, spec: &GameSpec) -> String {
        if self.named { self.line.clone() } else { format!("{spec}: {}", self.line) }
    }
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}

impl std::error::Error for EngineError {}

impl From<crate::memory::MemoryError> for EngineError {
    fn from(e: crate::memory::MemoryError) -> EngineError {
        EngineError::memory(e.0)
    }
}

/// A game's own errors name the game (`lua:knight@1a2b3c4d: knight.lua:7: ...`).
impl From<crate::games::GameError> for EngineError {
    fn from(e: crate::games::GameError) -> EngineError {
        EngineError { kind: ErrorKind::Game, line: e.0, named: true }
    }
}

/// About the bytes `backend` holds at its peak for `spec`'s values, where that is easy to say
/// before starting (so that a build that cannot fit is refused at once, not after a while).
/// The engines allocate fallibly besides, for what this leaves out.
fn memory_needed(spec: &GameSpec, backend: Backend) -> Option<u64> {
    let len = spec.len();
    let family = spec.family().name;
    match backend {
        // The references compute a Vec of the values, then pack it: a byte a row for chess,
        // 4 bytes a value for the heap games; the boards pack as they go.
        Backend::Scalar => match family {
            "chess" => Some(len + crate::values::packed::payload_len(len, 5)),
            "queen" | "rook" | "king" => None,
            _ => Some(len.saturating_mul(4)),
        },
        Backend::Simd => match family {
            // Rows at 5 bits, packed as computed.
            "chess" => Some(crate::values::packed::payload_len(len, 5)),
            // The boards check their own need, and name the widest board that fits.
            "queen" | "rook" | "king" => None,
            // A byte a heap at least (wider values widen the store: allocated fallibly).
            _ => Some(len),
        },
        Backend::Generic => Some(len.saturating_mul(4)),
        _ => None,
    }
}

/// The engines asked for, shared by several tables. The GPU is opened only when a game that
/// has a GPU engine needs it (the device is costly to set up), and then once.
pub struct Engines {
    backend: Backend,
    /// Messages for the user about choices made (printed once each by the caller).
    notes: std::sync::Mutex<Vec<String>>,
    /// Every note given so far.
    said: std::sync::Mutex<std::collections::HashSet<String>>,
    #[cfg(feature = "gpu")]
    gpu: OnceLock<Result<gpu::GpuEngine, EngineError>>,
    /// `auto`: whether a hardware adapter was found (probed once), or why not.
    #[cfg(feature = "gpu")]
    hardware: OnceLock<Result<(), String>>,
    #[cfg(not(feature = "gpu"))]
    _none: OnceLock<()>,
    /// Threads for the engines that take a count (the generic engine); every core by default.
    threads: Option<usize>,
    /// For tests of the GPU self-check: the index of a value to change in every GPU table.
    gpu_fault: Option<u64>,
}

impl Engines {
    /// The engines for `backend`. Nothing is opened yet.
    pub fn new(backend: Backend) -> Engines {
        Engines {
            backend,
            notes: Default::default(),
            said: Default::default(),
            #[cfg(feature = "gpu")]
            gpu: OnceLock::new(),
            #[cfg(feature = "gpu")]
            hardware: OnceLock::new(),
            #[cfg(not(feature = "gpu"))]
            _none: OnceLock::new(),
            threads: None,
            gpu_fault: None,
        }
    }

    /// Every table the GPU engine returns gets its value at `index` changed (the lowest bit
    /// flipped), as a wrong kernel would leave it, so that tests can see the self-check refuse
    /// it and `auto` fall back, on a device that computes right. The `sgtab` binary takes the
    /// index from `SGTAB_TEST_GPU_FAULT`; nothing else sets it.
    #[doc(hidden)]
    pub fn with_gpu_fault(mut self, index: Option<u64>) -> Engines {
        self.gpu_fault = index;
        self
    }

    /// `values` from the GPU, changed as [`Engines::with_gpu_fault`] asks.
    #[cfg(feature = "gpu")]
    fn gpu_fault(&self, values: Packed) -> Packed {
        let Some(at) = self.gpu_fault.filter(|&i| i < values.len()) else { return values };
        let mut all: Vec<u32> = values.iter().collect();
        all[at as usize] ^= 1;
        Packed::from_values(&all)
    }

    /// The same, the generic engine on `threads` threads.
    pub fn with_threads(mut self, threads: Option<usize>) -> Engines {
        self.threads = threads;
        self
    }

    /// Threads the generic engine runs on.
    pub fn threads(&self) -> usize {
        self.threads.unwrap_or_else(threads).max(1)
    }

    /// The backend asked for (may be `Auto`).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Notes on the choices made since the last call (why `auto` passed the GPU over, which
    /// device was opened), each once.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Keeps a note for the next [`Engines::take_notes`]; a note already given (the same
    /// choice for the same game, asked again by a later step of one build) is not repeated.
    fn note(&self, text: String) {
        let mut said = self.said.lock().unwrap_or_else(|e| e.into_inner());
        if said.insert(text.clone()) {
            self.notes.lock().unwrap_or_else(|e| e.into_inner()).push(text);
        }
    }

    /// The opened GPU, opening it on first use.
    #[cfg(feature = "gpu")]
    pub fn gpu(&self, timings: &mut Timings) -> Result<&gpu::GpuEngine, EngineError> {
        let mut opened = false;
        let engine = self.gpu.get_or_init(|| {
            opened = true;
            timings.time("device set-up", gpu::GpuEngine::new)
        });
        match engine {
            Ok(g) => {
                if opened {
                    self.note(format!("gpu: {}", g.describe()));
                }
                Ok(g)
            }
            Err(e) => Err(e.clone()),
        }
    }

    /// `auto` takes a software GPU (lavapipe, llvmpipe) as it would a hardware one: for tests
    /// of what `auto` does with a GPU, on machines that have only a software driver.
    #[cfg(feature = "gpu")]
    #[doc(hidden)]
    pub fn auto_takes_software_gpu(self) -> Engines {
        let _ = self.hardware.set(gpu::GpuEngine::probe().map(drop).map_err(|e| e.line));
        self
    }

    /// `auto`: is there a hardware GPU worth using? Probed once, without opening a device.
    #[cfg(feature = "gpu")]
    fn hardware_gpu(&self) -> Result<(), String> {
        self.hardware
            .get_or_init(|| match gpu::GpuEngine::probe() {
                Ok((name, true)) => Err(format!(
                    "the only GPU adapter, {name}, is a software driver and slower than simd (use \
                        --backend gpu to run it anyway)"
                )),
                Ok(_) => Ok(()),
                Err(e) => Err(e.line),
            })
            .clone()
    }

    #[cfg(not(feature = "gpu"))]
    fn hardware_gpu(&self) -> Result<(), String> {
        Err("this sgtab was built without the `gpu` feature".into())
    }

    /// Which engine builds `spec` for the backend asked for: the backend itself where the game
    /// has it, else (auto, or a game without it) the best it has, down to its reference.
    pub fn choose(&self, spec: &GameSpec) -> Backend {
        if spec.source().is_some() && registry::of(&**spec).is_none() {
            // Its definition is its options: the generic engine is its reference and its engine.
            return Backend::Generic;
        }
        let has = |b: Backend| registry::of(&**spec).is_some_and(|f| f.engines.contains(&b));
        let cpu = self.cpu_engine(spec);
        match self.backend {
            Backend::Scalar => Backend::Scalar,
            Backend::Gpu if has(Backend::Gpu) => Backend::Gpu,
            Backend::Gpu | Backend::Simd | Backend::Generic => cpu,
            Backend::Auto if has(Backend::Gpu) => match self.hardware_gpu() {
                Ok(()) => Backend::Gpu,
                Err(why) => {
                    self.note(format!("--backend auto chose {cpu} for {spec}: {why}"));
                    cpu
                }
            },
            Backend::Auto => cpu,
        }
    }

    /// An empty table of `spec`'s game that its engine grows in place, where the engine chosen
    /// for it can (the take-and-break engine): `build` and `--prove` then grow one table.
    pub fn growing(&self, spec: &GameSpec) -> Option<Box<dyn Grow + '_>> {
        if self.choose(spec) != Backend::Simd {
            return None;
        }
        (registry::of(&**spec)?.grow?)(&**spec)
    }

    /// Computes the values of `spec`, packed at the fewest bits that hold them, and says which
    /// engine computed them.
    ///
    /// Under `auto`, a GPU build that fails (its self-check found a wrong value, the device was
    /// lost) is built again on the CPU, with a note saying why.
    pub fn compute(
        &self,
        spec: &GameSpec,
        progress: &Progress,
        timings: &mut Timings,
    ) -> Result<(Packed, Backend), EngineError> {
        let chosen = self.choose(spec);
        match self.compute_on(spec, chosen, progress, timings) {
            Err(e)
                if chosen == Backend::Gpu
                    && self.backend == Backend::Auto
                    && matches!(
                        e.kind,
                        ErrorKind::Device | ErrorKind::Check | ErrorKind::Memory
                    ) =>
            {
                let cpu = self.cpu_engine(spec);
                self.note(format!("--backend auto built {spec} on {cpu} instead: {e}"));
                self.compute_on(spec, cpu, progress, timings)
            }
            done => done,
        }
    }

    /// The best CPU engine `spec`'s game has: its fast one, else its reference.
    fn cpu_engine(&self, spec: &GameSpec) -> Backend {
        if registry::of(&**spec).is_some_and(|f| f.engines.contains(&Backend::Simd)) {
            Backend::Simd
        } else {
            Backend::Scalar
        }
    }

    /// [`Engines::compute`] on the engine `chosen`, with no fallback.
    fn compute_on(
        &self,
        spec: &GameSpec,
        chosen: Backend,
        progress: &Progress,
        timings: &mut Timings,
    ) -> Result<(Packed, Backend), EngineError> {
        if let Some(need) = memory_needed(spec, chosen) {
            crate::memory::check("its values", need)?;
        }
        let values = match chosen {
            Backend::Scalar => match spec.source() {
                // A game given by its options has the generic engine on one thread as its
                // reference.
                Some(source) => generic_packed(source, 1, progress, timings)?,
                None => timings.time("kernel", || spec.reference(progress))?,
            },
            Backend::Generic => {
                let source = spec.source().ok_or_else(|| {
                    EngineError::refused(format!("{spec} is not given by its options"))
                })?;
                let threads = if self.backend == Backend::Scalar { 1 } else { self.threads() };
                generic_packed(source, threads, progress, timings)?
            }
            b => match registry::of(&**spec) {
                Some(f) => (f.compute)(registry::Job {
                    game: &**spec,
                    backend: b,
                    engines: self,
                    progress,
                    timings,
                })?,
                None => return Err(EngineError::refused(format!("{spec} has no {b} engine"))),
            },
        };
        Ok((values, chosen))
    }
}

/// The generic engine's table of `source` on `threads` threads (timed as the kernel), packed
/// at the fewest bits of its largest value.
fn generic_packed(
    source: &dyn crate::games::Source,
    threads: usize,
    progress: &Progress,
    timings: &mut Timings,
) -> Result<Packed, EngineError> {
    let (values, most) = timings.time("kernel", || generic::computed(source, threads, progress))?;
    Ok(Packed::with_bits(&values, bits_for(most.into())))
}

#[cfg(test)]
mod error_tests {
    use super::{EngineError, ErrorKind};
    use crate::games::GameError;
    use crate::spec::GameSpec;

    #[test]
    fn errors_carry_their_kind_and_are_named_once() {
        let spec = GameSpec::parse("lasker:10").unwrap();
        let own: EngineError = GameError("lasker:10: its own words".into()).into();
        assert_eq!(
            (own.kind, own.about(&spec).as_str()),
            (ErrorKind::Game, "lasker:10: its own words")
        );
        let refused = EngineError::refused("no such engine");
        assert_eq!(
            (refused.kind, refused.about(&spec).as_str()),
            (ErrorKind::Refused, "lasker:10: no such engine")
        );
        let memory: EngineError = crate::memory::MemoryError("needs 1 GiB".into()).into();
        assert_eq!(memory.kind, ErrorKind::Memory);
    }
}
