//! Reading a Lua list in place, the fast way to read a position's options whole.
//!
//! Reading a list by index (`lua_rawgeti`) sees keys 1 to `#list` only: a key past it (`0`,
//! `"n"`, a slot after a hole) would be dropped unseen. `lua_next` over every key sees them all,
//! at the price of a call into Lua for every entry (docs/scripts.md gives what it costs). Lua 5.4
//! keeps a list appended to in order in its table's array part, with no hash part at all; such a
//! table's keys are exactly its array slots that hold a value, so reading its array (the `TValue`s
//! in memory) from 1 to `#list`, and finding the slots after `#list` empty, reads it whole, with no
//! call into Lua per entry.
//!
//! That reads `struct Table` and `TValue` as lobject.h lays them out. The layout is checked
//! once per process on tables of known contents ([`check`]); where it does not read as
//! expected, [`slots`] always says no and every list is read by `lua_next`, which is exact too.

use mlua::ffi;
use std::mem::offset_of;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// 0: not checked yet; 1: the layout reads as expected; 2: it does not.
static LAYOUT: AtomicU8 = AtomicU8::new(0);

/// `struct Table` as lobject.h lays it out, up to `lastfree`: the common header (`next`, `tt`,
/// `marked`), `flags` (bit 7 set when `alimit` is not the array's size), `lsizenode` (log2 of
/// the hash part's nodes), `alimit`, the `array` and `node` parts, `lastfree` (null exactly
/// when the hash part is empty).
#[repr(C)]
struct Table {
    next: *const u8,
    tt: u8,
    marked: u8,
    flags: u8,
    lsizenode: u8,
    alimit: u32,
    array: *const u8,
    node: *const u8,
    lastfree: *const u8,
}

/// A hash node: its value (a `TValue`), its key's tag, a link, its key's value.
const NODE_SIZE: usize = 24;
/// A `TValue`: its value (8 bytes), then its type tag.
const TVALUE: usize = 16;
const TAG: usize = 8;

/// Type tags (lobject.h's variants).
pub(crate) const INTEGER: u8 = ffi::LUA_TNUMBER as u8;
pub(crate) const FLOAT: u8 = ffi::LUA_TNUMBER as u8 | 1 << 4;
pub(crate) const LIGHT: u8 = ffi::LUA_TLIGHTUSERDATA as u8;

/// The array part of a table whose keys are exactly 1 to its `#`.
pub(crate) struct Slots {
    array: *const u8,
}

impl Slots {
    /// Slot `i` (0-based): its type tag and its value's 8 bytes.
    ///
    /// # Safety
    /// `i` is below the `#` the slots were taken for, and the table has not changed since
    /// (nothing allocated in its interpreter, no Lua code run).
    pub(crate) unsafe fn get(&self, i: usize) -> (u8, u64) {
        // SAFETY: per this function's contract, the slot is in the array.
        unsafe {
            let tv = self.array.add(i * TVALUE);
            (*tv.add(TAG), std::ptr::read(tv as *const u64))
        }
    }
}

/// The table at `idx`'s fields: (flags, alimit, array, hash part empty).
unsafe fn fields(l: *mut ffi::lua_State, idx: i32) -> (u8, u32, *const u8, bool) {
    // SAFETY: a table's lua_topointer is its `struct Table`, alive while it is on the stack;
    // each field is read at its alignment.
    unsafe {
        let t = &*(ffi::lua_topointer(l, idx) as *const Table);
        (t.flags, t.alimit, t.array, t.lastfree.is_null())
    }
}

/// The size of the array part (ltable.c's luaH_realasize).
fn real_size(flags: u8, alimit: u32) -> u64 {
    if flags & 0x80 == 0 || alimit.is_power_of_two() || alimit == 0 {
        alimit as u64
    } else {
        alimit.next_power_of_two() as u64
    }
}

/// The slots of the table at `idx`, whose `#` is `n`, where its keys are exactly 1 to `n`
/// (checked but for the slots 1 to `n` themselves, which the caller finds filled); `None`
/// where that cannot be told this way.
///
/// # Safety
/// A table at `idx`.
pub(crate) unsafe fn slots(l: *mut ffi::lua_State, idx: i32, n: u64) -> Option<Slots> {
    if LAYOUT.load(Relaxed) != 1 {
        return None;
    }
    // SAFETY: reads the table's fields and its array part's slots past `n`.
    unsafe {
        let (flags, alimit, array, no_hash) = fields(l, idx);
        let size = real_size(flags, alimit);
        if !no_hash || n > size {
            return None;
        }
        let slots = Slots { array };
        (n as usize..size as usize)
            .all(|i| slots.get(i).0 & 0x0F == ffi::LUA_TNIL as u8)
            .then_some(slots)
    }
}

/// A table's bytes: its sizes and where its parts are, then both parts. Equal bytes mean the
/// same keys holding the same values (the collector moves nothing and leaves a table's nodes
/// alone while none of its values is nil).
pub(crate) struct Snapshot(Vec<u8>);

