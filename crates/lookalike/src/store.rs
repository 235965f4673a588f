//! Shingle sets kept for exact verification. Contract: "give me each document's shingle hashes
//! once, in document order (in any order within the document, repeats allowed); later give me a
//! document number and I read its set back, sorted and distinct".
//!
//! The hashes come in text order: sorting every document's set as it is shingled cost a tenth of
//! the text path, but only the documents of candidate pairs are ever read back. Once the
//! candidates are known, [`ShingleStore::sort_sets`] sorts their sets once each, in parallel:
//! in place while the store is in memory; once it has spilled, the sets read more than once
//! into memory again (the budget the spill freed), those read most first, as many as the budget
//! holds. A set read without it is sorted by [`ShingleStore::read`] on every read.
//!
//! Exact verification needs the shingle sets of candidate documents, but a collection's sets are
//! several times larger than its signatures (8 bytes per shingle, about one shingle per word).
//! They are kept in memory up to a budget; past it, everything is moved to an anonymous temporary
//! file (deleted by the OS when it is closed, also on a crash) and read back with positioned
//! reads, which many threads can do at once (on Unix; elsewhere a seek and a read under a lock).
//! Then only the offsets stay in memory.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::shingles::sort_set_into;

/// Default memory budget of a [`ShingleStore`] before it spills to disk.
pub const DEFAULT_MEMORY_BUDGET: usize = 256 << 20;

/// Append-only store of `u64` sets, one slot per document.
#[derive(Debug)]
pub struct ShingleStore {
    dir: Option<PathBuf>,
    budget: usize,
    /// The sets while they fit in the budget, one after the other. One buffer, not one
    /// allocation per set: when the store spills, the buffer goes back to the system at once,
    /// where thousands of freed sets stayed in the allocator's heap (+300 MB of peak memory on
    /// a million documents).
    mem: Mem,
    writer: Option<BufWriter<File>>,
    file: Option<File>,
    sealed: bool,
    /// `offsets[d]..offsets[d + 1]` is document d's range, in u64 elements.
    offsets: Vec<u64>,
    /// The number of distinct values of each document whose set [`sort_sets`](Self::sort_sets)
    /// sorted (at the start of its range, or of its place in `cache` once the store has
    /// spilled), [`UNSORTED`] for the others.
    sorted: Vec<u32>,
    /// Once the store has spilled: the sorted sets [`sort_sets`](Self::sort_sets) read back
    /// into memory, and where each document's starts (only those with a `sorted` length).
    cache: Vec<u64>,
    cache_at: Vec<u64>,
}

/// The mark of a set that is stored as it was pushed.
const UNSORTED: u32 = u32::MAX;

/// Scratch space of [`ShingleStore::read`] and [`ShingleStore::sort_sets`], one per thread.
#[derive(Debug, Default)]
pub struct ReadBuffers {
    bytes: Vec<u8>,
    values: Vec<u64>,
    set: Vec<u64>,
    starts: Vec<u32>,
}

/// The parts `ranges` (ascending, not overlapping) of `all`, each on its own.
fn disjoint_mut<T>(mut all: &mut [T], ranges: impl Iterator<Item = Range<usize>>) -> Vec<&mut [T]> {
    let mut parts = Vec::new();
    let mut at = 0;
    for r in ranges {
        let rest = std::mem::take(&mut all);
        let (part, rest) = rest[r.start - at..].split_at_mut(r.end - r.start);
        parts.push(part);
        all = rest;
        at = r.end;
    }
    parts
}

impl ShingleStore {
    /// A new store spilling to `dir` (the system temporary directory when `None`) once it holds
    /// more than `budget` bytes.
    pub fn new(dir: Option<&Path>, budget: usize) -> io::Result<Self> {
        if let Some(d) = dir {
            // Fail early on an unusable directory rather than after reading the whole input.
            drop(tempfile::tempfile_in(d)?);
        }
        Ok(ShingleStore {
            dir: dir.map(Path::to_path_buf),
            budget,
            mem: Mem::new(budget),
            writer: None,
            file: None,
            sealed: false,
            offsets: vec![0],
            sorted: Vec::new(),
            cache: Vec::new(),
            cache_at: Vec::new(),
        })
    }

