//! `lookalike eval` and `lookalike eval pool` on the hand-made gold set in `tests/data/`.
//!
//! The ten documents d01..d10 (`eval-corpus.jsonl`): d01 = d02 = d03 after normalization; d05 is
//! d04 with one word changed; d07 is d06 with a sentence appended; d08, d09, d10 are unrelated.
//! Gold clusters: {d01,d02,d03}, {d04,d05}, {d06,d07}; d08, d09, d10 alone: 3 + 1 + 1 = 5 pairs.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::*;

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name).display().to_string()
}

fn eval_json(args: &[&str]) -> Value {
    let mut all = vec!["eval"];
    all.extend(args);
    all.extend(["--json", "-q"]);
    let o = run(&all, None, Path::new("."));
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn close(v: &Value, expected: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - expected).abs() < 1e-9)
}

#[test]
fn pairs_and_clusters_against_gold_clusters_give_the_hand_computed_numbers() {
    let pairs = data("eval-results-pairs.tsv");
    let clusters = data("eval-results-clusters.jsonl");
    let gold = data("eval-gold-clusters.jsonl");
    let j = eval_json(&["-r", &pairs, "-r", &format!("chained={clusters}"), "--gold", &gold]);
    assert_eq!(j["gold"]["format"], "clusters");
    assert_eq!(j["gold"]["duplicate_pairs"], 5);
    assert_eq!(j["gold"]["clusters"]["singletons"], 3);

    // Pairs d01-d02 1.0, d01-d03 1.0, d04-d05, d06-d08. Precision: 3 of the 4 pairs are inside a
    // gold cluster (not d06-d08): 0.75. Recall: d01-d02, d01-d03, d02-d03 (through the exact
    // group), d04-d05 of the 5 gold pairs: 0.8. F1 = 2·0.75·0.8 / 1.55 = 24/31.
    // ARI over the 10 ids: results {01,02,03} {04,05} {06,08}, gold {01,02,03} {04,05} {06,07}:
    // I = 3 + 1 = 4, A = 5, B = 5, N = 45: (4 − 25/45) / (5 − 25/45) = 31/40.
    let r = &j["results"][0];
    assert_eq!(r["name"], "eval-results-pairs.tsv");
    assert_eq!((r["found"].as_u64(), r["true_positives"].as_u64()), (Some(4), Some(3)));
    assert_eq!((r["reference"].as_u64(), r["reference_found"].as_u64()), (Some(5), Some(4)));
    assert!(close(&r["precision"], 0.75) && close(&r["recall"], 0.8), "{r}");
    assert!(close(&r["f1"], 24.0 / 31.0) && close(&r["ari"], 31.0 / 40.0), "{r}");
    assert_eq!((r["ari_items"].as_u64(), r["exact_groups"].as_u64()), (Some(10), Some(1)));
    assert_eq!(r["clusters"]["clusters"], 3);
    assert_eq!(r["clusters"]["max"], 3);

    // Clusters {d01..d05} and {d06,d07}: 10 + 1 = 11 asserted pairs, 3 + 1 + 1 = 5 inside gold
    // clusters: precision 5/11; every gold pair found: recall 1; F1 = (10/11) / (16/11) = 5/8.
    // ARI: I = 3 + 1 + 1 = 5, A = 11, B = 5, N = 45: (5 − 11/9) / (8 − 11/9) = 34/61.
    let c = &j["results"][1];
    assert_eq!((c["name"].as_str(), c["format"].as_str()), (Some("chained"), Some("clusters")));
    assert!(close(&c["precision"], 5.0 / 11.0) && close(&c["recall"], 1.0), "{c}");
    assert!(close(&c["f1"], 0.625) && close(&c["ari"], 34.0 / 61.0), "{c}");
    assert_eq!(c["clusters"]["histogram"][0]["clusters"], 1); // one cluster of 2
}

#[test]
fn labelled_and_similarity_gold_pairs_read_like_the_clusters() {
    let pairs = data("eval-results-pairs.tsv");
    for gold in ["eval-gold-labels.tsv", "eval-gold-similarity.tsv"] {
        let j = eval_json(&["-r", &pairs, "--gold", &data(gold)]);
        let r = &j["results"][0];
        assert!(close(&r["precision"], 0.75) && close(&r["recall"], 0.8), "{gold}: {r}");
        // Labels name every id (d09 and d10 in a nondup pair): the same ARI as the clusters.
        if gold == "eval-gold-labels.tsv" {
            assert_eq!(j["gold"]["values"], "labels");
            assert!(close(&r["ari"], 31.0 / 40.0), "{r}");
        } else {
            assert_eq!(j["gold"]["values"], "similarities");
            assert!(close(&j["gold"]["header_threshold"], 0.5));
        }
    }
    // At 0.95 only the exact group d01-d02-d03 is a duplicate (3 pairs): precision 2/4, and
    // the 3 gold pairs are all found (d02-d03 through the group).
    let j = eval_json(&["-r", &pairs, "--gold", &data("eval-gold-similarity.tsv"), "-t", "0.95"]);
    let r = &j["results"][0];
    assert!(close(&r["precision"], 0.5) && close(&r["recall"], 1.0), "{r}");
}

