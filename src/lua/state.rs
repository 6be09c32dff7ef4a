//! One interpreter with a script loaded: the sandbox, its memory and time bounds, the script's
//! top level run once, its parameters checked, and its globals then made read-only.

use super::library::{self, PRELUDE, escape_controls};
use super::{Limits, params, strings, table, watchdog};
use crate::games::GameError;
use crate::games::stored::Script;
use mlua::ffi;
use mlua::{Lua, LuaOptions, StdLib};
use std::alloc::Layout;
use std::ffi::c_void;

/// One interpreter with the script loaded, its bounds set.
pub(crate) struct State {
    pub lua: Lua,
    /// The script's name for messages (`knight.lua`).
    pub file: String,
    /// The canonical spec, which starts every error.
    pub spec: String,
    /// The interpreter's main state, which the watchdog stops.
    pub raw: *mut ffi::lua_State,
    /// This thread's entry with the watchdog.
    pub watch: watchdog::Watch,
    /// The metatable of the sums that are tables.
    pub sums: mlua::Table,
    /// The prelude's `changed`: a global assigned since the top level ran, or nil.
    changed: mlua::Function,
    /// The globals table's bytes after the top level ran: where they are the same, no global
    /// was assigned (see [`super::table::Snapshot`]), and `changed` need not run.
    globals: std::cell::RefCell<Option<table::Snapshot>>,
    pub limits: Limits,
    /// What the allocator counts (its user data: boxed, so that its address stays put).
    memory: Box<Memory>,
    /// mlua's allocator and its data, put back before the interpreter is closed.
    mlua_alloc: (ffi::lua_Alloc, *mut c_void),
}

/// The interpreter's memory, as sgtab's allocator counts it.
struct Memory {
    used: usize,
    limit: usize,
    /// The system refused an allocation within the limit (ulimit -v, a cgroup, no memory).
    refused: bool,
}

/// Lua's allocator: mlua's, except that an allocation the system refuses is an error in Lua
/// (mlua's aborts the process). Blocks are allocated as mlua's are (the global allocator,
/// aligned to `SYS_MIN_ALIGN`), so either may free what the other allocated.
unsafe extern "C" fn allocate(
    ud: *mut c_void,
    ptr: *mut c_void,
    osize: usize,
    nsize: usize,
) -> *mut c_void {
    // SAFETY: `ud` is the State's Memory, which outlives the interpreter's use of it; `ptr`
    // was allocated with `osize` bytes by this allocator or mlua's (the same layout).
    unsafe {
        let m = &mut *(ud as *mut Memory);
        let old = if ptr.is_null() { 0 } else { osize };
        if nsize == 0 {
            if !ptr.is_null() {
                std::alloc::dealloc(
                    ptr as *mut u8,
                    Layout::from_size_align_unchecked(osize, ffi::SYS_MIN_ALIGN),
                );
                m.used = m.used.saturating_sub(osize);
            }
            return std::ptr::null_mut();
        }
        if nsize > old && m.used.saturating_sub(old).saturating_add(nsize) > m.limit {
            return std::ptr::null_mut();
        }
        let Ok(layout) = Layout::from_size_align(nsize, ffi::SYS_MIN_ALIGN) else {
            return std::ptr::null_mut();
        };
        let new = if ptr.is_null() {
            std::alloc::alloc(layout)
        } else {
            std::alloc::realloc(
                ptr as *mut u8,
                Layout::from_size_align_unchecked(osize, ffi::SYS_MIN_ALIGN),
                nsize,
            )
        };
        if new.is_null() {
            m.refused = true;
            return std::ptr::null_mut();
        }
        m.used = m.used.saturating_sub(old).saturating_add(nsize);
        new as *mut c_void
    }
}

impl Drop for State {
    fn drop(&mut self) {
        // SAFETY: no call runs; mlua's allocator frees what either allocated, and its own
        // data is freed with the interpreter.
        unsafe { ffi::lua_setallocf(self.raw, self.mlua_alloc.0, self.mlua_alloc.1) };
    }
}

