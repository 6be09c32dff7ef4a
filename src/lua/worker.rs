//! One engine thread's interpreter of a script's game: `moves` and `rank` called through Lua's
//! C API, one protected call a position inside one call into Lua a block, what they returned
//! read in place (`super::returned`) with no conversion through Rust values: that per-call
//! path is most of the cost for small games. A bad option is named with the line of the
//! `return` that gave it (`super::blame`).

use super::blame;
use super::library::type_name;
use super::returned::read_results;
use super::state::{State, lua_message};
use super::table;
use crate::games::{Dims, GameError, MAX_AXES, Worker};
use mlua::ffi;

/// One thread's interpreter of a script's game.
pub(crate) struct LuaWorker {
    pub state: State,
    pub moves: mlua::Function,
    pub rank: Option<mlua::Function>,
    pub dims: Dims,
    pub point: [u64; MAX_AXES],
    /// One option's positions, reused.
    pub parts: Vec<u64>,
}

/// Why reading a position's options stopped, found inside the raw block (turned into a
/// [`GameError`] outside it, where the worker's state can be borrowed).
pub(super) enum Bad {
    /// The call failed: Lua's message, if a string, and whether it was out of memory.
    Call(Option<String>, bool),
    Option(String),
}

impl Worker for LuaWorker {
    fn options(
        &mut self,
        positions: &[u64],
        f: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), GameError> {
        let dims = self.dims;
        let mut parts = std::mem::take(&mut self.parts);
        let read = &mut |l, p, keep: bool| {
            // SAFETY: `moves`'s results are on the stack from index 3 (`call_each`).
            unsafe {
                if keep {
                    read_results(l, &dims, &mut parts, p, f)
                } else {
                    read_results(l, &dims, &mut parts, p, &mut |_, _| {})
                }
            }
        };
        let result = self.call_each(Called::Moves, positions, read);
        self.parts = parts;
        result
    }

    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
        self.call_each(Called::Rank, positions, &mut |l, _, keep| {
            // SAFETY: `rank`'s one result is on top of the stack (`call_each`).
            let rank = unsafe { rank_of(l) }?;
            if keep {
                out.push(rank);
            }
            Ok(())
        })
    }
}

/// Which of the script's functions a block of calls calls.
#[derive(Clone, Copy)]
enum Called {
    Moves,
    Rank,
}

impl LuaWorker {
    /// Calls `moves` or `rank` at each of `positions`, all in one call into Lua, handing each
    /// call's results to `read` while they are on the stack. `read`'s third argument is false
    /// when the results are read a second time, from a call made again to find the line of the
    /// `return` that gave a bad one: it must then keep nothing.
    fn call_each(
        &mut self,
        called: Called,
        positions: &[u64],
        read: &mut dyn FnMut(*mut ffi::lua_State, u64, bool) -> Result<(), String>,
    ) -> Result<(), GameError> {
        // Stack room for the call and what `read` does with its results, beyond the coordinates.
        let (function, room, results) = match (called, &self.rank) {
            (Called::Moves, _) => (&self.moves, 12, ffi::LUA_MULTRET),
            (Called::Rank, Some(rank)) => (rank, 8, 1),
            (Called::Rank, None) => return Err(self.state.error("the script defines no `rank`")),
        };
        let mut failed: Option<(u64, Bad)> = None;
        let mut unchanged = false;
        let (dims, k) = (self.dims, self.dims.axes());
        let state = &self.state;
        let point = &mut self.point;
        // SAFETY: inside the block only C API calls that cannot raise a Lua error are made
        // (stack space is checked first; reads are raw), and the calls into the script are
        // protected (lua_pcall): nothing unwinds or jumps across this Rust code.
        let run = unsafe {
            state.lua.exec_raw::<()>((function, &state.sums), |l| {
                if ffi::lua_checkstack(l, room + k as i32) == 0 {
                    let first = positions.first().copied().unwrap_or(0);
                    failed = Some((first, Bad::Option("no room on the Lua stack".into())));
                    return;
                }
                for &p in positions {
                    if let Err(bad) = call_at(l, state, &dims, point, p, results) {
                        failed = Some((p, bad));
                        return;
                    }
                    let kept = read(l, p, true);
                    ffi::lua_settop(l, 2);
                    if let Err(why) = kept {
                        let call = || call_at(l, state, &dims, point, p, results);
                        let line = blame::returned_at(l, call, &why, |l| read(l, p, false));
                        failed = Some((p, Bad::Option(blame::with_line(why, line))));
                        return;
                    }
                }
                unchanged = state.globals_unchanged(l);
            })
        };
        run.map_err(|e| self.state.error(lua_message(&e)))?;
        match failed {
            None => self.state.check_globals(unchanged, || self.place(positions)),
            Some((p, bad)) => Err(self.bad(p, bad)),
        }
    }

