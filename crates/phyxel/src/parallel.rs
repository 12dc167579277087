//! Per-phyxel passes, in parallel when the `parallel` feature is on. Every pass computes element i from
//! read-only inputs and writes only element i, so the result does not depend on the thread count.
//!
//! The passes also keep their own account of which pool thread computed how many elements
//! ([`work_per_thread`]): how the browser's threaded build shows that its threads really work.

#[cfg(feature = "parallel")]
use std::sync::atomic::{AtomicU64, Ordering};

/// Threads whose work is counted; beyond them, work counts for the last one.
pub const COUNTED_THREADS: usize = 64;

/// One counter per cache line, so that threads counting do not contend.
#[cfg(feature = "parallel")]
#[repr(align(64))]
struct Counter(AtomicU64);

#[cfg(feature = "parallel")]
static WORK: [Counter; COUNTED_THREADS] = [const { Counter(AtomicU64::new(0)) }; COUNTED_THREADS];

/// Elements one piece of a parallel pass computed, added to its thread's counter when the piece ends
/// (one atomic addition per piece, not per element).
#[cfg(feature = "parallel")]
#[derive(Default)]
struct Tally(u64);

#[cfg(feature = "parallel")]
impl Drop for Tally {
    fn drop(&mut self) {
        let thread = rayon::current_thread_index().unwrap_or(0);
        WORK[thread.min(COUNTED_THREADS - 1)]
            .0
            .fetch_add(self.0, Ordering::Relaxed);
    }
}

/// `(0..n).map(f).collect()`, on rayon's pool when the `parallel` feature is enabled.
pub fn map_indices<T, F>(n: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..n)
            .into_par_iter()
            .map_init(Tally::default, |tally, i| {
                tally.0 += 1;
                f(i)
            })
            .collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..n).map(f).collect()
    }
}

/// `f(piece)` for every piece (disjoint parts of the outputs, split by the caller), on rayon's pool
/// when the `parallel` feature is enabled; each piece counts as one element in [`work_per_thread`].
/// Each call writes only its own piece, so the result does not depend on the thread count.
pub fn for_each_piece<P, F>(pieces: Vec<P>, f: F)
where
    P: Send,
    F: Fn(P) + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if rayon::current_num_threads() == 1 {
            // One thread: the pieces in a plain loop, without rayon's splitting (measured on the 2D
            // dam break at 71 across: DFSPH's many short passes lost 10-15 % through it).
            let mut tally = Tally::default();
            for piece in pieces {
                tally.0 += 1;
                f(piece);
            }
            return;
        }
        pieces
            .into_par_iter()
            .for_each_init(Tally::default, |tally, piece| {
                tally.0 += 1;
                f(piece)
            });
    }
    #[cfg(not(feature = "parallel"))]
    {
        pieces.into_iter().for_each(f);
    }
}

/// `f(i, &mut a[i], &mut b[i])` for every i, on rayon's pool when the `parallel` feature is enabled;
/// the flags f returned, or-ed together. Each call changes only element i of both slices, so the
/// result does not depend on the thread count.
pub fn update_pairs<A, B, F>(a: &mut [A], b: &mut [B], f: F) -> u8
where
    A: Send,
    B: Send,
    F: Fn(usize, &mut A, &mut B) -> u8 + Sync + Send,
{
    assert_eq!(a.len(), b.len(), "paired slices differ in length");
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        a.par_iter_mut()
            .zip(b.par_iter_mut())
            .enumerate()
            .map_init(Tally::default, |tally, (i, (a, b))| {
                tally.0 += 1;
                f(i, a, b)
            })
            .reduce(|| 0, |x, y| x | y)
    }
    #[cfg(not(feature = "parallel"))]
    {
        a.iter_mut()
            .zip(b.iter_mut())
            .enumerate()
            .fold(0, |flags, (i, (a, b))| flags | f(i, a, b))
    }
}

/// Run `f` — a batch of steps — on a thread of rayon's pool (with the `parallel` feature), with the
/// pool's other threads kept awake until it returns, and wait for it.
///
/// On a pool thread the passes inside split their work there, instead of each being handed to the pool
/// from outside and waited for (in the browser the solver worker's own thread is not one of the pool's,
/// and every such hand-over parks it with Atomics.wait and wakes it again). And between two passes the
/// other threads do not fall asleep: each runs a loop that takes the passes' work as soon as it is
/// split ([`rayon::yield_now`]) until `f` is done, or until it finds none for a few milliseconds
/// (`help_while`). Left to rayon, a thread that runs out of work parks
/// after a few dozen rounds of `yield_now` — immediate in wasm, where yielding to the OS does nothing —
/// and waking it again at the next pass (Atomics.notify) costs a browser tens of microseconds, twice a
/// step. Call it around a batch, not inside a pass. Without the feature, f simply runs here.
pub fn in_pool<R, F>(f: F) -> R
where
    R: Send,
    F: FnOnce() -> R + Send,
{
    #[cfg(feature = "parallel")]
    {
        /// Lets the helpers go when `f` returns or unwinds.
        struct Release<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let busy = std::sync::atomic::AtomicBool::new(true);
        let busy = &busy;
        rayon::scope(|scope| {
            let caller = rayon::current_thread_index();
            if rayon::current_num_threads() > 1 {
                scope.spawn_broadcast(move |_, thread| {
                    if Some(thread.index()) != caller {
                        help_while(busy);
                    }
                });
            }
            let _release = Release(busy);
            f()
        })
    }
    #[cfg(not(feature = "parallel"))]
    {
        f()
    }
}

