//! Games written as Lua scripts: `sgtab build lua:PATH[:NAME=VALUE,...]`.
//!
//! A script sets `shape` (an integer N, or a list of k sizes) and defines `moves(p1, ..., pk)`,
//! returning a list of options: a position (an integer in 1-D, a list of k integers in k-D) or
//! `sum(pos, ...)` for a move that leaves several games side by side. It may define
//! `rank(p1, ..., pk)`, an integer every option's positions have smaller. The integer globals of
//! the spec are set before it runs. `docs/scripts.md` is the user's guide.
//!
//! The game is handed to the generic engine ([`crate::engine::generic`]) as a [`Source`]: each
//! engine thread gets its own interpreter (`LuaWorker`) running the same script, so options
//! are enumerated on every core. A worker calls `moves` through Lua's C API, one protected call
//! a position inside one call into Lua a block, and reads the returned list in place (no
//! conversion through Rust values): that per-call path is most of the cost for small games.
//! `sum` of two 1-D positions is a C function returning one marker integer that holds both
//! (nothing allocated); any other sum is Lua code that appends its parts to a table and returns
//! a marker integer pointing at them.
//!
//! Sandbox: the base, string, table, math and utf8 libraries only, less what loads code or
//! reaches outside (`load`, `loadfile`, `dofile`, `string.dump`, `collectgarbage`) and what
//! would make a table depend on the run (`math.random`, `math.randomseed`); `print` writes to
//! stderr. Memory is bounded per interpreter, and time per call: an endless loop stops with the
//! position it was given ([`watchdog`]). Errors are one line with the script's name and line.

use crate::engine::generic;
use crate::games::stored::{self, LUA, Script, Stored, positions_of};
use crate::games::{Dims, Family, Game, GameError, MAX_AXES, Positions, Source, Worker};
use crate::progress::Progress;
use crate::spec::MAX_LEN;
use crate::values::Packed;
use mlua::ffi;
use mlua::{Lua, LuaOptions, StdLib};
use std::ffi::CStr;

/// Bounds on a script's interpreters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of memory each interpreter may hold.
    pub memory: u64,
    /// Seconds one call (`moves`, `rank`, or the script's top level) may run.
    pub seconds: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { memory: 256 << 20, seconds: 10 }
    }
}

/// Marks an integer `sum` returned for a sum whose parts it wrote to the sums table:
/// `SUM_BASE + generation · 2^32 + where its parts start`, generation below 2^28: below
/// [`SUM_PAIRS`].
const SUM_BASE: i64 = -(1 << 62);
/// Marks a sum of two 1-D positions a and b (each below 2^30), the common case (a split), given
/// in the integer itself: `SUM_PAIR − (a·2^30 + b)`, from −3·2^60 to −2^61 − 1.
const SUM_PAIR: i64 = -(1 << 61) - 1;
/// Integers from here down are sums; from [`SUM_POSITIONS`] up, positions.
const SUM_PAIRS: i64 = -3 << 60;
const SUM_POSITIONS: i64 = -(1 << 60);

/// What sgtab defines before the script runs: `sum`, writing its parts into the table given
/// (`S[0]`: entries used; `S[-1]`: the marker base of the position being enumerated).
const PRELUDE: &str = r#"
local S = ...
local select = select
return function(...)
  local k = select('#', ...)
  local n = S[0]
  S[n + 1] = k
  if k == 2 then
    local a, b = ...
    S[n + 2] = a
    S[n + 3] = b
  else
    for i = 1, k do S[n + 1 + i] = (select(i, ...)) end
  end
  S[0] = n + 1 + k
  return S[-1] + n + 1
end
"#;

/// A script's game, its shape known (the script was run once to read it).
#[derive(Debug)]
pub struct LuaGame {
    script: Script,
    dims: Dims,
    ranked: bool,
    limits: Limits,
}

