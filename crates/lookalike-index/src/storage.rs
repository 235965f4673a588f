//! Where an index keeps its tables. Contract: "give me a batch of writes, I make it durable as a
//! whole or not at all; give me a snapshot, I answer reads as of one commit".
//!
//! The index needs little from a store: ordered byte keys in a few named tables, point reads,
//! prefix scans, and atomic commits of a batch of puts and deletes. [`Storage`] is that much, so
//! another engine can stand in; [`RedbStorage`] is the one the index uses. fjall, LMDB (heed) and
//! SQLite (rusqlite) implement it too, behind the crate's features `fjall`, `lmdb` and `sqlite`
//! (off by default), for `lookalike-bench index-storage`, which runs the index's workload on each
//! ([`Engine`] picks one).
//!
//! redb: pure Rust, one file, copy-on-write B-trees with checksummed commits (a torn commit is
//! rolled back to the previous one on open), MVCC readers that never block the writer, and a
//! pluggable [`redb::StorageBackend`], through which the crash tests drop every write after a
//! chosen fsync. Why it stays the index's store, with the measurements:
//! `bench/results/index-storage-2026-11-24.md`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use redb::{ReadableDatabase, ReadableTableMetadata, TableDefinition};

use crate::error::{Error, Result};

#[cfg(feature = "fjall")]
mod fjall;
#[cfg(feature = "lmdb")]
mod lmdb;
#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "fjall")]
pub use self::fjall::FjallStorage;
#[cfg(feature = "lmdb")]
pub use self::lmdb::LmdbStorage;
#[cfg(feature = "sqlite")]
pub use self::sqlite::SqliteStorage;

/// An embedded store that can hold an index's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// redb, the index's store: one file.
    Redb,
    /// fjall, an LSM tree per table (feature `fjall`): a directory.
    Fjall,
    /// LMDB through heed (feature `lmdb`): a directory with one memory-mapped file.
    Lmdb,
    /// SQLite through rusqlite (feature `sqlite`): a directory with the database and its WAL.
    Sqlite,
}

impl Engine {
    /// Every engine.
    pub const ALL: [Engine; 4] = [Engine::Redb, Engine::Fjall, Engine::Lmdb, Engine::Sqlite];

    /// Its name (`redb`, `fjall`, `lmdb`, `sqlite`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Redb => "redb",
            Engine::Fjall => "fjall",
            Engine::Lmdb => "lmdb",
            Engine::Sqlite => "sqlite",
        }
    }

    /// The engine named `name`.
    pub fn from_name(name: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether this build has it (the others need a feature of this crate).
    pub fn available(self) -> bool {
        match self {
            Engine::Redb => true,
            Engine::Fjall => cfg!(feature = "fjall"),
            Engine::Lmdb => cfg!(feature = "lmdb"),
            Engine::Sqlite => cfg!(feature = "sqlite"),
        }
    }

    /// Creates or opens a store of this engine at `path` (redb: a file; the others: a
    /// directory); refused, naming the feature, when this build does not have the engine.
    pub fn open(self, path: &Path) -> Result<Box<dyn Storage>> {
        let missing = || {
            Error::Unsupported(format!(
                "storage engine {} is not in this build (lookalike-index feature {})",
                self.name(),
                if self == Engine::Lmdb { "lmdb" } else { self.name() }
            ))
        };
        match self {
            Engine::Redb => Ok(Box::new(RedbStorage::open(path)?)),
            #[cfg(feature = "fjall")]
            Engine::Fjall => Ok(Box::new(FjallStorage::open(path)?)),
            #[cfg(feature = "lmdb")]
            Engine::Lmdb => Ok(Box::new(LmdbStorage::open(path)?)),
            #[cfg(feature = "sqlite")]
            Engine::Sqlite => Ok(Box::new(SqliteStorage::open(path)?)),
            #[allow(unreachable_patterns)]
            _ => Err(missing()),
        }
    }
}

/// Bytes of the files under `path` (a file, or a directory and its subdirectories).
pub fn dir_bytes(path: &Path) -> u64 {
    let Ok(meta) = std::fs::metadata(path) else { return 0 };
    if !meta.is_dir() {
        return meta.len();
    }
    let Ok(entries) = std::fs::read_dir(path) else { return 0 };
    entries.flatten().map(|e| dir_bytes(&e.path())).sum()
}

