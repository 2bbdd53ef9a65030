//! Peak resident memory per stage, from Linux's `/proc/self`: the high-water mark is reset before
//! a stage (`clear_refs` 5) and read after it (`VmHWM`). Elsewhere, or where the reset is not
//! allowed, the figure is absent rather than wrong.

/// Resets the high-water mark; `false` when it cannot be (the figure would then cover the whole
/// process so far, so none is reported).
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The peak resident memory since the last reset, in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_large_allocation_raises_the_peak_on_linux() {
        if !super::reset_peak() {
            return;
        }
        let before = super::peak_rss_bytes().unwrap();
        let block = vec![1u8; 64 << 20];
        std::hint::black_box(&block);
        let after = super::peak_rss_bytes().unwrap();
        assert!(after >= before + (60 << 20), "{before} -> {after}");
    }
}
