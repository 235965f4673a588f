//! Every store the build has ([`Engine`]) holds an index that gives the batch pipeline's answers,
//! survives closing and reopening, and verifies sound: one conformance run per engine (redb
//! always; fjall, LMDB and SQLite with the crate's features).

use lookalike::DedupConfig;
use lookalike_index::storage::Engine;
use lookalike_index::{Durability, Error, Index, IndexSettings};

use super::corpus::corpus;
use super::same_answers::{answers, batch_answer};

fn store_path(dir: &std::path::Path, engine: Engine) -> std::path::PathBuf {
    dir.join(format!("store.{}", engine.name()))
}

#[test]
fn every_engine_gives_dedups_answers_and_keeps_them_across_reopening() {
    let config = DedupConfig { threshold: 0.5, ..DedupConfig::default() };
    let settings = IndexSettings::from_config(&config).unwrap();
    let docs = corpus(300, 11);
    let expected = batch_answer(&config, &docs);
    assert!(expected.1.len() > 50, "the corpus has pairs to find");
    for engine in Engine::ALL.into_iter().filter(|e| e.available()) {
        let dir = tempfile::tempdir().unwrap();
        let store = store_path(dir.path(), engine);
        let mut index =
            Index::create_with_storage(dir.path(), engine.open(&store).unwrap(), &settings)
                .unwrap();
        // Half the batches fast (no fsync each), the last flushed when the index closes.
        index.set_durability(Durability::Fast);
        let got = answers(&index, &docs, 37);
        assert_eq!(got.0, expected.0, "{}: fates", engine.name());
        assert_eq!(got.1, expected.1, "{}: pairs", engine.name());
        let removed = index.remove(&["d4".to_owned(), "d5".to_owned(), "nope".into()]).unwrap();
        assert_eq!(removed, [true, true, false], "{}", engine.name());
        let held = index.len().unwrap();
        drop(index);

        let mut index = Index::with_storage(dir.path(), engine.open(&store).unwrap()).unwrap();
        assert_eq!(index.len().unwrap(), held, "{}: documents after reopening", engine.name());
        let report = index.verify().unwrap();
        assert!(report.problems.is_empty(), "{}: {:?}", engine.name(), report.problems);
        assert_eq!(report.documents, held);
        let q = index.query(&docs[6..7]).unwrap();
        assert!(
            q[0].matches.iter().any(|m| m.id == "d6" && m.similarity == 1.0),
            "{}: d6 finds itself after reopening",
            engine.name()
        );
        let q = index.query(&docs[4..5]).unwrap();
        assert!(q[0].matches.iter().all(|m| m.id != "d4"), "{}: d4 was removed", engine.name());
    }
}

#[test]
fn an_engine_missing_from_the_build_is_refused_naming_its_feature() {
    let dir = tempfile::tempdir().unwrap();
    for engine in Engine::ALL {
        assert_eq!(Engine::from_name(engine.name()), Some(engine));
        let opened = engine.open(&store_path(dir.path(), engine));
        match (engine.available(), opened) {
            (true, Ok(_)) => {}
            (false, Err(Error::Unsupported(m))) => {
                assert!(m.contains("not in this build") && m.contains("feature"), "{m}");
            }
            (available, other) => {
                panic!("{}: available {available}, opened {:?}", engine.name(), other.err())
            }
        }
    }
    assert!(Engine::Redb.available());
    assert_eq!(Engine::from_name("rocksdb"), None);
}
