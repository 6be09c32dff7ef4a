//! A loaded game library and its one entry point, `sgtab_call` (the C interface of
//! `sgtab.h`).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;

/// What sgtab asks in one call: the layout of `struct sgtab_call` in `sgtab.h`.
#[repr(C)]
pub(super) struct Call {
    pub abi: u32,
    pub what: u32,
    pub positions: *const u64,
    pub count: u64,
    pub values: *const u32,
    pub known: u64,
    pub ranks: *const i64,
    pub rank: i64,
    pub vmax: u32,
    pub flags: u32,
    pub current: *const u64,
    pub axes: u32,
    pub ranked: u32,
    pub sizes: [u64; 8],
    pub rank_out: *const i64,
    pub words: *const u64,
    pub nwords: u64,
    pub options: u64,
    pub error: *const c_char,
    pub fill: *mut u32,
    pub stop_at: u64,
    pub stop_option: u64,
}

/// The interface's version (`SGTAB_ABI`).
pub(super) const ABI: u32 = 1;
pub(super) const SHAPE: u32 = 0;
pub(super) const RANKS: u32 = 1;
pub(super) const SUMMARIES: u32 = 2;
pub(super) const VALUES: u32 = 3;

impl Call {
    pub(super) fn new(what: u32, current: *const u64) -> Call {
        Call {
            abi: ABI,
            what,
            positions: std::ptr::null(),
            count: 0,
            values: std::ptr::null(),
            known: 0,
            ranks: std::ptr::null(),
            rank: 0,
            vmax: 0,
            flags: 0,
            current,
            axes: 0,
            ranked: 0,
            sizes: [0; 8],
            rank_out: std::ptr::null(),
            words: std::ptr::null(),
            nwords: 0,
            options: 0,
            error: std::ptr::null(),
            fill: std::ptr::null_mut(),
            stop_at: 0,
            stop_option: 0,
        }
    }

    /// The library's error text (one line, control characters escaped), or a stand-in.
    pub(super) fn error_text(&self) -> String {
        if self.error.is_null() {
            return "failed without saying why".into();
        }
        // SAFETY: the interface says `error` is a NUL-terminated string the library keeps
        // until its next call on this thread.
        let text = unsafe { CStr::from_ptr(self.error) }.to_string_lossy();
        text.chars().take(1000).map(|c| if c.is_control() { ' ' } else { c }).collect()
    }
}

type Entry = unsafe extern "C" fn(*mut Call) -> c_int;

/// A game library, loaded for the rest of the process: it is never unloaded, since its
/// threads' buffers (C++ `thread_local`s) are freed as those threads end.
#[derive(Debug)]
pub(super) struct Library {
    entry: Entry,
}

impl Library {
    /// Loads the library at `path` and finds `sgtab_call` in it.
    pub(super) fn open(path: &Path) -> Result<Library, String> {
        use std::os::unix::ffi::OsStrExt;
        let name = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| format!("{} holds a NUL byte", path.display()))?;
        // SAFETY: dlopen runs the library's initialisers: the user's code, which the user asked
        // to run (`cpp:` / `native:`, or --allow-native for a stored one).
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(format!("cannot load {}: {}", path.display(), dl_error()));
        }
        // SAFETY: a NUL-terminated name; the handle is live (never closed).
        let entry = unsafe { libc::dlsym(handle, c"sgtab_call".as_ptr()) };
        if entry.is_null() {
            return Err(format!(
                "{} exports no `sgtab_call` (the entry point of sgtab.h's C interface)",
                path.display()
            ));
        }
        // SAFETY: the interface says `sgtab_call` is `int sgtab_call(struct sgtab_call *)`.
        let entry = unsafe { std::mem::transmute::<*mut c_void, Entry>(entry) };
        Ok(Library { entry })
    }

    /// One call; `Err` with the library's reason where it returns nonzero.
    pub(super) fn call(&self, call: &mut Call) -> Result<(), String> {
        match self.raw(call) {
            0 => Ok(()),
            _ => Err(call.error_text()),
        }
    }

    /// One call, its return code as the library gave it.
    pub(super) fn raw(&self, call: &mut Call) -> c_int {
        call.error = std::ptr::null();
        // SAFETY: `call` is a valid `struct sgtab_call` whose pointers live through the call.
        unsafe { (self.entry)(call) }
    }
}

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated message.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}
