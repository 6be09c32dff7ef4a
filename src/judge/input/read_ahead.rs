//! A reader thread for a pipe: while the scanner parses one chunk of the input, a thread of
//! its own reads the next ones, so the pipe's copies into the process (the `read(2)` system
//! calls) run beside the parse instead of between its steps. Memory stays bounded: `CHUNKS`
//! buffers of `CHUNK` bytes, used in turn.
//!
//! The reader hands a chunk over when it is full, or as soon as a read returns while the parse
//! waits, however little it holds; the end and a read error are handed over in their place in
//! the stream, after the bytes before them. `sgq` uses it on pipes only, when it has more than
//! one thread (a terminal keeps the plain path). A writer that waits for answers before writing
//! more would get none either way: answers go out through a 64 KiB buffer, and at the end.
//! A mutex and two condition variables, not a channel: `sgq` must stay small.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Arc, Condvar, Mutex};

/// Bytes a chunk.
const CHUNK: usize = 1 << 19;
/// Chunks in all: one being parsed, the others being read or waiting.
const CHUNKS: usize = 4;

/// What the reader thread hands over, in order.
enum Chunk {
    Bytes(Vec<u8>),
    End,
    Error(io::Error),
}

#[derive(Default)]
struct AheadState {
    /// Handed over, in order.
    full: VecDeque<Chunk>,
    /// Buffers to read into.
    empty: Vec<Vec<u8>>,
    /// The parse is waiting for a chunk.
    waiting: bool,
    /// The parse is gone: the reader stops at its next turn.
    dropped: bool,
}

#[derive(Default)]
struct AheadShared {
    state: Mutex<AheadState>,
    /// `full` got a piece.
    filled: Condvar,
    /// `empty` got a buffer, or the parse went away.
    emptied: Condvar,
}

/// A [`Read`] over `R`, read ahead on a thread of its own.
pub struct ReadAhead {
    shared: Arc<AheadShared>,
    cur: Vec<u8>,
    at: usize,
    /// The end (or an error) was handed over: nothing more comes.
    ended: bool,
}

impl ReadAhead {
    /// Starts the reader thread over `src`; gives `src` back if the system would not start a
    /// thread (then the caller reads it itself).
    pub fn new<R: Read + Send + 'static>(mut src: R) -> Result<ReadAhead, R> {
        let shared = Arc::new(AheadShared::default());
        shared.state.lock().unwrap_or_else(|e| e.into_inner()).empty =
            (0..CHUNKS).map(|_| Vec::with_capacity(CHUNK)).collect();
        let reader = Arc::clone(&shared);
        // The source goes to the thread through a slot, so that it comes back if no thread starts.
        let slot = Arc::new(Mutex::new(None::<R>));
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(src);
        let theirs = Arc::clone(&slot);
        let started = std::thread::Builder::new().name("sgq-read".into()).spawn(move || {
            let Some(src) = theirs.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
            read_ahead(src, &reader);
        });
        match started {
            // Not joined: the thread may sit in a read of a pipe whose writer never closes it,
            // and the process ends without it (see `Drop`).
            Ok(_) => Ok(ReadAhead { shared, cur: Vec::new(), at: 0, ended: false }),
            Err(_) => {
                src = slot
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                    .expect("no thread took the source");
                Err(src)
            }
        }
    }
}

