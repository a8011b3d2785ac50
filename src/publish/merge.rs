//! Adding up the results of the shards of counts (`count merge`).

use crate::json::CountRecord;
use num_bigint::BigUint;

/// Why shards cannot be added up.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    /// Some shard is missing, given twice, or has an index not below S.
    #[error("n = {n}: need each shard I/{of}, I = 0 to S - 1, exactly once: {wrong}")]
    Shards {
        /// Board size of the count.
        n: u32,
        /// Number of shards.
        of: u64,
        /// What is wrong, listing the shards.
        wrong: String,
    },
    /// The shards were counted by different engines, versions or work splits.
    #[error(
        "n = {n}: shards counted differently ({first}; {other}): count every shard with one version of nqueens and one engine (--gpu and NQUEENS_COUNT_ENGINE=constellations count the constellation engine's items)"
    )]
    Mixed {
        /// Board size of the count.
        n: u32,
        /// How the first shard was counted.
        first: String,
        /// How another was.
        other: String,
    },
    /// Shards of several counts cannot be added up, each for its reason.
    #[error("{0}")]
    Several(String),
    /// Shards of one count dealt by different plans, or some by a plan and some not.
    #[error(
        "n = {n}: shards of different splits of the work ({first}; {other}): count every shard from one plan (--plan-file), or every one without"
    )]
    Splits {
        /// Board size of the count.
        n: u32,
        /// How the first shard was split.
        first: String,
        /// How another was.
        other: String,
    },
    /// Shards of one count asked for different fields (`--distinct`, `--orders`).
    #[error(
        "n = {n}: shards count different things ({first}; {other}): count every shard with the same --distinct and --orders"
    )]
    Fields {
        /// Board size of the count.
        n: u32,
        /// What the first shard counts.
        first: String,
        /// What another counts.
        other: String,
    },
    /// A record written for a newer shape of the records than this program knows.
    #[error(
        "n = {n}: a record of schema version {found}; this nqueens reads up to {known}: merge with the version that counted"
    )]
    Schema {
        /// Board size of the count.
        n: u32,
        /// The record's schema version.
        found: u32,
        /// This program's.
        known: u32,
    },
    /// A record whose digest is missing or does not match its content.
    #[error("n = {n}, shard {shard}/{of}: {why}: count that shard again")]
    Digest {
        /// Board size of the count.
        n: u32,
        /// The shard.
        shard: u64,
        /// Number of shards.
        of: u64,
        /// What is wrong.
        why: &'static str,
    },
    /// Shards that add up to another total than the published one: one was edited (and
    /// its digest computed again) or miscounted.
    #[error(
        "n = {n}: the shards add up to {found} placements, but the count of {n} queens is {known} (OEIS A000170): a shard was edited or damaged; count the shards again"
    )]
    Implausible {
        /// Board size of the count.
        n: u32,
        /// What the shards add up to.
        found: String,
        /// The published count.
        known: u128,
    },
    /// A record whose time is not a number of seconds (negative, or not finite).
    #[error("n = {n}, shard {shard}/{of}: seconds {seconds} is not a time: count that shard again")]
    Seconds {
        /// Board size of the count.
        n: u32,
        /// The shard.
        shard: u64,
        /// Number of shards.
        of: u64,
        /// What the record says, as written.
        seconds: String,
    },
    /// A count that is not a decimal number.
    #[error("n = {n}: {field} {value:?} is not a decimal number")]
    Number {
        /// Board size of the count.
        n: u32,
        /// The field.
        field: &'static str,
        /// What it holds.
        value: String,
    },
}

