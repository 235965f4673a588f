//! Adding a corpus in one batch, in ten, or one document at a time gives every document the fate
//! and the pairs the batch pipeline (`lookalike dedup`) gives it over the whole corpus.

use std::collections::BTreeSet;

use lookalike::lexical::partitioned::PartitionConfig;
use lookalike::{
    Collect, DedupConfig, DocStatus, Document, MethodConfig, MethodKind, MinHashConfig,
    SimHashConfig,
};
use lookalike_index::{Error, Fate, Index, IndexSettings, RedbStorage, Storage, Table};

use super::corpus::corpus;

pub type Pairs = BTreeSet<(String, String, String, &'static str)>;

pub fn sim(s: f64) -> String {
    format!("{s:.9}")
}

/// Fates (one line per document) and pairs of the batch pipeline.
pub fn batch_answer(config: &DedupConfig, docs: &[Document]) -> (Vec<String>, Pairs) {
    let dedup = lookalike::Dedup::new(config.clone()).unwrap();
    let mut run = dedup.start().unwrap();
    run.add(docs.to_vec()).unwrap();
    let out = run.finish().unwrap();
    let ids = &out.ids;
    let fates = out
        .statuses
        .iter()
        .map(|s| match s {
            DocStatus::Kept => "kept".to_owned(),
            DocStatus::Duplicate { of, similarity, kind } => {
                format!("duplicate of {} {} {}", ids[of.index()], sim(*similarity), kind.as_str())
            }
            DocStatus::Skipped { reason } => format!("skipped: {reason}"),
        })
        .collect();
    let pairs = out
        .pairs
        .iter()
        .map(|p| {
            (ids[p.a.index()].clone(), ids[p.b.index()].clone(), sim(p.similarity), p.kind.as_str())
        })
        .collect();
    (fates, pairs)
}

/// Fates and pairs of the index, the corpus added in batches of `batch` documents.
fn index_answer(config: &DedupConfig, docs: &[Document], batch: usize) -> (Vec<String>, Pairs) {
    let dir = tempfile::tempdir().unwrap();
    let settings = IndexSettings::from_config(config).unwrap();
    let mut index = Index::create(dir.path(), &settings).unwrap();
    if batch < 10 {
        // Hundreds of commits: no fsync each (the answers do not depend on it).
        index.set_durability(lookalike_index::Durability::Fast);
    }
    answers(&index, docs, batch)
}

/// Fates and pairs of `docs` added to `index` in batches of `batch` documents.
pub(crate) fn answers(index: &Index, docs: &[Document], batch: usize) -> (Vec<String>, Pairs) {
    let mut fates = Vec::new();
    let mut pairs = Pairs::new();
    for chunk in docs.chunks(batch) {
        for c in index.add(chunk).unwrap() {
            fates.push(match &c.fate {
                Fate::Kept => "kept".to_owned(),
                Fate::Duplicate { of, similarity, kind } => {
                    format!("duplicate of {of} {} {}", sim(*similarity), kind.as_str())
                }
                Fate::Skipped(reason) => format!("skipped: {reason}"),
            });
            for m in &c.matches {
                pairs.insert((m.id.clone(), c.id.clone(), sim(m.similarity), m.kind.as_str()));
            }
        }
    }
    (fates, pairs)
}

fn configs() -> Vec<(&'static str, DedupConfig)> {
    let base = DedupConfig::default();
    vec![
        ("minhash 0.8", base.clone()),
        (
            "minhash 0.5, 64 values",
            DedupConfig {
                threshold: 0.5,
                method: MethodConfig::MinHash(MinHashConfig { num_perm: 64, ..Default::default() }),
                ..base.clone()
            },
        ),
        (
            "simhash 0.7, distance auto",
            DedupConfig {
                threshold: 0.7,
                method: MethodConfig::SimHash(SimHashConfig {
                    max_distance: None,
                    ..SimHashConfig::default()
                }),
                ..base.clone()
            },
        ),
        (
            "partitioned 0.6",
            DedupConfig {
                threshold: 0.6,
                method: MethodConfig::Partitioned(PartitionConfig::default()),
                ..base.clone()
            },
        ),
    ]
}

#[test]
fn one_batch_ten_batches_and_single_documents_give_dedups_fates_and_pairs() {
    let docs = corpus(700, 7);
    for (name, config) in configs() {
        let (fates, pairs) = batch_answer(&config, &docs);
        let near = pairs.iter().filter(|p| p.3 == "near").count();
        let dups = fates.iter().filter(|f| f.starts_with("duplicate")).count();
        assert!(
            near >= 50 && dups >= 100,
            "{name}: the corpus plants too little ({near} near pairs, {dups} duplicates)"
        );
        // One document at a time (hundreds of commits) for the first method only.
        let single = if name == "minhash 0.8" { 1 } else { docs.len() };
        for batch in [docs.len(), docs.len().div_ceil(10), single] {
            let (ifates, ipairs) = index_answer(&config, &docs, batch);
            for (i, (a, b)) in fates.iter().zip(&ifates).enumerate() {
                assert_eq!(a, b, "{name}, batches of {batch}: document d{i}");
            }
            assert_eq!(fates.len(), ifates.len());
            let missing: Vec<_> = pairs.difference(&ipairs).take(5).collect();
            let extra: Vec<_> = ipairs.difference(&pairs).take(5).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{name}, batches of {batch}: missing {missing:?}, extra {extra:?}"
            );
        }
    }
}