/// The parts of the table at `idx`, as byte slices: its fields, its array part, its nodes.
unsafe fn parts<'a>(l: *mut ffi::lua_State, idx: i32) -> [&'a [u8]; 3] {
    // SAFETY: the table's header, and the array and node arrays its fields point to, with the
    // sizes they give.
    unsafe {
        let t = ffi::lua_topointer(l, idx) as *const Table;
        let (flags, alimit, array, _) = fields(l, idx);
        let (node, nodes) = ((*t).node, 1usize << (*t).lsizenode);
        let (from, to) = (offset_of!(Table, flags), offset_of!(Table, lastfree));
        [
            std::slice::from_raw_parts((t as *const u8).add(from), to - from),
            std::slice::from_raw_parts(array, real_size(flags, alimit) as usize * TVALUE),
            std::slice::from_raw_parts(node, nodes * NODE_SIZE),
        ]
    }
}

/// The snapshot of the table at `idx`, where the layout is known.
///
/// # Safety
/// A table at `idx`.
pub(crate) unsafe fn snapshot(l: *mut ffi::lua_State, idx: i32) -> Option<Snapshot> {
    // SAFETY: per this function's contract.
    (LAYOUT.load(Relaxed) == 1).then(|| Snapshot(unsafe { parts(l, idx) }.concat()))
}

/// Whether the table at `idx` still has the bytes of `snapshot`.
///
/// # Safety
/// A table at `idx`, the one the snapshot was taken of.
pub(crate) unsafe fn unchanged(l: *mut ffi::lua_State, idx: i32, snapshot: &Snapshot) -> bool {
    let mut rest = snapshot.0.as_slice();
    // SAFETY: per this function's contract; the fields are compared first, so the parts are
    // read with the sizes they had.
    for part in unsafe { parts(l, idx) } {
        match rest.split_at_checked(part.len()) {
            Some((head, tail)) if head == part => rest = tail,
            _ => return false,
        }
    }
    rest.is_empty()
}

/// Checks, once per process, that tables of known contents read as this module expects.
///
/// # Safety
/// Called in a protected call (the tables made may raise "not enough memory").
pub(crate) unsafe fn check(l: *mut ffi::lua_State) {
    if LAYOUT.load(Relaxed) != 0 {
        return;
    }
    // SAFETY: two tables pushed, written raw and popped.
    unsafe {
        ffi::lua_createtable(l, 4, 0);
        ffi::lua_pushinteger(l, -42);
        ffi::lua_rawseti(l, -2, 1);
        ffi::lua_pushnumber(l, 1.5);
        ffi::lua_rawseti(l, -2, 2);
        ffi::lua_pushlightuserdata(l, 0x5347_0000 as *mut _);
        ffi::lua_rawseti(l, -2, 3);
        let (flags, alimit, array, no_hash) = fields(l, -1);
        let s = Slots { array };
        let array_ok = flags & 0x80 == 0
            && alimit == 4
            && no_hash
            && s.get(0) == (INTEGER, -42i64 as u64)
            && s.get(1) == (FLOAT, 1.5f64.to_bits())
            && s.get(2) == (LIGHT, 0x5347_0000)
            && s.get(3).0 & 0x0F == 0;
        ffi::lua_createtable(l, 0, 3);
        ffi::lua_pushinteger(l, 77);
        ffi::lua_setfield(l, -2, c"x".as_ptr());
        let t = &*(ffi::lua_topointer(l, -1) as *const Table);
        let values: Vec<(u8, u64)> = (0..1usize << t.lsizenode)
            .map(|i| Slots { array: t.node.add(i * NODE_SIZE) }.get(0))
            .collect();
        let hash_ok = !fields(l, -1).3
            && values.len() == 4
            && values.iter().filter(|v| **v == (INTEGER, 77)).count() == 1
            && values.iter().filter(|v| v.0 & 0x0F == 0).count() == 3;
        ffi::lua_settop(l, -3);
        LAYOUT.store(if array_ok && hash_ok { 1 } else { 2 }, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_reads_as_expected_and_finds_keys_past_the_length() {
        let lua = mlua::Lua::new();
        // SAFETY: exec_raw runs the block protected, with room for a few values.
        unsafe {
            lua.exec_raw::<()>((), |l| check(l)).unwrap();
            assert_eq!(
                LAYOUT.load(Relaxed),
                1,
                "Lua's struct Table no longer reads as sgtab expects"
            );
            let read = |code: &str| -> Option<u64> {
                let t: mlua::Table = lua.load(code).eval().unwrap();
                lua.exec_raw::<Option<u64>>(&t, |l| {
                    let n = ffi::lua_rawlen(l, -1) as u64;
                    let got = slots(l, -1, n).map(|_| n);
                    ffi::lua_settop(l, 0);
                    match got {
                        Some(n) => ffi::lua_pushinteger(l, n as i64),
                        None => ffi::lua_pushnil(l),
                    }
                })
                .unwrap()
            };
            assert_eq!(read("local t = {} for i = 1, 5 do t[#t + 1] = i end return t"), Some(5));
            assert_eq!(read("return {1, 2, 3}"), Some(3));
            assert_eq!(read("return {}"), Some(0));
            // A key past the length, in the array part or the hash part: not this way.
            assert_eq!(read("return {1, nil, nil, nil, nil, nil, 7, nil, nil}"), None);
            assert_eq!(read("local t = {1, 2} t[0] = 5 return t"), None);
            assert_eq!(read("local t = {1, 2} t.n = 2 return t"), None);
            assert_eq!(read("return {[1] = 1, [2] = 2}"), None);
        }
    }
}
