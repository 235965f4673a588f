//! Reading files: formats by extension, gzip, truncated and corrupt streams, unreadable files.

use std::path::Path;

use lookalike_io::{Decoded, Format, Input, ReadOptions, decode};

use crate::common::{gzip, read_all, read_paths, write};

fn jsonl_lines(n: usize) -> String {
    // Varied text so that the gzip stream is long enough to cut in the middle.
    (1..=n)
        .map(|i| {
            format!("{{\"id\":{i},\"text\":\"record {i} says {}\"}}\n", i * i * 7919 % 100_003)
        })
        .collect()
}

#[test]
fn gz_files_of_each_format() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let txt = write(dir, "a.txt.gz", gzip(b"plain text"));
    let html = write(dir, "b.html.gz", gzip(b"<title>T</title><p>Hello</p>"));
    let jsonl = write(dir, "c.jsonl.gz", gzip(jsonl_lines(3).as_bytes()));
    let records = read_paths(&[&txt, &html, &jsonl]);
    let got: Vec<_> = records
        .iter()
        .map(|r| {
            let r = r.as_ref().unwrap();
            (r.format, r.line)
        })
        .collect();
    assert_eq!(
        got,
        [
            (Format::Text, None),
            (Format::Html, None),
            (Format::Jsonl, Some(1)),
            (Format::Jsonl, Some(2)),
            (Format::Jsonl, Some(3)),
        ]
    );
    let opts = crate::common::visible_text();
    let texts: Vec<String> = records
        .iter()
        .map(|r| match decode(r.as_ref().unwrap(), &opts) {
            Decoded::Doc { doc, .. } => format!("{}={}", doc.id, doc.text),
            Decoded::Skip { id, reason } => format!("{id} skipped: {reason}"),
        })
        .collect();
    assert_eq!(texts[0], format!("{}=plain text", txt.display()));
    assert_eq!(texts[1], format!("{}=T\nHello", html.display()));
    assert_eq!(texts[2], "1=record 1 says 7919");
    // The raw fingerprint of a whole file is of its decompressed bytes.
    match decode(records[0].as_ref().unwrap(), &opts) {
        Decoded::Doc { doc, .. } => {
            assert_eq!(
                doc.raw_fingerprint,
                Some(lookalike::fingerprint::raw_fingerprint(b"plain text"))
            );
            assert_eq!(doc.raw_len, 10);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn gzip_is_detected_by_content_whatever_the_name() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "pages.jsonl", gzip(jsonl_lines(2).as_bytes()));
    let records = read_paths(&[&path]);
    assert_eq!(records.len(), 2);
    // A `.gz` name over plain bytes is read as plain bytes.
    let path = write(tmp.path(), "plain.txt.gz", "not compressed");
    let records = read_paths(&[&path]);
    assert_eq!(records[0].as_ref().unwrap().bytes, b"not compressed");
}

fn assert_truncated_gz_keeps_records_before_the_cut(path: &Path, total: usize) {
    let records = read_paths(&[path]);
    let (ok, errors): (Vec<_>, Vec<_>) = records.into_iter().partition(|r| r.is_ok());
    assert_eq!(errors.len(), 1, "one error for the truncated file");
    assert!(!ok.is_empty() && ok.len() < total, "{} of {total} records", ok.len());
    // The records before the cut are complete and in order.
    for (i, r) in ok.iter().enumerate() {
        let r = r.as_ref().unwrap();
        assert_eq!(r.line, Some(i as u64 + 1));
        let expected = jsonl_lines(i + 1).lines().last().unwrap().to_owned();
        assert_eq!(String::from_utf8_lossy(&r.bytes), expected);
    }
    let err = errors[0].as_ref().unwrap_err();
    assert_eq!(err.source, path.display().to_string());
    assert_eq!(err.line, Some(ok.len() as u64 + 1));
    assert!(err.message.contains("gzip"), "{err}");
    assert!(err.to_string().starts_with(&format!("{}:{}: ", path.display(), ok.len() + 1)));
}

#[test]
fn truncated_jsonl_gz_keeps_the_records_before_the_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let total = 5000;
    let full = gzip(jsonl_lines(total).as_bytes());
    let path = write(tmp.path(), "cut.jsonl.gz", &full[..full.len() / 2]);
    assert_truncated_gz_keeps_records_before_the_cut(&path, total);
}

#[test]
fn corrupt_jsonl_gz_reports_one_error() {
    let tmp = tempfile::tempdir().unwrap();
    let total = 5000;
    let mut bytes = gzip(jsonl_lines(total).as_bytes());
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 64] {
        *b = !*b;
    }
    let path = write(tmp.path(), "bad.jsonl.gz", &bytes);
    let records = read_paths(&[&path]);
    let errors: Vec<_> = records.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].line.is_some());
    // One member (the whole file): nothing after the damage can be read.
    assert!(errors[0].message.contains("corrupt gzip member at byte 0 ("), "{}", errors[0]);
    assert!(errors[0].message.contains("to the end"), "{}", errors[0]);
    // Garbage may decode before the checksum fails; the error is always last and lines before
    // the damage are intact.
    assert!(records.last().unwrap().is_err());
    assert_eq!(records[0].as_ref().unwrap().bytes, jsonl_lines(1).trim_end().as_bytes());
}

