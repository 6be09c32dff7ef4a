//! How much memory this process may still take, and the large buffers of a build allocated
//! fallibly, so that a table too large for the machine is one line of error, not an abort.
//!
//! [`room`] is the least of what each limit leaves: the machine's MemAvailable, the address
//! space left under `ulimit -v` (RLIMIT_AS less the current VmSize), the data segment left
//! under RLIMIT_DATA (less the current VmData), and the cgroup's memory.max less
//! memory.current (v2, this process's cgroup and each above it; v1's limit_in_bytes less
//! usage_in_bytes). Each is read where the system says it, and skipped where it does not.

line_error! {
    /// Memory that does not fit: the need, what fits, and what to do, in one line.
    #[derive(Debug)]
    MemoryError
}

/// The bytes this process may still allocate, by the tightest of its limits; `None` where no
/// limit can be read.
pub fn room() -> Option<u64> {
    [mem_available(), rlimit_room(), cgroup_room()].into_iter().flatten().min()
}

/// The address space this process may still map, by `ulimit -v` and RLIMIT_DATA alone: what a
/// thread's stack takes, which the machine's free memory does not bound (`None`: no limit).
pub fn address_room() -> Option<u64> {
    rlimit_room()
}

/// A number of KiB in a `Key:   123 kB` line of a /proc file.
fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse::<u64>().ok().map(|k| k * 1024)
}

fn mem_available() -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemAvailable:")
}

/// What RLIMIT_AS and RLIMIT_DATA (soft limits) leave beyond what the process holds now.
fn rlimit_room() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    // "Max address space   unlimited   unlimited   bytes": the soft limit is the first number.
    let soft = |name: &str| -> Option<u64> {
        limits.lines().find(|l| l.starts_with(name))?[name.len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    let left =
        |limit: Option<u64>, used: Option<u64>| Some(limit?.saturating_sub(used.unwrap_or(0)));
    [
        left(soft("Max address space"), kib_field(&status, "VmSize:")),
        left(soft("Max data size"), kib_field(&status, "VmData:")),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// What the memory cgroups of this process leave.
fn cgroup_room() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let read =
        |path: String| -> Option<u64> { std::fs::read_to_string(path).ok()?.trim().parse().ok() };
    let mut least: Option<u64> = None;
    let mut take = |limit: Option<u64>, used: Option<u64>| {
        if let Some(limit) = limit {
            let left = limit.saturating_sub(used.unwrap_or(0));
            least = Some(least.map_or(left, |l| l.min(left)));
        }
    };
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_end_matches('/');
        if id == "0" && controllers.is_empty() {
            // v2: the process's cgroup and each above it ("max" reads as no limit).
            let mut dir = String::from("/sys/fs/cgroup");
            for part in path.split('/').filter(|p| !p.is_empty()) {
                dir.push('/');
                dir.push_str(part);
                take(read(format!("{dir}/memory.max")), read(format!("{dir}/memory.current")));
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            // v1: the group's directory, or the mount's root where the container shows only that.
            for dir in [format!("/sys/fs/cgroup/memory{path}"), "/sys/fs/cgroup/memory".to_string()]
            {
                if let Some(limit) = read(format!("{dir}/memory.limit_in_bytes")) {
                    take(Some(limit), read(format!("{dir}/memory.usage_in_bytes")));
                    break;
                }
            }
        }
    }
    least
}

/// Bytes in GiB with one decimal, or MiB below 1 GiB.
pub fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// The error for `need` bytes of `what` that do not fit in `room` (unknown: `None`); sgtab
/// puts the game's name in front.
pub fn short(what: &str, need: u64, room: Option<u64>) -> MemoryError {
    let fits = match room {
        Some(r) => format!("only {} fits here", size(r)),
        None => "the allocation failed".to_string(),
    };
    MemoryError(format!(
        "needs about {} for {what}, but {fits} (ulimit -v / cgroup memory.max / MemAvailable); \
            build a shorter table",
        size(need)
    ))
}

/// Refuses, before any work, `need` bytes of `what` where they do not fit.
pub fn check(what: &str, need: u64) -> Result<(), MemoryError> {
    match room() {
        Some(room) if need > room => Err(short(what, need, Some(room))),
        _ => Ok(()),
    }
}

/// Room for `more` elements beyond `v`'s length, or the error saying what did not fit. The
/// room is asked for in huge pages ([`huge_pages`]).
pub fn reserve<T>(v: &mut Vec<T>, more: usize, what: &str) -> Result<(), MemoryError> {
    v.try_reserve_exact(more).map_err(|_| {
        let need = (more as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        short(what, need, room())
    })?;
    huge_pages(v);
    Ok(())
}

/// Element types whose all-zero bytes are a value (0): [`zeroed`] hands them out.
///
/// # Safety
/// All-zero bytes must be a valid value of the type.
pub unsafe trait Zero {}
// SAFETY: zero bytes are 0 in each.
unsafe impl Zero for u8 {}
unsafe impl Zero for u32 {}
unsafe impl Zero for u64 {}
unsafe impl Zero for i64 {}
unsafe impl Zero for std::sync::atomic::AtomicU32 {}

/// `len` zeros, allocated fallibly, zeroed by the system where it can (fresh pages are zero,
/// so a large table is not written twice: its pages are first touched where it is filled)
/// and in huge pages where large ([`huge_pages`]).
pub fn zeroed<T: Zero>(len: usize, what: &str) -> Result<Vec<T>, MemoryError> {
    let too_much = || {
        let need = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        short(what, need, room())
    };
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| too_much())?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the layout is non-zero in size; a null return is the failure, reported.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(too_much());
    }
    // SAFETY: allocated by the global allocator with the layout of `len` T (what a Vec of
    // capacity `len` deallocates with), every one of them zero bytes, a valid T.
    let mut v = unsafe { Vec::from_raw_parts(ptr, 0, len) };
    huge_pages(&v);
    // SAFETY: the `len` elements are initialised (zero, a valid T by `Zero`).
    unsafe { v.set_len(len) };
    Ok(v)
}

/// Buffers at least this large are asked for in huge pages.
const HUGE_FROM: usize = 4 << 20;
/// A huge page (x86-64 and aarch64 with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// Asks Linux to back the spare capacity of `v` (not yet touched, or only in part) with huge
/// pages where it is large: a table of 16 MiB is then 8 page faults as it is first written,
/// not 4096, each clearing 2 MiB at once (the 4096 faults took 15 to 25 ms of a 0.35 s build).
/// Advice only: where transparent huge pages are off, or the range is not whole huge pages, it
/// changes nothing, and the values are the same either way.
pub fn huge_pages<T>(v: &Vec<T>) {
    let spare = (v.capacity() - v.len()) * std::mem::size_of::<T>();
    if spare < HUGE_FROM {
        return;
    }
    let start = v.as_ptr().wrapping_add(v.len()) as usize;
    let (from, to) = (start.next_multiple_of(HUGE_PAGE), (start + spare) / HUGE_PAGE * HUGE_PAGE);
    if to > from {
        // SAFETY: [from, to) lies inside v's allocation; MADV_HUGEPAGE changes how its pages
        // are backed, never their contents, and its failure is ignored.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
        }
    }
}

