//! `table.sort` as sgtab gives it to a script: deterministic, and bounded in time.
//!
//! Lua's own sort is a quicksort that picks a random pivot (from the clock) when a partition
//! comes out unbalanced: the order it leaves elements that compare equal in changed from run to
//! run, and without a comparator it is C code that no hook stops, quadratic on inputs built to
//! defeat its pivot. Here:
//!
//! - a plain table (no metatable) of numbers only, or of strings only, sorted by `<` (no
//!   comparator): its values are copied out, merge-sorted in Rust (stable, n log n, the
//!   watchdog asked every 65,536 elements merged) and written back; strings are held meanwhile
//!   in a table of the interpreter's, so that its memory bound counts them;
//! - anything else (a comparator, metamethods, mixed types): a heapsort through Lua's API, in
//!   place, asking the watchdog every 1,024 comparisons (a comparator, Lua code, is stopped by
//!   the hook anyway). Mixed types raise Lua's own "attempt to compare" error.

use super::watchdog;
use mlua::ffi;
use std::ffi::c_int;

/// `table.sort(t [, comp])`.
pub(crate) unsafe extern "C-unwind" fn sort(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua; reads and writes go through Lua's API as its own sort's do.
    unsafe {
        let plain = ffi::lua_type(l, 1) == ffi::LUA_TTABLE && ffi::lua_getmetatable(l, 1) == 0;
        if ffi::lua_type(l, 1) != ffi::LUA_TTABLE {
            if ffi::lua_getmetatable(l, 1) == 0 {
                ffi::luaL_checktype(l, 1, ffi::LUA_TTABLE);
            }
            ffi::lua_settop(l, -2);
        } else if !plain {
            ffi::lua_settop(l, -2);
        }
        let n = ffi::luaL_len(l, 1);
        if n > 1 {
            if n >= c_int::MAX as i64 {
                ffi::luaL_argerror(l, 1, c"array too big".as_ptr());
            }
            if ffi::lua_isnoneornil(l, 2) == 0 {
                ffi::luaL_checktype(l, 2, ffi::LUA_TFUNCTION);
            }
            ffi::lua_settop(l, 2);
            let done = plain
                && ffi::lua_type(l, 2) == ffi::LUA_TNIL
                && match first_type(l) {
                    ffi::LUA_TNUMBER => numbers(l, n),
                    ffi::LUA_TSTRING => strings(l, n),
                    _ => false,
                };
            if !done {
                heapsort(l, n);
            }
        }
        0
    }
}

/// Raises the error of a stopped call.
unsafe fn stopped(l: *mut ffi::lua_State) -> ! {
    // SAFETY: nothing in the caller's frames needs dropping when this is called.
    unsafe {
        ffi::lua_pushstring(l, watchdog::STOPPED.as_ptr());
        ffi::lua_error(l)
    }
}

unsafe fn first_type(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: a raw read of t[1].
    unsafe {
        let t = ffi::lua_rawgeti(l, 1, 1);
        ffi::lua_settop(l, 2);
        t
    }
}

/// A Lua number, compared as Lua's `<` compares them.
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

/// Lua's `<` on numbers (lvm.c's LTnum): exact between integers and floats.
fn num_less(a: &Num, b: &Num) -> bool {
    // Integers that convert to floats exactly (lvm.c's l_intfitsf).
    let fits = |i: i64| (-(1i64 << 53)..=1 << 53).contains(&i);
    // A float's integer below or above, where it is within the integers' range.
    let int = |f: f64| {
        (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f).then_some(f as i64)
    };
    match (*a, *b) {
        (Num::Int(x), Num::Int(y)) => x < y,
        (Num::Float(x), Num::Float(y)) => x < y,
        (Num::Int(i), Num::Float(f)) if fits(i) => (i as f64) < f,
        (Num::Int(i), Num::Float(f)) => int(f.ceil()).map_or(f > 0.0, |c| i < c),
        (Num::Float(f), Num::Int(i)) if fits(i) => f < i as f64,
        (Num::Float(f), Num::Int(i)) => int(f.floor()).map_or(f < 0.0, |c| c < i),
    }
}

