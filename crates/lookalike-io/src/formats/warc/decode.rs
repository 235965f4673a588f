//! Decoding a WARC record: contract: "give me a WARC response record, I give you the document in
//! its HTTP payload or the reason there is none".
//!
//! The decoding rules are documented on [`WarcReader`](crate::WarcReader).

use std::borrow::Cow;
use std::io::Read;

use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;

use super::header::{header_end, header_lines};
use crate::charset::{self, Kind, tld};
use crate::format::Format;
use crate::options::ReadOptions;
use crate::page::{HtmlText, html_text};
use crate::record::{Decoded, MAX_RECORD_BYTES, RawRecord, WarcHeader};
use crate::skip::SkipReason;
use crate::sniff::{looks_binary, magic_type};

/// The longest HTTP header block looked for at the start of a response.
const MAX_HTTP_HEADER: usize = 64 << 10;

impl WarcHeader {
    /// A header for a response record that came without one (a [`RawRecord`] built by hand).
    fn bare(rec: &RawRecord) -> WarcHeader {
        WarcHeader { kind: "response".into(), id: rec.source.to_string(), ..WarcHeader::default() }
    }
}

/// Decodes a [`Format::Warc`] record (see the module docs).
pub(crate) fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    let bare;
    let header = match rec.warc.as_deref() {
        Some(header) => header,
        None => {
            bare = WarcHeader::bare(rec);
            &bare
        }
    };
    match payload(rec, header, opts) {
        Ok(doc) => doc,
        Err(reason) => Decoded::Skip { id: header.id.clone(), reason },
    }
}

fn payload(
    rec: &RawRecord,
    header: &WarcHeader,
    opts: &ReadOptions,
) -> Result<Decoded, SkipReason> {
    if let Some(reason) = &header.skip {
        return Err(reason.clone());
    }
    if let Some(media) = header.content_type.as_deref().map(media_type)
        && !media.is_empty()
        && !media.starts_with("application/http")
    {
        return Err(SkipReason::not_a_document(format!("not an HTTP response: {media}")));
    }
    let http = Http::parse(&rec.bytes)?;
    if !(200..300).contains(&http.status) {
        return Err(SkipReason::not_a_document(format!("HTTP status: {}", http.status_line)));
    }
    let mut warnings = Vec::new();
    if let Some(reason) = &header.truncated {
        warnings.push(format!("payload truncated by the crawler: {reason}"));
    }
    let quiet = header.truncated.is_some();
    let mut body = Cow::Borrowed(http.body);
    if http.transfer_encoding.as_deref().is_some_and(|t| t.contains("chunked"))
        && let Some((data, warning)) = dechunk(&body)
    {
        // A payload the crawler truncated is expected to end early; broken framing is not.
        warnings.extend(warning.filter(|w| !(quiet && w == TRUNCATED_CHUNKED)));
        body = Cow::Owned(data);
    }
    if let Some(coding) = http.content_encoding.as_deref()
        && let Some(decoded) = undo_content_coding(coding, &body)?
    {
        warnings.extend(decoded.warning.filter(|_| !quiet));
        body = Cow::Owned(decoded.data);
    }
    if body.is_empty() {
        return Err(SkipReason::empty("empty payload"));
    }
    let media = http.content_type.as_deref().map(media_type).unwrap_or_default();
    let http_charset = http.content_type.as_deref().and_then(charset_param);
    let utf16 = http_charset
        .as_deref()
        .and_then(|c| charset::label_encoding(c.as_bytes()))
        .is_some_and(|e| !e.is_ascii_compatible());
    let kind = classify(&media, &body, utf16)?;
    let tld = header.target_uri.as_deref().and_then(tld);
    let decoded = charset::decode(&body, kind, http_charset.as_deref(), tld.as_deref());
    warnings.extend(decoded.warning);
    let page = match kind {
        Kind::Html => html_text(decoded.text, opts, header.target_uri.as_deref()),
        Kind::Plain => HtmlText::plain_text(decoded.text),
    };
    warnings.extend(page.warning);
    let doc = Document {
        id: header.id.clone(),
        text: page.text,
        raw_fingerprint: Some(raw_fingerprint(&body)),
        raw_len: rec.bytes.len() as u64,
    };
    let warning = (!warnings.is_empty()).then(|| warnings.join("; "));
    Ok(Decoded::Doc {
        doc,
        warning,
        charset: decoded.charset,
        title: page.title,
        extraction: page.extraction,
        visible: page.visible,
        site: None,
    })
}