/// The tables of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Table {
    /// Format version, settings, counters.
    Meta,
    /// External id (UTF-8) → internal document number (u64, big-endian).
    Ids,
    /// Document number → document record (id, exact group, fate, signature, shingle set).
    Docs,
    /// `(table u16, key u64, document u64)` big-endian → empty: LSH band keys, SimHash table
    /// keys or partition fingerprints of every head document.
    Keys,
    /// Normalized-text fingerprint (u128) → the head document of its exact-copy group.
    Exact,
    /// `(head u64, copy u64)` → empty: the exact copies of every head.
    Copies,
    /// Document number → its text, zstd-compressed (what `export` and `verify` re-run).
    Texts,
}

impl Table {
    /// Every table.
    pub const ALL: [Table; 7] = [
        Table::Meta,
        Table::Ids,
        Table::Docs,
        Table::Keys,
        Table::Exact,
        Table::Copies,
        Table::Texts,
    ];

    /// Its name in the store.
    pub fn name(self) -> &'static str {
        match self {
            Table::Meta => "meta",
            Table::Ids => "ids",
            Table::Docs => "docs",
            Table::Keys => "keys",
            Table::Exact => "exact",
            Table::Copies => "copies",
            Table::Texts => "texts",
        }
    }

    fn def(self) -> TableDefinition<'static, &'static [u8], &'static [u8]> {
        TableDefinition::new(self.name())
    }
}

/// How a commit reaches the disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Durability {
    /// fsync at every commit: an acknowledged batch survives a crash or power loss (default).
    #[default]
    Immediate,
    /// No fsync: a crash may lose the batches committed since the last durable one (an index
    /// flushes one at least every second of writing and when it is closed), but never leaves a
    /// half-written batch: on open the store returns to its last durable commit. For crawlers
    /// that can re-add the last second of pages and prefer speed.
    Fast,
}

/// One write: a value, or `None` to delete the key.
pub type Writes = BTreeMap<(Table, Vec<u8>), Option<Vec<u8>>>;

/// What [`Snapshot::scan`] calls with each `(key, value)`; `false` stops the scan.
pub type Visit<'a> = dyn FnMut(&[u8], &[u8]) -> Result<bool> + 'a;

/// Reads as of one commit.
pub trait Snapshot: Send {
    /// The value of `key`.
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>>;
    /// Every `(key, value)` whose key starts with `prefix`, in key order, until `f` returns
    /// false.
    fn scan(&self, table: Table, prefix: &[u8], f: &mut Visit<'_>) -> Result<()>;
    /// Number of entries.
    fn len(&self, table: Table) -> Result<u64>;
}

/// An ordered key-value store with atomic batch commits and snapshot reads.
pub trait Storage: fmt::Debug + Send + Sync {
    /// A snapshot of the last commit.
    fn snapshot(&self) -> Result<Box<dyn Snapshot>>;
    /// Applies `writes` atomically: after a crash, all of them or none are visible.
    fn commit(&self, writes: &Writes, durability: Durability) -> Result<()>;
    /// Checks the store's own checksums and structure; `Ok(false)` when it found damage.
    fn check(&mut self) -> Result<bool>;
    /// Bytes the store occupies on disk.
    fn disk_bytes(&self) -> u64;
}

/// [`Storage`] on a redb database file.
pub struct RedbStorage {
    db: redb::Database,
    path: PathBuf,
}

impl fmt::Debug for RedbStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedbStorage").field("path", &self.path).finish_non_exhaustive()
    }
}

impl RedbStorage {
    /// Creates or opens the database file at `path`.
    pub fn open(path: &Path) -> Result<RedbStorage> {
        let db = redb::Database::create(path).map_err(|e| storage_error(path, e))?;
        RedbStorage::with_database(db, path)
    }

    /// A store on any redb backend (the crash tests use one that loses unsynced writes);
    /// `path` only names it in messages.
    pub fn with_backend(backend: impl redb::StorageBackend, path: &Path) -> Result<RedbStorage> {
        let db = redb::Database::builder()
            .create_with_backend(backend)
            .map_err(|e| storage_error(path, e))?;
        RedbStorage::with_database(db, path)
    }

    fn with_database(db: redb::Database, path: &Path) -> Result<RedbStorage> {
        let s = RedbStorage { db, path: path.to_owned() };
        // Every table exists from the first commit on, so readers never meet a missing table.
        let tx = s.db.begin_write().map_err(|e| s.err(e))?;
        for t in Table::ALL {
            tx.open_table(t.def()).map_err(|e| s.err(e))?;
        }
        tx.commit().map_err(|e| s.err(e))?;
        Ok(s)
    }