impl LuaGame {
    /// Runs `script` once on this thread to learn its shape and functions.
    pub fn open(script: Script, limits: Limits) -> Result<LuaGame, GameError> {
        let state = State::new(&script, limits)?;
        let dims = state.shape()?;
        let ranked = state.has("rank")?;
        if !state.has("moves")? {
            return Err(state.error("the script defines no function `moves`"));
        }
        Ok(LuaGame { script, dims, ranked, limits })
    }

    /// The game of a table built from a script (its text is in the file), with `limits`.
    pub fn from_stored(stored: &Stored, limits: Limits) -> Result<LuaGame, GameError> {
        let script = stored.script().ok_or_else(|| GameError(format!("{} was not made by a script", stored.canonical())))?;
        let game = LuaGame::open(script.clone(), limits)?;
        if game.dims != stored.dims {
            return Err(GameError(format!(
                "{}: the script now gives the shape {}, the table has {}",
                script.canonical(),
                game.dims.text(),
                stored.dims.text()
            )));
        }
        Ok(game)
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    pub fn script(&self) -> &Script {
        &self.script
    }
}

impl Game for LuaGame {
    fn family(&self) -> &'static Family {
        &LUA
    }

    fn canonical(&self) -> String {
        self.script.canonical()
    }

    fn len(&self) -> u64 {
        self.dims.len()
    }

    fn positions(&self) -> Positions {
        positions_of(&self.dims)
    }

    /// The generic engine is a script's reference: on one thread here.
    fn reference(&self, progress: &Progress) -> Result<Packed, GameError> {
        generic::compute(self, 1, progress).map(|v| Packed::from_values(&v)).map_err(|e| GameError(e.0))
    }

    fn source(&self) -> Option<&dyn Source> {
        Some(self)
    }

    fn stored(&self) -> Option<Stored> {
        Some(Stored { origin: stored::Origin::Script(self.script.clone()), dims: self.dims })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Source for LuaGame {
    fn count(&self) -> u64 {
        self.dims.len()
    }

    fn ranked(&self) -> bool {
        self.ranked
    }

    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        let state = State::new(&self.script, self.limits)?;
        let moves: mlua::Function = state.global("moves")?;
        let rank: Option<mlua::Function> = if self.ranked { Some(state.global("rank")?) } else { None };
        Ok(Box::new(LuaWorker { state, moves, rank, dims: self.dims, generation: 0, point: [0; MAX_AXES], parts: Vec::new() }))
    }

    fn name(&self, p: u64) -> String {
        self.dims.name(p)
    }
}

/// One interpreter with the script loaded, its hook and memory bound set.
struct State {
    lua: Lua,
    /// The script's name for messages (`knight.lua`).
    file: String,
    /// The canonical spec, which starts every error.
    spec: String,
    /// The interpreter's main state, which the watchdog stops.
    raw: *mut ffi::lua_State,
    /// This thread's entry with the watchdog.
    watch: watchdog::Watch,
    /// The table `sum` writes to.
    sums: mlua::Table,
    limits: Limits,
}

impl State {
    fn new(script: &Script, limits: Limits) -> Result<State, GameError> {
        let file = format!("{}.lua", script.name);
        let spec = script.canonical();
        let fail = |e: mlua::Error| GameError(format!("{spec}: {}", lua_message(&e)));
        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8;
        let lua = Lua::new_with(libs, LuaOptions::new()).map_err(fail)?;
        lua.set_memory_limit(limits.memory.min(usize::MAX as u64) as usize).map_err(fail)?;
        let globals = lua.globals();
        for name in ["load", "loadfile", "dofile", "collectgarbage", "require"] {
            globals.set(name, mlua::Nil).map_err(fail)?;
        }
        let string: mlua::Table = globals.get("string").map_err(fail)?;
        string.set("dump", mlua::Nil).map_err(fail)?;
        let math: mlua::Table = globals.get("math").map_err(fail)?;
        math.set("random", mlua::Nil).map_err(fail)?;
        math.set("randomseed", mlua::Nil).map_err(fail)?;
        let shown = file.clone();
        let print = lua
            .create_function(move |lua, args: mlua::MultiValue| {
                let parts: Vec<String> = args.iter().map(|v| lua_to_text(lua, v)).collect();
                use std::io::Write;
                let _ = writeln!(std::io::stderr().lock(), "{shown}: {}", parts.join("\t"));
                Ok(())
            })
            .map_err(fail)?;
        globals.set("print", print).map_err(fail)?;
        let sums = lua.create_table().map_err(fail)?;
        sums.raw_set(0, 0).map_err(fail)?;
        sums.raw_set(-1, SUM_BASE).map_err(fail)?;
        let sum: mlua::Function = lua.load(PRELUDE).set_name("=sgtab").call(sums.clone()).map_err(fail)?;
        lua.set_named_registry_value("sgtab.sum", sum).map_err(fail)?;
        // SAFETY: `sum_pair` is a C function of the signature Lua expects.
        let sum = unsafe { lua.create_c_function(sum_pair) }.map_err(fail)?;
        globals.set("sum", sum).map_err(fail)?;
        for (name, value) in &script.params {
            if globals.contains_key(name.as_str()).map_err(fail)? {
                return Err(GameError(format!("{spec}: parameter {name} would replace the global `{name}` the script needs; choose another name")));
            }
            globals.set(name.as_str(), *value).map_err(fail)?;
        }
        // SAFETY: exec_raw hands over the interpreter's main state, which outlives `State`.
        let raw = unsafe {
            let mut raw = std::ptr::null_mut();
            lua.exec_raw::<()>((), |l| raw = l).map_err(fail)?;
            raw
        };
        let watch = watchdog::Watch::new(limits.seconds);
        let state = State { lua, file, spec, raw, watch, sums, limits };
        let run = state.watch.call(raw, || state.lua.load(script.text.as_str()).set_name(format!("@{}", state.file)).exec());
        run.map_err(|e| state.failed(&e, "at its top level"))?;
        Ok(state)
    }

