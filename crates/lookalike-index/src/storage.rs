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

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Once;

use redb::{ReadableDatabase, ReadableTableMetadata, TableDefinition};

use crate::error::{Error, Result};

#[cfg(feature = "fjall")]
mod fjall;
#[cfg(feature = "lmdb")]
mod lmdb;
mod read_only_file;
#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "fjall")]
pub use self::fjall::FjallStorage;
#[cfg(feature = "lmdb")]
pub use self::lmdb::LmdbStorage;
use self::read_only_file::ReadOnlyFile;
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
///
/// Every open verifies the checksum of every page the file's last commit holds (redb's integrity
/// check; it reads the whole file once): redb does not check checksums on ordinary reads, so a
/// flipped bit would otherwise be answered from, or make redb panic. A damaged file is refused
/// with [`Error::Damaged`]; a panic inside redb, the last line of defence, becomes that error too.
pub struct RedbStorage {
    db: Quiet<redb::Database>,
    path: PathBuf,
    read_only: bool,
}

impl fmt::Debug for RedbStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedbStorage")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

/// redb's settings for an index file: the integrity check on every open.
fn builder() -> redb::Builder {
    let mut b = redb::Builder::new();
    b.set_check_integrity_on_open(true);
    b
}

impl RedbStorage {
    /// Creates the database file at `path`, or opens the one there for reading and writing.
    pub fn open(path: &Path) -> Result<RedbStorage> {
        let db = guarded(path, || builder().create(path).map_err(|e| storage_error(path, e)))?;
        RedbStorage::with_database(db, path)
    }

    /// Opens the database file at `path` for reading only: the file is never written (what redb
    /// writes on open, a repair after a crash included, stays in memory), other read-only opens
    /// share it, a writer excludes it ([`Error::Locked`]). [`Storage::commit`] is refused.
    pub fn open_read_only(path: &Path) -> Result<RedbStorage> {
        let file =
            File::open(path).map_err(|source| Error::Io { path: path.to_owned(), source })?;
        let backend = ReadOnlyFile::new(file)
            .map_err(|source| Error::Io { path: path.to_owned(), source })?;
        let db = guarded(path, || {
            builder().create_with_backend(backend).map_err(|e| storage_error(path, e))
        })?;
        Ok(RedbStorage { db: Quiet::new(db), path: path.to_owned(), read_only: true })
    }

    /// A store on any redb backend (the crash tests use one that loses unsynced writes);
    /// `path` only names it in messages.
    pub fn with_backend(backend: impl redb::StorageBackend, path: &Path) -> Result<RedbStorage> {
        let db = guarded(path, || {
            builder().create_with_backend(backend).map_err(|e| storage_error(path, e))
        })?;
        RedbStorage::with_database(db, path)
    }

    fn with_database(db: redb::Database, path: &Path) -> Result<RedbStorage> {
        let s = RedbStorage { db: Quiet::new(db), path: path.to_owned(), read_only: false };
        // Every table exists from the first commit on, so readers never meet a missing table.
        s.guarded(|| {
            let tx = s.db.begin_write().map_err(|e| s.err(e))?;
            for t in Table::ALL {
                tx.open_table(t.def()).map_err(|e| s.err(e))?;
            }
            tx.commit().map_err(|e| s.err(e))
        })?;
        Ok(s)
    }

    fn err(&self, e: impl Into<redb::Error>) -> Error {
        storage_error(&self.path, e)
    }

    fn guarded<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        guarded(&self.path, f)
    }
}

/// A redb error as the index's: a lock held elsewhere, a damaged file, or another failure.
fn storage_error(path: &Path, e: impl Into<redb::Error>) -> Error {
    let path = path.to_owned();
    match e.into() {
        redb::Error::DatabaseAlreadyOpen => Error::Locked { path },
        redb::Error::Corrupted(message) => Error::Damaged { path, message },
        redb::Error::RepairAborted => {
            Error::Damaged { path, message: "the store could not repair it".into() }
        }
        // What redb says of a file that holds no redb database.
        redb::Error::Io(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            Error::Damaged { path, message: e.to_string() }
        }
        e => Error::Storage { path, message: e.to_string() },
    }
}

