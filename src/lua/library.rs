//! What sgtab changes in Lua's libraries for a script, and `sum`.
//!
//! - `sum(...)`: two whole numbers below 2^30 (a split of a 1-D position, the common case)
//!   become one light userdata holding both, allocating nothing; any other sum is a table of
//!   its parts with a metatable no script can reach. Neither is a value a script can make any
//!   other way, so no integer or table can be taken for a sum.
//! - No memory address is reachable: `tostring` and `string.format("%s")` of a table or
//!   function without `__tostring` are errors (Lua would show an address, which changes from
//!   run to run), `%p` is refused, and `print` shows such a value by its type alone.
//! - `xpcall` never runs its message handler for the error of a stopped call.
//! - `table.sort` is [`super::sort`]'s, the pattern functions [`super::strings`]'; `table.move`,
//!   `setmetatable` (no `__gc`) and the read-only globals are the Lua [`PRELUDE`].
//!
//! The C functions here are called by Lua, and a Lua error may unwind over them: none holds
//! anything with a destructor while it calls into Lua.

use super::strings::raise;
use super::table::INTEGER;
use super::watchdog;
use mlua::ffi;
use std::ffi::c_int;

/// Marks a light userdata made by `sum` from two parts a, b below 2^30: `PAIR | a << 30 | b`.
const PAIR: usize = 1 << 62;
const PART: u64 = 1 << 30;

const _: () = assert!(usize::BITS == 64, "sums of two parts are 64-bit light userdata");

/// The two parts of a pair sum, if the light userdata is one.
pub(crate) fn pair_parts(ptr: *mut std::ffi::c_void) -> Option<(u64, u64)> {
    let v = ptr as usize;
    (v & !(PAIR | ((1 << 60) - 1)) == 0 && v & PAIR != 0)
        .then_some(((v as u64 >> 30) & (PART - 1), v as u64 & (PART - 1)))
}

/// The name of a Lua type tag, as Lua writes it.
pub(crate) fn type_name(t: c_int) -> &'static str {
    match t {
        ffi::LUA_TNIL => "nil",
        ffi::LUA_TBOOLEAN => "boolean",
        ffi::LUA_TLIGHTUSERDATA => "sum",
        ffi::LUA_TNUMBER => "number",
        ffi::LUA_TSTRING => "string",
        ffi::LUA_TTABLE => "table",
        ffi::LUA_TFUNCTION => "function",
        ffi::LUA_TUSERDATA => "userdata",
        ffi::LUA_TTHREAD => "thread",
        _ => "no value",
    }
}

/// A script's text shown in sgtab's messages: control characters (a terminal's escape
/// sequences, carriage returns) as escapes, the rest as it is.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `sum(...)`: upvalue 1 is the metatable of the sums that are tables.
pub(crate) unsafe extern "C-unwind" fn sum(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua with its arguments on the stack; LUA_MINSTACK slots are free.
    unsafe {
        let n = ffi::lua_gettop(l);
        if let (2, Some(frame)) = (n, super::stack::frame(l)) {
            // Read in place (super::stack): two integers that fit are a pair.
            if let ((INTEGER, a), (INTEGER, b)) = (frame.get(1), frame.get(2))
                && a < PART
                && b < PART
            {
                ffi::lua_pushlightuserdata(l, (PAIR | (a as usize) << 30 | b as usize) as *mut _);
                return 1;
            }
        } else if n == 2 && ffi::lua_isinteger(l, 1) != 0 && ffi::lua_isinteger(l, 2) != 0 {
            let a = ffi::lua_tointegerx(l, 1, std::ptr::null_mut());
            let b = ffi::lua_tointegerx(l, 2, std::ptr::null_mut());
            if (0..PART as i64).contains(&a) && (0..PART as i64).contains(&b) {
                ffi::lua_pushlightuserdata(l, (PAIR | (a as usize) << 30 | b as usize) as *mut _);
                return 1;
            }
        }
        ffi::lua_createtable(l, n, 0);
        for i in 1..=n {
            ffi::lua_pushvalue(l, i);
            ffi::lua_rawseti(l, -2, i as i64);
        }
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(1));
        ffi::lua_setmetatable(l, -2);
        1
    }
}

