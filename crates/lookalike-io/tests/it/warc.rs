//! WARC files: the real samples in `../shared/data/warc-samples/`, and small WARCs built here for
//! every kind of bad input.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use lookalike_io::{Decoded, Format, Input, ReadOptions, Reader, WarcReader, decode};

use crate::common::{gzip, shared_data, write};

/// One WARC record, in WARC/1.0 with CRLF line endings.
fn record(kind: &str, uri: &str, block: &[u8]) -> Vec<u8> {
    record_with(kind, uri, "", block, block.len())
}

/// A record with extra header lines and a Content-Length that may lie.
fn record_with(kind: &str, uri: &str, extra: &str, block: &[u8], length: usize) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n{extra}\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {length}\r\n\r\n"
    )
    .into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// An HTTP response block.
fn http(status: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\n{headers}\r\n").into_bytes();
    out.extend_from_slice(body);
    out
}

fn html_response(uri: &str, body: &str) -> Vec<u8> {
    record(
        "response",
        uri,
        &http("200 OK", "Content-Type: text/html; charset=utf-8\r\n", body.as_bytes()),
    )
}

/// Every record and error of the inputs, as one line each: `doc ID [CHARSET]: TEXT`,
/// `skip ID: REASON`, `error: MESSAGE`.
fn summarize(paths: &[&Path], opts: &ReadOptions, max: Option<u64>) -> Vec<String> {
    let inputs = paths.iter().map(|p| Input::Path(p.to_path_buf())).collect();
    let mut reader = Reader::new(inputs, opts.clone());
    if let Some(max) = max {
        reader = reader.with_max_record_bytes(max);
    }
    reader
        .map(|item| match item {
            Err(e) => format!("error: {e}"),
            Ok(rec) => match decode(&rec, opts) {
                Decoded::Doc { doc, charset, .. } => {
                    format!("doc {} [{charset}]: {}", doc.id, doc.text)
                }
                Decoded::Skip { id, reason } => format!("skip {id}: {reason}"),
            },
        })
        .collect()
}

fn read_warc(dir: &Path, name: &str, bytes: &[u8]) -> (PathBuf, Vec<String>) {
    let path = write(dir, name, bytes);
    let got = summarize(&[&path], &crate::common::visible_text(), None);
    (path, got)
}

/// A real sample of `../shared/data/warc-samples`.
fn sample(name: &str) -> PathBuf {
    shared_data().join("warc-samples").join(name)
}

/// Records per WARC-Type, the documents, and the skips of a real sample.
struct Sample {
    types: BTreeMap<String, usize>,
    docs: Vec<(String, String, &'static str, Option<String>)>,
    skips: Vec<(String, String)>,
    errors: usize,
}

fn read_sample(path: &Path) -> Sample {
    let opts = crate::common::visible_text();
    let mut s = Sample { types: BTreeMap::new(), docs: vec![], skips: vec![], errors: 0 };
    for item in Reader::new(vec![Input::Path(path.to_path_buf())], opts.clone()) {
        let Ok(rec) = item else {
            s.errors += 1;
            continue;
        };
        assert_eq!(rec.format, Format::Warc);
        let header = rec.warc.as_deref().unwrap();
        *s.types.entry(header.kind.clone()).or_default() += 1;
        match decode(&rec, &opts) {
            Decoded::Doc { doc, warning, charset, .. } => {
                s.docs.push((doc.id, doc.text, charset, warning))
            }
            Decoded::Skip { id, reason } => s.skips.push((id, reason.to_string())),
        }
    }
    s
}

fn types(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|&(k, n)| (k.to_owned(), n)).collect()
}

#[test]
#[ignore = "needs ../shared/data"]
fn common_crawl_sample_small() {
    let path = sample("CC-MAIN-20150226074059-00000-ip-10-28-5-156.ec2.internal.warc.gz");
    let s = read_sample(&path);
    assert_eq!(s.errors, 0);
    assert_eq!(
        s.types,
        types(&[("warcinfo", 1), ("request", 5), ("response", 4), ("metadata", 4)])
    );
    assert_eq!(s.docs.len(), 4);
    let (id, text, charset, warning) = &s.docs[0];
    assert_eq!(id, "http://01radiojavan.blogfa.com/");
    assert_eq!((*charset, warning), ("UTF-8", &None));
    assert!(text.starts_with("دانلود جدیدترین آهنگ های روز جهان\n"), "{text}");
    // A MediaWiki page the crawler truncated: a document, with a warning.
    let (id, text, _, warning) = &s.docs[1];
    assert_eq!(id, "http://0x20.be/smw/index.php?title=Johannes&action=formedit");
    assert!(text.starts_with("Edit Person: Johannes - Whitespace (Hackerspace Gent)"), "{text}");
    assert_eq!(warning.as_deref(), Some("payload truncated by the crawler: length"));
    let source = path.display().to_string();
    assert_eq!(s.skips[0], (format!("{source}#record-1"), "WARC warcinfo record".to_owned()));
    assert_eq!(s.skips[1], (format!("{source}#record-2"), "WARC request record".to_owned()));
}

