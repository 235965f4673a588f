//! Format 2 (no stored shingle sets) against format 1, and a format 1 index written by the
//! lookalike before format 2 (`tests/fixtures/index-v1`: `lookalike index create --threshold 0.5`,
//! then `index add` of 40 generated documents) read, verified and extended by this one.

use std::path::Path;

use lookalike::{DedupConfig, Document};
use lookalike_index::codec::{DocRecord, Group};
use lookalike_index::index::DB_FILE;
use lookalike_index::{FORMAT_PLAIN, Index, IndexSettings, RedbStorage, Storage, Table};

use super::corpus::corpus;

fn copy_fixture(to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/index-v1");
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn documents(index: &Index) -> Vec<Document> {
    let mut docs = Vec::new();
    index
        .for_each_document(&mut |d| {
            docs.push(d);
            Ok(())
        })
        .unwrap();
    docs
}

/// Shingle sets stored in head records of the index in `dir` (closed).
fn stored_shingle_sets(dir: &Path) -> (usize, usize) {
    let storage = RedbStorage::open(&dir.join(DB_FILE)).unwrap();
    let snap = storage.snapshot().unwrap();
    let (mut heads, mut with_shingles) = (0, 0);
    snap.scan(Table::Docs, &[], &mut |_, v| {
        let r = DocRecord::decode(v)?;
        if r.group == Group::Head {
            heads += 1;
            with_shingles += usize::from(!r.shingles.is_empty());
        }
        Ok(true)
    })
    .unwrap();
    (heads, with_shingles)
}

#[test]
fn a_format_1_index_is_read_verified_and_extended_in_format_1() {
    let dir = tempfile::tempdir().unwrap();
    copy_fixture(dir.path());
    let mut old = Index::open(dir.path()).unwrap();
    assert_eq!(old.stats().unwrap().format, 1);
    let report = old.verify().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.documents, 40);
    let docs = documents(&old);

    // The same documents in a new index of the current format give the same answers.
    let new_dir = tempfile::tempdir().unwrap();
    let new = Index::create(new_dir.path(), old.settings()).unwrap();
    assert_eq!(new.stats().unwrap().format, FORMAT_PLAIN);
    new.add(&docs).unwrap();
    let probes: Vec<Document> = docs
        .iter()
        .map(|d| {
            let mut words: Vec<&str> = d.text.split(' ').collect();
            words.truncate(words.len() - 2);
            Document::from_text(format!("probe-{}", d.id), words.join(" "))
        })
        .collect();
    let a = old.query(&probes).unwrap();
    let b = new.query(&probes).unwrap();
    assert_eq!(a, b);
    assert!(a.iter().filter(|c| c.matches.iter().any(|m| m.similarity < 1.0)).count() > 20);

    // Adding to it writes format 1 records (shingles stored), and verify still passes.
    old.add(&probes[..10]).unwrap();
    let report = old.verify().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(old.stats().unwrap().format, 1);
    drop(old);
    drop(new);
    let (heads, with_shingles) = stored_shingle_sets(dir.path());
    assert_eq!(with_shingles, heads, "every head of a format 1 index keeps its shingles");
    let (heads, with_shingles) = stored_shingle_sets(new_dir.path());
    assert!(heads > 20);
    assert_eq!(with_shingles, 0, "format 2 stores no shingle set");
}

#[test]
fn format_2_stores_no_shingles_and_its_records_and_keys_cost_less() {
    let settings = IndexSettings::from_config(&DedupConfig::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path(), &settings).unwrap();
    index.add(&corpus(300, 8)).unwrap();
    let stats = index.stats().unwrap();
    let tables = stats.table_bytes.unwrap();
    assert_eq!(tables.len(), 7);
    // With no shingle set a record is its id, fingerprints and 128 MinHash values (~600 bytes).
    let per_head = tables["docs"] / stats.documents;
    assert!(per_head < 800, "{per_head} bytes a record");
    assert!(tables["texts"] > 0 && tables["keys"] > 0 && tables["ids"] > 0);
}

