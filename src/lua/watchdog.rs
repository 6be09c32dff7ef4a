//! Stops a call into a script that runs too long, at no cost to calls that do not.
//!
//! Lua stops a running interpreter by a hook: the count hook (every n instructions) would do,
//! but Lua 5.4 then takes its slow path on every instruction, whatever n: 18% more time on the
//! 1-3-9 stones and 30% on Lasker's Nim here (docs/scripts.md). Instead, as the `lua` interpreter stops a script on Ctrl-C, the hook is set
//! only when needed, from a signal handler on the interpreter's own thread (the one place
//! where `lua_sethook` may be called while Lua runs): a watchdog thread that sees a call run
//! past its bound sends that thread `SIGURG`, whose handler sets a hook that raises an error at
//! the next instruction. A call's start is one atomic store of the watchdog's clock (a tick
//! every 50 ms), not a clock read.
use mlua::ffi;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

const TICK: Duration = Duration::from_millis(50);
/// Ticks since the watchdog started; a call records the tick it began in.
static CLOCK: AtomicU64 = AtomicU64::new(1);
static WATCHED: Mutex<Vec<Arc<Entry>>> = Mutex::new(Vec::new());
static START: Once = Once::new();

thread_local! {
    /// The state this thread is running a call in, for the signal handler (null: none).
    static RUNNING: Cell<*mut ffi::lua_State> = const { Cell::new(std::ptr::null_mut()) };
}

/// One interpreter's calls, as the watchdog sees them.
struct Entry {
    thread: libc::pthread_t,
    /// The tick its current call began in; 0 when no call runs.
    since: AtomicU64,
    /// Ticks a call may run.
    most: u64,
    /// Set when the watchdog stopped a call (until [`Watch::stopped`] reads it).
    fired: AtomicBool,
    /// The interpreter was dropped: the watchdog forgets it.
    gone: AtomicBool,
}

/// A thread's registration with the watchdog; calls into Lua go through its `call`.
pub struct Watch {
    entry: Arc<Entry>,
    seconds: u64,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Watch({} s)", self.seconds)
    }
}

impl Watch {
    /// Watches calls made on this thread, stopping any that runs past `seconds`.
    pub fn new(seconds: u64) -> Watch {
        START.call_once(start);
        // SAFETY: pthread_self has no preconditions.
        let thread = unsafe { libc::pthread_self() };
        let most = (seconds.saturating_mul(1000) / TICK.as_millis() as u64).max(1);
        let entry = Arc::new(Entry { thread, since: AtomicU64::new(0), most, fired: AtomicBool::new(false), gone: AtomicBool::new(false) });
        WATCHED.lock().unwrap_or_else(|e| e.into_inner()).push(entry.clone());
        Watch { entry, seconds }
    }

    /// Runs `f`, a call into the interpreter whose main state is `state`, under watch.
    pub(crate) fn call<T>(&self, state: *mut ffi::lua_State, f: impl FnOnce() -> T) -> T {
        RUNNING.with(|r| r.set(state));
        self.entry.since.store(CLOCK.load(Relaxed), Relaxed);
        let out = f();
        self.entry.since.store(0, Relaxed);
        RUNNING.with(|r| r.set(std::ptr::null_mut()));
        // SAFETY: the state is this thread's and no call runs on it: clear a hook the
        // watchdog set (too late to stop the call that has just ended).
        unsafe { ffi::lua_sethook(state, None, 0, 0) };
        out
    }

    /// Why the last call was stopped, if the watchdog stopped it.
    pub fn stopped(&self) -> Option<String> {
        self.entry.fired.swap(false, Relaxed).then(|| format!("ran longer than {} s (an endless loop?); --lua-seconds raises the bound", self.seconds))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.entry.gone.store(true, Relaxed);
    }
}

/// Installs the signal handler and starts the watchdog thread.
fn start() {
    // SAFETY: a handler that only reads a thread-local pointer and calls lua_sethook, which
    // Lua allows from a signal handler; SA_RESTART keeps system calls going.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGURG, &action, std::ptr::null_mut());
    }
    let spawned = std::thread::Builder::new().name("sgtab-lua-watchdog".into()).spawn(|| {
        loop {
            std::thread::sleep(TICK);
            let now = CLOCK.fetch_add(1, Relaxed) + 1;
            let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
            watched.retain(|e| !e.gone.load(Relaxed));
            for e in watched.iter() {
                let since = e.since.load(Relaxed);
                if since != 0 && now.saturating_sub(since) > e.most {
                    e.fired.store(true, Relaxed);
                    // SAFETY: the thread is alive: its Watch is not dropped (not `gone`), and a
                    // Watch lives on the thread that made it.
                    unsafe { libc::pthread_kill(e.thread, libc::SIGURG) };
                }
            }
        }
    });
    // Without the watchdog (no thread could be started) calls run unbounded in time; the
    // memory bound still holds.
    drop(spawned);
}

extern "C" fn on_signal(_: libc::c_int) {
    let state = RUNNING.with(|r| r.get());
    if !state.is_null() {
        // SAFETY: `state` runs on this very thread (the signal interrupted it), which is
        // how Lua's own interpreter stops a script on Ctrl-C.
        unsafe { ffi::lua_sethook(state, Some(stop), ffi::LUA_MASKCALL | ffi::LUA_MASKRET | ffi::LUA_MASKCOUNT, 1) };
    }
}

/// The hook the handler sets: clears itself and raises an error in the running call.
unsafe extern "C-unwind" fn stop(l: *mut ffi::lua_State, _: *mut ffi::lua_Debug) {
    // SAFETY: called by Lua inside the running call; the error unwinds to its lua_pcall.
    // This frame owns nothing.
    unsafe {
        ffi::lua_sethook(l, None, 0, 0);
        ffi::lua_pushstring(l, c"sgtab: the call was stopped".as_ptr());
        ffi::lua_error(l);
    }
}
