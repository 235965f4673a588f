//! `dedup` with the methods beyond MinHash: containment, lexicon files, errors of their options.

use crate::common::*;

/// Documents: a long article `full`, an excerpt of it (`part`, 40% of the words), an unrelated one.
fn containment_inputs(dir: &std::path::Path) {
    let full = words(11, 600);
    let part: Vec<&str> = full.split(' ').skip(100).take(240).collect();
    write(dir, "docs/full.txt", full.as_bytes());
    write(dir, "docs/part.txt", part.join(" ").as_bytes());
    write(dir, "docs/other.txt", words(12, 400).as_bytes());
}

#[test]
fn containment_reports_the_excerpt_inside_the_article_and_keeps_the_article() {
    let tmp = tempfile::tempdir().unwrap();
    containment_inputs(tmp.path());
    // By resemblance the excerpt is no duplicate (Jaccard ≈ 0.4).
    let o = run(&["dedup", "docs/", "--pairs", "-", "-q"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let o = run(
        &["dedup", "docs/", "--measure", "containment", "--pairs", "-", "--report", "r.jsonl"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let p = pairs(&stdout(&o));
    assert_eq!(p.len(), 1, "{p:?}");
    // Contained first, with containment 1.
    assert!(p[0].0.ends_with("part.txt") && p[0].1.ends_with("full.txt"), "{p:?}");
    assert_eq!(p[0].2, 1.0);
    assert!(stderr(&o).contains("method mod-m"), "{}", stderr(&o));
    // The default representative with containment is the longest: the article is kept.
    let report = std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap();
    let part = report.lines().find(|l| l.contains("part.txt")).unwrap();
    assert!(part.contains("\"status\":\"duplicate\"") && part.contains("full.txt"), "{part}");
}

#[test]
fn containment_with_a_method_that_cannot_reach_it_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    containment_inputs(tmp.path());
    let o = run(&["dedup", "docs/", "--measure", "containment", "-m", "minhash"], None, tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("containment needs candidates"), "{}", stderr(&o));
}

/// Ten distinct documents and a near copy of each: one word appended, a word of no other
/// document, so that I-Match's lexicon (which drops terms of one document) and the top tf·RIDF
/// terms are the same for both (replacing a word would change them: these methods are that
/// strict, see the benchmark).
fn lexical_inputs(dir: &std::path::Path, name: &str, seed: u64) {
    let mut lines = String::new();
    for i in 0..10 {
        let text = words(seed * 100 + i, 300);
        lines.push_str(&format!("{{\"id\":\"{name}-{i}\",\"text\":\"{text}\"}}\n"));
        let copy = format!("{text} appended{i}");
        lines.push_str(&format!("{{\"id\":\"{name}-{i}-copy\",\"text\":\"{copy}\"}}\n"));
    }
    write(dir, &format!("{name}.jsonl"), lines.as_bytes());
}

#[test]
fn a_saved_lexicon_signs_a_new_batch_like_the_statistics_of_the_old_one() {
    let tmp = tempfile::tempdir().unwrap();
    lexical_inputs(tmp.path(), "old", 1);
    let o = run(
        &["lexicon", "build", "old.jsonl", "-o", "lex.bin", "--refwords", "50"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("lexicon of 20 documents"), "{}", stderr(&o));
    // Signing the old batch with its own lexicon equals signing it with in-run statistics.
    for method in ["i-match", "tf-ridf", "i-match-rand"] {
        let own =
            run(&["dedup", "old.jsonl", "-m", method, "--pairs", "-", "-q"], None, tmp.path());
        let lex = run(
            &["dedup", "old.jsonl", "-m", method, "--lexicon", "lex.bin", "--pairs", "-", "-q"],
            None,
            tmp.path(),
        );
        assert!(own.status.success() && lex.status.success(), "{}", stderr(&lex));
        assert_eq!(stdout(&own), stdout(&lex), "{method}");
        assert!(!stdout(&own).is_empty(), "{method} finds the edited copies");
    }
    // A different seed or a broken file is refused with a message naming the file.
    let o = run(
        &["dedup", "old.jsonl", "-m", "i-match", "--lexicon", "lex.bin", "--seed", "2"],
        None,
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("lex.bin"), "{}", stderr(&o));
    let bytes = std::fs::read(tmp.path().join("lex.bin")).unwrap();
    write(tmp.path(), "cut.bin", &bytes[..bytes.len() / 2]);
    let o = run(&["dedup", "old.jsonl", "-m", "i-match", "--lexicon", "cut.bin"], None, tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cut.bin") && stderr(&o).contains("truncated"), "{}", stderr(&o));
}

#[test]
fn unsigned_documents_are_reported_not_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    lexical_inputs(tmp.path(), "b", 3);
    let mut lines = std::fs::read_to_string(tmp.path().join("b.jsonl")).unwrap();
    lines.push_str("{\"id\":\"short\",\"text\":\"only three words\"}\n");
    write(tmp.path(), "b.jsonl", lines.as_bytes());
    let o = run(&["dedup", "b.jsonl", "-m", "tf-ridf", "--report", "r.jsonl"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no signature"), "{}", stderr(&o));
    let report = std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap();
    assert_eq!(report.lines().count(), 21);
    let short = report.lines().find(|l| l.contains("\"short\"")).unwrap();
    assert!(short.contains("\"status\":\"kept\"") && short.contains("\"unsigned\""), "{short}");
}

#[test]
fn every_method_runs_from_the_command_line_and_is_deterministic_across_threads() {
    let tmp = tempfile::tempdir().unwrap();
    lexical_inputs(tmp.path(), "c", 5);
    for &m in lookalike::MethodKind::ALL {
        let a = run(
            &["dedup", "c.jsonl", "-m", m.name(), "--pairs", "-", "-q", "-j", "1"],
            None,
            tmp.path(),
        );
        let b = run(
            &["dedup", "c.jsonl", "-m", m.name(), "--pairs", "-", "-q", "-j", "2"],
            None,
            tmp.path(),
        );
        assert!(a.status.success(), "{m}: {}", stderr(&a));
        assert_eq!(stdout(&a), stdout(&b), "{m}");
    }
}

/// Ten documents of 400 words and an edited copy of each (one word in 40 replaced: Jaccard about
/// 0.78 of word 5-shingles, an estimate around the 0.7 threshold).
fn combined_inputs(dir: &std::path::Path) {
    let mut lines = String::new();
    for i in 0..10 {
        let text = words(700 + i, 400);
        lines.push_str(&format!("{{\"id\":\"c{i}\",\"text\":\"{text}\"}}\n"));
        let copy = edit(&text, 40);
        lines.push_str(&format!("{{\"id\":\"c{i}-edited\",\"text\":\"{copy}\"}}\n"));
    }
    write(dir, "c.jsonl", lines.as_bytes());
}

/// `--method combined`: pairs carry the MinHash estimate, the SimHash distance and the cosine
/// estimate; the summary says what the filter dropped; `--max-distance` narrows the filter, and a
/// distance of 0 keeps no pair of edited copies.
#[test]
fn combined_method_filters_lsh_candidates_by_max_distance() {
    let tmp = tempfile::tempdir().unwrap();
    combined_inputs(tmp.path());
    let dedup = |extra: &[&str]| {
        let mut args = vec!["dedup", "c.jsonl", "-m", "combined", "-t", "0.7", "--pairs", "-"];
        args.extend_from_slice(extra);
        let o = run(&args, None, tmp.path());
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        o
    };
    let distances = |o: &std::process::Output| -> Vec<u32> {
        stdout(o)
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert_eq!(f.len(), 5, "id, id, estimate, distance, cosine: {l:?}");
                assert!(f[0].starts_with('c') && f[1] == format!("{}-edited", f[0]), "{l}");
                f[3].parse().unwrap()
            })
            .collect()
    };

    let o = dedup(&["--verify", "estimate"]);
    let found = distances(&o);
    assert!(found.len() >= 5, "{}", stdout(&o));
    let k = lookalike::sketch::simhash::distance_for_jaccard(0.7);
    assert!(found.iter().all(|&h| h <= k), "{found:?} within {k}");
    assert!(stderr(&o).contains("method combined:"), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("SimHash distance ≤ {k}")), "{}", stderr(&o));
    assert!(stderr(&o).contains("SimHash filter: "), "{}", stderr(&o));

    // A narrower distance keeps exactly the pairs within it.
    let narrow = *found.iter().max().unwrap() - 1;
    let o = dedup(&["--verify", "estimate", "--max-distance", &narrow.to_string()]);
    let kept = distances(&o);
    let expected: Vec<u32> = found.iter().copied().filter(|&h| h <= narrow).collect();
    assert_eq!(kept, expected);

    // Distance 0: every edited copy's fingerprint differs, every candidate is dropped.
    let o = dedup(&["--max-distance", "0"]);
    assert_eq!(stdout(&o), "");
    let summary = stderr(&o);
    let line = summary.lines().find(|l| l.contains("SimHash filter:")).unwrap();
    let n: Vec<u64> =
        line.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    assert!(n[0] >= 10 && n[0] == n[1] && n[2] == 0, "{line}");
}