    /// An error about the script, as one line.
    fn error(&self, why: impl std::fmt::Display) -> GameError {
        GameError(format!("{}: {why}", self.spec))
    }

    /// The error of a failed call, `place` saying where (`at position (3, 4)`).
    fn failed(&self, e: &mlua::Error, place: &str) -> GameError {
        match self.watch.stopped() {
            Some(why) => self.error(format!("{} {place}: {why}", self.file)),
            None => match e {
                mlua::Error::MemoryError(_) => {
                    self.error(format!("{} {place}: ran out of its {} MiB of memory; --lua-memory raises the bound", self.file, self.limits.memory >> 20))
                }
                _ => self.error(format!("{place}: {}", lua_message(e))),
            },
        }
    }

    fn global<T: mlua::FromLua>(&self, name: &str) -> Result<T, GameError> {
        self.lua.globals().get(name).map_err(|e| self.error(lua_message(&e)))
    }

    /// Whether the script defines a function `name` (anything else there is an error).
    fn has(&self, name: &str) -> Result<bool, GameError> {
        match self.lua.globals().get::<mlua::Value>(name).map_err(|e| self.error(lua_message(&e)))? {
            mlua::Value::Nil => Ok(false),
            mlua::Value::Function(_) => Ok(true),
            other => Err(self.error(format!("`{name}` is a {}, not a function", other.type_name()))),
        }
    }

