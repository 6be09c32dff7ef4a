//! Your own game in Rust: implement [`Moves`] (how many positions, and each position's
//! options), and sgtab's generic engine builds its whole table on every core; written as a
//! `.sgt` file, the table gets everything the built-in games get (`sgtab show` with its rule,
//! `plot`, `export`, `dump`, `sgq value import:NAME`).
//!
//! `cargo run --release --example custom_game -- [DIR]` builds two games and writes them to
//! DIR (default `tables`):
//! - Kayles (knock down one pin or two adjacent ones from a row; what is left is two rows side
//!   by side, a *sum*): checked against sgtab's own take-and-break engine for `0.77`;
//! - a knight on a board moving toward the corner (a 2-D game: positions are squares, numbered
//!   row-major through [`Dims`]).
//!
//! Then, for instance: `sgtab show DIR/kayles-rust.sgt`, `echo "3 4" | sgq value
//! import:knight-rust --tables DIR`.

use sgtab::engine::generic;
use sgtab::games::stored::Stored;
use sgtab::games::{Dims, Moves};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use sgtab::table::{Table, format};
use sgtab::values::Packed;
use std::path::PathBuf;

/// Kayles on rows of 0..count pins.
struct Kayles {
    count: u64,
}

impl Moves for Kayles {
    fn count(&self) -> u64 {
        self.count
    }

    /// From a row of n pins, knock down 1 or 2 adjacent ones: `a` pins stay on the left and
    /// n − take − a on the right. Each option is the rows it leaves side by side (a sum, worth
    /// the XOR of their values); an empty row is a position like any other (value 0).
    fn options(&self, n: u64, f: &mut dyn FnMut(&[u64])) {
        for take in 1..=2.min(n) {
            for a in 0..=(n - take) / 2 {
                f(&[a, n - take - a]);
            }
        }
    }
}

/// A knight on an N×N board that may only move toward the corner (0, 0): the four moves that
/// lower x + y. Every option has a smaller index than its position, so the engine takes
/// positions in blocks in index order.
struct Knight {
    dims: Dims,
}

impl Moves for Knight {
    fn count(&self) -> u64 {
        self.dims.len()
    }

    fn options(&self, p: u64, f: &mut dyn FnMut(&[u64])) {
        let mut at = [0u64; 2];
        self.dims.point(p, &mut at);
        let [x, y] = at.map(|c| c as i64);
        for (dx, dy) in [(-2, -1), (-2, 1), (-1, -2), (1, -2)] {
            let (a, b) = (x + dx, y + dy);
            if let (Ok(a), Ok(b)) = (u64::try_from(a), u64::try_from(b)) {
                // One position: a plain move (a slice of one).
                if let Some(q) = self.dims.index(&[a, b]) {
                    f(&[q]);
                }
            }
        }
    }
}

/// Builds `game`'s table on every core and writes it as `import:NAME` (a table of values
/// computed outside sgtab's own families: `sgtab verify` checks its checksum, not its values).
fn write(
    name: &str,
    dims: Dims,
    game: &impl Moves,
    dir: &std::path::Path,
) -> Result<Table, String> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let values = generic::compute(game, threads, &Progress::new(format!("building {name}")))
        .map_err(|e| e.to_string())?;
    let spec = GameSpec::new(Stored::imported(name, dims).map_err(|e| e.to_string())?);
    let table = Table::new(spec, Packed::from_values(&values));
    let path = dir.join(table.spec.file_name());
    format::write(&table, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "wrote {} ({} entries; rule: {})",
        path.display(),
        table.values.len(),
        table.rule.map_or("none".into(), |r| r.to_string())
    );
    Ok(table)
}

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "tables".into()));
    if let Err(e) = run(&dir) {
        eprintln!("custom_game: {e}");
        std::process::exit(1);
    }
}

fn run(dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;

    let kayles = write("kayles-rust", Dims::new(&[2000], 2000)?, &Kayles { count: 2000 }, dir)?;
    // The same game as sgtab's take-and-break code 0.77, built by its own engine: equal.
    let builtin = GameSpec::parse("0.77:2000").map_err(|e| e.to_string())?;
    let reference = builtin.reference(&Progress::silent()).map_err(|e| e.to_string())?;
    if reference.first_difference(&kayles.values).is_some() {
        return Err("Kayles from its moves differs from sgtab's 0.77".into());
    }
    println!("kayles-rust equals sgtab's 0.77 on all 2000 rows");

    let dims = Dims::new(&[16, 16], 256)?;
    let knight = write("knight-rust", dims, &Knight { dims }, dir)?;
    let row: Vec<String> =
        (0..16).map(|y| knight.values.get(dims.index(&[3, y]).unwrap_or(0)).to_string()).collect();
    println!("knight-rust, row x = 3: {}", row.join(" "));
    Ok(())
}
