//! What stops a native game that crashes or loops, naming the position it was computing.
//!
//! Each worker thread has a [`Slot`]: the library stores there each position as it starts it
//! (`current` in `struct sgtab_call`), and the slot says whether a call is running. While at
//! least one native game's worker lives, sgtab holds handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL
//! and SIGABRT and a watchdog thread; the handlers before are put back when the last worker
//! ends. A handler that fires on a thread inside a call writes one line (built without
//! allocating, with write(2)) naming the game and the position, and ends the process with
//! `_exit(1)`: nothing was written, since tables are written only after a build. Elsewhere it
//! puts the handler that was there before back and returns, so the fault happens again under
//! it (Rust's own stack-overflow report, a default abort). The watchdog wakes every 50 ms;
//! a call that has been on one position past the time bound ends the process the same way.

use crate::values::Dims;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a message names: the game and how its positions read.
pub(super) struct Context {
    /// `sgtab: error: SPEC: FILE at position `.
    pub prefix: Vec<u8>,
    pub dims: Dims,
    pub seconds: u64,
}

/// One worker's position and state.
pub(super) struct Slot {
    /// The position being computed (written by the library).
    pub current: AtomicU64,
    /// Calls begun, plus one while a call runs: odd inside a call.
    calls: AtomicU64,
    context: Arc<Context>,
    /// The watchdog's last look: calls, position, since when.
    seen: Mutex<(u64, u64, Instant)>,
}

thread_local! {
    /// The slot of the call running on this thread, null outside one. A const-initialised
    /// cell with nothing to drop: reading it is a plain thread-local load, safe in a handler.
    static IN_CALL: Cell<*const Slot> = const { Cell::new(std::ptr::null()) };
}

struct Registry {
    slots: Vec<Arc<Slot>>,
    watchdog: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { slots: Vec::new(), watchdog: false });
static INSTALLED: AtomicBool = AtomicBool::new(false);
const SIGNALS: [libc::c_int; 5] =
    [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL, libc::SIGABRT];

/// The handlers that were there before ours, by index of [`SIGNALS`].
struct Old(std::cell::UnsafeCell<[std::mem::MaybeUninit<libc::sigaction>; 5]>);
// SAFETY: written only while no handler of ours is installed (under REGISTRY's lock), read by
// the handlers and by `uninstall` afterwards.
unsafe impl Sync for Old {}
static OLD: Old = Old(std::cell::UnsafeCell::new([std::mem::MaybeUninit::uninit(); 5]));

impl Slot {
    /// A slot for a new worker, counted until it is dropped ([`release`]).
    pub(super) fn register(context: Arc<Context>) -> Arc<Slot> {
        let slot = Arc::new(Slot {
            current: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            context,
            seen: Mutex::new((0, 0, Instant::now())),
        });
        let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        if reg.slots.is_empty() {
            install();
        }
        reg.slots.push(slot.clone());
        if !reg.watchdog {
            reg.watchdog = std::thread::Builder::new()
                .name("sgtab-native-watchdog".into())
                .spawn(watchdog)
                .is_ok();
        }
        slot
    }

    /// Runs `f` (a call into the library) as this thread's call.
    pub(super) fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        self.calls.fetch_add(1, Relaxed);
        IN_CALL.with(|c| c.set(self));
        let out = f();
        IN_CALL.with(|c| c.set(std::ptr::null()));
        self.calls.fetch_add(1, Relaxed);
        out
    }

    /// The position of the call, in words.
    pub(super) fn position(&self) -> String {
        self.context.dims.name(self.current.load(Relaxed).min(self.context.dims.len() - 1))
    }
}

/// Forgets a worker's slot; the last one puts the old handlers back.
pub(super) fn release(slot: &Arc<Slot>) {
    let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    reg.slots.retain(|s| !Arc::ptr_eq(s, slot));
    if reg.slots.is_empty() {
        uninstall();
    }
}