#[test]
fn export_is_the_batch_answer_and_verify_passes() {
    let docs = corpus(300, 11);
    let config = DedupConfig::default();
    let dir = tempfile::tempdir().unwrap();
    let mut index =
        Index::create(dir.path(), &IndexSettings::from_config(&config).unwrap()).unwrap();
    for chunk in docs.chunks(37) {
        index.add(chunk).unwrap();
    }
    let exported = index.export_into(&mut Collect::default()).unwrap();
    let kept: Vec<&Document> =
        docs.iter().filter(|d| !d.text.trim().is_empty() && d.text != "— … —").collect();
    assert_eq!(exported.ids.len(), kept.len());
    let mut collect = Collect::default();
    index.export_into(&mut collect).unwrap();
    let (_, pairs) = batch_answer(&config, &docs);
    let got: Pairs = collect
        .pairs
        .iter()
        .map(|p| {
            (
                exported.ids[p.a.index()].clone(),
                exported.ids[p.b.index()].clone(),
                sim(p.similarity),
                p.kind.as_str(),
            )
        })
        .collect();
    assert_eq!(got, pairs);
    let report = index.verify().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.documents, kept.len() as u64);
}

#[test]
fn re_adding_an_id_replaces_it_and_remove_keeps_the_index_sound() {
    let docs = corpus(200, 3);
    let dir = tempfile::tempdir().unwrap();
    let mut index =
        Index::create(dir.path(), &IndexSettings::from_config(&DedupConfig::default()).unwrap())
            .unwrap();
    let added = index.add(&docs).unwrap();
    let before = index.stats().unwrap().documents;
    // Replace an indexed document with the text of another: it now matches that one exactly, and
    // the count is unchanged.
    let inserted: Vec<usize> = (0..docs.len()).filter(|&i| added[i].inserted).collect();
    let (old, other) = (inserted[3], inserted[9]);
    let again = Document::from_text(docs[old].id.clone(), docs[other].text.clone());
    let c = &index.add(&[again]).unwrap()[0];
    assert!(c.replaced && c.inserted);
    assert!(c.matches.iter().any(|m| m.id == docs[other].id && m.similarity == 1.0), "{c:?}");
    assert_eq!(index.stats().unwrap().documents, before);
    // Remove every other document, heads with copies included.
    let ids: Vec<String> = (0..200).step_by(2).map(|i| format!("d{i}")).collect();
    let found = index.remove(&ids).unwrap();
    assert!(found.iter().filter(|&&f| f).count() >= 90);
    let report = index.verify().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // What remains answers like the batch pipeline over what remains.
    let mut remaining = Vec::new();
    index
        .for_each_document(&mut |d| {
            remaining.push(d);
            Ok(())
        })
        .unwrap();
    assert!(remaining.iter().all(|d| !ids.contains(&d.id)));
    let q = index.query(&remaining).unwrap();
    for (d, c) in remaining.iter().zip(&q) {
        assert!(
            c.matches.iter().any(|m| m.id == d.id && m.similarity == 1.0),
            "{} finds itself",
            d.id
        );
        assert!(!c.inserted);
    }
    assert_eq!(index.stats().unwrap().documents, remaining.len() as u64);
}