/// Regression: one changed character of the stored settings (a threshold of
/// 0.8 made 0.3) was trusted on the normal open path, and queries answered wrongly with exit 0;
/// only `index verify` noticed. The settings record has a checksum, checked on every open.
#[test]
fn a_changed_settings_record_is_refused_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let config = DedupConfig { threshold: 0.8, ..DedupConfig::default() };
    let settings = IndexSettings::from_config(&config).unwrap();
    drop(Index::create(dir.path(), &settings).unwrap());
    assert!(Index::open(dir.path()).is_ok());
    let db = dir.path().join(DB_FILE);
    let mut bytes = std::fs::read(&db).unwrap();
    let needle = b"\"threshold\":0.8";
    let at = bytes.windows(needle.len()).position(|w| w == needle).expect("settings in the file");
    bytes[at + needle.len() - 1] = b'3';
    std::fs::write(&db, &bytes).unwrap();
    let Err(err) = Index::open(dir.path()) else {
        panic!("a damaged settings record is refused");
    };
    let message = err.to_string();
    // The store's page checksums, checked on every open, find it first; the
    // record's own checksum stands behind them (other stores, a page rewritten whole).
    let refused = message.contains("index file is damaged")
        || message.contains("does not match its checksum");
    assert!(refused, "{message}");
}

/// An index created with a site template is format 3 and gives the template back after a
/// reopen; a damaged template record, or format 3 without one, is refused, never opened as an
/// index that compares pages with their template.
#[test]
fn a_site_template_is_kept_in_format_3_and_damage_to_it_is_refused() {
    use lookalike::boilerplate::{
        BlockCounts, BlockHasher, BoilerplateMode, BoilerplateRule, PageBlocks, SiteTemplate,
    };
    let mut counts = BlockCounts::default();
    let mut hasher = BlockHasher::default();
    let site = counts.site("docs.example");
    for own in [
        "apples and pears",
        "rivers run deep",
        "a lamp at night",
        "the stone bridge",
        "cold winter sun",
        "old harbor town",
    ] {
        let page = format!("Home | Guide | About us\nThe page about {own}\nCopyright");
        counts.add(site, &PageBlocks::of_texts(&mut hasher, [page.as_str()]));
    }
    let template = SiteTemplate {
        mode: BoilerplateMode::Auto,
        site_field: None,
        template: counts.finish(BoilerplateRule::default()),
    };
    assert_eq!(template.figures(), (1, 1, 2));
    let dir = tempfile::tempdir().unwrap();
    let settings = IndexSettings::from_config(&DedupConfig::default()).unwrap();
    let index = Index::create_with_template(dir.path(), &settings, &template).unwrap();
    assert_eq!(index.stats().unwrap().format, 3);
    drop(index);
    let reopened = Index::open(dir.path()).unwrap();
    let kept = reopened.template().expect("the template is kept");
    assert_eq!(kept.figures(), (1, 1, 2));
    assert_eq!(reopened.stats().unwrap().template.unwrap().template_blocks, 2);
    drop(reopened);

    let put = |key: &[u8], value: Option<Vec<u8>>| {
        let storage = RedbStorage::open(&dir.path().join(DB_FILE)).unwrap();
        let mut w = lookalike_index::storage::Writes::new();
        w.insert((Table::Meta, key.to_vec()), value);
        storage.commit(&w, lookalike_index::Durability::Immediate).unwrap();
    };
    let storage = RedbStorage::open(&dir.path().join(DB_FILE)).unwrap();
    let mut packed = storage.snapshot().unwrap().get(Table::Meta, b"template").unwrap().unwrap();
    drop(storage);
    let last = packed.len() - 1;
    packed[last] ^= 1;
    put(b"template", Some(packed));
    let e = Index::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("site template record") && e.contains("checksum"), "{e}");
    put(b"template", None);
    put(b"template-xxh3", None);
    let e = Index::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("format 3 without its site template"), "{e}");
}