#[test]
#[ignore = "needs ../shared/data"]
fn common_crawl_sample_large() {
    let path = sample("CC-MAIN-20150226074105-00336-ip-10-28-5-156.ec2.internal.warc.gz");
    let s = read_sample(&path);
    assert_eq!(s.errors, 0);
    assert_eq!(
        s.types,
        types(&[("warcinfo", 1), ("request", 19), ("response", 18), ("metadata", 18)])
    );
    let first_response = &s.skips[2];
    assert_eq!(
        first_response,
        &(
            "http://0.r.msn.com/?ld=7v_Jdn9csWWGM2_-sLSMGdyTVUCUxQnW0eL1W_GVvnNgBtnonKWuuF1qtu8B8O\
             ieiuW8b3pbuxr7xxLzC5lw06x4x6ylNz3ikxeUrd17BpEG4pH9Td-t2GdAZCGaDlQ45iExWNAg&u=homesolar\
             pro.com%2Flurl%2Ffreesolarquotes%2F"
                .to_owned(),
            "empty payload".to_owned()
        )
    );
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, reason) in &s.skips {
        *reasons.entry(reason.as_str()).or_default() += 1;
    }
    assert_eq!(
        reasons,
        [
            ("WARC metadata record", 18),
            ("WARC request record", 19),
            ("WARC warcinfo record", 1),
            ("binary payload: image/jpeg", 2),
            ("empty payload", 2),
            ("not a document: text/xml", 2),
        ]
        .into_iter()
        .collect()
    );
    assert_eq!(s.docs.len(), 12);
    let doc = |id: &str| s.docs.iter().find(|d| d.0 == id).unwrap();
    let (_, text, charset, _) =
        doc("http://1057thehawk.com/wall-township-to-be-without-water-for-a-few-days/");
    assert_eq!(*charset, "UTF-8");
    assert!(text.starts_with("Wall Township to Be Without Water For a Few Days\n"), "{text}");
    // No charset declared, one windows-1252 byte (a "×" close button): detected.
    let (_, text, charset, warning) =
        doc("http://101barz.bnn.nl/page/profiel/73bac7e744f0f12fd669c91b6235a05a");
    assert_eq!(*charset, "windows-1252");
    assert!(warning.as_deref().unwrap().contains("charset detected: windows-1252"));
    assert!(text.contains('×'), "{text}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn clueweb09_sample() {
    let path = sample("clueweb-09-sample-en0000-sample-00.warc");
    let s = read_sample(&path);
    assert_eq!(s.errors, 0);
    assert_eq!(s.types, types(&[("warcinfo", 1), ("response", 23)]));
    assert_eq!(s.docs.len(), 23);
    let (id, text, charset, warning) = &s.docs[0];
    assert_eq!(id, "http://00000-nrt-realestate.homepagestartup.com/");
    // Declared in a <meta http-equiv>.
    assert_eq!((*charset, warning), ("windows-1252", &None));
    assert!(text.starts_with("00000-NRT-RealEstate's Homepage Startup\n"), "{text}");
    // Declared UTF-8 by HTTP, but Latin-1 bytes: detected, and the Icelandic reads right.
    let (_, text, charset, warning) = s
        .docs
        .iter()
        .find(|d| d.0 == "http://00perdomain.com/world/%c3%8dslenska/fr%c3%a9ttir/")
        .unwrap();
    assert_eq!(*charset, "windows-1252");
    assert_eq!(
        warning.as_deref(),
        Some("charset detected: windows-1252 (declared UTF-8, but the bytes are not)")
    );
    assert!(text.starts_with("Fréttir - Íslenska - 00perdomain.com\n"), "{text}");
    assert!(s.docs.iter().filter(|d| d.2 == "UTF-8").count() >= 10);
}

#[test]
fn every_version_and_line_ending() {
    let tmp = tempfile::tempdir().unwrap();
    let page = http("200 OK", "Content-Type: text/html\r\n", b"<p>one</p>");
    let mut bytes = record("response", "http://a.example/1", &page).replace_version("1.1");
    // WARC/0.18 as ClueWeb09 writes it: LF line endings, the separator inside the block.
    let block = b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n<p>two</p>\n\n";
    bytes.extend(
        format!(
            "WARC/0.18\nWARC-Type: response\nWARC-Target-URI: http://a.example/2\n\
             WARC-Identified-Payload-Type: \nContent-Length: {}\n\n",
            block.len()
        )
        .as_bytes(),
    );
    bytes.extend(block);
    bytes.extend(html_response("http://a.example/3", "<p>three</p>"));
    let (_, got) = read_warc(tmp.path(), "v.warc", &bytes);
    assert_eq!(
        got,
        [
            "doc http://a.example/1 [UTF-8]: one",
            "doc http://a.example/2 [UTF-8]: two",
            "doc http://a.example/3 [UTF-8]: three"
        ]
    );
}

