//! Stops a call into a script that runs too long, at no cost to calls that do not.
//!
//! Lua stops a running interpreter by a hook: the count hook (every n instructions) would do,
//! but Lua 5.4 then takes its slow path on every instruction, whatever n: 18% more time on the
//! 1-3-9 stones and 30% on Lasker's Nim (docs/scripts.md). Instead, as the `lua` interpreter
//! stops a script on Ctrl-C, the hook is set only when needed, from a signal handler on the
//! interpreter's own thread (the one place where `lua_sethook` may be called while Lua runs):
//! a watchdog thread that sees a call run past its bound sends that thread `SIGURG`, whose
//! handler sets a hook that raises an error at every instruction and every function call from
//! then on. The hook stays set until the call returns to sgtab, so a `pcall`, an `xpcall`
//! handler or a `__close` method that catches the error meets it again at its next
//! instruction: each catch unwinds to an outer frame, and the call ends. A call's start is one
//! atomic store of the watchdog's clock (a tick every 50 ms), not a clock read.
//!
//! C functions run no instructions, so the hook cannot stop them: sgtab's own replacements of
//! the long ones (pattern matching, `table.sort`) ask `poll` as they go.
//!
//! **The process-wide part.** The first [`Watch`] installs a `SIGURG` handler for the whole
//! process and starts the watchdog thread. The handler acts only on a thread that is running a
//! watched call the watchdog has stopped; any other `SIGURG` goes to the handler that was
//! installed before (if it was a function), so an embedder that uses `SIGURG` (Go's runtime
//! does, for preemption) keeps getting its own. In one race (the call ends between the
//! watchdog's decision and the signal's arrival) that earlier handler sees one spurious
//! `SIGURG`, which `SIGURG`'s meaning (out-of-band data may be there) allows. `SIGURG` is
//! ignored by default, so a process that never handles it sees nothing.
//!
//! **No signal to a thread that is gone.** A `Watch` is made and dropped on its own thread;
//! its drop takes it off the watchdog's list under the lock the watchdog signals under, so
//! the watchdog never signals a thread after its `Watch` is dropped. Each call has an id, and
//! the stop names the call it is for: a signal that arrives after its call ended (the next
//! call on that thread has another id) sets nothing, and a stop is reported only for the call
//! it stopped.
use mlua::ffi;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

const TICK: Duration = Duration::from_millis(50);
/// Ticks since the watchdog started (from 1); a call records the tick it began in.
static CLOCK: AtomicU64 = AtomicU64::new(1);
static WATCHED: Mutex<Vec<Arc<Entry>>> = Mutex::new(Vec::new());
/// Whether the watchdog runs (set once, by the first `Watch`).
static STARTED: OnceLock<Result<(), String>> = OnceLock::new();
/// The `SIGURG` action before sgtab's, to pass other signals on to.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// The low 32 bits of [`Entry::call`]: the tick a call began in (0: no call runs).
const TICKS: u64 = 0xFFFF_FFFF;

thread_local! {
    /// The call this thread is running, for the signal handler and [`poll`]: its interpreter's
    /// main state and its entry (null: none).
    static CURRENT: Cell<(*mut ffi::lua_State, *const Entry)> =
        const { Cell::new((std::ptr::null_mut(), std::ptr::null())) };
}

/// One interpreter's calls, as the watchdog sees them.
struct Entry {
    thread: libc::pthread_t,
    /// The current call: its id in the high 32 bits, the tick it began in in the low ones
    /// (0 when no call runs). One word, so that the watchdog reads both at once.
    call: AtomicU64,
    /// `id << 32 | 1` of the call the watchdog stopped (0: none).
    stopped: AtomicU64,
    /// Ticks a call may run.
    most: u64,
}

impl Entry {
    /// Whether the call running now (if any) is the one the watchdog stopped.
    fn stopping(&self) -> bool {
        let call = self.call.load(Relaxed);
        call & TICKS != 0 && self.stopped.load(Relaxed) == stop_mark(call)
    }
}

/// What [`Entry::stopped`] holds for the call whose [`Entry::call`] word is `call`.
fn stop_mark(call: u64) -> u64 {
    (call & !TICKS) | 1
}