/// The parts of an HTTP response the decoder uses.
struct Http<'a> {
    status: u16,
    /// The status line without the version: `404 Not Found`.
    status_line: String,
    content_type: Option<String>,
    content_encoding: Option<String>,
    transfer_encoding: Option<String>,
    body: &'a [u8],
}

impl Http<'_> {
    fn parse(block: &[u8]) -> Result<Http<'_>, SkipReason> {
        if block.is_empty() {
            return Err(SkipReason::empty("empty WARC response"));
        }
        if !block.starts_with(b"HTTP/") {
            return Err(SkipReason::not_a_document("not an HTTP response: no status line"));
        }
        let window = &block[..block.len().min(MAX_HTTP_HEADER)];
        let (head, body) = match header_end(window) {
            Some(end) => (&block[..end], &block[end..]),
            // Headers without a body (and without the final empty line).
            None if block.len() <= MAX_HTTP_HEADER => (block, &[][..]),
            None => {
                return Err(SkipReason::damaged(format!(
                    "HTTP header longer than {} KiB",
                    MAX_HTTP_HEADER >> 10
                )));
            }
        };
        let (first, fields) = header_lines(head);
        let mut parts = first.splitn(2, ' ');
        let _version = parts.next();
        let rest = parts.next().unwrap_or_default().trim();
        let code = rest.split(' ').next().unwrap_or_default();
        let status = match code.parse::<u16>() {
            Ok(status) if code.len() == 3 => status,
            _ => {
                return Err(SkipReason::damaged(format!(
                    "malformed HTTP status line: {}",
                    shorten(&first, 60)
                )));
            }
        };
        let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        Ok(Http {
            status,
            status_line: shorten(rest, 60),
            content_type: field("content-type"),
            content_encoding: field("content-encoding").map(|v| v.to_ascii_lowercase()),
            transfer_encoding: field("transfer-encoding").map(|v| v.to_ascii_lowercase()),
            body,
        })
    }
}

fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_owned(),
    }
}

/// The media type of a `Content-Type` value, lower-cased, without parameters.
fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// The `charset` parameter of a `Content-Type` value, without quotes.
fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_owned())
    })
}

/// The warning of a chunked payload cut short (expected when the crawler truncated it).
const TRUNCATED_CHUNKED: &str = "truncated chunked transfer coding";

/// Undoes chunked transfer coding: the data, and a warning when the framing is broken. `None`
/// when the body does not start like a chunked body (a crawler stored it de-chunked and kept the
/// header): its first line must be a hex size ending in CRLF. A first line that looks like a
/// size but is not one (short, starting with a digit: `1g`, `0x1F`) keeps the body as stored
/// with a warning, and so does a bad size later on (the data before it decoded, the rest kept
/// as stored: nothing is dropped); a body that ends before its zero-size chunk is
/// [`TRUNCATED_CHUNKED`].
fn dechunk(body: &[u8]) -> Option<(Vec<u8>, Option<String>)> {
    let mut out = Vec::with_capacity(body.len());
    let mut pos = 0;
    let mut first = true;
    loop {
        let Some(nl) = memchr::memchr(b'\n', &body[pos..]) else {
            return (!first).then(|| (out, Some(TRUNCATED_CHUNKED.to_owned())));
        };
        let raw = &body[pos..pos + nl];
        // A first line must end in CRLF: text that happens to start with a hex word does not.
        let line = raw.strip_suffix(b"\r").or((!first).then_some(raw))?;
        let token = line.split(|&b| b == b';').next().unwrap_or_default().trim_ascii();
        let size = std::str::from_utf8(token)
            .ok()
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|s| u64::from_str_radix(s, 16).ok());
        let Some(size) = size else {
            let shown = String::from_utf8_lossy(&token[..token.len().min(20)]).into_owned();
            if first {
                let like_a_size = (1..=16).contains(&token.len())
                    && token[0].is_ascii_digit()
                    && token.iter().all(u8::is_ascii_alphanumeric);
                let warning = format!(
                    "bad chunk size {shown:?} at the start of a chunked payload: kept as stored"
                );
                return like_a_size.then(|| (body.to_vec(), Some(warning)));
            }
            out.extend_from_slice(&body[pos..]);
            let warning = format!(
                "bad chunk size {shown:?} at byte {pos} of the chunked payload: the rest kept as \
                 stored"
            );
            return Some((out, Some(warning)));
        };
        pos += nl + 1;
        if size == 0 {
            return Some((out, None));
        }
        let rest = &body[pos..];
        if size >= rest.len() as u64 {
            out.extend_from_slice(rest);
            return Some((out, Some(TRUNCATED_CHUNKED.to_owned())));
        }
        let size = size as usize;
        out.extend_from_slice(&rest[..size]);
        pos += size;
        if body[pos..].starts_with(b"\r\n") {
            pos += 2;
        } else if body[pos..].starts_with(b"\n") {
            pos += 1;
        } else if first {
            return None;
        } else {
            out.extend_from_slice(&body[pos..]);
            let warning = format!(
                "the chunk ending at byte {pos} of the chunked payload is not followed by a line \
                 break: the rest kept as stored"
            );
            return Some((out, Some(warning)));
        }
        first = false;
    }
}