trait ReplaceVersion {
    fn replace_version(self, version: &str) -> Vec<u8>;
}

impl ReplaceVersion for Vec<u8> {
    fn replace_version(mut self, version: &str) -> Vec<u8> {
        assert!(self.starts_with(b"WARC/1.0"));
        self.splice(5..8, version.bytes());
        self
    }
}

/// A small WARC: warcinfo, request, response, metadata, response.
fn small_warc() -> Vec<u8> {
    let mut bytes = record("warcinfo", "", b"software: test\r\n");
    bytes.extend(record("request", "http://a.example/", b"GET / HTTP/1.1\r\n\r\n"));
    bytes.extend(html_response("http://a.example/", "<title>A</title><p>first page"));
    bytes.extend(record("metadata", "http://a.example/", b"fetchTimeMs: 12\r\n"));
    bytes.extend(html_response("http://b.example/", "<p>second page"));
    bytes
}

#[test]
fn gzip_per_record_and_whole_file_read_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = small_warc();
    let whole = gzip(&plain);
    // One gzip member per record, as crawlers write them.
    let mut members = Vec::new();
    let mut rest = &plain[..];
    while !rest.is_empty() {
        let next =
            rest[1..].windows(7).position(|w| w == b"\nWARC/1").map_or(rest.len(), |p| p + 2);
        members.extend(gzip(&rest[..next]));
        rest = &rest[next..];
    }
    let (plain_path, expected) = read_warc(tmp.path(), "a.warc", &plain);
    let src = plain_path.display().to_string();
    assert_eq!(
        expected,
        [
            format!("skip {src}#record-1: WARC warcinfo record"),
            format!("skip {src}#record-2: WARC request record"),
            "doc http://a.example/ [UTF-8]: A\nfirst page".to_owned(),
            format!("skip {src}#record-4: WARC metadata record"),
            "doc http://b.example/ [UTF-8]: second page".to_owned(),
        ]
    );
    for (name, bytes) in [("whole.warc.gz", whole), ("members.warc.gz", members)] {
        let (path, got) = read_warc(tmp.path(), name, &bytes);
        let got: Vec<String> =
            got.iter().map(|l| l.replace(&path.display().to_string(), &src)).collect();
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn warc_is_detected_by_content_when_the_extension_is_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["crawl.dat", "crawl-00001", "crawl.dat.gz"] {
        let bytes = if name.ends_with(".gz") { gzip(&small_warc()) } else { small_warc() };
        let (_, got) = read_warc(tmp.path(), name, &bytes);
        assert_eq!(got.len(), 5, "{name}: {got:?}");
    }
    // Directories list .warc and .warc.gz files.
    write(tmp.path(), "d/x.warc.gz", gzip(&small_warc()));
    write(tmp.path(), "d/y.WARC", small_warc());
    let expanded = lookalike_io::expand_inputs(&[tmp.path().join("d").display().to_string()]);
    assert_eq!(expanded.unwrap().inputs.len(), 2);
}

#[test]
fn content_length_too_long_at_the_end_is_a_truncated_file() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = small_warc();
    let block = http("200 OK", "Content-Type: text/html\r\n", b"<p>cut");
    bytes.extend(record_with("response", "http://c.example/", "", &block, block.len() + 100));
    let (_, got) = read_warc(tmp.path(), "long.warc", &bytes);
    assert_eq!(got.len(), 6, "{got:?}");
    assert_eq!(got[4], "doc http://b.example/ [UTF-8]: second page");
    // The record is in the report, under its URI, with the reason.
    assert_eq!(
        got[5],
        format!(
            "skip http://c.example/: truncated WARC record: the Content-Length is {} bytes, the \
             input ends after {} of them",
            block.len() + 100,
            block.len() + 4
        )
    );
}

