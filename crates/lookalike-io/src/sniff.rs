//! Content sniffing: contract: "give me the first bytes of a stream, I tell you whether it is
//! gzip and which format it is in".
//!
//! Stdin is sniffed for its format, files with an unknown extension only for WARC (other files
//! are known by their extension); every input is sniffed for gzip, whatever its name.

use std::io::{self, Cursor, Read};

use crate::Format;

/// How many bytes [`sniff_format`] looks at.
pub const SNIFF_LEN: usize = 4096;

/// The two magic bytes that start every gzip member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether `prefix` starts like a gzip stream.
pub fn is_gzip(prefix: &[u8]) -> bool {
    prefix.starts_with(&GZIP_MAGIC)
}

/// Guesses the format of (decompressed) content from its first bytes, ideally
/// [`SNIFF_LEN`] of them: `WARC/` at the first non-blank byte is WARC; a first non-blank byte
/// `{` is JSONL; a first non-blank byte `<`
/// followed by an HTML marker (`<html`, `<!doctype`, `<head`, `<body`, `<p`, `<div`, any case)
/// within the prefix is HTML; anything else is text. A UTF-8 byte order mark is skipped.
pub fn sniff_format(prefix: &[u8]) -> Format {
    let prefix = &prefix[..prefix.len().min(SNIFF_LEN)];
    let body = prefix.strip_prefix(UTF8_BOM).unwrap_or(prefix);
    let Some(start) = body.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Format::Text;
    };
    if body[start..].starts_with(WARC_MAGIC) {
        return Format::Warc;
    }
    match body[start] {
        b'{' => Format::Jsonl,
        b'<' if has_html_marker(&body[start..]) => Format::Html,
        _ => Format::Text,
    }
}

const WARC_MAGIC: &[u8] = b"WARC/";

/// Whether (decompressed) content starts like a WARC file: `WARC/` after optional blank space.
pub(crate) fn is_warc(prefix: &[u8]) -> bool {
    let start = prefix.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(prefix.len());
    prefix[start..].starts_with(WARC_MAGIC)
}

fn has_html_marker(bytes: &[u8]) -> bool {
    const MARKERS: [&[u8]; 6] = [b"<html", b"<!doctype", b"<head", b"<body", b"<p", b"<div"];
    // Every marker starts with `<`; checking at each `<` keeps this linear.
    memchr::memchr_iter(b'<', bytes).any(|at| {
        let rest = &bytes[at..];
        MARKERS.iter().any(|m| rest.len() >= m.len() && rest[..m.len()].eq_ignore_ascii_case(m))
    })
}

/// A boxed byte stream that can move to another thread with the reader.
pub(crate) type Stream = Box<dyn Read + Send>;

/// Reads up to `n` bytes from the front of `stream` (fewer only at its end) and returns them
/// together with a stream that yields the same bytes as `stream` did, prefix included.
pub(crate) fn peek(mut stream: Stream, n: usize) -> io::Result<(Vec<u8>, Stream)> {
    let mut prefix = Vec::with_capacity(n);
    (&mut stream).take(n as u64).read_to_end(&mut prefix)?;
    let replay = Cursor::new(prefix.clone()).chain(stream);
    Ok((prefix, Box::new(replay)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_formats() {
        assert_eq!(sniff_format(b"  \n{\"id\": 1}\n"), Format::Jsonl);
        assert_eq!(sniff_format(b"\xEF\xBB\xBF{\"a\":1}"), Format::Jsonl);
        assert_eq!(sniff_format(b"<!DOCTYPE html><html>"), Format::Html);
        assert_eq!(sniff_format(b"\n  <HTML><BODY>hi"), Format::Html);
        assert_eq!(sniff_format(b"<p>hello</p>"), Format::Html);
        assert_eq!(sniff_format(b"<?xml version='1.0'?><feed></feed>"), Format::Text);
        assert_eq!(sniff_format(b"a <p> in text"), Format::Text);
        assert_eq!(sniff_format(b"plain words"), Format::Text);
        assert_eq!(sniff_format(b""), Format::Text);
        assert_eq!(sniff_format(b"[1, 2]"), Format::Text);
        assert_eq!(sniff_format(b"WARC/1.0\r\nWARC-Type: warcinfo\r\n"), Format::Warc);
        assert_eq!(sniff_format(b"\r\nWARC/0.18\n"), Format::Warc);
        assert_eq!(sniff_format(b"WARC: a word"), Format::Text);
        assert!(is_warc(b"\nWARC/1.1"));
        assert!(!is_warc(b"WARC"));
    }

    #[test]
    fn html_marker_must_be_in_the_first_4k() {
        let mut late = b"<x>".to_vec();
        late.extend(std::iter::repeat_n(b' ', SNIFF_LEN));
        late.extend(b"<html>");
        assert_eq!(sniff_format(&late), Format::Text);
    }

    #[test]
    fn gzip_magic() {
        assert!(is_gzip(&[0x1f, 0x8b, 8]));
        assert!(!is_gzip(&[0x1f]));
        assert!(!is_gzip(b"hello"));
    }

    #[test]
    fn peek_replays_the_prefix() {
        let (prefix, mut stream) = peek(Box::new(Cursor::new(b"hello world".to_vec())), 4).unwrap();
        assert_eq!(prefix, b"hell");
        let mut all = Vec::new();
        stream.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"hello world");
        let (prefix, _) = peek(Box::new(Cursor::new(b"hi".to_vec())), 4).unwrap();
        assert_eq!(prefix, b"hi");
    }
}
