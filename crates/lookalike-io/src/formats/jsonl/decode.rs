//! Decoding a JSON Lines record: contract: "give me a JSON object's bytes (a line, or a Parquet row
//! made one), I give you the document in its id and text fields or the reason there is none".

use std::fmt;

use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::error::Category;

use crate::options::ReadOptions;
use crate::record::{Decoded, RawRecord, position_id};
use crate::skip::SkipReason;

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

/// Decodes a [`Format::Jsonl`](crate::Format::Jsonl) or [`Format::Parquet`](crate::Format::Parquet)
/// record (see [`crate::decode`]).
pub(crate) fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
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
                Category::Data => SkipReason::missing_field("not a JSON object"),
                _ => SkipReason::damaged(format!("invalid JSON: {e}")),
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
        let reason = SkipReason::missing_field(format!(
            "no string field '{}' ({})",
            opts.text_field,
            fields_of(&rec.bytes)
        ));
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
        None => {
            let reason =
                SkipReason::missing_field(format!("no string field '{}'", opts.text_field));
            Decoded::Skip { id, reason }
        }
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
    use crate::format::Format;

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
            Decoded::Skip { id, reason } => (id, reason.to_string()),
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

    /// Regression: an `--id-field` the records lack fell back to
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

    /// Regression: a lone surrogate (`"\ud800"`, half of an emoji cut by a broken
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
}
