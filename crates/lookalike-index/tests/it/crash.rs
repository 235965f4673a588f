//! Crash simulation at each fsync, through redb's pluggable storage backend: a disk that keeps
//! only what was synced, plus a seeded random part of the writes since (torn writes, reordered),
//! when the "power fails" at a chosen fsync. After each crash the index is reopened on what the
//! disk kept: every acknowledged batch is there, no batch is half there, `verify` passes, and
//! the index takes new batches.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use lookalike::{DedupConfig, Document};
use lookalike_index::{Index, IndexSettings, RedbStorage};

use super::corpus::{Rng, corpus};

#[derive(Debug)]
enum Op {
    Write(u64, Vec<u8>),
    SetLen(u64),
}

#[derive(Debug, Default)]
struct Disk {
    current: Vec<u8>,
    durable: Vec<u8>,
    since_sync: Vec<Op>,
    syncs: u64,
    crash_at: Option<u64>,
    crashed: bool,
    seed: u64,
}

/// A simulated disk shared between the backend redb holds and the test.
#[derive(Debug, Clone, Default)]
struct CrashDisk(Arc<Mutex<Disk>>);

fn gone() -> io::Error {
    io::Error::other("simulated power failure")
}

fn apply(image: &mut Vec<u8>, op: &Op) {
    match op {
        Op::Write(at, data) => {
            let at = *at as usize;
            if image.len() < at + data.len() {
                image.resize(at + data.len(), 0);
            }
            image[at..at + data.len()].copy_from_slice(data);
        }
        Op::SetLen(len) => image.resize(*len as usize, 0),
    }
}

impl redb::StorageBackend for CrashDisk {
    fn len(&self) -> Result<u64, io::Error> {
        let d = self.0.lock().unwrap();
        if d.crashed { Err(gone()) } else { Ok(d.current.len() as u64) }
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        let d = self.0.lock().unwrap();
        if d.crashed {
            return Err(gone());
        }
        let at = offset as usize;
        let src =
            d.current.get(at..at + out.len()).ok_or_else(|| io::Error::other("out of range"))?;
        out.copy_from_slice(src);
        Ok(())
    }

    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        let mut d = self.0.lock().unwrap();
        if d.crashed {
            return Err(gone());
        }
        let op = Op::SetLen(len);
        apply(&mut d.current, &op);
        d.since_sync.push(op);
        Ok(())
    }

    fn sync_data(&self) -> Result<(), io::Error> {
        let mut d = self.0.lock().unwrap();
        if d.crashed {
            return Err(gone());
        }
        d.syncs += 1;
        if d.crash_at == Some(d.syncs) {
            // The power fails during this fsync: what reached the platters is the last synced
            // image plus any subset of the writes since.
            let mut rng = Rng(d.seed);
            let mut image = d.durable.clone();
            for op in &d.since_sync {
                if rng.below(2) == 0 {
                    apply(&mut image, op);
                }
            }
            d.durable = image;
            d.crashed = true;
            return Err(gone());
        }
        d.durable = d.current.clone();
        d.since_sync.clear();
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        let mut d = self.0.lock().unwrap();
        if d.crashed {
            return Err(gone());
        }
        let op = Op::Write(offset, data.to_vec());
        apply(&mut d.current, &op);
        d.since_sync.push(op);
        Ok(())
    }
}

const BATCH: usize = 10;

fn open(disk: &CrashDisk) -> lookalike_index::Result<Index> {
    let storage = RedbStorage::with_backend(disk.clone(), Path::new("simulated"))?;
    Index::with_storage(Path::new("simulated"), Box::new(storage))
}

/// Adds the batches until the disk fails; returns the batches acknowledged.
fn run(disk: &CrashDisk, settings: &IndexSettings, docs: &[Document]) -> usize {
    let storage = RedbStorage::with_backend(disk.clone(), Path::new("simulated")).unwrap();
    let index = Index::create_with_storage(Path::new("simulated"), Box::new(storage), settings)
        .expect("the crash comes after creation");
    let mut acked = 0;
    for chunk in docs.chunks(BATCH) {
        if index.add(chunk).is_err() {
            break;
        }
        acked += 1;
    }
    acked
}

#[test]
fn crash_at_any_fsync_keeps_acknowledged_batches_and_no_half_batch() {
    let docs = corpus(160, 5);
    let settings = IndexSettings::from_config(&DedupConfig::default()).unwrap();
    // Which documents each batch inserts (skipped ones are not), and how many fsyncs creation
    // and the whole run take.
    let dry = CrashDisk::default();
    let storage = RedbStorage::with_backend(dry.clone(), Path::new("dry")).unwrap();
    let index = Index::create_with_storage(Path::new("dry"), Box::new(storage), &settings).unwrap();
    let after_create = dry.0.lock().unwrap().syncs;
    let batches: Vec<BTreeSet<String>> = docs
        .chunks(BATCH)
        .map(|c| index.add(c).unwrap().into_iter().filter(|x| x.inserted).map(|x| x.id).collect())
        .collect();
    let total = dry.0.lock().unwrap().syncs;
    drop(index);
    assert!(total > after_create + batches.len() as u64 - 1);

    let mut rng = Rng(2026);
    let mut crash_points = BTreeSet::new();
    for round in 0..24 {
        // Every fsync of the first rounds' range, then random ones.
        let at = if round < 6 {
            after_create + 1 + round
        } else {
            after_create + 1 + rng.below(total - after_create)
        };
        crash_points.insert(at);
        let disk = CrashDisk::default();
        {
            let mut d = disk.0.lock().unwrap();
            d.crash_at = Some(at);
            d.seed = rng.next();
        }
        let acked = run(&disk, &settings, &docs);
        assert!(disk.0.lock().unwrap().crashed, "round {round}: no crash at fsync {at}");
        // Power back: the disk holds what survived.
        let survived = {
            let d = disk.0.lock().unwrap();
            CrashDisk(Arc::new(Mutex::new(Disk {
                current: d.durable.clone(),
                durable: d.durable.clone(),
                ..Disk::default()
            })))
        };
        let mut index = open(&survived).unwrap_or_else(|e| panic!("round {round}: reopen: {e}"));
        let mut held = BTreeSet::new();
        index
            .for_each_document(&mut |d| {
                held.insert(d.id);
                Ok(())
            })
            .unwrap();
        for (b, ids) in batches.iter().enumerate() {
            let present = ids.iter().filter(|id| held.contains(*id)).count();
            if b < acked {
                assert_eq!(
                    present,
                    ids.len(),
                    "round {round}: acknowledged batch {b} lost documents"
                );
            } else {
                assert!(
                    present == 0 || present == ids.len(),
                    "round {round}: batch {b} half there ({present} of {})",
                    ids.len()
                );
                if b > acked {
                    assert_eq!(present, 0, "round {round}: batch {b} was never sent");
                }
            }
        }
        let report = index.verify().unwrap();
        assert!(report.problems.is_empty(), "round {round}: {:?}", report.problems);
        // The index goes on.
        let next = &docs[(acked * BATCH).min(docs.len() - BATCH)..];
        index.add(&next[..BATCH]).unwrap();
        assert!(index.verify().unwrap().problems.is_empty(), "round {round} after a new batch");
    }
    assert!(crash_points.len() >= 10);
}
