//! Decoding raw records into documents: contract: "give me a record's bytes, I give you a
//! [`Document`] (with the charset it was read in, and a warning if some bytes were not valid
//! text or the charset was a guess) or the reason it has none".
//!
//! Decoding is a pure function of the record and the options, so callers may run it on many
//! threads while one thread reads.

use std::fmt;

use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::error::Category;

use crate::charset::{self, Kind};
use crate::encoding::decode_as;
use crate::options::Extract;
use crate::sniff;
use crate::{
    Format, MAX_MAIN_CONTENT_BYTES, RawRecord, ReadOptions, docreader, extract_main, html, warc,
};

/// The result of decoding one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A document to compare.
    Doc {
        /// The document.
        doc: Document,
        /// Something lossy or uncertain happened on the way, e.g. `invalid UTF-8 replaced with
        /// U+FFFD: 2 bytes` or `charset detected: windows-1251`; several are joined with `; `.
        warning: Option<String>,
        /// The charset the text was read in, by its WHATWG name (`UTF-8`, `windows-1251`,
        /// `Shift_JIS`, `GBK`, `UTF-16LE`, ...); `UTF-8` for JSONL.
        charset: &'static str,
        /// The page's title, for HTML read with [`Extract::Main`] (it is not part of the text).
        title: Option<String>,
        /// How the text was obtained: `plain` (text, JSONL), `main` (main content), `text` (all
        /// visible text, asked for or as the fallback of `main`) or `none` (markup as is).
        extraction: &'static str,
        /// The page's visible text, one block a line, when [`ReadOptions::visible_text`] asked
        /// for it and the text is the main content of an HTML page (see
        /// [`crate::extract_main_and_visible`]).
        visible: Option<String>,
        /// The value of the record's [`ReadOptions::site_field`] (JSONL, Parquet), if any.
        site: Option<String>,
    },
    /// The record holds no document; it must still be reported, with this reason.
    Skip {
        /// The record's id (its id field, or `source:line`; for WARC records see
        /// [`crate::WarcReader`]).
        id: String,
        /// Why there is no document, e.g. `invalid JSON: ...`, `no string field 'text'`, `WARC
        /// request record` or `binary payload: image/png`.
        reason: String,
    },
}

