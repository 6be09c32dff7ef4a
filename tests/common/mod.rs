//! Independent witnesses for the tests: real positions (boards, heap lists, pile vectors) with
//! the literal move rules of PROBLEMS.md, and a memoised win/loss search over them.
//!
//! Nothing here uses a mex or an XOR. The Sprague–Grundy value of a position P is found from its
//! definition as an equivalence: it is the k for which P + (a Nim heap of k) is lost for the
//! player to move, and that is decided by plain game-tree search.

#![allow(dead_code)]

#[cfg(feature = "gpu")]
pub mod gpu;

use std::collections::HashMap;
use std::hash::Hash;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// A position of a game, with its literal moves.
pub trait Position: Clone + Eq + Hash {
    fn moves(&self) -> Vec<Self>;
}

/// Memoised search: does the player to move win `position` + *k?
pub struct Search<P: Position> {
    memo: HashMap<(P, u32), bool>,
}

impl<P: Position> Search<P> {
    pub fn new() -> Self {
        Search { memo: HashMap::new() }
    }

    /// Is `p` (alone) won for the player to move?
    pub fn wins(&mut self, p: &P) -> bool {
        self.wins_with_nim(p, 0)
    }

    pub fn wins_with_nim(&mut self, p: &P, k: u32) -> bool {
        if let Some(&w) = self.memo.get(&(p.clone(), k)) {
            return w;
        }
        let w = p.moves().iter().any(|q| !self.wins_with_nim(q, k))
            || (0..k).any(|j| !self.wins_with_nim(p, j));
        self.memo.insert((p.clone(), k), w);
        w
    }

    /// The Sprague–Grundy value of `p`: the Nim heap that balances it.
    pub fn value(&mut self, p: &P) -> u32 {
        (0..).find(|&k| !self.wins_with_nim(p, k)).unwrap()
    }
}

/// Chess rows: cells 1..=W left to right, `true` for a chip. A chip moves right to the nearest
/// empty cell, jumping over the chips in between. Several rows make one position.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board(pub Vec<Vec<bool>>);

impl Position for Board {
    fn moves(&self) -> Vec<Board> {
        let mut out = Vec::new();
        for (r, row) in self.0.iter().enumerate() {
            for c in 0..row.len() {
                if !row[c] {
                    continue;
                }
                if let Some(to) = (c + 1..row.len()).find(|&d| !row[d]) {
                    let mut next = self.clone();
                    next.0[r][c] = false;
                    next.0[r][to] = true;
                    out.push(next);
                }
            }
        }
        out
    }
}

impl Board {
    /// One row of `width` cells from a table index (column p is bit width − p).
    pub fn row_from_mask(width: u32, mask: u32) -> Vec<bool> {
        (1..=width).map(|p| mask >> (width - p) & 1 == 1).collect()
    }
}

/// Heaps of a subtraction game; the move set travels with the position.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SubHeaps {
    pub moves: Vec<u32>,
    pub heaps: Vec<u32>,
}

impl Position for SubHeaps {
    fn moves(&self) -> Vec<SubHeaps> {
        let mut out = Vec::new();
        for (i, &h) in self.heaps.iter().enumerate() {
            for &s in &self.moves {
                if s <= h {
                    let mut next = self.clone();
                    next.heaps[i] -= s;
                    next.heaps.sort_unstable();
                    out.push(next);
                }
            }
        }
        out
    }
}

/// `heaps` with heap `i` replaced by `parts` (empty ones dropped), sorted: one move of a heap game.
fn replace_heap(heaps: &[u32], i: usize, parts: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut v = heaps.to_vec();
    v.remove(i);
    v.extend(parts.into_iter().filter(|&p| p > 0));
    v.sort_unstable();
    v
}

/// Heaps of Lasker's Nim: take any positive number from a heap, or split a heap in two
/// non-empty heaps. Kept sorted, empty heaps dropped.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct LaskerHeaps(pub Vec<u32>);

impl Position for LaskerHeaps {
    fn moves(&self) -> Vec<LaskerHeaps> {
        let mut out = Vec::new();
        for (i, &h) in self.0.iter().enumerate() {
            for left in 0..h {
                out.push(LaskerHeaps(replace_heap(&self.0, i, [left])));
            }
            for a in 1..h {
                out.push(LaskerHeaps(replace_heap(&self.0, i, [a, h - a])));
            }
        }
        out
    }
}

/// Piles of A Funny Stone Game: take a stone from pile i, put one on j and one on k, i < j ≤ k.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piles(pub Vec<u32>);

