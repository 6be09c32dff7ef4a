//! Property tests (proptest): valid judge inputs and valid table files, mutated the ways an
//! adversary would (bit flips, insertions, deletions, truncation, huge and zero-padded numbers,
//! forged headers with a recomputed CRC), and the promises held on each:
//!
//! - no panic or abort;
//! - a judge answer equal to a plain reference parser's (split on whitespace, `str`-style number
//!   parsing) on valid input, and on broken input the same complete cases answered before the
//!   break, nothing of the broken one, and an error at the same line, column and byte;
//! - the same, whatever the read buffer's size and however the input is chunked by reads;
//! - a table file is either refused with one line, or is exactly what the writer writes for the
//!   table it decodes to (so every accepted byte is checked), with a rule that holds;
//! - reading a table never allocates more than the file's own length (a counting allocator).
//!
//! `cargo test --release --test fuzz` runs a modest number of cases; `SGTAB_FUZZ_SCALE=100`
//! runs 100 times as many of each (docs/hardening.md has the figures).

mod common;

use proptest::prelude::*;
use proptest::sample::Index;
use sgtab::games::stored::{Origin, Script, Stored};
use sgtab::games::{Dims, sub};
use sgtab::judge::input::{BUFFER, InputError, Scanner};
use sgtab::judge::{self, JudgeError};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use sgtab::table::{Table, find_rule, format};
use sgtab::values::{Packed, Rule};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{self, Read};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// A counting allocator: the largest single allocation made by this thread since the last reset.

struct Counting;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `f()` and the largest single allocation it made.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    let out = f();
    (out, LARGEST.with(|l| l.get()))
}

/// Cases for a property: `base`, times `SGTAB_FUZZ_SCALE` (default 1).
fn config(base: u32) -> ProptestConfig {
    let scale: u32 =
        std::env::var("SGTAB_FUZZ_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    ProptestConfig { cases: base.saturating_mul(scale.max(1)), ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------------------------
// Judge input: a plain reference.

struct Tables {
    chess: Table,
    lasker: Table,
    stones: Table,
    funny: Table,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let read = |name: &str| format::read(&common::tables_dir().join(name)).unwrap();
        Tables {
            chess: read("chess-20.sgt"),
            lasker: read("lasker-1024.sgt"),
            stones: read("sub-1_3_9-1024.sgt"),
            funny: read("funny-32.sgt"),
        }
    })
}

const PROBLEMS: [&str; 5] = ["snim", "chess", "lasker", "stones", "funny"];

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Whitespace-separated tokens, read the obvious way.
struct Plain<'a> {
    input: &'a [u8],
    pos: usize,
    /// Start of the last token read.
    last: usize,
}

/// Where the plain reader stops on bad input: the byte offset the error must name.
type Stop = usize;

impl<'a> Plain<'a> {
    fn new(input: &'a [u8]) -> Self {
        Plain { input, pos: 0, last: 0 }
    }

    fn token(&mut self) -> Option<&'a [u8]> {
        while self.pos < self.input.len() && is_space(self.input[self.pos]) {
            self.pos += 1;
        }
        if self.pos == self.input.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < self.input.len() && !is_space(self.input[self.pos]) {
            self.pos += 1;
        }
        self.last = start;
        Some(&self.input[start..self.pos])
    }

    fn parse(token: &[u8]) -> Option<u64> {
        if token.is_empty() || !token.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let text = std::str::from_utf8(token).unwrap().trim_start_matches('0');
        if text.is_empty() { Some(0) } else { text.parse().ok() }
    }

    fn num_or_end(&mut self, min: u64, max: u64) -> Result<Option<u64>, Stop> {
        match self.token() {
            None => Ok(None),
            Some(t) => {
                Plain::parse(t).filter(|v| (min..=max).contains(v)).map(Some).ok_or(self.last)
            }
        }
    }

    fn num(&mut self, min: u64, max: u64) -> Result<u64, Stop> {
        self.num_or_end(min, max)?.ok_or(self.input.len())
    }

    fn end(&mut self) -> Result<(), Stop> {
        match self.token() {
            None => Ok(()),
            Some(_) => Err(self.last),
        }
    }
}

