//! `--output`: contract: "keep every record's payload until the fates are known, then push me the
//! fates, I write the kept documents (and the skipped records) in input order".

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use lookalike::{DocId, DocStatus, Sink};

use super::SinkError;
use crate::skip::SkipReason;

/// The lines `--output` writes, one per input record, kept in a temporary file until the fates
/// are known (the file is deleted when the store is dropped, or by the OS if the process dies).
///
/// Each record is a slot, in input order: a document of the run ([`PayloadStore::push`], one per
/// document, in document order) or a record the readers skipped ([`PayloadStore::push_skipped`],
/// written in its place by a [`KeptJsonl`] that keeps skipped records).
#[derive(Debug)]
pub struct PayloadStore {
    writer: Option<BufWriter<File>>,
    file: Option<File>,
    /// `offsets[s]..offsets[s + 1]` is slot s's payload.
    offsets: Vec<u64>,
    slots: Vec<Slot>,
    /// The slot of each document.
    doc_slots: Vec<u32>,
}

/// What a slot of a [`PayloadStore`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// A document's line; `marked` when the line is a JSON object built by the caller, which
    /// gets a `"skipped"` field if the run skips the document (an original record is written as
    /// it was).
    Doc { marked: bool },
    /// A record the readers skipped: its line as the caller built it.
    Skipped,
}

impl PayloadStore {
    /// A store in `dir` (default: the system temporary directory).
    pub fn new(dir: Option<&Path>) -> io::Result<Self> {
        let file = match dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }?;
        Ok(PayloadStore {
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
            file: None,
            offsets: vec![0],
            slots: Vec::new(),
            doc_slots: Vec::new(),
        })
    }

    fn append(&mut self, payload: &[u8], slot: Slot) -> io::Result<()> {
        let w = self.writer.as_mut().ok_or_else(|| io::Error::other("payload store is sealed"))?;
        w.write_all(payload)?;
        let last = self.offsets.last().copied().unwrap_or(0);
        self.offsets.push(last + payload.len() as u64);
        self.slots.push(slot);
        Ok(())
    }

    /// Appends the line of the next document of the run: an original record (JSONL line,
    /// Parquet row) when `built` is false, or a JSON object built for the document (`{id, title,
    /// lang, text}`), which gets a `"skipped"` field when the run skips the document.
    pub fn push(&mut self, payload: &[u8], built: bool) -> io::Result<()> {
        let slot = u32::try_from(self.slots.len())
            .map_err(|_| io::Error::other("more than 2^32 records in the payload store"))?;
        self.doc_slots.push(slot);
        self.append(payload, Slot::Doc { marked: built })
    }

    /// Appends the line of a record the readers skipped (it never becomes a document), in input
    /// order between the documents.
    pub fn push_skipped(&mut self, payload: &[u8]) -> io::Result<()> {
        self.append(payload, Slot::Skipped)
    }

    /// Ends writing; payloads can be read from now on.
    fn seal(&mut self) -> io::Result<&File> {
        if let Some(w) = self.writer.take() {
            self.file = Some(w.into_inner().map_err(|e| e.into_error())?);
        }
        self.file.as_ref().ok_or_else(|| io::Error::other("payload store is not sealed"))
    }

    /// Reads slot `slot` into `buf`.
    fn read(&mut self, slot: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        let (lo, hi) = (self.offsets[slot], self.offsets[slot + 1]);
        buf.resize((hi - lo) as usize, 0);
        let file = self.seal()?;
        lookalike::store::read_exact_at(file, buf, lo)
    }
}

/// The deduplicated collection, one line per record in input order: every kept document, and
/// (unless [`KeptJsonl::keep_skipped`] turns it off) every record that was skipped, so that
/// rewriting a file with its own deduplicated version loses only the duplicates.
///
/// A kept document's line is its payload as stored. A skipped record's line is the original
/// record when there was one (JSONL line, Parquet row), or the built object with a
/// `"skipped": reason` field added.
#[derive(Debug)]
pub struct KeptJsonl<W> {
    out: W,
    store: PayloadStore,
    buf: Vec<u8>,
    kept: u64,
    skipped: u64,
    keep_skipped: bool,
    /// The next slot not written or passed over.
    next: usize,
}

impl<W: Write> KeptJsonl<W> {
    /// A sink writing the payloads of `store` to `out` (skipped records included).
    pub fn new(out: W, store: PayloadStore) -> Self {
        KeptJsonl { out, store, buf: Vec::new(), kept: 0, skipped: 0, keep_skipped: true, next: 0 }
    }

    /// Whether skipped records are written (default: yes).
    pub fn keep_skipped(mut self, keep: bool) -> Self {
        self.keep_skipped = keep;
        self
    }

    /// Kept documents written so far.
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// Skipped records written so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn write_slot(&mut self, slot: usize, skipped: Option<&SkipReason>) -> io::Result<()> {
        self.store.read(slot, &mut self.buf)?;
        match skipped {
            Some(reason) if self.store.slots[slot] == (Slot::Doc { marked: true }) => {
                // A built object: `{...}` becomes `{...,"skipped":reason}`.
                let body = self.buf.trim_ascii_end();
                let body = body.strip_suffix(b"}").unwrap_or(body);
                self.out.write_all(body)?;
                if body.trim_ascii_end() != b"{" {
                    self.out.write_all(b",")?;
                }
                self.out.write_all(b"\"skipped\":")?;
                serde_json::to_writer(&mut self.out, reason).map_err(io::Error::from)?;
                self.out.write_all(b"}")?;
            }
            _ => self.out.write_all(&self.buf)?,
        }
        self.out.write_all(b"\n")
    }

    /// Writes (or passes over) the reader-skipped records before slot `until`.
    fn skipped_until(&mut self, until: usize) -> io::Result<()> {
        while self.next < until {
            let slot = self.next;
            self.next += 1;
            if self.keep_skipped && self.store.slots[slot] == Slot::Skipped {
                self.write_slot(slot, None)?;
                self.skipped += 1;
            }
        }
        Ok(())
    }
}

impl<W: Write> Sink for KeptJsonl<W> {
    type Error = SinkError;

    fn document(
        &mut self,
        _ids: &[String],
        doc: DocId,
        status: &DocStatus,
    ) -> Result<bool, SinkError> {
        let slot = self.store.doc_slots[doc.index()] as usize;
        self.skipped_until(slot)?;
        self.next = slot + 1;
        match status {
            DocStatus::Kept => {
                self.write_slot(slot, None)?;
                self.kept += 1;
            }
            DocStatus::Skipped { reason } if self.keep_skipped => {
                self.write_slot(slot, Some(&SkipReason::from(*reason)))?;
                self.skipped += 1;
            }
            _ => {}
        }
        Ok(true)
    }

    /// Writes the reader-skipped records after the last document.
    fn finish(&mut self) -> Result<(), SinkError> {
        self.skipped_until(self.store.slots.len())?;
        Ok(self.out.flush()?)
    }
}
