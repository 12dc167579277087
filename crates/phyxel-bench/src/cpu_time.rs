//! The CPU time the process has used, for benches on a machine shared with other work (where the
//! wall clock measures mostly the waits for a core).

/// CPU time of all the process's threads so far (s), from each task's schedstat (Linux).
pub fn cpu_seconds() -> Option<f64> {
    let mut nanoseconds = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        nanoseconds += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(nanoseconds as f64 * 1e-9)
}
