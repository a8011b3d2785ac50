//! Memory use of this process, for the statistics the completion engine keeps.

/// Resident anonymous memory in bytes now (heap: bitmaps and working sets, without
/// mapped file pages); Linux only. From `/proc/self/statm` (resident less shared pages,
/// which is `RssAnon`): `/proc/self/status` says the same but renders every field of the
/// process, tens of microseconds a call, which was a tenth of completing a 100-row board.
/// The file is opened once per process and read again from its start: opening it was a
/// fifth of completing such a board from Python's `complete_many` (BENCHMARKS.md,
/// "Python package").
pub(crate) fn anonymous_rss() -> Option<u64> {
    use std::os::unix::fs::FileExt;
    use std::sync::Mutex;
    // (process id, the file): a child forked after the open would read its parent's
    // statm through it (`/proc/self` was resolved at the open), so a new process opens
    // its own.
    static STATM: Mutex<Option<(u32, std::fs::File)>> = Mutex::new(None);
    let mut buf = [0u8; 256];
    let len = {
        let pid = std::process::id();
        let mut held = STATM.lock().unwrap_or_else(|e| e.into_inner());
        if held.as_ref().is_none_or(|(p, _)| *p != pid) {
            *held = Some((pid, std::fs::File::open("/proc/self/statm").ok()?));
        }
        let (_, file) = held.as_ref()?;
        file.read_at(&mut buf, 0).ok()?
    };
    let statm = std::str::from_utf8(&buf[..len]).ok()?;
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
