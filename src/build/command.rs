//! `sgtab build` and `sgtab verify` over many games and files: the report on stdout, each
//! engine's notes and each file's failure on stderr. The binary only parses the command line.

use super::{Verified, build, cross_check, prove, prove_refusal, verify};
use crate::engine::{Engines, Timings};
use crate::output::Failure;
use crate::progress::Progress;
use crate::spec::{GameSpec, Resolver};
use crate::table::format;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How `sgtab build` builds: whether it reports each step's time, grows tables to a proof (up
/// to a length), and checks each table on a second engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Job {
    pub timings: bool,
    pub prove: Option<u64>,
    pub cross_check: bool,
}

/// Builds each of `specs` with `engines` and writes its table into `dir` (created if missing):
/// a line on `out` for each table written, with its proof, cross-check and timings as `job`
/// asks. A file there is replaced only by a table of the same game; a failure ends the run.
pub fn build_into(
    engines: &Engines,
    specs: Vec<GameSpec>,
    dir: &Path,
    job: Job,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    if let Some(why) = job.prove.and_then(|max| prove_refusal(&specs, max)) {
        return Err(why.into());
    }
    crate::output::make_dir(dir)?;
    let mut timings = Timings::default();
    let mut say = |line: String| writeln!(out, "{line}").map_err(Failure::stdout);
    for spec in specs {
        // Checked again as it is written; here so that a long build is not lost to it. A build
        // that grows its table learns the final name only at the end.
        if job.prove.is_none() {
            format::check_replaceable(&dir.join(spec.file_name()), &spec.to_string())?;
        }
        let start = Instant::now();
        let progress = Progress::new(format!("building {spec}"));
        let built = match job.prove {
            None => build(engines, &spec, &progress, &mut timings).map(|b| (b, None)),
            Some(max) => {
                prove(engines, &spec, max, &progress, &mut timings).map(|(b, p)| (b, Some(p)))
            }
        };
        say_notes(engines);
        // A script's errors name its game already.
        let (built, proof) = built.map_err(|e| e.about(&spec))?;
        if job.cross_check {
            let (other, compared) =
                cross_check(engines, &built, &progress, &mut timings).map_err(|e| e.line)?;
            let engine = built.engine;
            say(format!(
                "{spec}: {engine} and {other} agree on all {compared} values (--cross-check)"
            ))?;
        }
        progress.finish();
        let (table, engine) = (built.table, built.engine);
        let spec = &table.spec;
        if let Some(proof) = proof {
            say(proof.describe(&table))?;
        }
        if let Some(n) = built.filled_from {
            say(format!(
                "{spec}: the first {n} values proved the rule; the rest were filled from it"
            ))?;
        }
        let path = dir.join(spec.file_name());
        let size = timings.time("file write", || format::write_replacing(&table, &path))?;
        say(format!(
            "wrote {} ({size} bytes, {} entries, {} bits each, {}) with {engine} in {:.3} s",
            path.display(),
            table.values.len(),
            table.values.bits(),
            table.rule_text(),
            start.elapsed().as_secs_f64()
        ))?;
        let phases = std::mem::take(&mut timings.phases);
        if job.timings {
            let width = phases.iter().map(|(p, _)| p.chars().count()).max().unwrap_or(0).max(24);
            for (phase, took) in phases {
                say(format!("  {phase:<width$} {:>10.3} ms", took.as_secs_f64() * 1e3))?;
            }
        }
    }
    Ok(())
}

/// Reads each of `files`, computes its values again with `engines` (its game run through
/// `resolver`) and compares: a verdict line on `out` for each file that holds, `error` told
/// the one line of each that does not. [`Failure::Said`] when one did not.
pub fn verify_files(
    files: &[PathBuf],
    resolver: &Resolver,
    engines: &Engines,
    out: &mut dyn Write,
    error: &mut dyn FnMut(&str),
) -> Result<(), Failure> {
    if files.is_empty() {
        return Err("no files to verify; usage: sgtab verify FILE...".into());
    }
    let mut timings = Timings::default();
    let mut failed = false;
    for file in files {
        let name = file.display();
        let outcome = format::load(file).and_then(|t| {
            let progress = Progress::new(format!("recomputing {}", t.spec));
            let verified = verify(&t, resolver, engines, &progress, &mut timings);
            say_notes(engines);
            progress.finish();
            verified.map(|v| (v, t)).map_err(|e| format!("{name}: {e}"))
        });
        let line = match outcome {
            Ok((Verified::Recomputed(engine), t)) => {
                let n = t.values.len();
                format!("{name}: OK ({}, {n} entries, checked with {engine})", t.spec)
            }
            Ok((Verified::AsStored, t)) => format!(
                "{name}: OK as stored ({}, {} entries: checksum, header and rule hold); its \
                    values were imported from another program, so sgtab cannot recompute them",
                t.spec,
                t.values.len()
            ),
            Err(e) => {
                error(&e);
                failed = true;
                continue;
            }
        };
        writeln!(out, "{line}").map_err(Failure::stdout)?;
    }
    if failed { Err(Failure::Said) } else { Ok(()) }
}

/// Prints what the engines chose and opened since the last call, on stderr.
fn say_notes(engines: &Engines) {
    for note in engines.take_notes() {
        // A note that cannot be printed (stderr is full or closed) is dropped; the work goes on.
        let _ = writeln!(io::stderr().lock(), "sgtab: {note}");
    }
}
