//! Content sniffing: contract: "give me the first bytes of a stream, I tell you whether it is
//! gzip, which format it is in, and why it is not text when it is not".
//!
//! Every check of magic bytes and content lives here. Stdin is sniffed for its format, files with
//! an unknown extension only for WARC and docreader (other files are known by their extension);
//! every input is sniffed for gzip, whatever its name; JSON Lines and text are checked for binary
//! content, and WARC payloads by their magic bytes.

use std::io::{self, Cursor, Read};

use crate::format::Format;
use crate::formats::docreader::wire::record_start;
use crate::record::MAX_RECORD_BYTES;

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
/// [`SNIFF_LEN`] of them: a docreader record start (a 4-byte little-endian length, then a protobuf
/// message whose first field is a url: see [`crate::DocreaderReader`]) is docreader; `WARC/` at
/// the first non-blank byte is WARC; a first non-blank byte `{` is JSONL; a first non-blank byte `<`
/// followed by an HTML marker (`<html`, `<!doctype`, `<head`, `<body`, `<p`, `<div`, any case)
/// within the prefix is HTML; anything else is text. A UTF-8 byte order mark is skipped.
pub fn sniff_format(prefix: &[u8]) -> Format {
    let prefix = &prefix[..prefix.len().min(SNIFF_LEN)];
    if is_docreader(prefix) {
        return Format::Docreader;
    }
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

/// Whether (decompressed) content starts with a docreader record: its first `SNIFF_LEN` bytes (or
/// all of them, when shorter) hold a record start whose url is whole.
pub(crate) fn is_docreader(prefix: &[u8]) -> bool {
    let prefix = &prefix[..prefix.len().min(SNIFF_LEN)];
    record_start(prefix, prefix.len() == SNIFF_LEN, MAX_RECORD_BYTES)
}

/// The format of a file with an unknown extension, by its (decompressed) content: WARC or
/// docreader if the content says so, else text.
pub(crate) fn content_format(prefix: &[u8]) -> Format {
    if is_warc(prefix) {
        Format::Warc
    } else if is_docreader(prefix) {
        Format::Docreader
    } else {
        Format::Text
    }
}

/// Whether (decompressed) content is Parquet data, by its magic bytes.
pub(crate) fn is_parquet(prefix: &[u8]) -> bool {
    magic_type(prefix) == Some(PARQUET)
}

/// The media type Parquet data has by its magic bytes.
const PARQUET: &str = "application/vnd.apache.parquet";

/// Why the first bytes of a JSONL input say it is not JSON Lines: binary by its magic bytes,
/// or NUL bytes that make it binary data or UTF-16 text (JSON Lines are UTF-8): a byte order
/// mark, NULs at one parity, or more than one byte in a hundred. A stray NUL in a line is not
/// that (one on line 2 lost the other 99 records): the line is skipped as invalid
/// JSON, with its number, and reading goes on.
pub(crate) fn jsonl_binary(prefix: &[u8]) -> Option<String> {
    if let Some(media) = magic_type(prefix) {
        return Some(format!("binary data ({media}), not JSON Lines; not read"));
    }
    let head = &prefix[..prefix.len().min(1024)];
    let utf16 = head.starts_with(b"\xFF\xFE")
        || head.starts_with(b"\xFE\xFF")
        || utf16_without_bom(head).is_some();
    let nuls = head.iter().filter(|&&b| b == 0).count();
    (utf16 || nuls * 100 > head.len()).then(|| {
        "NUL bytes: binary data or UTF-16 text, not JSON Lines (which are UTF-8); not read"
            .to_owned()
    })
}

fn has_html_marker(bytes: &[u8]) -> bool {
    const MARKERS: [&[u8]; 6] = [b"<html", b"<!doctype", b"<head", b"<body", b"<p", b"<div"];
    // Every marker starts with `<`; checking at each `<` keeps this linear.
    memchr::memchr_iter(b'<', bytes).any(|at| {
        let rest = &bytes[at..];
        MARKERS.iter().any(|m| rest.len() >= m.len() && rest[..m.len()].eq_ignore_ascii_case(m))
    })
}

/// Control bytes in the first KiB: a NUL, or more than a few others (tab, line breaks, form feed
/// and escape are text).
pub(crate) fn looks_binary(body: &[u8]) -> bool {
    let head = &body[..body.len().min(1024)];
    let controls =
        head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C | 0x1B));
    head.contains(&0) || controls.count() > 4.max(head.len() / 64)
}