/// A payload with its content coding undone.
struct Inflated {
    data: Vec<u8>,
    /// Set when the coded data was cut short or corrupt after some output.
    warning: Option<String>,
}

/// Undoes a `Content-Encoding` when the payload is encoded that way: `Ok(None)` when it is not
/// (already decoded, or a coding this crate cannot undo), `Err(reason)` when nothing could be
/// decoded.
fn undo_content_coding(coding: &str, body: &[u8]) -> Result<Option<Inflated>, SkipReason> {
    let coding = coding.split(',').next_back().unwrap_or_default().trim();
    match coding {
        "gzip" | "x-gzip" if body.starts_with(&[0x1f, 0x8b]) => {
            inflate(MultiGzDecoder::new(body), "gzip").map(Some)
        }
        "deflate" => {
            let zlib = body.len() >= 2
                && body[0] & 0x0f == 8
                && (u16::from(body[0]) << 8 | u16::from(body[1])) % 31 == 0;
            if zlib {
                inflate(ZlibDecoder::new(body), "deflate").map(Some)
            } else {
                // Raw deflate, as some servers send it; text that is not deflate data fails at
                // once.
                Ok(inflate(DeflateDecoder::new(body), "deflate")
                    .ok()
                    .filter(|i| i.warning.is_none() && !i.data.is_empty()))
            }
        }
        _ => Ok(None),
    }
}

fn inflate(decoder: impl Read, coding: &str) -> Result<Inflated, SkipReason> {
    let limit = MAX_RECORD_BYTES;
    let mut out = Vec::new();
    match decoder.take(limit + 1).read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > limit => Err(SkipReason::too_large(format!(
            "payload larger than the {limit}-byte limit after {coding} decoding"
        ))),
        Ok(_) => Ok(Inflated { data: out, warning: None }),
        Err(e) if out.is_empty() => {
            Err(SkipReason::damaged(format!("corrupt {coding} content coding: {e}")))
        }
        Err(_) => {
            let warning = format!(
                "truncated or corrupt {coding} content coding: kept the first {} bytes",
                out.len()
            );
            Ok(Inflated { data: out, warning: Some(warning) })
        }
    }
}

/// Whether a payload is a document, and of which kind.
fn classify(media: &str, body: &[u8], utf16: bool) -> Result<Kind, SkipReason> {
    if let Some(magic) = magic_type(body) {
        return Err(if media.is_empty() || media == magic {
            SkipReason::binary_payload(magic)
        } else {
            SkipReason::binary_payload(format!("{magic} (declared {media})"))
        });
    }
    let kind = match media {
        "text/html" | "application/xhtml+xml" | "application/xhtml" | "text/xhtml" => Kind::Html,
        "text/plain" => Kind::Plain,
        ""
        | "application/octet-stream"
        | "binary/octet-stream"
        | "application/unknown"
        | "unknown/unknown"
        | "*/*"
        | "application/x-unknown-content-type" => {
            if !utf16 && looks_binary(body) {
                return Err(SkipReason::binary_payload("unknown type"));
            }
            if crate::sniff::sniff_format(body) == Format::Html { Kind::Html } else { Kind::Plain }
        }
        _ if is_textual(media) => {
            return Err(SkipReason::not_a_document(format!("not a document: {media}")));
        }
        _ => return Err(SkipReason::binary_payload(media)),
    };
    if !utf16 && looks_binary(body) {
        return Err(SkipReason::binary_payload(format!("control bytes in {media}")));
    }
    Ok(kind)
}