/// The plain answer to `problem` for `input`: the output of the complete cases, and where the
/// input breaks, if it does.
fn plain(problem: &str, input: &[u8]) -> (String, Result<(), Stop>) {
    let mut out = String::new();
    let mut p = Plain::new(input);
    let t = tables();
    let result = (|| -> Result<(), Stop> {
        match problem {
            "chess" => {
                let cases = p.num(0, u64::MAX)?;
                for _ in 0..cases {
                    let mut x = 0;
                    for _ in 0..p.num(1, 1000)? {
                        let mut mask = 0u64;
                        for _ in 0..p.num(0, 20)? {
                            let bit = 1u64 << (20 - p.num(1, 20)?);
                            if mask & bit != 0 {
                                return Err(p.last);
                            }
                            mask |= bit;
                        }
                        x ^= t.chess.values.get(mask);
                    }
                    out += if x != 0 { "YES\n" } else { "NO\n" };
                }
                p.end()
            }
            "lasker" => {
                for _ in 0..p.num(1, 100)? {
                    let mut x = 0;
                    for _ in 0..p.num(1, 1_000_000)? {
                        x ^= t.lasker.value(p.num(1, (1 << 31) - 1)?).unwrap();
                    }
                    out += if x != 0 { "Alice\n" } else { "Bob\n" };
                }
                p.end()
            }
            "stones" => {
                while let Some(a) = p.num_or_end(1, 100)? {
                    let b = p.num(1, 100)?;
                    out += if t.stones.value(a).unwrap() ^ t.stones.value(b).unwrap() != 0 {
                        "win\n"
                    } else {
                        "lose\n"
                    };
                }
                Ok(())
            }
            "funny" => {
                let g: Vec<u64> = (0..23).map(|r| t.funny.values.get(r) as u64).collect();
                for game in 1.. {
                    let n = p.num(0, 23)?;
                    if n == 0 {
                        return p.end();
                    }
                    let counts =
                        (0..n).map(|_| p.num(0, 1000)).collect::<Result<Vec<u64>, Stop>>()?;
                    out += &match judge::funny::winning_move(&counts, &g) {
                        Some((i, j, k)) => format!("Game {game}: {i} {j} {k}\n"),
                        None => format!("Game {game}: -1 -1 -1\n"),
                    };
                }
                unreachable!()
            }
            "snim" => loop {
                let k = p.num(0, 100)?;
                if k == 0 {
                    return p.end();
                }
                let mut moves = (0..k)
                    .map(|_| p.num(1, 10_000).map(|m| m as u32))
                    .collect::<Result<Vec<u32>, Stop>>()?;
                moves.sort_unstable();
                moves.dedup();
                let g = sub::reference(&moves, 10_001);
                let mut line = String::new();
                for _ in 0..p.num(1, 100)? {
                    let mut x = 0;
                    for _ in 0..p.num(1, 100)? {
                        x ^= g[p.num(0, 10_000)? as usize];
                    }
                    line.push(if x != 0 { 'W' } else { 'L' });
                }
                out += &line;
                out.push('\n');
            },
            _ => unreachable!(),
        }
    })();
    (out, result)
}

