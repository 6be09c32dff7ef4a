//! How a command fails: one line for stderr, or nothing more to say.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// One line for stderr.
    Line(String),
    /// Nothing more to say: the details were printed already, or the reader of stdout went away.
    Said,
}

impl Failure {
    /// The failure a failed write to stdout ends a command with. A reader that went away (a
    /// broken pipe, `sgtab dump T | head`) ends it with status 1 and no message, as `sgq` does:
    /// what was not written is lost, but saying so would only be noise. Anything else (a full
    /// disk) is one line.
    pub fn stdout(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::Said
        } else {
            Failure::Line(format!("cannot write output: {e}"))
        }
    }
}

impl From<String> for Failure {
    fn from(line: String) -> Failure {
        Failure::Line(line)
    }
}

impl From<&str> for Failure {
    fn from(line: &str) -> Failure {
        Failure::Line(line.to_string())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Line(line) => f.write_str(line),
            Failure::Said => Ok(()),
        }
    }
}

/// Writes `bytes` to stdout, or to `path` through [`write_bytes`](super::write_bytes)
/// (atomically, or through to a device or FIFO).
pub fn stdout_or_file(path: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    let Some(path) = path else {
        let mut stdout = io::stdout().lock();
        return stdout.write_all(bytes).and_then(|_| stdout.flush()).map_err(Failure::stdout);
    };
    super::write_bytes(path, bytes)
        .map_err(|e| Failure::Line(format!("cannot write {}: {e}", path.display())))
}