/// `__tostring` of a sum that is a table: `sum(3, 4, 5)`, a k-D part as `{1, 2}`.
pub(crate) unsafe extern "C-unwind" fn sum_text(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua with the sum at index 1; raw reads and a buffer.
    unsafe {
        let mut b: ffi::luaL_Buffer = std::mem::zeroed();
        ffi::luaL_buffinit(l, &mut b);
        ffi::luaL_addstring(&mut b, c"sum(".as_ptr());
        let n = ffi::lua_rawlen(l, 1) as i64;
        for i in 1..=n {
            if i > 1 {
                ffi::luaL_addstring(&mut b, c", ".as_ptr());
            }
            ffi::lua_rawgeti(l, 1, i);
            if ffi::lua_type(l, -1) == ffi::LUA_TTABLE {
                ffi::lua_settop(l, -2);
                ffi::luaL_addstring(&mut b, c"{...}".as_ptr());
            } else if ffi::lua_isinteger(l, -1) != 0 {
                ffi::luaL_addvalue(&mut b);
            } else {
                ffi::lua_settop(l, -2);
                ffi::luaL_addstring(&mut b, c"?".as_ptr());
            }
        }
        ffi::luaL_addstring(&mut b, c")".as_ptr());
        ffi::luaL_pushresult(&mut b);
        1
    }
}

/// How a value is shown as text.
enum Shown {
    /// By Lua (`luaL_tolstring`): a number, string, boolean, nil, or a value with `__tostring`.
    Lua,
    /// A sum of two parts.
    Pair(u64, u64),
    /// Only by its address, which sgtab does not show.
    Address,
}

unsafe fn shown(l: *mut ffi::lua_State, idx: c_int) -> Shown {
    // SAFETY: reads the value at idx and its metatable.
    unsafe {
        match ffi::lua_type(l, idx) {
            ffi::LUA_TNIL | ffi::LUA_TBOOLEAN | ffi::LUA_TNUMBER | ffi::LUA_TSTRING => Shown::Lua,
            ffi::LUA_TLIGHTUSERDATA => pair_parts(ffi::lua_touserdata(l, idx))
                .map_or(Shown::Address, |(a, b)| Shown::Pair(a, b)),
            _ if ffi::luaL_getmetafield(l, idx, c"__tostring".as_ptr()) != ffi::LUA_TNIL => {
                ffi::lua_settop(l, -2);
                Shown::Lua
            }
            _ => Shown::Address,
        }
    }
}

/// Raises the error for a value that has no text but its address.
unsafe fn no_text(l: *mut ffi::lua_State, idx: c_int, what: &str) -> ! {
    // SAFETY: reads the type and raises.
    unsafe {
        let kind = type_name(ffi::lua_type(l, idx));
        raise(
            l,
            format!(
                "{what} of a {kind} is refused: Lua would show its memory address, which changes \
                    from run to run (give it a __tostring metamethod, or use a number or string)"
            ),
        )
    }
}

/// `tostring`, without addresses.
pub(crate) unsafe extern "C-unwind" fn tostring(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua.
    unsafe {
        ffi::luaL_checkany(l, 1);
        match shown(l, 1) {
            Shown::Lua => {
                ffi::luaL_tolstring(l, 1, std::ptr::null_mut());
            }
            Shown::Pair(a, b) => {
                let text = format!("sum({a}, {b})");
                ffi::lua_pushlstring(l, text.as_ptr() as *const _, text.len());
            }
            Shown::Address => no_text(l, 1, "tostring"),
        }
        1
    }
}

/// `string.format` (upvalue 1: Lua's), refusing `%p` and `%s` of a value shown only by its
/// address; a sum of two parts is given to `%s` as its text.
pub(crate) unsafe extern "C-unwind" fn format(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua; the format string stays at index 1 while it is scanned.
    unsafe {
        let mut len = 0;
        let ptr = ffi::luaL_checklstring(l, 1, &mut len);
        let fmt = std::slice::from_raw_parts(ptr as *const u8, len);
        let (mut i, mut arg) = (0, 1);
        while i < fmt.len() {
            if fmt[i] != b'%' {
                i += 1;
                continue;
            }
            i += 1;
            if fmt.get(i) == Some(&b'%') {
                i += 1;
                continue;
            }
            arg += 1;
            while i < fmt.len() && (b"-+#0 .".contains(&fmt[i]) || fmt[i].is_ascii_digit()) {
                i += 1;
            }
            match fmt.get(i) {
                Some(b'p') => raise(
                    l,
                    "string.format('%p') is refused: it shows a memory address, which changes \
                        from run to run"
                        .into(),
                ),
                Some(b's') if arg <= ffi::lua_gettop(l) => match shown(l, arg) {
                    Shown::Lua => {}
                    Shown::Pair(a, b) => {
                        let text = format!("sum({a}, {b})");
                        ffi::lua_pushlstring(l, text.as_ptr() as *const _, text.len());
                        drop(text);
                        ffi::lua_replace(l, arg);
                    }
                    Shown::Address => no_text(l, arg, "string.format('%s')"),
                },
                _ => {}
            }
            i += 1;
        }
        let n = ffi::lua_gettop(l);
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(1));
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, n, 1);
        1
    }
}