/// A thread's registration with the watchdog; calls into Lua go through its `call`.
pub struct Watch {
    entry: Arc<Entry>,
    seconds: u64,
    /// The id of the last call made.
    last: Cell<u64>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Watch({} s)", self.seconds)
    }
}

impl Watch {
    /// Watches calls made on this thread, stopping any that runs past `seconds`; an error where
    /// the watchdog cannot run (no thread could be started for it).
    pub fn new(seconds: u64) -> Result<Watch, String> {
        STARTED.get_or_init(start).clone()?;
        // SAFETY: pthread_self has no preconditions.
        let thread = unsafe { libc::pthread_self() };
        let most = (seconds.saturating_mul(1000) / TICK.as_millis() as u64).max(1);
        let entry =
            Arc::new(Entry { thread, call: AtomicU64::new(0), stopped: AtomicU64::new(0), most });
        WATCHED.lock().unwrap_or_else(|e| e.into_inner()).push(entry.clone());
        Ok(Watch { entry, seconds, last: Cell::new(0) })
    }

    /// Runs `f`, a call into the interpreter whose main state is `state`, under watch.
    pub(crate) fn call<T>(&self, state: *mut ffi::lua_State, f: impl FnOnce() -> T) -> T {
        let id = (self.last.get() + 1) & TICKS;
        self.last.set(id);
        let outer = CURRENT.with(|c| c.replace((state, Arc::as_ptr(&self.entry))));
        let tick = (CLOCK.load(Relaxed) & TICKS).max(1);
        self.entry.call.store(id << 32 | tick, Relaxed);
        let out = f();
        self.entry.call.store(id << 32, Relaxed);
        CURRENT.with(|c| c.set(outer));
        // The handler sets the hook only for a call the watchdog stopped, and no more once the
        // word above says no call runs.
        if self.entry.stopped.load(Relaxed) == stop_mark(id << 32) {
            // SAFETY: the state is this thread's and no call runs on it: clear the hook the
            // handler set (the call it was set for has just ended).
            unsafe { ffi::lua_sethook(state, None, 0, 0) };
        }
        out
    }

    /// Why the last call was stopped, if the watchdog stopped it.
    pub fn stopped(&self) -> Option<String> {
        (self.entry.stopped.load(Relaxed) == stop_mark(self.last.get() << 32)).then(|| {
            format!(
                "ran longer than {} s (an endless loop?); --lua-seconds raises the bound",
                self.seconds
            )
        })
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // Under the lock the watchdog signals under: once this returns, the thread is never
        // signalled for this entry again, whenever it exits.
        let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
        watched.retain(|e| !Arc::ptr_eq(e, &self.entry));
    }
}

/// Whether the call this thread is running has been stopped: sgtab's C functions that may
/// run long ask it as they go, and raise [`STOPPED`] when it says so.
pub(crate) fn poll() -> bool {
    let (_, entry) = CURRENT.with(|c| c.get());
    // SAFETY: a non-null entry is the running call's, whose Watch outlives the call.
    !entry.is_null() && unsafe { (*entry).stopping() }
}

/// The error message of a stopped call (what the caller sees is [`Watch::stopped`]'s).
pub(crate) const STOPPED: &std::ffi::CStr = c"sgtab: the call was stopped";

/// Installs the signal handler and starts the watchdog thread.
fn start() -> Result<(), String> {
    // SAFETY: a handler that only reads thread-locals and atomics and calls lua_sethook
    // (which Lua allows from a signal handler) or the handler installed before; SA_RESTART
    // keeps system calls going.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as usize;
        action.sa_flags = libc::SA_RESTART | libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        let mut previous: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGURG, &action, &mut previous) != 0 {
            return Err(format!(
                "cannot install the handler that stops endless loops: {}",
                std::io::Error::last_os_error()
            ));
        }
        let _ = PREVIOUS.set(previous);
    }
    let spawned = std::thread::Builder::new().name("sgtab-lua-watchdog".into()).spawn(|| {
        loop {
            std::thread::sleep(TICK);
            let now = (CLOCK.fetch_add(1, Relaxed) + 1) & TICKS;
            let watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
            for e in watched.iter() {
                let call = e.call.load(Relaxed);
                let since = call & TICKS;
                if since != 0
                    && now.wrapping_sub(since) & TICKS > e.most
                    && e.stopped.load(Relaxed) != stop_mark(call)
                {
                    e.stopped.store(stop_mark(call), Relaxed);
                    // SAFETY: the thread is alive: its Watch is in the list, and a Watch leaves
                    // the list (under this lock) before its thread can end.
                    unsafe { libc::pthread_kill(e.thread, libc::SIGURG) };
                }
            }
        }
    });
    spawned.map(drop).map_err(|e| format!("cannot start the thread that stops endless loops: {e}"))
}