/// The interpreter's libraries: Lua's less what loads code, reaches outside or depends on the
/// run, and sgtab's own functions (run protected, so that an error is an error).
unsafe fn sandbox(l: *mut ffi::lua_State) {
    // SAFETY: called through exec_raw (a protected call) with the script's name at index 1;
    // only static strings and Lua's own values are handled.
    unsafe {
        let g = ffi::lua_gettop(l) + 1;
        ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::LUA_RIDX_GLOBALS);
        for name in [c"load", c"loadfile", c"dofile", c"collectgarbage", c"require"] {
            ffi::lua_pushnil(l);
            ffi::lua_setfield(l, g, name.as_ptr());
        }
        let set = |table: i32, name: &std::ffi::CStr, f: ffi::lua_CFunction, upvalues: i32| {
            ffi::lua_pushcclosure(l, f, upvalues);
            ffi::lua_setfield(l, table, name.as_ptr());
        };
        // sum, with the metatable of the sums that are tables (also in the registry).
        ffi::lua_createtable(l, 0, 2);
        ffi::lua_pushstring(l, c"sum".as_ptr());
        ffi::lua_setfield(l, -2, c"__metatable".as_ptr());
        ffi::lua_pushcfunction(l, library::sum_text);
        ffi::lua_setfield(l, -2, c"__tostring".as_ptr());
        ffi::lua_pushvalue(l, -1);
        ffi::lua_setfield(l, ffi::LUA_REGISTRYINDEX, c"sgtab.sums".as_ptr());
        set(g, c"sum", library::sum, 1);
        ffi::lua_pushvalue(l, 1);
        set(g, c"print", library::print, 1);
        set(g, c"tostring", library::tostring, 0);
        set(g, c"xpcall", library::xpcall, 0);
        ffi::lua_getfield(l, g, c"string".as_ptr());
        let string = ffi::lua_gettop(l);
        ffi::lua_pushnil(l);
        ffi::lua_setfield(l, string, c"dump".as_ptr());
        ffi::lua_getfield(l, string, c"format".as_ptr());
        set(string, c"format", library::format, 1);
        set(string, c"find", strings::find, 0);
        set(string, c"match", strings::match_, 0);
        set(string, c"gmatch", strings::gmatch, 0);
        set(string, c"gsub", strings::gsub, 0);
        set(string, c"rep", strings::rep, 0);
        for name in [c"pack", c"unpack", c"packsize"] {
            ffi::lua_getfield(l, string, name.as_ptr());
            set(string, name, library::pack, 1);
        }
        ffi::lua_getfield(l, g, c"table".as_ptr());
        set(ffi::lua_gettop(l), c"sort", super::sort::sort, 0);
        ffi::lua_getfield(l, g, c"math".as_ptr());
        for name in [c"random", c"randomseed"] {
            ffi::lua_pushnil(l);
            ffi::lua_setfield(l, -2, name.as_ptr());
        }
        ffi::lua_settop(l, 0);
        super::table::check(l);
        super::stack::check(l);
    }
}

impl State {
    pub fn new(script: &Script, limits: Limits) -> Result<State, GameError> {
        let file = format!("{}.lua", script.name);
        let spec = script.canonical();
        let fail = |e: mlua::Error| GameError(format!("{spec}: {}", lua_message(&e)));
        let watch =
            watchdog::Watch::new(limits.seconds).map_err(|e| GameError(format!("{spec}: {e}")))?;
        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8;
        let lua = Lua::new_with(libs, LuaOptions::new()).map_err(fail)?;
        let memory = Box::new(Memory {
            used: lua.used_memory(),
            limit: limits.memory.min(usize::MAX as u64) as usize,
            refused: false,
        });
        // SAFETY: exec_raw hands over the interpreter's main state, which outlives `State`;
        // the allocator's data is boxed in the State, which closes the interpreter (putting
        // mlua's allocator back first) before the box is freed.
        let (raw, mlua_alloc) = unsafe {
            let mut raw = std::ptr::null_mut();
            lua.exec_raw::<()>((), |l| raw = l).map_err(fail)?;
            let mut ud = std::ptr::null_mut();
            let f = ffi::lua_getallocf(raw, &mut ud);
            ffi::lua_setallocf(raw, allocate, &*memory as *const Memory as *mut c_void);
            (raw, (f, ud))
        };
        // SAFETY: `sandbox` runs protected, over Lua's own values.
        unsafe { lua.exec_raw::<()>(file.as_str(), |l| sandbox(l)) }.map_err(fail)?;
        let sums: mlua::Table = lua.named_registry_value("sgtab.sums").map_err(fail)?;
        let given = lua.create_table().map_err(fail)?;
        for (name, value) in &script.params {
            if lua.globals().raw_get::<mlua::Value>(name.as_str()).map_err(fail)? != mlua::Nil {
                return Err(GameError(format!(
                    "{spec}: parameter {name} would replace the global `{name}` the script needs; \
                        choose another name"
                )));
            }
            given
                .raw_set(name.as_str(), params::to_lua(&lua, value).map_err(fail)?)
                .map_err(fail)?;
        }
        let control: mlua::Table =
            lua.load(PRELUDE).set_name("=sgtab").call(given).map_err(fail)?;
        let changed = control.raw_get("changed").map_err(fail)?;
        let globals = Default::default();
        let state = State {
            lua,
            file,
            spec,
            raw,
            watch,
            sums,
            changed,
            globals,
            limits,
            memory,
            mlua_alloc,
        };
        let run = state.watch.call(raw, || {
            state.lua.load(script.text.as_str()).set_name(format!("@{}", state.file)).exec()
        });
        run.map_err(|e| state.failed(&e, "at its top level"))?;
        params::check(&state, script, &control)?;
        let freeze = control.raw_get::<mlua::Function>("freeze").and_then(|f| f.call::<()>(()));
        freeze.map_err(|e| state.error(lua_message(&e)))?;
        state.snapshot_globals()?;
        Ok(state)
    }

