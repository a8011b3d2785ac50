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
    if let Some((mantissa, exp)) = t.split_once(['e', 'E']) {
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
    t.parse().map_err(|_| bad())
}

/// [`parse_size`] for values that must fit in a `u32`.
pub fn parse_size_u32(s: &str) -> Result<u32, String> {
    let v = parse_size(s)?;
    u32::try_from(v).map_err(|_| format!("{s:?} is larger than {}", u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("0", 0),
        ] {
            assert_eq!(parse_size(s), Ok(v), "{s}");
        }
        for s in [
            "", "e8", "1.5", "2.55e1", "1e-1", "-3", "1e20", "10^20", "x", "1e", "1.2.3e4",
        ] {
            assert!(parse_size(s).is_err(), "{s}");
        }
        assert_eq!(parse_size_u32("4294967295"), Ok(u32::MAX));
        assert!(parse_size_u32("1e10").is_err());
    }
}