/// A reader that hands out at most `chunk` bytes a read, like a pipe fed in small writes.
/// `src/judge/input.rs` has the same reader in its unit tests; this copy is kept on purpose:
/// the harness uses nothing of the scanner's own test code, and that copy is not reachable here.
struct Chunked<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.chunk).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// sgq's answer, through the library, with a read buffer of `capacity` and reads of `chunk`.
fn real(
    problem: &str,
    input: &[u8],
    capacity: usize,
    chunk: usize,
) -> (String, Result<(), JudgeError>) {
    let t = tables();
    let mut scanner = Scanner::with_capacity(Chunked { data: input, chunk }, capacity);
    let mut out = Vec::new();
    let result = match problem {
        "snim" => judge::snim::answer(&mut scanner, &mut out),
        "chess" => judge::chess::answer(&t.chess, &mut scanner, &mut out),
        "lasker" => judge::lasker::answer(&t.lasker, &mut scanner, &mut out),
        "stones" => judge::stones::answer(&t.stones, &mut scanner, &mut out),
        "funny" => judge::funny::answer(&t.funny, &mut scanner, &mut out),
        _ => unreachable!(),
    };
    (String::from_utf8(out).unwrap(), result)
}

/// Line and column (1-based, in bytes) of byte `at`.
fn line_column(input: &[u8], at: usize) -> (u64, u64) {
    let before = &input[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (line, (at - line_start + 1) as u64)
}

/// The real answer agrees with the plain one: same output, same verdict, the error at the
/// same place, in one line.
fn agree(problem: &str, input: &[u8], capacity: usize, chunk: usize) -> Result<(), TestCaseError> {
    let (want, verdict) = plain(problem, input);
    let (got, result) = real(problem, input, capacity, chunk);
    prop_assert_eq!(&got, &want, "{} output", problem);
    match (verdict, result) {
        (Ok(()), Ok(())) => {}
        (Err(at), Err(JudgeError::Input(e @ InputError::Format { .. }))) => {
            let InputError::Format { at: pos, .. } = &e else { unreachable!() };
            let (line, column) = line_column(input, at);
            prop_assert_eq!(
                (pos.line, pos.column, pos.offset),
                (line, column, at as u64),
                "{}: {}",
                problem,
                e
            );
            let text = JudgeError::Input(e).to_string();
            prop_assert!(!text.contains('\n') && text.starts_with("bad input: line "), "{}", text);
        }
        (v, r) => prop_assert!(false, "{problem}: plain says {v:?}, sgq says {r:?}"),
    }
    Ok(())
}

// Valid inputs: the numbers of a problem's input as a model, written with varied whitespace and
// leading zeros.

#[derive(Clone, Debug)]
struct Spacing {
    /// Separator choices, used in turn.
    seps: Vec<u8>,
    /// Leading zeros of each number, used in turn.
    zeros: Vec<u16>,
    trailing: u8,
}

const SEPS: [&[u8]; 8] = [b" ", b"\n", b"\t", b"\r\n", b"  ", b"\x0b", b"\x0c", b" \n \t "];

fn spacing() -> impl Strategy<Value = Spacing> {
    let zeros = prop_oneof![12 => Just(0u16), 3 => 1..4u16, 1 => 14..40u16, 1 => 4090..4200u16];
    (prop::collection::vec(0..SEPS.len() as u8, 1..8), prop::collection::vec(zeros, 1..8), 0..3u8)
        .prop_map(|(seps, zeros, trailing)| Spacing { seps, zeros, trailing })
}

fn write_numbers(numbers: &[u64], layout: &Spacing) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, n) in numbers.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(SEPS[layout.seps[i % layout.seps.len()] as usize]);
        }
        out.resize(out.len() + layout.zeros[i % layout.zeros.len()] as usize, b'0');
        out.extend_from_slice(n.to_string().as_bytes());
    }
    match layout.trailing {
        0 => {}
        1 => out.push(b'\n'),
        _ => out.extend_from_slice(b" \r\n"),
    }
    out
}