    /// The script's `shape`: an integer, or a list of 1 to 8 integers.
    fn shape(&self) -> Result<Dims, GameError> {
        let want = "`shape` must be a whole number N (positions 0..N-1) or a list of sizes {d1, ..., dk}";
        let size = |v: &mlua::Value| match v {
            mlua::Value::Integer(n) if *n >= 1 => Ok(*n as u64),
            mlua::Value::Integer(n) => Err(self.error(format!("shape size {n} is below 1"))),
            other => Err(self.error(format!("{want}; a size is a {}", other.type_name()))),
        };
        let sizes = match self.global::<mlua::Value>("shape")? {
            mlua::Value::Nil => return Err(self.error(format!("the script sets no `shape`: {want}"))),
            mlua::Value::Table(t) => {
                let n = t.raw_len();
                if n == 0 || n > MAX_AXES {
                    return Err(self.error(format!("`shape` lists {n} sizes; give 1 to {MAX_AXES}")));
                }
                (1..=n).map(|i| t.raw_get::<mlua::Value>(i).map_err(|e| self.error(lua_message(&e))).and_then(|v| size(&v))).collect::<Result<Vec<_>, _>>()?
            }
            v => vec![size(&v)?],
        };
        Dims::new(&sizes, MAX_LEN).map_err(|e| self.error(format!("{e} (sgtab builds tables of up to 2^30 positions)")))
    }
}

/// An mlua error as one line: its message without the traceback mlua appends.
fn lua_message(e: &mlua::Error) -> String {
    let text = match e {
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::CallbackError { cause, .. } => return lua_message(cause),
        other => other.to_string(),
    };
    text.lines().next().unwrap_or("").trim().to_string()
}

/// A Lua value as `print` shows it.
fn lua_to_text(_lua: &Lua, v: &mlua::Value) -> String {
    match v {
        mlua::Value::Nil => "nil".into(),
        mlua::Value::Boolean(b) => b.to_string(),
        mlua::Value::Integer(i) => i.to_string(),
        mlua::Value::Number(n) => n.to_string(),
        mlua::Value::String(s) => s.to_string_lossy(),
        other => format!("{}: {:p}", other.type_name(), other.to_pointer()),
    }
}

/// `sum`: two whole numbers below 2^30 (a split of a 1-D position, the common case) become one
/// marker integer ([`SUM_PAIR`]) without touching a table; anything else is handed to the Lua
/// `sum` of [`PRELUDE`], which writes its parts to the sums table.
unsafe extern "C-unwind" fn sum_pair(l: *mut ffi::lua_State) -> std::ffi::c_int {
    // SAFETY: called by Lua with its arguments on the stack; a C function may push up to
    // LUA_MINSTACK (20) values without checking. Nothing here owns memory, so the error that
    // the Lua `sum` may raise can jump over this frame.
    unsafe {
        let n = ffi::lua_gettop(l);
        if n == 2 && ffi::lua_isinteger(l, 1) != 0 && ffi::lua_isinteger(l, 2) != 0 {
            let a = ffi::lua_tointegerx(l, 1, std::ptr::null_mut());
            let b = ffi::lua_tointegerx(l, 2, std::ptr::null_mut());
            if (0..1 << 30).contains(&a) && (0..1 << 30).contains(&b) {
                ffi::lua_pushinteger(l, SUM_PAIR - (a << 30 | b));
                return 1;
            }
        }
        ffi::lua_getfield(l, ffi::LUA_REGISTRYINDEX, c"sgtab.sum".as_ptr());
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, n, 1);
        1
    }
}

/// One thread's interpreter of a script's game.
struct LuaWorker {
    state: State,
    moves: mlua::Function,
    rank: Option<mlua::Function>,
    dims: Dims,
    /// Counts positions, so that a `sum` marker kept from another position is caught.
    generation: u32,
    point: [u64; MAX_AXES],
    /// One option's positions, reused.
    parts: Vec<u64>,
}

/// Why reading a position's options stopped, found inside the raw block (turned into a
/// [`GameError`] outside it, where the worker's state can be borrowed).
enum Bad {
    /// The call failed: Lua's message, or None when the hook stopped it.
    Call(Option<String>),
    Option(String),
}