/// The reader thread: fills buffers from `src` and hands them over until the end, an error, or
/// the parse going away.
fn read_ahead(mut src: impl Read, shared: &AheadShared) {
    loop {
        let mut buf = {
            let mut s = shared.state.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if s.dropped {
                    return;
                }
                if let Some(b) = s.empty.pop() {
                    break b;
                }
                s = shared.emptied.wait(s).unwrap_or_else(|e| e.into_inner());
            }
        };
        buf.clear();
        buf.resize(CHUNK, 0);
        let mut len = 0;
        let last = loop {
            match src.read(&mut buf[len..]) {
                Ok(0) => break Some(Chunk::End),
                Ok(n) => {
                    len += n;
                    // Hand it over when full, or at once if the parse waits for it.
                    if len == CHUNK
                        || shared.state.lock().unwrap_or_else(|e| e.into_inner()).waiting
                    {
                        break None;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Some(Chunk::Error(e)),
            }
        };
        buf.truncate(len);
        let mut s = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if len > 0 {
            s.full.push_back(Chunk::Bytes(buf));
        } else {
            s.empty.push(buf);
        }
        let done = last.is_some();
        s.full.extend(last);
        drop(s);
        shared.filled.notify_one();
        if done {
            return;
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at == self.cur.len() {
            if self.ended || out.is_empty() {
                return Ok(0);
            }
            let mut s = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
            if self.cur.capacity() > 0 {
                s.empty.push(std::mem::take(&mut self.cur));
                self.at = 0;
                self.shared.emptied.notify_one();
            }
            let piece = loop {
                if let Some(p) = s.full.pop_front() {
                    break p;
                }
                s.waiting = true;
                s = self.shared.filled.wait(s).unwrap_or_else(|e| e.into_inner());
            };
            s.waiting = false;
            drop(s);
            match piece {
                Chunk::Bytes(b) => {
                    self.cur = b;
                    self.at = 0;
                }
                Chunk::End => {
                    self.ended = true;
                    return Ok(0);
                }
                Chunk::Error(e) => {
                    self.ended = true;
                    return Err(e);
                }
            }
        }
        let n = out.len().min(self.cur.len() - self.at);
        out[..n].copy_from_slice(&self.cur[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner()).dropped = true;
        self.shared.emptied.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that gives its bytes in reads of the sizes in `steps` (cycled), then an error
    /// if `fail`, else the end.
    struct Steps {
        data: Vec<u8>,
        at: usize,
        steps: Vec<usize>,
        turn: usize,
        fail: bool,
    }

    impl Read for Steps {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.at == self.data.len() {
                return if self.fail { Err(io::Error::other("broken source")) } else { Ok(0) };
            }
            self.turn += 1;
            if self.turn.is_multiple_of(7) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = self.steps[self.turn % self.steps.len()]
                .min(out.len())
                .min(self.data.len() - self.at);
            out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn gives_every_byte_in_order_then_the_end_or_the_error() {
        for (len, steps) in [
            (0, vec![1]),
            (1, vec![1]),
            (5 * CHUNK + 17, vec![65536, 1, 4096, 300_000]),
            (CHUNK * CHUNKS * 3, vec![CHUNK]),
            (100_000, vec![3, 1000]),
        ] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 1000) as u8).collect();
            for fail in [false, true] {
                for out_size in [1usize, 4096, 256 * 1024] {
                    let src =
                        Steps { data: data.clone(), at: 0, steps: steps.clone(), turn: 0, fail };
                    let Ok(mut r) = ReadAhead::new(src) else { panic!("no thread") };
                    let mut got = Vec::new();
                    let mut buf = vec![0; out_size];
                    let end = loop {
                        match r.read(&mut buf) {
                            Ok(0) => break Ok(()),
                            Ok(n) => got.extend_from_slice(&buf[..n]),
                            Err(e) => break Err(e.to_string()),
                        }
                    };
                    assert!(
                        got == data,
                        "len {len}, steps {steps:?}, reads of {out_size}: {} bytes, not {}",
                        got.len(),
                        data.len()
                    );
                    assert_eq!(end, if fail { Err("broken source".to_string()) } else { Ok(()) });
                    assert_eq!(r.read(&mut buf).unwrap(), 0, "nothing after the end");
                }
            }
        }
    }

    #[test]
    fn stopping_early_leaves_the_reader_to_end() {
        // The parse stops after a few bytes of a long input: dropping it must not wait on the
        // reader (which is blocked, waiting for an empty buffer).
        let src =
            Steps { data: vec![b'1'; CHUNK * 10], at: 0, steps: vec![CHUNK], turn: 0, fail: false };
        let Ok(mut r) = ReadAhead::new(src) else { panic!("no thread") };
        let mut buf = [0; 10];
        assert_eq!(r.read(&mut buf).unwrap(), 10);
        drop(r);
    }
}
