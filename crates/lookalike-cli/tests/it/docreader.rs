//! The docreader format end to end (the collections of the near-duplicate assignment in Mail.ru's
//! information-retrieval course): `lookalike dedup DATA/*.gz` on gzip files of docreader records (a
//! 4-byte little-endian length, then a protobuf `document { url = 1; body = 2; text = 3 }`),
//! printing `url1 url2 similarity` lines.

use std::path::Path;

use crate::common::*;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn string(number: u64, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint(&mut out, number << 3 | 2);
    varint(&mut out, value.len() as u64);
    out.extend_from_slice(value);
    out
}

/// A record of a page whose body is `words` in a paragraph.
fn page(url: &str, words: &str) -> Vec<u8> {
    let body = format!("<html><head><title>T</title></head><body><p>{words}</p></body></html>");
    let message = [string(1, url.as_bytes()), string(2, body.as_bytes())].concat();
    let mut out = (message.len() as u32).to_le_bytes().to_vec();
    out.extend(message);
    out
}

/// Two course-style files: near-duplicates within and across them, an exact copy under another
/// url, and, in the second file, a record whose length lies (too long) before the last one.
fn collection(dir: &Path) {
    let a = words(1, 200);
    let b = words(2, 200);
    let first = [
        page("http://news.example/a", &a),
        page("http://news.example/b", &b),
        page("http://other.example/a-copy", &edit(&a, 100)),
    ]
    .concat();
    let mut lying = page("http://news.example/lost", &words(3, 200));
    let len = u32::from_le_bytes(lying[..4].try_into().unwrap());
    lying[..4].copy_from_slice(&(len + 100).to_le_bytes());
    let second = [
        page("http://mirror.example/a", &a),
        page("http://news.example/c", &words(4, 200)),
        lying,
        page("http://news.example/b-print", &b),
    ]
    .concat();
    write(dir, "part-000.gz", &gzip(&first));
    write(dir, "part-001.gz", &gzip(&second));
}

#[test]
fn homework_command_prints_url_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    collection(tmp.path());
    // As run.sh would: the files by a glob's expansion, the format detected by content.
    for format in [&[][..], &["--format", "docreader"][..]] {
        let mut args =
            vec!["dedup", "part-000.gz", "part-001.gz", "--extract", "text", "--pairs", "-"];
        args.extend(format);
        let o = run(&args, None, tmp.path());
        assert!(o.status.success(), "{}", stderr(&o));
        let got: Vec<(String, String)> =
            pairs(&stdout(&o)).into_iter().map(|(a, b, _)| (a, b)).collect();
        let expected = [
            ("http://news.example/a", "http://other.example/a-copy"),
            ("http://news.example/a", "http://mirror.example/a"),
            ("http://news.example/b", "http://news.example/b-print"),
            ("http://other.example/a-copy", "http://mirror.example/a"),
        ];
        for (a, b) in expected {
            assert!(got.contains(&(a.to_owned(), b.to_owned())), "{a} {b} missing: {got:?}");
        }
        assert_eq!(got.len(), expected.len(), "{got:?}");
        let err = stderr(&o);
        assert!(
            err.contains("part-001.gz: record 3 at offset ")
                && err.contains("wrong length: ")
                && err.contains("the record was cut there"),
            "{err}"
        );
        assert!(err.contains("input errors: 1"), "{err}");
    }
}

#[test]
fn lost_records_are_in_the_report_with_their_number() {
    let tmp = tempfile::tempdir().unwrap();
    collection(tmp.path());
    let o = run(
        &["dedup", "part-000.gz", "part-001.gz", "--extract", "text", "--report", "-"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 7, "every record, the lost one included: {lines:?}");
    let lost = &lines[5];
    assert_eq!(lost["id"], "http://news.example/lost");
    assert_eq!(lost["status"], "skipped");
    assert_eq!(lost["source"], "part-001.gz");
    assert_eq!(lost["record"], 3);
    assert!(lost["reason"].as_str().unwrap().starts_with("record 3 at offset "), "{lost}");
    let last = &lines[6];
    assert_eq!(
        (last["id"].as_str(), last["record"].as_u64()),
        (Some("http://news.example/b-print"), Some(4))
    );
    assert_eq!(last["status"], "duplicate");
}

#[test]
fn stdin_is_detected_as_docreader() {
    let tmp = tempfile::tempdir().unwrap();
    collection(tmp.path());
    let bytes = std::fs::read(tmp.path().join("part-000.gz")).unwrap();
    let o = run(&["dedup", "-", "--extract", "text", "--pairs", "-"], Some(&bytes), tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let got = pairs(&stdout(&o));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str()),
        ("http://news.example/a", "http://other.example/a-copy")
    );
}

#[test]
fn docreader_outputs_are_identical_at_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    collection(tmp.path());
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let o = run(
            &[
                "dedup",
                "part-000.gz",
                "part-001.gz",
                "--threads",
                threads,
                "--pairs",
                "pairs.tsv",
                "--clusters",
                "clusters.jsonl",
                "--report",
                "report.jsonl",
                "--output",
                "unique.jsonl",
            ],
            None,
            tmp.path(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let read = |name: &str| std::fs::read(tmp.path().join(name)).unwrap();
        outputs.push([
            read("pairs.tsv"),
            read("clusters.jsonl"),
            read("report.jsonl"),
            read("unique.jsonl"),
        ]);
    }
    assert!(!outputs[0][0].is_empty());
    assert_eq!(outputs[0], outputs[1]);
}