/// The whole of each count among `records` (in order of first appearance): records of one
/// count (same n, piece, kind, preplaced pieces, number of shards and requested fields)
/// must hold every shard exactly once, counted by the same engine, work split and version.
///
/// ```
/// use nqueens::count::{Kind, Piece, Problem, Rules, Shard, count};
/// use nqueens::json::{CountRecord, Versions};
/// let p = Problem::new(9, Rules::new(Piece::Queen, Kind::Regular), vec![])?;
/// let shard = |i| -> Result<CountRecord, nqueens::count::CountError> {
///     let t = count(&p, false, Shard::new(i, 2)?)?;
///     Ok(CountRecord {
///         versions: Versions::current(),
///         n: 9,
///         piece: Piece::Queen,
///         kind: Kind::Regular,
///         placed: vec![],
///         shard: [i as u64, 2],
///         placements: t.count.to_string(),
///         distinct: None,
///         orders: None,
///         engine: "doc".into(),
///         items: t.items as u64,
///         seconds: 0.0,
///         conflict: None,
///         resumed_items: None,
///         gpu_items: None,
///         plan: None,
///         digest: None,
///     }
///     .sealed())
/// };
/// let whole = nqueens::publish::merge::merge(vec![shard(1)?, shard(0)?]).unwrap();
/// assert_eq!(whole[0].placements, "352");
/// # Ok::<(), nqueens::count::CountError>(())
/// ```
pub fn merge(records: Vec<CountRecord>) -> Result<Vec<CountRecord>, MergeError> {
    merge_files(records.into_iter().map(|r| (r, None)).collect())
}

/// [`merge`] of records read from files (each with the name of its file, if any): a
/// command that reruns missing shards writes them to files named as the others are
/// (the text around the shard index in their names, where all show it at one place), else
/// to `part-I.json`.
pub fn merge_files(
    records: Vec<(CountRecord, Option<String>)>,
) -> Result<Vec<CountRecord>, MergeError> {
    let mut groups: Vec<Vec<CountRecord>> = Vec::new();
    let mut names: Vec<Vec<(u64, Option<String>)>> = Vec::new();
    for (r, file) in records {
        let known = crate::json::SCHEMA_VERSION;
        if r.versions.schema_version > known {
            return Err(MergeError::Schema {
                n: r.n,
                found: r.versions.schema_version,
                known,
            });
        }
        if !r.digest_matches() {
            return Err(MergeError::Digest {
                n: r.n,
                shard: r.shard[0],
                of: r.shard[1],
                why: if r.digest.is_none() {
                    "the record carries no digest (written by an older nqueens, or by hand)"
                } else {
                    "the record's digest does not match its content: it was edited"
                },
            });
        }
        if !(r.seconds.is_finite() && r.seconds >= 0.0) {
            return Err(MergeError::Seconds {
                n: r.n,
                shard: r.shard[0],
                of: r.shard[1],
                seconds: r.seconds.to_string(),
            });
        }
        if let Some(g) = groups.iter().find(|g| {
            let a = &g[0];
            (a.n, a.piece, a.kind, &a.placed, a.shard[1])
                == (r.n, r.piece, r.kind, &r.placed, r.shard[1])
                && plan_digest(a) != plan_digest(&r)
        }) {
            let split = |x: &CountRecord| match &x.plan {
                Some(p) => format!(
                    "shard {}/{} of plan {} ({})",
                    x.shard[0], x.shard[1], p.digest, p.file
                ),
                None => format!("shard {}/{} of the even split", x.shard[0], x.shard[1]),
            };
            return Err(MergeError::Splits {
                n: r.n,
                first: split(&g[0]),
                other: split(&r),
            });
        }
        if let Some(g) = groups.iter().find(|g| {
            let a = &g[0];
            (a.n, a.piece, a.kind, &a.placed, a.shard[1])
                == (r.n, r.piece, r.kind, &r.placed, r.shard[1])
                && !same_count(a, &r)
        }) {
            let fields = |x: &CountRecord| {
                let mut f = vec!["placements"];
                f.extend(x.distinct.as_ref().map(|_| "distinct"));
                f.extend(x.orders.as_ref().map(|_| "orders"));
                f.join(", ")
            };
            return Err(MergeError::Fields {
                n: r.n,
                first: format!(
                    "shard {}/{} counts {}",
                    g[0].shard[0],
                    g[0].shard[1],
                    fields(&g[0])
                ),
                other: format!("shard {}/{} counts {}", r.shard[0], r.shard[1], fields(&r)),
            });
        }
        match groups.iter().position(|g| same_count(&g[0], &r)) {
            Some(g) => {
                names[g].push((r.shard[0], file));
                groups[g].push(r);
            }
            None => {
                names.push(vec![(r.shard[0], file)]);
                groups.push(vec![r]);
            }
        }
    }
    let mut merged = Vec::new();
    let mut failed = Vec::new();
    for (group, files) in groups.into_iter().zip(names) {
        match add_up(group, part_pattern(&files)) {
            Ok(r) => merged.push(r),
            Err(e) => failed.push(e),
        }
    }
    match failed.len() {
        0 => Ok(merged),
        1 => Err(failed.remove(0)),
        _ => Err(MergeError::Several(
            failed
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" | "),
        )),
    }
}

