//! `lookalike paragraphs`: repeated paragraphs removed, every other field
//! kept, the removed spans in the report, skipped records reported, Parquet rows kept whole.

use std::path::Path;
#[cfg(feature = "parquet")]
use std::sync::Arc;

use serde_json::Value;

use crate::common::*;

fn lines(s: &str) -> Vec<Value> {
    s.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), stderr(o));
}

/// A small crawl export: a shared footer and a shared quote, extra fields of every kind (a
/// nested object, numbers written as written, escapes, a field after the text), a record without
/// text and a line that is not JSON.
const CORPUS: &str = concat!(
    r#"{"id":"a","url":"http://a/","text":"Local news: the bridge reopens.\nAll rights reserved.\n","score":1.50}"#,
    "\n",
    r#"{"id":"b","text":"ALL RIGHTS RESERVED!\nThe market is open on Sunday.\r\n\nLocal news: the bridge reopens.","meta":{"tags":["x","y"],"n":null},"note":"caf\u00e9"}"#,
    "\n",
    r#"{"id":"c","body":"no text field"}"#,
    "\n",
    "{this is not json\n",
    r#"{"id":"d","text":"Home\nThe market is open on Sunday.\nHome\nA story of its own."}"#,
    "\n",
);

#[test]
fn jsonl_records_keep_their_other_fields_and_lose_the_repeated_paragraphs() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "corpus.jsonl", CORPUS.as_bytes());
    let o = run(
        &["paragraphs", "corpus.jsonl", "--output", "out.jsonl", "--report", "report.jsonl"],
        None,
        tmp.path(),
    );
    ok(&o);
    let out = std::fs::read_to_string(tmp.path().join("out.jsonl")).unwrap();
    let input: Vec<&str> = CORPUS.lines().collect();
    let output: Vec<&str> = out.lines().collect();
    assert_eq!(output.len(), 5, "{out}");
    // The first record loses nothing: its bytes as read.
    assert_eq!(output[0], input[0]);
    // The second loses the footer (another case), the repeated news line (no line ending: the
    // blank line before it stays); only the text's value changes.
    assert_eq!(
        output[1],
        r#"{"id":"b","text":"The market is open on Sunday.\r\n\n","meta":{"tags":["x","y"],"n":null},"note":"caf\u00e9"}"#
    );
    // A record without text and a line that is not JSON are kept (dedup --output's forms).
    assert_eq!(output[2], input[2]);
    let broken: Value = serde_json::from_str(output[3]).unwrap();
    assert_eq!(broken["raw"], "{this is not json");
    assert!(broken["skipped"].as_str().unwrap().starts_with("invalid JSON"));
    // A repeat inside one document goes too; its first copy stays.
    assert_eq!(
        output[4], r#"{"id":"d","text":"Home\nA story of its own."}"#,
        "the line from b and the second Home go"
    );

    let report = lines(&std::fs::read_to_string(tmp.path().join("report.jsonl")).unwrap());
    assert_eq!(report.len(), 5);
    assert_eq!(report[0]["status"], "unchanged");
    assert_eq!(report[0]["paragraphs"], 2);
    assert_eq!(report[1]["status"], "cleaned");
    assert_eq!(report[1]["source"], "corpus.jsonl");
    assert_eq!(report[1]["line"], 2);
    let b_text =
        "ALL RIGHTS RESERVED!\nThe market is open on Sunday.\r\n\nLocal news: the bridge reopens.";
    let spans: Vec<(usize, usize, &str)> = report[1]["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let (s, e) =
                (r["start"].as_u64().unwrap() as usize, r["end"].as_u64().unwrap() as usize);
            (s, e, r["first_seen"].as_str().unwrap())
        })
        .collect();
    let last = b_text.find("Local news").unwrap();
    assert_eq!(spans, [(0, 21, "a"), (last, b_text.len(), "a")]);
    assert_eq!(&b_text[spans[0].0..spans[0].1], "ALL RIGHTS RESERVED!\n");
    assert_eq!(report[2]["status"], "skipped");
    assert_eq!(report[2]["reason"], "no string field 'text' (the record's fields are id, body)");
    assert_eq!(report[3]["status"], "skipped");
    assert_eq!(report[3]["line"], 4);
    let d: Vec<&str> = report[4]["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["first_seen"].as_str().unwrap())
        .collect();
    assert_eq!(d, ["b", "d"]);
    let err = stderr(&o);
    assert!(err.contains("9 paragraphs seen, 4 removed"), "{err}");
    assert!(err.contains("2 records skipped"), "{err}");
}