/// Longest format `string.pack`, `string.unpack` and `string.packsize` take: Lua spends about
/// 16 ns on each of its items (a format of 100 MB of `x` packed for 1.7 s, in one C call).
const MAX_PACK_FORMAT: usize = 1 << 20;

/// `string.pack`, `string.unpack` or `string.packsize` (upvalue 1: Lua's), refusing a format
/// longer than [`MAX_PACK_FORMAT`].
pub(crate) unsafe extern "C-unwind" fn pack(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua; the original is called with the same arguments.
    unsafe {
        let mut len = 0;
        ffi::luaL_checklstring(l, 1, &mut len);
        if len > MAX_PACK_FORMAT {
            raise(
                l,
                format!(
                    "a pack format of {len} bytes is refused: at most {MAX_PACK_FORMAT} bytes \
                        (one call into Lua's C library is not stopped until it returns)"
                ),
            );
        }
        let n = ffi::lua_gettop(l);
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(1));
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, n, ffi::LUA_MULTRET);
        ffi::lua_gettop(l)
    }
}

/// `print`: its arguments on one line of stderr after the script's name (upvalue 1), control
/// characters escaped; a value with no text but its address shows its type.
pub(crate) unsafe extern "C-unwind" fn print(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua; the buffer lives in this frame. After the last call into Lua
    // (luaL_pushresult) nothing can raise an error, so the Rust values below are dropped.
    unsafe {
        let n = ffi::lua_gettop(l);
        let mut b: ffi::luaL_Buffer = std::mem::zeroed();
        ffi::luaL_buffinit(l, &mut b);
        for i in 1..=n {
            if i > 1 {
                ffi::luaL_addchar(&mut b, b'\t' as _);
            }
            match shown(l, i) {
                Shown::Lua => {
                    ffi::luaL_tolstring(l, i, std::ptr::null_mut());
                    ffi::luaL_addvalue(&mut b);
                }
                Shown::Pair(a, c) => {
                    ffi::lua_pushinteger(l, a as i64);
                    ffi::luaL_addstring(&mut b, c"sum(".as_ptr());
                    ffi::luaL_addvalue(&mut b);
                    ffi::luaL_addstring(&mut b, c", ".as_ptr());
                    ffi::lua_pushinteger(l, c as i64);
                    ffi::luaL_addvalue(&mut b);
                    ffi::luaL_addchar(&mut b, b')' as _);
                }
                Shown::Address => {
                    ffi::luaL_addstring(&mut b, ffi::lua_typename(l, ffi::lua_type(l, i)))
                }
            }
        }
        ffi::luaL_pushresult(&mut b);
        let mut len = 0;
        let text = ffi::lua_tolstring(l, -1, &mut len);
        let text = String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, len));
        let name = ffi::lua_tolstring(l, ffi::lua_upvalueindex(1), std::ptr::null_mut());
        let name = std::ffi::CStr::from_ptr(name).to_string_lossy();
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "{name}: {}", escape_controls(&text));
        0
    }
}

/// `xpcall(f, msgh, ...)`, as Lua's, except that the message handler is not run for the error
/// of a stopped call. An error raised by a hook leaves Lua's hooks off until it is caught, and
/// the message handler runs before that (where the error is raised): a handler that loops
/// there could never be stopped. The error of a stopped call reaches the `xpcall` unhandled.
pub(crate) unsafe extern "C-unwind" fn xpcall(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua; as lbaselib.c's luaB_xpcall, with the handler wrapped.
    unsafe {
        let n = ffi::lua_gettop(l);
        ffi::luaL_checktype(l, 2, ffi::LUA_TFUNCTION);
        ffi::lua_pushvalue(l, 2);
        ffi::lua_pushcclosure(l, handler, 1);
        ffi::lua_replace(l, 2);
        ffi::lua_pushboolean(l, 1);
        ffi::lua_pushvalue(l, 1);
        ffi::lua_rotate(l, 3, 2);
        if ffi::lua_pcall(l, n - 2, ffi::LUA_MULTRET, 2) != ffi::LUA_OK {
            ffi::lua_pushboolean(l, 0);
            ffi::lua_pushvalue(l, -2);
            return 2;
        }
        ffi::lua_gettop(l) - 2
    }
}