/// The text before and after the shard index in the names of a count's part files, where
/// every file shows its index at one place (the last run of digits that is the index);
/// `None` when some record came from no file or the names differ otherwise.
fn part_pattern(files: &[(u64, Option<String>)]) -> Option<(String, String)> {
    let mut pattern: Option<(String, String)> = None;
    for (index, file) in files {
        let file = file.as_deref()?;
        let digits = index.to_string();
        let b = file.as_bytes();
        let at = (0..=file.len().saturating_sub(digits.len()))
            .rev()
            .find(|&p| {
                file.is_char_boundary(p)
                    && file[p..].starts_with(&digits)
                    && (p == 0 || !b[p - 1].is_ascii_digit())
                    && b.get(p + digits.len()).is_none_or(|c| !c.is_ascii_digit())
            })?;
        let this = (
            file[..at].to_string(),
            file[at + digits.len()..].to_string(),
        );
        match &pattern {
            None => pattern = Some(this),
            Some(p) if *p == this => {}
            Some(_) => return None,
        }
    }
    pattern
}

fn same_count(a: &CountRecord, b: &CountRecord) -> bool {
    (a.n, a.piece, a.kind, &a.placed, a.shard[1]) == (b.n, b.piece, b.kind, &b.placed, b.shard[1])
        && a.distinct.is_some() == b.distinct.is_some()
        && a.orders.is_some() == b.orders.is_some()
        && plan_digest(a) == plan_digest(b)
}

/// The digest of the plan a shard was counted from: shards of different plans (or of a
/// plan and of the even split) deal the items differently and never add up.
fn plan_digest(r: &CountRecord) -> Option<&str> {
    r.plan.as_ref().map(|p| p.digest.as_str())
}

/// How a shard was counted: shards of another engine, or another version of it, split
/// the work differently and their sum would be wrong.
fn how(r: &CountRecord) -> String {
    format!(
        "engine {} with {} work items, nqueens {}",
        r.engine, r.items, r.versions.nqueens_version
    )
}