/// Decodes a record by its format.
///
/// - Text: the whole record is the text, the id is the source name. The charset is the BOM's,
///   else UTF-16 when the bytes unmistakably are (NUL bytes at one parity: the high bytes of
///   ASCII characters; with a warning), else UTF-8 when the bytes are (nearly) valid UTF-8, else
///   detected with `chardetng` (with a warning naming it). Binary content is a
///   [`Decoded::Skip`], not text: the magic bytes of an image, an archive, a PDF, Parquet...
///   (`binary file: image/png`), or NUL bytes that are not UTF-16.
/// - HTML: the visible text ([`crate::html_to_text`]), the id is the source name. The charset is
///   the BOM's, else a `<meta>` declaration's, else found as for text; binary content is skipped
///   as for text.
/// - WARC: a `response` record's HTTP payload, decoded (chunked transfer coding, gzip or deflate
///   content coding), read in the charset of the HTTP header, a `<meta>` or detection, and
///   extracted as HTML or text; the id is the target URI. Other records, and responses without
///   a document (binary payloads, non-2xx statuses, ...), are [`Decoded::Skip`]s with the reason
///   (see [`crate::WarcReader`]).
/// - Docreader: the id is the record's url; its `body` is read as a WARC response's HTML payload
///   is (charset by `<meta>` or detection, then `--extract`), or, without a body, its `text` as
///   plain text; a record with neither is a [`Decoded::Skip`] (see [`crate::DocreaderReader`]).
/// - JSONL: the id is the [`ReadOptions::id_field`] value (a string as is, another value as its
///   JSON text; absent or null: `source:line`), the text is the [`ReadOptions::text_field`]
///   value, which must be a string. Invalid JSON, a line that is not an object and a missing or
///   non-string text field are [`Decoded::Skip`]s. A lone UTF-16 surrogate escape (`"\ud800"`,
///   which JSON writers produce from strings cut in the middle of a surrogate pair) is not
///   valid in a string: it is read as U+FFFD, with a warning, rather than losing the record.
///
/// `raw_fingerprint` is the fingerprint of the file's bytes for text and HTML, of the text
/// field for JSONL and of the (decoded) HTTP payload for WARC (the same text or page under
/// another id or URL is a full-layout copy); `raw_len` is the size of the record.
pub fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    match rec.format {
        Format::Text | Format::Html => {
            if let Some(reason) = sniff::binary_content(&rec.bytes) {
                return Decoded::Skip { id: position_id(rec), reason };
            }
            let kind = if rec.format == Format::Html { Kind::Html } else { Kind::Plain };
            let mut text = match sniff::utf16_without_bom(&rec.bytes) {
                Some(encoding) => {
                    let (text, invalid) = decode_as(&rec.bytes, encoding);
                    let detected =
                        format!("charset detected: {} (no byte order mark)", encoding.name());
                    let warning = Some(match invalid {
                        Some(invalid) => format!("{detected}; {invalid}"),
                        None => detected,
                    });
                    charset::Text { text, charset: encoding.name(), warning }
                }
                None => charset::decode(&rec.bytes, kind, None, None),
            };
            let page = match kind {
                Kind::Html => html_text(std::mem::take(&mut text.text), opts, None),
                Kind::Plain => HtmlText::plain(),
            };
            whole_file(rec, text, page)
        }
        // Parquet rows are handed over as JSON objects (see the `parquet` module).
        Format::Jsonl | Format::Parquet => decode_json(rec, opts),
        Format::Warc => warc::decode(rec, opts),
        Format::Docreader => docreader::decode(rec, opts),
    }
}

/// The text taken from a page, its title and how it was found.
pub(crate) struct HtmlText {
    pub(crate) text: String,
    /// All the visible text, one block a line, when asked for ([`ReadOptions::visible_text`]).
    pub(crate) visible: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) extraction: &'static str,
    /// Why main-content extraction was not attempted, when it was asked for.
    pub(crate) warning: Option<String>,
}

impl HtmlText {
    fn plain() -> HtmlText {
        HtmlText::plain_text(String::new())
    }

    /// A text that is not HTML, as it is.
    pub(crate) fn plain_text(text: String) -> HtmlText {
        HtmlText { text, visible: None, title: None, extraction: "plain", warning: None }
    }
}

/// The text of decoded HTML `markup` as `opts.extract` asks (with the visible text when
/// `opts.visible_text` asks for it); `url` (a WARC target URI) is passed to the main-content
/// extractor, whose text does not depend on it.
pub(crate) fn html_text(markup: String, opts: &ReadOptions, url: Option<&str>) -> HtmlText {
    match opts.extract {
        Extract::Main => {
            let warning = (markup.len() > MAX_MAIN_CONTENT_BYTES).then(|| {
                format!(
                    "main content not extracted: page of {:.1} MB is above the {} MiB limit, all \
                     visible text used",
                    markup.len() as f64 / 1e6,
                    MAX_MAIN_CONTENT_BYTES >> 20
                )
            });
            let (e, visible) = if opts.visible_text {
                let (e, visible) = crate::extract_main_and_visible(&markup, url);
                (e, Some(visible))
            } else {
                (extract_main(&markup, url), None)
            };
            HtmlText {
                text: e.text,
                visible,
                title: e.title,
                extraction: e.method.as_str(),
                warning,
            }
        }
        Extract::Text => HtmlText {
            text: html::extract(&markup),
            visible: None,
            title: None,
            extraction: "text",
            warning: None,
        },
        Extract::None => {
            HtmlText { text: markup, visible: None, title: None, extraction: "none", warning: None }
        }
    }
}

