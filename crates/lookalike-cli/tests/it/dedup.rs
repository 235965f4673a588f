//! `lookalike dedup` on files, directories, globs, gzip, JSONL and stdin.

use serde_json::Value;

use crate::common::*;

/// A folder with a page, its near copy as HTML, an exact copy as .txt.gz, and an unrelated file.
fn pages(dir: &std::path::Path) -> String {
    let base = words(1, 300);
    write(dir, "pages/a.txt", base.as_bytes());
    let html = format!(
        "<html><head><title>t</title><style>p {{}}</style></head><body><p>{}</p><script>var x;</script></body></html>",
        edit(&base, 50)
    );
    write(dir, "pages/sub/b.html", html.as_bytes());
    write(dir, "pages/sub/c.txt.gz", &gzip(base.as_bytes()));
    write(dir, "pages/d.txt", words(2, 300).as_bytes());
    write(dir, "pages/ignored.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    base
}

#[test]
fn a_folder_gives_pairs_clusters_output_and_report() {
    let tmp = tempfile::tempdir().unwrap();
    pages(tmp.path());
    let o = run(
        &[
            "dedup",
            "pages/",
            "--threshold",
            "0.8",
            "--pairs",
            "pairs.tsv",
            "--clusters",
            "clusters.jsonl",
            "--output",
            "unique.jsonl",
            "--report",
            "report.jsonl",
        ],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |n: &str| std::fs::read_to_string(tmp.path().join(n)).unwrap();
    let p = pairs(&read("pairs.tsv"));
    // Every pair: the near copy with the page and with the page's exact copy.
    assert_eq!(p.len(), 3, "{p:?}");
    assert_eq!((p[0].0.as_str(), p[0].1.as_str()), ("pages/a.txt", "pages/sub/b.html"));
    assert!(p[0].2 >= 0.8 && p[0].2 < 1.0);
    assert_eq!(
        (p[1].0.as_str(), p[1].1.as_str(), p[1].2),
        ("pages/a.txt", "pages/sub/c.txt.gz", 1.0)
    );
    assert_eq!(
        (p[2].0.as_str(), p[2].1.as_str(), p[2].2),
        ("pages/sub/b.html", "pages/sub/c.txt.gz", p[0].2)
    );

    let clusters: Vec<Value> =
        read("clusters.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(clusters.len(), 1);
    assert_eq!(clusters[0]["representative"], "pages/a.txt");
    assert_eq!(clusters[0]["size"], 3);
    assert_eq!(clusters[0]["members"][1]["match"], "exact-bytes");

    let unique: Vec<Value> =
        read("unique.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: Vec<&str> = unique.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["pages/a.txt", "pages/d.txt"]);
    assert_eq!(unique[1]["text"], words(2, 300));

    let report: Vec<Value> =
        read("report.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(report.len(), 5, "every input document and ignored file is accounted for");
    let status: Vec<&str> = report.iter().map(|v| v["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["ignored", "kept", "kept", "duplicate", "duplicate"]);
    assert_eq!(report[0]["reason"], "binary file: image/png");
    let err = stderr(&o);
    assert!(err.contains("4 documents") && err.contains("files ignored"), "{err}");
}

/// Regression: `lookalike dedup /usr/share/doc/procps` read 4 of 8 files,
/// silently: `README.Debian`, `changelog.Debian.gz` and `NEWS.Debian.gz` are text under names
/// it did not know. They are read by their content; the files that are not read (binary) are
/// listed with why: report rows, the count by reason in the summary and on the HTML page.
#[test]
fn a_folder_reads_text_files_of_any_name_and_lists_the_ignored_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = |seed: u64| words(seed, 120);
    write(tmp.path(), "procps/README.Debian", doc(1).as_bytes());
    write(tmp.path(), "procps/changelog.Debian.gz", &gzip(doc(2).as_bytes()));
    write(tmp.path(), "procps/NEWS.Debian.gz", &gzip(doc(3).as_bytes()));
    write(tmp.path(), "procps/copyright", doc(4).as_bytes());
    write(tmp.path(), "procps/changelog.gz", &gzip(doc(5).as_bytes()));
    write(tmp.path(), "procps/README.md", doc(6).as_bytes());
    write(tmp.path(), "procps/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    write(tmp.path(), "procps/examples/ps", b"\x7fELF\x02\x01\x01\0\0\0\0\0");
    let o = run(
        &["dedup", "procps", "--report", "report.jsonl", "--html", "r.html", "--stats", "s.json"],
        None,
        tmp.path(),
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("6 documents"), "{err}");
    let line = "files ignored (found in folders, not read): 2 (binary file: \
                application/x-executable: 1; binary file: image/png: 1)";
    assert!(err.contains(line), "{err}");
    let read = |n: &str| std::fs::read_to_string(tmp.path().join(n)).unwrap();
    let ignored: Vec<(String, String)> = read("report.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["status"] == "ignored")
        .map(|v| (v["id"].as_str().unwrap().to_owned(), v["reason"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(
        ignored,
        [
            ("procps/examples/ps".to_owned(), "binary file: application/x-executable".to_owned()),
            ("procps/logo.png".to_owned(), "binary file: image/png".to_owned()),
        ]
    );
    let stats: Value = serde_json::from_str(&read("s.json")).unwrap();
    assert_eq!(stats["files_ignored"]["binary file: image/png"], 1);
    let page = read("r.html");
    assert!(page.contains("data-stat=\"files_ignored\">2 (binary file:"), "no ignored row");
}

#[test]
fn stdin_jsonl_with_custom_fields_and_pairs_on_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let base = words(3, 200);
    let lines = [
        serde_json::json!({"url": "http://a/1", "body": base}),
        serde_json::json!({"url": "http://a/2", "body": edit(&base, 100)}),
        serde_json::json!({"url": "http://b/1", "body": words(4, 200)}),
        serde_json::json!({"body": base.to_uppercase()}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let o = run(
        &["dedup", "-", "--id-field", "url", "--text-field", "body", "--pairs", "-"],
        Some(input.as_bytes()),
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let p = pairs(&stdout(&o));
    let ids: Vec<(&str, &str)> = p.iter().map(|(a, b, _)| (a.as_str(), b.as_str())).collect();
    // The record without an id is named by its line; it is an exact copy of the first record,
    // so the near copy of the first is listed with it too.
    assert_eq!(ids, [("http://a/1", "http://a/2"), ("http://a/1", "-:4"), ("http://a/2", "-:4")]);
    assert_eq!(p[1].2, 1.0);
    assert_eq!(p[2].2, p[0].2);
}

#[test]
fn gzipped_jsonl_file_output_keeps_original_records() {
    let tmp = tempfile::tempdir().unwrap();
    let base = words(5, 150);
    let input = format!(
        "{}\n{}\n",
        serde_json::json!({"id": 1, "text": base, "meta": {"lang": "en"}}),
        serde_json::json!({"id": 2, "text": base.to_uppercase(), "meta": {"lang": "en"}})
    );
    write(tmp.path(), "corpus.jsonl.gz", &gzip(input.as_bytes()));
    let o = run(&["dedup", "corpus.jsonl.gz", "--output", "-", "--quiet"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), input.lines().next().unwrap().to_owned() + "\n");
    assert!(stderr(&o).is_empty(), "--quiet prints nothing: {}", stderr(&o));
}

#[test]
fn outputs_are_byte_identical_across_thread_counts_and_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let mut input = String::new();
    for i in 0..400u64 {
        let g = i / 3;
        let text = match i % 3 {
            0 => words(g, 120),
            1 => edit(&words(g, 120), 8 + (g as usize % 30)),
            _ => words(g + 1000, 120),
        };
        input.push_str(&format!("{}\n", serde_json::json!({"id": format!("r{i}"), "text": text})));
    }
    write(tmp.path(), "c.jsonl", input.as_bytes());
    let mut outputs = Vec::new();
    for threads in ["1", "2", "4", "1"] {
        let o = run(
            &[
                "dedup",
                "c.jsonl",
                "--threshold",
                "0.6",
                "--threads",
                threads,
                "--pairs",
                "p.tsv",
                "--clusters",
                "c.json",
                "--report",
                "r.json",
            ],
            None,
            tmp.path(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let all: Vec<Vec<u8>> = ["p.tsv", "c.json", "r.json"]
            .iter()
            .map(|f| std::fs::read(tmp.path().join(f)).unwrap())
            .collect();
        outputs.push(all);
    }
    assert!(!outputs[0][0].is_empty());
    for o in &outputs[1..] {
        assert_eq!(o, &outputs[0]);
    }
}

#[test]
fn globs_and_character_shingles() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "n/one.txt", "Meeting notes: budget approved for 2024.".as_bytes());
    write(tmp.path(), "n/two.txt", "meeting notes - budget approved for 2024".as_bytes());
    write(tmp.path(), "n/three.txt", "Lunch menu: soup and bread.".as_bytes());
    let o = run(&["dedup", "n/*.txt", "--shingle", "chars:5", "--pairs", "-"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "n/one.txt\tn/two.txt\t1.000000\n");
}

#[test]
fn estimate_verification_and_longest_representative() {
    let tmp = tempfile::tempdir().unwrap();
    let base = words(9, 400);
    write(tmp.path(), "short.txt", base.as_bytes());
    write(tmp.path(), "long.txt", format!("{base} {}", words(10, 20)).as_bytes());
    let o = run(
        &[
            "dedup",
            "short.txt",
            "long.txt",
            "--verify",
            "estimate",
            "--keep",
            "longest",
            "--clusters",
            "-",
        ],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let c: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(c["representative"], "long.txt");
    assert_eq!(c["members"][0]["id"], "short.txt");
}

#[test]
fn cluster_center_splits_a_chain_that_connected_joins() {
    // a~b and b~c (J ≈ 0.67) but a and c share little (J ≈ 0.43): a chain at threshold 0.6.
    let tmp = tempfile::tempdir().unwrap();
    let block: Vec<String> = (20..27).map(|s| words(s, 100)).collect();
    let text = |from: usize| block[from..from + 5].join(" ");
    write(tmp.path(), "a.txt", text(0).as_bytes());
    write(tmp.path(), "b.txt", text(1).as_bytes());
    write(tmp.path(), "c.txt", text(2).as_bytes());
    let clusters = |mode: &str| {
        let args = ["dedup", "a.txt", "b.txt", "c.txt", "--threshold", "0.6", "--clusters", "-"];
        let o = run(&[&args[..], &["--cluster", mode, "-q"]].concat(), None, tmp.path());
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .map(|l| {
                let c: Value = serde_json::from_str(l).unwrap();
                let mut ids = vec![c["representative"].as_str().unwrap().to_owned()];
                for m in c["members"].as_array().unwrap() {
                    // Connected chains c to a through b: its similarity shows it.
                    let chained = mode == "connected" && m["id"] == "c.txt";
                    assert_eq!(m["similarity"].as_f64().unwrap() < 0.6, chained, "{mode}: {m}");
                    ids.push(m["id"].as_str().unwrap().to_owned());
                }
                ids
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(clusters("connected"), vec![vec!["a.txt", "b.txt", "c.txt"]]);
    assert_eq!(clusters("center"), vec![vec!["a.txt", "b.txt"]]);
    assert_eq!(clusters("clique"), vec![vec!["a.txt", "b.txt"]]);
    assert_eq!(clusters("center-refine"), vec![vec!["a.txt", "b.txt"]]);
    // The pairs do not depend on the mode.
    let o = run(
        &["dedup", "a.txt", "b.txt", "c.txt", "-t", "0.6", "--cluster", "center", "--pairs", "-"],
        None,
        tmp.path(),
    );
    assert_eq!(pairs(&stdout(&o)).len(), 2, "{}", stderr(&o));
}