/// The numbers of a valid input for `problem`.
fn numbers(problem: &'static str) -> BoxedStrategy<Vec<u64>> {
    match problem {
        "chess" => {
            let row = prop::collection::btree_set(1u64..=20, 0..=20)
                .prop_map(|s| s.into_iter().rev().collect::<Vec<u64>>());
            prop::collection::vec(prop::collection::vec(row, 1..5), 0..4)
                .prop_map(|cases| {
                    let mut v = vec![cases.len() as u64];
                    for rows in cases {
                        v.push(rows.len() as u64);
                        for cols in rows {
                            v.push(cols.len() as u64);
                            v.extend(cols);
                        }
                    }
                    v
                })
                .boxed()
        }
        "lasker" => {
            let heap = prop_oneof![1u64..=2000, 1u64..=(1 << 31) - 1, Just((1 << 31) - 1)];
            let heaps = prop_oneof![
                3 => prop::collection::vec(heap.clone(), 1..12),
                1 => prop::collection::vec(heap, 100..400)
            ];
            prop::collection::vec(heaps, 1..4)
                .prop_map(|cases| {
                    let mut v = vec![cases.len() as u64];
                    for heaps in cases {
                        v.push(heaps.len() as u64);
                        v.extend(heaps);
                    }
                    v
                })
                .boxed()
        }
        "stones" => prop::collection::vec(1u64..=100, 0..20)
            .prop_map(|v| if v.len() % 2 == 1 { v[1..].to_vec() } else { v })
            .boxed(),
        "funny" => prop::collection::vec(prop::collection::vec(0u64..=1000, 1..=23), 0..4)
            .prop_map(|games| {
                let mut v = Vec::new();
                for piles in games {
                    v.push(piles.len() as u64);
                    v.extend(piles);
                }
                v.push(0);
                v
            })
            .boxed(),
        "snim" => {
            let position = prop::collection::vec(0u64..=10_000, 1..6);
            let case =
                (prop::collection::vec(1u64..=10_000, 1..5), prop::collection::vec(position, 1..4));
            prop::collection::vec(case, 0..3)
                .prop_map(|cases| {
                    let mut v = Vec::new();
                    for (moves, positions) in cases {
                        v.push(moves.len() as u64);
                        v.extend(moves);
                        v.push(positions.len() as u64);
                        for heaps in positions {
                            v.push(heaps.len() as u64);
                            v.extend(heaps);
                        }
                    }
                    v.push(0);
                    v
                })
                .boxed()
        }
        _ => unreachable!(),
    }
}

fn valid_input() -> impl Strategy<Value = (&'static str, Vec<u8>)> {
    prop::sample::select(PROBLEMS.to_vec())
        .prop_flat_map(|problem| (Just(problem), numbers(problem), spacing()))
        .prop_map(|(problem, numbers, spacing)| (problem, write_numbers(&numbers, &spacing)))
}

/// Buffer capacities and read sizes: tiny ones split every token; sgq's own is 256 KiB.
fn reading() -> impl Strategy<Value = (usize, usize)> {
    let capacity = prop_oneof![16usize..100, 100usize..5000, Just(BUFFER)];
    let chunk = prop_oneof![1usize..8, 8usize..2000, Just(usize::MAX)];
    (capacity, chunk)
}

/// What an adversary does to bytes.
#[derive(Clone, Debug)]
enum Damage {
    FlipBit(Index, u8),
    Insert(Index, u8),
    InsertRun(Index, u8, usize),
    Delete(Index, usize),
    Truncate(Index),
    /// A number of many digits (or many leading zeros) put in at a place.
    Huge(Index, String),
}

fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b'0'),
        b'0'..=b'9',
        Just(b' '),
        Just(b'\n'),
        Just(b'-'),
        Just(b'+'),
        Just(0xff),
        Just(0),
        any::<u8>(),
    ]
}

