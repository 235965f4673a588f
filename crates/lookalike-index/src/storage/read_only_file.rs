//! A redb storage backend that reads a database file and never writes to it. redb writes when it
//! opens a file (the header's recovery flag; a repair after a crash; the commit of the integrity
//! check that every open of an index runs): here those writes stay in memory, in whole blocks
//! over the file's bytes, so a read-only command leaves the file's bytes and times as they were,
//! and can still read an index that a killed writer left needing repair.
//!
//! Locks are taken shared on the file, whatever redb asks: read-only opens share the file with
//! each other and exclude a writer, as redb's own read-only opens do.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::ops::Bound;
use std::sync::{Mutex, MutexGuard, PoisonError};

use redb::backends::FileBackend;
use redb::{BackendError, StorageBackend};

/// Bytes of a block held in memory.
const BLOCK: u64 = 4096;

/// A database file opened for reading, its writes kept in memory.
#[derive(Debug)]
pub(crate) struct ReadOnlyFile {
    file: FileBackend,
    changes: Mutex<Changes>,
}

#[derive(Debug)]
struct Changes {
    /// The length redb sees.
    len: u64,
    /// The file's bytes show through below this (a shrink hides the rest: zeros if it grows
    /// again).
    file_len: u64,
    /// Blocks written, by block number, each [`BLOCK`] bytes.
    blocks: BTreeMap<u64, Box<[u8]>>,
}

impl ReadOnlyFile {
    /// The backend over `file` (opened for reading).
    pub(crate) fn new(file: File) -> io::Result<ReadOnlyFile> {
        let len = file.metadata()?.len();
        let file = FileBackend::new(file).map_err(io::Error::other)?;
        let changes = Changes { len, file_len: len, blocks: BTreeMap::new() };
        Ok(ReadOnlyFile { file, changes: Mutex::new(changes) })
    }

    fn changes(&self) -> MutexGuard<'_, Changes> {
        self.changes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The file's bytes at `at` into `out`, zeros from `file_len` on.
    fn read_file(&self, file_len: u64, at: u64, out: &mut [u8]) -> io::Result<()> {
        let n = file_len.saturating_sub(at).min(out.len() as u64) as usize;
        if n > 0 {
            self.file.read(at, &mut out[..n])?;
        }
        out[n..].fill(0);
        Ok(())
    }
}

impl StorageBackend for ReadOnlyFile {
    fn len(&self) -> io::Result<u64> {
        Ok(self.changes().len)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let c = self.changes();
        let end = offset.checked_add(out.len() as u64).filter(|&e| e <= c.len);
        let end =
            end.ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "past the end"))?;
        let mut at = offset;
        while at < end {
            let dst = &mut out[(at - offset) as usize..];
            let block = at / BLOCK;
            if let Some(b) = c.blocks.get(&block) {
                let from = (at % BLOCK) as usize;
                let n = (BLOCK as usize - from).min((end - at) as usize);
                dst[..n].copy_from_slice(&b[from..from + n]);
                at += n as u64;
            } else {
                // The file's bytes up to the next block written (or the end).
                let next = c.blocks.range(block..).next().map_or(end, |(&b, _)| b * BLOCK);
                let n = (next.min(end) - at) as usize;
                self.read_file(c.file_len, at, &mut dst[..n])?;
                at += n as u64;
            }
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut c = self.changes();
        if len < c.len {
            c.blocks.retain(|&b, _| b * BLOCK < len);
            if let Some(last) = c.blocks.get_mut(&(len / BLOCK)) {
                last[(len % BLOCK) as usize..].fill(0);
            }
            c.file_len = c.file_len.min(len);
        }
        c.len = len;
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut c = self.changes();
        let end = offset + data.len() as u64;
        c.len = c.len.max(end);
        let mut at = offset;
        while at < end {
            let block = at / BLOCK;
            if !c.blocks.contains_key(&block) {
                let mut b = vec![0u8; BLOCK as usize].into_boxed_slice();
                self.read_file(c.file_len, block * BLOCK, &mut b)?;
                c.blocks.insert(block, b);
            }
            let from = (at % BLOCK) as usize;
            let n = (BLOCK as usize - from).min((end - at) as usize);
            let src = &data[(at - offset) as usize..][..n];
            c.blocks.get_mut(&block).expect("inserted above")[from..from + n].copy_from_slice(src);
            at += n as u64;
        }
        Ok(())
    }

    fn close(&self) -> io::Result<()> {
        self.file.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.try_lock_shared_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.file.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_shared_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.query_lock_range(start, end)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// Writes, shrinks and regrowths read back as on a real file, and the file is never written.
    #[test]
    fn writes_stay_in_memory_and_read_back_as_a_file_would() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let original: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        f.write_all(&original).unwrap();
        let b = ReadOnlyFile::new(File::open(f.path()).unwrap()).unwrap();
        let mut model = original.clone();
        let write = |model: &mut Vec<u8>, at: usize, data: &[u8]| {
            b.write(at as u64, data).unwrap();
            if model.len() < at + data.len() {
                model.resize(at + data.len(), 0);
            }
            model[at..at + data.len()].copy_from_slice(data);
        };
        write(&mut model, 4090, &[7; 20]);
        write(&mut model, 9000, &[9; 3000]);
        b.set_len(5000).unwrap();
        model.truncate(5000);
        b.set_len(12_000).unwrap();
        model.resize(12_000, 0);
        write(&mut model, 11_000, &[3; 10]);
        let mut got = vec![0u8; model.len()];
        b.read(0, &mut got).unwrap();
        assert_eq!(got, model);
        let mut part = vec![0u8; 100];
        b.read(4050, &mut part).unwrap();
        assert_eq!(part, model[4050..4150]);
        assert!(b.read(11_990, &mut part).is_err(), "past the end");
        assert_eq!(std::fs::read(f.path()).unwrap(), original);
    }
}