impl Worker for LuaWorker {
    fn options(&mut self, positions: &[u64], f: &mut dyn FnMut(u64, &[u64])) -> Result<(), GameError> {
        let mut failed: Option<(u64, Bad)> = None;
        let (dims, k) = (self.dims, self.dims.axes());
        let state = &self.state;
        let generation = &mut self.generation;
        let point = &mut self.point;
        let parts = &mut self.parts;
        // SAFETY: inside the block only C API calls that cannot raise a Lua error are made
        // (stack space is checked first; the two keys of the sums table written exist, so
        // setting them allocates nothing), and the calls into the script are protected
        // (lua_pcall): nothing unwinds or jumps across this Rust code.
        let run = unsafe {
            state.lua.exec_raw::<()>((&self.moves, &state.sums), |l| {
                if ffi::lua_checkstack(l, 8 + k as i32) == 0 {
                    failed = Some((positions.first().copied().unwrap_or(0), Bad::Option("no room on the Lua stack".into())));
                    return;
                }
                for &p in positions {
                    *generation = generation.wrapping_add(1) & 0x0FFF_FFFF;
                    let base = SUM_BASE + ((*generation as i64) << 32);
                    ffi::lua_pushinteger(l, base);
                    ffi::lua_rawseti(l, 2, -1);
                    ffi::lua_pushinteger(l, 0);
                    ffi::lua_rawseti(l, 2, 0);
                    if !call_at(l, state, &dims, point, p) {
                        failed = Some((p, Bad::Call(raw_string(l, -1))));
                        ffi::lua_settop(l, 2);
                        return;
                    }
                    let read = read_options(l, &dims, base, parts, &mut |opt| f(p, opt));
                    ffi::lua_settop(l, 2);
                    if let Err(why) = read {
                        failed = Some((p, Bad::Option(why)));
                        return;
                    }
                }
            })
        };
        run.map_err(|e| self.state.error(lua_message(&e)))?;
        match failed {
            None => Ok(()),
            Some((p, bad)) => Err(self.bad(p, bad)),
        }
    }

    fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
        let Some(rank) = &self.rank else { return Err(self.state.error("the script defines no `rank`")) };
        let mut failed: Option<(u64, Bad)> = None;
        let (dims, k) = (self.dims, self.dims.axes());
        let state = &self.state;
        let point = &mut self.point;
        // SAFETY: as in `options`.
        let run = unsafe {
            state.lua.exec_raw::<()>(rank, |l| {
                if ffi::lua_checkstack(l, 8 + k as i32) == 0 {
                    failed = Some((positions.first().copied().unwrap_or(0), Bad::Option("no room on the Lua stack".into())));
                    return;
                }
                for &p in positions {
                    if !call_at(l, state, &dims, point, p) {
                        failed = Some((p, Bad::Call(raw_string(l, -1))));
                        ffi::lua_settop(l, 1);
                        return;
                    }
                    let is_int = ffi::lua_isinteger(l, -1) != 0;
                    let r = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
                    let kind = type_name(l, -1);
                    ffi::lua_settop(l, 1);
                    if !is_int {
                        failed = Some((p, Bad::Option(format!("rank returned a {kind}, not an integer"))));
                        return;
                    }
                    out.push(r);
                }
            })
        };
        run.map_err(|e| self.state.error(lua_message(&e)))?;
        match failed {
            None => Ok(()),
            Some((p, bad)) => Err(self.bad(p, bad)),
        }
    }
}

impl LuaWorker {
    fn bad(&self, p: u64, bad: Bad) -> GameError {
        let place = format!("at position {}", self.dims.name(p));
        match bad {
            Bad::Call(message) => match self.state.watch.stopped() {
                Some(why) => self.state.error(format!("{} {place}: {why}", self.state.file)),
                None => {
                    let message = message.unwrap_or_else(|| "an error without a message".into());
                    if message.contains("not enough memory") {
                        return self.state.error(format!(
                            "{} {place}: ran out of its {} MiB of memory; --lua-memory raises the bound",
                            self.state.file,
                            self.state.limits.memory >> 20
                        ));
                    }
                    self.state.error(format!("{place}: {}", message.lines().next().unwrap_or("")))
                }
            },
            Bad::Option(why) => self.state.error(format!("{} {place}: {why}", self.state.file)),
        }
    }
}

