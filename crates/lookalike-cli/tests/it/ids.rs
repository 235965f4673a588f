//! Ids stay unique and traceable: a later copy of an id is renamed with where its record is, and
//! the report gives every record's input and line, row or WARC record number.

use serde_json::Value;

use crate::common::*;

fn warc_record_text(uri: &str, body: &str) -> Vec<u8> {
    warc_record(uri, "text/plain", body)
}

fn report(o: &std::process::Output) -> Vec<Value> {
    stdout(o).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Regression: duplicate JSONL ids gave pairs like `same<TAB>same<TAB>1.000000` and
/// report lines nobody could tell apart.
#[test]
fn duplicate_jsonl_ids_are_renamed_with_their_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let text = words(1, 60);
    let line = |id: &str, text: &str| serde_json::json!({"id": id, "text": text}).to_string();
    let a = [line("same", &text), line("other", &words(2, 60))].join("\n") + "\n";
    let b = [line("same", &text), line("same", &words(3, 60)), line("fresh", &words(4, 60))]
        .join("\n")
        + "\n";
    write(tmp.path(), "a.jsonl", a.as_bytes());
    write(tmp.path(), "b.jsonl", b.as_bytes());
    let o = run(
        &["dedup", "a.jsonl", "b.jsonl", "--report", "-", "--pairs", "pairs.tsv"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = report(&o);
    let fates: Vec<(&str, &str, &str, u64)> = lines
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap(),
                v["status"].as_str().unwrap(),
                v["source"].as_str().unwrap(),
                v["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fates,
        [
            ("same", "kept", "a.jsonl", 1),
            ("other", "kept", "a.jsonl", 2),
            ("same#b.jsonl:1", "duplicate", "b.jsonl", 1),
            ("same#b.jsonl:2", "kept", "b.jsonl", 2),
            ("fresh", "kept", "b.jsonl", 3),
        ]
    );
    assert_eq!(lines[2]["of"], "same");
    let pairs = std::fs::read_to_string(tmp.path().join("pairs.tsv")).unwrap();
    assert_eq!(pairs, "same\tsame#b.jsonl:1\t1.000000\n");
    let err = stderr(&o);
    assert!(err.contains("warning: duplicate id: 2"), "{err}");
    assert!(
        err.contains(
            "e.g. b.jsonl:1: duplicate id: \"same\" is the id of an earlier record; this one is \
             renamed \"same#b.jsonl:1\""
        ),
        "{err}"
    );
}

/// Regression: the same URL in two WARC files (two crawls of one site) gave
/// `url<TAB>url<TAB>1.0` pairs. Within one file the WARC reader already tells them apart; across
/// files the later one is renamed with its file and record number, and the report says where
/// each record is.
#[test]
fn the_same_url_in_two_warc_files_gets_distinct_traceable_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let page = words(5, 80);
    let mut first = warc_record_text("http://a.example/", &page);
    first.extend(warc_record_text("http://b.example/", &words(6, 80)));
    write(tmp.path(), "crawl-1.warc", &first);
    let mut second = warc_record_text("http://c.example/", &words(7, 80));
    second.extend(warc_record_text("http://a.example/", &page));
    write(tmp.path(), "crawl-2.warc.gz", &gzip(&second));
    let o = run(
        &["dedup", "crawl-1.warc", "crawl-2.warc.gz", "--report", "-", "--pairs", "pairs.tsv"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let fates: Vec<(String, String, String, u64)> = report(&o)
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_owned(),
                v["status"].as_str().unwrap().to_owned(),
                v["source"].as_str().unwrap().to_owned(),
                v["record"].as_u64().unwrap(),
            )
        })
        .collect();
    let fate = |id: &str, status: &str, source: &str, record: u64| {
        (id.to_owned(), status.to_owned(), source.to_owned(), record)
    };
    assert_eq!(
        fates,
        [
            fate("http://a.example/", "kept", "crawl-1.warc", 1),
            fate("http://b.example/", "kept", "crawl-1.warc", 2),
            fate("http://c.example/", "kept", "crawl-2.warc.gz", 1),
            fate("http://a.example/#crawl-2.warc.gz#record-2", "duplicate", "crawl-2.warc.gz", 2),
        ]
    );
    let pairs = std::fs::read_to_string(tmp.path().join("pairs.tsv")).unwrap();
    assert_eq!(pairs, "http://a.example/\thttp://a.example/#crawl-2.warc.gz#record-2\t1.000000\n");
    assert!(stderr(&o).contains("warning: duplicate id: 1"), "{}", stderr(&o));
}