/// Rounds without work (each a steal attempt and a back-off of 512 spins) after which a helper of
/// [`in_pool`] stops spinning and leaves the thread to rayon's own sleep: a few milliseconds in the
/// browser, where a spin is no instruction, a fraction of a second natively (a PAUSE each) — either
/// way far longer than the gap between two passes of a step.
#[cfg(feature = "parallel")]
pub(crate) const IDLE_ROUNDS: u32 = 1 << 13;

/// A helper of [`in_pool`]: take the passes' work as it is split while `busy`, and give up after
/// [`IDLE_ROUNDS`] rounds in a row that found none.
///
/// The bound is what keeps a helper from deadlocking the batch. A pool thread can steal a piece of the
/// batch in the instant before its broadcast job arrives, and then pick that job up while it waits
/// inside the piece (rayon runs queued jobs while a thread waits on a join): the helper then spins on
/// top of work the batch needs, and an unbounded spin would wait for ever for a batch that waits for
/// it (seen as a browser bench hanging with one worker at full load, about once in fifty runs under CPU
/// contention). Out of work for [`IDLE_ROUNDS`] rounds, the helper returns and the piece below it
/// finishes.
#[cfg(feature = "parallel")]
pub(crate) fn help_while(busy: &std::sync::atomic::AtomicBool) {
    let mut idle = 0;
    while busy.load(Ordering::Acquire) && idle < IDLE_ROUNDS {
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            idle = 0;
        } else {
            idle += 1;
            // Back off a little between steal attempts, which touch the deque of the thread
            // computing (measured in the browser bench: 1.78-1.82x two threads over one with the
            // back-off, 1.72x without).
            for _ in 0..512 {
                std::hint::spin_loop();
                std::hint::black_box(());
            }
        }
    }
}

/// Threads the passes run on.
pub fn thread_count() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// Elements each pool thread computed since the last [`reset_work_counters`] (index = rayon's thread
/// index; one entry per thread of the pool). Without the `parallel` feature: one entry, always 0.
pub fn work_per_thread() -> Vec<u64> {
    #[cfg(feature = "parallel")]
    {
        WORK[..thread_count().min(COUNTED_THREADS)]
            .iter()
            .map(|c| c.0.load(Ordering::Relaxed))
            .collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        vec![0]
    }
}

/// Start counting afresh.
pub fn reset_work_counters() {
    #[cfg(feature = "parallel")]
    for counter in &WORK {
        counter.0.store(0, Ordering::Relaxed);
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::*;

    #[test]
    fn every_element_is_computed_once_in_order_and_counted() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            reset_work_counters();
            let squares = map_indices(10_000, |i| i * i);
            assert!(squares.iter().enumerate().all(|(i, s)| *s == i * i));
            let work = work_per_thread();
            assert_eq!(work.len(), 2);
            // Other tests may run passes at the same time on the global pool, not on this one.
            assert!(work.iter().sum::<u64>() >= 10_000);
        });
    }

    #[test]
    fn a_batch_runs_on_a_pool_thread_and_a_panic_in_it_releases_the_helpers() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        // From outside the pool, the batch moves onto it; its passes still see every element.
        let (on_pool, squares) = pool.install(|| {
            in_pool(|| {
                let squares = map_indices(50_000, |i| i as u64 * i as u64);
                (rayon::current_thread_index().is_some(), squares)
            })
        });
        assert!(on_pool);
        assert!(squares
            .iter()
            .enumerate()
            .all(|(i, s)| *s == (i * i) as u64));
        assert!(in_pool(|| rayon::current_thread_index().is_some()));
        // A batch that panics: the helper stops spinning, the scope ends and the panic comes back
        // (instead of the pool hanging on a helper that waits for a batch that will never finish).
        let batch = std::panic::AssertUnwindSafe(|| pool.install(|| in_pool(|| panic!("blow-up"))));
        let panicked = std::panic::catch_unwind(batch);
        assert!(panicked.is_err());
        assert_eq!(pool.install(|| in_pool(|| 7)), 7, "the pool still works");
    }

    #[test]
    fn a_helper_without_work_gives_way_even_while_the_batch_is_busy() {
        // A helper nested on top of a piece of its own batch (the doc of `help_while`) must return
        // for the piece to finish: with `busy` never cleared, it stops after its idle rounds.
        let busy = std::sync::atomic::AtomicBool::new(true);
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            help_while(&busy);
            done.send(()).unwrap();
        });
        assert!(
            finished
                .recv_timeout(std::time::Duration::from_secs(20))
                .is_ok(),
            "the helper spun on"
        );
    }

    #[test]
    fn paired_updates_see_every_element() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            let mut a: Vec<usize> = (0..10_000).collect();
            let mut b = vec![0usize; 10_000];
            let touched = update_pairs(&mut a, &mut b, |i, a, b| {
                *b = *a * 2;
                *a += 1;
                match i {
                    7_777 => 1,
                    9_999 => 4,
                    _ => 0,
                }
            });
            assert_eq!(touched, 5);
            assert!(work_per_thread().iter().sum::<u64>() >= 10_000);
            assert!((0..10_000).all(|i| a[i] == i + 1 && b[i] == 2 * i));
            assert_eq!(update_pairs(&mut a, &mut b, |_, _, _| 0), 0);
        });
    }
}