/// The command that counts the `missing` shards again (runs of shard indices, the first
/// few of `runs` in all), as `count merge` tells a user whose cluster run lost some:
/// writing each to the file named by `pattern` (the text around the index in the other
/// part files' names), else to `part-I.json`.
fn rerun_command(
    r: &CountRecord,
    missing: &[(u64, u64)],
    runs: u64,
    pattern: Option<&(String, String)>,
) -> String {
    let mut args = match &r.plan {
        Some(plan) => format!("nqueens count --plan-file={}", shell_word(&plan.file)),
        // Below n = 24 a count's items are the half-board engine's unless the shards
        // were counted with --gpu or the variable: the rerun must count the same items.
        None if r.engine == "constellations" && r.n <= 23 => {
            format!("NQUEENS_COUNT_ENGINE=constellations nqueens count {}", r.n)
        }
        None => format!("nqueens count {}", r.n),
    };
    if r.piece != crate::count::Piece::Queen {
        args += &format!(" --piece {}", name(&r.piece));
    }
    if r.kind != crate::count::Kind::Regular {
        args += &format!(" --kind {}", name(&r.kind));
    }
    if !r.placed.is_empty() {
        let squares: Vec<String> = r.placed.iter().map(|[a, b]| format!("{a}:{b}")).collect();
        args += &format!(" --place {}", squares.join(","));
    }
    if r.distinct.is_some() {
        args += " --distinct";
    }
    if r.orders.is_some() {
        args += " --orders";
    }
    let of = r.shard[1];
    let (before, after) = pattern
        .cloned()
        .unwrap_or_else(|| ("part-".to_string(), ".json".to_string()));
    let quoted = |s: &str| {
        if s.is_empty() {
            String::new()
        } else {
            shell_word(s)
        }
    };
    let file = |index: &str| format!("{}{index}{}", quoted(&before), quoted(&after));
    if let [(one, last)] = missing
        && one == last
    {
        let out = shell_word(&format!("{before}{one}{after}"));
        return format!("rerun: {args} --shard {one}/{of} --json > {out}");
    }
    let each = format!("{args} --shard $I/{of} --json > {}", file("${I}"));
    if runs > missing.len() as u64 && pattern.is_some() {
        // Too many runs to list: every shard whose file is absent or empty.
        return format!(
            "rerun: for I in $(seq 0 {}); do [ -s {} ] || {each}; done",
            of - 1,
            file("${I}")
        );
    }
    let list: Vec<String> = missing
        .iter()
        .map(|&(a, b)| match b - a {
            0 => a.to_string(),
            1 => format!("{a} {b}"),
            _ => format!("$(seq {a} {b})"),
        })
        .collect();
    let more = if runs > missing.len() as u64 {
        format!(
            " (the first {} of {runs} runs of missing shards; the others likewise)",
            missing.len()
        )
    } else {
        String::new()
    };
    format!("rerun: for I in {}; do {each}; done{more}", list.join(" "))
}