/// The message handler `xpcall` gives Lua: the script's (upvalue 1), unless the call was stopped.
unsafe extern "C-unwind" fn handler(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a message handler, with the error value as its argument.
    unsafe {
        if watchdog::poll() {
            return 1;
        }
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(1));
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, ffi::lua_gettop(l) - 1, ffi::LUA_MULTRET);
        ffi::lua_gettop(l)
    }
}

/// Lua run before the script, with the parameters (a table) as its argument. It returns a
/// table: `read` and `missing` (the parameters the top level read, and the names it read that
/// were not set), `freeze`, which makes the globals read-only once the top level has run, and
/// `changed`, which names a global assigned since (or gives nil).
///
/// Read-only: a new global is refused where it is assigned (the globals' `__newindex`), and so
/// is `rawset` on the globals table; an assignment to a global that exists cannot be caught
/// where it happens without making every read of a global go through a metamethod (docs/scripts.md
/// gives what that costs), so each batch of positions ends by comparing the globals with their
/// values after the top level (`changed`; the first batch of a build is one position).
///
/// It also replaces `setmetatable` (a metatable with `__gc` is refused: a finalizer runs while
/// Lua collects or closes, with hooks off, where no time bound can stop it) and `table.move`
/// (in chunks of 65,536, so that the watchdog's hook can stop a long move between them).
pub(crate) const PRELUDE: &str = r#"
local params = ...
local G = _G
local rawget, rawset, rawequal, next = rawget, rawset, rawequal, next
local type, error, setmetatable, pcall = type, error, setmetatable, pcall
local tointeger, maxinteger, move = math.tointeger, math.maxinteger, table.move
local read, missing, snapshot = {}, {}, nil

local function name(k)
  if type(k) == "string" then return "`" .. k .. "`" end
  return "[a " .. type(k) .. " key]"
end
local function readonly(k)
  return "cannot assign the global " .. name(k)
    .. ": globals are read-only once the script's top level has run, "
    .. "so that every position sees the same ones (keep what moves needs in locals)"
end

local mt = {
  __index = function(_, k)
    local v = params[k]
    if v ~= nil then read[k] = true return v end
    if type(k) == "string" then missing[k] = true end
  end,
  __metatable = false,
}
setmetatable(G, mt)

-- Errors of Lua's functions called from here name the script's line, not this prelude's.
local function rethrow(r, level)
  if type(r) == "string" and not r:find("^[^\n]-:%d+: ") then error(r, level + 1) end
  error(r, 0)
end
local function call(level, f, ...)
  local ok, a, b = pcall(f, ...)
  if not ok then rethrow(a, level + 1) end
  return a, b
end

function G.setmetatable(t, m)
  if type(m) == "table" and rawget(m, "__gc") ~= nil then
    error("a metatable with a __gc field is refused: its finalizer would run while Lua frees "
      .. "memory or closes, where no time bound can stop it", 2)
  end
  return (call(2, setmetatable, t, m))
end
function G.rawset(t, k, v)
  if snapshot and rawequal(t, G) then error(readonly(k), 2) end
  return (call(2, rawset, t, k, v))
end

local CHUNK = 1 << 16
function G.table.move(a1, f, e, t, a2)
  local fi, ei, ti = tointeger(f), tointeger(e), tointeger(t)
  if not (fi and ei and ti) or ei < fi or not (fi > 0 or ei < maxinteger + fi) or ei - fi < CHUNK
    or ti > maxinteger - (ei - fi) then
    return (call(2, move, a1, f, e, t, a2))
  end
  local n, dest = ei - fi + 1, a2
  if dest == nil then dest = a1 end
  local function part(i)
    local last = i + CHUNK - 1
    if last > n - 1 then last = n - 1 end
    call(3, move, a1, fi + i, fi + last, ti + i, dest)
  end
  if ti > ei or ti <= fi or (a2 ~= nil and a1 ~= a2) then
    for i = 0, n - 1, CHUNK do part(i) end
  else
    for i = (n - 1) // CHUNK * CHUNK, 0, -CHUNK do part(i) end
  end
  return dest
end

local function freeze()
  for k, v in next, params do if rawget(G, k) == nil then rawset(G, k, v) end end
  snapshot = {}
  for k, v in next, G do snapshot[k] = v end
  mt.__index = nil
  mt.__newindex = function(_, k) error(readonly(k), 2) end
end

local function changed()
  for k, v in next, snapshot do
    local now = rawget(G, k)
    if not rawequal(now, v) and (now == now or v == v) then return name(k) end
  end
end

return {read = read, missing = missing, freeze = freeze, changed = changed}
"#;
