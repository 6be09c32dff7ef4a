use super::*;

/// xorshift64
fn rng(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

#[test]
fn pieces_end_at_whitespace_and_cover_the_input() {
    let data = b"12 345\n6789  0 1\t22222222222222 3 ";
    for (piece, threads) in (1..=40).flat_map(|p| [(p, 1), (p, 2), (p, 7)]) {
        let pieces = cut(data, piece, threads);
        assert_eq!(pieces.first().map(|p| p.start), Some(0));
        assert_eq!(pieces.last().map(|p| p.end), Some(data.len()));
        for w in pieces.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(input::is_space(data[w[0].end - 1]), "piece {piece}: cut inside a token at {}", w[0].end);
        }
        assert!(pieces.iter().all(|p| !p.is_empty()));
    }
    assert!(cut(b"", 4, 2).is_empty());
}

#[test]
fn threads_asked_for_are_cut_to_what_can_help() {
    let most = Parallel::most_threads();
    assert!(most >= 16);
    assert_eq!(Parallel::new(0).threads, 1);
    assert_eq!(Parallel::new(7).threads, 7);
    assert_eq!(Parallel::new(100_000).threads, most);
    assert_eq!(Parallel::new(usize::MAX).threads, most);
    assert!(Parallel::all_cores().threads <= most);
}

/// The cores the calling thread may run on.
#[cfg(target_os = "linux")]
fn affinity() -> Vec<usize> {
    // SAFETY: as in `Spread::new`.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
        set
    };
    (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect()
}

/// Helpers start on cores of their own, but no thread stays pinned: each helper runs its
/// work with the process's affinity, and the spawning thread has its own back; with fewer
/// helpers than cores, as many as cores, and more (where the rest are started unpinned).
#[cfg(target_os = "linux")]
#[test]
fn helpers_are_spread_and_nothing_stays_pinned() {
    let all = affinity();
    for n in [0, 1, all.len().saturating_sub(1), all.len(), 3 * all.len() + 1] {
        let ran = AtomicUsize::new(0);
        let seen: Vec<Vec<usize>> = std::thread::scope(|s| {
            let work = || {
                ran.fetch_add(1, Ordering::Relaxed);
                affinity()
            };
            let helpers = spawn_helpers(s, n, work);
            assert_eq!(affinity(), all, "{n} helpers: the spawning thread stayed pinned");
            helpers.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(seen.len(), n);
        assert_eq!(ran.load(Ordering::Relaxed), n);
        assert!(seen.iter().all(|a| *a == all), "{n} helpers: a helper ran pinned: {seen:?}");
    }
}

/// The placement itself, one step at a time: before each of the first helpers is started
/// the spawning thread (whose affinity a new thread inherits) is narrowed to one core, a
/// different one each time; then it moves to a core none of them got, with every core
/// allowed again; helpers past that are started with every core allowed.
#[cfg(target_os = "linux")]
#[test]
fn each_early_helper_gets_a_core_no_other_thread_has() {
    let all = affinity();
    for n in [1, all.len().saturating_sub(1), all.len(), 3 * all.len() + 1] {
        let spread = Spread::new(n);
        let mut given = Vec::new();
        for k in 0..=n {
            let own = spread.before(k);
            let now = affinity();
            if own.is_some() {
                assert_eq!(now.len(), 1, "{n} helpers: helper {k} would start on {now:?}");
                given.push(now[0]);
            } else {
                assert_eq!(now, all, "{n} helpers: helper {k} would start narrowed");
                if k == given.len() && !given.is_empty() {
                    // Where it moved to (read from the plan: the core it runs on now may
                    // already have changed, as it is no longer pinned).
                    let to = spread.cores[k];
                    assert!(!given.contains(&to), "{n} helpers: the spawning thread moved to {to}, a helper's core ({given:?})");
                }
            }
        }
        assert_eq!(given.len(), n.min(all.len() - 1), "{n} helpers on {} cores: {given:?}", all.len());
        let mut distinct = given.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), given.len(), "{n} helpers: a core given twice: {given:?}");
        assert_eq!(affinity(), all);
    }
}

