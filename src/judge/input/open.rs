//! Opening the judge input `sgq` was given (`--input FILE`, or standard input): a regular file
//! is mapped and read on every core ([`super::mapped`]) unless it is small; anything else (a
//! pipe, a terminal, a socket) is streamed through the scanner's buffer, with a reader thread
//! beside the parse on a pipe ([`super::read_ahead`]).

use super::mapped::Parallel;
use super::read_ahead::ReadAhead;
use std::io::{self, Read, Seek};
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;

/// Where the judge input comes from and how many threads answer it.
#[derive(Default)]
pub struct InputChoice {
    /// `--input FILE`; standard input where `None`.
    pub path: Option<PathBuf>,
    /// `--threads N`; every core where `None`.
    pub threads: Option<usize>,
}

/// The input, opened: a stream, or a regular file mapped, with the threads to answer it on.
pub enum Opened {
    Stream(Box<dyn Read>),
    Mapped(MappedFile, Parallel),
}

/// An input to answer: a stream, read in order, or bytes all in memory, read on the threads
/// of its [`Parallel`].
pub enum Input<'d> {
    Stream(&'d mut dyn Read),
    Bytes(&'d [u8], Parallel),
}

impl Opened {
    /// The input to answer, from what was opened.
    pub fn input(&mut self) -> Input<'_> {
        match self {
            Opened::Stream(r) => Input::Stream(r),
            Opened::Mapped(data, par) => Input::Bytes(data, *par),
        }
    }
}

/// A mapped file from the offset the input stands at (stdin may have been read from before).
pub struct MappedFile {
    map: memmap2::Mmap,
    from: usize,
}

impl std::ops::Deref for MappedFile {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map[self.from..]
    }
}

impl InputChoice {
    /// Opens the input. A regular file is mapped unless it is small (two pieces or less: one
    /// thread reads it as fast through the buffer, and mapping costs a few system calls); any
    /// other kind is streamed. Fails only where `--input FILE` cannot be opened.
    pub fn open(&self) -> io::Result<Opened> {
        let mut par = self.threads.map_or_else(Parallel::all_cores, Parallel::new);
        // For tests: pieces of a few bytes put piece boundaries everywhere in a small input.
        if let Some(piece) = std::env::var("SGQ_PIECE_BYTES").ok().and_then(|v| v.parse().ok()) {
            par.piece = piece;
        }
        let file = match &self.path {
            Some(path) => std::fs::File::open(path)?,
            None => match stdin_file() {
                Some(f) => f,
                None => return Ok(Opened::Stream(Box::new(io::stdin().lock()))),
            },
        };
        let meta = file.metadata().ok();
        let from = (&file).stream_position().unwrap_or(0);
        let mapped = match meta {
            Some(ref m) if m.is_file() && m.len().saturating_sub(from) > 2 * par.piece as u64 => {
                // SAFETY: the map is read only, and sgq never writes the file. What mapping cannot
                // rule out is another process changing the file while sgq reads it: bytes that
                // change under the map are read as they are (as with read(2), the answers are
                // then those of some mix of the old and new input), and a file truncated while
                // mapped makes the pages past its new end unreadable: reading one raises SIGBUS,
                // which `on_truncated_input` turns into a one-line error and status 1. Judge
                // inputs are not rewritten while they are answered; a file that is should be
                // piped in (`cat FILE | sgq ...`), which streams it.
                on_truncated_input();
                unsafe { memmap2::Mmap::map(&file) }.ok()
            }
            _ => None,
        };
        match mapped {
            Some(map) if from <= map.len() as u64 => {
                // Pages are read in order by each thread; the kernel may read ahead.
                let _ = map.advise(memmap2::Advice::Sequential);
                // SAFETY: every input `par` answers is this read-only mapping of a file, which
                // sgq never writes.
                par = unsafe { par.over_mapped_file() };
                Ok(Opened::Mapped(MappedFile { map, from: from as usize }, par))
            }
            // A pipe, with a core to spare: read ahead on a thread of its own.
            _ if par.threads > 1 && meta.as_ref().is_some_and(|m| m.file_type().is_fifo()) => {
                match ReadAhead::new(file) {
                    Ok(r) => Ok(Opened::Stream(Box::new(r))),
                    Err(file) => Ok(Opened::Stream(Box::new(file))),
                }
            }
            // Not a regular file, small, or the system would not map it: stream it.
            _ => Ok(Opened::Stream(Box::new(file))),
        }
    }
}

/// From here on, a SIGBUS (a page of the mapped input that no longer exists: another process
/// truncated the file) ends sgq with a one-line error on stderr and status 1, like any other
/// input it cannot answer, instead of killing it by the signal. Answers not yet written are
/// lost, as with any error that ends a run. Written by hand on `libc` (sgq already links it):
/// the handler may only call async-signal-safe functions, so it writes a fixed message with
/// write(2) and leaves with _exit(2).
#[cfg(target_os = "linux")]
fn on_truncated_input() {
    extern "C" fn on_sigbus(_: libc::c_int) {
        const MESSAGE: &[u8] = b"sgq: error: the input file was cut short while sgq read it (did \
            another process truncate it?); answer a file that changes through a pipe: cat FILE | \
            sgq ...\n";
        // SAFETY: write(2) and _exit(2) are async-signal-safe; MESSAGE is static.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(1);
        }
    }
    // SAFETY: a zeroed sigaction is a valid one (no flags, empty mask set below); the handler
    // only calls async-signal-safe functions. Failure leaves the default (death by the signal).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

#[cfg(not(target_os = "linux"))]
fn on_truncated_input() {}

/// Standard input as a file of its own (a duplicate descriptor, sharing its offset), to ask what
/// it is and map it.
fn stdin_file() -> Option<std::fs::File> {
    use std::os::fd::AsFd;
    io::stdin().as_fd().try_clone_to_owned().ok().map(std::fs::File::from)
}
