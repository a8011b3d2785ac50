//! How a verification report is printed for people (`verify`, and `complete` of an
//! input that is not a valid composition).

use super::Error;
use nqueens::verify::{Report, Verdict};

/// Prints a report for people, as `verify` does.
pub(crate) fn print_report(file: &str, r: &Report) -> Result<(), Error> {
    print_verdict(file, r)?;
    if r.looks_zero_based {
        outln!("  {}", zero_based_hint(r.n))?;
    }
    Ok(())
}

/// What to say about a board whose values look 0-based (see [`Report::looks_zero_based`]).
pub(crate) fn zero_based_hint(n: u64) -> String {
    format!(
        "hint: every row but one holds a queen and column {n} is the one free: the values look 0-based (0..{}); nqueens reads columns 1..{n} with 0 for an empty row: read it with --zero-based (-1 then marks an empty row), or add 1 to every value (NumPy: Q + 1)",
        n - 1
    )
}

pub(super) fn print_verdict(file: &str, r: &Report) -> Result<(), Error> {
    match r.verdict {
        Verdict::Solution => outln!("{file}: VALID SOLUTION (n = {})", r.n)?,
        Verdict::Composition => outln!("{file}: VALID COMPOSITION ({} of {})", r.k, r.n)?,
        Verdict::Incomplete => outln!(
            "{file}: INCOMPLETE: valid composition with {} of {} queens, a solution was required",
            r.k,
            r.n
        )?,
        Verdict::Invalid => {
            let mut what = Vec::new();
            if r.conflict_count > 0 {
                what.push(super::plural(r.conflict_count, "conflict"));
            }
            if r.out_of_range_count > 0 {
                what.push(format!(
                    "{} out of range",
                    super::plural(r.out_of_range_count, "value")
                ));
            }
            if r.base_violation_count > 0 {
                what.push(format!(
                    "{} not kept",
                    super::plural(r.base_violation_count, "base queen")
                ));
            }
            outln!(
                "{file}: INVALID ({}; n = {}, k = {})",
                what.join(", "),
                r.n,
                r.k
            )?;
            for c in &r.conflicts {
                outln!(
                    "  rows {} and {} share a {}: row {} column {}, row {} column {}",
                    c.first.0,
                    c.second.0,
                    c.kind,
                    c.first.0,
                    c.first.1,
                    c.second.0,
                    c.second.1
                )?;
            }
            for o in &r.out_of_range {
                outln!(
                    "  row {}: value {} is not a column in 1..={}",
                    o.row,
                    o.value,
                    r.n
                )?;
            }
            for b in &r.base_violations {
                outln!(
                    "  row {}: the base has a queen in column {}, this file has {}",
                    b.row,
                    b.base,
                    if b.found == 0 {
                        "none".to_string()
                    } else {
                        format!("column {}", b.found)
                    }
                )?;
            }
        }
    }
    Ok(())
}

/// Peak resident set size in bytes (all pages, mapped file pages included).
pub(crate) fn peak_rss() -> Option<u64> {
    // SAFETY: rusage is plain integers, for which all zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes into the struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    // Linux reports kilobytes.
    Some(usage.ru_maxrss as u64 * 1024)
}

/// `n thing` or `n things`, for statistics people read ("1 run", "2 runs").
pub(super) fn plural(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}
