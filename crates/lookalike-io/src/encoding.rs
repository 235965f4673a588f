//! Bytes to text in one known encoding: contract: "give me bytes and an encoding, I give you a
//! `String` and, if some bytes were not valid in that encoding, a warning saying how many".
//!
//! Which encoding to use is [`crate::charset`]'s question; this module only decodes. UTF-8 and
//! UTF-16 are decoded here (so that the warning can count bytes and code units); every other
//! encoding goes through `encoding_rs`.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// Decodes `bytes` (without a byte order mark) in `encoding`; the warning is `Some` when invalid
/// sequences were replaced with U+FFFD.
pub(crate) fn decode_as(bytes: &[u8], encoding: &'static Encoding) -> (String, Option<String>) {
    if encoding == UTF_8 {
        decode_utf8(bytes)
    } else if encoding == UTF_16LE {
        decode_utf16(bytes, u16::from_le_bytes)
    } else if encoding == UTF_16BE {
        decode_utf16(bytes, u16::from_be_bytes)
    } else {
        let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
        let warning = had_errors.then(|| {
            let replaced = text.chars().filter(|&c| c == char::REPLACEMENT_CHARACTER).count();
            format!(
                "invalid {} replaced with U+FFFD: {}",
                encoding.name(),
                plural(replaced, "sequence")
            )
        });
        (text.into_owned(), warning)
    }
}

pub(crate) fn decode_utf8(bytes: &[u8]) -> (String, Option<String>) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_owned(), None);
    }
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut invalid = 0usize;
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            invalid += chunk.invalid().len();
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    let warning = format!("invalid UTF-8 replaced with U+FFFD: {}", plural(invalid, "byte"));
    (text, Some(warning))
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> (String, Option<String>) {
    let pairs = bytes.chunks_exact(2);
    let odd_byte = !pairs.remainder().is_empty();
    let units = pairs.map(|pair| unit([pair[0], pair[1]]));
    let mut text = String::with_capacity(bytes.len());
    let mut invalid = 0usize;
    for c in char::decode_utf16(units) {
        text.push(c.unwrap_or_else(|_| {
            invalid += 1;
            char::REPLACEMENT_CHARACTER
        }));
    }
    if odd_byte {
        invalid += 1;
        text.push(char::REPLACEMENT_CHARACTER);
    }
    let warning = (invalid > 0)
        .then(|| format!("invalid UTF-16 replaced with U+FFFD: {}", plural(invalid, "code unit")));
    (text, warning)
}

pub(crate) fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_replaced_and_counted() {
        let (text, warning) = decode_utf8(b"a\xFFb\xC3");
        assert_eq!(text, "a\u{FFFD}b\u{FFFD}");
        assert_eq!(warning.as_deref(), Some("invalid UTF-8 replaced with U+FFFD: 2 bytes"));
        let (_, warning) = decode_utf8(b"a\xFF");
        assert_eq!(warning.as_deref(), Some("invalid UTF-8 replaced with U+FFFD: 1 byte"));
    }

    #[test]
    fn legacy_encodings_count_replacements() {
        let (text, warning) = decode_as(b"\x82\xa0\x82", encoding_rs::SHIFT_JIS);
        assert_eq!(text, "あ\u{FFFD}");
        assert_eq!(warning.as_deref(), Some("invalid Shift_JIS replaced with U+FFFD: 1 sequence"));
        assert_eq!(decode_as(b"\xcf\xf0\xe8", encoding_rs::WINDOWS_1251), ("При".to_owned(), None));
    }
}