fn damage() -> impl Strategy<Value = Damage> {
    let huge = prop_oneof![
        (1usize..60).prop_map(|n| "9".repeat(n)),
        (1usize..6000, 0u64..100).prop_map(|(z, v)| format!("{}{v}", "0".repeat(z))),
        Just("18446744073709551616".to_string()),
        Just("2147483648".to_string()),
        Just("99999999999999999999".to_string()),
    ];
    prop_oneof![
        (any::<Index>(), 0..8u8).prop_map(|(i, b)| Damage::FlipBit(i, b)),
        (any::<Index>(), interesting_byte()).prop_map(|(i, b)| Damage::Insert(i, b)),
        (any::<Index>(), interesting_byte(), 1usize..5000)
            .prop_map(|(i, b, n)| Damage::InsertRun(i, b, n)),
        (any::<Index>(), 1usize..20).prop_map(|(i, n)| Damage::Delete(i, n)),
        any::<Index>().prop_map(Damage::Truncate),
        (any::<Index>(), huge).prop_map(|(i, s)| Damage::Huge(i, s)),
    ]
}

fn apply(bytes: &mut Vec<u8>, damage: &Damage) {
    let at = |i: &Index, len: usize| if len == 0 { 0 } else { i.index(len + 1) };
    match damage {
        Damage::FlipBit(i, bit) if !bytes.is_empty() => {
            let k = i.index(bytes.len());
            bytes[k] ^= 1 << bit;
        }
        Damage::FlipBit(..) => {}
        Damage::Insert(i, b) => {
            let k = at(i, bytes.len());
            bytes.insert(k, *b);
        }
        Damage::InsertRun(i, b, n) => {
            let k = at(i, bytes.len());
            bytes.splice(k..k, std::iter::repeat_n(*b, *n));
        }
        Damage::Delete(i, n) => {
            let k = at(i, bytes.len());
            let end = (k + n).min(bytes.len());
            bytes.drain(k..end);
        }
        Damage::Truncate(i) => {
            let k = at(i, bytes.len());
            bytes.truncate(k);
        }
        Damage::Huge(i, s) => {
            let k = at(i, bytes.len());
            bytes.splice(k..k, s.bytes());
        }
    }
}

proptest! {
    #![proptest_config(config(6000))]

    /// Valid input: the answers equal the plain reference's, whatever the buffer and chunking.
    #[test]
    fn judge_valid_input_agrees_with_the_plain_reference(
        (problem, input) in valid_input(),
        (capacity, chunk) in reading(),
    ) {
        let (_, verdict) = plain(problem, &input);
        prop_assert!(verdict.is_ok(), "the generator made invalid {} input: \
            {:?}", problem, verdict);
        agree(problem, &input, capacity, chunk)?;
    }
}

proptest! {
    #![proptest_config(config(16000))]

    /// Damaged input: no panic, the same complete cases answered, the break at the same place.
    #[test]
    fn judge_damaged_input_agrees_with_the_plain_reference(
        (problem, input) in valid_input(),
        damages in prop::collection::vec(damage(), 1..4),
        (capacity, chunk) in reading(),
    ) {
        let mut input = input;
        for d in &damages {
            apply(&mut input, d);
        }
        agree(problem, &input, capacity, chunk)?;
    }
}