    /// Appends the shingle hashes of the next document, in any order and with repeats (`set` may
    /// be empty for documents without one).
    pub fn push(&mut self, set: &[u64]) -> io::Result<()> {
        if self.sealed {
            return Err(io::Error::other("store is sealed"));
        }
        if self.writer.is_none() && (self.mem.len() + set.len()) * 8 > self.budget {
            self.spill()?;
        }
        let len = set.len();
        match &mut self.writer {
            Some(w) => write_set(w, set)?,
            None => self.mem.push(set),
        }
        let last = *self.offsets.last().unwrap_or(&0);
        self.offsets.push(last + len as u64);
        self.sorted.push(UNSORTED);
        Ok(())
    }

    /// Moves what is in memory to a new temporary file; later sets go there too.
    fn spill(&mut self) -> io::Result<()> {
        let file = match &self.dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        let mut w = BufWriter::with_capacity(1 << 20, file);
        self.mem.write_to(&mut w)?;
        self.mem = Mem::Vec(Vec::new());
        self.writer = Some(w);
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

    /// Bytes written to disk (0 while everything fits in memory).
    pub fn disk_bytes(&self) -> u64 {
        if self.writer.is_some() || self.file.is_some() {
            self.offsets.last().copied().unwrap_or(0) * 8
        } else {
            0
        }
    }

    /// Flushes the writer; after this the store is read-only.
    pub fn seal(&mut self) -> io::Result<()> {
        if let Some(w) = self.writer.take() {
            self.file = Some(w.into_inner().map_err(|e| e.into_error())?);
        }
        self.sealed = true;
        Ok(())
    }

    /// Reads document `doc`'s set into `out` (cleared first): its distinct values, sorted. The
    /// store must be sealed.
    pub fn read(&self, doc: usize, out: &mut Vec<u64>, buf: &mut ReadBuffers) -> io::Result<()> {
        if !self.sealed {
            return Err(io::Error::other("store is not sealed"));
        }
        let (lo, hi) = (self.offsets[doc], self.offsets[doc + 1]);
        let sorted = self.sorted[doc];
        if sorted != UNSORTED {
            if self.file.is_none() {
                return self.read_range(lo..lo + u64::from(sorted), out, &mut buf.bytes);
            }
            let at = self.cache_at[doc] as usize;
            out.clear();
            out.extend_from_slice(&self.cache[at..at + sorted as usize]);
            return Ok(());
        }
        self.read_range(lo..hi, &mut buf.values, &mut buf.bytes)?;
        sort_set_into(&buf.values, out, &mut buf.starts);
        Ok(())
    }

    /// Reads values `range` as they are stored into `out` (cleared first).
    fn read_range(
        &self,
        range: Range<u64>,
        out: &mut Vec<u64>,
        bytes: &mut Vec<u8>,
    ) -> io::Result<()> {
        match &self.file {
            Some(file) => read_from_file(file, range, out, bytes),
            None => {
                out.clear();
                self.mem.read(range.start as usize..range.end as usize, out);
                Ok(())
            }
        }
    }

    /// Sorts the sets of the documents to be read, once each, in parallel, so that
    /// [`read`](Self::read) gives them without sorting them again: a document of many candidate
    /// pairs is read once per pair. `reads[d]` says how often document `d` will be read (0, or
    /// past the end of `reads`: never). In memory, every such set is sorted in place. Once the
    /// store has spilled, the sets read more than once are read from disk, sorted and kept in
    /// memory, those read most first (then the earlier documents), as many as the store's
    /// budget holds; the others are sorted on each read (a set read once costs one sort either
    /// way, and keeping it would only add to the peak memory: a million generated documents,
    /// most in one candidate pair each, took 270 MB more). The store must be sealed.
    pub fn sort_sets(&mut self, reads: &[u32]) -> io::Result<()> {
        if !self.sealed {
            return Err(io::Error::other("store is not sealed"));
        }
        let reads = &reads[..reads.len().min(self.len())];
        // Sets too large to count in a u32 stay as they are (and are sorted on each read).
        let len = |d: usize| self.offsets[d + 1] - self.offsets[d];
        let docs: Vec<usize> = (0..reads.len())
            .filter(|&d| reads[d] > 0 && self.sorted[d] == UNSORTED)
            .filter(|&d| len(d) < u64::from(UNSORTED))
            .collect();
        if self.file.is_some() {
            let again: Vec<usize> = docs.into_iter().filter(|&d| reads[d] > 1).collect();
            return self.cache_sets(reads, again);
        }
        let ranges = docs.iter().map(|&d| self.offsets[d] as usize..self.offsets[d + 1] as usize);
        let lens: Vec<u32> = match &mut self.mem {
            Mem::Map(map, _) => {
                let bytes = ranges.map(|r| r.start * 8..r.end * 8);
                disjoint_mut(&mut map[..], bytes)
                    .into_par_iter()
                    .map_init(ReadBuffers::default, |buf, bytes| {
                        buf.values.clear();
                        extend_from_le_bytes(&mut buf.values, bytes);
                        sort_set_into(&buf.values, &mut buf.set, &mut buf.starts);
                        for (b, v) in bytes.chunks_exact_mut(8).zip(&buf.set) {
                            b.copy_from_slice(&v.to_le_bytes());
                        }
                        buf.set.len() as u32
                    })
                    .collect()
            }
            Mem::Vec(v) => disjoint_mut(&mut v[..], ranges)
                .into_par_iter()
                .map_init(ReadBuffers::default, |buf, set| {
                    sort_set_into(set, &mut buf.set, &mut buf.starts);
                    set[..buf.set.len()].copy_from_slice(&buf.set);
                    buf.set.len() as u32
                })
                .collect(),
        };
        for (&d, len) in docs.iter().zip(lens) {
            self.sorted[d] = len;
        }
        Ok(())
    }

    /// [`sort_sets`](Self::sort_sets) for a spilled store: of the sets `by_reads`, those read
    /// most, as many as the budget holds (counted at their stored size, which sorting can only
    /// shrink), read from disk in document order, sorted in parallel and kept in `cache`.
    /// Sorting them on disk in place instead cost more wall time than it saved: the writes were
    /// flushed while verification and clustering read.
    fn cache_sets(&mut self, reads: &[u32], mut by_reads: Vec<usize>) -> io::Result<()> {
        let Some(file) = &self.file else { return Ok(()) };
        by_reads.sort_by_key(|&d| (std::cmp::Reverse(reads[d]), d));
        let budget = (self.budget / 8) as u64;
        let mut room = budget.saturating_sub(self.cache.len() as u64);
        let mut docs = Vec::new();
        for d in by_reads {
            let len = self.offsets[d + 1] - self.offsets[d];
            if len <= room {
                room -= len;
                docs.push(d);
            }
        }
        docs.sort_unstable();
        let start = self.cache.len();
        let mut end = start;
        let mut places = Vec::with_capacity(docs.len());
        for &d in &docs {
            let len = (self.offsets[d + 1] - self.offsets[d]) as usize;
            places.push(end..end + len);
            end += len;
        }
        self.cache.resize(end, 0);
        let offsets = &self.offsets;
        let slots = disjoint_mut(
            &mut self.cache[start..],
            places.iter().map(|r| r.start - start..r.end - start),
        );
        let lens: Vec<u32> = docs
            .par_iter()
            .zip(slots)
            .map_init(ReadBuffers::default, |buf, (&d, slot)| -> io::Result<u32> {
                read_from_file(file, offsets[d]..offsets[d + 1], &mut buf.values, &mut buf.bytes)?;
                sort_set_into(&buf.values, &mut buf.set, &mut buf.starts);
                slot[..buf.set.len()].copy_from_slice(&buf.set);
                Ok(buf.set.len() as u32)
            })
            .collect::<io::Result<_>>()?;
        if self.cache_at.len() < self.len() {
            self.cache_at.resize(self.len(), 0);
        }
        for ((&d, len), place) in docs.iter().zip(lens).zip(places) {
            self.sorted[d] = len;
            self.cache_at[d] = place.start as u64;
        }
        Ok(())
    }
}

/// Smallest budget for which the store maps its memory (below it, a `Vec`).
const MAP_MIN: usize = 4 << 20;

/// The sets kept in memory, one after the other.
#[derive(Debug)]
enum Mem {
    /// An anonymous mapping of the budget's size, as little-endian bytes, and the number of
    /// values in it. Its pages cost nothing until written; on Linux it asks for transparent huge
    /// pages, so that filling it takes one page fault per 2 MiB instead of one per 4 KiB
    /// (bench/results/textspeed-2026-11-24-s11.md).
    Map(memmap2::MmapMut, usize),
    /// Where no mapping could be made, or for small budgets.
    Vec(Vec<u64>),
}

impl Mem {
    fn new(budget: usize) -> Mem {
        if budget >= MAP_MIN
            && let Ok(map) = memmap2::MmapOptions::new().len(budget).map_anon()
        {
            #[cfg(target_os = "linux")]
            {
                // Only a hint: without huge pages (disabled, or none free) the map works alike.
                let _ = map.advise(memmap2::Advice::HugePage);
            }
            return Mem::Map(map, 0);
        }
        Mem::Vec(Vec::new())
    }

