//! Where a script's function returned a bad value: the line of its `return`, for the one-line
//! error (`option 2 is nil, ... (returned at stones.lua:4)`).
//!
//! Once a call's results are gone from the stack its frame is gone too, and nothing says where
//! it returned. So, only where a result is bad, the function is called again at the same
//! position with a return hook that notes the line of each Lua function's return: the last one
//! noted is the return of the function sgtab called (or of a function it tail-called), the
//! last frame to end. The line is named only where that second call's results are refused with
//! the same message, so a script whose moves change from call to call is never blamed on a
//! line its first call did not run. Calls within their bounds never set the hook: the line
//! costs nothing until a build fails.

use super::worker::Bad;
#[cfg(doc)]
use super::worker::call_at;
use mlua::ffi;
use std::cell::RefCell;

thread_local! {
    /// The `file:line` of the last return the hook saw on this thread.
    static LAST: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Notes the line of each Lua function's return.
unsafe extern "C-unwind" fn on_return(l: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) {
    // SAFETY: Lua calls the hook with the returning function's activation record; getinfo
    // fills `short_src`, a NUL-terminated string within the record.
    unsafe {
        if ffi::lua_getinfo(l, c"Sl".as_ptr(), ar) == 0 || (*ar).currentline < 0 {
            return;
        }
        let src = std::ffi::CStr::from_ptr((*ar).short_src.as_ptr()).to_string_lossy();
        let line = (*ar).currentline;
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            last.clear();
            last.push_str(&format!("{src}:{line}"));
        });
    }
}

/// Makes the call `call` again (the function at stack index 1 at the failing position, as
/// [`call_at`] makes it) with the return hook set, hands its results to `check`, and gives the
/// `file:line` of the last return where `check` refuses them again with `why`. Leaves the stack
/// at index 2.
///
/// # Safety
/// `l` is the state `call` calls into, with the function at index 1 and two values on the
/// stack; no hook of sgtab's is set (the watchdog's is set only inside a call, and cleared
/// when it returns).
pub(super) unsafe fn returned_at(
    l: *mut ffi::lua_State,
    call: impl FnOnce() -> Result<(), Bad>,
    why: &str,
    check: impl FnOnce(*mut ffi::lua_State) -> Result<(), String>,
) -> Option<String> {
    // SAFETY: per this function's contract; the hook is cleared before anything else runs.
    unsafe {
        LAST.with(|last| last.borrow_mut().clear());
        ffi::lua_sethook(l, Some(on_return), ffi::LUA_MASKRET, 0);
        let called = call();
        ffi::lua_sethook(l, None, 0, 0);
        let again = called.is_ok().then(|| check(l));
        ffi::lua_settop(l, 2);
        let line = LAST.with(|last| std::mem::take(&mut *last.borrow_mut()));
        match again {
            Some(Err(e)) if e == why && !line.is_empty() => Some(line),
            _ => None,
        }
    }
}

/// `why`, and where the value was returned where that is known.
pub(super) fn with_line(why: String, line: Option<String>) -> String {
    match line {
        Some(line) => format!("{why} (returned at {line})"),
        None => why,
    }
}