proptest! {
    #![proptest_config(config(100))]

    /// Through the binary: exit status, stdout and one stderr line, as the library says.
    #[test]
    fn sgq_binary_agrees_with_the_plain_reference(
        (problem, input) in valid_input(),
        damages in prop::collection::vec(damage(), 0..3),
    ) {
        let mut input = input;
        for d in &damages {
            apply(&mut input, d);
        }
        let (want, verdict) = plain(problem, &input);
        let out = common::sgq(problem, &input);
        let err = common::text(&out.stderr);
        prop_assert_eq!(common::text(&out.stdout), want);
        match verdict {
            Ok(()) => prop_assert!(out.status.success() && err.is_empty(), "{}", err),
            Err(at) => {
                let (line, column) = line_column(&input, at);
                prop_assert_eq!(out.status.code(), Some(1));
                prop_assert_eq!(err.lines().count(), 1, "{}", err);
                let place = format!("line {line}, column {column} (byte {at})");
                prop_assert!(err.starts_with(&format!("sgq {problem}: error: bad input: \
                    {place}: ")), "{}", err);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Table files.

/// Valid table files: the committed small ones and a few built here (rules proven and not,
/// every game, 1 to 11 bits a value).
fn valid_tables() -> &'static Vec<Vec<u8>> {
    static FILES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files: Vec<Vec<u8>> = ["lasker-1024.sgt", "sub-1_3_9-1024.sgt", "funny-32.sgt"]
            .iter()
            .map(|name| std::fs::read(common::tables_dir().join(name)).unwrap())
            .collect();
        for spec in [
            "chess:5",
            "chess:9",
            "sub:2,5:300",
            "sub:1:1",
            "lasker:64",
            "funny:23",
            "sub:3,7,11,19:500",
        ] {
            let spec = GameSpec::parse(spec).unwrap();
            let values = spec.reference(&Progress::silent()).unwrap();
            files.push(format::encode(&Table::new(spec, values)));
        }
        // Format 3's game blocks: a script's table (its text and shape) and an imported 2-D one.
        let text = "N = N or 6\nshape = {N, N}\nfunction moves(x, y) return {} end\n";
        let script = Script::new("grid", text, vec![("N".into(), 6)]).unwrap();
        let dims = Dims::new(&[6, 6], 36).unwrap();
        let values: Vec<u32> = (0..36).map(|i| i % 7).collect();
        let stored = Stored { origin: Origin::Script(script), dims };
        files
            .push(format::encode(&Table::new(GameSpec::new(stored), Packed::from_values(&values))));
        let dims = Dims::new(&[3, 5, 2], 30).unwrap();
        let values: Vec<u32> = (0..30).map(|i| i * 3 % 11).collect();
        let imported = Stored::imported("mine", dims).unwrap();
        files.push(format::encode(&Table::new(
            GameSpec::new(imported),
            Packed::from_values(&values),
        )));
        files
    })
}

fn fix_crc(bytes: &mut [u8]) {
    if bytes.len() >= 4 {
        let n = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..n]);
        bytes[n..].copy_from_slice(&crc.to_le_bytes());
    }
}

/// Header fields: (offset, size).
const FIELDS: [(usize, usize); 15] = [
    (8, 2),
    (10, 2),
    (12, 1),
    (13, 1),
    (14, 2),
    (16, 8),
    (24, 8),
    (32, 8),
    (40, 8),
    (48, 8),
    (56, 1),
    (57, 1),
    (58, 2),
    (60, 4),
    (0, 8),
];

#[derive(Clone, Debug)]
enum Forgery {
    /// A header field set to a value (then the CRC recomputed).
    Field(usize, u64),
    /// The spec replaced, its lengths made consistent.
    Spec(String),
    /// Raw damage, with or without the CRC recomputed.
    Raw(Damage, bool),
}

fn forgery() -> impl Strategy<Value = Forgery> {
    let value = prop_oneof![
        prop::sample::select(vec![
            0u64,
            1,
            2,
            3,
            4,
            5,
            8,
            11,
            31,
            32,
            33,
            64,
            255,
            1023,
            1024,
            1025,
            65535,
            1 << 20,
            1 << 31,
            1 << 32,
            1 << 40,
            1 << 62,
            u64::MAX,
            u64::MAX - 3
        ]),
        any::<u64>(),
    ];
    let spec = prop::sample::select(vec![
        "chess:20",
        "chess:32",
        "chess:1",
        "lasker:1024",
        "lasker:1073741824",
        "sub:1,3,9:1024",
        "sub:1:1",
        "funny:32",
        "funny:4096",
        "Chess:20",
        "chess:020",
        "sub:9,3,1:1024",
        "lasker",
        "",
        "\u{ff}",
        "sub:1,3,9:1024\0",
        "import:mine",
        "import:grid",
        "import:../x",
        "lua:grid@00000000:N=6",
        "lua:grid:N=6",
        "lua:mine@12345678",
    ]);
    prop_oneof![
        2 => (0..FIELDS.len(), value).prop_map(|(f, v)| Forgery::Field(f, v)),
        1 => spec.prop_map(|s| Forgery::Spec(s.to_string())),
        3 => (damage(), any::<bool>()).prop_map(|(d, fix)| Forgery::Raw(d, fix)),
    ]
}

