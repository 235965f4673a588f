//! Every reader's skip reasons: the kind callers match on, and the text reports print.

use std::sync::Arc;

use lookalike_io::{
    Decoded, Format, RawRecord, ReadOptions, SkipKind, SkipReason, WarcReader, decode,
};

use crate::common::{gzip, visible_text};

/// A WARC record of `warc_type` with `block` as its content block.
fn warc_record(warc_type: &str, uri: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {warc_type}\r\nWARC-Target-URI: {uri}\r\nContent-Type: \
         application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// The skip reasons of every record of a WARC file, in order (`None` for a document).
fn warc_skips(bytes: &[u8]) -> Vec<Option<SkipReason>> {
    WarcReader::new("t.warc", bytes)
        .map(|rec| match decode(&rec.unwrap(), &visible_text()) {
            Decoded::Doc { .. } => None,
            Decoded::Skip { reason, .. } => Some(reason),
        })
        .collect()
}

fn skip_of(format: Format, bytes: &[u8], opts: &ReadOptions) -> SkipReason {
    let rec = RawRecord {
        source: Arc::from("in"),
        line: Some(1),
        format,
        bytes: bytes.to_vec(),
        warc: None,
    };
    match decode(&rec, opts) {
        Decoded::Skip { reason, .. } => reason,
        other => panic!("{other:?}"),
    }
}

fn http(status: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n\r\n").into_bytes();
    r.extend_from_slice(body);
    r
}

#[test]
fn warc_skips_have_their_kind() {
    let mut file = Vec::new();
    file.extend(warc_record("warcinfo", "", b"software: x\r\n"));
    file.extend(warc_record("request", "http://a/", b"GET / HTTP/1.1\r\n\r\n"));
    file.extend(warc_record("metadata", "http://a/", b"via: x\r\n"));
    file.extend(warc_record(
        "response",
        "http://a/",
        &http("200 OK", "text/html", b"<p>hello</p>"),
    ));
    file.extend(warc_record(
        "response",
        "http://b/",
        &http("404 Not Found", "text/html", b"<p>gone</p>"),
    ));
    file.extend(warc_record(
        "response",
        "http://c/",
        &http("200 OK", "image/png", b"\x89PNG\r\n\x1a\n\0\0"),
    ));
    file.extend(warc_record("response", "http://d/", &http("200 OK", "text/css", b"a{}")));
    file.extend(warc_record("response", "http://e/", &http("200 OK", "text/html", b"")));
    file.extend(warc_record("response", "http://f/", b"not http at all"));
    file.extend(warc_record("response", "http://g/", b""));
    file.extend(b"WARC/1.0\r\nWARC-Target-URI: http://h/\r\nContent-Length: 2\r\n\r\nab\r\n\r\n");
    let got: Vec<Option<(SkipKind, String)>> =
        warc_skips(&file).into_iter().map(|r| r.map(|r| (r.kind(), r.to_string()))).collect();
    let want = |kind, text: &str| Some((kind, text.to_owned()));
    assert_eq!(
        got,
        [
            want(SkipKind::WarcRecordType, "WARC warcinfo record"),
            want(SkipKind::WarcRecordType, "WARC request record"),
            want(SkipKind::WarcRecordType, "WARC metadata record"),
            None,
            want(SkipKind::NotADocument, "HTTP status: 404 Not Found"),
            want(SkipKind::NotADocument, "binary payload: image/png"),
            want(SkipKind::NotADocument, "not a document: text/css"),
            want(SkipKind::Empty, "empty payload"),
            want(SkipKind::NotADocument, "not an HTTP response: no status line"),
            want(SkipKind::Empty, "empty WARC response"),
            want(SkipKind::Damaged, "WARC record without a WARC-Type"),
        ]
    );
}

#[test]
fn damaged_and_oversized_warc_records_have_their_kind() {
    // Truncated gzip: the input ends inside the only member.
    let whole =
        gzip(&warc_record("response", "http://a/", &http("200 OK", "text/plain", b"hello")));
    let cut = &whole[..whole.len() - 12];
    let reader = WarcReader::new("t.warc.gz", flate2::read::MultiGzDecoder::new(cut));
    let reasons: Vec<SkipReason> = reader
        .filter_map(|r| r.ok())
        .filter_map(|rec| match decode(&rec, &visible_text()) {
            Decoded::Skip { reason, .. } => Some(reason),
            Decoded::Doc { .. } => None,
        })
        .collect();
    assert!(!reasons.is_empty());
    assert!(reasons.iter().all(|r| r.kind() == SkipKind::Damaged), "{reasons:?}");

    // A Content-Length too short: framing.
    let mut short = warc_record("response", "http://a/", &http("200 OK", "text/plain", b"hello"));
    let at = short.windows(4).position(|w| w == b"th: ").unwrap() + 4;
    short.splice(at..at + 2, b"10".iter().copied());
    let skips = warc_skips(&short);
    let first = skips[0].as_ref().unwrap();
    assert_eq!((first.kind(), first.class()), (SkipKind::Damaged, "wrong WARC Content-Length"));

    // Over the size limit.
    let big = warc_record("response", "http://a/", &http("200 OK", "text/plain", &[b'x'; 600]));
    let rec =
        WarcReader::new("t.warc", &big[..]).with_max_record_bytes(500).next().unwrap().unwrap();
    let Decoded::Skip { reason, .. } = decode(&rec, &visible_text()) else { panic!() };
    assert_eq!(reason.kind(), SkipKind::TooLarge);
    assert_eq!(reason.class(), "WARC record larger than the 500-byte limit");
}

#[test]
fn jsonl_text_and_docreader_skips_have_their_kind() {
    let opts = ReadOptions::default();
    let cases: Vec<(Format, &[u8], SkipKind, &str)> = vec![
        (Format::Jsonl, br#"{"text": "unterminated"#, SkipKind::Damaged, "invalid JSON"),
        (Format::Jsonl, b"[1,2]", SkipKind::MissingField, "not a JSON object"),
        (
            Format::Jsonl,
            br#"{"id":"a"}"#,
            SkipKind::MissingField,
            "no string field 'text' (the record's fields are id)",
        ),
        (Format::Jsonl, br#"{"text":3}"#, SkipKind::MissingField, "no string field 'text'"),
        (Format::Text, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", SkipKind::NotADocument, "binary file"),
        (Format::Docreader, b"\xff\xff\xff", SkipKind::Damaged, "malformed protobuf"),
    ];
    for (format, bytes, kind, class) in cases {
        let reason = skip_of(format, bytes, &opts);
        assert_eq!((reason.kind(), reason.class()), (kind, class), "{reason}");
        assert!(!reason.is_warc_record_type());
    }
}
