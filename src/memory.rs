//! Memory use of this process, for the statistics that commands print.

/// Peak resident set size in bytes (all pages, mapped file pages included).
pub fn peak_rss() -> Option<u64> {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    // Linux reports kilobytes.
    Some(usage.ru_maxrss as u64 * 1024)
}

/// Resident anonymous memory in bytes now (heap: bitmaps and working sets, without
/// mapped file pages); Linux only.
pub fn anonymous_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("RssAnon:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
