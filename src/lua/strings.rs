//! `string.find`, `string.match`, `string.gmatch` and `string.gsub` as sgtab gives them to a
//! script: Lua 5.4's functions (lstrlib.c) ported to Rust over the bounded matcher of
//! [`super::pattern`], with the same arguments, results and messages. A plain `find` (the
//! fourth argument true, or a pattern without special characters) searches in linear time
//! (`memchr::memmem`, where Lua's `lmemfind` takes the product of the two lengths).
//!
//! Every function here is called by Lua, and a Lua error unwinds over its frame: none of them
//! holds anything with a destructor while it calls into Lua (the matcher's captures are a fixed
//! array; results are built in a `luaL_Buffer`, which Lua owns).

use super::pattern::{Fail, MAX_CAPTURES, Matcher, POSITION, UNFINISHED, no_specials};
use super::watchdog;
use mlua::ffi;
use std::ffi::c_int;

unsafe extern "C-unwind" {
    fn luaL_typeerror(l: *mut ffi::lua_State, arg: c_int, tname: *const std::ffi::c_char) -> c_int;
}

/// The string argument `arg` as bytes (Lua's error if it is not one). The bytes live as long as
/// the argument stays on the stack.
///
/// # Safety
/// Called from a C function, with `arg` one of its arguments.
unsafe fn check_bytes<'a>(l: *mut ffi::lua_State, arg: c_int) -> &'a [u8] {
    let mut len = 0;
    // SAFETY: luaL_checklstring returns a pointer to `len` bytes of a string on the stack.
    unsafe {
        let ptr = ffi::luaL_checklstring(l, arg, &mut len);
        std::slice::from_raw_parts(ptr as *const u8, len)
    }
}

/// The bytes of the string at `idx` (an upvalue or a stack slot known to hold a string).
unsafe fn bytes_at<'a>(l: *mut ffi::lua_State, idx: c_int) -> &'a [u8] {
    let mut len = 0;
    // SAFETY: the slot holds a string, which stays where it is while it is referenced there.
    unsafe {
        let ptr = ffi::lua_tolstring(l, idx, &mut len);
        std::slice::from_raw_parts(ptr as *const u8, len)
    }
}

/// A relative start position (negative: from the end), clipped to 1.. (lstrlib.c's posrelatI).
fn posrelat(pos: i64, len: usize) -> usize {
    if pos > 0 {
        pos as usize
    } else if pos == 0 || pos < -(len as i64) {
        1
    } else {
        (len as i64 + pos + 1) as usize
    }
}

/// Raises `message` as a Lua error with the caller's position, the way `luaL_error` does. The
/// message is copied onto the Lua stack and dropped before the error unwinds.
pub(crate) unsafe fn raise(l: *mut ffi::lua_State, message: String) -> ! {
    let mut buf = [0u8; 240];
    let n = message.len().min(buf.len());
    buf[..n].copy_from_slice(&message.as_bytes()[..n]);
    drop(message);
    // SAFETY: pushes two strings and raises; nothing in this frame needs dropping.
    unsafe {
        ffi::luaL_where(l, 1);
        ffi::lua_pushlstring(l, buf.as_ptr() as *const _, n);
        ffi::lua_concat(l, 2);
        ffi::lua_error(l)
    }
}

/// Raises the error of a failed match: Lua's message, or the watchdog's stop.
unsafe fn raise_fail(l: *mut ffi::lua_State, fail: Fail) -> ! {
    // SAFETY: as `raise`.
    unsafe {
        match fail {
            Fail::Error(message) => raise(l, message),
            Fail::Stopped => {
                ffi::lua_pushstring(l, watchdog::STOPPED.as_ptr());
                ffi::lua_error(l)
            }
        }
    }
}

