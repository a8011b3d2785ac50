//! Memory use of this process, for the statistics the completion engine keeps.

/// Resident anonymous memory in bytes now (heap: bitmaps and working sets, without
/// mapped file pages); Linux only. From `/proc/self/statm` (resident less shared pages,
/// which is `RssAnon`): `/proc/self/status` says the same but renders every field of the
/// process, tens of microseconds a call, which was a tenth of completing a 100-row board.
pub(crate) fn anonymous_rss() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let mut fields = statm.split_whitespace().skip(1);
    let resident: u64 = fields.next()?.parse().ok()?;
    let shared: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(resident.saturating_sub(shared) * u64::try_from(page).ok()?)
}

#[cfg(test)]
mod tests {
    /// statm's resident less shared agrees with status's RssAnon (to within what the
    /// process allocates between the two reads).
    #[test]
    fn statm_gives_rss_anon() {
        let ours = super::anonymous_rss().unwrap();
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("RssAnon:"))
            .and_then(|v| v.split_whitespace().next())
            .unwrap()
            .parse()
            .unwrap();
        let theirs = kb * 1024;
        assert!(ours.abs_diff(theirs) < 4 << 20, "{ours} vs {theirs}");
    }
}
