//! On-disk shingle sets. Contract: "give me each document's sorted shingle hashes once, in
//! document order; later give me a document number and I read its set back".
//!
//! Exact verification needs the shingle sets of candidate documents, but a collection's sets are
//! several times larger than its signatures (8 bytes per shingle, about one shingle per word), so
//! they are appended to an anonymous temporary file (deleted by the OS when it is closed, also on
//! a crash) and read back with positioned reads, which many threads can do at once. Only the
//! offsets stay in memory.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Append-only store of sorted `u64` sets, one slot per document.
#[derive(Debug)]
pub struct ShingleStore {
    writer: Option<BufWriter<File>>,
    file: Option<File>,
    /// `offsets[d]..offsets[d + 1]` is document d's range, in u64 elements.
    offsets: Vec<u64>,
}

impl ShingleStore {
    /// A new store in `dir` (the system temporary directory when `None`).
    pub fn new(dir: Option<&Path>) -> io::Result<Self> {
        let file = match dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        Ok(ShingleStore {
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
            file: None,
            offsets: vec![0],
        })
    }

    /// Appends the set of the next document (`set` may be empty for documents without one).
    pub fn push(&mut self, set: &[u64]) -> io::Result<()> {
        let w = self.writer.as_mut().ok_or_else(|| io::Error::other("store is sealed"))?;
        for v in set {
            w.write_all(&v.to_le_bytes())?;
        }
        let last = *self.offsets.last().unwrap_or(&0);
        self.offsets.push(last + set.len() as u64);
        Ok(())
    }

    /// Number of documents stored.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// True when no document was stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes written to disk.
    pub fn disk_bytes(&self) -> u64 {
        self.offsets.last().copied().unwrap_or(0) * 8
    }

    /// Flushes the writer; after this the store is read-only.
    pub fn seal(&mut self) -> io::Result<()> {
        if let Some(w) = self.writer.take() {
            self.file = Some(w.into_inner().map_err(|e| e.into_error())?);
        }
        Ok(())
    }

    /// Reads document `doc`'s set into `out` (cleared first). The store must be sealed.
    pub fn read(&self, doc: usize, out: &mut Vec<u64>, buf: &mut Vec<u8>) -> io::Result<()> {
        let file = self.file.as_ref().ok_or_else(|| io::Error::other("store is not sealed"))?;
        let (lo, hi) = (self.offsets[doc], self.offsets[doc + 1]);
        out.clear();
        buf.clear();
        buf.resize(((hi - lo) * 8) as usize, 0);
        file.read_exact_at(buf, lo * 8)?;
        out.extend(buf.chunks_exact(8).map(|c| {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            u64::from_le_bytes(a)
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_in_any_order() {
        let mut s = ShingleStore::new(None).unwrap();
        let sets: Vec<Vec<u64>> = vec![vec![1, 2, 3], vec![], vec![u64::MAX, 0], vec![42; 1000]];
        for set in &sets {
            s.push(set).unwrap();
        }
        s.seal().unwrap();
        assert_eq!(s.len(), 4);
        let (mut out, mut buf) = (Vec::new(), Vec::new());
        for d in [3, 0, 2, 1, 0] {
            s.read(d, &mut out, &mut buf).unwrap();
            assert_eq!(out, sets[d]);
        }
        assert!(s.push(&[1]).is_err());
    }
}
