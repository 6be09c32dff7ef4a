//! Starting the helper threads of the walks over input in memory: plain scoped threads
//! (`sgq` stays small, no thread pool crate), each started on a core of its own.

/// Starts `n` helper threads in `scope`, each running `work`, each on a core of its own where
/// the system lets this process say so (Linux); returns those the system started (a thread it
/// will not start is one fewer helper, not an error).
///
/// Why not just spawn them: Linux starts a new thread on its parent's core, and an idle core
/// takes it over only at its next load balance, which can be milliseconds later: a large part
/// of a run that reads 100 MB in tens of milliseconds. So each helper is started while the
/// spawning thread's affinity is narrowed to one core that no other thread of the phase has
/// (the helper inherits it; the first helper gets the spawning thread's own core), and the
/// helper widens its own affinity back to the process's as its first act; once all are
/// started, the spawning thread moves to a core of its own (a thread narrowing its own
/// affinity moves at once) and widens its affinity back too. No thread stays pinned: the
/// scheduler moves them as usual from then on.
pub(super) fn spawn_helpers<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    n: usize,
    work: impl Fn() -> T + Send + Copy + 'scope,
) -> Vec<std::thread::ScopedJoinHandle<'scope, T>> {
    let spread = Spread::new(n);
    let mut started = Vec::with_capacity(n);
    for k in 0..n {
        let own = spread.before(k);
        if let Ok(h) = std::thread::Builder::new().spawn_scoped(scope, move || {
            Spread::widen(own);
            work()
        }) {
            started.push(h);
        }
    }
    spread.before(n);
    started
}

/// Where [`spawn_helpers`] puts its threads: the cores this process may use, the spawning
/// thread's own first.
struct Spread {
    /// The affinity to give back (`None`: nothing is narrowed, as off Linux or where the
    /// system does not say).
    #[cfg(target_os = "linux")]
    all: Option<libc::cpu_set_t>,
    #[cfg(target_os = "linux")]
    cores: Vec<usize>,
    /// Helpers started on a core of their own (the rest start where the system puts them).
    #[cfg(target_os = "linux")]
    pinned: usize,
}

/// What a helper widens its affinity to as it starts (`None`: it was not narrowed).
#[cfg(target_os = "linux")]
type Own = Option<libc::cpu_set_t>;
#[cfg(not(target_os = "linux"))]
type Own = ();

impl Spread {
    #[cfg(target_os = "linux")]
    #[inline(never)]
    fn new(n: usize) -> Spread {
        let none = Spread { all: None, cores: Vec::new(), pinned: 0 };
        // SAFETY: a zeroed cpu_set_t is the empty set; the calls write only into `all`, whose
        // size they are given.
        let (all, here) = unsafe {
            let mut all: libc::cpu_set_t = std::mem::zeroed();
            if n == 0
                || libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut all) != 0
            {
                return none; // over 1024 cores, say: started where the system puts them
            }
            (all, libc::sched_getcpu())
        };
        // SAFETY: CPU_ISSET reads the set, with any index below CPU_SETSIZE.
        let allowed = |c: usize| unsafe { libc::CPU_ISSET(c, &all) };
        let Some(here) =
            usize::try_from(here).ok().filter(|&h| h < libc::CPU_SETSIZE as usize && allowed(h))
        else {
            return none;
        };
        let cores: Vec<usize> = std::iter::once(here)
            .chain((0..libc::CPU_SETSIZE as usize).filter(|&c| c != here && allowed(c)))
            .collect();
        let pinned = n.min(cores.len() - 1);
        if pinned == 0 {
            return none;
        }
        Spread { all: Some(all), cores, pinned }
    }

    /// Before helper `k` is started (and with `k` = n once all are): if it is one of the
    /// pinned, the spawning thread's affinity is narrowed to the helper's core; once the
    /// pinned are started, the spawning thread moves to a core none of them was started on,
    /// and its affinity is given back. Returns what the helper widens to. (Not inlined: one
    /// copy in `sgq`, not one per fold.)
    #[cfg(target_os = "linux")]
    #[inline(never)]
    fn before(&self, k: usize) -> Own {
        let all = self.all?;
        if k > self.pinned {
            return None;
        }
        Spread::pin(self.cores[k]);
        if k < self.pinned {
            return Some(all);
        }
        Spread::widen(Some(all));
        None
    }

    /// The calling thread's affinity set to `core` alone; failure is ignored (the thread then
    /// runs where it would have).
    #[cfg(target_os = "linux")]
    fn pin(core: usize) {
        // SAFETY: the set is built in place and passed with its size; pid 0 is this thread.
        unsafe {
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(core, &mut one);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
        }
    }

    /// The calling thread's affinity given back (if it was narrowed).
    #[cfg(target_os = "linux")]
    fn widen(own: Own) {
        if let Some(all) = own {
            // SAFETY: `all` is a set the system gave; pid 0 is this thread.
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &all) };
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn new(_: usize) -> Spread {
        Spread {}
    }
    #[cfg(not(target_os = "linux"))]
    fn before(&self, _: usize) -> Own {}
    #[cfg(not(target_os = "linux"))]
    fn widen(_: Own) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The cores the calling thread may run on.
    #[cfg(target_os = "linux")]
    fn affinity() -> Vec<usize> {
        // SAFETY: as in `Spread::new`.
        let set = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(
                libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
                0
            );
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
                        assert!(
                            !given.contains(&to),
                            "{n} helpers: the spawning thread moved to {to}, a helper's core \
                                ({given:?})"
                        );
                    }
                }
            }
            assert_eq!(
                given.len(),
                n.min(all.len() - 1),
                "{n} helpers on {} cores: {given:?}",
                all.len()
            );
            let mut distinct = given.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), given.len(), "{n} helpers: a core given twice: {given:?}");
            assert_eq!(affinity(), all);
        }
    }
}
