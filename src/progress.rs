//! Progress on stderr for long builds: silent for the first second, then a line every half
//! second, and a final line, so that short builds print nothing.

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const QUIET_FOR: Duration = Duration::from_secs(1);
const EVERY: Duration = Duration::from_millis(500);

/// Reports how far a build is; safe to share between worker threads.
pub struct Progress {
    /// What is being done; a build that works in steps says which step.
    label: Mutex<String>,
    enabled: bool,
    start: Instant,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    /// Progress for `label` that prints to stderr once the work has run a second.
    pub fn new(label: impl Into<String>) -> Progress {
        Progress {
            label: Mutex::new(label.into()),
            enabled: true,
            start: Instant::now(),
            last: Mutex::new(None),
        }
    }

    /// Progress that never prints (tests, library callers).
    pub fn silent() -> Progress {
        Progress {
            label: Mutex::new(String::new()),
            enabled: false,
            start: Instant::now(),
            last: Mutex::new(None),
        }
    }

    /// Says what is being done from now on (a build that grows its table in steps names the
    /// size of each step).
    pub fn set_label(&self, label: impl Into<String>) {
        *self.label.lock().unwrap_or_else(|e| e.into_inner()) = label.into();
    }

    fn label(&self) -> String {
        self.label.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Records that `done` of `total` units are finished.
    pub fn tick(&self, done: u64, total: u64) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.start) < QUIET_FOR {
            return;
        }
        let Ok(mut last) = self.last.try_lock() else { return };
        if last.is_some_and(|t| now.duration_since(t) < EVERY) {
            return;
        }
        *last = Some(now);
        let pct = if total == 0 { 100.0 } else { done as f64 * 100.0 / total as f64 };
        let elapsed = now.duration_since(self.start).as_secs_f64();
        // The time left at the rate so far, where there is a rate.
        let left = if done > 0 && done < total {
            format!(", about {:.0}s left", elapsed * (total - done) as f64 / done as f64)
        } else {
            String::new()
        };
        // A line that cannot be printed (stderr full or closed) is dropped: progress is not
        // worth failing, let alone panicking, for.
        let _ = writeln!(
            std::io::stderr().lock(),
            "{}: {pct:5.1}% ({done}/{total}) after {elapsed:.1}s{left}",
            self.label()
        );
    }

    /// Prints the closing line, if anything was printed before.
    pub fn finish(&self) {
        if self.enabled && self.last.lock().map(|l| l.is_some()).unwrap_or(false) {
            let _ = writeln!(
                std::io::stderr().lock(),
                "{}: done in {:.1}s",
                self.label(),
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}