/// The type of a payload by its magic bytes, for the binary formats crawls are full of.
pub(crate) fn magic_type(b: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"%PDF-", "application/pdf"),
        (b"PK\x03\x04", "application/zip"),
        (b"\x1f\x8b", "application/gzip"),
        (b"\x00\x00\x01\x00", "image/x-icon"),
        // ID3v2.2 to 2.4: the version byte keeps text that starts with "ID3" from matching.
        (b"ID3\x02", "audio/mpeg"),
        (b"ID3\x03", "audio/mpeg"),
        (b"ID3\x04", "audio/mpeg"),
        (b"OggS", "audio/ogg"),
        (b"fLaC", "audio/flac"),
        (b"wOFF", "font/woff"),
        (b"wOF2", "font/woff2"),
        (b"\x7fELF", "application/x-executable"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"),
        (b"Rar!\x1a\x07", "application/vnd.rar"),
        (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
        (b"\x1aE\xdf\xa3", "video/webm"),
        (b"\x00asm", "application/wasm"),
        (b"PAR1", "application/vnd.apache.parquet"),
        (b"SQLite format 3\x00", "application/vnd.sqlite3"),
        (b"\xfd7zXZ\x00", "application/x-xz"),
        (b"\x28\xb5\x2f\xfd", "application/zstd"),
    ];
    if let Some((_, media)) = MAGIC.iter().find(|(magic, _)| b.starts_with(magic)) {
        return Some(media);
    }
    if b.len() >= 12 && b.starts_with(b"RIFF") {
        return match &b[8..12] {
            b"WEBP" => Some("image/webp"),
            b"WAVE" => Some("audio/wav"),
            b"AVI " => Some("video/avi"),
            _ => None,
        };
    }
    (b.len() >= 12 && &b[4..8] == b"ftyp").then_some("video/mp4")
}

/// Why (decompressed) file content is not text, if it is not: binary by its magic bytes
/// (`binary file: image/png`), or NUL bytes that are not UTF-16 text. `None` for text, and for
/// UTF-16 without a byte order mark, which [`utf16_without_bom`] finds.
pub(crate) fn binary_content(bytes: &[u8]) -> Option<String> {
    if encoding_rs::Encoding::for_bom(bytes).is_some() {
        return None;
    }
    if let Some(media) = magic_type(bytes) {
        let hint = match media {
            "application/vnd.apache.parquet" => {
                " (Parquet: name the file .parquet, or use --format parquet)"
            }
            "application/gzip" => " (compressed twice?)",
            _ => "",
        };
        return Some(format!("binary file: {media}{hint}"));
    }
    let head = &bytes[..bytes.len().min(1024)];
    (head.contains(&0) && utf16_without_bom(bytes).is_none())
        .then(|| "binary file: NUL bytes (not text, and not UTF-16)".to_owned())
}

/// Why the first bytes of a file found in a directory say it is not text (`inputs`: such a file
/// is not read): [`binary_content`], or control bytes that are not UTF-16 text.
pub(crate) fn binary_reason(head: &[u8]) -> Option<String> {
    if let Some(reason) = binary_content(head) {
        return Some(reason);
    }
    let utf16 = encoding_rs::Encoding::for_bom(head).is_some() || utf16_without_bom(head).is_some();
    (!utf16 && looks_binary(head)).then(|| "binary file: control bytes".to_owned())
}

