//! A game for `sgtab build native:PATH`, in Rust: a shared library that exports `sgtab_call`,
//! the one entry point of sgtab's C interface (`sgtab header` prints it; docs/native.md).
//!
//! The game: taking stones 1/3/9 (the same table as `sub:1,3,9:N`), N = 1,000,000 heaps.
//!
//! ```sh
//! cargo build --release --example native_game
//! sgtab build native:target/release/examples/libnative_game.so
//! ```
//!
//! Any language that can export a C function works the same way: answer `SGTAB_SHAPE` with the
//! sizes, and `SGTAB_SUMMARIES` with one summary per position asked (its value where every
//! option's position is known; else its unknown options and the first values the known ones
//! miss). This library folds what it can, as sgtab's C++ header does.

use std::cell::RefCell;
use std::ffi::c_char;

const HEAPS: u64 = 1_000_000;
const TAKES: [u64; 3] = [1, 3, 9];

/// `struct sgtab_call` of sgtab.h, field for field.
#[repr(C)]
pub struct Call {
    abi: u32,
    what: u32,
    positions: *const u64,
    count: u64,
    values: *const u32,
    known: u64,
    ranks: *const i64,
    rank: i64,
    vmax: u32,
    flags: u32,
    current: *mut u64,
    axes: u32,
    ranked: u32,
    sizes: [u64; 8],
    rank_out: *const i64,
    words: *const u64,
    nwords: u64,
    options: u64,
    error: *const c_char,
    fill: *mut u32,
    stop_at: u64,
    stop_option: u64,
}

thread_local! {
    /// The words answered, kept until this thread's next call (as the interface asks).
    static WORDS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// # Safety
/// sgtab passes a valid `struct sgtab_call`, its arrays as long as `count` says.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sgtab_call(call: *mut Call) -> i32 {
    let call = unsafe { &mut *call };
    if call.abi != 1 {
        call.error = c"this library speaks version 1 of sgtab's interface".as_ptr();
        return 1;
    }
    match call.what {
        0 => {
            call.axes = 1;
            call.sizes[0] = HEAPS;
            call.ranked = 0;
            0
        }
        2 => {
            let positions =
                unsafe { std::slice::from_raw_parts(call.positions, call.count as usize) };
            WORDS.with(|words| {
                let mut words = words.borrow_mut();
                words.clear();
                for &n in positions {
                    unsafe { call.current.write_volatile(n) };
                    let (mut folded, mut kept) = ([false; 4], Vec::new());
                    for take in TAKES.into_iter().filter(|&t| t <= n) {
                        let q = n - take;
                        if q < call.known {
                            // Known: fold its value (at most 3 options, so only 0..=3 matter).
                            let v = unsafe { *call.values.add(q as usize) } as usize;
                            if v < folded.len() {
                                folded[v] = true;
                            }
                        } else {
                            kept.push(q);
                        }
                    }
                    let gaps = (0..4u64).filter(|&v| !folded[v as usize]);
                    words.push(kept.len() as u64);
                    if kept.is_empty() {
                        words.push(gaps.take(1).next().unwrap_or(0));
                    } else {
                        for &q in &kept {
                            words.extend([1, q]);
                        }
                        words.extend(gaps.take(kept.len() + 1));
                    }
                }
                call.words = words.as_ptr();
                call.nwords = words.len() as u64;
                call.options = 3 * positions.len() as u64;
            });
            0
        }
        _ => {
            call.error = c"this game gives no ranks".as_ptr();
            1
        }
    }
}
