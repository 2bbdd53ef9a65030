//! Peak memory of this process and of finished child processes (Linux).

/// Peak resident set size of this process in bytes (VmHWM), if known.
pub fn peak_rss_self() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Peak resident set size of the largest waited-for child process, in bytes.
#[allow(unsafe_code)]
pub fn peak_rss_children() -> Option<u64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a complete `rusage` into the pointer on success.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: rc == 0 means the struct was filled.
    let usage = unsafe { usage.assume_init() };
    Some(usage.ru_maxrss as u64 * 1024)
}

/// Bytes in GiB (2^30 bytes).
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}