/// Regression: a Content-Length that is too short left the record's start as a
/// document, cut short, and reported the rest only as bytes skipped, on stderr.
#[test]
fn content_length_too_short_skips_the_record_with_its_uri_and_resynchronizes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = html_response("http://a.example/", "<p>first");
    let block = http("200 OK", "Content-Type: text/html\r\n", b"<p>second page, longer");
    let short = record_with("response", "http://b.example/", "", &block, block.len() - 12);
    bytes.extend(short);
    let next_at = bytes.len();
    bytes.extend(html_response("http://c.example/", "<p>third"));
    let (_, got) = read_warc(tmp.path(), "short.warc", &bytes);
    assert_eq!(
        got,
        [
            "doc http://a.example/ [UTF-8]: first".to_owned(),
            format!(
                "skip http://b.example/: wrong WARC Content-Length: the {}-byte block is followed \
                 by 16 bytes that are not a WARC record (a Content-Length too short?); skipped to \
                 the next record, at offset {next_at}",
                block.len() - 12
            ),
            "doc http://c.example/ [UTF-8]: third".to_owned(),
        ]
    );
}

/// Regression: a Content-Length that is too long silently absorbed the start of the
/// next record into the document, and that next record was lost. The next `WARC/` header inside
/// the block is found, the record is cut there and reported, and reading goes on from that
/// header: nothing after it is lost.
#[test]
fn content_length_too_long_is_cut_at_the_next_header_and_nothing_after_it_is_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let block = http("200 OK", "Content-Type: text/html\r\n", b"<p>first");
    // 30 bytes too long: the separator and the start of the next header.
    let mut bytes = record_with("response", "http://a.example/", "", &block, block.len() + 30);
    let second_at = bytes.len();
    bytes.extend(html_response("http://b.example/", "<p>swallowed"));
    bytes.extend(html_response("http://c.example/", "<p>third"));
    // Far too long: the next two records are inside the block.
    let far = record_with("response", "http://d.example/", "", &block, block.len() + 500);
    let fourth_at = bytes.len() + far.len();
    bytes.extend(far);
    bytes.extend(html_response("http://e.example/", "<p>fifth"));
    bytes.extend(html_response("http://f.example/", &format!("<p>{}", "sixth ".repeat(100))));
    let (_, got) = read_warc(tmp.path(), "swallow.warc", &bytes);
    assert_eq!(
        got,
        [
            format!(
                "skip http://a.example/: wrong WARC Content-Length: {} bytes is too long: the \
                 next record starts {} bytes into the block, at offset {second_at}; the record \
                 was cut there",
                block.len() + 30,
                block.len() + 4
            ),
            "doc http://b.example/ [UTF-8]: swallowed".to_owned(),
            "doc http://c.example/ [UTF-8]: third".to_owned(),
            format!(
                "skip http://d.example/: wrong WARC Content-Length: {} bytes is too long: the \
                 next record starts {} bytes into the block, at offset {fourth_at}; the record \
                 was cut there",
                block.len() + 500,
                block.len() + 4
            ),
            "doc http://e.example/ [UTF-8]: fifth".to_owned(),
            format!("doc http://f.example/ [UTF-8]: {}", "sixth ".repeat(100).trim_end()),
        ]
    );
}

#[test]
fn garbage_headers_and_missing_lengths_are_reported_and_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = b"not a warc line\r\n".to_vec();
    bytes.extend(html_response("http://a.example/", "<p>first"));
    bytes.extend(b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: lots\r\n\r\nbody\r\n\r\n");
    bytes.extend(html_response("http://b.example/", "<p>second"));
    let (path, got) = read_warc(tmp.path(), "g.warc", &bytes);
    let src = path.display();
    let second_header = 17 + html_response("http://a.example/", "<p>first").len();
    assert_eq!(
        got,
        [
            format!(
                "error: {src}: 17 bytes at offset 0 (before the first record) are not a WARC \
                 record (a wrong Content-Length?); skipped to the next record, at offset 17"
            ),
            "doc http://a.example/ [UTF-8]: first".to_owned(),
            format!(
                "skip {src}#record-2: bad WARC header: no valid Content-Length; skipped 8 more \
                 bytes to the next record, at offset {}",
                second_header + 63
            ),
            "doc http://b.example/ [UTF-8]: second".to_owned(),
        ]
    );
    // Not a WARC at all, though named one.
    let (_, got) = read_warc(tmp.path(), "text.warc", b"just some text\n");
    assert_eq!(
        got,
        [format!(
            "error: {}: 15 bytes at offset 0 (before the first record) are not a WARC record; \
             skipped to the end",
            tmp.path().join("text.warc").display()
        )]
    );
}