/// The fast path for numbers: false (nothing changed) where a value is not a number or the
/// copy does not fit.
unsafe fn numbers(l: *mut ffi::lua_State, n: i64) -> bool {
    let mut keys: Vec<Num> = Vec::new();
    if keys.try_reserve_exact(n as usize).is_err() {
        return false;
    }
    // SAFETY: raw reads of t[1..=n] and raw writes to keys that hold values (no allocation,
    // no error): nothing unwinds while `keys` lives, except through `stopped` after it is
    // dropped.
    unsafe {
        for i in 1..=n {
            let t = ffi::lua_rawgeti(l, 1, i);
            let v = if t != ffi::LUA_TNUMBER {
                None
            } else if ffi::lua_isinteger(l, -1) != 0 {
                Some(Num::Int(ffi::lua_tointegerx(l, -1, std::ptr::null_mut())))
            } else {
                Some(Num::Float(ffi::lua_tonumberx(l, -1, std::ptr::null_mut())))
            };
            ffi::lua_settop(l, 2);
            match v {
                Some(v) => keys.push(v),
                None => return false,
            }
        }
        match merge_sort(&mut keys, num_less) {
            Ok(true) => {}
            Ok(false) => return false,
            Err(Stopped) => {
                drop(keys);
                stopped(l)
            }
        }
        for (i, k) in keys.iter().enumerate() {
            match *k {
                Num::Int(v) => ffi::lua_pushinteger(l, v),
                Num::Float(v) => ffi::lua_pushnumber(l, v),
            }
            ffi::lua_rawseti(l, 1, i as i64 + 1);
        }
    }
    true
}

/// The fast path for strings (held in a table of the interpreter's while they are sorted).
unsafe fn strings(l: *mut ffi::lua_State, n: i64) -> bool {
    // SAFETY: the copy's table is made before any Rust value exists (it may raise "not enough
    // memory"); after that, only raw reads and writes of keys that hold values.
    unsafe {
        ffi::lua_createtable(l, n as c_int, 0);
        for i in 1..=n {
            if ffi::lua_rawgeti(l, 1, i) != ffi::LUA_TSTRING {
                ffi::lua_settop(l, 2);
                return false;
            }
            ffi::lua_rawseti(l, 3, i);
        }
        let mut keys: Vec<(&[u8], u32)> = Vec::new();
        if keys.try_reserve_exact(n as usize).is_err() {
            ffi::lua_settop(l, 2);
            return false;
        }
        for i in 1..=n {
            ffi::lua_rawgeti(l, 3, i);
            let mut len = 0;
            let ptr = ffi::lua_tolstring(l, -1, &mut len);
            ffi::lua_settop(l, 3);
            // The string stays in the copy's table, where it does not move, until the end.
            keys.push((std::slice::from_raw_parts(ptr as *const u8, len), i as u32));
        }
        match merge_sort(&mut keys, |a, b| a.0 < b.0) {
            Ok(true) => {}
            Ok(false) => {
                ffi::lua_settop(l, 2);
                return false;
            }
            Err(Stopped) => {
                drop(keys);
                stopped(l)
            }
        }
        for (i, &(_, from)) in keys.iter().enumerate() {
            ffi::lua_rawgeti(l, 3, from as i64);
            ffi::lua_rawseti(l, 1, i as i64 + 1);
        }
        drop(keys);
        ffi::lua_settop(l, 2);
    }
    true
}

/// The watchdog stopped the call.
struct Stopped;

/// A stable bottom-up merge sort by `less`: runs of 32 by insertion, then merges, asking the
/// watchdog every 65,536 elements. `Ok(false)` where its buffer does not fit (nothing lost:
/// `v` holds the same elements).
fn merge_sort<T: Copy>(v: &mut Vec<T>, less: impl Fn(&T, &T) -> bool) -> Result<bool, Stopped> {
    const RUN: usize = 32;
    let n = v.len();
    for run in v.chunks_mut(RUN) {
        for i in 1..run.len() {
            let mut j = i;
            while j > 0 && less(&run[j], &run[j - 1]) {
                run.swap(j, j - 1);
                j -= 1;
            }
        }
    }
    let mut buf: Vec<T> = Vec::new();
    if buf.try_reserve_exact(n).is_err() {
        return Ok(false);
    }
    let mut done = 0usize;
    let mut width = RUN;
    while width < n {
        buf.clear();
        for lo in (0..n).step_by(2 * width) {
            let (mid, hi) = ((lo + width).min(n), (lo + 2 * width).min(n));
            let (mut i, mut j) = (lo, mid);
            while i < mid && j < hi {
                // Stable: the left run's element first unless the right one is smaller.
                if less(&v[j], &v[i]) {
                    buf.push(v[j]);
                    j += 1;
                } else {
                    buf.push(v[i]);
                    i += 1;
                }
            }
            buf.extend_from_slice(&v[i..mid]);
            buf.extend_from_slice(&v[j..hi]);
            done += hi - lo;
            if done >= 1 << 16 {
                done = 0;
                if watchdog::poll() {
                    return Err(Stopped);
                }
            }
        }
        std::mem::swap(v, &mut buf);
        width *= 2;
    }
    Ok(true)
}

