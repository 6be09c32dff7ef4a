//! The engines that compute tables. They all compute the same values; tests hold the SIMD and
//! GPU engines to the scalar reference value for value.
//!
//! - `scalar`: the games' own references (every game).
//! - `simd`: chess rows with `wide`, on all cores.
//! - `textbook`: chess rows by the plain loop, the baseline the benches compare against.
//! - `gpu`: chess rows with a wgpu compute shader, layer by layer (feature `gpu`).
//!
//! Only chess tables are big enough to need the fast engines; the other games are always built
//! by their scalar reference, whatever backend is asked for.

pub mod scalar;
pub mod simd;
pub mod textbook;
#[cfg(feature = "gpu")]
pub mod gpu;

use crate::progress::Progress;
use crate::spec::GameSpec;
use crate::table::Packed;
use std::fmt;
use std::time::{Duration, Instant};

/// Which engine to build with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Scalar,
    Simd,
    Gpu,
    /// The GPU if a hardware adapter is found, else the SIMD engine.
    Auto,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Scalar => "scalar",
            Backend::Simd => "simd",
            Backend::Gpu => "gpu",
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

/// A build that could not run; the text says what to do.
#[derive(Debug)]
pub struct EngineError(pub String);

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EngineError {}

/// The engines asked for, opened once and reused for several tables (the GPU device is costly
/// to set up).
pub struct Engines {
    backend: Backend,
    /// Why `Auto` chose what it chose, for the user.
    reason: Option<String>,
    #[cfg(feature = "gpu")]
    gpu: Option<gpu::GpuEngine>,
}

impl Engines {
    /// Opens `backend`. `Auto` resolves to a concrete backend here and `chosen` says which.
    pub fn open(backend: Backend, timings: &mut Timings) -> Result<Engines, EngineError> {
        match backend {
            Backend::Scalar | Backend::Simd => Ok(Engines::plain(backend)),
            Backend::Gpu => Engines::with_gpu(timings),
            Backend::Auto => Ok(Engines::auto(timings)),
        }
    }

    /// A hardware GPU if there is one, else the SIMD engine, with the reason. The adapter is
    /// probed first, so passing over a software one opens no device.
    #[cfg(feature = "gpu")]
    fn auto(timings: &mut Timings) -> Engines {
        let simd = Engines::plain(Backend::Simd);
        match gpu::GpuEngine::probe() {
            Ok((name, true)) => simd.because(format!(
                "the only GPU adapter, {name}, is a software driver and slower than simd (use --backend gpu to run it anyway)"
            )),
            Ok(_) => Engines::with_gpu(timings).unwrap_or_else(|e| simd.because(e.0)),
            Err(e) => simd.because(e.0),
        }
    }

    #[cfg(not(feature = "gpu"))]
    fn auto(_timings: &mut Timings) -> Engines {
        Engines::plain(Backend::Simd).because("this sgtab was built without the `gpu` feature".into())
    }

    fn because(mut self, reason: String) -> Engines {
        self.reason = Some(reason);
        self
    }

    /// Why `--backend auto` chose the engine it did, when it passed the GPU over.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    fn plain(backend: Backend) -> Engines {
        Engines {
            backend,
            reason: None,
            #[cfg(feature = "gpu")]
            gpu: None,
        }
    }

    #[cfg(feature = "gpu")]
    fn with_gpu(timings: &mut Timings) -> Result<Engines, EngineError> {
        let engine = timings.time("device set-up", gpu::GpuEngine::new)?;
        Ok(Engines { backend: Backend::Gpu, reason: None, gpu: Some(engine) })
    }

    #[cfg(not(feature = "gpu"))]
    fn with_gpu(_timings: &mut Timings) -> Result<Engines, EngineError> {
        Err(EngineError("this sgtab was built without the `gpu` feature; rebuild with `cargo build --features gpu` or use --backend simd".into()))
    }

    /// The concrete backend in use (never `Auto`).
    pub fn chosen(&self) -> Backend {
        self.backend
    }

    /// A description of the device, for the GPU backend.
    pub fn device(&self) -> Option<String> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &self.gpu {
            return Some(g.describe());
        }
        None
    }

    /// Computes the values of `spec`, packed at the fewest bits that hold them.
    pub fn compute(&self, spec: &GameSpec, progress: &Progress, timings: &mut Timings) -> Result<Packed, EngineError> {
        let GameSpec::Chess { width } = *spec else {
            return Ok(timings.time("kernel", || scalar::compute(spec, progress)));
        };
        match self.backend {
            Backend::Scalar => Ok(timings.time("kernel", || scalar::compute(spec, progress))),
            Backend::Simd => Ok(timings.time("kernel", || simd::chess(width, simd::threads(), progress)).shrink()),
            #[cfg(feature = "gpu")]
            Backend::Gpu => {
                let g = self.gpu.as_ref().expect("gpu engine opened");
                Ok(g.chess(width, progress, timings)?.shrink())
            }
            _ => unreachable!("backend resolved at open"),
        }
    }
}