/// The UTF-16 encoding of text without a byte order mark, when its first KiB says so
/// unmistakably: NUL bytes, all (or nearly) at one parity (the high bytes of ASCII characters),
/// and that first KiB decodes in that byte order to characters without unpaired surrogates or
/// control characters other than tab, line breaks and form feed.
pub(crate) fn utf16_without_bom(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    if encoding_rs::Encoding::for_bom(bytes).is_some() {
        return None;
    }
    let head = &bytes[..bytes.len().min(1024) & !1];
    let (mut even, mut odd) = (0usize, 0usize);
    for (i, &b) in head.iter().enumerate() {
        if b == 0 {
            if i % 2 == 0 {
                even += 1;
            } else {
                odd += 1;
            }
        }
    }
    let units = head.len() / 2;
    let (encoding, nuls, stray, from_bytes): (_, _, _, fn([u8; 2]) -> u16) = if odd >= even {
        (encoding_rs::UTF_16LE, odd, even, u16::from_le_bytes)
    } else {
        (encoding_rs::UTF_16BE, even, odd, u16::from_be_bytes)
    };
    // Text in a Latin script has a NUL in most units; in other scripts at least in its spaces
    // and line breaks.
    if units == 0 || nuls * 10 < units || stray * 20 > nuls {
        return None;
    }
    let mut code_units: Vec<u16> =
        head.chunks_exact(2).map(|pair| from_bytes([pair[0], pair[1]])).collect();
    // A surrogate pair cut by the end of the first KiB is not an error.
    if code_units.last().is_some_and(|&u| (0xD800..0xDC00).contains(&u)) {
        code_units.pop();
    }
    let clean = char::decode_utf16(code_units)
        .all(|c| c.is_ok_and(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\x0C')));
    clean.then_some(encoding)
}

/// A boxed byte stream that can move to another thread with the reader.
pub(crate) type Stream = Box<dyn Read + Send>;

/// Reads up to `n` bytes from the front of `stream` (fewer only at its end, or at an error) and
/// returns them together with a stream that yields the same bytes as `stream` did, prefix
/// included: an error met while peeking is returned by the replaying stream after the prefix,
/// where it happened (a corrupt gzip member does not end the stream, so its reader goes on).
pub(crate) fn peek(mut stream: Stream, n: usize) -> io::Result<(Vec<u8>, Stream)> {
    let mut prefix = vec![0; n];
    let mut len = 0;
    let mut error = None;
    while len < n {
        match stream.read(&mut prefix[len..]) {
            Ok(0) => break,
            Ok(read) => len += read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    prefix.truncate(len);
    let replay = Replay { prefix: Cursor::new(prefix.clone()), error, rest: stream };
    Ok((prefix, Box::new(replay)))
}

/// A peeked prefix, then the error met while peeking (once), then the rest of the stream.
struct Replay {
    prefix: Cursor<Vec<u8>>,
    error: Option<io::Error>,
    rest: Stream,
}

impl Read for Replay {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.prefix.read(buf)?;
        if n > 0 || buf.is_empty() {
            return Ok(n);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.rest.read(buf)
    }
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
    fn binary_content_and_utf16_without_bom() {
        let utf16le: Vec<u8> =
            "Hello, world!\nÜber naïve".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let utf16be: Vec<u8> =
            "Привет, мир! Это текст.".encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(utf16_without_bom(&utf16le), Some(encoding_rs::UTF_16LE));
        assert_eq!(utf16_without_bom(&utf16be), Some(encoding_rs::UTF_16BE));
        assert_eq!(binary_content(&utf16le), None);
        assert_eq!(binary_content(b"plain text, with a form feed \x0c and tabs\t"), None);
        assert_eq!(binary_content(b"\xEF\xBB\xBFbom"), None);
        assert_eq!(
            binary_content(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").as_deref(),
            Some("binary file: image/png")
        );
        assert_eq!(
            binary_content(b"PAR1\x15\x04").as_deref(),
            Some(
                "binary file: application/vnd.apache.parquet (Parquet: name the file .parquet, or use --format parquet)"
            )
        );
        let ints: Vec<u8> = (0u32..200).flat_map(|i| (i * 7).to_le_bytes()).collect();
        assert_eq!(utf16_without_bom(&ints), None);
        assert_eq!(
            binary_content(&ints).as_deref(),
            Some("binary file: NUL bytes (not text, and not UTF-16)")
        );
        assert_eq!(utf16_without_bom(b"no nul bytes at all"), None);
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
        // An error while peeking comes after the prefix, once; the stream goes on after it.
        let failing = Cursor::new(b"ab".to_vec())
            .chain(Failing(Some(io::Error::other("gap"))))
            .chain(Cursor::new(b"cd".to_vec()));
        let (prefix, mut stream) = peek(Box::new(failing), 10).unwrap();
        assert_eq!(prefix, b"ab");
        let mut buf = [0u8; 10];
        assert_eq!(stream.read(&mut buf).unwrap(), 2);
        assert_eq!(stream.read(&mut buf).unwrap_err().to_string(), "gap");
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"cd");
    }

    /// Fails once, then ends.
    struct Failing(Option<io::Error>);

    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            match self.0.take() {
                Some(e) => Err(e),
                None => Ok(0),
            }
        }
    }
}
