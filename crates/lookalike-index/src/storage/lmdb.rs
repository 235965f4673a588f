//! [`Storage`] on LMDB through heed (feature `lmdb`): copy-on-write B-trees in one memory-mapped
//! file. Measured against redb by `lookalike-bench index-storage`; not the index's store.
//!
//! A commit is one LMDB write transaction, synced when it commits (data pages, then the meta
//! page that makes them current: a crash leaves the previous meta page in force). LMDB has no
//! per-transaction "no sync" that keeps that guarantee (`MDB_NOSYNC` is for the whole
//! environment and can corrupt it on a system crash when the file system reorders writes), so
//! [`Durability::Fast`] is synced here too. LMDB keeps no checksums: a torn page inside a
//! committed tree is not detected.

use std::fmt;
use std::path::{Path, PathBuf};

use heed::types::Bytes;
use heed::{CommitOrAbort, Env, EnvOpenOptions, RoTxn, WithoutTls};

use super::{Durability, Snapshot, Storage, Table, Visit, Writes, storage_error};
use crate::error::{Error, Result};

type Db = heed::Database<'static, Bytes, Bytes>;

/// The largest the memory map (and so the file) may grow: address space only, the file grows
/// with what is written.
const MAP_SIZE: usize = 1 << 40;

/// [`Storage`] on an LMDB environment directory.
pub struct LmdbStorage {
    env: Env<WithoutTls>,
    tables: [Db; 7],
    path: PathBuf,
}

impl fmt::Debug for LmdbStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LmdbStorage").field("path", &self.path).finish_non_exhaustive()
    }
}

impl LmdbStorage {
    /// Creates or opens the environment in directory `path`.
    pub fn open(path: &Path) -> Result<LmdbStorage> {
        let err = |e: heed::Error| storage_error(path, e);
        std::fs::create_dir_all(path).map_err(|source| Error::Io { path: path.into(), source })?;
        let mut options = EnvOpenOptions::new().read_txn_without_tls();
        options.map_size(MAP_SIZE).max_dbs(Table::ALL.len() as u32);
        // SAFETY: heed marks opening unsafe because the file is memory-mapped: it must not be
        // truncated or changed by anything but LMDB while mapped, and not opened twice in one
        // process. The index opens its directory once and nothing else writes there.
        #[allow(unsafe_code)]
        let env = unsafe { options.open(path) }.map_err(err)?;
        let wtxn = env.write_txn().map_err(err)?;
        let tables = env
            .create_databases_and_commit(wtxn, |opener, wtxn| -> heed::Result<_> {
                let mut made = Vec::new();
                for t in Table::ALL {
                    made.push(opener.create_database::<Bytes, Bytes>(wtxn, Some(t.name()))?);
                }
                let made: [_; 7] = made.try_into().expect("one database per table");
                Ok(CommitOrAbort::<_, ()>::Commit(made))
            })
            .map_err(err)?
            .unwrap_commit();
        Ok(LmdbStorage { env, tables, path: path.to_owned() })
    }

    fn err(&self, e: impl fmt::Display) -> Error {
        storage_error(&self.path, e)
    }
}

fn slot(t: Table) -> usize {
    Table::ALL.iter().position(|&x| x == t).expect("every table is in ALL")
}

struct LmdbSnapshot {
    txn: RoTxn<'static, WithoutTls>,
    tables: [Db; 7],
    path: PathBuf,
}

impl Snapshot for LmdbSnapshot {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if key.is_empty() {
            // LMDB refuses empty keys (MDB_BAD_VALSIZE); none is ever stored.
            return Ok(None);
        }
        let v = self.tables[slot(table)].get(&self.txn, key);
        Ok(v.map_err(|e| storage_error(&self.path, e))?.map(<[u8]>::to_vec))
    }

    fn scan(&self, table: Table, prefix: &[u8], f: &mut Visit<'_>) -> Result<()> {
        let db = &self.tables[slot(table)];
        let err = |e: heed::Error| storage_error(&self.path, e);
        // LMDB refuses an empty key, so an empty prefix (the whole table) is a plain iteration.
        if prefix.is_empty() {
            for item in db.iter(&self.txn).map_err(err)? {
                let (k, v) = item.map_err(err)?;
                if !f(k, v)? {
                    break;
                }
            }
        } else {
            for item in db.prefix_iter(&self.txn, prefix).map_err(err)? {
                let (k, v) = item.map_err(err)?;
                if !f(k, v)? {
                    break;
                }
            }
        }
        Ok(())
    }

    fn len(&self, table: Table) -> Result<u64> {
        self.tables[slot(table)].len(&self.txn).map_err(|e| storage_error(&self.path, e))
    }
}

impl Storage for LmdbStorage {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>> {
        let txn = self.env.clone().static_read_txn().map_err(|e| self.err(e))?;
        Ok(Box::new(LmdbSnapshot { txn, tables: self.tables, path: self.path.clone() }))
    }

    fn commit(&self, writes: &Writes, _durability: Durability) -> Result<()> {
        let mut wtxn = self.env.write_txn().map_err(|e| self.err(e))?;
        for ((t, key), value) in writes {
            let db = self.tables[slot(*t)];
            match value {
                Some(v) => db.put(&mut wtxn, key, v).map_err(|e| self.err(e))?,
                None => {
                    db.delete(&mut wtxn, key).map_err(|e| self.err(e))?;
                }
            }
        }
        wtxn.commit().map_err(|e| self.err(e))
    }

    /// LMDB has no checksums to check: this reads every entry of every table (which walks
    /// every page of every tree).
    fn check(&mut self) -> Result<bool> {
        let txn = self.env.read_txn().map_err(|e| self.err(e))?;
        for db in &self.tables {
            for item in db.iter(&txn).map_err(|e| self.err(e))? {
                if item.is_err() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    fn disk_bytes(&self) -> u64 {
        super::dir_bytes(&self.path)
    }
}
