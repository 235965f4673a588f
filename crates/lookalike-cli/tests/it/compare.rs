//! `lookalike compare` on a small generated corpus: every method runs, one row each.

use std::path::Path;

use serde_json::Value;

use crate::common::*;

/// 12 base documents of 120 words; base i has an exact copy when i % 3 == 0 and a lightly
/// edited copy (2 of 120 words changed, word-5-shingle Jaccard ≈ 0.84) when i % 2 == 0.
/// Returns the gold clusters as JSONL too.
fn corpus(dir: &Path) -> (String, String) {
    let (mut jsonl, mut gold) = (String::new(), String::new());
    for i in 0..12u64 {
        let text = words(100 + i, 120);
        let mut group = vec![format!("b{i}")];
        jsonl.push_str(&serde_json::json!({"id": format!("b{i}"), "text": text}).to_string());
        jsonl.push('\n');
        if i % 3 == 0 {
            group.push(format!("c{i}"));
            let line = serde_json::json!({"id": format!("c{i}"), "text": text});
            jsonl.push_str(&format!("{line}\n"));
        }
        if i % 2 == 0 {
            group.push(format!("e{i}"));
            let line = serde_json::json!({"id": format!("e{i}"), "text": edit(&text, 60)});
            jsonl.push_str(&format!("{line}\n"));
        }
        gold.push_str(&serde_json::json!({ "ids": group }).to_string());
        gold.push('\n');
    }
    write(dir, "corpus.jsonl", jsonl.as_bytes());
    write(dir, "gold.jsonl", gold.as_bytes());
    ("corpus.jsonl".into(), "gold.jsonl".into())
}

fn check_rows(j: &Value) -> Vec<String> {
    let rows = j["methods"].as_array().unwrap();
    let mut labels = Vec::new();
    for r in rows {
        for key in ["precision", "recall", "f1"] {
            let x = r[key].as_f64().unwrap_or_else(|| panic!("{key} of {r}"));
            assert!((0.0..=1.0).contains(&x), "{key} of {r}");
        }
        assert!(r["docs_per_second"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["mb_per_second"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["wall_seconds"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["pairs"].as_u64().unwrap() > 0, "{r}");
        if cfg!(target_os = "linux") {
            assert!(r["peak_rss_bytes"].as_u64().unwrap() > 1_000_000, "{r}");
        }
        labels.push(r["method"].as_str().unwrap().to_owned());
    }
    labels
}

#[test]
fn compare_runs_every_method_against_a_gold_standard() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, gold) = corpus(tmp.path());
    let o = run(
        &["compare", &corpus, "--gold", &gold, "--json", "cmp.json", "--threads", "1"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("cmp.json")).unwrap()).unwrap();
    let labels = check_rows(&j);
    // One row per method of the library, plus the MinHash variants.
    for m in lookalike::MethodKind::ALL {
        assert!(labels.contains(&m.name().to_owned()), "{labels:?}");
    }
    for v in ["minhash-estimate", "minhash-perm"] {
        assert!(labels.contains(&v.to_owned()), "{labels:?}");
    }
    let mut distinct = labels.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), labels.len());
    assert_eq!(j["documents"], 22);
    assert_eq!(j["reference"]["kind"], "gold");
    // The gold pairs: bases 0 and 6 have both copies (3 pairs each), 3 and 9 an exact copy, 2,
    // 4, 8 and 10 an edited copy (1 pair each): 6 + 2 + 4 = 12.
    assert_eq!(j["reference"]["duplicate_pairs"], 12);
    let exact = j["methods"].as_array().unwrap().iter().find(|r| r["method"] == "exact").unwrap();
    // Exact copies only: 4 of the 12 pairs, all right.
    assert_eq!(
        (exact["precision"].as_f64(), exact["reference_found"].as_u64()),
        (Some(1.0), Some(4))
    );
    // Its clusters are the exact-copy pairs: precision 1, 4 of 12 pairs, two documents each.
    assert_eq!(exact["clusters"]["score"]["precision"], 1.0);
    assert_eq!(exact["clusters"]["score"]["reference_found"], 4);
    assert_eq!(exact["clusters"]["largest"], 2);
    let minhash = &j["methods"][0];
    assert_eq!(minhash["method"], "minhash");
    assert_eq!(minhash["recall"], 1.0);
    // Clusters imply every pair found, and more: their recall is at least the pairs'.
    assert_eq!(minhash["clusters"]["score"]["recall"], 1.0);
    assert_eq!(minhash["clusters"]["largest"], 3);
    // The markdown table goes to stdout, progress to stderr.
    let md = stdout(&o);
    assert!(md.contains("| method | precision | recall | F1 | docs/s | MB/s |"), "{md}");
    assert!(md.contains("Quality against the gold standard"), "{md}");
    assert!(md.contains("Clusters, scored by the pairs they imply"), "{md}");
    assert!(md.contains("| method | precision | recall | F1 | ARI | largest cluster |"), "{md}");
    for label in &labels {
        assert!(md.contains(&format!("\n| {label} | ")), "{label}: {md}");
    }
    assert!(stderr(&o).contains(&format!("[1/{}] minhash", labels.len())), "{}", stderr(&o));
}

#[test]
fn compare_without_gold_judges_the_pool() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, _) = corpus(tmp.path());
    let o = run(
        &[
            "compare",
            &corpus,
            "--methods",
            "exact,minhash",
            "--json",
            "-",
            "-q",
            "--out-dir",
            "runs",
        ],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    // The library's order, whatever the order asked.
    assert_eq!(check_rows(&j), ["minhash", "exact"]);
    assert_eq!(j["reference"]["kind"], "pool");
    // MinHash writes all 12 duplicate pairs (the pairs of an exact copy with its original's near
    // copies included), exact the 4 exact copies: the pool holds the 12 pairs, all duplicates;
    // exact finds 4 of them.
    assert_eq!(j["reference"]["pool"]["pairs"], 12);
    assert_eq!(j["reference"]["pool"]["duplicates"], 12);
    assert_eq!(j["methods"][0]["recall"], 1.0);
    assert_eq!(j["methods"][1]["recall"], 4.0 / 12.0);
    assert!(tmp.path().join("runs/minhash.pairs.tsv").is_file());
    assert!(tmp.path().join("runs/exact.stats.json").is_file());
}

#[test]
fn compare_bad_usage_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let (corpus, _) = corpus(tmp.path());
    for (args, needle) in [
        (vec!["compare", &corpus, "--methods", "minhash,nope"], "known are minhash"),
        (vec!["compare", "-"], "standard input"),
        (vec!["compare", "missing.jsonl"], "missing.jsonl"),
        (vec!["compare", &corpus, "--gold", "missing.tsv"], "missing.tsv"),
        (vec!["compare", &corpus, "--threshold", "2"], "threshold"),
        (vec!["compare", &corpus, "--bands", "20", "--rows", "10"], "num-perm"),
        (vec!["compare", &corpus, "--json", "-", "--markdown", "-"], "only one"),
    ] {
        let o = run(&args, None, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    let o = run(&["compare", "--help"], None, tmp.path());
    assert!(o.status.success() && stdout(&o).contains("Examples:"));
}
