//! What `moves` returned, read in place: the values from the stack frame (`super::stack`), a
//! list from its table (`super::table`), with no conversion through Rust values. A list of
//! options is read whole: every key must be an integer from 1 to `#list`, none missing, or the
//! build stops naming the position and the key (a list with a hole would otherwise be cut short
//! at whatever border `#` finds). The same holds for a position given as a list of
//! coordinates, and for the parts of a sum.

use super::library::pair_parts;
use super::worker::{Entry, describe, each_entry, keys};
use super::{stack, table};
use crate::games::{Dims, MAX_AXES};
use mlua::ffi;
/// The error where `moves` returns no value: a forgotten `return` would otherwise read as a
/// position with no moves.
const NOTHING: &str = "moves returned nothing: return its options, as values (`return n - 1, n - \
    3`) or as a list (`return {n - 1, n - 3}`); `return {}` for a position with none";

/// Reads what `moves` returned (indices 3 to the top; the sums' metatable is index 2), calling
/// `f` with each option's positions: one list of options, or the options as values. A single
/// table that is not a sum is a list, except a table whose first entry is a number in a game
/// of two or more axes, which is one position (in one axis the two readings agree: `{5}` is
/// position 5 either way). Leaves the stack at index 2.
pub(super) unsafe fn read_results(
    l: *mut ffi::lua_State,
    dims: &Dims,
    parts: &mut Vec<u64>,
    p: u64,
    f: &mut dyn FnMut(u64, &[u64]),
) -> Result<(), String> {
    // SAFETY: the caller's contract, which the reader's reads rely on.
    unsafe { Reader { l, dims, parts }.results(p, f) }
}

/// Reads the values `moves` left on the Lua stack `l` as positions of a game shaped `dims`,
/// each option's positions into `parts` in turn.
struct Reader<'a> {
    l: *mut ffi::lua_State,
    dims: &'a Dims,
    parts: &'a mut Vec<u64>,
}

impl Reader<'_> {
    /// [`read_results`].
    unsafe fn results(&mut self, p: u64, f: &mut dyn FnMut(u64, &[u64])) -> Result<(), String> {
        let (l, dims) = (self.l, self.dims);
        // SAFETY: reads of the values on the stack, and of a list (read_list's contract).
        unsafe {
            let count = ffi::lua_gettop(l) - 2;
            if count == 1 && ffi::lua_type(l, 3) == ffi::LUA_TTABLE && self.is_list(3) {
                return self.read_list(p, f);
            }
            if let (&[len], Some(frame)) = (dims.sizes(), stack::frame(l)) {
                // 1-D, read in place: positions and sums of two in the shape are handed on here,
                // the first other value and those after it as `read_values` reads them.
                for i in 1..=count {
                    match frame.get(2 + i) {
                        (table::INTEGER, v) if v < len => f(p, &[v]),
                        (table::LIGHT, bits) => match pair_parts(bits as *mut _) {
                            Some((a, b)) if a < len && b < len => f(p, &[a, b]),
                            _ => return self.read_values(p, f, i),
                        },
                        _ => return self.read_values(p, f, i),
                    }
                }
                if count > 0 {
                    return Ok(());
                }
            }
            self.read_values(p, f, 1)
        }
    }

    /// Reads the values `moves` returned (indices 3 to the top) as options, from value `from` on.
    #[inline(never)]
    unsafe fn read_values(
        &mut self,
        p: u64,
        f: &mut dyn FnMut(u64, &[u64]),
        from: i32,
    ) -> Result<(), String> {
        let l = self.l;
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
                    "moves returned {}, not its options (positions and sums as values, or a list \
                        of them)",
                    describe(l, 3)
                ));
            }
            if ffi::lua_checkstack(l, 8) == 0 {
                return Err("no room on the Lua stack".into());
            }
            for i in from..=count {
                let idx = 2 + i;
                self.parts.clear();
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
                let read = self.option(entry, i as i64);
                if pushed {
                    ffi::lua_settop(l, top);
                }
                read?;
                f(p, self.parts);
            }
            Ok(())
        }
    }

    /// Whether the single table `moves` returned, at `idx`, is a list of options (see
    /// [`read_results`]).
    unsafe fn is_list(&self, idx: i32) -> bool {
        let l = self.l;
        // SAFETY: a raw read of the table's first entry, pushed and popped (read_results' caller
        // left room for it).
        unsafe {
            if is_sum(l, idx) {
                return false;
            }
            if self.dims.axes() == 1 {
                return true;
            }
            let first = ffi::lua_rawgeti(l, idx, 1);
            ffi::lua_settop(l, -2);
            first != ffi::LUA_TNUMBER
        }
    }

    /// Reads the list of options at index 3, calling `f` with each option's positions. Leaves the
    /// stack as it found it.
    unsafe fn read_list(&mut self, p: u64, f: &mut dyn FnMut(u64, &[u64])) -> Result<(), String> {
        let (l, dims) = (self.l, self.dims);
        let what = || "the list of options".to_string();
        // SAFETY: raw reads of tables and values on a stack with room for them; between two reads
        // of the slots nothing allocates in the interpreter or runs Lua code.
        unsafe {
            if let &[len] = dims.sizes() {
                let n = ffi::lua_rawlen(l, 3) as i64;
                if let Some(slots) = table::slots(l, 3, n as u64) {
                    // A 1-D list read in place: positions and sums of two in the shape are handed
                    // on here, anything else as `each_entry` would.
                    for i in 0..n as usize {
                        let (tag, bits) = slots.get(i);
                        match tag {
                            table::INTEGER if bits < len => f(p, &[bits]),
                            table::LIGHT => match pair_parts(bits as *mut _) {
                                Some((a, b)) if a < len && b < len => f(p, &[a, b]),
                                _ => {
                                    self.one_entry(i as i64 + 1, Entry::Light(bits as usize), p, f)?
                                }
                            },
                            table::INTEGER => {
                                self.one_entry(i as i64 + 1, Entry::Int(bits as i64), p, f)?
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
                                let read = self.one_entry(i as i64 + 1, Entry::Pushed, p, f);
                                ffi::lua_settop(l, 3);
                                read?;
                            }
                        }
                    }
                    return Ok(());
                }
            }
            each_entry(l, 3, &what, |i, entry| self.one_entry(i, entry, p, f))
        }
    }

    /// Option `i` of a list read in place (its value pushed for `Entry::Pushed`), handed to `f`.
    #[inline(never)]
    unsafe fn one_entry(
        &mut self,
        i: i64,
        entry: Entry,
        p: u64,
        f: &mut dyn FnMut(u64, &[u64]),
    ) -> Result<(), String> {
        self.parts.clear();
        // SAFETY: as for `option`.
        unsafe { self.option(entry, i)? };
        f(p, self.parts);
        Ok(())
    }

    /// Option `i`'s positions into `parts`: an integer, a sum of two (a light userdata), or the
    /// value on top of the stack (`Entry::Pushed`: a sum that is a table, or a k-D position).
    #[inline(always)]
    unsafe fn option(&mut self, entry: Entry, i: i64) -> Result<(), String> {
        let l = self.l;
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
                Entry::Int(v) => self.position_number(v, &what),
                Entry::Light(bits) => {
                    let (a, b) = pair_parts(bits as *mut _)
                        .ok_or_else(|| format!("{} is not a position or a sum", what()))?;
                    let part = |j: usize| move || format!("part {j} of the sum that is {}", what());
                    self.position_number(a as i64, &part(1))?;
                    self.position_number(b as i64, &part(2))
                }
                Entry::Pushed => match ffi::lua_type(l, -1) {
                    ffi::LUA_TTABLE if is_sum(l, -1) => self.read_sum(&what),
                    ffi::LUA_TTABLE => self.position_list(&what),
                    _ => Err(format!("{} is {}, not a position or a sum", what(), describe(l, -1))),
                },
            }
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

