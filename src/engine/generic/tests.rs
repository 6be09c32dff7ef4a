use super::*;
use crate::games::Moves;

/// A game from a closure, for tests.
struct Closure<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync>(u64, F);

impl<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync> Moves for Closure<F> {
    fn count(&self) -> u64 {
        self.0
    }
    fn options(&self, p: u64, f: &mut dyn FnMut(&[u64])) {
        (self.1)(p, f)
    }
}

/// The same game, ranked by `rank`: its options from the plain game's worker.
struct Ranked<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync, R: Fn(u64) -> i64 + Sync>(Closure<F>, R);

impl<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync, R: Fn(u64) -> i64 + Sync> Ranked<F, R> {
    fn new(count: u64, options: F, rank: R) -> Self {
        Ranked(Closure(count, options), rank)
    }
}

impl<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync, R: Fn(u64) -> i64 + Sync> Source for Ranked<F, R> {
    fn count(&self) -> u64 {
        self.0.0
    }
    fn ranked(&self) -> bool {
        true
    }
    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        struct W<'a, R>(Box<dyn Worker + 'a>, &'a R);
        impl<R: Fn(u64) -> i64 + Sync> Worker for W<'_, R> {
            fn options(
                &mut self,
                at: &[u64],
                f: &mut dyn FnMut(u64, &[u64]),
            ) -> Result<(), GameError> {
                self.0.options(at, f)
            }
            fn ranks(&mut self, positions: &[u64], out: &mut Vec<i64>) -> Result<(), GameError> {
                out.extend(positions.iter().map(|&p| (self.1)(p)));
                Ok(())
            }
        }
        Ok(Box::new(W(Source::worker(&self.0)?, &self.1)))
    }
}

/// A game's options as a closure: position, then a callback for each option.
type Options<'a> = &'a dyn Fn(u64, &mut dyn FnMut(&[u64]));

/// Straight from the definition, by recursion with a memo: the judge of the three orders.
fn brute(count: u64, options: Options) -> Vec<u32> {
    fn value(p: u64, options: Options, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(v) = memo[p as usize] {
            return v;
        }
        let mut opts = Vec::new();
        options(p, &mut |o| opts.push(o.to_vec()));
        let vals: Vec<u32> =
            opts.iter().map(|o| o.iter().fold(0, |x, &q| x ^ value(q, options, memo))).collect();
        let v = (0..).find(|v| !vals.contains(v)).unwrap();
        memo[p as usize] = Some(v);
        v
    }
    let mut memo = vec![None; count as usize];
    (0..count).map(|p| value(p, options, &mut memo)).collect()
}

#[test]
fn nim_heaps_are_their_own_values() {
    let nim = Closure(300, |p, f| (0..p).for_each(|q| f(&[q])));
    for threads in 1..4 {
        assert_eq!(
            compute(&nim, threads, &Progress::silent()).unwrap(),
            (0..300).collect::<Vec<u32>>()
        );
    }
}

#[test]
fn an_option_outside_the_table_is_refused_naming_it() {
    let outside = Closure(10, |p, f| {
        if p == 7 {
            f(&[3, 12])
        }
    });
    let e = compute(&outside, 1, &Progress::silent()).unwrap_err();
    assert!(
        e.line
            .starts_with("position 7 has an option at index 12, outside the table's 10 positions"),
        "{e}"
    );
}

#[test]
fn a_cycle_is_refused_naming_its_positions() {
    let cyclic = Closure(10, |p, f| f(&[(p + 1) % 10]));
    let e = compute(&cyclic, 2, &Progress::silent()).unwrap_err();
    assert!(e.line.contains("cycle") && e.line.contains("0 → 1 → 2"), "{e}");
    // A cycle deep in an otherwise acyclic game: 5 → 6 → 5.
    let game = Closure(20, |p, f| match p {
        5 => f(&[6]),
        6 => f(&[5, 1]),
        _ => (0..p).for_each(|q| f(&[q])),
    });
    let e = compute(&game, 2, &Progress::silent()).unwrap_err();
    assert!(e.line.contains("5 → 6 → 5") || e.line.contains("6 → 5 → 6"), "{e}");
    // A long cycle: every arrow shown is a move; the positions left out are counted.
    let long = Closure(100, |p, f| f(&[(p + 1) % 100]));
    let e = compute(&long, 1, &Progress::silent()).unwrap_err();
    assert!(
        e.line.ends_with("0 → 1 → 2 → 3 → (93 more) → 97 → 98 → 99 → 0 (a cycle of 100 positions)"),
        "{e}"
    );
}