/// Pushes capture `i` of the match `whole` (lstrlib.c's push_onecapture); a position capture
/// is pushed as an integer.
unsafe fn push_capture(
    l: *mut ffi::lua_State,
    m: &Matcher,
    i: usize,
    whole: Option<(usize, usize)>,
) {
    // SAFETY: pushes one value (the caller checked the stack).
    unsafe {
        if i >= m.level {
            match whole {
                Some((s, e)) if i == 0 => {
                    ffi::lua_pushlstring(l, m.src[s..].as_ptr() as *const _, e - s);
                }
                _ => raise(l, format!("invalid capture index %{}", i + 1)),
            }
            return;
        }
        match m.capture[i] {
            (_, UNFINISHED) => raise(l, "unfinished capture".into()),
            (at, POSITION) => ffi::lua_pushinteger(l, at as i64 + 1),
            (at, len) => {
                ffi::lua_pushlstring(l, m.src[at..].as_ptr() as *const _, len as usize);
            }
        }
    }
}

/// Pushes every capture (or the whole match where the pattern has none and `whole` is given):
/// how many.
unsafe fn push_captures(
    l: *mut ffi::lua_State,
    m: &Matcher,
    whole: Option<(usize, usize)>,
) -> c_int {
    let n = if m.level == 0 && whole.is_some() { 1 } else { m.level };
    // SAFETY: room is made first.
    unsafe {
        ffi::luaL_checkstack(l, n as c_int, c"too many captures".as_ptr());
        for i in 0..n {
            push_capture(l, m, i, whole);
        }
    }
    n as c_int
}

/// `string.find` (`find`) and `string.match`.
unsafe fn find_aux(l: *mut ffi::lua_State, find: bool) -> c_int {
    // SAFETY: a C function's body over its own arguments.
    unsafe {
        let s = check_bytes(l, 1);
        let p = check_bytes(l, 2);
        let init = posrelat(ffi::luaL_optinteger(l, 3, 1), s.len()) - 1;
        if init > s.len() {
            ffi::lua_pushnil(l);
            return 1;
        }
        if find && (ffi::lua_toboolean(l, 4) != 0 || no_specials(p)) {
            if let Some(at) = memchr::memmem::find(&s[init..], p) {
                ffi::lua_pushinteger(l, (init + at) as i64 + 1);
                ffi::lua_pushinteger(l, (init + at + p.len()) as i64);
                return 2;
            }
        } else {
            let anchor = p.first() == Some(&b'^');
            let mut m = Matcher::new(s, if anchor { &p[1..] } else { p });
            let mut s1 = init;
            loop {
                m.reset();
                match m.do_match(s1, 0) {
                    Ok(Some(e)) if find => {
                        ffi::lua_pushinteger(l, s1 as i64 + 1);
                        ffi::lua_pushinteger(l, e as i64);
                        return push_captures(l, &m, None) + 2;
                    }
                    Ok(Some(e)) => return push_captures(l, &m, Some((s1, e))),
                    Ok(None) => {}
                    Err(fail) => raise_fail(l, fail),
                }
                s1 += 1;
                if anchor || s1 > s.len() {
                    break;
                }
            }
        }
        ffi::lua_pushnil(l);
        1
    }
}

pub(crate) unsafe extern "C-unwind" fn find(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua.
    unsafe { find_aux(l, true) }
}

pub(crate) unsafe extern "C-unwind" fn match_(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua.
    unsafe { find_aux(l, false) }
}

/// `string.gmatch`: an iterator closure over the subject (upvalue 1), the pattern (2), where
/// to start next (3) and where the last match ended (4; -1 before the first).
pub(crate) unsafe extern "C-unwind" fn gmatch(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua.
    unsafe {
        let s = check_bytes(l, 1);
        check_bytes(l, 2);
        let init = (posrelat(ffi::luaL_optinteger(l, 3, 1), s.len()) - 1).min(s.len() + 1);
        ffi::lua_settop(l, 2);
        ffi::lua_pushinteger(l, init as i64);
        ffi::lua_pushinteger(l, -1);
        ffi::lua_pushcclosure(l, gmatch_next, 4);
        1
    }
}