/// Calls the function at stack index 1 with the coordinates of position `p` (through the
/// watchdog), leaving its one result, or the error, on top; whether it returned.
///
/// # Safety
/// `l` is the state of `state`, with the function at index 1 and room for k + 1 more slots.
unsafe fn call_at(l: *mut ffi::lua_State, state: &State, dims: &Dims, point: &mut [u64], p: u64) -> bool {
    let k = dims.axes();
    // SAFETY: per this function's contract.
    unsafe {
        ffi::lua_pushvalue(l, 1);
        dims.point(p, point);
        for &c in &point[..k] {
            ffi::lua_pushinteger(l, c as i64);
        }
        state.watch.call(state.raw, || ffi::lua_pcall(l, k as i32, 1, 0)) == ffi::LUA_OK
    }
}

/// The string at `idx`, if it is one (or a number).
unsafe fn raw_string(l: *mut ffi::lua_State, idx: i32) -> Option<String> {
    let mut len = 0usize;
    // SAFETY: lua_tolstring on a string or number returns its bytes; on anything else NULL.
    // A number is converted in place, which allocates: only strings are read.
    unsafe {
        if ffi::lua_type(l, idx) != ffi::LUA_TSTRING {
            return None;
        }
        let ptr = ffi::lua_tolstring(l, idx, &mut len);
        if ptr.is_null() {
            return None;
        }
        Some(String::from_utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len)).into_owned())
    }
}

/// The type name of the value at `idx`.
unsafe fn type_name(l: *mut ffi::lua_State, idx: i32) -> String {
    // SAFETY: lua_typename returns a static C string for every type tag.
    unsafe { CStr::from_ptr(ffi::lua_typename(l, ffi::lua_type(l, idx))).to_string_lossy().into_owned() }
}

/// Reads the list of options on top of the stack (index 3; the sums table is index 2), calling
/// `f` with each option's positions. Leaves the stack as it found it.
unsafe fn read_options(l: *mut ffi::lua_State, dims: &Dims, base: i64, parts: &mut Vec<u64>, f: &mut dyn FnMut(&[u64])) -> Result<(), String> {
    // SAFETY: only raw reads of tables and values on a stack with room for them.
    unsafe {
        if ffi::lua_type(l, 3) != ffi::LUA_TTABLE {
            return Err(format!("moves returned a {}, not a list of options", type_name(l, 3)));
        }
        let n = ffi::lua_rawlen(l, 3);
        for i in 1..=n as i64 {
            ffi::lua_rawgeti(l, 3, i);
            parts.clear();
            let what = || format!("option {i}");
            let read = match ffi::lua_type(l, -1) {
                ffi::LUA_TNUMBER if ffi::lua_isinteger(l, -1) != 0 => {
                    let v = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
                    if v < SUM_PAIRS {
                        read_sum(l, dims, base, v, parts, &what)
                    } else if v < SUM_POSITIONS {
                        let pair = SUM_PAIR - v;
                        let part = |j: usize| move || format!("part {j} of the sum that is {}", what());
                        position_number(dims, pair >> 30, parts, &part(1)).and_then(|_| position_number(dims, pair & ((1 << 30) - 1), parts, &part(2)))
                    } else {
                        position_number(dims, v, parts, &what)
                    }
                }
                ffi::LUA_TTABLE => position_list(l, dims, parts, &what),
                _ => Err(format!("{} is {}, not a position or a sum", what(), describe(l, -1))),
            };
            ffi::lua_settop(l, 3);
            read?;
            f(parts);
        }
        Ok(())
    }
}

