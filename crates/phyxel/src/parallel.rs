//! Per-phyxel passes, in parallel when the `parallel` feature is on. Every pass computes element i from
//! read-only inputs and writes only element i, so the result does not depend on the thread count.

/// `(0..n).map(f).collect()`, on rayon's pool when the `parallel` feature is enabled.
pub fn map_indices<T, F>(n: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..n).into_par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..n).map(f).collect()
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