#[test]
fn the_empty_option_is_worth_zero() {
    // Position p: one move that leaves nothing, and one to p − 1.
    let g = Closure(5, |p, f| {
        f(&[]);
        if p > 0 {
            f(&[p - 1]);
        }
    });
    assert_eq!(compute(&g, 1, &Progress::silent()).unwrap(), [1, 2, 1, 2, 1]);
}

#[test]
fn options_above_their_position_are_taken_by_the_move_graph() {
    // Reversed Lasker's Nim: position p is heap count − 1 − p, so every option lies above.
    let n = 120u64;
    let heap = move |p: u64| n - 1 - p;
    let options = move |p: u64, f: &mut dyn FnMut(&[u64])| {
        let h = heap(p);
        for k in 0..h {
            f(&[n - 1 - k]);
        }
        for a in 1..h {
            if a <= h - a {
                f(&[n - 1 - a, n - 1 - (h - a)]);
            }
        }
    };
    let want = brute(n, &options);
    for threads in 1..4 {
        assert_eq!(compute(&Closure(n, options), threads, &Progress::silent()).unwrap(), want);
    }
}

#[test]
fn ranked_games_equal_the_brute_force_and_wrong_ranks_are_refused() {
    // A 12×12 board (index 12x + y): move down 1..=2 in x or y, or split into two cells.
    let side = 12u64;
    let options = move |p: u64, f: &mut dyn FnMut(&[u64])| {
        let (x, y) = (p / side, p % side);
        for d in 1..=2 {
            if x >= d {
                f(&[(x - d) * side + y]);
            }
            if y >= d {
                f(&[x * side + y - d]);
            }
        }
        if x > 0 && y > 0 {
            f(&[(x - 1) * side, y - 1]);
        }
    };
    let want = brute(side * side, &options);
    for threads in 1..4 {
        let game = Ranked::new(side * side, options, move |p| ((p / side) + (p % side)) as i64);
        assert_eq!(
            compute(&game, threads, &Progress::silent()).unwrap(),
            want,
            "{threads} threads"
        );
    }
    let wrong = Ranked::new(side * side, options, move |p| (p % side) as i64);
    let e = compute(&wrong, 2, &Progress::silent()).unwrap_err();
    assert!(e.line.contains("rank") && e.line.contains("smaller rank"), "{e}");
}

#[test]
fn positions_without_options_between_others_are_worth_zero() {
    // Only odd positions have options (to every even one below).
    let g = Closure(50, |p, f| {
        if p % 2 == 1 {
            (0..p).filter(|q| q % 2 == 0).for_each(|q| f(&[q]))
        }
    });
    let want = brute(50, &|p, f| {
        if p % 2 == 1 {
            (0..p).filter(|q| q % 2 == 0).for_each(|q| f(&[q]))
        }
    });
    for threads in 1..4 {
        assert_eq!(compute(&g, threads, &Progress::silent()).unwrap(), want);
    }
}

/// A game whose workers record the most options they gave in one call.
struct Batches<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync>(u64, F, std::sync::atomic::AtomicUsize);

impl<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync> Source for Batches<F> {
    fn count(&self) -> u64 {
        self.0
    }
    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        struct W<'a, F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync>(&'a Batches<F>);
        impl<F: Fn(u64, &mut dyn FnMut(&[u64])) + Sync> Worker for W<'_, F> {
            fn options(
                &mut self,
                positions: &[u64],
                f: &mut dyn FnMut(u64, &[u64]),
            ) -> Result<(), GameError> {
                let mut given = 0;
                for &p in positions {
                    (self.0.1)(p, &mut |o| {
                        given += 1;
                        f(p, o)
                    });
                }
                self.0.2.fetch_max(given, Relaxed);
                Ok(())
            }
        }
        Ok(Box::new(W(self)))
    }
}

#[test]
fn a_block_holds_its_budget_of_options_whatever_its_positions_return() {
    // Every position past 0 has a million options (to position 0): a block of 256 of them
    // would hold 4 GiB. A worker is handed no more positions than the block's budget holds
    // (after the first, one at a time), and no more are kept than it holds.
    let million = Batches(
        40,
        |p, f| (0..if p > 0 { 1 << 20 } else { 0 }).for_each(|_| f(&[0])),
        Default::default(),
    );
    for threads in 1..3 {
        million.2.store(0, Relaxed);
        let values = compute(&million, threads, &Progress::silent()).unwrap();
        assert!(values[0] == 0 && values[1..].iter().all(|&v| v == 1));
        let most = million.2.load(Relaxed);
        assert!(most <= 2 << 20, "{threads} threads: a worker gave {most} options in one call");
    }
}