#[test]
fn late_pieces_shrink_so_threads_end_together() {
    const MIB: usize = 1 << 20;
    for threads in [1, 2, 7, 16] {
        // The sizes cut from a 105 MB input, as `cut_where` takes them (pieces of digits
        // and spaces end within a token's length of these).
        let (len, piece) = (104_825_743, 4 * MIB);
        let mut sizes = Vec::new();
        let mut left = len;
        while left > 0 {
            let size = piece_at(piece, threads, left).min(left);
            sizes.push(size);
            left -= size;
        }
        assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{threads} threads: sizes grow: {sizes:?}");
        assert!(sizes.iter().all(|&s| s <= piece));
        assert!(sizes[..sizes.len() - 1].iter().all(|&s| s >= LEAST_PIECE));
        // Every thread gets many pieces, and the last ones are small.
        assert!(sizes.len() >= 4 * threads, "{threads} threads: only {} pieces", sizes.len());
        assert!(sizes[sizes.len() - threads..].iter().all(|&s| s <= LEAST_PIECE), "{threads} threads: {sizes:?}");
        // Not many more pieces than whole `piece`s would be.
        assert!(sizes.len() <= len / piece + 1 + 2 * threads * 6, "{threads} threads: {} pieces", sizes.len());
    }
    // A piece less than the least (the tests' small pieces) is kept as it is.
    assert_eq!(piece_at(7, 3, 1 << 30), 7);
    assert_eq!(piece_at(7, 3, 2), 7);
    assert_eq!(piece_at(0, 0, 5), 1);
}

/// Random inputs of the case format (T, then count and tokens), with odd whitespace.
fn make(seed: u64, cases: u64) -> (Vec<u8>, Vec<(usize, u64)>) {
    let mut x = seed | 1;
    let mut text = String::new();
    // (offset where the header starts, xor of the case)
    let mut heads = Vec::new();
    let sep = |x: &mut u64| ["\n", " ", "\t", "\r\n", "   "][(rng(x) % 5) as usize];
    text += &format!("{}{}", cases, sep(&mut x));
    for _ in 0..cases {
        let n = rng(&mut x) % 40;
        heads.push((text.len(), 0));
        text += &format!("{n}{}", sep(&mut x));
        let mut xor = 0;
        for _ in 0..n {
            let v = rng(&mut x) % 1000;
            xor ^= v * 3;
            text += &format!("{}{v}{}", if rng(&mut x).is_multiple_of(9) { "000" } else { "" }, sep(&mut x));
        }
        heads.last_mut().unwrap().1 = xor;
    }
    (text.into_bytes(), heads)
}

fn walk(data: &[u8], threads: usize, piece: usize) -> (Vec<(u64, u64)>, Walked) {
    let body = Body { min: 0, max: 999, value: |v| Sum::of(v * 3, false) };
    let format = Cases { cases: (0, 1000), count: (0, 1000) };
    let mut got = Vec::new();
    let walked = cases(data, Parallel { threads, piece, ..Parallel::new(1) }, format, &body, |case, s| {
        got.push((case, s.xor));
        Ok(())
    })
    .unwrap();
    (got, walked)
}

#[test]
fn case_sums_agree_with_a_plain_reading() {
    for seed in 1..30 {
        let (data, heads) = make(seed, seed * 3);
        let want: Vec<(u64, u64)> = heads.iter().enumerate().map(|(i, &(_, x))| (i as u64 + 1, x)).collect();
        for (threads, piece) in [(1, 1), (2, 7), (3, 64), (7, 13), (2, 1 << 20)] {
            assert_eq!(walk(&data, threads, piece), (want.clone(), Walked::Done), "seed {seed}, {threads} threads, pieces of {piece}");
        }
    }
}

#[test]
fn a_broken_case_hands_over_at_its_header() {
    for seed in 1..20 {
        let (data, heads) = make(seed, 12);
        for broken in [0usize, 5, 11] {
            let (at, _) = heads[broken];
            // The first token after the header, or the next header: a letter either way.
            let mut bad = data.clone();
            let next = (at..bad.len()).find(|&i| input::is_space(bad[i])).unwrap();
            let tok = (next..bad.len()).find(|&i| !input::is_space(bad[i])).unwrap_or(bad.len() - 1);
            bad[tok] = b'x';
            // Many odd tokens in one piece as well (past MAX_ODD), after the broken one.
            let mut many = bad.clone();
            many.extend(b" y".repeat(200));
            for data in [&bad, &many] {
                for (threads, piece) in [(1, 5), (2, 50), (7, 3), (2, 1 << 20)] {
                    let (got, walked) = walk(data, threads, piece);
                    let want: Vec<(u64, u64)> = heads[..broken].iter().enumerate().map(|(i, &(_, x))| (i as u64 + 1, x)).collect();
                    // A letter in the last token of a case may be the next header: the case
                    // before it is then answered too (as the streaming path answers it).
                    assert!(got.len() == broken || got.len() == broken + 1, "seed {seed}: {got:?}");
                    assert_eq!(got[..broken], want[..], "seed {seed}, broken case {}", broken + 1);
                    let Walked::Resume { at: Some((12, case)), offset } = walked else { panic!("seed {seed}: {walked:?}") };
                    assert_eq!(case, got.len() as u64 + 1);
                    // Case 13: the letter came after the last case (which had no tokens).
                    let head = heads.get(case as usize - 1).map_or(tok, |h| h.0);
                    assert!(offset <= head && data[offset..head].iter().all(|&b| input::is_space(b)), "seed {seed}: offset {offset}, header at {head}");
                }
            }
        }
    }
}