fn forge(bytes: &mut Vec<u8>, forgery: &Forgery) {
    match forgery {
        Forgery::Field(f, v) => {
            let (at, size) = FIELDS[*f];
            if bytes.len() >= at + size {
                bytes[at..at + size].copy_from_slice(&v.to_le_bytes()[..size]);
                fix_crc(bytes);
            }
        }
        Forgery::Spec(text) => {
            if bytes.len() >= 64 {
                let h = u16::from_le_bytes([bytes[10], bytes[11]]) as usize;
                let new_h = (64 + text.len()).next_multiple_of(8);
                let mut spec = text.as_bytes().to_vec();
                spec.resize(new_h - 64, 0);
                bytes.splice(64..h.clamp(64, bytes.len()), spec);
                bytes[10..12].copy_from_slice(&(new_h as u16).to_le_bytes());
                bytes[14..16].copy_from_slice(&(text.len() as u16).to_le_bytes());
                fix_crc(bytes);
            }
        }
        Forgery::Raw(damage, fix) => {
            apply(bytes, damage);
            if *fix {
                fix_crc(bytes);
            }
        }
    }
}

/// The promises for one file's bytes.
fn check_table(bytes: &[u8]) -> Result<(), TestCaseError> {
    let (result, largest) = largest_allocation(|| format::decode(bytes));
    // A version 1 file's rule is found again: the search's window, 8 bytes a value of at most
    // 2^22 values, is the one allocation that may pass the file's length.
    let bound = match (&result, bytes.get(8..10)) {
        (Ok(table), Some([1, 0])) => {
            bytes.len() + 4096 + 8 * table.values.len().min(1 << 22) as usize
        }
        _ => bytes.len() + 4096,
    };
    prop_assert!(largest <= bound, "decoding {} bytes allocated {} at once", bytes.len(), largest);
    match result {
        Ok(table) if bytes[8..10] == [1, 0] => {
            // A version 1 file: exactly the bytes that writer made, with a rule that held, and
            // the rule found again from its values.
            let field = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
            let stored = (bytes[13] == 1).then(|| Rule {
                pre: field(24),
                period: field(32),
                saltus: field(40),
                checked: field(48),
                proven: bytes[56] == 1,
            });
            let mut old = format::encode(&Table { rule: stored, ..table.clone() });
            old[8] = 1;
            fix_crc(&mut old);
            prop_assert!(
                old == bytes,
                "accepted version 1 bytes that writer would not write: {:?}",
                table
            );
            if let Some(rule) = stored {
                prop_assert!(
                    format::check_rule(&rule, table.values.len(), |i| table.values.get(i) as u64)
                        .is_ok()
                );
            }
            prop_assert_eq!(table.rule, find_rule(&table.spec, &table.values));
        }
        Ok(table) => {
            // Accepted: exactly the bytes the writer makes for it (a version 2 file: what it
            // makes but for the version, so no game block), and a rule that holds.
            let mut written = format::encode(&table);
            if bytes[8..10] == [2, 0] {
                written[8] = 2;
                fix_crc(&mut written);
            }
            prop_assert!(
                written == bytes,
                "accepted bytes the writer would not write: {:?}",
                table
            );
            if let Some(rule) = table.rule {
                prop_assert!(
                    format::check_rule(&rule, table.values.len(), |i| table.values.get(i) as u64)
                        .is_ok()
                );
            }
        }
        Err(e) => {
            let text = e.to_string();
            prop_assert!(!text.is_empty() && !text.contains('\n') && text.len() < 400, "{}", text);
        }
    }
    // A file that shrinks while it is read (fewer bytes than its length said) is refused too.
    if !bytes.is_empty() {
        let cut = &bytes[..bytes.len() / 2];
        let (result, largest) = largest_allocation(|| format::read_from(cut, bytes.len() as u64));
        prop_assert!(result.is_err());
        prop_assert!(largest <= bytes.len() + 4096);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(60000))]

    /// Damaged and forged table files: refused in one line, or exactly what the writer writes.
    #[test]
    fn damaged_tables_are_refused_or_canonical(
        file in any::<Index>(),
        forgeries in prop::collection::vec(forgery(), 1..4),
    ) {
        let files = valid_tables();
        let mut bytes = files[file.index(files.len())].clone();
        for f in &forgeries {
            forge(&mut bytes, f);
        }
        check_table(&bytes)?;
    }
}

