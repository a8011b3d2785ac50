//! Board sizes as users write them: `100000000`, `1e8`, `2.5e6`, `10^9`, `1_000_000`.

/// Parses a whole number written plainly, with `_` separators, in scientific notation
/// (`1e8`, `2.5E6`: the value must be whole) or as a power (`10^9`, `2^20`).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    let bad = || format!("{s:?} is not a whole number (examples: 1000000, 1e6, 10^6)");
    let too_big = || format!("{s:?} is too large");
    if let Some((base, exp)) = t.split_once('^') {
        let base: u64 = base.parse().map_err(|_| bad())?;
        let exp: u32 = exp.parse().map_err(|_| bad())?;
        return base.checked_pow(exp).ok_or_else(too_big);
    }
    // A point without an exponent (`8.0`) is the exponent 0.
    let scientific = t
        .split_once(['e', 'E'])
        .or_else(|| t.contains('.').then_some((t.as_str(), "0")));
    if let Some((mantissa, exp)) = scientific {
        let exp: i64 = exp.parse().map_err(|_| bad())?;
        let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if whole.is_empty() && frac.is_empty()
            || !whole
                .chars()
                .chain(frac.chars())
                .all(|c| c.is_ascii_digit())
        {
            return Err(bad());
        }
        // The digits as one integer, and the power of ten that scales them.
        let digits = format!("{whole}{frac}");
        let digits = digits.trim_start_matches('0');
        let scale = exp - frac.len() as i64;
        let (digits, scale) = if scale < 0 {
            // Only trailing zeros may be divided away.
            let cut = (-scale) as usize;
            let kept = digits.len().saturating_sub(cut);
            if !digits[kept..].chars().all(|c| c == '0') {
                return Err(format!("{s:?} is not a whole number"));
            }
            (&digits[..kept], 0)
        } else {
            (digits, scale)
        };
        if digits.is_empty() {
            return Ok(0);
        }
        let value: u64 = digits.parse().map_err(|_| too_big())?;
        let scale = u32::try_from(scale).map_err(|_| too_big())?;
        return 10u64
            .checked_pow(scale)
            .and_then(|p| value.checked_mul(p))
            .ok_or_else(too_big);
    }
    // Digits alone that do not parse are more than a u64 holds, as `1e20` is.
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return t.parse().map_err(|_| too_big());
    }
    t.parse().map_err(|_| bad())
}

/// [`parse_size`] for values that must fit in a `u32`.
pub fn parse_size_u32(s: &str) -> Result<u32, String> {
    let v = parse_size(s)?;
    u32::try_from(v).map_err(|_| format!("{s:?} is larger than {}", u32::MAX))
}

/// A part of a board: a count of rows (or columns, diagonals), or a fraction of n.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PartSize {
    /// So many.
    Count(u64),
    /// This fraction of n (0 < f <= 1).
    Fraction(f64),
}

impl PartSize {
    /// The count on an n-board: a fraction is rounded, and at least 1.
    pub fn of(self, n: u64) -> u64 {
        match self {
            PartSize::Count(c) => c,
            PartSize::Fraction(f) => ((f * n as f64).round() as u64).clamp(1, n.max(1)),
        }
    }
}

/// Parses a part size: a percentage (`2%`, `0.1%`), a fraction below 1 (`0.02`), or a
/// whole count in any notation of [`parse_size`] (`2000`, `2e3`).
pub fn parse_part(s: &str) -> Result<PartSize, String> {
    let t = s.trim();
    let fraction = |v: &str, scale: f64| -> Result<PartSize, String> {
        let f: f64 = v
            .trim()
            .parse()
            .map_err(|_| format!("{s:?} is not a count, a fraction or a percentage"))?;
        let f = f / scale;
        if !(f > 0.0 && f <= 1.0) {
            return Err(format!(
                "{s:?} is not a fraction in (0, 1] (or 0 % < p <= 100 %)"
            ));
        }
        Ok(PartSize::Fraction(f))
    };
    if let Some(p) = t.strip_suffix('%') {
        return fraction(p, 100.0);
    }
    if t.starts_with("0.") || t.starts_with('.') {
        return fraction(t, 1.0);
    }
    // `1.0` or `2.0`: a fraction of 1 (every row) or a count? Neither is guessed.
    if t.contains('.') && !t.contains(['e', 'E']) {
        return Err(format!(
            "{s:?}: write a count without a point (2000, 2e3), a fraction below 1 as 0.02, a percentage as 2%"
        ));
    }
    parse_size(t).map(PartSize::Count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_as_counts_fractions_and_percentages() {
        assert_eq!(parse_part("2%"), Ok(PartSize::Fraction(0.02)));
        assert_eq!(parse_part("0.5"), Ok(PartSize::Fraction(0.5)));
        assert_eq!(parse_part("2e3"), Ok(PartSize::Count(2000)));
        assert_eq!(PartSize::Fraction(0.02).of(100_000), 2000);
        assert_eq!(PartSize::Fraction(1e-9).of(100), 1);
        for bad in ["0%", "101%", "-1%", "x", "0.0", "1.5%x", "1.0", "2.50"] {
            assert!(parse_part(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_in_every_notation() {
        for (s, v) in [
            ("100000000", 100_000_000),
            ("1e8", 100_000_000),
            ("1E8", 100_000_000),
            ("2.5e6", 2_500_000),
            ("10^9", 1_000_000_000),
            ("2^20", 1 << 20),
            ("1_000_000", 1_000_000),
            (" 12 ", 12),
            ("0.5e1", 5),
            ("1.20e1", 12),
            ("8.0", 8),
            ("10.00", 10),
            ("0.0", 0),
            ("0", 0),
        ] {
            assert_eq!(parse_size(s), Ok(v), "{s}");
        }
        for s in [
            "", "e8", "1.5", "8.5", ".", "2.55e1", "1e-1", "-3", "1e20", "10^20", "x", "1e",
            "1.2.3e4",
        ] {
            assert!(parse_size(s).is_err(), "{s}");
        }
        // Past 2^64, in digits or in any notation: too large, not "not a whole number".
        for s in [
            "18446744073709551616",
            "1e20",
            "10^20",
            "99999999999999999999999",
        ] {
            assert!(parse_size(s).unwrap_err().contains("too large"), "{s}");
        }
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_size_u32("4294967295"), Ok(u32::MAX));
        assert!(parse_size_u32("1e10").is_err());
    }
}
