//! `verify` finds each kind of damage, one kind at a time, on an index written by `add` and then
//! changed behind its back through the store (each case names the problem line it must produce).

use lookalike::DedupConfig;
use lookalike_index::codec::{DocRecord, Group, band_row, copy_row, doc_key, doc_of};
use lookalike_index::index::DB_FILE;
use lookalike_index::storage::{Snapshot, Writes};
use lookalike_index::{Durability, Index, IndexSettings, RedbStorage, Storage, Table};

use super::corpus::corpus;

/// What the damage needs to know of the index.
struct Layout {
    /// Every document: number and record.
    docs: Vec<(u64, DocRecord)>,
}

impl Layout {
    fn read(snap: &dyn Snapshot) -> Layout {
        let mut docs = Vec::new();
        snap.scan(Table::Docs, &[], &mut |k, v| {
            docs.push((doc_of(k)?, DocRecord::decode(v)?));
            Ok(true)
        })
        .unwrap();
        Layout { docs }
    }

    /// A head with at least one exact copy, and that copy.
    fn head_with_copy(&self) -> (u64, &DocRecord, u64, &DocRecord) {
        for (c, crec) in &self.docs {
            if let Group::Copy { of, .. } = crec.group {
                let (h, hrec) = self.docs.iter().find(|(d, _)| *d == of).unwrap();
                return (*h, hrec, *c, crec);
            }
        }
        panic!("the corpus has exact copies")
    }

    /// The `n`-th head.
    fn head(&self, n: usize) -> (u64, &DocRecord) {
        let (d, r) = self.docs.iter().filter(|(_, r)| r.group == Group::Head).nth(n).unwrap();
        (*d, r)
    }
}

fn text(snap: &dyn Snapshot, doc: u64) -> String {
    let z = snap.get(Table::Texts, &doc_key(doc)).unwrap().unwrap();
    String::from_utf8(zstd::stream::decode_all(z.as_slice()).unwrap()).unwrap()
}

fn put(w: &mut Writes, t: Table, k: impl Into<Vec<u8>>, v: impl Into<Vec<u8>>) {
    w.insert((t, k.into()), Some(v.into()));
}

fn delete(w: &mut Writes, t: Table, k: impl Into<Vec<u8>>) {
    w.insert((t, k.into()), None);
}

/// Builds a fresh index, applies `damage` in one commit through the store, and returns what
/// `verify` reports.
fn verify_after(damage: impl FnOnce(&dyn Snapshot, &Layout, &mut Writes)) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let settings = IndexSettings::from_config(&DedupConfig::default()).unwrap();
    let index = Index::create(dir.path(), &settings).unwrap();
    for chunk in corpus(160, 21).chunks(40) {
        index.add(chunk).unwrap();
    }
    drop(index);
    let storage = RedbStorage::open(&dir.path().join(DB_FILE)).unwrap();
    let snap = storage.snapshot().unwrap();
    let layout = Layout::read(snap.as_ref());
    let mut w = Writes::new();
    damage(snap.as_ref(), &layout, &mut w);
    drop(snap);
    storage.commit(&w, Durability::Immediate).unwrap();
    let mut index = Index::with_storage(dir.path(), Box::new(storage)).unwrap();
    index.verify().unwrap().problems
}

fn assert_found(problems: &[String], needle: &str) {
    assert!(problems.iter().any(|p| p.contains(needle)), "no {needle:?} in {problems:#?}");
}

#[test]
fn verify_finds_nothing_on_an_undamaged_index() {
    assert_eq!(verify_after(|_, _, _| {}), Vec::<String>::new());
}

