//! How text and numbers from a file are shown in messages: names and words clipped and
//! escaped so that a message stays one line, lists of variables cut short, dimensions and
//! first bytes written compactly.

/// Characters of a file's text that a message quotes: enough to recognise it, short enough
/// that the message stays one line (a 200 MB token was once echoed whole).
const QUOTED_CHARS: usize = 40;

/// Text from a file as a message shows it: control characters escaped (a name holding a
/// newline must not split the one-line error), cut after [`QUOTED_CHARS`] characters with
/// an ellipsis and the whole length. For names and words written without quotes.
pub(crate) fn clip(text: &str) -> String {
    let cut = text
        .char_indices()
        .nth(QUOTED_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let mut out = escaped(&text[..cut]);
    if cut < text.len() {
        out.push_str(&format!("\u{2026} ({} bytes)", text.len()));
    }
    out
}

/// `text` with its control characters escaped as Rust's `{:?}` escapes them (a newline, an
/// escape, a vertical tab: nothing that splits a one-line message or drives a terminal),
/// everything else as it is.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Text from a file in double quotes, escaped as Rust's `{:?}` does and cut as [`clip`]
/// cuts it: `"777777…" (200000000 bytes)`.
pub(crate) fn quote(text: &str) -> String {
    let cut = text
        .char_indices()
        .nth(QUOTED_CHARS)
        .map_or(text.len(), |(i, _)| i);
    if cut == text.len() {
        return format!("{text:?}");
    }
    format!("{:?}\u{2026} ({} bytes)", &text[..cut], text.len())
}

/// Entries listed in a message before the rest are counted.
const LISTED: usize = 8;

/// A list of a file's variables (or other entries) for a message: the first few, then how
/// many more, so that a file of 200,000 variables gives one short line.
pub(crate) fn listing<I>(items: I) -> String
where
    I: IntoIterator<Item = String>,
{
    let mut items = items.into_iter();
    let shown: Vec<String> = items.by_ref().take(LISTED).collect();
    let more = items.count();
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// Dimensions for messages, `2x3` (`-` for none); cut short when a file lists thousands.
pub(crate) fn dims_text(dims: &[u64]) -> String {
    if dims.is_empty() {
        return "-".into();
    }
    let text = dims
        .iter()
        .take(16)
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join("x");
    if dims.len() > 16 {
        return format!("{text}x\u{2026} ({} dimensions)", dims.len());
    }
    text
}

/// Bytes as space-separated hexadecimal pairs, for messages about a file's first bytes.
pub(crate) fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_input_stays_short() {
        assert_eq!(quote("abc"), "\"abc\"");
        assert_eq!(clip("a\nb"), "a\\nb");
        let long = "7".repeat(200_000);
        let q = quote(&long);
        assert!(
            q.len() < 80 && q.ends_with("\"\u{2026} (200000 bytes)"),
            "{q}"
        );
        let c = clip(&long);
        assert!(c.len() < 80 && c.starts_with("7777"), "{c}");
        // Cut between characters, never inside one.
        assert!(quote(&"\u{e9}".repeat(100)).starts_with("\"\u{e9}"));
    }

    #[test]
    fn listings_name_a_few_and_count_the_rest() {
        assert_eq!(listing(["a".to_string(), "b".into()]), "a, b");
        let many = listing((0..200_000).map(|i| format!("v{i}")));
        assert_eq!(many, "v0, v1, v2, v3, v4, v5, v6, v7 and 199992 more");
    }
}