/// `word` as one shell word: as it is when it holds only safe characters, else quoted.
pub fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./+:=@%,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// How the command line spells a piece or a kind (its serde name).
fn name(v: &impl serde::Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn add_up(
    parts: Vec<CountRecord>,
    pattern: Option<(String, String)>,
) -> Result<CountRecord, MergeError> {
    let (n, of) = (parts[0].n, parts[0].shard[1]);
    let mut seen: Vec<u64> = parts.iter().map(|r| r.shard[0]).collect();
    seen.sort_unstable();
    // Compared without listing 0..S: S comes from the file, and a record claiming 2^32
    // shards once made this allocate 34 GB.
    let complete = seen.len() as u64 == of && seen.iter().enumerate().all(|(i, &s)| s == i as u64);
    if !complete {
        const SHOWN: usize = 10;
        let listed = |v: Vec<u64>, total: u64| {
            let mut text = v
                .iter()
                .map(|i| format!("{i}/{of}"))
                .collect::<Vec<_>>()
                .join(", ");
            if total > v.len() as u64 {
                text += &format!(" and {} more", total - v.len() as u64);
            }
            text
        };
        let mut present: Vec<u64> = seen.iter().copied().filter(|&s| s < of).collect();
        present.dedup();
        let missing_total = of - present.len() as u64;
        let missing: Vec<u64> = (0..of)
            .filter(|i| seen.binary_search(i).is_err())
            .take(SHOWN)
            .collect();
        // Runs of missing indices: the gaps between the indices present.
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut run_total = 0u64;
        let mut next = 0u64;
        for &p in present.iter().chain(std::iter::once(&of)) {
            if p > next {
                run_total += 1;
                if runs.len() < SHOWN {
                    runs.push((next, p - 1));
                }
            }
            next = p.saturating_add(1);
        }
        let mut twice: Vec<u64> = seen
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        twice.dedup();
        let mut wrong = Vec::new();
        if !missing.is_empty() {
            let rerun = rerun_command(&parts[0], &runs, run_total, pattern.as_ref());
            wrong.push(format!("missing {}", listed(missing, missing_total)));
            wrong.push(rerun);
        }
        if !twice.is_empty() {
            let total = twice.len() as u64;
            twice.truncate(SHOWN);
            wrong.push(format!("given more than once {}", listed(twice, total)));
        }
        if seen.iter().any(|&i| i >= of) {
            wrong.push("some shard index is not below S".to_string());
        }
        return Err(MergeError::Shards {
            n,
            of,
            wrong: wrong.join("; "),
        });
    }
    if let Some(other) = parts.iter().find(|r| how(r) != how(&parts[0])) {
        return Err(MergeError::Mixed {
            n,
            first: how(&parts[0]),
            other: how(other),
        });
    }
    let sum = |field: &'static str, get: fn(&CountRecord) -> Option<&String>| {
        parts.iter().try_fold(BigUint::ZERO, |acc, r| {
            let value = get(r).map_or("0", |s| s.as_str());
            // Only what nqueens prints: digits, no sign, no leading zero.
            let canonical = !value.is_empty()
                && value.bytes().all(|b| b.is_ascii_digit())
                && (value == "0" || !value.starts_with('0'));
            canonical
                .then(|| value.parse::<BigUint>().ok())
                .flatten()
                .map(|x| acc + x)
                .ok_or_else(|| MergeError::Number {
                    n,
                    field,
                    value: value.to_string(),
                })
        })
    };
    let placements = sum("placements", |r| Some(&r.placements))?.to_string();
    // The digest stops accidents, not an edit sealed anew; where the whole count is
    // published, the sum is checked against it.
    let first = &parts[0];
    if first.piece == crate::count::Piece::Queen
        && first.kind == crate::count::Kind::Regular
        && first.placed.is_empty()
        && let Some(known) = crate::count::known_total(n)
        && placements != known.to_string()
    {
        return Err(MergeError::Implausible {
            n,
            found: placements,
            known,
        });
    }
    let distinct = match parts[0].distinct {
        Some(_) => Some(sum("distinct", |r| r.distinct.as_ref())?.to_string()),
        None => None,
    };
    let orders = match parts[0].orders {
        Some(_) => Some(sum("orders", |r| r.orders.as_ref())?.to_string()),
        None => None,
    };
    // Each finite and at least 0 (checked on reading); a sum too large for a double is
    // no time either.
    let seconds: f64 = parts.iter().map(|r| r.seconds).sum();
    let seconds = if seconds.is_finite() {
        seconds
    } else {
        f64::MAX
    };
    // Items counted on GPUs, where any part says.
    let gpu_items = parts
        .iter()
        .filter_map(|r| r.gpu_items)
        .reduce(u64::saturating_add);
    Ok(CountRecord {
        shard: [0, 1],
        placements,
        distinct,
        orders,
        seconds,
        resumed_items: None,
        gpu_items,
        plan: None,
        digest: None,
        ..parts[0].clone()
    }
    .sealed())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::{Kind, Piece};
    use crate::json::Versions;

    fn shard(i: u64, of: u64, placements: &str) -> CountRecord {
        CountRecord {
            versions: Versions::current(),
            n: 12,
            piece: Piece::Queen,
            kind: Kind::Regular,
            placed: vec![],
            shard: [i, of],
            placements: placements.into(),
            distinct: None,
            orders: None,
            engine: "half-boards".into(),
            items: 30,
            seconds: 1.0,
            conflict: None,
            resumed_items: None,
            gpu_items: None,
            plan: None,
            digest: None,
        }
        .sealed()
    }

    /// The items counted on GPUs are added up over the parts that say (a part counted
    /// without `--gpu` says nothing), and the merged record is sealed with them.
    #[test]
    fn items_counted_on_gpus_add_up() {
        let with = |i: u64, gpu: Option<u64>| {
            let mut r = shard(i, 3, ["7000", "5000", "2200"][i as usize]);
            r.gpu_items = gpu;
            r.sealed()
        };
        let whole = merge(vec![with(0, Some(4)), with(1, None), with(2, Some(5))]).unwrap();
        assert_eq!(whole[0].gpu_items, Some(9));
        assert!(whole[0].digest_matches());
        let none = merge(vec![with(0, None), with(1, None), with(2, None)]).unwrap();
        assert_eq!(none[0].gpu_items, None);
    }

    #[test]
    fn shards_add_up_and_gaps_repeats_and_mixtures_are_named() {
        let whole = merge(vec![
            shard(1, 3, "5000"),
            shard(0, 3, "7000"),
            shard(2, 3, "2200"),
        ])
        .unwrap();
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0].placements, "14200");
        // Q(12) = 14200: shards that add up to another total are refused.
        let err = merge(vec![shard(1, 3, "5"), shard(0, 3, "7"), shard(2, 3, "2")]).unwrap_err();
        assert!(matches!(err, MergeError::Implausible { .. }), "{err}");
        assert_eq!(whole[0].shard, [0, 1]);
        assert_eq!(whole[0].seconds, 3.0);

        let err = merge(vec![shard(0, 4, "1"), shard(0, 4, "1"), shard(3, 4, "1")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "n = 12: need each shard I/4, I = 0 to S - 1, exactly once: missing 1/4, 2/4; rerun: for I in 1 2; do nqueens count 12 --shard $I/4 --json > part-${I}.json; done; given more than once 0/4"
        );

        let mut other = shard(1, 2, "1");
        other.versions.nqueens_version = "0.0.9".into();
        let err = merge(vec![shard(0, 2, "1"), other.clone().sealed()]).unwrap_err();
        assert!(matches!(err, MergeError::Mixed { .. }), "{err}");
        assert!(err.to_string().contains("nqueens 0.0.9"), "{err}");

        let mut items = shard(1, 2, "1");
        items.items = 31;
        assert!(matches!(
            merge(vec![shard(0, 2, "1"), items.sealed()]),
            Err(MergeError::Mixed { .. })
        ));

        for bad in ["x", "+5", "0001", "-1", ""] {
            let err = merge(vec![shard(0, 1, bad)]).unwrap_err();
            assert!(matches!(err, MergeError::Number { .. }), "{bad:?}: {err}");
        }
    }

    #[test]
    fn times_that_are_no_time_and_fields_that_differ_are_named() {
        for bad in [f64::INFINITY, -3.2, f64::NAN] {
            let mut r = shard(0, 1, "14200");
            r.seconds = bad;
            let err = merge(vec![r.sealed()]).unwrap_err();
            assert!(matches!(err, MergeError::Seconds { .. }), "{err}");
        }
        let mut huge = shard(1, 2, "7100");
        huge.seconds = f64::MAX;
        let mut other = shard(0, 2, "7100");
        other.seconds = f64::MAX;
        let whole = merge(vec![huge.sealed(), other.sealed()]).unwrap();
        assert!(whole[0].seconds.is_finite());
        let mut distinct = shard(1, 2, "7100");
        distinct.distinct = Some("900".into());
        let err = merge(vec![shard(0, 2, "7100"), distinct.sealed()]).unwrap_err();
        assert!(
            err.to_string().contains("shards count different things"),
            "{err}"
        );
    }

    #[test]
    fn edited_unsealed_and_future_records_are_refused() {
        let mut edited = shard(1, 2, "5");
        edited.placements = "6".into();
        let err = merge(vec![shard(0, 2, "1"), edited]).unwrap_err();
        assert!(err.to_string().contains("it was edited"), "{err}");
        let mut bare = shard(1, 2, "5");
        bare.digest = None;
        let err = merge(vec![shard(0, 2, "1"), bare]).unwrap_err();
        assert!(err.to_string().contains("carries no digest"), "{err}");
        let mut future = shard(0, 1, "5");
        future.versions.schema_version = crate::json::SCHEMA_VERSION + 1;
        let err = merge(vec![future.sealed()]).unwrap_err();
        assert!(matches!(err, MergeError::Schema { .. }), "{err}");
    }

    /// S comes from the file: a record claiming 2^32 shards is answered in bounded memory,
    /// listing a few of the missing ones.
    #[test]
    fn a_huge_shard_count_is_named_not_enumerated() {
        let err = merge(vec![shard(0, 1 << 32, "1"), shard(5, 1 << 32, "1")]).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("missing 1/4294967296, 2/4294967296")
                && text.contains("and 4294967284 more"),
            "{text}"
        );
    }
}