/// The id of a record that has none of its own: `source:line`, or the source for a whole file.
fn position_id(rec: &RawRecord) -> String {
    match rec.line {
        Some(line) => format!("{}:{}", rec.source, line),
        None => rec.source.to_string(),
    }
}

/// A text or HTML file as one document: `page` holds the HTML's text, or is
/// [`HtmlText::plain`] for a text file (whose text is `text`'s).
fn whole_file(rec: &RawRecord, text: charset::Text, page: HtmlText) -> Decoded {
    let body = if page.extraction == "plain" { text.text } else { page.text };
    let doc = Document {
        id: position_id(rec),
        text: body,
        raw_fingerprint: Some(raw_fingerprint(&rec.bytes)),
        raw_len: rec.bytes.len() as u64,
    };
    let warning = match (text.warning, page.warning) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Decoded::Doc {
        doc,
        warning,
        charset: text.charset,
        title: page.title,
        extraction: page.extraction,
        visible: page.visible,
        site: None,
    }
}

/// The two fields of a JSON object, or the parse error.
///
/// A line that is valid UTF-8 (checked once, with SIMD) is parsed as a `str`, which spares
/// serde_json a validation of every string it reads (a twentieth of the run on non-Latin text);
/// other lines take the byte reader, whose error says where the bad bytes are.
fn pick(bytes: &[u8], fields: Fields<'_>) -> serde_json::Result<Picked> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(line) => {
            let mut de = serde_json::Deserializer::from_str(line);
            fields.deserialize(&mut de).and_then(|picked| de.end().map(|()| picked))
        }
        Err(_) => {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            fields.deserialize(&mut de).and_then(|picked| de.end().map(|()| picked))
        }
    }
}

fn decode_json(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    let fields =
        Fields { id: &opts.id_field, text: &opts.text_field, site: opts.site_field.as_deref() };
    let mut warning = None;
    let mut picked = pick(&rec.bytes, fields);
    if picked.as_ref().is_err_and(|e| e.classify() == Category::Syntax)
        && let Some((fixed, lone)) = replace_lone_surrogates(&rec.bytes)
        && let Ok(again) = pick(&fixed, fields)
    {
        // JSON that Python and JavaScript write from broken UTF-16 (an emoji cut in half):
        // readable but for those code units.
        picked = Ok(again);
        warning =
            Some(format!("lone surrogate escapes in JSON strings replaced with U+FFFD: {lone}"));
    }
    let picked = match picked {
        Ok(picked) => picked,
        Err(e) => {
            let reason = match e.classify() {
                // Valid JSON of the wrong shape (the only data error the visitor raises).
                Category::Data => "not a JSON object".to_owned(),
                _ => format!("invalid JSON: {e}"),
            };
            return Decoded::Skip { id: position_id(rec), reason };
        }
    };
    if opts.warn_missing_id && !picked.id_seen {
        let missing = format!(
            "no id field '{}' ({}); its id is its position",
            opts.id_field,
            fields_of(&rec.bytes)
        );
        warning = Some(match warning {
            Some(w) => format!("{missing}; {w}"),
            None => missing,
        });
    }
    let id = picked.id.unwrap_or_else(|| position_id(rec));
    if !picked.text_seen {
        let reason = format!("no string field '{}' ({})", opts.text_field, fields_of(&rec.bytes));
        return Decoded::Skip { id, reason };
    }
    match picked.text {
        Some(text) => Decoded::Doc {
            doc: Document {
                id,
                raw_fingerprint: Some(raw_fingerprint(text.as_bytes())),
                raw_len: rec.bytes.len() as u64,
                text,
            },
            warning,
            charset: "UTF-8",
            title: None,
            extraction: "plain",
            visible: None,
            site: picked.site,
        },
        None => Decoded::Skip { id, reason: format!("no string field '{}'", opts.text_field) },
    }
}