    fn len(&self) -> usize {
        match self {
            Mem::Map(_, len) => *len,
            Mem::Vec(v) => v.len(),
        }
    }

    /// Appends a set (the caller keeps the total within the budget).
    fn push(&mut self, set: &[u64]) {
        match self {
            Mem::Map(map, len) => {
                let bytes = &mut map[*len * 8..(*len + set.len()) * 8];
                for (b, v) in bytes.chunks_exact_mut(8).zip(set) {
                    b.copy_from_slice(&v.to_le_bytes());
                }
                *len += set.len();
            }
            Mem::Vec(v) => v.extend_from_slice(set),
        }
    }

    /// Values `range` into `out`.
    fn read(&self, range: std::ops::Range<usize>, out: &mut Vec<u64>) {
        match self {
            Mem::Map(map, _) => extend_from_le_bytes(out, &map[range.start * 8..range.end * 8]),
            Mem::Vec(v) => out.extend_from_slice(&v[range]),
        }
    }

    /// Writes everything as little-endian bytes.
    fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        match self {
            Mem::Map(map, len) => w.write_all(&map[..*len * 8]),
            Mem::Vec(v) => write_set(w, v),
        }
    }
}

/// Appends the values stored in `bytes` as little-endian bytes (what [`write_set`] writes).
fn extend_from_le_bytes(out: &mut Vec<u64>, bytes: &[u8]) {
    out.extend(bytes.chunks_exact(8).map(|c| {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        u64::from_le_bytes(a)
    }));
}