proptest! {
    #![proptest_config(config(50))]

    /// Through the binaries: `sgq` refuses a broken table (nothing on stdout, one line on stderr),
    /// `sgtab show` the same; neither hangs or panics.
    #[test]
    fn damaged_tables_through_the_binaries(forgeries in prop::collection::vec(forgery(), 1..3)) {
        let thread = std::thread::current().name().unwrap_or("t").replace(':', "_");
        let dir = std::env::temp_dir().join(format!("sgtab-fuzz-{}-{thread}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut bytes = std::fs::read(common::tables_dir().join("lasker-1024.sgt")).unwrap();
        for f in &forgeries {
            forge(&mut bytes, f);
        }
        let file = dir.join("lasker-1024.sgt");
        std::fs::write(&file, &bytes).unwrap();
        let lasker = GameSpec::parse("lasker").unwrap();
        let accepted = format::decode(&bytes).is_ok_and(|t| t.spec == lasker);
        let tables = dir.to_str().unwrap();
        let input = b"1\n3\n5 4 6\n";
        let out = common::run(env!("CARGO_BIN_EXE_sgq"), &["lasker", "--tables", tables], input);
        let err = common::text(&out.stderr);
        if accepted {
            prop_assert!(out.status.success(), "{}", err);
        } else {
            prop_assert_eq!(out.status.code(), Some(1));
            prop_assert!(out.stdout.is_empty());
            prop_assert!(err.lines().count() == 1 && err.contains("build it with `sgtab build \
                lasker:1024"), "{}", err);
        }
        let out = common::sgtab(&["show", file.to_str().unwrap()]);
        let err = common::text(&out.stderr);
        prop_assert_eq!(out.status.success(), format::decode(&bytes).is_ok(), "{}", err);
        prop_assert!(out.status.success() || err.lines().count() == 1, "{}", err);
        prop_assert!(!err.contains("panicked"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Truncation at every length of every small valid table, and of the chess table at many.
#[test]
fn truncation_at_every_length_is_refused() {
    let mut files = valid_tables().clone();
    files.push(std::fs::read(common::tables_dir().join("chess-20.sgt")).unwrap());
    for bytes in &files {
        let lengths: Vec<usize> = if bytes.len() < 4096 {
            (0..bytes.len()).collect()
        } else {
            (0..200)
                .chain((200..bytes.len()).step_by(4099))
                .chain(bytes.len() - 200..bytes.len())
                .collect()
        };
        for len in lengths {
            let cut = &bytes[..len];
            let (result, largest) = largest_allocation(|| format::decode(cut));
            let e = result.map(|_| ()).unwrap_err().to_string();
            assert!(
                !e.contains('\n') && (e.contains("truncated") || e.contains("magic")),
                "cut at {len}: {e}"
            );
            assert!(largest <= len + 4096, "cut at {len}: allocated {largest}");
        }
        assert!(format::decode(bytes).is_ok());
    }
}
