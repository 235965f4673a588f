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
    assert_eq!(got[3], "skip doc-b: no string field 'text' (the record's fields are id, body)");
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

/// A small PNG: signature, then an IHDR chunk (binary, with NUL bytes).
fn png() -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0".to_vec();
    png.extend((0..200u32).map(|i| (i * 37 % 256) as u8));
    png
}

/// Regression: binary files under text names (a PNG named `.html`, a gzip of a
/// binary, Parquet named `.txt`) were deduplicated as text. Each is skipped with the reason.
#[test]
fn binary_files_with_text_names_are_skipped_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let ints: Vec<u8> = (0u32..300).flat_map(|i| (i * 7919).to_le_bytes()).collect();
    let cases = [
        ("image.html", png(), "binary file: image/png"),
        ("image.txt", png(), "binary file: image/png"),
        ("image.txt.gz", crate::common::gzip(&png()), "binary file: image/png"),
        (
            "twice.txt.gz",
            crate::common::gzip(&crate::common::gzip(b"text")),
            "binary file: application/gzip (compressed twice?)",
        ),
        ("data.txt", ints, "binary file: NUL bytes (not text, and not UTF-16)"),
        (
            "table.txt",
            b"PAR1\x15\x04\x15\x10\0\0PAR1".to_vec(),
            "binary file: application/vnd.apache.parquet (Parquet: name the file .parquet, or use --format parquet)",
        ),
        (
            "doc.pdf.txt",
            b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec(),
            "binary file: application/pdf",
        ),
    ];
    let opts = ReadOptions::default();
    for (name, bytes, reason) in cases {
        let path = write(tmp.path(), name, &bytes);
        let records = read_paths(&[&path]);
        assert_eq!(records.len(), 1, "{name}");
        match decode(records[0].as_ref().unwrap(), &opts) {
            Decoded::Skip { id, reason: got } => {
                assert_eq!((id.as_str(), got.as_str()), (path.to_str().unwrap(), reason), "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// Regression: UTF-16 text without a byte order mark was read as text with a NUL
/// after every ASCII letter. It is read as UTF-16, with a warning.
#[test]
fn utf16_without_a_byte_order_mark_is_read_as_utf16() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "Notes on shingling\nMinHash estimates the Jaccard similarity of two sets.\n";
    let cyrillic = "Заметки о шинглах: MinHash оценивает сходство Жаккара.\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = cyrillic.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let html: Vec<u8> = format!("<html><body><p>{text}</p></body></html>")
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for (name, bytes, expected, charset) in [
        ("le.txt", le, text.to_owned(), "UTF-16LE"),
        ("be.txt", be, cyrillic.to_owned(), "UTF-16BE"),
        ("page.html", html, text.trim_end().replace('\n', " "), "UTF-16LE"),
    ] {
        let path = write(tmp.path(), name, &bytes);
        let (doc, warning, got_charset) = crate::common::decode_file_charset(&path);
        assert_eq!(doc.text, expected, "{name}");
        assert_eq!(got_charset, charset);
        assert_eq!(warning, Some(format!("charset detected: {charset} (no byte order mark)")));
    }
}

/// Regression: a NUL byte on line 2 refused the whole file (99 good records
/// lost); the line is skipped, with its number, and the other records are read.
#[test]
fn a_nul_byte_in_a_jsonl_line_loses_only_that_line() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    for i in 1..=100 {
        let text = if i == 2 { "broken \0 line".to_owned() } else { format!("record {i}") };
        bytes.extend(format!("{{\"id\":\"r{i}\",\"text\":\"{text}\"}}\n").into_bytes());
    }
    let path = write(tmp.path(), "nul.jsonl", &bytes);
    let records: Vec<_> = read_paths(&[&path]).into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(records.len(), 100);
    let opts = ReadOptions::default();
    let decoded: Vec<Decoded> = records.iter().map(|r| decode(r, &opts)).collect();
    let docs = decoded.iter().filter(|d| matches!(d, Decoded::Doc { .. })).count();
    assert_eq!(docs, 99);
    match &decoded[1] {
        Decoded::Skip { id, reason } => {
            assert!(id.ends_with("nul.jsonl:2"), "{id}");
            assert!(reason.as_str().starts_with("invalid JSON"), "{reason}");
            assert_eq!(reason.kind(), lookalike_io::SkipKind::Damaged);
        }
        other => panic!("line 2 should be skipped: {other:?}"),
    }
}

/// A JSONL input that is binary (or UTF-16) is one error, not one skipped "line" per newline
/// byte in it.
#[test]
fn binary_jsonl_is_one_error_for_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let utf16: Vec<u8> =
        "{\"id\":\"a\",\"text\":\"x\"}\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    for (name, bytes, message) in [
        ("image.jsonl", png(), "binary data (image/png), not JSON Lines; not read"),
        (
            "wide.jsonl",
            utf16,
            "NUL bytes: binary data or UTF-16 text, not JSON Lines (which are UTF-8); not read",
        ),
    ] {
        let path = write(tmp.path(), name, &bytes);
        let records = read_paths(&[&path]);
        assert_eq!(records.len(), 1, "{name}");
        let err = records[0].as_ref().unwrap_err();
        assert_eq!(err.message, message);
        assert_eq!(err.lost.as_deref(), path.to_str());
    }
}