/// `bytes` (JSON) with every `\uXXXX` escape of a lone UTF-16 surrogate (a high one not followed
/// by a low one, or a low one alone) replaced by `\ufffd`, and how many there were; `None` when
/// there is none. Escaped backslashes are skipped as such, so `\\ud800` is left alone.
fn replace_lone_surrogates(bytes: &[u8]) -> Option<(Vec<u8>, usize)> {
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut lone = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) => {
                if unit(i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) {
                    out.extend_from_slice(&bytes[i..i + 12]);
                    i += 12;
                } else {
                    out.extend_from_slice(b"\\ufffd");
                    lone += 1;
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                out.extend_from_slice(b"\\ufffd");
                lone += 1;
                i += 6;
            }
            _ => {
                // Any other escape (an escaped backslash included) is copied whole.
                let end = (i + 2).min(bytes.len());
                out.extend_from_slice(&bytes[i..end]);
                i = end;
            }
        }
    }
    (lone > 0).then_some((out, lone))
}

/// The two fields a JSONL record is read for; every other value is skipped without being built.
#[derive(Clone, Copy)]
struct Fields<'a> {
    id: &'a str,
    text: &'a str,
    site: Option<&'a str>,
}

#[derive(Default)]
struct Picked {
    /// `None` when absent or null.
    id: Option<String>,
    /// Whether the id field is there (null included).
    id_seen: bool,
    /// Whether the text field is there (of any type).
    text_seen: bool,
    /// `None` when absent or not a string.
    text: Option<String>,
    /// `None` when absent, null or not asked for.
    site: Option<String>,
}

impl<'de> DeserializeSeed<'de> for Fields<'_> {
    type Value = Picked;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Picked, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Fields<'_> {
    type Value = Picked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Picked, A::Error> {
        let mut picked = Picked::default();
        // Duplicate keys: the last one wins, as in serde_json's own maps.
        while let Some(key) = map.next_key_seed(KeyOf(self))? {
            if !(key.id || key.text || key.site) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let value: Value = map.next_value()?;
            picked.id_seen |= key.id;
            picked.text_seen |= key.text;
            if key.id {
                picked.id = id_text(&value);
            }
            if key.site {
                picked.site = id_text(&value);
            }
            if key.text {
                picked.text = match value {
                    Value::String(s) => Some(s),
                    _ => None,
                };
            }
        }
        Ok(picked)
    }
}

/// `the record's fields: a, b` for the messages about a missing field: the keys of a JSON object
/// line, in their order (values skipped), read again only when a message needs them.
fn fields_of(bytes: &[u8]) -> String {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Vec<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                keys.push(key);
            }
            Ok(keys)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match de::Deserializer::deserialize_map(&mut de, Keys) {
        Ok(keys) if keys.is_empty() => "the record has no field".to_owned(),
        Ok(keys) => format!("the record's fields are {}", keys.join(", ")),
        Err(_) => "the record's fields cannot be listed".to_owned(),
    }
}

/// A JSON value as an id: a string as it is, another value as its JSON text; `None` for null.
pub(crate) fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Which wanted fields a key is (one key may be several), compared without allocating the key.
#[derive(Clone, Copy)]
struct Key {
    id: bool,
    text: bool,
    site: bool,
}

struct KeyOf<'a>(Fields<'a>);