#[test]
fn verify_finds_each_kind_of_damage_it_checks() {
    type Damage = Box<dyn FnOnce(&dyn Snapshot, &Layout, &mut Writes)>;
    let cases: Vec<(&str, Damage)> = vec![
        (
            "checksum mismatch",
            Box::new(|snap, l, w| {
                let (d, _) = l.head(0);
                let mut v = snap.get(Table::Docs, &doc_key(d)).unwrap().unwrap();
                v[3] ^= 0x40;
                put(w, Table::Docs, doc_key(d), v);
            }),
        ),
        (
            "at or past the counter",
            Box::new(|_, _, w| put(w, Table::Meta, b"next".to_vec(), 1u64.to_le_bytes())),
        ),
        (
            "its id does not point back to it",
            Box::new(|_, l, w| {
                let (d, r) = l.head(1);
                put(w, Table::Ids, r.id.as_bytes(), doc_key(d + 1));
            }),
        ),
        ("has no text", Box::new(|_, l, w| delete(w, Table::Texts, doc_key(l.head(2).0)))),
        (
            "text length differs from the record",
            Box::new(|snap, l, w| {
                let (d, _) = l.head(2);
                let longer = format!("{} ", text(snap, d));
                put(
                    w,
                    Table::Texts,
                    doc_key(d),
                    zstd::bulk::compress(longer.as_bytes(), 3).unwrap(),
                );
            }),
        ),
        (
            "text fingerprint differs",
            Box::new(|snap, l, w| {
                let (d, _) = l.head(3);
                let other = text(snap, l.head(4).0);
                put(
                    w,
                    Table::Texts,
                    doc_key(d),
                    zstd::bulk::compress(other.as_bytes(), 3).unwrap(),
                );
            }),
        ),
        (
            "shingles or signature differ from its text",
            Box::new(|_, l, w| {
                let (d, r) = l.head(5);
                let mut r = r.clone();
                r.signature[0] ^= 1;
                put(w, Table::Docs, doc_key(d), r.encode());
            }),
        ),
        (
            "missing",
            Box::new(|snap, l, w| {
                let (d, _) = l.head(6);
                let mut row = None;
                snap.scan(Table::Keys, &[], &mut |k, _| {
                    if doc_of(&k[10..])? == d {
                        row = Some(k.to_vec());
                        return Ok(false);
                    }
                    Ok(true)
                })
                .unwrap();
                delete(w, Table::Keys, row.unwrap());
            }),
        ),
        (
            "no exact entry points at it",
            Box::new(|_, l, w| {
                delete(w, Table::Exact, l.head(7).1.fingerprint.to_be_bytes());
            }),
        ),
        (
            "copies row missing",
            Box::new(|_, l, w| {
                let (h, _, c, _) = l.head_with_copy();
                delete(w, Table::Copies, copy_row(h, c));
            }),
        ),
        (
            "is not a head of its text",
            Box::new(|_, l, w| {
                let (h, _, c, crec) = l.head_with_copy();
                let other = l.docs.iter().find(|(d, r)| *d != h && r.group == Group::Head).unwrap();
                let mut r = crec.clone();
                r.group = Group::Copy { of: other.0, bytes: false };
                put(w, Table::Docs, doc_key(c), r.encode());
            }),
        ),
        (
            "the keys table has",
            Box::new(|_, l, w| put(w, Table::Keys, band_row(0, 12_345, l.head(8).0), Vec::new())),
        ),
        (
            "which is not a head",
            Box::new(|_, l, w| {
                let (_, _, c, _) = l.head_with_copy();
                put(w, Table::Exact, 7u128.to_be_bytes(), doc_key(c));
            }),
        ),
        (
            "has no such copy",
            Box::new(|_, l, w| {
                let (a, b) = (l.head(0).0, l.head(1).0);
                put(w, Table::Copies, copy_row(a, b), Vec::new());
            }),
        ),
        ("ids for", Box::new(|_, _, w| put(w, Table::Ids, b"ghost".to_vec(), doc_key(0)))),
        ("texts for", Box::new(|_, _, w| put(w, Table::Texts, doc_key(1 << 40), b"x".to_vec()))),
    ];
    for (needle, damage) in cases {
        assert_found(&verify_after(damage), needle);
    }
}

/// A stray exact entry under a fingerprint that is not its head's would make a new document with
/// that text an "exact copy" of the wrong head; `verify` did not look at the entries' keys.
#[test]
fn verify_finds_an_exact_entry_filed_under_another_texts_fingerprint() {
    let problems = verify_after(|_, l, w| {
        let (h, r) = l.head(0);
        put(w, Table::Exact, (r.fingerprint ^ 1).to_be_bytes(), doc_key(h));
    });
    assert_found(&problems, "under another text's fingerprint");
}

/// Representatives are always added no later than their members; a fate pointing forward is a
/// damaged record whose checksum was recomputed (or a bug), which `verify` did not check.
#[test]
fn verify_finds_a_representative_added_after_its_member() {
    let problems = verify_after(|_, l, w| {
        let (d, r) = l.head(3);
        let mut r = r.clone();
        r.fate.rep = d + 1;
        put(w, Table::Docs, doc_key(d), r.encode());
    });
    assert_found(&problems, "was added after it");
}
