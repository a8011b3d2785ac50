//! Memory use of this process, for the statistics the completion engine keeps.

/// Resident anonymous memory in bytes now (heap: bitmaps and working sets, without
/// mapped file pages); Linux only.
pub(crate) fn anonymous_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("RssAnon:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