#[test]
fn moves_that_depend_on_earlier_calls_are_refused_before_the_table_is_returned() {
    // The options of a position depend on how many calls were made before: a table that
    // would change with the thread count and the order of the calls.
    let calls = std::sync::atomic::AtomicU64::new(0);
    let counter = Closure(500, |p, f| {
        let c = calls.fetch_add(1, Relaxed);
        (0..p).filter(|q| !(q + c).is_multiple_of(3)).for_each(|q| f(&[q]))
    });
    let e = compute(&counter, 1, &Progress::silent()).unwrap_err();
    assert!(
        e.line.contains("depend on something besides the position")
            && e.line.contains("fresh worker"),
        "{e}"
    );
    // The same game without the counter passes.
    let plain = Closure(500, |p, f| (0..p).filter(|q| q % 3 != 0).for_each(|q| f(&[q])));
    assert_eq!(
        compute(&plain, 2, &Progress::silent()).unwrap(),
        brute(500, &|p, f| (0..p).filter(|q| q % 3 != 0).for_each(|q| f(&[q])))
    );
}

/// A source asked for summaries ([`Worker::summaries`], made from its options by default).
struct Summarized<S: Source>(S);

impl<S: Source> Source for Summarized<S> {
    fn count(&self) -> u64 {
        self.0.count()
    }
    fn ranked(&self) -> bool {
        self.0.ranked()
    }
    fn summarizes(&self) -> bool {
        true
    }
    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        self.0.worker()
    }
}

/// Lasker's Nim: take any number, or split in two (a sum).
fn lasker(p: u64, f: &mut dyn FnMut(&[u64])) {
    (0..p).for_each(|q| f(&[q]));
    (1..=p / 2).for_each(|a| f(&[a, p - a]));
}

#[test]
fn summaries_by_index_equal_the_brute_force_on_every_thread_count() {
    type Shared<'a> = &'a (dyn Fn(u64, &mut dyn FnMut(&[u64])) + Sync);
    let games: [(u64, Shared); 4] = [
        (700, &lasker),
        // Options far below and just below; positions with none between others.
        (900, &|p, f| {
            if p % 7 != 3 {
                [1, 2, 5, 64].iter().filter(|&&d| d <= p).for_each(|&d| f(&[p - d]));
            }
        }),
        // Sums of three, the empty sum, and the same option twice.
        (400, &|p, f| {
            f(&[]);
            if p >= 3 {
                f(&[p / 3, p / 3, p - 1 - 2 * (p / 3)]);
                f(&[p - 1]);
                f(&[p - 1]);
            }
        }),
        (1, &|_, _| {}),
    ];
    for (count, options) in games {
        let want = brute(count, &options);
        for threads in 1..4 {
            let got = compute(&Summarized(Closure(count, options)), threads, &Progress::silent())
                .unwrap();
            assert_eq!(got, want, "{count} positions, {threads} threads");
        }
    }
}

#[test]
fn summaries_fall_back_to_the_move_graph_and_refuse_what_options_refuse() {
    let up = |p: u64, f: &mut dyn FnMut(&[u64])| {
        if p < 50 {
            f(&[p + 1]);
        }
        if p > 0 {
            f(&[p - 1]);
        }
    };
    let down = |p: u64, f: &mut dyn FnMut(&[u64])| {
        if p < 50 {
            f(&[p + 1]);
        }
    };
    assert!(
        compute(&Summarized(Closure(51, up)), 2, &Progress::silent())
            .unwrap_err()
            .line
            .contains("cycle")
    );
    assert_eq!(
        compute(&Summarized(Closure(51, down)), 2, &Progress::silent()).unwrap(),
        brute(51, &down)
    );
    let outside = Closure(10, |p, f| {
        if p == 7 {
            f(&[3, 12])
        }
    });
    let e = compute(&Summarized(outside), 1, &Progress::silent()).unwrap_err();
    assert!(
        e.line
            .starts_with("position 7 has an option at index 12, outside the table's 10 positions"),
        "{e}"
    );
}