/// Regression: in a `.jsonl.gz` of concatenated members, one corrupt member lost every
/// member after it (8 of 12). Now the members after it are read, and the error says what was
/// skipped (its offset and size, and that its lines are lost).
#[test]
fn one_corrupt_gzip_member_loses_only_its_own_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let all = jsonl_lines(120);
    let lines: Vec<&str> = all.lines().collect();
    let members: Vec<Vec<u8>> =
        lines.chunks(10).map(|chunk| gzip((chunk.join("\n") + "\n").as_bytes())).collect();
    assert_eq!(members.len(), 12);
    let start: usize = members[..4].iter().map(Vec::len).sum();
    let mut bytes = members.concat();
    // The deflate data of member 5: a reserved block type, so it fails at once.
    for b in &mut bytes[start + 10..start + 16] {
        *b = 0xff;
    }
    let path = write(tmp.path(), "members.jsonl.gz", &bytes);
    let records = read_paths(&[&path]);
    let read: Vec<String> = records
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| String::from_utf8(r.bytes.clone()).unwrap())
        .collect();
    let expected: Vec<String> =
        lines[..40].iter().chain(&lines[50..]).map(|l| l.to_string()).collect();
    assert_eq!(read, expected);
    let errors: Vec<_> = records.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].line, Some(41));
    // No line was started, but the member's bytes are lost: the report has a row for them.
    let lost = format!("{}#gzip-bytes-{start}-{}", path.display(), start + members[4].len());
    assert_eq!(errors[0].lost.as_deref(), Some(lost.as_str()));
    assert_eq!(
        errors[0].to_string(),
        format!(
            "{}:41: corrupt gzip member at byte {start} (corrupt deflate stream); skipped {} \
             bytes to the next member, at byte {}; the lines in the skipped data are lost (line \
             numbers from here on count the lines read)",
            path.display(),
            members[4].len(),
            start + members[4].len()
        )
    );
}

#[test]
fn truncated_text_gz_is_one_error_and_reading_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let full = gzip(jsonl_lines(2000).as_bytes());
    let cut = write(tmp.path(), "cut.txt.gz", &full[..full.len() - 10]);
    let after = write(tmp.path(), "after.txt", "still read");
    let records = read_paths(&[&cut, &after]);
    assert_eq!(records.len(), 2);
    let err = records[0].as_ref().unwrap_err();
    assert_eq!((err.source.as_str(), err.line), (cut.to_str().unwrap(), None));
    assert!(
        err.message.starts_with("truncated gzip data: the input ends inside the member at byte 0"),
        "{err}"
    );
    // The file is one document: it is lost, under its name.
    assert_eq!(err.lost.as_deref(), cut.to_str());
    assert_eq!(records[1].as_ref().unwrap().bytes, b"still read");
}

#[test]
fn unreadable_inputs_are_reported_and_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let ok = write(tmp.path(), "ok.txt", "fine");
    let missing = tmp.path().join("gone.txt");
    let records = read_paths(&[&missing, tmp.path(), &ok]);
    assert_eq!(records.len(), 3);
    let err = records[0].as_ref().unwrap_err();
    assert_eq!(err.source, missing.display().to_string());
    assert!(err.message.starts_with("cannot open: "), "{err}");
    // No doubled path from fs-err in the message.
    assert!(!err.message.contains("gone.txt"), "{err}");
    let err = records[1].as_ref().unwrap_err();
    assert_eq!(err.source, tmp.path().display().to_string());
    assert!(records[2].is_ok());
}

#[test]
fn jsonl_blank_lines_are_not_records_but_count() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "a.jsonl", "\n{\"text\":\"a\"}\n   \n\r\n{\"text\":\"b\"}");
    let lines: Vec<_> = read_paths(&[&path]).into_iter().map(|r| r.unwrap().line).collect();
    assert_eq!(lines, [Some(2), Some(5)]);
}

#[test]
fn forced_format_overrides_the_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "a.txt", "{\"text\":\"a\"}\n{\"text\":\"b\"}\n");
    let opts = ReadOptions { format: Some(Format::Jsonl), ..crate::common::visible_text() };
    let records = read_all(vec![Input::Path(path.clone())], &opts);
    assert_eq!(records.len(), 2);
    // Unknown extensions read as text, not sniffed.
    let path = write(tmp.path(), "a.data", "{\"text\":\"a\"}\n{\"text\":\"b\"}\n");
    let records = read_paths(&[&path]);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].as_ref().unwrap().format, Format::Text);
}

#[test]
fn empty_files() {
    let tmp = tempfile::tempdir().unwrap();
    let txt = write(tmp.path(), "e.txt", "");
    let jsonl = write(tmp.path(), "e.jsonl", "");
    let gz = write(tmp.path(), "e.jsonl.gz", gzip(b""));
    let records = read_paths(&[&txt, &jsonl, &gz]);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].as_ref().unwrap().bytes, b"");
}