unsafe extern "C-unwind" fn gmatch_next(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as the closure `gmatch` made, with its four upvalues.
    unsafe {
        let s = bytes_at(l, ffi::lua_upvalueindex(1));
        let p = bytes_at(l, ffi::lua_upvalueindex(2));
        let mut src =
            ffi::lua_tointegerx(l, ffi::lua_upvalueindex(3), std::ptr::null_mut()) as usize;
        let last = ffi::lua_tointegerx(l, ffi::lua_upvalueindex(4), std::ptr::null_mut());
        let mut m = Matcher::new(s, p);
        while src <= s.len() {
            m.reset();
            match m.do_match(src, 0) {
                Ok(Some(e)) if e as i64 != last => {
                    ffi::lua_pushinteger(l, e as i64);
                    ffi::lua_copy(l, -1, ffi::lua_upvalueindex(3));
                    ffi::lua_replace(l, ffi::lua_upvalueindex(4));
                    return push_captures(l, &m, Some((src, e)));
                }
                Ok(_) => {}
                Err(fail) => raise_fail(l, fail),
            }
            src += 1;
        }
        0
    }
}

/// `string.gsub`.
pub(crate) unsafe extern "C-unwind" fn gsub(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua; the buffer lives in this frame and is used as lauxlib says.
    unsafe {
        let src = check_bytes(l, 1);
        let p = check_bytes(l, 2);
        let tr = ffi::lua_type(l, 3);
        let max = ffi::luaL_optinteger(l, 4, src.len() as i64 + 1);
        if !matches!(tr, ffi::LUA_TNUMBER | ffi::LUA_TSTRING | ffi::LUA_TFUNCTION | ffi::LUA_TTABLE)
        {
            luaL_typeerror(l, 3, c"string/function/table".as_ptr());
        }
        let mut b: ffi::luaL_Buffer = std::mem::zeroed();
        ffi::luaL_buffinit(l, &mut b);
        let anchor = p.first() == Some(&b'^');
        let mut m = Matcher::new(src, if anchor { &p[1..] } else { p });
        let (mut s, mut last, mut n, mut changed) = (0usize, None, 0i64, false);
        while n < max {
            m.reset();
            let e = match m.do_match(s, 0) {
                Ok(e) => e,
                Err(fail) => raise_fail(l, fail),
            };
            match e {
                Some(e) if Some(e) != last => {
                    n += 1;
                    changed |= add_value(l, &m, &mut b, s, e, tr);
                    (s, last) = (e, Some(e));
                }
                _ if s < src.len() => {
                    ffi::luaL_addchar(&mut b, src[s] as _);
                    s += 1;
                }
                _ => break,
            }
            if anchor {
                break;
            }
        }
        if changed {
            ffi::luaL_addlstring(&mut b, src[s..].as_ptr() as *const _, src.len() - s);
            ffi::luaL_pushresult(&mut b);
        } else {
            ffi::lua_pushvalue(l, 1);
        }
        ffi::lua_pushinteger(l, n);
        2
    }
}

/// Adds the replacement of the match `s..e` to `b` (lstrlib.c's add_value): whether the
/// subject changed.
unsafe fn add_value(
    l: *mut ffi::lua_State,
    m: &Matcher,
    b: &mut ffi::luaL_Buffer,
    s: usize,
    e: usize,
    tr: c_int,
) -> bool {
    // SAFETY: as lstrlib.c: values are pushed above the buffer and added to it.
    unsafe {
        match tr {
            ffi::LUA_TFUNCTION => {
                ffi::lua_pushvalue(l, 3);
                let n = push_captures(l, m, Some((s, e)));
                ffi::lua_call(l, n, 1);
            }
            ffi::LUA_TTABLE => {
                ffi::luaL_checkstack(l, 2, c"too many captures".as_ptr());
                push_capture(l, m, 0, Some((s, e)));
                ffi::lua_gettable(l, 3);
            }
            _ => {
                add_s(l, m, b, s, e);
                return true;
            }
        }
        if ffi::lua_toboolean(l, -1) == 0 {
            ffi::lua_settop(l, -2);
            ffi::luaL_addlstring(b, m.src[s..].as_ptr() as *const _, e - s);
            false
        } else if ffi::lua_isstring(l, -1) == 0 {
            raise(
                l,
                format!(
                    "invalid replacement value (a {})",
                    super::library::type_name(ffi::lua_type(l, -1))
                ),
            )
        } else {
            ffi::luaL_addvalue(b);
            true
        }
    }
}