fn install() {
    if INSTALLED.swap(true, Relaxed) {
        return;
    }
    for (i, &sig) in SIGNALS.iter().enumerate() {
        // SAFETY: a zeroed sigaction is valid; our handler only does async-signal-safe work.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = handler
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as usize;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut act.sa_mask);
            let old = (*OLD.0.get())[i].as_mut_ptr();
            libc::sigaction(sig, &act, old);
        }
    }
}

fn uninstall() {
    if !INSTALLED.swap(false, Relaxed) {
        return;
    }
    for (i, &sig) in SIGNALS.iter().enumerate() {
        // SAFETY: OLD[i] was filled by `install`.
        unsafe { libc::sigaction(sig, (*OLD.0.get())[i].as_ptr(), std::ptr::null_mut()) };
    }
}

extern "C" fn handler(sig: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
    let slot = IN_CALL.with(|c| c.get());
    let i = SIGNALS.iter().position(|&s| s == sig).unwrap_or(0);
    if slot.is_null() {
        // Not a native game's fault: the handler before takes it when it happens again.
        // SAFETY: OLD[i] was filled before ours was installed; sigaction is async-signal-safe.
        unsafe { libc::sigaction(sig, (*OLD.0.get())[i].as_ptr(), std::ptr::null_mut()) };
        if sig == libc::SIGABRT {
            // SAFETY: raise is async-signal-safe.
            unsafe { libc::raise(sig) };
        }
        return;
    }
    let why: &[u8] = match sig {
        libc::SIGSEGV => {
            b"crashed with SIGSEGV (an invalid memory access: an index off an array, a stack \
                overflow?)"
        }
        libc::SIGBUS => b"crashed with SIGBUS (an invalid memory access)",
        libc::SIGFPE => b"crashed with SIGFPE (an integer division by zero?)",
        libc::SIGILL => {
            b"crashed with SIGILL (an illegal instruction: undefined behaviour, or a function \
                that returns no value?)"
        }
        _ => b"aborted (SIGABRT: a failed assert, or an exception nothing caught?)",
    };
    // SAFETY: the slot lives while its worker is inside a call.
    die(unsafe { &*slot }, why);
}

/// Writes `PREFIX POSITION: why; nothing was written` to stderr and ends the process, without
/// allocating.
fn die(slot: &Slot, why: &[u8]) -> ! {
    let mut buf = [0u8; 1024];
    let mut w = Writer { buf: &mut buf, len: 0 };
    w.put(&slot.context.prefix);
    let dims = &slot.context.dims;
    let p = slot.current.load(Relaxed) % dims.len();
    if dims.axes() == 1 {
        w.num(p);
    } else {
        let mut point = [0u64; crate::values::MAX_AXES];
        dims.point(p, &mut point);
        w.put(b"(");
        for (j, &c) in point[..dims.axes()].iter().enumerate() {
            if j > 0 {
                w.put(b", ");
            }
            w.num(c);
        }
        w.put(b")");
    }
    w.put(b": ");
    w.put(why);
    w.put(b"; nothing was written\n");
    let len = w.len;
    // SAFETY: write(2) and _exit(2) are async-signal-safe.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), len);
        libc::_exit(1);
    }
}

/// A fixed buffer written to without allocating (what a signal handler may do).
struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }

    fn num(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.put(&digits[i..]);
    }
}

/// Every 50 ms, a call on one position past its time bound ends the process; the thread ends
/// when no native game's worker is left.
fn watchdog() {
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        if reg.slots.is_empty() {
            reg.watchdog = false;
            return;
        }
        let now = Instant::now();
        for slot in &reg.slots {
            let (calls, at) = (slot.calls.load(Relaxed), slot.current.load(Relaxed));
            let mut seen = slot.seen.lock().unwrap_or_else(|e| e.into_inner());
            if calls % 2 == 0 || (seen.0, seen.1) != (calls, at) {
                *seen = (calls, at, now);
                continue;
            }
            let seconds = slot.context.seconds;
            if now.duration_since(seen.2) > Duration::from_secs(seconds) {
                let why = format!(
                    "ran longer than {seconds} s (an endless loop?); --lua-seconds raises the bound"
                );
                die(slot, why.as_bytes());
            }
        }
    }
}