/// Asks the watchdog every 1,024 comparisons whether the call was stopped.
unsafe fn tick(l: *mut ffi::lua_State, count: &mut u32) {
    *count = count.wrapping_add(1);
    if count.is_multiple_of(1024) && watchdog::poll() {
        // SAFETY: raises the stop; nothing here needs dropping.
        unsafe { stopped(l) }
    }
}

/// Whether the value at `a` sorts before the one at `b`: the comparator (index 2) or `<`.
unsafe fn less(l: *mut ffi::lua_State, a: c_int, b: c_int, count: &mut u32) -> bool {
    // SAFETY: a and b are stack slots; the comparator's call may raise, as in Lua's sort.
    unsafe {
        tick(l, count);
        if ffi::lua_type(l, 2) == ffi::LUA_TNIL {
            return ffi::lua_compare(l, a, b, ffi::LUA_OPLT) != 0;
        }
        ffi::lua_pushvalue(l, 2);
        ffi::lua_pushvalue(l, a);
        ffi::lua_pushvalue(l, b);
        ffi::lua_call(l, 2, 1);
        let r = ffi::lua_toboolean(l, -1) != 0;
        ffi::lua_settop(l, -2);
        r
    }
}

/// Sinks `t[root]` into the heap `t[1..=end]`.
unsafe fn sift(l: *mut ffi::lua_State, mut root: i64, end: i64, count: &mut u32) {
    // SAFETY: three slots above the top at most (LUA_MINSTACK are free).
    unsafe {
        ffi::lua_geti(l, 1, root);
        let v = ffi::lua_gettop(l);
        loop {
            let mut child = 2 * root;
            if child > end {
                break;
            }
            ffi::lua_geti(l, 1, child);
            if child < end {
                ffi::lua_geti(l, 1, child + 1);
                if less(l, v + 1, v + 2, count) {
                    ffi::lua_replace(l, v + 1);
                    child += 1;
                } else {
                    ffi::lua_settop(l, v + 1);
                }
            }
            if !less(l, v, v + 1, count) {
                ffi::lua_settop(l, v);
                break;
            }
            ffi::lua_seti(l, 1, root);
            root = child;
        }
        ffi::lua_seti(l, 1, root);
    }
}

/// Heapsort of `t[1..=n]` in place through `lua_geti`/`lua_seti`.
unsafe fn heapsort(l: *mut ffi::lua_State, n: i64) {
    // SAFETY: the table at 1, the comparator (or nil) at 2.
    unsafe {
        let mut count = 0;
        for start in (1..=n / 2).rev() {
            sift(l, start, n, &mut count);
        }
        for end in (2..=n).rev() {
            ffi::lua_geti(l, 1, 1);
            ffi::lua_geti(l, 1, end);
            ffi::lua_seti(l, 1, 1);
            ffi::lua_seti(l, 1, end);
            sift(l, 1, end - 1, &mut count);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sort_is_stable_and_numbers_compare_as_lua_does() {
        let mut v: Vec<(u32, u32)> = (0..1000).map(|i| ((i * 7919) % 13, i)).collect();
        assert!(matches!(merge_sort(&mut v, |a, b| a.0 < b.0), Ok(true)));
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)));
        let big = (1i64 << 53) + 1;
        assert!(
            num_less(&Num::Float(big as f64), &Num::Int(big)),
            "2^53 as a float is below 2^53 + 1"
        );
        assert!(!num_less(&Num::Int(big), &Num::Float(big as f64)));
        assert!(
            num_less(&Num::Int(i64::MAX), &Num::Float(f64::INFINITY))
                && !num_less(&Num::Int(1), &Num::Float(f64::NAN))
        );
        assert!(
            num_less(&Num::Int(-3), &Num::Float(-2.5))
                && num_less(&Num::Float(-2.5), &Num::Int(-2))
        );
    }
}