    /// Where a batch of calls ran, for a message: `at position 7`, or `at one of the 12
    /// positions from 3 to 14`.
    fn place(&self, positions: &[u64]) -> String {
        match positions {
            [p] => format!("at position {}", self.dims.name(*p)),
            [first, .., last] => format!(
                "at one of the {} positions from {} to {}",
                positions.len(),
                self.dims.name(*first),
                self.dims.name(*last)
            ),
            [] => "between positions".into(),
        }
    }

    fn bad(&self, p: u64, bad: Bad) -> GameError {
        let place = format!("at position {}", self.dims.name(p));
        let state = &self.state;
        match bad {
            Bad::Call(message, out_of_memory) => match state.watch.stopped() {
                Some(why) => state.error(format!("{} {place}: {why}", state.file)),
                None if out_of_memory => state.out_of_memory(&place),
                None => {
                    let message = message.unwrap_or_else(|| "an error without a message".into());
                    state.error(format!(
                        "{place}: {}",
                        super::library::escape_controls(message.lines().next().unwrap_or(""))
                    ))
                }
            },
            Bad::Option(why) => state.error(format!(
                "{} {place}: {}",
                state.file,
                super::library::escape_controls(&why)
            )),
        }
    }
}

/// The rank `rank` returned, on top of the stack.
unsafe fn rank_of(l: *mut ffi::lua_State) -> Result<i64, String> {
    // SAFETY: reads the value on top of the stack.
    unsafe {
        if ffi::lua_isinteger(l, -1) != 0 {
            Ok(ffi::lua_tointegerx(l, -1, std::ptr::null_mut()))
        } else {
            Err(format!("rank returned {}, not an integer", describe(l, -1)))
        }
    }
}

/// Calls the function at stack index 1 with the coordinates of position `p` (through the
/// watchdog), leaving its `results` results (`LUA_MULTRET`: all of them) from index 3, or the
/// error.
///
/// # Safety
/// `l` is the state of `state`, with the function at index 1, two values on the stack, and
/// room for k + 1 more.
pub(super) unsafe fn call_at(
    l: *mut ffi::lua_State,
    state: &State,
    dims: &Dims,
    point: &mut [u64],
    p: u64,
    results: i32,
) -> Result<(), Bad> {
    let k = dims.axes();
    // SAFETY: per this function's contract.
    unsafe {
        ffi::lua_pushvalue(l, 1);
        if k == 1 {
            // (The index is the position: no division.)
            ffi::lua_pushinteger(l, p as i64);
        } else {
            dims.point(p, point);
            for &c in &point[..k] {
                ffi::lua_pushinteger(l, c as i64);
            }
        }
        let status = state.watch.call(state.raw, || ffi::lua_pcall(l, k as i32, results, 0));
        if status == ffi::LUA_OK {
            return Ok(());
        }
        let message = raw_string(l, -1);
        ffi::lua_settop(l, 2);
        Err(Bad::Call(message, status == ffi::LUA_ERRMEM))
    }
}

/// The string at `idx`, if it is one.
unsafe fn raw_string(l: *mut ffi::lua_State, idx: i32) -> Option<String> {
    let mut len = 0usize;
    // SAFETY: lua_tolstring on a string returns its bytes (a number would be converted in
    // place, which allocates: only strings are read).
    unsafe {
        if ffi::lua_type(l, idx) != ffi::LUA_TSTRING {
            return None;
        }
        let ptr = ffi::lua_tolstring(l, idx, &mut len);
        Some(
            String::from_utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len)).into_owned(),
        )
    }
}

/// A value in words for an error: `2.5 (a float: ...)`, `a string`, `nil`.
pub(crate) unsafe fn describe(l: *mut ffi::lua_State, idx: i32) -> String {
    // SAFETY: reads the value at idx only.
    unsafe {
        match ffi::lua_type(l, idx) {
            ffi::LUA_TNUMBER if ffi::lua_isinteger(l, idx) != 0 => {
                format!("the integer {}", ffi::lua_tointegerx(l, idx, std::ptr::null_mut()))
            }
            ffi::LUA_TNUMBER => {
                let v = ffi::lua_tonumberx(l, idx, std::ptr::null_mut());
                format!("{v:?} (a float: use // for whole-number division)")
            }
            ffi::LUA_TNIL => "nil".into(),
            t => format!("a {}", type_name(t)),
        }
    }
}

