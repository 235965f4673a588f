//! The docreader format (a course assignment's collections): hand-made records, encoded by the
//! small encoder below, and every kind of damage the reader must report and survive.

use std::io::Cursor;

use lookalike_io::{
    Decoded, DocreaderReader, Format, Input, Origin, Position, ReadOptions, Reader, decode,
    sniff_format,
};

use crate::common::{gzip, visible_text, write};

/// Protobuf encoding, test-only: a varint.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A length-delimited field (wire type 2).
fn string(number: u64, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint(&mut out, number << 3 | 2);
    varint(&mut out, value.len() as u64);
    out.extend_from_slice(value);
    out
}

/// A `document` message: url, then body and text when given.
fn message(url: &str, body: Option<&str>, text: Option<&str>) -> Vec<u8> {
    let mut m = string(1, url.as_bytes());
    if let Some(body) = body {
        m.extend(string(2, body.as_bytes()));
    }
    if let Some(text) = text {
        m.extend(string(3, text.as_bytes()));
    }
    m
}

/// A record: the message's length (4 bytes, little-endian), then the message.
fn framed(message: &[u8]) -> Vec<u8> {
    framed_with_length(message, message.len() as u32)
}

/// A record whose length may lie.
fn framed_with_length(message: &[u8], length: u32) -> Vec<u8> {
    let mut out = length.to_le_bytes().to_vec();
    out.extend_from_slice(message);
    out
}

fn page(url: &str, words: &str) -> Vec<u8> {
    framed(&message(url, Some(&format!("<html><body><p>{words}</p></body></html>")), None))
}

/// Every record and error of a stream read as docreader, one line each: `doc ID @RECORD: TEXT`,
/// `skip ID: REASON`, `error[LOST @RECORD]: MESSAGE`.
fn summarize(bytes: &[u8], opts: &ReadOptions) -> Vec<String> {
    let opts = ReadOptions { format: Some(Format::Docreader), ..opts.clone() };
    lines(Reader::from_stream("pages", Cursor::new(bytes.to_vec()), opts.clone()), &opts)
}

fn lines(reader: Reader, opts: &ReadOptions) -> Vec<String> {
    reader
        .map(|item| match item {
            Err(e) => {
                let at = match e.origin().position {
                    Position::Record(n) => format!(" @{n}"),
                    _ => String::new(),
                };
                format!("error[{}{at}]: {}", e.lost.as_deref().unwrap_or("-"), e.message)
            }
            Ok(rec) => {
                let Origin { position, .. } = rec.origin();
                let at = match position {
                    Position::Record(n) => format!(" @{n}"),
                    _ => String::new(),
                };
                match decode(&rec, opts) {
                    Decoded::Doc { doc, .. } => format!("doc {}{at}: {}", doc.id, doc.text),
                    Decoded::Skip { id, reason } => format!("skip {id}: {reason}"),
                }
            }
        })
        .collect()
}

fn three_pages() -> Vec<Vec<u8>> {
    vec![
        page("http://a.example/1", "first page"),
        page("http://a.example/2", "second page"),
        page("http://a.example/3", "third page"),
    ]
}

#[test]
fn reads_hand_made_records() {
    let mut bytes = page("http://a.example/", "Hello &amp; welcome");
    bytes.extend(framed(&message("http://b.example/", None, Some("plain text only"))));
    // An empty body: the text is used.
    bytes.extend(framed(&message("http://c.example/", Some(""), Some("text of c"))));
    bytes.extend(framed(&message("http://d.example/", None, None)));
    assert_eq!(
        summarize(&bytes, &visible_text()),
        [
            "doc http://a.example/ @1: Hello & welcome",
            "doc http://b.example/ @2: plain text only",
            "doc http://c.example/ @3: text of c",
            "skip http://d.example/: empty record: no body (field 2) and no text (field 3)",
        ]
    );
}