    fn err(&self, e: impl fmt::Display) -> Error {
        storage_error(&self.path, e)
    }
}

fn storage_error(path: &Path, e: impl fmt::Display) -> Error {
    Error::Storage { path: path.to_owned(), message: e.to_string() }
}

struct RedbSnapshot {
    tx: redb::ReadTransaction,
    path: PathBuf,
}

impl RedbSnapshot {
    fn table(&self, t: Table) -> Result<redb::ReadOnlyTable<&'static [u8], &'static [u8]>> {
        self.tx.open_table(t.def()).map_err(|e| storage_error(&self.path, e))
    }
}

impl Snapshot for RedbSnapshot {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let t = self.table(table)?;
        let v = t.get(key).map_err(|e| storage_error(&self.path, e))?;
        Ok(v.map(|g| g.value().to_vec()))
    }

    fn scan(&self, table: Table, prefix: &[u8], f: &mut Visit<'_>) -> Result<()> {
        let t = self.table(table)?;
        let range = t.range(prefix..).map_err(|e| storage_error(&self.path, e))?;
        for item in range {
            let (k, v) = item.map_err(|e| storage_error(&self.path, e))?;
            if !k.value().starts_with(prefix) || !f(k.value(), v.value())? {
                break;
            }
        }
        Ok(())
    }

    fn len(&self, table: Table) -> Result<u64> {
        self.table(table)?.len().map_err(|e| storage_error(&self.path, e))
    }
}

impl Storage for RedbStorage {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>> {
        let tx = self.db.begin_read().map_err(|e| self.err(e))?;
        Ok(Box::new(RedbSnapshot { tx, path: self.path.clone() }))
    }

    fn commit(&self, writes: &Writes, durability: Durability) -> Result<()> {
        let mut tx = self.db.begin_write().map_err(|e| self.err(e))?;
        tx.set_durability(match durability {
            Durability::Immediate => redb::Durability::Immediate,
            Durability::Fast => redb::Durability::None,
        })
        .map_err(|e| self.err(e))?;
        {
            let mut open = Vec::new();
            for t in Table::ALL {
                open.push((t, tx.open_table(t.def()).map_err(|e| self.err(e))?));
            }
            for ((t, key), value) in writes {
                let table = &mut open.iter_mut().find(|(x, _)| x == t).expect("every table").1;
                match value {
                    Some(v) => {
                        table.insert(key.as_slice(), v.as_slice()).map_err(|e| self.err(e))?;
                    }
                    None => {
                        table.remove(key.as_slice()).map_err(|e| self.err(e))?;
                    }
                }
            }
        }
        tx.commit().map_err(|e| self.err(e))
    }

    fn check(&mut self) -> Result<bool> {
        self.db.check_integrity().map_err(|e| self.err(e))
    }

    fn disk_bytes(&self) -> u64 {
        std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0)
    }
}

/// Reads through a batch of pending writes to a snapshot: what a writer sees while it builds a
/// batch (its own writes first).
pub(crate) struct Overlay<'a> {
    pub base: &'a dyn Snapshot,
    pub writes: Writes,
}

impl Overlay<'_> {
    pub fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self.writes.get(&(table, key.to_vec())) {
            Some(v) => Ok(v.clone()),
            None => self.base.get(table, key),
        }
    }

    pub fn put(&mut self, table: Table, key: Vec<u8>, value: Vec<u8>) {
        self.writes.insert((table, key), Some(value));
    }

    pub fn delete(&mut self, table: Table, key: Vec<u8>) {
        self.writes.insert((table, key), None);
    }

    /// Keys (with values) starting with `prefix`, the pending writes applied, in key order.
    pub fn scan(&self, table: Table, prefix: &[u8]) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut found: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        self.base.scan(table, prefix, &mut |k, v| {
            found.insert(k.to_vec(), v.to_vec());
            Ok(true)
        })?;
        for ((t, k), v) in self.writes.range((table, prefix.to_vec())..) {
            if *t != table || !k.starts_with(prefix) {
                break;
            }
            match v {
                Some(v) => found.insert(k.clone(), v.clone()),
                None => found.remove(k),
            };
        }
        Ok(found.into_iter().collect())
    }
}
