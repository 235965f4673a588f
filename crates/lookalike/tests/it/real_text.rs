//! Real article texts (the gold bodies of ../shared/data/article-extraction-benchmark) with
//! near-duplicate variants made from them; `#[ignore]`d, run by `cargo test -- --ignored`.

use std::path::PathBuf;

use lookalike::verify::jaccard;
use lookalike::{Dedup, DocId, DocStatus, Document, MatchKind};

use crate::corpus::Rng;

fn articles() -> Option<Vec<(String, String)>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/article-extraction-benchmark/ground-truth.json");
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{} is absent or unreadable: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_slice(&bytes).expect("ground-truth.json parses");
    let mut out: Vec<(String, String)> = json
        .as_object()?
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.get("articleBody")?.as_str()?.to_owned())))
        .filter(|(_, t)| t.split_whitespace().count() >= 150)
        .collect();
    out.sort();
    Some(out)
}

/// Light edits: change about 2% of the words and append a boilerplate footer line.
fn light_variant(text: &str, rng: &mut Rng) -> String {
    let mut words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    for w in words.iter_mut() {
        if rng.chance(0.02) {
            *w = format!("edit{}", rng.below(1000));
        }
    }
    format!("{}\nShare this article. © 2024 All rights reserved.", words.join(" "))
}

#[test]
#[ignore = "needs ../shared/data"]
fn variants_of_real_articles_cluster_with_their_originals() {
    let articles = articles().expect("ground-truth.json is an object");
    assert!(articles.len() > 100);
    let mut rng = Rng::new(1);
    let mut docs = Vec::new();
    let take = 60;
    for (id, text) in articles.iter().take(take) {
        docs.push(Document::from_text(id.clone(), text.clone()));
    }
    for (id, text) in articles.iter().take(take) {
        docs.push(Document::from_text(format!("{id}-variant"), light_variant(text, &mut rng)));
        // A re-formatted exact-text copy: other case, punctuation and spacing.
        docs.push(Document::from_text(
            format!("{id}-upper"),
            text.to_uppercase().replace(". ", " . "),
        ));
    }
    let dedup = Dedup::builder().threshold(0.7).build().unwrap();
    let sets: Vec<Vec<u64>> = docs.iter().map(|d| dedup.shingler().shingle_set(&d.text)).collect();
    let mut run = dedup.start().unwrap();
    run.add(docs).unwrap();
    let out = run.finish().unwrap();
    let mut near = 0;
    for i in 0..take {
        assert_eq!(out.statuses[i], DocStatus::Kept);
        let v = take + 2 * i;
        let truth = jaccard(&sets[i], &sets[v]);
        match &out.statuses[v] {
            DocStatus::Duplicate { of, kind: MatchKind::Near, similarity } => {
                assert_eq!(of.index(), i, "{}", out.ids[v]);
                assert!((similarity - truth).abs() < 1e-12 && truth >= 0.7);
                near += 1;
            }
            other => assert!(truth < 0.75, "{} (Jaccard {truth:.3}) is {other:?}", out.ids[v]),
        }
        let u = v + 1;
        assert_eq!(
            out.statuses[u],
            DocStatus::Duplicate {
                of: DocId(i as u32),
                similarity: 1.0,
                kind: MatchKind::ExactText
            },
            "{}",
            out.ids[u]
        );
    }
    assert!(near > take / 2, "only {near} variants of {take} were light enough");
    // Distinct articles are not merged with each other.
    assert_eq!(out.clusters.len(), take);
}