/// Reads values `range` of a spilled store's `file` into `out` (cleared first); `bytes` is
/// scratch space.
fn read_from_file(
    file: &File,
    range: Range<u64>,
    out: &mut Vec<u64>,
    bytes: &mut Vec<u8>,
) -> io::Result<()> {
    bytes.clear();
    bytes.resize(((range.end - range.start) * 8) as usize, 0);
    read_exact_at(file, bytes, range.start * 8)?;
    out.clear();
    extend_from_le_bytes(out, bytes);
    Ok(())
}

/// Writes one set as little-endian bytes.
fn write_set(w: &mut impl Write, set: &[u64]) -> io::Result<()> {
    for v in set {
        w.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}

/// Reads exactly `buf.len()` bytes of `file` at `offset` with a positioned read (the file's
/// cursor is not used, so threads can read at once). Also used by `lookalike-io`'s payload store.
#[cfg(unix)]
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Reads exactly `buf.len()` bytes of `file` at `offset`: without positioned reads, a seek and a
/// read, under one process-wide lock so that concurrent readers do not move each other's cursor.
#[cfg(not(unix))]
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    seek_read_exact_at(file, buf, offset)
}

/// Writes all of `buf` to `file` at `offset` with a positioned write, as [`read_exact_at`] reads.
/// The portable half of [`read_exact_at`]: a seek, then a read (moves the file's cursor).
#[cfg_attr(unix, allow(dead_code))]
fn seek_read_exact_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positioned_and_seek_reads_agree() -> io::Result<()> {
        let mut file = tempfile::tempfile()?;
        let bytes: Vec<u8> = (0..=255).collect();
        file.write_all(&bytes)?;
        for (offset, len) in [(0, 8), (8, 64), (100, 0), (248, 8), (3, 200)] {
            let (mut a, mut b) = (vec![0; len], vec![0; len]);
            read_exact_at(&file, &mut a, offset)?;
            seek_read_exact_at(&file, &mut b, offset)?;
            assert_eq!(a, b);
            assert_eq!(a, &bytes[offset as usize..offset as usize + len]);
        }
        let mut past_the_end = [0; 8];
        assert!(read_exact_at(&file, &mut past_the_end, 250).is_err());
        assert!(seek_read_exact_at(&file, &mut past_the_end, 250).is_err());
        Ok(())
    }

    /// The slow reference: the distinct values of `values`, sorted.
    fn set_of(values: &[u64]) -> Vec<u64> {
        values.iter().copied().collect::<std::collections::BTreeSet<u64>>().into_iter().collect()
    }

    #[test]
    fn round_trip_in_any_order_in_memory_and_spilled() {
        let sets: Vec<Vec<u64>> =
            vec![vec![3, 1, 2, 1], vec![], vec![u64::MAX, 0, u64::MAX], vec![42; 1000]];
        // A budget of 100 bytes spills at the fourth set; 1 MiB never spills.
        for (budget, spilled) in [(100, true), (1 << 20, false)] {
            let mut s = ShingleStore::new(None, budget).unwrap();
            for set in &sets {
                s.push(set).unwrap();
            }
            assert!(s.sort_sets(&[1]).is_err(), "sorting needs a sealed store");
            s.seal().unwrap();
            assert_eq!(s.len(), 4);
            assert_eq!(s.disk_bytes() > 0, spilled);
            let (mut out, mut buf) = (Vec::new(), ReadBuffers::default());
            for d in [3, 0, 2, 1, 0] {
                s.read(d, &mut out, &mut buf).unwrap();
                assert_eq!(out, set_of(&sets[d]));
            }
            // Sorted in place, then sorted again (nothing to do): the same sets.
            for reads in [&[1, 0, 3, 2][..], &[1, 1, 1, 1, 5]] {
                s.sort_sets(reads).unwrap();
                for d in [3, 0, 2, 1, 0] {
                    s.read(d, &mut out, &mut buf).unwrap();
                    assert_eq!(out, set_of(&sets[d]));
                }
            }
            assert!(s.push(&[1]).is_err());
        }
    }

    /// Budgets of [`MAP_MIN`] and more keep the sets in a mapping: filled to the byte and
    /// spilled from it, every set reads back as it was pushed.
    #[test]
    fn mapped_memory_round_trips_in_memory_and_spilled() {
        // 40,000 sets of 0 to 39 values: about 6.2 MB in all.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let sets: Vec<Vec<u64>> = (0..40_000u64)
            .map(|i| {
                (0..i % 40)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x
                    })
                    .collect()
            })
            .collect();
        let total: usize = sets.iter().map(Vec::len).sum::<usize>() * 8;
        assert!(total > MAP_MIN && total < 2 * MAP_MIN);
        // Exactly the total fits without spilling; a byte less spills at the last set; MAP_MIN
        // spills half-way.
        for (budget, spilled) in [(total, false), (total - 1, true), (MAP_MIN, true)] {
            let mut s = ShingleStore::new(None, budget).unwrap();
            assert!(matches!(s.mem, Mem::Map(..)) || !cfg!(unix));
            for set in &sets {
                s.push(set).unwrap();
            }
            s.seal().unwrap();
            assert_eq!(s.disk_bytes() > 0, spilled, "budget {budget}");
            let (mut out, mut buf) = (Vec::new(), ReadBuffers::default());
            let some: Vec<usize> = (0..sets.len()).rev().step_by(7).chain([0, 1]).collect();
            for &d in &some {
                s.read(d, &mut out, &mut buf).unwrap();
                assert_eq!(out, set_of(&sets[d]), "budget {budget}, set {d}");
            }
            // Every third set sorted (into memory past the budget, in place in the mapping
            // below it): those and the others read back alike, the neighbours of each untouched.
            let third: Vec<usize> = (0..sets.len()).step_by(3).collect();
            let reads: Vec<u32> = (0..sets.len()).map(|d| u32::from(d % 3 == 0)).collect();
            s.sort_sets(&reads).unwrap();
            for &d in some.iter().chain(&third[..100]) {
                s.read(d, &mut out, &mut buf).unwrap();
                assert_eq!(out, set_of(&sets[d]), "budget {budget}, set {d} after sorting");
            }
        }
    }

    /// A spilled store keeps in memory, within its budget, the sorted sets of the documents
    /// read most (the earlier document first on ties), never one read only once, skips a set
    /// that does not fit for smaller ones that do, and reads every set back right, kept or not,
    /// also after a second call.
    #[test]
    fn a_spilled_store_keeps_the_sets_read_most_within_its_budget() {
        // Sizes 10, 20, ..., 100 values (each with repeats: 5 distinct values fewer), a budget
        // of 150 values: the store spills at the sixth set.
        let sets: Vec<Vec<u64>> = (0..10u64)
            .map(|i| (0..(i + 1) * 10).map(|v| (v * 7919 + i) % ((i + 1) * 10 - 5)).collect())
            .collect();
        let mut s = ShingleStore::new(None, 150 * 8).unwrap();
        for set in &sets {
            s.push(set).unwrap();
        }
        s.seal().unwrap();
        assert!(s.disk_bytes() > 0);
        // Read most: set 9 (100 values, fits), then 8 (90: 190 > 150, skipped), then 3 (40:
        // 140), then 1 and 5 tie (20 and 60: neither fits). Set 0 (10 values) would fit but is
        // read once, as are 4, 6 and 7; set 2 is never read.
        let reads = [1, 4, 0, 6, 1, 4, 1, 1, 7, 9];
        s.sort_sets(&reads).unwrap();
        let kept: Vec<usize> = (0..sets.len()).filter(|&d| s.sorted[d] != UNSORTED).collect();
        assert_eq!(kept, vec![3, 9]);
        let (mut out, mut buf) = (Vec::new(), ReadBuffers::default());
        for round in 0..2 {
            for (d, set) in sets.iter().enumerate() {
                s.read(d, &mut out, &mut buf).unwrap();
                assert_eq!(out, set_of(set), "round {round}, set {d}");
            }
            // A second call, every set now read often, fills the room left (10 values: set 0)
            // and keeps the sets kept before.
            s.sort_sets(&[9; 10]).unwrap();
        }
        let kept_after: Vec<usize> = (0..sets.len()).filter(|&d| s.sorted[d] != UNSORTED).collect();
        assert_eq!(kept_after, vec![0, 3, 9]);
    }

    /// Random sets with repeats, in a `Vec` (a small budget) and spilled: any subset sorted in
    /// place reads back as the sorted distinct values, as every set not sorted does.
    #[test]
    fn sorting_in_place_keeps_every_set() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let sets: Vec<Vec<u64>> = (0..300)
            .map(|_| {
                let n = next() % 200;
                // Values from a small range, so that many repeat.
                (0..n).map(|_| next() % 150).collect()
            })
            .collect();
        for budget in [1 << 20, 20_000] {
            let mut s = ShingleStore::new(None, budget).unwrap();
            for set in &sets {
                s.push(set).unwrap();
            }
            s.seal().unwrap();
            let reads: Vec<u32> = (0..sets.len()).map(|_| (next() % 4) as u32).collect();
            s.sort_sets(&reads).unwrap();
            let (mut out, mut buf) = (Vec::new(), ReadBuffers::default());
            for (d, set) in sets.iter().enumerate() {
                s.read(d, &mut out, &mut buf).unwrap();
                assert_eq!(out, set_of(set), "budget {budget}, set {d}");
            }
        }
    }
}