impl<'de> DeserializeSeed<'de> for KeyOf<'_> {
    type Value = Key;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyOf<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(Key { id: key == self.0.id, text: key == self.0.text, site: self.0.site == Some(key) })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn jsonl(line: &str) -> RawRecord {
        RawRecord {
            source: Arc::from("in.jsonl"),
            line: Some(7),
            format: Format::Jsonl,
            bytes: line.as_bytes().to_vec(),
            warc: None,
        }
    }

    fn doc(d: Decoded) -> Document {
        match d {
            Decoded::Doc { doc, warning: None, .. } => doc,
            other => panic!("expected a document, got {other:?}"),
        }
    }

    fn skip(d: Decoded) -> (String, String) {
        match d {
            Decoded::Skip { id, reason } => (id, reason),
            other => panic!("expected a skip, got {other:?}"),
        }
    }

    /// The byte reader on every line, as before the one-pass UTF-8 check.
    fn pick_from_bytes(
        bytes: &[u8],
        fields: Fields<'_>,
    ) -> Result<(Option<String>, Option<String>), String> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        fields
            .deserialize(&mut de)
            .and_then(|picked| de.end().map(|()| picked))
            .map(|p| (p.id, p.text))
            .map_err(|e| e.to_string())
    }

    /// The `str` reader (taken after the SIMD UTF-8 check) reads every line, good or bad, as the
    /// byte reader does: the same fields and the same error messages.
    #[test]
    fn str_reader_after_the_utf8_check_agrees_with_the_byte_reader() {
        let fields = Fields { id: "id", text: "text", site: None };
        let lines: &[&[u8]] = &[
            br#"{"id":"a","text":"plain"}"#,
            "{\"id\":7,\"text\":\"Всё в порядке, 重複\"}".as_bytes(),
            br#"{"text":"esc\"aped \u00e9 \ud83d\ude00 \n","id":[1,2]}"#,
            br#"{"id":"a","text":"bad escape \x"}"#,
            br#"{"id":"a","text":"lone \ud800"}"#,
            br#"{"id":"a","text":"x"} trailing"#,
            br#"{"id":"a","text":"cut"#,
            br#"["not", "an object"]"#,
            b"{\"id\":\"a\",\"text\":\"invalid \xFF byte\"}",
            b"{\"id\":\"a\xC3\",\"text\":\"x\"}",
            b"\xEF\xBB\xBF{}",
        ];
        for &line in lines {
            let fast = pick(line, fields).map(|p| (p.id, p.text)).map_err(|e| e.to_string());
            assert_eq!(fast, pick_from_bytes(line, fields), "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn jsonl_ids() {
        let opts = ReadOptions::default();
        let d = doc(decode(&jsonl(r#"{"id":"a-1","text":"hello"}"#), &opts));
        assert_eq!((d.id.as_str(), d.text.as_str()), ("a-1", "hello"));
        assert_eq!(doc(decode(&jsonl(r#"{"id":42,"text":"x"}"#), &opts)).id, "42");
        assert_eq!(doc(decode(&jsonl(r#"{"id":4.5,"text":"x"}"#), &opts)).id, "4.5");
        assert_eq!(doc(decode(&jsonl(r#"{"id":true,"text":"x"}"#), &opts)).id, "true");
        assert_eq!(doc(decode(&jsonl(r#"{"id":null,"text":"x"}"#), &opts)).id, "in.jsonl:7");
        assert_eq!(doc(decode(&jsonl(r#"{"text":"x"}"#), &opts)).id, "in.jsonl:7");
    }

    #[test]
    fn jsonl_text_field_must_be_a_string() {
        let opts = ReadOptions::default();
        let reason = "no string field 'text'".to_owned();
        let absent = "no string field 'text' (the record's fields are id)".to_owned();
        assert_eq!(skip(decode(&jsonl(r#"{"id":"a"}"#), &opts)), ("a".to_owned(), absent));
        assert_eq!(skip(decode(&jsonl(r#"{"text":3}"#), &opts)), ("in.jsonl:7".to_owned(), reason));
        let (id, reason) = skip(decode(&jsonl(r#"{"text":{"a":[1,2]}}"#), &opts));
        assert_eq!((id.as_str(), reason.as_str()), ("in.jsonl:7", "no string field 'text'"));
    }

    #[test]
    fn jsonl_custom_fields_and_other_fields_ignored() {
        let opts = ReadOptions {
            id_field: "url".into(),
            text_field: "body".into(),
            ..ReadOptions::default()
        };
        let line =
            r#"{"text":"no","meta":{"x":[1,{"y":null}]},"url":"http://a/","body":"B\u00e9"}"#;
        let d = doc(decode(&jsonl(line), &opts));
        assert_eq!((d.id.as_str(), d.text.as_str()), ("http://a/", "Bé"));
        let (_, reason) = skip(decode(&jsonl(r#"{"text":"t"}"#), &opts));
        assert_eq!(reason, "no string field 'body' (the record's fields are text)");
    }

    /// Regression (issue 33, item 20): an `--id-field` the records lack fell back to
    /// `file:line` ids silently, and a wrong `--text-field` did not say which fields exist.
    #[test]
    fn a_missing_id_or_text_field_names_the_fields_the_record_has() {
        let opts = ReadOptions { id_field: "uid".into(), ..ReadOptions::default() };
        let line = r#"{"id":"a","text":"x","meta":{"uid":1}}"#;
        let Decoded::Doc { doc, warning, .. } = decode(&jsonl(line), &opts) else { panic!() };
        assert_eq!((doc.id.as_str(), warning), ("in.jsonl:7", None));
        let warned = ReadOptions { warn_missing_id: true, ..opts.clone() };
        let Decoded::Doc { doc, warning, .. } = decode(&jsonl(line), &warned) else { panic!() };
        assert_eq!(doc.id, "in.jsonl:7");
        assert_eq!(
            warning.as_deref(),
            Some(
                "no id field 'uid' (the record's fields are id, text, meta); its id is its position"
            )
        );
        // A null id is there: no warning.
        let line = r#"{"uid":null,"text":"x"}"#;
        assert!(matches!(decode(&jsonl(line), &warned), Decoded::Doc { warning: None, .. }));
        let body = ReadOptions { text_field: "body".into(), ..opts };
        let (_, reason) = skip(decode(&jsonl(r#"{"id":"a","content":"x"}"#), &body));
        assert_eq!(reason, "no string field 'body' (the record's fields are id, content)");
    }

    #[test]
    fn same_field_for_id_and_text() {
        let opts = ReadOptions {
            id_field: "t".into(),
            text_field: "t".into(),
            format: None,
            ..ReadOptions::default()
        };
        let d = doc(decode(&jsonl(r#"{"t":"same"}"#), &opts));
        assert_eq!((d.id.as_str(), d.text.as_str()), ("same", "same"));
    }

    #[test]
    fn invalid_json_and_non_objects() {
        let opts = ReadOptions::default();
        let (id, reason) = skip(decode(&jsonl(r#"{"text": "unterminated"#), &opts));
        assert_eq!(id, "in.jsonl:7");
        assert!(reason.starts_with("invalid JSON: "), "{reason}");
        let (_, reason) = skip(decode(&jsonl(r#"{"text":"a"} trailing"#), &opts));
        assert!(reason.starts_with("invalid JSON: trailing characters"), "{reason}");
        let (_, reason) = skip(decode(&jsonl("[1,2]"), &opts));
        assert_eq!(reason, "not a JSON object");
        let (_, reason) = skip(decode(&jsonl("\"text\""), &opts));
        assert_eq!(reason, "not a JSON object");
        let mut bad_utf8 = jsonl("");
        bad_utf8.bytes = b"{\"text\":\"a\xFF\"}".to_vec();
        let (_, reason) = skip(decode(&bad_utf8, &opts));
        assert!(reason.starts_with("invalid JSON: "), "{reason}");
    }

    /// Regression (issue 12): a lone surrogate (`"\ud800"`, half of an emoji cut by a broken
    /// writer) made the whole record "invalid JSON: unexpected end of hex escape". It is
    /// replaced with U+FFFD, with a warning.
    #[test]
    fn lone_surrogates_are_replaced_with_a_warning() {
        let opts = ReadOptions::default();
        let line = r#"{"id":"s","text":"cut \ud83d here, \udc00 there, a pair \ud83d\ude00, \\ud800 kept"}"#;
        match decode(&jsonl(line), &opts) {
            Decoded::Doc { doc, warning, .. } => {
                assert_eq!(doc.text, "cut \u{FFFD} here, \u{FFFD} there, a pair 😀, \\ud800 kept");
                assert_eq!(
                    warning.as_deref(),
                    Some("lone surrogate escapes in JSON strings replaced with U+FFFD: 2")
                );
            }
            other => panic!("{other:?}"),
        }
        // In the id too; and a lone surrogate at the very end of a string.
        let d = decode(&jsonl(r#"{"id":"a\udfff","text":"x\ud800"}"#), &opts);
        assert!(
            matches!(&d, Decoded::Doc { doc, .. } if doc.id == "a\u{FFFD}" && doc.text == "x\u{FFFD}"),
            "{d:?}"
        );
        // In the key of another field (found by the jsonl_reader fuzz target): the record is
        // read, and the warning says why it could be. (Other fields' values are skipped
        // unchecked.)
        match decode(&jsonl(r#"{"id":"o","\ud800":"\ud800","text":"fine"}"#), &opts) {
            Decoded::Doc { doc, warning, .. } => {
                assert_eq!((doc.id.as_str(), doc.text.as_str()), ("o", "fine"));
                assert_eq!(
                    warning.as_deref(),
                    Some("lone surrogate escapes in JSON strings replaced with U+FFFD: 2")
                );
            }
            other => panic!("{other:?}"),
        }
        // Other syntax errors are still errors.
        let (_, reason) = skip(decode(&jsonl(r#"{"text":"\ud800" oops}"#), &opts));
        assert!(reason.starts_with("invalid JSON: "), "{reason}");
    }

    #[test]
    fn jsonl_fingerprint_is_of_the_text() {
        let opts = ReadOptions::default();
        let a = doc(decode(&jsonl(r#"{"id":"a","text":"same words"}"#), &opts));
        let b = doc(decode(&jsonl(r#"{"id":"b","url":"u","text":"same words"}"#), &opts));
        assert_eq!(a.raw_fingerprint, b.raw_fingerprint);
        assert_eq!(a.raw_fingerprint, Some(raw_fingerprint(b"same words")));
        assert_eq!(a.raw_len, r#"{"id":"a","text":"same words"}"#.len() as u64);
    }

    #[test]
    fn text_and_html_records() {
        let opts = ReadOptions::default();
        let rec = RawRecord {
            source: Arc::from("d/a.txt"),
            line: None,
            format: Format::Text,
            bytes: b"\xEF\xBB\xBFhello".to_vec(),
            warc: None,
        };
        let d = doc(decode(&rec, &opts));
        assert_eq!((d.id.as_str(), d.text.as_str(), d.raw_len), ("d/a.txt", "hello", 8));
        assert_eq!(d.raw_fingerprint, Some(raw_fingerprint(&rec.bytes)));

        let rec = RawRecord { format: Format::Html, bytes: b"<p>a\xFF</p>".to_vec(), ..rec };
        match decode(&rec, &opts) {
            Decoded::Doc { doc, warning, charset, .. } => {
                assert_eq!((doc.text.as_str(), charset), ("a\u{FF}", "windows-1252"));
                assert_eq!(warning.as_deref(), Some("charset detected: windows-1252"));
            }
            other => panic!("{other:?}"),
        }
        let mut bytes = "<p>Всё в UTF-8, кроме одного байта: ".as_bytes().to_vec();
        bytes.extend(b"\xFF</p>");
        let rec = RawRecord { bytes, ..rec };
        match decode(&rec, &opts) {
            Decoded::Doc { doc, warning, charset, .. } => {
                assert_eq!(doc.text, "Всё в UTF-8, кроме одного байта: \u{FFFD}");
                assert_eq!(charset, "UTF-8");
                assert_eq!(warning.as_deref(), Some("invalid UTF-8 replaced with U+FFFD: 1 byte"));
            }
            other => panic!("{other:?}"),
        }
    }
}