#[test]
fn body_goes_through_the_html_path() {
    // A page in windows-1251, declared by its <meta>: read in its charset, like a WARC payload.
    let mut body =
        b"<html><head><meta charset=\"windows-1251\"><title>T</title></head><body><p>".to_vec();
    body.extend([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет"
    body.extend(b"</p></body></html>");
    let mut m = string(1, b"http://ru.example/");
    m.extend(string(2, &body));
    let rec = DocreaderReader::new("pages", &framed(&m)[..]).next().unwrap().unwrap();
    assert_eq!(rec.format, Format::Docreader);
    match decode(&rec, &visible_text()) {
        Decoded::Doc { doc, charset, extraction, .. } => {
            assert_eq!(doc.text, "T\nПривет");
            assert_eq!((charset, extraction), ("windows-1251", "text"));
        }
        other => panic!("{other:?}"),
    }
    // --extract none keeps the markup; the default extracts the main content, title apart.
    let none = ReadOptions { extract: lookalike_io::Extract::None, ..ReadOptions::default() };
    match decode(&rec, &none) {
        Decoded::Doc { doc, .. } => assert!(doc.text.starts_with("<html><head><meta")),
        other => panic!("{other:?}"),
    }
    match decode(&rec, &ReadOptions::default()) {
        Decoded::Doc { doc, title, .. } => {
            assert_eq!((doc.text.as_str(), title.as_deref()), ("Привет", Some("T")));
        }
        other => panic!("{other:?}"),
    }
    // A binary body is not a document.
    let mut m = string(1, b"http://img.example/");
    m.extend(string(2, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
    let rec = DocreaderReader::new("pages", &framed(&m)[..]).next().unwrap().unwrap();
    assert_eq!(
        decode(&rec, &visible_text()),
        Decoded::Skip {
            id: "http://img.example/".into(),
            reason: lookalike_io::SkipReason::binary_payload("image/png")
        }
    );
}

#[test]
fn unknown_fields_are_skipped() {
    let mut m = Vec::new();
    m.extend([4 << 3, 0x96, 0x01]); // field 4, varint
    m.extend(string(1, b"http://first.example/"));
    m.push(5 << 3 | 1); // field 5, 64-bit
    m.extend([0xff; 8]);
    m.push(6 << 3 | 5); // field 6, 32-bit
    m.extend([0x0a; 4]);
    m.extend(string(17, b"\x0a\x05junk unknown bytes"));
    m.push(7 << 3 | 3); // a group holding fields 1 and 3 of its own: not the document's
    m.extend(string(1, b"http://in-a-group.example/"));
    m.extend(string(3, b"group text"));
    m.push(7 << 3 | 4);
    m.extend(string(2, b"<p>the body</p>"));
    // A repeated field: the last one counts, as in every protobuf reader.
    m.extend(string(1, b"http://last.example/"));
    m.extend([200 << 3, 0x01]); // field 200 (a two-byte key), varint
    let mut bytes = framed(&m);
    bytes.extend(page("http://next.example/", "still read"));
    assert_eq!(
        summarize(&bytes, &visible_text()),
        ["doc http://last.example/ @1: the body", "doc http://next.example/ @2: still read"]
    );
}

#[test]
fn truncated_file() {
    let pages = three_pages();
    let all = pages.concat();
    // Cut inside the third message.
    let cut = &all[..all.len() - 10];
    let third = pages[0].len() + pages[1].len();
    let len = pages[2].len() - 4;
    assert_eq!(
        summarize(cut, &visible_text()),
        [
            "doc http://a.example/1 @1: first page".to_owned(),
            "doc http://a.example/2 @2: second page".to_owned(),
            format!(
                "error[http://a.example/3 @3]: record 3 at offset {third}: truncated record: the \
                 length is {len} bytes, the input ends after {} of them",
                len - 10
            ),
        ]
    );
    // Cut inside the length of the third.
    let cut = &all[..third + 2];
    assert_eq!(
        summarize(cut, &visible_text())[2],
        format!(
            "error[pages#record-3 @3]: record 3 at offset {third}: truncated record: the input \
             ends inside its 4-byte length, after 2 bytes"
        )
    );
}

#[test]
fn lying_length_too_long_cuts_the_record_at_the_next_one() {
    let pages = three_pages();
    let m = &pages[1][4..];
    // The second record claims 30 bytes more than it has: the third starts inside it.
    let bytes =
        [pages[0].clone(), framed_with_length(m, m.len() as u32 + 30), pages[2].clone()].concat();
    let second = pages[0].len();
    let third = second + pages[1].len();
    assert_eq!(
        summarize(&bytes, &visible_text()),
        [
            "doc http://a.example/1 @1: first page".to_owned(),
            format!(
                "error[http://a.example/2 @2]: record 2 at offset {second}: wrong length: {} bytes \
                 is too long: the next record starts {} bytes into the message, at offset {third}; \
                 the record was cut there",
                m.len() + 30,
                m.len()
            ),
            "doc http://a.example/3 @3: third page".to_owned(),
        ]
    );
    // A length beyond the end of the file: the same.
    let bytes = [pages[0].clone(), framed_with_length(m, 1 << 20), pages[2].clone()].concat();
    let got = summarize(&bytes, &visible_text());
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[1].contains("wrong length: 1048576 bytes is too long"), "{got:?}");
    assert_eq!(got[2], "doc http://a.example/3 @3: third page");
}

#[test]
fn lying_length_too_short_skips_to_the_next_record() {
    let pages = three_pages();
    let m = &pages[1][4..];
    let bytes =
        [pages[0].clone(), framed_with_length(m, m.len() as u32 - 8), pages[2].clone()].concat();
    let second = pages[0].len();
    let third = second + pages[1].len();
    assert_eq!(
        summarize(&bytes, &visible_text()),
        [
            "doc http://a.example/1 @1: first page".to_owned(),
            format!(
                "error[http://a.example/2 @2]: record 2 at offset {second}: wrong length: the {}-byte \
                 message does not read as one and is followed by bytes that are not a record (a \
                 length too short?); skipped 8 bytes to the next record, at offset {third}",
                m.len() - 8
            ),
            "doc http://a.example/3 @3: third page".to_owned(),
        ]
    );
}

#[test]
fn absurd_length_is_a_bad_length_and_reading_goes_on() {
    let pages = three_pages();
    let m = &pages[1][4..];
    let bytes = [pages[0].clone(), framed_with_length(m, u32::MAX), pages[2].clone()].concat();
    let second = pages[0].len();
    let third = second + pages[1].len();
    assert_eq!(
        summarize(&bytes, &visible_text()),
        [
            "doc http://a.example/1 @1: first page".to_owned(),
            format!(
                "error[pages#record-2 @2]: record 2 at offset {second}: bad length: 4294967295 \
                 bytes is over the 268435456-byte limit (not a record length); skipped {} bytes \
                 to the next record, at offset {third}",
                pages[1].len()
            ),
            "doc http://a.example/3 @3: third page".to_owned(),
        ]
    );
    // The reader's limit is the record limit.
    let got: Vec<_> =
        DocreaderReader::new("pages", &pages[1][..]).with_max_record_bytes(10).collect();
    let e = got[0].as_ref().unwrap_err();
    assert!(e.message.contains("is over the 10-byte limit"), "{e}");
    assert_eq!(got.len(), 1);
}

#[test]
fn zero_length_and_a_record_without_url() {
    let pages = three_pages();
    let no_url = framed(&[string(2, b"<p>body without url</p>"), string(9, b"x")].concat());
    let bytes = [pages[0].clone(), framed(&[]), no_url.clone(), pages[2].clone()].concat();
    let second = pages[0].len();
    assert_eq!(
        summarize(&bytes, &visible_text()),
        [
            "doc http://a.example/1 @1: first page".to_owned(),
            format!(
                "error[pages#record-2 @2]: record 2 at offset {second}: no url: a zero-length \
                 record without field 1 (url), which is required"
            ),
            format!(
                "error[pages#record-3 @3]: record 3 at offset {}: no url: a message without \
                 field 1 (url), which is required",
                second + 4
            ),
            "doc http://a.example/3 @4: third page".to_owned(),
        ]
    );
}

#[test]
fn malformed_protobuf_is_reported_and_reading_goes_on() {
    let pages = three_pages();
    // Wire type 7 after the url, with a right length.
    let bad = framed(&[string(1, b"http://bad.example/"), vec![9 << 3 | 7, 0]].concat());
    // The url as a varint.
    let wrong_type = framed(&[0x08, 0x01, 0x12, 0x01, b'x']);
    let bytes = [pages[0].clone(), bad.clone(), wrong_type, pages[2].clone()].concat();
    let second = pages[0].len();
    assert_eq!(
        summarize(&bytes, &visible_text()),
        [
            "doc http://a.example/1 @1: first page".to_owned(),
            format!(
                "error[http://bad.example/ @2]: record 2 at offset {second}: malformed protobuf: \
                 invalid wire type 7 at byte 21"
            ),
            format!(
                "error[pages#record-3 @3]: record 3 at offset {}: malformed protobuf: field 1 \
                 (url) has wire type 0, not 2 (a string), at byte 0",
                second + bad.len()
            ),
            "doc http://a.example/3 @4: third page".to_owned(),
        ]
    );
}

#[test]
fn garbage_between_records_is_skipped_to_the_next_record() {
    let pages = three_pages();
    let garbage = b"some junk that is not a record at all\n".repeat(3);
    let bytes = [pages[0].clone(), pages[1].clone(), garbage.clone(), pages[2].clone()].concat();
    let got = summarize(&bytes, &visible_text());
    // The second record reads whole, so it is kept; the junk is the (lost) third record.
    assert_eq!(
        got[..2],
        ["doc http://a.example/1 @1: first page", "doc http://a.example/2 @2: second page"]
    );
    let third = pages[0].len() + pages[1].len();
    assert_eq!(
        got[2],
        format!(
            "error[pages#record-3 @3]: record 3 at offset {third}: bad length: {} bytes is over \
             the 268435456-byte limit (not a record length); skipped {} bytes to the next record, \
             at offset {}",
            u32::from_le_bytes(*b"some"),
            garbage.len(),
            third + garbage.len()
        )
    );
    assert_eq!(got[3], "doc http://a.example/3 @4: third page");
    assert_eq!(got.len(), 4);
}

#[test]
fn gzip_and_plain_read_the_same() {
    let all = three_pages().concat();
    let plain = summarize(&all, &visible_text());
    assert_eq!(plain.len(), 3);
    // One member for the whole file, and one member per record (concatenated gzip files).
    assert_eq!(summarize(&gzip(&all), &visible_text()), plain);
    let members: Vec<u8> = three_pages().iter().flat_map(|p| gzip(p)).collect();
    assert_eq!(summarize(&members, &visible_text()), plain);
}

#[test]
fn corrupt_gzip_member_loses_its_record_only() {
    let pages = three_pages();
    let mut bad = gzip(&pages[1]);
    bad[10] = 0xff; // a reserved deflate block type: the member fails at once
    let bytes = [gzip(&pages[0]), bad, gzip(&pages[2])].concat();
    let got = summarize(&bytes, &visible_text());
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0], "doc http://a.example/1 @1: first page");
    assert!(got[1].starts_with("error[-]: after record 1: corrupt gzip member at byte"), "{got:?}");
    assert_eq!(got[2], "doc http://a.example/3 @2: third page");
}

#[test]
fn detection_by_content() {
    let tmp = tempfile::tempdir().unwrap();
    let all = three_pages().concat();
    // Files without a known extension, plain and gzip (the course's `*.gz`).
    let plain = write(tmp.path(), "part-000", &all);
    let gz = write(tmp.path(), "part-001.gz", gzip(&all));
    let inputs = vec![Input::Path(plain), Input::Path(gz)];
    let opts = visible_text();
    let got = lines(Reader::new(inputs, opts.clone()), &opts);
    assert_eq!(got.len(), 6, "{got:?}");
    assert!(got.iter().all(|l| l.starts_with("doc ")), "{got:?}");
    // Standard input, gzip or not.
    for bytes in [all.clone(), gzip(&all)] {
        let got = lines(Reader::from_stream("-", Cursor::new(bytes), opts.clone()), &opts);
        assert_eq!(got[2], "doc http://a.example/3 @3: third page");
    }
    assert_eq!(sniff_format(&all), Format::Docreader);
    // Text, HTML and JSONL are not mistaken for it, nor are four bytes of binary.
    assert_eq!(sniff_format(b"\n\0\0\0hello"), Format::Text);
    assert_eq!(sniff_format(b"{\"id\":1}\n"), Format::Jsonl);
    assert_eq!(sniff_format(b"<html><p>x"), Format::Html);
    assert_eq!(sniff_format(b"plain words\n"), Format::Text);
    // A first record followed by garbage is not a docreader file.
    let mut bad = three_pages()[0].clone();
    bad.extend(b"plain words after it");
    assert_eq!(sniff_format(&bad), Format::Text);
}

#[test]
fn explicit_format_reads_any_file_name() {
    let tmp = tempfile::tempdir().unwrap();
    let all = three_pages().concat();
    let path = write(tmp.path(), "pages.txt", &all);
    let opts = ReadOptions { format: Some(Format::Docreader), ..visible_text() };
    let got = lines(Reader::new(vec![Input::Path(path.clone())], opts.clone()), &opts);
    assert_eq!(got.len(), 3);
    // Without it, a .txt is text (binary: skipped as such).
    let opts = visible_text();
    let got = lines(Reader::new(vec![Input::Path(path)], opts.clone()), &opts);
    assert_eq!(got.len(), 1);
    assert!(got[0].contains("binary file: NUL bytes"), "{got:?}");
    // A text file forced to docreader: one bad record, reported, nothing read.
    let text = write(tmp.path(), "notes.txt", b"just some words\nand more words\n");
    let opts = ReadOptions { format: Some(Format::Docreader), ..visible_text() };
    let got = lines(Reader::new(vec![Input::Path(text)], opts.clone()), &opts);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].ends_with("bad length: 1953723754 bytes is over the 268435456-byte limit (not a record length); skipped 31 bytes to the end"),
        "{got:?}"
    );
}