#[test]
fn min_chars_leaves_short_lines_alone() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "corpus.jsonl", CORPUS.as_bytes());
    let o = run(&["paragraphs", "corpus.jsonl", "--min-chars", "5", "-q"], None, tmp.path());
    ok(&o);
    let out = stdout(&o);
    // "Home" (4 characters) is no paragraph: both copies stay; the longer repeat goes.
    assert_eq!(
        out.lines().nth(4).unwrap(),
        r#"{"id":"d","text":"Home\nHome\nA story of its own."}"#
    );
    assert_eq!(stderr(&o), "", "quiet");
}

#[test]
fn skipped_records_can_be_dropped_from_the_output_but_stay_in_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "corpus.jsonl", CORPUS.as_bytes());
    let o = run(
        &["paragraphs", "corpus.jsonl", "--skipped", "drop", "--report", "r.jsonl", "-q"],
        None,
        tmp.path(),
    );
    ok(&o);
    let ids: Vec<String> = lines(&stdout(&o)).iter().map(|v| v["id"].to_string()).collect();
    assert_eq!(ids, ["\"a\"", "\"b\"", "\"d\""]);
    let report = std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap();
    assert_eq!(report.lines().filter(|l| l.contains("\"skipped\"")).count(), 2);
}

#[test]
fn standard_input_and_a_report_on_standard_output() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        &["paragraphs", "-", "--output", "out.jsonl.gz", "--report", "-", "-q"],
        Some(CORPUS.as_bytes()),
        tmp.path(),
    );
    ok(&o);
    let report = lines(&stdout(&o));
    assert_eq!(report.len(), 5);
    assert_eq!(report[1]["source"], "-");
    let mut gz =
        flate2::read::GzDecoder::new(std::fs::File::open(tmp.path().join("out.jsonl.gz")).unwrap());
    let mut out = String::new();
    std::io::Read::read_to_string(&mut gz, &mut out).unwrap();
    assert_eq!(out.lines().count(), 5);
    assert!(out.contains(r#""text":"Home\nA story of its own.""#), "{out}");

    let both = run(&["paragraphs", "-", "--report", "-"], Some(b""), tmp.path());
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
}

/// Nothing readable: an error, and no output file.
#[test]
fn a_run_that_reads_no_document_fails_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "bad.jsonl", b"{not json\n{\"id\":1}\n");
    let o = run(&["paragraphs", "bad.jsonl", "-o", "out.jsonl"], None, tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("no document could be read"), "{}", stderr(&o));
    assert!(!tmp.path().join("out.jsonl").exists());
}

/// A collection with many repeats, in several files (one collection, in the order given).
fn generated(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for f in 0..3u64 {
        let mut s = String::new();
        for d in 0..200u64 {
            let n = f * 200 + d;
            let paragraphs: Vec<String> = (0..6)
                .map(|p| match (n + p) % 5 {
                    0 => format!("Shared paragraph {} {}", (n * 7 + p) % 40, words(p, 6)),
                    1 => "Subscribe to our newsletter!".to_owned(),
                    _ => words(n * 10 + p, 12),
                })
                .collect();
            let text = paragraphs.join("\n");
            s.push_str(&serde_json::json!({"id": format!("f{f}-{d}"), "text": text}).to_string());
            s.push('\n');
        }
        let name = format!("part-{f}.jsonl");
        write(dir, &name, s.as_bytes());
        names.push(name);
    }
    names
}

