//! [`Storage`] on SQLite through rusqlite, SQLite compiled in (feature `sqlite`): one
//! `WITHOUT ROWID` table (a B-tree ordered by key) per index table, in WAL mode. Measured against
//! redb by `lookalike-bench index-storage`; not the index's store.
//!
//! A commit is one `BEGIN IMMEDIATE … COMMIT` transaction on the writer's connection.
//! [`Durability::Immediate`] runs it with `synchronous = FULL` (the WAL is synced at every
//! commit); [`Durability::Fast`] with `synchronous = NORMAL` (synced at checkpoints only: a power
//! loss may lose the last commits, never leaves half of one, as SQLite documents for WAL mode).
//! Torn WAL frames fail their checksums and are dropped on recovery with the rest of their
//! transaction. Snapshots are read transactions on pooled reader connections.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::{Durability, Snapshot, Storage, Table, Visit, Writes, storage_error};
use crate::error::{Error, Result};

/// The database file inside the directory given to [`SqliteStorage::open`].
const FILE: &str = "index.sqlite";

/// [`Storage`] on an SQLite database.
pub struct SqliteStorage {
    writer: Mutex<Connection>,
    readers: Arc<Mutex<Vec<Connection>>>,
    file: PathBuf,
    path: PathBuf,
}

impl fmt::Debug for SqliteStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStorage").field("path", &self.path).finish_non_exhaustive()
    }
}

impl SqliteStorage {
    /// Creates or opens the database in directory `path`.
    pub fn open(path: &Path) -> Result<SqliteStorage> {
        std::fs::create_dir_all(path).map_err(|source| Error::Io { path: path.into(), source })?;
        let file = path.join(FILE);
        let err = |e: rusqlite::Error| storage_error(path, e);
        let conn = Connection::open(&file).map_err(err)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(err)?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(err)?;
        for t in Table::ALL {
            conn.execute(
                &format!(
                    "CREATE TABLE IF NOT EXISTS {} (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID",
                    t.name()
                ),
                [],
            )
            .map_err(err)?;
        }
        Ok(SqliteStorage {
            writer: Mutex::new(conn),
            readers: Arc::new(Mutex::new(Vec::new())),
            file,
            path: path.to_owned(),
        })
    }

    fn err(&self, e: impl fmt::Display) -> Error {
        storage_error(&self.path, e)
    }
}

/// A read transaction on a pooled connection, handed back when dropped.
struct SqliteSnapshot {
    conn: Option<Connection>,
    pool: Arc<Mutex<Vec<Connection>>>,
    path: PathBuf,
}

impl SqliteSnapshot {
    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("a snapshot holds its connection until dropped")
    }
}

impl Drop for SqliteSnapshot {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take()
            && conn.execute_batch("COMMIT").is_ok()
        {
            self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(conn);
        }
    }
}

impl Snapshot for SqliteSnapshot {
    fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let err = |e: rusqlite::Error| storage_error(&self.path, e);
        let sql = format!("SELECT v FROM {} WHERE k = ?1", table.name());
        let mut stmt = self.conn().prepare_cached(&sql).map_err(err)?;
        stmt.query_row([key], |r| r.get::<_, Vec<u8>>(0)).optional().map_err(err)
    }

    fn scan(&self, table: Table, prefix: &[u8], f: &mut Visit<'_>) -> Result<()> {
        let err = |e: rusqlite::Error| storage_error(&self.path, e);
        let sql = format!("SELECT k, v FROM {} WHERE k >= ?1 ORDER BY k", table.name());
        let mut stmt = self.conn().prepare_cached(&sql).map_err(err)?;
        let mut rows = stmt.query([prefix]).map_err(err)?;
        while let Some(row) = rows.next().map_err(err)? {
            let k =
                row.get_ref(0).map_err(err)?.as_blob().map_err(|e| storage_error(&self.path, e))?;
            if !k.starts_with(prefix) {
                break;
            }
            let v =
                row.get_ref(1).map_err(err)?.as_blob().map_err(|e| storage_error(&self.path, e))?;
            if !f(k, v)? {
                break;
            }
        }
        Ok(())
    }

    fn len(&self, table: Table) -> Result<u64> {
        let sql = format!("SELECT count(*) FROM {}", table.name());
        let n: i64 = self
            .conn()
            .query_row(&sql, [], |r| r.get(0))
            .map_err(|e| storage_error(&self.path, e))?;
        Ok(n as u64)
    }
}

impl Storage for SqliteStorage {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>> {
        let pooled = self.readers.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match pooled {
            Some(c) => c,
            None => Connection::open_with_flags(
                &self.file,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| self.err(e))?,
        };
        // A WAL read transaction takes its snapshot at its first read, so read once now.
        conn.execute_batch("BEGIN; SELECT count(*) FROM meta;").map_err(|e| self.err(e))?;
        Ok(Box::new(SqliteSnapshot {
            conn: Some(conn),
            pool: Arc::clone(&self.readers),
            path: self.path.clone(),
        }))
    }

    fn commit(&self, writes: &Writes, durability: Durability) -> Result<()> {
        let mut conn = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let sync = match durability {
            Durability::Immediate => "FULL",
            Durability::Fast => "NORMAL",
        };
        conn.pragma_update(None, "synchronous", sync).map_err(|e| self.err(e))?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate);
        let tx = tx.map_err(|e| self.err(e))?;
        for ((t, key), value) in writes {
            match value {
                Some(v) => {
                    let sql = format!("INSERT OR REPLACE INTO {} (k, v) VALUES (?1, ?2)", t.name());
                    let mut stmt = tx.prepare_cached(&sql).map_err(|e| self.err(e))?;
                    stmt.execute((key, v)).map_err(|e| self.err(e))?;
                }
                None => {
                    let sql = format!("DELETE FROM {} WHERE k = ?1", t.name());
                    let mut stmt = tx.prepare_cached(&sql).map_err(|e| self.err(e))?;
                    stmt.execute([key]).map_err(|e| self.err(e))?;
                }
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        if writes.is_empty() && durability == Durability::Immediate {
            // How the index makes earlier fast commits durable: a full checkpoint syncs them.
            conn.execute_batch("PRAGMA wal_checkpoint(FULL)").map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    fn check(&mut self) -> Result<bool> {
        let conn = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let answer: String =
            conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).map_err(|e| self.err(e))?;
        Ok(answer == "ok")
    }

    fn disk_bytes(&self) -> u64 {
        super::dir_bytes(&self.path)
    }
}
