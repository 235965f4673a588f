//! [`Storage`] on fjall (feature `fjall`): an LSM tree per table, in one directory, behind one
//! journal. Measured against redb by `lookalike-bench index-storage`; not the index's store.
//!
//! A commit is one fjall write batch over every table (atomic across them: the journal holds the
//! batch as one entry, checksummed, and recovery drops a torn tail entry). [`Durability::Immediate`]
//! syncs the journal with the batch (`PersistMode::SyncAll`); [`Durability::Fast`] leaves it in
//! the operating system's buffers (`PersistMode::Buffer`: a killed process loses nothing, a power
//! loss the unsynced batches).

use std::fmt;
use std::path::{Path, PathBuf};

use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode, Readable};

use super::{Durability, Snapshot, Storage, Table, Visit, Writes, dir_bytes, storage_error};
use crate::error::{Error, Result};

/// [`Storage`] on a fjall database directory.
pub struct FjallStorage {
    db: Database,
    tables: Vec<Keyspace>,
    path: PathBuf,
}

impl fmt::Debug for FjallStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FjallStorage").field("path", &self.path).finish_non_exhaustive()
    }
}

impl FjallStorage {
    /// Creates or opens the database directory at `path`.
    pub fn open(path: &Path) -> Result<FjallStorage> {
        let err = |e: fjall::Error| storage_error(path, e);
        let db = Database::builder(path).open().map_err(err)?;
        let mut tables = Vec::new();
        for t in Table::ALL {
            tables.push(db.keyspace(t.name(), KeyspaceCreateOptions::default).map_err(err)?);
        }
        Ok(FjallStorage { db, tables, path: path.to_owned() })
    }

    fn err(&self, e: impl fmt::Display) -> Error {
        storage_error(&self.path, e)
    }
}

fn slot(t: Table) -> usize {
    Table::ALL.iter().position(|&x| x == t).expect("every table is in ALL")
}

struct FjallSnapshot {
    snap: fjall::Snapshot,
    tables: Vec<Keyspace>,
    path: PathBuf,
}

impl Snapshot for FjallSnapshot {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let v = self.snap.get(&self.tables[slot(table)], key);
        Ok(v.map_err(|e| storage_error(&self.path, e))?.map(|v| v.to_vec()))
    }

    fn scan(&self, table: Table, prefix: &[u8], f: &mut Visit<'_>) -> Result<()> {
        for item in self.snap.prefix(&self.tables[slot(table)], prefix) {
            let (k, v) = item.into_inner().map_err(|e| storage_error(&self.path, e))?;
            if !f(&k, &v)? {
                break;
            }
        }
        Ok(())
    }

    /// An LSM tree does not count its keys: this reads them all.
    fn len(&self, table: Table) -> Result<u64> {
        let n = self.snap.len(&self.tables[slot(table)]);
        Ok(n.map_err(|e| storage_error(&self.path, e))? as u64)
    }
}

impl Storage for FjallStorage {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>> {
        Ok(Box::new(FjallSnapshot {
            snap: self.db.snapshot(),
            tables: self.tables.clone(),
            path: self.path.clone(),
        }))
    }

    fn commit(&self, writes: &Writes, durability: Durability) -> Result<()> {
        let mut batch = self.db.batch().durability(Some(match durability {
            Durability::Immediate => PersistMode::SyncAll,
            Durability::Fast => PersistMode::Buffer,
        }));
        for ((t, key), value) in writes {
            let ks = &self.tables[slot(*t)];
            match value {
                Some(v) => batch.insert(ks, key.as_slice(), v.as_slice()),
                None => batch.remove(ks, key.as_slice()),
            }
        }
        if batch.is_empty() {
            // An empty commit is how the index makes earlier fast commits durable.
            return self.db.persist(PersistMode::SyncAll).map_err(|e| self.err(e));
        }
        batch.commit().map_err(|e| self.err(e))
    }

    /// fjall has no integrity check of its own: this reads every entry of every table, which
    /// checks the checksum of every block read.
    fn check(&mut self) -> Result<bool> {
        let snap = self.db.snapshot();
        for ks in &self.tables {
            for item in snap.iter(ks) {
                if item.into_inner().is_err() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    fn disk_bytes(&self) -> u64 {
        dir_bytes(&self.path)
    }
}