#[test]
fn truncated_header_and_truncated_gzip() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = small_warc();
    bytes.extend(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://t/\r\nContent-Len");
    let (_, got) = read_warc(tmp.path(), "h.warc", &bytes);
    assert_eq!(got.len(), 6);
    // The URI was read before the cut: the record is reported under it.
    assert_eq!(got[5], "skip http://t/: truncated WARC record: the input ends inside its header");
    // A gzip stream cut in the middle: the records before the cut, then the one it cut.
    let mut big = Vec::new();
    for i in 0..200 {
        big.extend(html_response(&format!("http://x.example/{i}"), &format!("<p>page {i}")));
    }
    let gz = gzip(&big);
    let (path, got) = read_warc(tmp.path(), "cut.warc.gz", &gz[..gz.len() / 2]);
    let (skips, docs): (Vec<_>, Vec<_>) = got.iter().partition(|l| l.starts_with("skip"));
    assert!(docs.len() > 10 && docs.len() < 200, "{}", docs.len());
    assert_eq!(skips.len(), 1, "{skips:?}");
    for (i, doc) in docs.iter().enumerate() {
        assert_eq!(**doc, format!("doc http://x.example/{i} [UTF-8]: page {i}"));
    }
    // Under its URI, or its number when the cut came before the URI line was complete.
    let n = docs.len();
    let ids = [format!("http://x.example/{n}"), format!("{}#record-{}", path.display(), n + 1)];
    assert!(
        ids.iter().any(|id| skips[0].starts_with(&format!("skip {id}: corrupt gzip data in "))),
        "{}",
        skips[0]
    );
    assert!(
        skips[0].contains("truncated gzip data: the input ends inside the member at byte 0"),
        "{}",
        skips[0]
    );
}

/// The records of `n` pages, each its own gzip member (as crawlers write `.warc.gz`).
fn per_record_members(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let text = format!(
                "<p>page {i}: {}",
                (0..50)
                    .map(|j| (i * 131 + j * 17) % 97)
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            gzip(&html_response(&format!("http://m.example/{i}"), &text))
        })
        .collect()
}

fn decompressed_len(member: &[u8]) -> usize {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(member), &mut out).unwrap();
    out.len()
}

/// Regression: in a per-record `.warc.gz`, one corrupt gzip member lost every record
/// after it (4 of 6, 3 of them intact). Now only the record in the damaged member is lost, and
/// it is reported (under its URI when its header was read).
#[test]
fn one_corrupt_gzip_member_loses_only_its_own_record() {
    let tmp = tempfile::tempdir().unwrap();
    let members = per_record_members(6);
    let start: usize = members[..2].iter().map(Vec::len).sum();
    let opts = crate::common::visible_text();
    let expect_doc = |line: &str, i: usize| {
        assert!(
            line.starts_with(&format!("doc http://m.example/{i} [UTF-8]: page {i}: ")),
            "{line}"
        )
    };
    // A checksum mismatch: the record's bytes all came, then the member failed.
    let mut bytes = members.concat();
    bytes[start + members[2].len() - 8] ^= 0x01;
    let path = write(tmp.path(), "crc.warc.gz", &bytes);
    let got = summarize(&[&path], &opts, None);
    assert_eq!(got.len(), 6, "{got:?}");
    for i in [0, 1, 3, 4, 5] {
        expect_doc(&got[i], i);
    }
    assert_eq!(
        got[2],
        format!(
            "skip http://m.example/2: corrupt gzip data in the record: corrupt gzip member at \
             byte {start} (corrupt gzip stream does not have a matching checksum), which gave {} \
             bytes; skipped {} bytes to the next member, at byte {}",
            decompressed_len(&members[2]),
            members[2].len(),
            start + members[2].len()
        )
    );
    // Damage inside the deflate data: whatever the decoder makes of it, the records of the
    // other members are all read, and the damaged one is reported once.
    for (at, value) in [(members[2].len() / 2, 0xffu8), (12, 0xff), (members[2].len() / 3, 0x00)] {
        let mut bytes = members.concat();
        for b in &mut bytes[start + at..start + at + 6] {
            *b = value;
        }
        let path = write(tmp.path(), "bad.warc.gz", &bytes);
        let got = summarize(&[&path], &opts, None);
        let docs: Vec<&String> = got.iter().filter(|l| l.starts_with("doc ")).collect();
        assert_eq!(docs.len(), 5, "{got:?}");
        for (doc, i) in docs.iter().zip([0, 1, 3, 4, 5]) {
            expect_doc(doc, i);
        }
        let problems: Vec<&String> = got.iter().filter(|l| !l.starts_with("doc ")).collect();
        assert!(!problems.is_empty() && problems.iter().all(|p| p.contains("gzip")), "{got:?}");
    }
}