#[test]
fn docs_adds_singletons_to_the_ari_and_the_table_goes_to_stderr() {
    // N = C(20, 2) = 190: (4 − 25/190) / (5 − 25/190) = 147/185.
    let pairs = data("eval-results-pairs.tsv");
    let j = eval_json(&["-r", &pairs, "-g", &data("eval-gold-clusters.jsonl"), "--docs", "20"]);
    let r = &j["results"][0];
    assert!(close(&r["ari"], 147.0 / 185.0) && r["ari_items"] == 20, "{r}");
    assert_eq!(r["clusters"]["singletons"], 13);
    let o =
        run(&["eval", "-r", &pairs, "-g", &data("eval-gold-clusters.jsonl")], None, Path::new("."));
    assert!(o.status.success() && stdout(&o).is_empty());
    let table = stderr(&o);
    assert!(table.contains("precision") && table.contains("0.7500") && table.contains("0.7750"));
    assert!(table.contains("singletons") && table.contains("2:2 3:1"), "{table}");
}

#[test]
fn bad_files_name_the_file_and_line_and_bad_usage_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "bad.tsv", b"d01\td02\t1.0\nd01 d03 1.0\n");
    write(tmp.path(), "bad.jsonl", b"{\"ids\":[\"a\",\"b\"]}\n{\"ids\":\n");
    let gold = data("eval-gold-clusters.jsonl");
    let o = run(&["eval", "-r", "bad.tsv", "-g", &gold], None, tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.tsv:2: expected 3 tab-separated fields"), "{}", stderr(&o));
    let o = run(&["eval", "-r", "bad.jsonl", "-g", &gold], None, tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.jsonl:2: invalid JSON"), "{}", stderr(&o));

    let pairs = data("eval-results-pairs.tsv");
    let similarity = data("eval-gold-similarity.tsv");
    for (args, needle) in [
        (vec!["eval", "-r", &pairs], "--gold"),
        (vec!["eval", "-r", "missing.tsv", "-g", &gold], "missing.tsv"),
        (vec!["eval", "-r", &pairs, "-g", &similarity, "-t", "0.4"], "threshold"),
        (vec!["eval", "-r", &pairs, "-g", &gold, "-t", "0"], "threshold"),
        (vec!["eval", "-r", &pairs, "-r", &pairs, "-g", &gold], "named"),
        (vec!["eval", "pool", "--corpus", "x.jsonl", "-r", &pairs], "NAME=FILE"),
        (vec!["eval", "pool", "--corpus", "x.jsonl", "-r", &format!("c={gold}")], "clusters"),
    ] {
        let o = run(&args, None, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    let o = run(&["eval", "--help"], None, tmp.path());
    assert!(o.status.success() && stdout(&o).contains("Examples:"));
    let o = run(&["eval", "pool", "--help"], None, tmp.path());
    assert!(o.status.success() && stdout(&o).contains("LCS"));
}

#[test]
fn pool_judges_the_union_of_the_runs_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    // Run one: d01-d02, d01-d03, d04-d05, d06-d08; run two: d04-d05, d06-d07. Pool: 5 pairs;
    // d06-d08 (unrelated texts) is judged no duplicate, d04-d05 a duplicate by characters only
    // (one word changed breaks 5 of its word shingles). One: precision 3/4, recall 3/4 (d06-d07
    // missed); two: precision 2/2, recall 2/4. Overlap: d04-d05 of 5 pairs.
    let o = run(
        &[
            "eval",
            "pool",
            "--corpus",
            &data("eval-corpus.jsonl"),
            "-r",
            &format!("one={}", data("eval-results-pairs.tsv")),
            "-r",
            &format!("two={}", data("eval-results-run2.tsv")),
            "--pool-out",
            "pool.tsv",
            "--json",
            "--threads",
            "1",
        ],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((j["pool"]["pairs"].as_u64(), j["pool"]["duplicates"].as_u64()), (Some(5), Some(4)));
    let (one, two) = (&j["runs"][0], &j["runs"][1]);
    assert!(close(&one["precision"], 0.75) && close(&one["recall"], 0.75), "{one}");
    assert!(close(&two["precision"], 1.0) && close(&two["recall"], 0.5), "{two}");
    assert_eq!(
        (one["only_this"].as_u64(), one["only_this_duplicates"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(j["overlaps"][0]["shared"], 1);
    assert!(close(&j["overlaps"][0]["jaccard"], 0.2));
    let pool = std::fs::read_to_string(tmp.path().join("pool.tsv")).unwrap();
    let lines: Vec<Vec<&str>> = pool.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 5);
    let row = |a: &str, b: &str| lines.iter().find(|l| l[0] == a && l[1] == b).unwrap().clone();
    let r = row("d04", "d05");
    assert!(r[2].parse::<f64>().unwrap() < 0.8 && r[3].parse::<f64>().unwrap() > 0.9);
    assert_eq!((r[4], r[5]), ("1", "one,two"));
    assert_eq!(row("d06", "d08")[4], "0");
    assert_eq!(row("d01", "d03")[2..5], ["1.000000", "1.000000", "1"]);
    assert!(stderr(&o).contains("one / two"), "{}", stderr(&o));

    // A corpus without one of the pooled documents: the error names it.
    write(tmp.path(), "partial.jsonl", b"{\"id\":\"d04\",\"text\":\"x y z\"}\n");
    let o = run(
        &[
            "eval",
            "pool",
            "--corpus",
            "partial.jsonl",
            "-r",
            &format!("two={}", data("eval-results-run2.tsv")),
        ],
        None,
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no text for document \"d05\""), "{}", stderr(&o));
}