impl Piles {
    /// Every move in lexicographic (i, j, k) order, with the position it leaves.
    pub fn moves_in_order(&self) -> Vec<((usize, usize, usize), Piles)> {
        let n = self.0.len();
        let mut out = Vec::new();
        for i in 0..n {
            if self.0[i] == 0 {
                continue;
            }
            for j in i + 1..n {
                for k in j..n {
                    let mut next = self.clone();
                    next.0[i] -= 1;
                    next.0[j] += 1;
                    next.0[k] += 1;
                    out.push(((i, j, k), next));
                }
            }
        }
        out
    }
}

impl Position for Piles {
    fn moves(&self) -> Vec<Piles> {
        self.moves_in_order().into_iter().map(|(_, p)| p).collect()
    }
}

/// Pieces on a board walking toward the corner (0, 0), several at once (one position of a sum):
/// `kind` is b'Q' (any distance left, down or diagonally down-left), b'R' (left or down) or b'K'
/// (one step left, down or diagonally). Pieces are kept sorted; they do not block each other.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct CornerPieces {
    pub kind: u8,
    pub pieces: Vec<(u32, u32)>,
}

impl Position for CornerPieces {
    fn moves(&self) -> Vec<CornerPieces> {
        let mut out = Vec::new();
        for (i, &(x, y)) in self.pieces.iter().enumerate() {
            let mut targets = Vec::new();
            let reach = |d: u32| if self.kind == b'K' { d.min(1) } else { d };
            for k in 1..=reach(x) {
                targets.push((x - k, y));
            }
            for k in 1..=reach(y) {
                targets.push((x, y - k));
            }
            if self.kind != b'R' {
                for k in 1..=reach(x.min(y)) {
                    targets.push((x - k, y - k));
                }
            }
            for t in targets {
                let mut next = self.clone();
                next.pieces[i] = t;
                next.pieces.sort_unstable();
                out.push(next);
            }
        }
        out
    }
}

/// A small deterministic generator (xorshift), so tests need no crate and repeat exactly.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform-ish in lo..=hi.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

/// The committed tables.
pub fn tables_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tables")
}

/// Runs one of the package's binaries with `args` and `stdin`.
pub fn run(bin: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(bin)
        .args(args)
        .env_remove("SGTAB_TABLES")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    out
}

pub fn sgq(problem: &str, stdin: &[u8]) -> Output {
    let tables = tables_dir();
    run(env!("CARGO_BIN_EXE_sgq"), &[problem, "--tables", tables.to_str().unwrap()], stdin)
}

pub fn sgtab(args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_sgtab"), args, b"")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Heaps of a take-and-break game given by its digits, moved literally: remove k beans from one
/// heap (k = 0 only to split) and leave the rest as j non-empty heaps, in any order, where bit
/// 2^j of digit d_k allows it. `digit(k)` is written by the test from the code's text, apart
/// from the library's parser.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct CodeHeaps {
    pub digits: std::rc::Rc<Vec<u8>>,
    pub heaps: Vec<u32>,
}

/// Every way to write `n` as an ordered sum of `parts` positive numbers.
fn compositions(n: u32, parts: u32) -> Vec<Vec<u32>> {
    if parts == 0 {
        return if n == 0 { vec![vec![]] } else { vec![] };
    }
    let mut out = Vec::new();
    for first in 1..=n {
        for mut rest in compositions(n - first, parts - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

impl Position for CodeHeaps {
    fn moves(&self) -> Vec<CodeHeaps> {
        let mut out = Vec::new();
        for (i, &h) in self.heaps.iter().enumerate() {
            for k in 0..=h {
                let d = self.digits.get(k as usize).copied().unwrap_or(0);
                for j in 0..4u32 {
                    if d >> j & 1 == 0 || (k == 0 && j < 2) {
                        continue;
                    }
                    for parts in compositions(h - k, j) {
                        let heaps = replace_heap(&self.heaps, i, parts);
                        out.push(CodeHeaps { digits: self.digits.clone(), heaps });
                    }
                }
            }
        }
        out
    }
}

/// Grundy's game, literally: split one heap into two unequal non-empty heaps.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct GrundyHeaps(pub Vec<u32>);

impl Position for GrundyHeaps {
    fn moves(&self) -> Vec<GrundyHeaps> {
        let mut out = Vec::new();
        for (i, &h) in self.0.iter().enumerate() {
            for a in 1..h {
                if a != h - a {
                    out.push(GrundyHeaps(replace_heap(&self.0, i, [a, h - a])));
                }
            }
        }
        out
    }
}

/// An empty scratch directory for test `name` of the test file `file`, under the system's
/// temporary directory (per process, so concurrent test runs do not collide).
pub fn scratch(file: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sgtab-{file}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