#[test]
fn oversized_records_are_skipped_without_being_buffered() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = html_response("http://big.example/", &"<p>big page ".repeat(100));
    bytes.extend(html_response("http://small.example/", "<p>small"));
    let path = write(tmp.path(), "big.warc", &bytes);
    let inputs = vec![Input::Path(path)];
    let records: Vec<_> =
        Reader::new(inputs, crate::common::visible_text()).with_max_record_bytes(500).collect();
    let big = records[0].as_ref().unwrap();
    assert!(big.bytes.is_empty());
    let header = big.warc.as_deref().unwrap();
    assert!(header.length > 500);
    match decode(big, &crate::common::visible_text()) {
        Decoded::Skip { id, reason } => {
            assert_eq!(id, "http://big.example/");
            assert_eq!(
                reason.as_str(),
                format!("WARC record larger than the 500-byte limit: {} bytes", header.length)
            );
            assert_eq!(reason.kind(), lookalike_io::SkipKind::TooLarge);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(records[1].as_ref().unwrap().warc.as_deref().unwrap().id, "http://small.example/");
}

#[test]
fn payloads_that_are_not_documents_are_skipped_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("png", http("200 OK", "Content-Type: image/png\r\n", png), "binary payload: image/png"),
        ("sniffed", http("200 OK", "", png), "binary payload: image/png"),
        (
            "mislabeled",
            http("200 OK", "Content-Type: text/html\r\n", png),
            "binary payload: image/png (declared text/html)",
        ),
        (
            "pdf",
            http("200 OK", "Content-Type: application/pdf\r\n", b"%PDF-1.4"),
            "binary payload: application/pdf",
        ),
        (
            "nul",
            http("200 OK", "Content-Type: text/plain\r\n", b"ab\0\0\x01\x02cd"),
            "binary payload: control bytes in text/plain",
        ),
        ("css", http("200 OK", "Content-Type: text/css\r\n", b"p{}"), "not a document: text/css"),
        ("404", http("404 Not Found", "", b"<p>gone"), "HTTP status: 404 Not Found"),
        (
            "301",
            http("301 Moved Permanently", "Location: /\r\n", b""),
            "HTTP status: 301 Moved Permanently",
        ),
        ("empty", http("200 OK", "Content-Type: text/html\r\n", b""), "empty payload"),
        ("no http", b"<html>no status line".to_vec(), "not an HTTP response: no status line"),
        ("bad status", b"HTTP/1.1 OK\r\n\r\nx".to_vec(), "malformed HTTP status line: HTTP/1.1 OK"),
    ];
    let mut bytes = Vec::new();
    for (name, block, _) in &cases {
        bytes.extend(record("response", &format!("http://x.example/{name}"), block));
    }
    for kind in ["revisit", "resource", "conversion", "continuation"] {
        bytes.extend(record(kind, "http://x.example/", b"x"));
    }
    bytes.extend(
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: dns:x.example\r\n\
          Content-Type: text/dns\r\nContent-Length: 3\r\n\r\n1.2\r\n\r\n",
    );
    let (path, got) = read_warc(tmp.path(), "skips.warc", &bytes);
    let mut expected: Vec<String> = cases
        .iter()
        .map(|(name, _, reason)| format!("skip http://x.example/{name}: {reason}"))
        .collect();
    for (i, kind) in ["revisit", "resource", "conversion", "continuation"].iter().enumerate() {
        expected.push(format!(
            "skip {}#record-{}: WARC {kind} record",
            path.display(),
            cases.len() + i + 1
        ));
    }
    expected.push("skip dns:x.example: not an HTTP response: text/dns".to_owned());
    assert_eq!(got, expected);
}

#[test]
fn empty_pages_are_documents_without_text() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = html_response("http://e.example/", "<html><script>x()</script></html>");
    let (_, got) = read_warc(tmp.path(), "e.warc", &bytes);
    assert_eq!(got, ["doc http://e.example/ [UTF-8]: "]);
}