/// `len` copies of `value`, allocated fallibly.
pub fn filled<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>, MemoryError> {
    let mut v = Vec::new();
    reserve(&mut v, len, what)?;
    v.resize(len, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_buffer_is_an_error_not_an_abort() {
        let e = filled(usize::MAX / 2, 0u8, "its values").unwrap_err();
        assert!(
            e.0.starts_with("needs about ")
                && e.0.contains("for its values")
                && e.0.ends_with("build a shorter table"),
            "{e}"
        );
        assert!(room().is_some_and(|r| r > 0), "Linux says MemAvailable");
        assert!(check("x", u64::MAX).is_err() && check("x", 1).is_ok());
        // Past isize (no layout) and past the machine (the allocator refuses) alike.
        for len in [usize::MAX / 2, 1 << 50] {
            let e = zeroed::<u64>(len, "its values").unwrap_err();
            assert!(e.0.starts_with("needs about ") && e.0.contains("for its values"), "{e}");
        }
    }

    #[test]
    fn zeroed_buffers_are_zero_at_every_size() {
        // Below and above the size asked for in huge pages, and written after, as a table is.
        for len in [0, 1, 1000, (HUGE_FROM / 4) + 12345] {
            let mut v = zeroed::<u32>(len, "t").unwrap();
            assert_eq!((v.len(), v.iter().all(|&x| x == 0)), (len, true));
            v.iter_mut().enumerate().for_each(|(i, x)| *x = i as u32);
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
        }
        let atomics = zeroed::<std::sync::atomic::AtomicU32>(5000, "t").unwrap();
        assert!(atomics.iter().all(|a| a.load(std::sync::atomic::Ordering::Relaxed) == 0));
    }
}