/// Regression guard for resynchronisation: one damage (a changed byte, bytes cut out, the end cut
/// off) anywhere in a file loses only the records it touches; every other record is read, in
/// order, whole. The run never panics and always ends.
#[test]
fn damage_loses_only_the_records_it_touches() {
    let records: Vec<Vec<u8>> = (0..20)
        .map(|i| page(&format!("http://m.example/{i}"), &format!("page number {i} words")))
        .collect();
    let mut starts = vec![0];
    for r in &records {
        starts.push(starts.last().unwrap() + r.len());
    }
    let all = records.concat();
    let expected: Vec<String> =
        (0..20).map(|i| format!("doc http://m.example/{i}: page number {i} words")).collect();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..600 {
        let at = (next() % all.len() as u64) as usize;
        let mut bytes = all.clone();
        // The damaged span [at, end) of the original bytes.
        let end = match round % 3 {
            0 => {
                bytes[at] ^= 1 + (next() % 255) as u8;
                at + 1
            }
            1 => {
                let n = 1 + (next() % 40) as usize;
                let end = (at + n).min(all.len());
                bytes.drain(at..end);
                end
            }
            _ => {
                bytes.truncate(at);
                all.len()
            }
        };
        let touched = |i: usize| starts[i] < end && at < starts[i + 1];
        let got: Vec<String> = summarize(&bytes, &visible_text())
            .into_iter()
            .filter(|l| l.starts_with("doc "))
            // Record numbers shift after a loss; the ids and texts must not.
            .map(|l| {
                let (head, text) = l.split_once(" @").unwrap();
                format!("{head}:{}", text.split_once(':').unwrap().1)
            })
            .collect();
        let untouched: Vec<&String> =
            (0..20).filter(|&i| !touched(i)).map(|i| &expected[i]).collect();
        let kept: Vec<&String> = got.iter().filter(|l| untouched.contains(l)).collect();
        assert_eq!(kept, untouched, "round {round}: damage at {at}..{end}: {got:?}");
    }
}