/// Every kind of report line says where its record is: a whole file by its name only, a JSONL
/// line, a record skipped by the reader, one lost with a read error.
#[test]
fn every_report_line_names_its_source_and_position() {
    let tmp = tempfile::tempdir().unwrap();
    let english = "The quick brown fox jumps over the lazy dog while the farmer watches the fields \
                   and the children walk to school along the river on a cold morning";
    write(tmp.path(), "page.txt", english.as_bytes());
    let jsonl = format!(
        "{}\n{{\"id\":\"x\"}}\n{{broken\n{}\n",
        serde_json::json!({"id": "j1", "text": format!("{english} in the spring")}),
        serde_json::json!({"id": "j4", "text": ""}),
    );
    write(tmp.path(), "recs.jsonl", jsonl.as_bytes());
    let o = run(&["dedup", "page.txt", "recs.jsonl", "--report", "-"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            r#"{"id":"page.txt","status":"kept","lang":"en","source":"page.txt"}"#.to_owned(),
            r#"{"id":"j1","status":"duplicate","lang":"en","of":"page.txt","similarity":0.888889,"match":"near","source":"recs.jsonl","line":1}"#.to_owned(),
            r#"{"id":"x","status":"skipped","reason":"no string field 'text' (the record's fields are id)","source":"recs.jsonl","line":2}"#.to_owned(),
            format!(
                r#"{{"id":"recs.jsonl:3","status":"skipped","reason":"invalid JSON: {}","source":"recs.jsonl","line":3}}"#,
                "key must be a string at line 1 column 2"
            ),
            r#"{"id":"j4","status":"skipped","reason":"empty text","source":"recs.jsonl","line":4}"#.to_owned(),
        ]
    );
    // The summary's examples name the file and line of records that have an id of their own.
    let err = stderr(&o);
    assert!(err.contains("e.g. x (recs.jsonl:2): no string field 'text'"), "{err}");
    assert!(err.contains("e.g. j4 (recs.jsonl:4): empty text"), "{err}");
}

/// `--output` writes a renamed page (not a JSONL record, which is written as it was read) under
/// its new id, the one the report and the pairs use.
#[test]
fn a_renamed_page_is_written_to_output_under_its_new_id() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "crawl-1.warc", &warc_record_text("http://a.example/", &words(11, 80)));
    write(tmp.path(), "crawl-2.warc", &warc_record_text("http://a.example/", &words(12, 80)));
    let o = run(
        &["dedup", "crawl-1.warc", "crawl-2.warc", "--output", "-", "--extract", "text"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ids: Vec<String> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["http://a.example/", "http://a.example/#crawl-2.warc#record-1"]);
}

/// Regression: an `--id-field` the records lack fell back to `file:line`
/// ids silently; a wrong `--text-field` did not say which fields exist. The first is one warning
/// line of the summary (with the count, the file and the fields), the second one skip reason.
#[test]
fn a_missing_id_or_text_field_is_said_with_the_fields_the_records_have() {
    let tmp = tempfile::tempdir().unwrap();
    let lines: String = (0..3)
        .map(|i| {
            serde_json::json!({"id": format!("d{i}"), "text": words(i, 60)}).to_string() + "\n"
        })
        .collect();
    write(tmp.path(), "recs.jsonl", lines.as_bytes());
    let o = run(&["dedup", "recs.jsonl", "--id-field", "uid", "--report", "-"], None, tmp.path());
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let warning = "warning: no id field 'uid' (the record's fields are id, text); its id is its \
                   position: 3";
    assert_eq!(err.matches(warning).count(), 1, "{err}");
    assert!(err.contains("e.g. recs.jsonl:1: no id field 'uid'"), "{err}");
    assert!(stdout(&o).contains(r#""id":"recs.jsonl:2","status":"kept""#), "{}", stdout(&o));
    // The default id field, absent, is the position without a warning.
    let o = run(&["dedup", "recs.jsonl", "--text-field", "body"], None, tmp.path());
    let err = stderr(&o);
    assert!(!err.contains("no id field"), "{err}");
    assert!(
        err.contains("skipped: no string field 'body' (the record's fields are id, text): 3"),
        "{err}"
    );
}
