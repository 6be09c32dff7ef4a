//! Runs only the take-and-break engine (no rule search, no file), for timing it against other
//! solvers: `cargo run --release --example octal -- CODE|grundy LAST [THREADS] [--check]`
//! computes heaps 0..=LAST (as `ogsolve -n LAST` does) and prints the time, the largest value,
//! the value of LAST and a CRC of the packed table. `--check` also runs the scalar reference
//! (quadratic: small LAST only) and says whether they agree.

use sgtab::engine::octal;
use sgtab::games::takebreak::{parse_code, reference};
use sgtab::progress::Progress;
use sgtab::values::Packed;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: octal CODE|grundy LAST [THREADS] [--check]";
    let (Some(game), Some(last)) = (args.first(), args.get(1).and_then(|n| n.parse::<u64>().ok()))
    else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let threads = args.get(2).and_then(|t| t.parse().ok()).unwrap_or_else(sgtab::engine::threads);
    let check = args.iter().any(|a| a == "--check");
    let progress = Progress::new(game.clone());
    let start = Instant::now();
    let fail = |e: sgtab::engine::EngineError| -> Packed {
        eprintln!("{game}: {e}");
        std::process::exit(1);
    };
    let table = if game == "grundy" {
        octal::grundy(last + 1, threads, &progress).unwrap_or_else(fail)
    } else {
        let code = parse_code(game).unwrap_or_else(|e| {
            eprintln!("{game}: {e}");
            std::process::exit(2);
        });
        let t = octal::takebreak(&code, last + 1, threads, &progress).unwrap_or_else(fail);
        if check {
            let want = Packed::from_values(&reference(&code, last + 1, &Progress::silent()));
            match t.first_difference(&want) {
                None => println!("equal to the reference"),
                Some(i) => {
                    println!("DIFFERS from the reference at {i}: {} vs {}", t.get(i), want.get(i))
                }
            }
        }
        t
    };
    let took = start.elapsed();
    println!(
        "{game} heaps 0..={last} on {threads} threads: {:.3}s, largest value {}, g({last}) = {}, \
            crc32 {:08x}",
        took.as_secs_f64(),
        table.max(),
        table.get(last),
        crc32fast::hash(table.payload())
    );
}