impl Reader<'_> {
    /// A 1-D position given as a number.
    #[inline(always)]
    fn position_number(&mut self, v: i64, what: &dyn Fn() -> String) -> Result<(), String> {
        match self.dims.sizes() {
            &[len] if (v as u64) < len => {
                self.parts.push(v as u64);
                Ok(())
            }
            _ => Err(not_a_position(self.dims, v, what)),
        }
    }

    /// A position given as a list of k integers, on top of the stack.
    unsafe fn position_list(&mut self, what: &dyn Fn() -> String) -> Result<(), String> {
        let (l, dims) = (self.l, self.dims);
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
                        return Err(format!(
                            "coordinate {j} of {} is a sum, not an integer",
                            what()
                        ));
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
            self.parts.push(dims.index(&point[..k]).expect("checked coordinates"));
            Ok(())
        }
    }

    /// The parts of the sum on top of the stack (a table sum made).
    unsafe fn read_sum(&mut self, what: &dyn Fn() -> String) -> Result<(), String> {
        let l = self.l;
        // SAFETY: raw reads of the sum and of the values it holds.
        unsafe {
            let sum = || format!("the sum that is {}", what());
            each_entry(l, -1, &sum, |j, entry| {
                let part = || format!("part {j} of the sum that is {}", what());
                match entry {
                    Entry::Int(v) => return self.position_number(v, &part),
                    Entry::Light(_) => {
                        return Err(format!("{} is itself a sum; list the parts instead", part()));
                    }
                    Entry::Pushed => {}
                }
                match ffi::lua_type(l, -1) {
                    ffi::LUA_TNUMBER if ffi::lua_isinteger(l, -1) != 0 => self
                        .position_number(ffi::lua_tointegerx(l, -1, std::ptr::null_mut()), &part),
                    ffi::LUA_TTABLE if !is_sum(l, -1) => self.position_list(&part),
                    ffi::LUA_TTABLE | ffi::LUA_TLIGHTUSERDATA => {
                        Err(format!("{} is itself a sum; list the parts instead", part()))
                    }
                    _ => Err(format!("{} is {}, not a position", part(), describe(l, -1))),
                }
            })
        }
    }
}