thread_local! {
    /// Calls into redb under way on this thread: their panics are caught, not printed.
    static QUIET: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f`, which calls into redb, with a panic inside it caught and returned as its message.
/// The process's panic hook is wrapped once so that it stays silent for these panics (the error
/// reports them) and reports every other panic as before.
fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(q.get() + 1));
    let result = std::panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(q.get() - 1));
    result.map_err(|p| {
        let message = p.downcast_ref::<&str>().map(|s| s.to_string());
        message.or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default()
    })
}

/// Runs `f`, a call into redb on the file at `path`; a panic inside it is [`Error::Damaged`].
fn guarded<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_quietly(f).unwrap_or_else(|panic| {
        Err(Error::Damaged {
            path: path.to_owned(),
            message: format!("the store failed reading it: {panic}"),
        })
    })
}

/// A redb handle dropped with its panics caught: redb may panic closing a damaged file.
struct Quiet<T>(Option<T>);

impl<T> Quiet<T> {
    fn new(inner: T) -> Quiet<T> {
        Quiet(Some(inner))
    }
}

impl<T> std::ops::Deref for Quiet<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0.as_ref().expect("present until dropped")
    }
}

impl<T> std::ops::DerefMut for Quiet<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.as_mut().expect("present until dropped")
    }
}

impl<T> Drop for Quiet<T> {
    fn drop(&mut self) {
        let inner = self.0.take();
        let _ = catch_quietly(move || drop(inner));
    }
}

struct RedbSnapshot {
    tx: Quiet<redb::ReadTransaction>,
    path: PathBuf,
}

impl RedbSnapshot {
    fn table(&self, t: Table) -> Result<redb::ReadOnlyTable<&'static [u8], &'static [u8]>> {
        self.tx.open_table(t.def()).map_err(|e| self.err(e))
    }

    fn err(&self, e: impl Into<redb::Error>) -> Error {
        storage_error(&self.path, e)
    }

    fn guarded<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        guarded(&self.path, f)
    }
}

impl Snapshot for RedbSnapshot {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.guarded(|| {
            let v = self.table(table)?.get(key).map_err(|e| self.err(e))?;
            Ok(v.map(|g| g.value().to_vec()))
        })
    }

    fn scan(&self, table: Table, prefix: &[u8], f: &mut Visit<'_>) -> Result<()> {
        let t = Quiet::new(self.guarded(|| self.table(table))?);
        let mut range = Quiet::new(self.guarded(|| t.range(prefix..).map_err(|e| self.err(e)))?);
        loop {
            // Only redb's part is guarded: a panic of `f` is not the file's.
            let item = self.guarded(|| {
                let next = range.next().transpose().map_err(|e| self.err(e))?;
                Ok(next.map(|(k, v)| (k.value().to_vec(), v.value().to_vec())))
            })?;
            match item {
                Some((k, v)) if k.starts_with(prefix) => {
                    if !f(&k, &v)? {
                        break;
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn len(&self, table: Table) -> Result<u64> {
        self.guarded(|| self.table(table)?.len().map_err(|e| self.err(e)))
    }
}

impl Storage for RedbStorage {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>> {
        let tx = self.guarded(|| self.db.begin_read().map_err(|e| self.err(e)))?;
        Ok(Box::new(RedbSnapshot { tx: Quiet::new(tx), path: self.path.clone() }))
    }

    fn commit(&self, writes: &Writes, durability: Durability) -> Result<()> {
        if self.read_only {
            return Err(Error::ReadOnly { path: self.path.clone() });
        }
        self.guarded(|| {
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
        })
    }

    fn check(&mut self) -> Result<bool> {
        let path = self.path.clone();
        let db = &mut self.db;
        guarded(&path, || db.check_integrity().map_err(|e| storage_error(&path, e)))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: redb panicked on damaged files; a panic inside a call into
    /// the store is an error naming the file, and a panic elsewhere still unwinds as one.
    #[test]
    fn a_panic_inside_the_store_is_an_error_naming_the_file() {
        let path = Path::new("some/index.redb");
        let e = guarded::<()>(path, || panic!("page 7 is not a branch")).unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("some/index.redb: the index file is damaged"), "{e}");
        assert!(e.contains("page 7 is not a branch"), "{e}");
        assert_eq!(guarded(path, || Ok(3)).unwrap(), 3);
        assert!(std::panic::catch_unwind(|| panic!("not the store's")).is_err());
    }
}