/// Media types that are text but not documents (style sheets, scripts, data, feeds).
fn is_textual(media: &str) -> bool {
    media.starts_with("text/")
        || media.ends_with("+xml")
        || media.ends_with("+json")
        || matches!(
            media,
            "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/json"
                | "application/x-json"
                | "application/xml"
                | "application/x-www-form-urlencoded"
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skip::SkipKind;

    #[test]
    fn chunked_bodies() {
        let done = |data: &[u8]| Some((data.to_vec(), None));
        let truncated = |data: &[u8]| Some((data.to_vec(), Some(TRUNCATED_CHUNKED.to_owned())));
        assert_eq!(dechunk(b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n"), done(b"Wikipedia"));
        assert_eq!(dechunk(b"4\r\nWiki\r\n5\r\npe"), truncated(b"Wikipe"));
        assert_eq!(dechunk(b"A\r\n0123"), truncated(b"0123"));
        assert_eq!(dechunk(b"4\r\nWiki\r\n"), truncated(b"Wiki"));
        // Not chunked: stored de-chunked by the crawler.
        assert_eq!(dechunk(b"<html>"), None);
        assert_eq!(dechunk(b"cafe\nbabe"), None);
        assert_eq!(dechunk(b"2\r\nabc"), None);
        assert_eq!(dechunk(b"Hello\r\nworld"), None);
        assert_eq!(dechunk(b""), None);
    }

    /// Regression: a chunked payload with a bad chunk size was kept with its framing
    /// and no warning (or its rest dropped as "truncated").
    #[test]
    fn a_bad_chunk_size_is_reported_and_nothing_is_dropped() {
        assert_eq!(
            dechunk(b"1g\r\nHello\r\n0\r\n\r\n"),
            Some((
                b"1g\r\nHello\r\n0\r\n\r\n".to_vec(),
                Some(
                    "bad chunk size \"1g\" at the start of a chunked payload: kept as stored"
                        .into()
                )
            ))
        );
        assert_eq!(
            dechunk(b"4\r\nWiki\r\nzz\r\npedia\r\n0\r\n\r\n"),
            Some((
                b"Wikizz\r\npedia\r\n0\r\n\r\n".to_vec(),
                Some(
                    "bad chunk size \"zz\" at byte 9 of the chunked payload: the rest kept as stored"
                        .into()
                )
            ))
        );
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n3\r\npediaX\r\n0\r\n\r\n"),
            Some((
                b"WikipediaX\r\n0\r\n\r\n".to_vec(),
                Some(
                    "the chunk ending at byte 15 of the chunked payload is not followed by a line \
                     break: the rest kept as stored"
                        .into()
                )
            ))
        );
    }

    #[test]
    fn content_types() {
        assert_eq!(media_type(" Text/HTML; charset=UTF-8"), "text/html");
        assert_eq!(charset_param("text/html; Charset=\"koi8-r\"").as_deref(), Some("koi8-r"));
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(magic_type(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(magic_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(magic_type(b"\0\0\0\x20ftypisom"), Some("video/mp4"));
        assert_eq!(magic_type(b"<html>"), None);
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary("plain text\r\n\twith tabs\x1b$B".as_bytes()));
        let css = classify("text/css", b"a{}", false).unwrap_err();
        assert_eq!(
            (css.kind(), css.as_str()),
            (SkipKind::NotADocument, "not a document: text/css")
        );
        assert_eq!(
            classify("text/html", b"\xff\xd8\xff\xe0", false),
            Err(SkipReason::binary_payload("image/jpeg (declared text/html)"))
        );
        assert_eq!(classify("", b"<!doctype html><p>x", false), Ok(Kind::Html));
        assert_eq!(classify("application/octet-stream", b"words", false), Ok(Kind::Plain));
        assert_eq!(
            classify("application/pdf", b"x", false),
            Err(SkipReason::binary_payload("application/pdf"))
        );
    }
}