/// A value in words for an error: `2.5 (a float)`, `a string`, `nil`.
unsafe fn describe(l: *mut ffi::lua_State, idx: i32) -> String {
    // SAFETY: reads the value at idx only.
    unsafe {
        match ffi::lua_type(l, idx) {
            ffi::LUA_TNUMBER => {
                let v = ffi::lua_tonumberx(l, idx, std::ptr::null_mut());
                format!("{v} (a float: use // for whole-number division)")
            }
            ffi::LUA_TNIL => "nil".into(),
            _ => format!("a {}", type_name(l, idx)),
        }
    }
}

/// A 1-D position given as a number.
fn position_number(dims: &Dims, v: i64, parts: &mut Vec<u64>, what: &dyn Fn() -> String) -> Result<(), String> {
    if dims.axes() != 1 {
        return Err(format!("{} is the number {v}, but a position of this {}-axis game is a list of {} integers", what(), dims.axes(), dims.axes()));
    }
    if v < 0 || v as u64 >= dims.len() {
        return Err(format!("{} is position {v}, outside the shape 0..{}", what(), dims.len() - 1));
    }
    parts.push(v as u64);
    Ok(())
}

/// A position given as a list of k integers, on top of the stack.
unsafe fn position_list(l: *mut ffi::lua_State, dims: &Dims, parts: &mut Vec<u64>, what: &dyn Fn() -> String) -> Result<(), String> {
    // SAFETY: raw reads of the table on top of the stack.
    unsafe {
        let k = dims.axes();
        let len = ffi::lua_rawlen(l, -1);
        if len != k {
            return Err(format!("{} is a list of {len} numbers; a position of this game is {k}", what()));
        }
        let mut point = [0u64; MAX_AXES];
        for (j, (slot, &size)) in point[..k].iter_mut().zip(dims.sizes()).enumerate() {
            ffi::lua_rawgeti(l, -1, j as i64 + 1);
            let ok = ffi::lua_isinteger(l, -1) != 0;
            let v = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
            let shown = if ok { String::new() } else { describe(l, -1) };
            ffi::lua_settop(l, -2);
            if !ok {
                return Err(format!("coordinate {} of {} is {shown}, not an integer", j + 1, what()));
            }
            if v < 0 || v as u64 >= size {
                return Err(format!("{} has coordinate {} = {v}, outside 0..{}", what(), j + 1, size - 1));
            }
            *slot = v as u64;
        }
        parts.push(dims.index(&point[..k]).expect("checked coordinates"));
        Ok(())
    }
}

/// The parts of the sum marked `v`, from the sums table (index 2).
unsafe fn read_sum(l: *mut ffi::lua_State, dims: &Dims, base: i64, v: i64, parts: &mut Vec<u64>, what: &dyn Fn() -> String) -> Result<(), String> {
    // SAFETY: raw reads of the sums table and of the values it holds.
    unsafe {
        let at = v.wrapping_sub(base);
        ffi::lua_rawgeti(l, 2, 0);
        let used = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
        ffi::lua_settop(l, -2);
        if !(1..=used).contains(&at) {
            return Err(format!("{} is a sum made for another position (a sum is used by the call of moves that made it)", what()));
        }
        ffi::lua_rawgeti(l, 2, at);
        let k = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
        ffi::lua_settop(l, -2);
        for j in 1..=k {
            ffi::lua_rawgeti(l, 2, at + j);
            let part = || format!("part {j} of the sum that is {}", what());
            let read = match ffi::lua_type(l, -1) {
                ffi::LUA_TNUMBER if ffi::lua_isinteger(l, -1) != 0 => {
                    let p = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
                    if p < SUM_POSITIONS { Err(format!("{} is itself a sum; list the parts instead", part())) } else { position_number(dims, p, parts, &part) }
                }
                ffi::LUA_TTABLE => position_list(l, dims, parts, &part),
                _ => Err(format!("{} is {}, not a position", part(), describe(l, -1))),
            };
            ffi::lua_settop(l, -2);
            read?;
        }
        Ok(())
    }
}

pub mod watchdog;