extern "C" fn on_signal(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    let (state, entry) = CURRENT.with(|c| c.get());
    // SAFETY: a non-null entry is the running call's (its Watch outlives the call), and
    // `state` runs on this very thread (the signal interrupted it), which is how Lua's own
    // interpreter stops a script on Ctrl-C.
    if !entry.is_null() && unsafe { (*entry).stopping() } {
        unsafe { ffi::lua_sethook(state, Some(stop), ffi::LUA_MASKCALL | ffi::LUA_MASKCOUNT, 1) };
        return;
    }
    // Not a stop of this thread's call: the handler installed before gets it.
    if let Some(previous) = PREVIOUS.get() {
        let handler = previous.sa_sigaction;
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            return;
        }
        // SAFETY: calls the earlier handler as the kernel would have, by the kind its flags say.
        unsafe {
            if previous.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(handler);
                f(signal, info, context);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                f(signal);
            }
        }
    }
}

/// The hook the handler sets: raises an error in the running call, and stays set (so that the
/// next instruction after a `pcall` that caught it raises it again) until the call returns to
/// sgtab ([`Watch::call`] clears it).
unsafe extern "C-unwind" fn stop(l: *mut ffi::lua_State, _: *mut ffi::lua_Debug) {
    // SAFETY: called by Lua inside the running call; the error unwinds to a protected call.
    // This frame owns nothing.
    unsafe {
        ffi::lua_pushstring(l, STOPPED.as_ptr());
        ffi::lua_error(l);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `code` on `lua`'s main state under `watch` (protected): whether it returned.
    fn run(lua: &mlua::Lua, watch: &Watch, code: &str) -> bool {
        // SAFETY: exec_raw hands over the main state; the chunk runs in a protected call.
        unsafe {
            let mut ok = false;
            lua.exec_raw::<()>((), |l| {
                let loaded = ffi::luaL_loadbufferx(
                    l,
                    code.as_ptr() as *const _,
                    code.len(),
                    c"=t".as_ptr(),
                    std::ptr::null(),
                );
                ok = loaded == ffi::LUA_OK
                    && watch.call(l, || ffi::lua_pcall(l, 0, 0, 0)) == ffi::LUA_OK;
            })
            .unwrap();
            ok
        }
    }

    #[test]
    fn a_stop_is_reported_for_the_call_it_stopped_only() {
        let lua = mlua::Lua::new();
        let watch = Watch::new(1).unwrap();
        let main = unsafe {
            let mut raw = std::ptr::null_mut();
            lua.exec_raw::<()>((), |l| raw = l).unwrap();
            raw
        };
        // A call that runs past its second without running Lua: the watchdog stops it (its
        // signal sets the hook, which the end of the call clears). It waits for the stop, so a
        // loaded machine's late watchdog cannot leave this step testing nothing.
        watch.call(main, || {
            let start = std::time::Instant::now();
            while !poll() && start.elapsed() < Duration::from_secs(20) {
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        assert!(watch.stopped().is_some(), "the watchdog did not stop a call in 20 s");
        // The next call fails by its own error, and is not reported as stopped.
        assert!(!run(&lua, &watch, "error('its own')"));
        assert_eq!(watch.stopped(), None);
        // A call that catches the stop with pcall is stopped all the same.
        let start = std::time::Instant::now();
        assert!(!run(&lua, &watch, "while true do pcall(function() while true do end end) end"));
        assert!(watch.stopped().is_some_and(|why| why.contains("ran longer than 1 s")));
        assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
        // And the one after runs normally.
        assert!(run(&lua, &watch, "local x = 0 for i = 1, 1000 do x = x + i end"));
        assert_eq!(watch.stopped(), None);
    }
}