#[test]
fn the_output_does_not_depend_on_the_thread_count_and_a_big_bloom_filter_equals_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let names = generated(tmp.path());
    let base: Vec<&str> = names.iter().map(String::as_str).collect();
    let with = |extra: &[&str]| {
        let mut args = vec!["paragraphs"];
        args.extend(&base);
        args.extend(extra);
        let o = run(&args, None, tmp.path());
        ok(&o);
        o
    };
    let one = with(&["-j", "1"]);
    let two = with(&["-j", "2", "--report", "r.jsonl"]);
    assert_eq!(one.stdout, two.stdout);
    assert!(stdout(&one).lines().count() == 600);
    let err = stderr(&two);
    assert!(err.contains("600 documents"), "{err}");

    let bloom = with(&["--bloom", "1M", "--bloom-items", "10000"]);
    assert_eq!(
        bloom.stdout, one.stdout,
        "a big filter removes exactly what the exact mode removes"
    );
    let err = stderr(&bloom);
    assert!(err.contains("estimated false-positive rate"), "{err}");
    assert!(err.contains("k = 32"), "k from --bloom-items (m/n ln 2 = 581, at most 32): {err}");

    // A tiny filter removes every repeat, and unique paragraphs too.
    let tiny = with(&["--bloom", "64"]);
    let kept = |o: &std::process::Output| -> usize {
        lines(&stdout(o)).iter().map(|v| v["text"].as_str().unwrap().lines().count()).sum()
    };
    assert!(kept(&tiny) < kept(&one));

    let report = lines(&std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap());
    assert_eq!(report.len(), 600);
    // The newsletter line is first seen in the first document that has it.
    let first = report
        .iter()
        .flat_map(|r| r["removed"].as_array().unwrap().iter())
        .map(|r| r["first_seen"].as_str().unwrap().to_owned())
        .collect::<std::collections::HashSet<_>>();
    assert!(first.contains("f0-0"), "{first:?}");
}

#[test]
#[cfg(feature = "parquet")]
fn parquet_rows_are_written_with_every_column() {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("part.parquet");
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("row", Arc::new(Int64Array::from(vec![1, 2, 3]))),
        (
            "content",
            Arc::new(StringArray::from(vec![
                Some("Cookie notice.\nFirst page."),
                Some("cookie NOTICE\nSecond page."),
                None,
            ])),
        ),
        ("quality", Arc::new(Float64Array::from(vec![Some(0.25), None, Some(1.0)]))),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = std::fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let o = run(
        &[
            "paragraphs",
            "part.parquet",
            "--text-field",
            "content",
            "--id-field",
            "row",
            "--report",
            "r.jsonl",
        ],
        None,
        tmp.path(),
    );
    ok(&o);
    assert_eq!(
        stdout(&o).lines().collect::<Vec<_>>(),
        [
            r#"{"row":1,"content":"Cookie notice.\nFirst page.","quality":0.25}"#,
            r#"{"row":2,"content":"Second page.","quality":null}"#,
            r#"{"row":3,"content":null,"quality":1.0}"#,
        ]
    );
    let report = lines(&std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap());
    assert_eq!(report[1]["row"], 2);
    assert_eq!(report[1]["removed"][0]["first_seen"], "1");
    assert_eq!(report[2]["status"], "skipped");
}

#[test]
fn html_pages_are_written_as_id_title_lang_and_text() {
    let tmp = tempfile::tempdir().unwrap();
    let footer = "<p>Copyright 2024 Example Corporation, all rights reserved.</p>";
    write(
        tmp.path(),
        "pages/a.html",
        format!("<title>A</title><p>The first page talks about rivers and boats.</p>{footer}")
            .as_bytes(),
    );
    write(
        tmp.path(),
        "pages/b.html",
        format!("<title>B</title><p>The second page is about mountains instead.</p>{footer}")
            .as_bytes(),
    );
    let o = run(&["paragraphs", "pages", "--extract", "text", "-q"], None, tmp.path());
    ok(&o);
    let out = lines(&stdout(&o));
    assert_eq!(out.len(), 2);
    assert_eq!(out[1]["id"], "pages/b.html");
    assert!(out[0]["text"].as_str().unwrap().contains("Copyright"));
    assert!(!out[1]["text"].as_str().unwrap().contains("Copyright"), "{:?}", out[1]);
    assert!(out[1]["text"].as_str().unwrap().contains("mountains"));
    assert!(out[1].get("lang").is_some() && out[1].get("title").is_some(), "{:?}", out[1]);
}