/// An id can be looked up (`Index::get`), through replacement and removal.
#[test]
fn get_gives_the_document_held_under_an_id_its_replacement_and_none_once_removed() {
    let docs = corpus(20, 5);
    let dir = tempfile::tempdir().unwrap();
    let index =
        Index::create(dir.path(), &IndexSettings::from_config(&DedupConfig::default()).unwrap())
            .unwrap();
    let added = index.add(&docs).unwrap();
    let docs: Vec<&Document> =
        docs.iter().zip(&added).filter(|(_, a)| a.inserted).map(|(d, _)| d).collect();
    assert!(docs.len() > 10);
    for d in &docs {
        let held = index.get(&d.id).unwrap().expect("an added id is held");
        assert_eq!((&held.id, &held.text, held.raw_len), (&d.id, &d.text, d.raw_len));
    }
    assert_eq!(index.get("not-there").unwrap(), None);
    let again = Document::from_text(docs[0].id.clone(), docs[1].text.clone());
    index.add(std::slice::from_ref(&again)).unwrap();
    assert_eq!(index.get(&docs[0].id).unwrap().unwrap().text, docs[1].text);
    index.remove(std::slice::from_ref(&docs[0].id)).unwrap();
    assert_eq!(index.get(&docs[0].id).unwrap(), None);
    assert!(index.get(&docs[1].id).unwrap().is_some());
}

#[test]
fn other_settings_and_other_format_versions_are_refused_with_the_difference() {
    let dir = tempfile::tempdir().unwrap();
    let settings = IndexSettings::from_config(&DedupConfig::default()).unwrap();
    drop(Index::create(dir.path(), &settings).unwrap());
    let other = IndexSettings::from_config(&DedupConfig {
        threshold: 0.9,
        seed: 7,
        ..DedupConfig::default()
    })
    .unwrap();
    let e = Index::open_expecting(dir.path(), &other).unwrap_err().to_string();
    assert!(
        e.contains("threshold: index 0.8, given 0.9") && e.contains("seed: index 1, given 7"),
        "{e}"
    );
    let simhash =
        DedupConfig { method: MethodConfig::from(MethodKind::SimHash), ..DedupConfig::default() };
    let e = Index::open_expecting(dir.path(), &IndexSettings::from_config(&simhash).unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("method: index \"minhash\", given \"simhash\""), "{e}");
    assert!(matches!(Index::create(dir.path(), &settings), Err(Error::Exists { .. })));

    // A future format version.
    let storage = RedbStorage::open(&dir.path().join(lookalike_index::index::DB_FILE)).unwrap();
    let mut w = lookalike_index::storage::Writes::new();
    let future = lookalike_index::FORMAT_VERSION + 1;
    w.insert((Table::Meta, b"format".to_vec()), Some(future.to_le_bytes().to_vec()));
    storage.commit(&w, lookalike_index::Durability::Immediate).unwrap();
    drop(storage);
    let e = Index::open(dir.path()).unwrap_err().to_string();
    let reads = format!("reads versions 1 to {}", lookalike_index::FORMAT_VERSION);
    assert!(e.contains(&format!("format version {future}")) && e.contains(&reads), "{e}");
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(Index::open(empty.path()), Err(Error::NotAnIndex { .. })));
}