/// A key of a list in words: `key 0`, `key "n"`, `table key`.
unsafe fn describe_key(l: *mut ffi::lua_State, idx: i32) -> String {
    // SAFETY: reads the key at idx only (a string's bytes in place).
    unsafe {
        match ffi::lua_type(l, idx) {
            ffi::LUA_TNUMBER if ffi::lua_isinteger(l, idx) != 0 => {
                format!("key {}", ffi::lua_tointegerx(l, idx, std::ptr::null_mut()))
            }
            ffi::LUA_TNUMBER => {
                format!("key {:?}", ffi::lua_tonumberx(l, idx, std::ptr::null_mut()))
            }
            ffi::LUA_TSTRING => format!("key {:?}", raw_string(l, idx).unwrap_or_default()),
            t => format!("{} key", type_name(t)),
        }
    }
}

/// An entry of a list, as [`each_entry`] hands it over.
#[derive(Clone, Copy)]
pub(super) enum Entry {
    /// An integer.
    Int(i64),
    /// A light userdata (a pointer's bits).
    Light(usize),
    /// Anything else: the value is on top of the stack.
    Pushed,
}

/// What a list's keys must be, for messages.
#[cold]
pub(super) fn keys(n: i64) -> String {
    format!(
        "its length (#) is {n}: a list's keys are 1 to # with none missing (append with \
            list[#list + 1] = x)"
    )
}

/// Calls `each(i, entry)` with each entry of the list at `idx` (key i); an error where a key is
/// not an integer from 1 to `#list` or one is missing. A table of an array part only is read
/// in place ([`super::table`]); any other by `lua_next` over every key. `what` names the list
/// for messages. Leaves the stack as it found it.
#[inline(always)]
pub(super) unsafe fn each_entry(
    l: *mut ffi::lua_State,
    idx: i32,
    what: &dyn Fn() -> String,
    mut each: impl FnMut(i64, Entry) -> Result<(), String>,
) -> Result<(), String> {
    // SAFETY: raw reads of a table on the stack (lua_next raises no error for a key that is in
    // the table); two slots above the top. Between two reads of the slots nothing allocates in
    // the interpreter or runs Lua code (`each` reads raw and calls Rust), so they stay put.
    unsafe {
        let idx = ffi::lua_absindex(l, idx);
        let n = ffi::lua_rawlen(l, idx) as i64;
        if let Some(slots) = table::slots(l, idx, n as u64) {
            for i in 0..n as usize {
                let key = i as i64 + 1;
                let (tag, bits) = slots.get(i);
                let entry = match tag {
                    table::INTEGER => Entry::Int(bits as i64),
                    table::LIGHT => Entry::Light(bits as usize),
                    t if t & 0x0F == ffi::LUA_TNIL as u8 => {
                        return Err(format!("{} has no key {key} though {}", what(), keys(n)));
                    }
                    _ => {
                        ffi::lua_rawgeti(l, idx, key);
                        let done = each(key, Entry::Pushed);
                        ffi::lua_settop(l, idx);
                        done?;
                        continue;
                    }
                };
                // Nothing was pushed (`each` leaves the stack as it found it).
                each(key, entry)?;
            }
            return Ok(());
        }
        let mut count = 0;
        ffi::lua_pushnil(l);
        while ffi::lua_next(l, idx) != 0 {
            // (Lua keeps a float key that is a whole number as an integer.)
            let i = ffi::lua_tointegerx(l, -2, std::ptr::null_mut());
            if ffi::lua_isinteger(l, -2) == 0 || !(1..=n).contains(&i) {
                let key = describe_key(l, -2);
                ffi::lua_settop(l, idx);
                return Err(format!("{} has the {key}, but {}", what(), keys(n)));
            }
            count += 1;
            let done = each(i, Entry::Pushed);
            ffi::lua_settop(l, idx + 1);
            if let Err(why) = done {
                ffi::lua_settop(l, idx);
                return Err(why);
            }
        }
        if count != n {
            // A hole: the first index of 1..#list that holds nothing.
            let hole = (1..=n).find(|&i| {
                let t = ffi::lua_rawgeti(l, idx, i);
                ffi::lua_settop(l, idx);
                t == ffi::LUA_TNIL
            });
            return Err(format!("{} has no key {} though {}", what(), hole.unwrap_or(0), keys(n)));
        }
        Ok(())
    }
}