    /// An error about the script, as one line.
    pub fn error(&self, why: impl std::fmt::Display) -> GameError {
        GameError(format!("{}: {why}", self.spec))
    }

    /// The error of a call that ran out of memory: its bound, or what the system refused.
    pub fn out_of_memory(&self, place: &str) -> GameError {
        let m = &self.memory;
        if m.refused {
            self.error(format!(
                "{} {place}: the system refused memory while the interpreter held {} (ulimit -v / \
                    cgroup memory.max / MemAvailable); use fewer --threads or give it more memory",
                self.file,
                crate::memory::size(m.used as u64)
            ))
        } else {
            self.error(format!(
                "{} {place}: ran out of its {} MiB of memory; --lua-memory raises the bound",
                self.file,
                self.limits.memory >> 20
            ))
        }
    }

    /// The error of a failed call, `place` saying where (`at position (3, 4)`).
    pub fn failed(&self, e: &mlua::Error, place: &str) -> GameError {
        match self.watch.stopped() {
            Some(why) => self.error(format!("{} {place}: {why}", self.file)),
            None => match e {
                mlua::Error::MemoryError(_) => self.out_of_memory(place),
                _ => self.error(format!("{place}: {}", lua_message(e))),
            },
        }
    }

    /// Takes the globals' snapshot.
    fn snapshot_globals(&self) -> Result<(), GameError> {
        let mut taken = None;
        // SAFETY: reads the globals table, pushed on the stack.
        let run = unsafe {
            self.lua.exec_raw::<()>((), |l| {
                ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::LUA_RIDX_GLOBALS);
                taken = table::snapshot(l, -1);
                ffi::lua_settop(l, -2);
            })
        };
        run.map_err(|e| self.error(lua_message(&e)))?;
        *self.globals.borrow_mut() = taken;
        Ok(())
    }

    /// Whether the globals have their bytes of the snapshot (false where there is none).
    ///
    /// # Safety
    /// `l` is this interpreter's state, with room for one more value.
    pub unsafe fn globals_unchanged(&self, l: *mut ffi::lua_State) -> bool {
        // SAFETY: per this function's contract.
        unsafe {
            ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, ffi::LUA_RIDX_GLOBALS);
            let same = self.globals.borrow().as_ref().is_some_and(|s| table::unchanged(l, -1, s));
            ffi::lua_settop(l, -2);
            same
        }
    }

    /// An error where a global was assigned since the top level ran (`unchanged`: the
    /// globals' bytes say none was), `place` saying while what (`at position 7`).
    pub fn check_globals(
        &self,
        unchanged: bool,
        place: impl FnOnce() -> String,
    ) -> Result<(), GameError> {
        if unchanged {
            return Ok(());
        }
        match self.changed.call::<Option<String>>(()) {
            // Other bytes, the same values (a global assigned what it held): a new snapshot.
            Ok(None) => self.snapshot_globals(),
            Ok(Some(global)) => Err(self.error(format!(
                "{} {}: the global {} was assigned; globals are read-only once the script's top \
                    level has run, so that every position sees the same ones (keep what moves \
                    needs in locals)",
                self.file,
                place(),
                escape_controls(&global)
            ))),
            Err(e) => Err(self.error(lua_message(&e))),
        }
    }

    pub fn global<T: mlua::FromLua>(&self, name: &str) -> Result<T, GameError> {
        self.lua.globals().get(name).map_err(|e| self.error(lua_message(&e)))
    }

    /// Whether the script defines a function `name` (anything else there is an error).
    pub fn has(&self, name: &str) -> Result<bool, GameError> {
        match self.global::<mlua::Value>(name)? {
            mlua::Value::Nil => Ok(false),
            mlua::Value::Function(_) => Ok(true),
            other => {
                Err(self.error(format!("`{name}` is a {}, not a function", other.type_name())))
            }
        }
    }
}

/// An mlua error as one line: its message without the traceback mlua appends, control
/// characters escaped.
pub(crate) fn lua_message(e: &mlua::Error) -> String {
    let text = match e {
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::CallbackError { cause, .. } => return lua_message(cause),
        other => other.to_string(),
    };
    escape_controls(text.lines().next().unwrap_or("").trim())
}
