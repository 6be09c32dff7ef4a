//! One engine thread's interpreter of a script's game: `moves` and `rank` called through Lua's
//! C API, one protected call a position inside one call into Lua a block, and what `moves`
//! returned read in place, the values from the stack frame (`super::stack`), a list from its
//! table (`super::table`), with no conversion through Rust values: that per-call path is most
//! of the cost for small games. A bad option is named with the line of the `return` that gave
//! it (`super::blame`).
//!
//! A list of options is read whole: every key must be an integer from 1 to `#list`, none
//! missing, or the build stops naming the position and the key (a list with a hole would
//! otherwise be cut short at whatever border `#` finds). The same holds for a position given
//! as a list of coordinates, and for the parts of a sum.

use super::blame;
use super::library::{pair_parts, type_name};
use super::state::{State, lua_message};
use super::{stack, table};
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
        let mut failed: Option<(u64, Bad)> = None;
        let mut unchanged = false;
        let (dims, k) = (self.dims, self.dims.axes());
        let state = &self.state;
        let point = &mut self.point;
        let parts = &mut self.parts;
        // SAFETY: inside the block only C API calls that cannot raise a Lua error are made
        // (stack space is checked first; reads are raw), and the calls into the script are
        // protected (lua_pcall): nothing unwinds or jumps across this Rust code.
        let run = unsafe {
            state.lua.exec_raw::<()>((&self.moves, &state.sums), |l| {
                if ffi::lua_checkstack(l, 12 + k as i32) == 0 {
                    failed = Some((
                        positions.first().copied().unwrap_or(0),
                        Bad::Option("no room on the Lua stack".into()),
                    ));
                    return;
                }
                for &p in positions {
                    if let Err(bad) = call_at(l, state, &dims, point, p, ffi::LUA_MULTRET) {
                        failed = Some((p, bad));
                        return;
                    }
                    let read = read_results(l, &dims, parts, p, f);
                    ffi::lua_settop(l, 2);
                    if let Err(why) = read {
                        let again = |l| read_results(l, &dims, parts, p, &mut |_, _| {});
                        let call = || call_at(l, state, &dims, point, p, ffi::LUA_MULTRET);
                        let line = blame::returned_at(l, call, &why, again);
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

    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
        let Some(rank) = &self.rank else {
            return Err(self.state.error("the script defines no `rank`"));
        };
        let mut failed: Option<(u64, Bad)> = None;
        let mut unchanged = false;
        let (dims, k) = (self.dims, self.dims.axes());
        let state = &self.state;
        let point = &mut self.point;
        // SAFETY: as in `options`.
        let run = unsafe {
            state.lua.exec_raw::<()>((rank, &state.sums), |l| {
                if ffi::lua_checkstack(l, 8 + k as i32) == 0 {
                    failed = Some((
                        positions.first().copied().unwrap_or(0),
                        Bad::Option("no room on the Lua stack".into()),
                    ));
                    return;
                }
                for &p in positions {
                    if let Err(bad) = call_at(l, state, &dims, point, p, 1) {
                        failed = Some((p, bad));
                        return;
                    }
                    let r = rank_of(l);
                    ffi::lua_settop(l, 2);
                    match r {
                        Ok(r) => out.push(r),
                        Err(why) => {
                            let call = || call_at(l, state, &dims, point, p, 1);
                            let line =
                                blame::returned_at(l, call, &why, |l| rank_of(l).map(|_| ()));
                            failed = Some((p, Bad::Option(blame::with_line(why, line))));
                            return;
                        }
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
}

impl LuaWorker {
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
enum Entry {
    /// An integer.
    Int(i64),
    /// A light userdata (a pointer's bits).
    Light(usize),
    /// Anything else: the value is on top of the stack.
    Pushed,
}

/// What a list's keys must be, for messages.
#[cold]
fn keys(n: i64) -> String {
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
unsafe fn each_entry(
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

/// The error where `moves` returns no value: a forgotten `return` would otherwise read as a
/// position with no moves.
const NOTHING: &str = "moves returned nothing: return its options, as values (`return n - 1, n - \
    3`) or as a list (`return {n - 1, n - 3}`); `return {}` for a position with none";

/// Reads what `moves` returned (indices 3 to the top; the sums' metatable is index 2), calling
/// `f` with each option's positions: one list of options, or the options as values. A single
/// table that is not a sum is a list, except a table whose first entry is a number in a game
/// of two or more axes, which is one position (in one axis the two readings agree: `{5}` is
/// position 5 either way). Leaves the stack at index 2.
unsafe fn read_results(
    l: *mut ffi::lua_State,
    dims: &Dims,
    parts: &mut Vec<u64>,
    p: u64,
    f: &mut dyn FnMut(u64, &[u64]),
) -> Result<(), String> {
    // SAFETY: reads of the values on the stack, and of a list (read_list's contract).
    unsafe {
        let count = ffi::lua_gettop(l) - 2;
        if count == 1 && ffi::lua_type(l, 3) == ffi::LUA_TTABLE && is_list(l, 3, dims) {
            return read_list(l, dims, parts, p, f);
        }
        if let (&[len], Some(frame)) = (dims.sizes(), stack::frame(l)) {
            // 1-D, read in place: positions and sums of two in the shape are handed on here,
            // the first other value and those after it as `read_values` reads them.
            for i in 1..=count {
                match frame.get(2 + i) {
                    (table::INTEGER, v) if v < len => f(p, &[v]),
                    (table::LIGHT, bits) => match pair_parts(bits as *mut _) {
                        Some((a, b)) if a < len && b < len => f(p, &[a, b]),
                        _ => return read_values(l, dims, parts, p, f, i),
                    },
                    _ => return read_values(l, dims, parts, p, f, i),
                }
            }
            if count > 0 {
                return Ok(());
            }
        }
        read_values(l, dims, parts, p, f, 1)
    }
}

/// Reads the values `moves` returned (indices 3 to the top) as options, from value `from` on.
#[inline(never)]
unsafe fn read_values(
    l: *mut ffi::lua_State,
    dims: &Dims,
    parts: &mut Vec<u64>,
    p: u64,
    f: &mut dyn FnMut(u64, &[u64]),
    from: i32,
) -> Result<(), String> {
    // SAFETY: raw reads of the values on the stack and of tables; room is checked before a
    // value is pushed.
    unsafe {
        let top = ffi::lua_gettop(l);
        let count = top - 2;
        if count == 0 {
            return Err(NOTHING.into());
        }
        if count == 1
            && !matches!(
                ffi::lua_type(l, 3),
                ffi::LUA_TNUMBER | ffi::LUA_TLIGHTUSERDATA | ffi::LUA_TTABLE
            )
        {
            return Err(format!(
                "moves returned {}, not its options (positions and sums as values, or a list of \
                    them)",
                describe(l, 3)
            ));
        }
        if ffi::lua_checkstack(l, 8) == 0 {
            return Err("no room on the Lua stack".into());
        }
        for i in from..=count {
            let idx = 2 + i;
            parts.clear();
            let entry = match ffi::lua_type(l, idx) {
                ffi::LUA_TNUMBER if ffi::lua_isinteger(l, idx) != 0 => {
                    Entry::Int(ffi::lua_tointegerx(l, idx, std::ptr::null_mut()))
                }
                ffi::LUA_TLIGHTUSERDATA => Entry::Light(ffi::lua_touserdata(l, idx) as usize),
                _ => {
                    ffi::lua_pushvalue(l, idx);
                    Entry::Pushed
                }
            };
            let pushed = matches!(entry, Entry::Pushed);
            let read = option(l, entry, i as i64, dims, parts);
            if pushed {
                ffi::lua_settop(l, top);
            }
            read?;
            f(p, parts);
        }
        Ok(())
    }
}

/// Whether the single table `moves` returned, at `idx`, is a list of options (see
/// [`read_results`]).
unsafe fn is_list(l: *mut ffi::lua_State, idx: i32, dims: &Dims) -> bool {
    // SAFETY: a raw read of the table's first entry, pushed and popped (read_results' caller
    // left room for it).
    unsafe {
        if is_sum(l, idx) {
            return false;
        }
        if dims.axes() == 1 {
            return true;
        }
        let first = ffi::lua_rawgeti(l, idx, 1);
        ffi::lua_settop(l, -2);
        first != ffi::LUA_TNUMBER
    }
}

/// Reads the list of options at index 3, calling `f` with each option's positions. Leaves the
/// stack as it found it.
unsafe fn read_list(
    l: *mut ffi::lua_State,
    dims: &Dims,
    parts: &mut Vec<u64>,
    p: u64,
    f: &mut dyn FnMut(u64, &[u64]),
) -> Result<(), String> {
    let what = || "the list of options".to_string();
    // SAFETY: raw reads of tables and values on a stack with room for them; between two reads
    // of the slots nothing allocates in the interpreter or runs Lua code.
    unsafe {
        if let &[len] = dims.sizes() {
            let n = ffi::lua_rawlen(l, 3) as i64;
            if let Some(slots) = table::slots(l, 3, n as u64) {
                // A 1-D list read in place: positions and sums of two in the shape are handed on
                // here, anything else as `each_entry` would.
                for i in 0..n as usize {
                    let (tag, bits) = slots.get(i);
                    match tag {
                        table::INTEGER if bits < len => f(p, &[bits]),
                        table::LIGHT => match pair_parts(bits as *mut _) {
                            Some((a, b)) if a < len && b < len => f(p, &[a, b]),
                            _ => one_entry(
                                l,
                                dims,
                                parts,
                                i as i64 + 1,
                                Entry::Light(bits as usize),
                                p,
                                f,
                            )?,
                        },
                        table::INTEGER => {
                            one_entry(l, dims, parts, i as i64 + 1, Entry::Int(bits as i64), p, f)?
                        }
                        t if t & 0x0F == ffi::LUA_TNIL as u8 => {
                            return Err(format!(
                                "{} has no key {} though {}",
                                what(),
                                i + 1,
                                keys(n)
                            ));
                        }
                        _ => {
                            ffi::lua_rawgeti(l, 3, i as i64 + 1);
                            let read = one_entry(l, dims, parts, i as i64 + 1, Entry::Pushed, p, f);
                            ffi::lua_settop(l, 3);
                            read?;
                        }
                    }
                }
                return Ok(());
            }
        }
        each_entry(l, 3, &what, |i, entry| {
            parts.clear();
            option(l, entry, i, dims, parts)?;
            f(p, parts);
            Ok(())
        })
    }
}

/// Option `i` of a list read in place (its value pushed for `Entry::Pushed`), handed to `f`.
#[inline(never)]
unsafe fn one_entry(
    l: *mut ffi::lua_State,
    dims: &Dims,
    parts: &mut Vec<u64>,
    i: i64,
    entry: Entry,
    p: u64,
    f: &mut dyn FnMut(u64, &[u64]),
) -> Result<(), String> {
    parts.clear();
    // SAFETY: as for `option`.
    unsafe { option(l, entry, i, dims, parts)? };
    f(p, parts);
    Ok(())
}

/// Option `i`'s positions into `parts`: an integer, a sum of two (a light userdata), or the
/// value on top of the stack (`Entry::Pushed`: a sum that is a table, or a k-D position).
#[inline(always)]
unsafe fn option(
    l: *mut ffi::lua_State,
    entry: Entry,
    i: i64,
    dims: &Dims,
    parts: &mut Vec<u64>,
) -> Result<(), String> {
    // SAFETY: raw reads of the value on top of the stack, where one was pushed.
    unsafe {
        let what = || format!("option {i}");
        let entry = match entry {
            Entry::Pushed if ffi::lua_isinteger(l, -1) != 0 => {
                Entry::Int(ffi::lua_tointegerx(l, -1, std::ptr::null_mut()))
            }
            Entry::Pushed if ffi::lua_type(l, -1) == ffi::LUA_TLIGHTUSERDATA => {
                Entry::Light(ffi::lua_touserdata(l, -1) as usize)
            }
            other => other,
        };
        match entry {
            Entry::Int(v) => position_number(dims, v, parts, &what),
            Entry::Light(bits) => {
                let (a, b) = pair_parts(bits as *mut _)
                    .ok_or_else(|| format!("{} is not a position or a sum", what()))?;
                let part = |j: usize| move || format!("part {j} of the sum that is {}", what());
                position_number(dims, a as i64, parts, &part(1))?;
                position_number(dims, b as i64, parts, &part(2))
            }
            Entry::Pushed => match ffi::lua_type(l, -1) {
                ffi::LUA_TTABLE if is_sum(l, -1) => read_sum(l, dims, parts, &what),
                ffi::LUA_TTABLE => position_list(l, dims, parts, &what),
                _ => Err(format!("{} is {}, not a position or a sum", what(), describe(l, -1))),
            },
        }
    }
}

/// Whether the table at `idx` is a sum (its metatable is the sums', at index 2).
unsafe fn is_sum(l: *mut ffi::lua_State, idx: i32) -> bool {
    // SAFETY: pushes the metatable, if any, and pops it.
    unsafe {
        let idx = ffi::lua_absindex(l, idx);
        if ffi::lua_getmetatable(l, idx) == 0 {
            return false;
        }
        let sum = ffi::lua_rawequal(l, -1, 2) != 0;
        ffi::lua_settop(l, -2);
        sum
    }
}

/// A 1-D position given as a number.
#[inline(always)]
fn position_number(
    dims: &Dims,
    v: i64,
    parts: &mut Vec<u64>,
    what: &dyn Fn() -> String,
) -> Result<(), String> {
    match dims.sizes() {
        &[len] if (v as u64) < len => {
            parts.push(v as u64);
            Ok(())
        }
        _ => Err(not_a_position(dims, v, what)),
    }
}

/// Why `v` is not a position, for [`position_number`].
#[cold]
fn not_a_position(dims: &Dims, v: i64, what: &dyn Fn() -> String) -> String {
    let k = dims.axes();
    if k != 1 {
        return format!(
            "{} is the number {v}, but a position of this {k}-axis game is a list of {k} integers",
            what()
        );
    }
    format!("{} is position {v}, outside the shape 0..{}", what(), dims.len() - 1)
}

/// A position given as a list of k integers, on top of the stack.
unsafe fn position_list(
    l: *mut ffi::lua_State,
    dims: &Dims,
    parts: &mut Vec<u64>,
    what: &dyn Fn() -> String,
) -> Result<(), String> {
    // SAFETY: raw reads of the table on top of the stack.
    unsafe {
        let k = dims.axes();
        let len = ffi::lua_rawlen(l, -1);
        if len != k {
            return Err(format!(
                "{} is a list of {len} numbers; a position of this game is {k}",
                what()
            ));
        }
        let mut point = [0u64; MAX_AXES];
        each_entry(l, -1, what, |j, entry| {
            let (slot, size) = (j as usize - 1, dims.sizes()[j as usize - 1]);
            let v = match entry {
                Entry::Int(v) => v,
                Entry::Pushed if ffi::lua_isinteger(l, -1) != 0 => {
                    ffi::lua_tointegerx(l, -1, std::ptr::null_mut())
                }
                Entry::Pushed => {
                    return Err(format!(
                        "coordinate {j} of {} is {}, not an integer",
                        what(),
                        describe(l, -1)
                    ));
                }
                Entry::Light(_) => {
                    return Err(format!("coordinate {j} of {} is a sum, not an integer", what()));
                }
            };
            if v < 0 || v as u64 >= size {
                return Err(format!(
                    "{} has coordinate {j} = {v}, outside 0..{}",
                    what(),
                    size - 1
                ));
            }
            point[slot] = v as u64;
            Ok(())
        })?;
        parts.push(dims.index(&point[..k]).expect("checked coordinates"));
        Ok(())
    }
}

/// The parts of the sum on top of the stack (a table sum made).
unsafe fn read_sum(
    l: *mut ffi::lua_State,
    dims: &Dims,
    parts: &mut Vec<u64>,
    what: &dyn Fn() -> String,
) -> Result<(), String> {
    // SAFETY: raw reads of the sum and of the values it holds.
    unsafe {
        let sum = || format!("the sum that is {}", what());
        each_entry(l, -1, &sum, |j, entry| {
            let part = || format!("part {j} of the sum that is {}", what());
            match entry {
                Entry::Int(v) => return position_number(dims, v, parts, &part),
                Entry::Light(_) => {
                    return Err(format!("{} is itself a sum; list the parts instead", part()));
                }
                Entry::Pushed => {}
            }
            match ffi::lua_type(l, -1) {
                ffi::LUA_TNUMBER if ffi::lua_isinteger(l, -1) != 0 => position_number(
                    dims,
                    ffi::lua_tointegerx(l, -1, std::ptr::null_mut()),
                    parts,
                    &part,
                ),
                ffi::LUA_TTABLE if !is_sum(l, -1) => position_list(l, dims, parts, &part),
                ffi::LUA_TTABLE | ffi::LUA_TLIGHTUSERDATA => {
                    Err(format!("{} is itself a sum; list the parts instead", part()))
                }
                _ => Err(format!("{} is {}, not a position", part(), describe(l, -1))),
            }
        })
    }
}