/// Adds the replacement string (argument 3) with its `%0`-`%9` and `%%` expanded.
unsafe fn add_s(l: *mut ffi::lua_State, m: &Matcher, b: &mut ffi::luaL_Buffer, s: usize, e: usize) {
    // SAFETY: the replacement (a string or a number, converted in place) stays at index 3.
    unsafe {
        let news = bytes_at(l, 3);
        let mut i = 0;
        while let Some(at) = memchr::memchr(b'%', &news[i..]) {
            ffi::luaL_addlstring(b, news[i..].as_ptr() as *const _, at);
            let j = i + at + 1;
            match news.get(j).copied().unwrap_or(0) {
                b'%' => ffi::luaL_addchar(b, b'%' as _),
                b'0' => ffi::luaL_addlstring(b, m.src[s..].as_ptr() as *const _, e - s),
                c @ b'1'..=b'9' => {
                    ffi::luaL_checkstack(l, 2, c"too many captures".as_ptr());
                    push_capture(l, m, (c - b'1') as usize, Some((s, e)));
                    ffi::luaL_addvalue(b);
                }
                _ => raise(l, "invalid use of '%' in replacement string".into()),
            }
            i = j + 1;
        }
        ffi::luaL_addlstring(b, news[i..].as_ptr() as *const _, news.len() - i);
    }
}

/// `string.rep(s, n [, sep])`: as Lua's, but the copies double (Lua's copies one unit at a
/// time: 200 MB of `("x"):rep(n)` took 1.8 s, and `(""):rep(1 << 62)` ran for ever), asking
/// the watchdog between them.
pub(crate) unsafe extern "C-unwind" fn rep(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua; the result is written into a luaL_Buffer of its exact size.
    unsafe {
        let s = check_bytes(l, 1);
        let n = ffi::luaL_checkinteger(l, 2);
        let mut len = 0;
        let sep = ffi::luaL_optlstring(l, 3, c"".as_ptr(), &mut len);
        let sep = std::slice::from_raw_parts(sep as *const u8, len);
        if n <= 0 {
            ffi::lua_pushstring(l, c"".as_ptr());
            return 1;
        }
        let n = n as u64;
        let unit = (s.len() + sep.len()) as u64;
        if unit > i32::MAX as u64 / n {
            raise(l, "resulting string too large".into());
        }
        let total = (n * unit - sep.len() as u64) as usize;
        let mut b: ffi::luaL_Buffer = std::mem::zeroed();
        let out = std::slice::from_raw_parts_mut(
            ffi::luaL_buffinitsize(l, &mut b, total) as *mut u8,
            total,
        );
        // The result is a prefix of (s sep)^n: the first unit, then copies of what is written
        // (at a multiple of the unit, so the pattern goes on).
        let mut filled = s.len().min(total);
        out[..filled].copy_from_slice(&s[..filled]);
        if filled < total {
            out[filled..filled + sep.len()].copy_from_slice(sep);
            filled += sep.len();
        }
        while filled < total {
            let k = filled.min(total - filled);
            out.copy_within(0..k, filled);
            filled += k;
            if watchdog::poll() {
                ffi::lua_pushstring(l, watchdog::STOPPED.as_ptr());
                ffi::lua_error(l);
            }
        }
        ffi::luaL_pushresultsize(&mut b, total);
        1
    }
}

const _: () = assert!(MAX_CAPTURES < c_int::MAX as usize);
