//! An ordered map over worker threads: what the walks over input in memory read their pieces
//! with, and what answers cases in batches on the threads.

use super::threads::spawn_helpers;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

/// Pieces (or batches) in flight, per thread.
const AHEAD: usize = 2;

/// An ordered map over worker threads: inputs [`send`](Ordered::send) in order come back from
/// [`recv`](Ordered::recv) as `f(input)` in the same order. At most `window` are in flight, which
/// callers keep to by looking at [`in_flight`](Ordered::in_flight). With one thread (or none
/// that the system would start) `f` runs on the caller's thread, at `send`.
///
/// One mutex and two condition variables, not channels: `sgq` must stay small, and a channel
/// and a reordering map per element type cost it over 100 KiB.
pub struct Ordered<'s, 'f, I, O> {
    f: &'f (dyn Fn(I) -> O + Sync),
    /// `None`: inline, results kept in `ready`.
    shared: Option<&'s OrderedShared<I, O>>,
    ready: VecDeque<O>,
    sent: usize,
    next: usize,
    pub window: usize,
}

/// What the caller and the workers share.
struct OrderedShared<I, O> {
    state: Mutex<OrderedState<I, O>>,
    /// Signalled when a job is queued or the map closes (workers wait on it).
    work: Condvar,
    /// Signalled when a result comes back or a worker fails (the caller waits on it).
    done: Condvar,
}

struct OrderedState<I, O> {
    jobs: VecDeque<I>,
    /// Results of the inputs in flight, the earliest first; `None` until it is done.
    slots: VecDeque<Option<O>>,
    /// Index of the first input in flight (of `slots[0]`), and of the next job to take.
    first: usize,
    taken: usize,
    closed: bool,
    /// A worker panicked: its result will never come (the scope re-raises the panic).
    failed: bool,
}

impl<I, O> OrderedShared<I, O> {
    fn lock(&self) -> std::sync::MutexGuard<'_, OrderedState<I, O>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A worker: takes jobs in order until the map closes.
    fn work(&self, f: &(dyn Fn(I) -> O + Sync)) {
        /// Tells the caller if `f` panics, so that it does not wait for ever.
        struct Failed<'a, I, O>(&'a OrderedShared<I, O>);
        impl<I, O> Drop for Failed<'_, I, O> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.lock().failed = true;
                    self.0.done.notify_all();
                }
            }
        }
        let _failed = Failed(self);
        loop {
            let (i, x) = {
                let mut st = self.lock();
                loop {
                    if let Some(x) = st.jobs.pop_front() {
                        st.taken += 1;
                        break (st.taken - 1, x);
                    }
                    if st.closed {
                        return;
                    }
                    st = self.work.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            let o = f(x);
            let mut st = self.lock();
            let at = i - st.first;
            st.slots[at] = Some(o);
            if at == 0 {
                self.done.notify_one();
            }
        }
    }

    fn close(&self) {
        self.lock().closed = true;
        self.work.notify_all();
    }
}

/// Runs `body` with an [`Ordered`] map of `f` on `threads` threads (plain scoped threads: `sgq`
/// stays small, no thread pool crate). The workers stop when `body` returns.
pub fn ordered<I: Send, O: Send, R>(
    threads: usize,
    f: &(dyn Fn(I) -> O + Sync),
    body: impl FnOnce(&mut Ordered<I, O>) -> R,
) -> R {
    let plain = || Ordered { f, shared: None, ready: VecDeque::new(), sent: 0, next: 0, window: 1 };
    if threads <= 1 {
        return body(&mut plain());
    }
    let shared = OrderedShared {
        state: Mutex::new(OrderedState {
            jobs: VecDeque::new(),
            slots: VecDeque::new(),
            first: 0,
            taken: 0,
            closed: false,
            failed: false,
        }),
        work: Condvar::new(),
        done: Condvar::new(),
    };
    /// Closes the map when `body` returns or unwinds, so the workers return and the scope ends.
    struct Close<'a, I, O>(&'a OrderedShared<I, O>);
    impl<I, O> Drop for Close<'_, I, O> {
        fn drop(&mut self) {
            self.0.close();
        }
    }
    std::thread::scope(|s| {
        let shared = &shared;
        let started = spawn_helpers(s, threads, move || shared.work(f)).len();
        let _close = Close(shared);
        if started == 0 {
            return body(&mut plain());
        }
        body(&mut Ordered { shared: Some(shared), window: AHEAD * started, ..plain() })
    })
}

impl<I, O> Ordered<'_, '_, I, O> {
    /// Hands `x` to a worker (or, inline, works it out now).
    pub fn send(&mut self, x: I) {
        match self.shared {
            Some(shared) => {
                let mut st = shared.lock();
                st.jobs.push_back(x);
                st.slots.push_back(None);
                drop(st);
                shared.work.notify_one();
            }
            None => self.ready.push_back((self.f)(x)),
        }
        self.sent += 1;
    }

    /// The result of the next of `all` (inputs sent in order: `all[i]` is the i-th sent),
    /// after sending as many more of them as the window holds; `None` when all are taken.
    pub fn next_in_order(&mut self, all: &[I]) -> Option<O>
    where
        I: Clone,
    {
        while self.sent < all.len() && self.in_flight() < self.window {
            self.send(all[self.sent].clone());
        }
        self.recv()
    }

    /// Inputs sent whose results have not been taken.
    pub fn in_flight(&self) -> usize {
        self.sent - self.next
    }

    /// The result of the earliest input sent and not taken, waiting for it; `None` if none is in
    /// flight (or a worker panicked, which the scope then re-raises).
    pub fn recv(&mut self) -> Option<O> {
        if self.next == self.sent {
            return None;
        }
        let o = match self.shared {
            None => self.ready.pop_front(),
            Some(shared) => {
                let mut st = shared.lock();
                loop {
                    if let Some(Some(_)) = st.slots.front() {
                        st.first += 1;
                        break st.slots.pop_front().flatten();
                    }
                    if st.failed {
                        return None;
                    }
                    st = shared.done.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            }
        };
        self.next += 1;
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_keeps_order_with_any_thread_count() {
        for threads in [1, 2, 5] {
            let f = |x: u64| {
                std::thread::sleep(std::time::Duration::from_micros(x % 7 * 50));
                x * x
            };
            let got = ordered(threads, &f, |o| {
                let mut got = Vec::new();
                for x in 0..200 {
                    if o.in_flight() >= o.window {
                        got.push(o.recv().unwrap());
                    }
                    o.send(x);
                }
                while let Some(y) = o.recv() {
                    got.push(y);
                }
                got
            });
            assert_eq!(got, (0..200u64).map(|x| x * x).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn a_worker_that_panics_does_not_hang_the_map() {
        let f = |x: u64| {
            assert_ne!(x, 5, "a worker fails on 5");
            x
        };
        let run = std::panic::AssertUnwindSafe(|| {
            ordered(2, &f, |o| {
                (0..10).for_each(|x| o.send(x));
                std::iter::from_fn(|| o.recv()).collect::<Vec<_>>()
            })
        });
        // The results before the failure may come back; then the scope re-raises the panic.
        assert!(std::panic::catch_unwind(run).is_err());
    }
}