#[test]
fn summaries_by_rank_equal_the_brute_force_and_refuse_wrong_ranks() {
    let count = 24 * 24;
    let knight = |p: u64, f: &mut dyn FnMut(&[u64])| {
        let (x, y) = ((p / 24) as i64, (p % 24) as i64);
        for (dx, dy) in [(-2, -1), (-2, 1), (-1, -2), (1, -2)] {
            let (a, b) = (x + dx, y + dy);
            if (0..24).contains(&a) && (0..24).contains(&b) {
                f(&[(a * 24 + b) as u64]);
            }
        }
    };
    let want = brute(count, &knight);
    for threads in 1..4 {
        let got = compute(
            &Summarized(Ranked::new(count, knight, |p| (p / 24 + p % 24) as i64)),
            threads,
            &Progress::silent(),
        )
        .unwrap();
        assert_eq!(got, want, "{threads} threads");
    }
    let e = compute(
        &Summarized(Ranked::new(count, knight, |p| (p / 24) as i64)),
        2,
        &Progress::silent(),
    )
    .unwrap_err();
    assert!(e.line.contains("every option's positions must have a smaller rank"), "{e}");
}

#[test]
fn the_first_run_of_a_block_is_sized_so_that_the_threads_finish_together() {
    use super::summary::Split;
    // Nothing measured yet: even runs.
    assert_eq!(Split { fill: 0.0, summary: 0.0, finish: 0.0, shared: 0.0 }.share(2), 0.5);
    // A summary costs twice a computation: the first thread takes two thirds.
    let f = Split { fill: 1.0, summary: 2.0, finish: 0.0, shared: 0.0 }.share(2);
    assert!((f - 2.0 / 3.0).abs() < 1e-9, "{f}");
    // Three threads, summaries as dear as computations: even thirds.
    let f = Split { fill: 1.0, summary: 1.0, finish: 0.0, shared: 0.0 }.share(3);
    assert!((f - 1.0 / 3.0).abs() < 1e-9, "{f}");
    // Finishing here costs more than the other thread saves: the first takes the most.
    assert_eq!(Split { fill: 1.0, summary: 1.0, finish: 2.0, shared: 0.0 }.share(2), Split::MOST);
    // One thread takes the whole block.
    assert_eq!(Split { fill: 1.0, summary: 1.0, finish: 0.0, shared: 0.0 }.share(1), 1.0);
}

/// A source that summarises (from its options, through a worker that does not count them) and
/// counts the options crossed one by one through [`Worker::options`].
struct Crossing<S: Source>(S, std::sync::atomic::AtomicU64);

impl<S: Source> Source for Crossing<S> {
    fn count(&self) -> u64 {
        self.0.count()
    }
    fn summarizes(&self) -> bool {
        true
    }
    fn worker(&self) -> Result<Box<dyn Worker + '_>, GameError> {
        struct W<'a>(Box<dyn Worker + 'a>, &'a std::sync::atomic::AtomicU64);
        impl Worker for W<'_> {
            fn options(
                &mut self,
                at: &[u64],
                f: &mut dyn FnMut(u64, &[u64]),
            ) -> Result<(), GameError> {
                let mut crossed = 0;
                let got = self.0.options(at, &mut |p, o| {
                    crossed += 1;
                    f(p, o)
                });
                self.1.fetch_add(crossed, Relaxed);
                got
            }
            fn summaries(
                &mut self,
                ask: &crate::games::summary::Ask,
                out: &mut Summaries,
            ) -> Result<(), GameError> {
                self.0.summaries(ask, out)
            }
        }
        Ok(Box::new(W(self.0.worker()?, &self.1)))
    }
}

#[test]
fn the_check_of_a_summarising_source_crosses_options_within_its_budget() {
    // Nim with every option given 300 times: position 63 has 18,900. The sample is 0..64;
    // asked by options from 63 down until 2^16 options are crossed (4 positions), then asked
    // again: about 150,000 options, where asking 16 twice would cross 532,800.
    let heavy =
        |p: u64, f: &mut dyn FnMut(&[u64])| (0..p).for_each(|q| (0..300).for_each(|_| f(&[q])));
    let game = Crossing(Closure(300, heavy), Default::default());
    let values = compute(&game, 1, &Progress::silent()).unwrap();
    assert_eq!(values, (0..300).collect::<Vec<u32>>());
    let crossed = game.1.load(Relaxed);
    assert_eq!(crossed, 2 * 300 * (63 + 62 + 61 + 60));
    // A state kept between calls is still refused: here the options of a position change on
    // its third call (the build, the check, the check's second ask), and not its value.
    let calls: Vec<std::sync::atomic::AtomicU64> = (0..300).map(|_| Default::default()).collect();
    let changing = Crossing(
        Closure(300, |p, f| {
            heavy(p, f);
            if calls[p as usize].fetch_add(1, Relaxed) == 2 && p > 0 {
                f(&[0])
            }
        }),
        Default::default(),
    );
    let e = compute(&changing, 1, &Progress::silent()).unwrap_err();
    assert!(e.line.contains("other options when a fresh worker"), "{e}");
}
