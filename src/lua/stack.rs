//! Reading the values of the running C function's stack frame in place: the results `moves`
//! returns (several a position, when options are values) and the arguments of `sum`.
//!
//! Lua's API reads one value a call (`lua_isinteger`, then `lua_tointegerx`): two calls into
//! Lua for each option, which a script that returns three options a position spends more on
//! than on reading them. A frame's values lie in memory side by side (`StackValue`s, from the
//! slot of the frame's function), so each is read as a type tag and 8 bytes, as
//! [`super::table`] reads a list's slots.
//!
//! That reads `struct lua_State`, `CallInfo` and `StackValue` as lstate.h and lobject.h lay them
//! out. The layout is checked once per process on values of known types ([`check`]); where it
//! does not read as expected, [`frame`] always says no and the values are read through the API.

use super::table::{FLOAT, INTEGER, LIGHT};
use mlua::ffi;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// 0: not checked yet; 1: the layout reads as expected; 2: it does not.
static LAYOUT: AtomicU8 = AtomicU8::new(0);

/// Offset of `ci` (the running function's `CallInfo`) in `struct lua_State`.
const CI: usize = 32;
/// A `StackValue`: a `TValue` (its value's 8 bytes, then its type tag), padded.
const SLOT: usize = 16;
const TAG: usize = 8;

/// The running C function's frame: its values from index 1.
pub(crate) struct Frame {
    /// The slot of the frame's function (index 0).
    func: *const u8,
}

impl Frame {
    /// Value `idx` (1-based, as the API counts): its type tag and its value's 8 bytes.
    ///
    /// # Safety
    /// `idx` is at most the frame's `lua_gettop`, and nothing was pushed or called since the
    /// frame was taken (a push may move the stack).
    #[inline(always)]
    pub(crate) unsafe fn get(&self, idx: i32) -> (u8, u64) {
        // SAFETY: per this function's contract, the slot is in the frame.
        unsafe {
            let slot = self.func.add(idx as usize * SLOT);
            (*slot.add(TAG), std::ptr::read(slot as *const u64))
        }
    }
}

/// The frame of the C function running on `l`, where the layout is known.
///
/// # Safety
/// `l` is running a C function (a `lua_CFunction`, or the block of an `exec_raw`).
#[inline(always)]
pub(crate) unsafe fn frame(l: *mut ffi::lua_State) -> Option<Frame> {
    // SAFETY: per this function's contract.
    (LAYOUT.load(Relaxed) == 1).then(|| unsafe { read_frame(l) })
}

/// The frame of the C function running on `l`, read as lstate.h lays it out.
#[inline(always)]
unsafe fn read_frame(l: *mut ffi::lua_State) -> Frame {
    // SAFETY: `ci` is the running function's CallInfo, whose first field is its function's
    // stack slot.
    unsafe {
        let ci = std::ptr::read((l as *const u8).add(CI) as *const *const u8);
        Frame { func: std::ptr::read(ci as *const *const u8) }
    }
}

/// Checks, once per process, that values of known types read as this module expects.
///
/// # Safety
/// Called in a protected call of a C function (`exec_raw`), with room for three values.
pub(crate) unsafe fn check(l: *mut ffi::lua_State) {
    if LAYOUT.load(Relaxed) != 0 {
        return;
    }
    // SAFETY: three values pushed, read and popped.
    unsafe {
        // Only for the Lua whose layout this is (build.rs compiles Lua 5.4).
        if ffi::lua_version(l) != 504.0 {
            LAYOUT.store(2, Relaxed);
            return;
        }
        let base = ffi::lua_gettop(l);
        ffi::lua_pushinteger(l, -42);
        ffi::lua_pushnumber(l, 1.5);
        ffi::lua_pushlightuserdata(l, 0x5347_0000 as *mut _);
        let f = read_frame(l);
        let ok = f.get(base + 1) == (INTEGER, -42i64 as u64)
            && f.get(base + 2) == (FLOAT, 1.5f64.to_bits())
            && f.get(base + 3) == (LIGHT, 0x5347_0000);
        ffi::lua_settop(l, base);
        LAYOUT.store(if ok { 1 } else { 2 }, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_reads_as_expected() {
        let lua = mlua::Lua::new();
        // SAFETY: exec_raw runs the block protected, with room for a few values.
        unsafe {
            lua.exec_raw::<()>((), |l| check(l)).unwrap();
            assert_eq!(LAYOUT.load(Relaxed), 1, "Lua's stack no longer reads as sgtab expects");
            let got = lua
                .exec_raw::<bool>((7i64, 2.5f64), |l| {
                    let f = frame(l).unwrap();
                    let ok = ffi::lua_gettop(l) == 2
                        && f.get(1) == (INTEGER, 7)
                        && f.get(2) == (FLOAT, 2.5f64.to_bits());
                    ffi::lua_settop(l, 0);
                    ffi::lua_pushboolean(l, ok as i32);
                })
                .unwrap();
            assert!(got);
        }
    }
}