fn gzip_level(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn chunked(body: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in body.chunks(size) {
        out.extend(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend(chunk);
        out.extend(b"\r\n");
    }
    out.extend(b"0\r\n\r\n");
    out
}

#[test]
fn transfer_and_content_codings_are_undone() {
    let tmp = tempfile::tempdir().unwrap();
    let page = b"<title>Coded</title><p>The payload was stored as sent.</p>";
    let gz = gzip_level(page);
    let mut deflated = flate2::write::ZlibEncoder::new(Vec::new(), Compression::default());
    deflated.write_all(page).unwrap();
    let deflated = deflated.finish().unwrap();
    let mut raw_deflate = flate2::write::DeflateEncoder::new(Vec::new(), Compression::default());
    raw_deflate.write_all(page).unwrap();
    let raw_deflate = raw_deflate.finish().unwrap();
    let html = "Content-Type: text/html\r\n";
    let blocks = [
        http("200 OK", &format!("{html}Transfer-Encoding: chunked\r\n"), &chunked(page, 7)),
        http("200 OK", &format!("{html}Content-Encoding: gzip\r\n"), &gz),
        http(
            "200 OK",
            &format!("{html}Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n"),
            &chunked(&gz, 10),
        ),
        http("200 OK", &format!("{html}Content-Encoding: deflate\r\n"), &deflated),
        http("200 OK", &format!("{html}Content-Encoding: deflate\r\n"), &raw_deflate),
        // Stored decoded, header kept (Common Crawl does this).
        http("200 OK", &format!("{html}Content-Encoding: gzip\r\n"), page),
        http("200 OK", &format!("{html}Transfer-Encoding: chunked\r\n"), page),
        http("200 OK", &format!("{html}Content-Encoding: deflate\r\n"), page),
    ];
    let mut bytes = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        bytes.extend(record("response", &format!("http://c.example/{i}"), block));
    }
    let (_, got) = read_warc(tmp.path(), "codings.warc", &bytes);
    let expected: Vec<String> = (0..blocks.len())
        .map(|i| {
            format!("doc http://c.example/{i} [UTF-8]: Coded\nThe payload was stored as sent.")
        })
        .collect();
    assert_eq!(got, expected);
    // The raw fingerprint is of the decoded payload: the same page, however it was sent.
    let fingerprints: Vec<_> = Reader::new(
        vec![Input::Path(tmp.path().join("codings.warc"))],
        crate::common::visible_text(),
    )
    .map(|r| match decode(&r.unwrap(), &crate::common::visible_text()) {
        Decoded::Doc { doc, .. } => doc.raw_fingerprint,
        other => panic!("{other:?}"),
    })
    .collect();
    assert!(fingerprints.iter().all(|f| *f == fingerprints[0]));
}

#[test]
fn broken_codings_keep_what_can_be_read() {
    let tmp = tempfile::tempdir().unwrap();
    let page = "<p>".to_owned() + &"words that compress well ".repeat(200);
    let gz = gzip_level(page.as_bytes());
    let html = "Content-Type: text/html\r\n";
    let mut bytes = record(
        "response",
        "http://t.example/gz",
        &http("200 OK", &format!("{html}Content-Encoding: gzip\r\n"), &gz[..gz.len() - 30]),
    );
    bytes.extend(record(
        "response",
        "http://t.example/bad",
        &http("200 OK", &format!("{html}Content-Encoding: gzip\r\n"), b"\x1f\x8b\x08garbage"),
    ));
    let mut cut = chunked(page.as_bytes(), 100);
    cut.truncate(250);
    bytes.extend(record(
        "response",
        "http://t.example/chunked",
        &http("200 OK", &format!("{html}Transfer-Encoding: chunked\r\n"), &cut),
    ));
    let path = write(tmp.path(), "broken.warc", &bytes);
    let opts = crate::common::visible_text();
    let decoded: Vec<Decoded> = Reader::new(vec![Input::Path(path)], opts.clone())
        .map(|r| decode(&r.unwrap(), &opts))
        .collect();
    match &decoded[0] {
        Decoded::Doc { doc, warning, .. } => {
            assert!(doc.text.starts_with("words that compress well words"), "{}", doc.text);
            let warning = warning.as_deref().unwrap();
            assert!(
                warning.starts_with("truncated or corrupt gzip content coding: kept the first "),
                "{warning}"
            );
        }
        other => panic!("{other:?}"),
    }
    match &decoded[1] {
        Decoded::Skip { id, reason } => {
            assert_eq!(id, "http://t.example/bad");
            assert!(reason.as_str().starts_with("corrupt gzip content coding: "), "{reason}");
            assert_eq!(reason.kind(), lookalike_io::SkipKind::Damaged);
        }
        other => panic!("{other:?}"),
    }
    match &decoded[2] {
        Decoded::Doc { doc, warning, .. } => {
            assert!(doc.text.starts_with("words that compress well"), "{}", doc.text);
            assert_eq!(warning.as_deref(), Some("truncated chunked transfer coding"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_utf8_in_a_payload_is_detected_or_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let (cp1251, _, _) = encoding_rs::WINDOWS_1251
        .encode("<p>Привет! Это страница на русском языке, без объявления кодировки.");
    let mut mostly = "<p>Это UTF-8 с одним битым байтом: ".as_bytes().to_vec();
    mostly.push(0xFF);
    let mut bytes = record(
        "response",
        "http://a.example.ru/",
        &http("200 OK", "Content-Type: text/html\r\n", &cp1251),
    );
    bytes.extend(record(
        "response",
        "http://b.example/",
        &http("200 OK", "Content-Type: text/html\r\n", &mostly),
    ));
    let path = write(tmp.path(), "u.warc", &bytes);
    let opts = crate::common::visible_text();
    let decoded: Vec<Decoded> = Reader::new(vec![Input::Path(path)], opts.clone())
        .map(|r| decode(&r.unwrap(), &opts))
        .collect();
    match &decoded[0] {
        Decoded::Doc { doc, warning, charset, .. } => {
            assert_eq!(
                doc.text,
                "Привет! Это страница на русском языке, без объявления кодировки."
            );
            assert_eq!(*charset, "windows-1251");
            assert_eq!(warning.as_deref(), Some("charset detected: windows-1251"));
        }
        other => panic!("{other:?}"),
    }
    match &decoded[1] {
        Decoded::Doc { doc, warning, charset, .. } => {
            assert_eq!(doc.text, "Это UTF-8 с одним битым байтом: \u{FFFD}");
            assert_eq!(*charset, "UTF-8");
            assert_eq!(warning.as_deref(), Some("invalid UTF-8 replaced with U+FFFD: 1 byte"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn same_uri_twice_gets_distinct_stable_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let page = http("200 OK", "Content-Type: text/html\r\n", b"<p>x");
    let mut bytes =
        record_with("response", "http://a/", "WARC-Record-ID: <urn:uuid:1>\r\n", &page, page.len());
    bytes.extend(record_with(
        "response",
        "<http://a/>",
        "WARC-Record-ID: <urn:uuid:2>\r\n",
        &page,
        page.len(),
    ));
    bytes.extend(record("response", "http://a/", &page));
    bytes.extend(record("response", "", &page));
    let (path, got) = read_warc(tmp.path(), "dup.warc", &bytes);
    assert_eq!(
        got,
        [
            "doc http://a/ [UTF-8]: x".to_owned(),
            "doc http://a/#urn:uuid:2 [UTF-8]: x".to_owned(),
            "doc http://a/#record-3 [UTF-8]: x".to_owned(),
            format!("doc {}#record-4 [UTF-8]: x", path.display()),
        ]
    );
    // The same file read again gives the same ids; another file starts afresh.
    let copy = write(tmp.path(), "dup2.warc", &bytes);
    let again = summarize(&[&path, &copy], &crate::common::visible_text(), None);
    assert_eq!(again[..4], got[..]);
    assert_eq!(again[4], "doc http://a/ [UTF-8]: x");
}

#[test]
fn warc_reader_works_on_any_stream() {
    let bytes = small_warc();
    let records: Vec<_> = WarcReader::new("mem", &bytes[..]).collect();
    assert_eq!(records.len(), 5);
    let header = records[2].as_ref().unwrap().warc.as_deref().unwrap();
    assert_eq!(
        (header.number, header.kind.as_str(), header.version.as_str()),
        (3, "response", "1.0")
    );
    assert_eq!(header.target_uri.as_deref(), Some("http://a.example/"));
    let offset = record("warcinfo", "", b"software: test\r\n").len()
        + record("request", "http://a.example/", b"GET / HTTP/1.1\r\n\r\n").len();
    assert_eq!(header.offset, offset as u64);
}

#[test]
fn forced_format_reads_a_warc_from_any_name() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "crawl.txt", small_warc());
    let opts = ReadOptions { format: Some(Format::Warc), ..crate::common::visible_text() };
    assert_eq!(summarize(&[&path], &opts, None).len(), 5);
    // Without it, a .txt is text.
    assert_eq!(summarize(&[&path], &crate::common::visible_text(), None).len(), 1);
}

/// With the default options (main content), real WARC pages lose their boilerplate: the text is
/// shorter than all visible text, the title is kept apart, and nothing is lost (an empty main
/// content falls back to the visible text).
#[test]
#[ignore = "needs ../shared/data"]
fn real_warc_pages_get_their_main_content_by_default() {
    let data = shared_data();
    let path =
        data.join("warc-samples/CC-MAIN-20150226074105-00336-ip-10-28-5-156.ec2.internal.warc.gz");
    let main_opts = ReadOptions::default();
    let text_opts = crate::common::visible_text();
    let (mut docs, mut shorter, mut titled, mut main) = (0, 0, 0, 0);
    for rec in Reader::new(vec![Input::Path(path)], main_opts.clone()) {
        let rec = rec.unwrap();
        let (Decoded::Doc { doc, title, extraction, .. }, Decoded::Doc { doc: all, .. }) =
            (decode(&rec, &main_opts), decode(&rec, &text_opts))
        else {
            continue;
        };
        docs += 1;
        assert!(matches!(extraction, "main" | "main-element" | "text"), "{extraction}");
        main += usize::from(extraction != "text");
        titled += usize::from(title.is_some());
        shorter += usize::from(doc.text.len() < all.text.len());
        if let Some(t) = &title {
            assert!(!doc.text.starts_with(t.as_str()) || doc.text.len() > t.len());
        }
    }
    // 18 responses, of which 12 are 2xx HTML or text documents.
    assert_eq!(docs, 12);
    assert!(
        main * 3 >= docs * 2 && titled * 3 >= docs * 2 && shorter * 3 >= docs * 2,
        "of {docs}: main {main} titled {titled} shorter {shorter}"
    );
}
