//! Decoding files: JSONL fields, text encodings.

use lookalike_io::{Decoded, ReadOptions, decode};

use crate::common::{decode_file, read_paths, write};

#[test]
fn jsonl_records_of_every_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"id":"doc-a","text":"alpha"}"#,
        r#"{"text":"no id"}"#,
        "",
        r#"{"id":17,"text":"number id"}"#,
        r#"{"id":"doc-b","body":"wrong field"}"#,
        r#"{"id":"doc-c","text":null}"#,
        r#"{"id": "doc-d", "text": "unterminated"#,
        "   ",
        r#"{"url":"http://x/","text":"last"}"#,
    ];
    let path = write(tmp.path(), "mixed.ndjson", lines.join("\n"));
    let src = path.display().to_string();
    let opts = crate::common::visible_text();
    let got: Vec<String> = read_paths(&[&path])
        .into_iter()
        .map(|r| match decode(&r.unwrap(), &opts) {
            Decoded::Doc { doc, warning, charset, .. } => {
                assert!(warning.is_none());
                assert_eq!(charset, "UTF-8");
                format!("doc {} = {}", doc.id, doc.text)
            }
            Decoded::Skip { id, reason } => format!("skip {id}: {reason}"),
        })
        .collect();
    assert_eq!(got.len(), 7, "{got:#?}");
    assert_eq!(got[0], "doc doc-a = alpha");
    assert_eq!(got[1], format!("doc {src}:2 = no id"));
    assert_eq!(got[2], "doc 17 = number id");
    assert_eq!(got[3], "skip doc-b: no string field 'text'");
    assert_eq!(got[4], "skip doc-c: no string field 'text'");
    assert!(got[5].starts_with(&format!("skip {src}:7: invalid JSON: ")), "{}", got[5]);
    assert_eq!(got[6], format!("doc {src}:9 = last"));
}

#[test]
fn jsonl_with_other_field_names() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "a.jsonl", r#"{"url":"http://a/","content":"x","text":"y"}"#);
    let opts = ReadOptions {
        id_field: "url".into(),
        text_field: "content".into(),
        ..crate::common::visible_text()
    };
    let records = read_paths(&[&path]);
    match decode(records[0].as_ref().unwrap(), &opts) {
        Decoded::Doc { doc, .. } => {
            assert_eq!((doc.id.as_str(), doc.text.as_str()), ("http://a/", "x"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn text_bom_is_stripped() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "bom.txt", b"\xEF\xBB\xBFHello, world");
    let (doc, warning) = decode_file(&path);
    assert_eq!((doc.text.as_str(), warning), ("Hello, world", None));
    assert_eq!(doc.id, path.display().to_string());
    assert_eq!(doc.raw_len, 15);
}

#[test]
fn utf16_text_files() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "Привет, мир! 你好";
    let mut le = vec![0xFF, 0xFE];
    let mut be = vec![0xFE, 0xFF];
    for u in text.encode_utf16() {
        le.extend(u.to_le_bytes());
        be.extend(u.to_be_bytes());
    }
    for (name, bytes) in [("le.txt", le), ("be.txt", be)] {
        let path = write(tmp.path(), name, bytes);
        let (doc, warning) = decode_file(&path);
        assert_eq!((doc.text.as_str(), warning), (text, None), "{name}");
    }
}

#[test]
fn latin1_text_is_detected_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let path =
        write(tmp.path(), "latin1.txt", b"Un caf\xE9 na\xEFf \xE0 Z\xFCrich, d\xE9j\xE0 vu.");
    let (doc, warning) = decode_file(&path);
    assert_eq!(doc.text, "Un café naïf à Zürich, déjà vu.");
    assert_eq!(warning.as_deref(), Some("charset detected: windows-1252"));
}

#[test]
fn mostly_utf8_text_keeps_utf8_and_replaces_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    // Many valid UTF-8 letters and one stray Latin-1 byte: damaged UTF-8, not another charset.
    let mut bytes = "Été, ça déménage à Zürich; été très réussi. ".repeat(2).into_bytes();
    bytes.extend(b"caf\xE9");
    let path = write(tmp.path(), "mixed.txt", bytes);
    let (doc, warning) = decode_file(&path);
    assert!(doc.text.ends_with("caf\u{FFFD}"), "{}", doc.text);
    assert_eq!(warning.as_deref(), Some("invalid UTF-8 replaced with U+FFFD: 1 byte"));
}
