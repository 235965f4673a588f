//! The output formats of `lookalike dedup` as [`lookalike::Sink`]s. Contract: "push me a run's
//! pairs, clusters and document fates; I write them as TSV or JSON Lines as they come".
//!
//! - [`PairsTsv`]: `id1<TAB>id2<TAB>similarity` per verified pair (the lecture's homework format;
//!   containment pairs contained-first; SimHash adds the Hamming distance and the cosine estimate);
//! - [`ClustersJsonl`]: one JSON line per cluster, the representative and every member with its
//!   similarity to it and how it matched;
//! - [`ReportJsonl`]: one JSON line per input record, in input order, including the records the
//!   readers skipped ([`ReportEntry`]), each with its input and its line, row or WARC record
//!   number;
//! - [`KeptJsonl`]: the deduplicated collection: the kept documents' payloads (the original
//!   JSONL/Parquet record, or `{id, title, lang, text}`) and the skipped records, kept on disk by
//!   a [`PayloadStore`] until the fates are known.
//!
//! ```
//! use lookalike::{Dedup, Document, MethodKind};
//! use lookalike_io::PairsTsv;
//!
//! let dedup = Dedup::builder().method(MethodKind::MinHash).threshold(0.5).build()?;
//! let mut run = dedup.start()?;
//! run.add(vec![
//!     Document::from_text("a", "near duplicate detection finds documents that are almost the same"),
//!     Document::from_text("b", "Near-duplicate detection finds documents that are almost the same."),
//! ])?;
//! let mut pairs = PairsTsv::new(Vec::new());
//! run.finish_into(&mut pairs)?;
//! assert_eq!(String::from_utf8(pairs.into_inner()).unwrap(), "a\tb\t1.000000\n");
//! # Ok::<(), lookalike_io::SinkError>(())
//! ```

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use lookalike::{Cluster, Contained, DocId, DocStatus, ScoredPair, Sink};

use crate::Origin;

/// An error of a sink: writing failed, or the run itself failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SinkError {
    /// Writing the output failed.
    #[error("{0}")]
    Write(#[from] io::Error),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] lookalike::Error),
}

/// Ids in TSV: tabs and line breaks would break the format, so they are escaped.
fn tsv_escape(id: &str) -> std::borrow::Cow<'_, str> {
    // Every byte looked at, without an early exit, so the test is vectorized: ids are long URLs
    // and paths, two per pair and over a million pairs on a documentation collection, and the
    // search for four chars went one char at a time (8x slower on 80-byte paths in a scratch
    // program).
    let special = id.bytes().fold(false, |any, b| any | matches!(b, b'\t' | b'\n' | b'\r' | b'\\'));
    if special {
        id.replace('\\', "\\\\")
            .replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .into()
    } else {
        id.into()
    }
}

/// `x` as `{:.6}` writes it. Exact copies, most pairs of a crawl or a manual collection, are 1,
/// for which the formatter's exact-precision path falls back to its big-number algorithm (2-3x
/// the cost of other values in a scratch program): written here as the formatter would.
fn write_fixed6(out: &mut impl Write, x: f64) -> std::io::Result<()> {
    if x == 1.0 { out.write_all(b"1.000000") } else { write!(out, "{x:.6}") }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// `id1<TAB>id2<TAB>similarity`, one line per verified pair. Containment pairs are written
/// contained-first: `A<TAB>B<TAB>c(A,B)` means A ⊂ B with containment c(A, B) = |A∩B|/|A|.
/// SimHash pairs get two more columns: the Hamming distance h and the cosine estimate cos(π·h/64).
#[derive(Debug)]
pub struct PairsTsv<W> {
    out: W,
}

impl<W: Write> PairsTsv<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Self {
        PairsTsv { out }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for PairsTsv<W> {
    type Error = SinkError;

    fn pair(&mut self, ids: &[String], p: &ScoredPair) -> Result<bool, SinkError> {
        let (first, second) = match p.contained {
            Some(Contained::BInA) => (p.b, p.a),
            Some(Contained::AInB) | None => (p.a, p.b),
        };
        let out = &mut self.out;
        out.write_all(tsv_escape(&ids[first.index()]).as_bytes())?;
        out.write_all(b"\t")?;
        out.write_all(tsv_escape(&ids[second.index()]).as_bytes())?;
        out.write_all(b"\t")?;
        write_fixed6(out, p.similarity)?;
        if let Some(h) = p.hamming {
            write!(out, "\t{h}\t{:.6}", lookalike::sketch::simhash::cosine_estimate(h))?;
        }
        out.write_all(b"\n")?;
        Ok(true)
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        Ok(self.out.flush()?)
    }
}

#[derive(serde::Serialize)]
struct ClusterLine<'a> {
    cluster: usize,
    size: usize,
    representative: &'a str,
    members: Vec<MemberLine<'a>>,
}

#[derive(serde::Serialize)]
struct MemberLine<'a> {
    id: &'a str,
    similarity: f64,
    #[serde(rename = "match")]
    kind: &'static str,
}

/// One JSON line per cluster, numbered from 0: the representative, then every other member with
/// its similarity to the representative and how it matched (`exact-bytes`, `exact-text`, `near`).
#[derive(Debug)]
pub struct ClustersJsonl<W> {
    out: W,
    next: usize,
}

impl<W: Write> ClustersJsonl<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Self {
        ClustersJsonl { out, next: 0 }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for ClustersJsonl<W> {
    type Error = SinkError;

    fn cluster(&mut self, ids: &[String], c: &Cluster) -> Result<bool, SinkError> {
        let line = ClusterLine {
            cluster: self.next,
            size: c.members.len() + 1,
            representative: &ids[c.representative.index()],
            members: c
                .members
                .iter()
                .map(|m| MemberLine {
                    id: &ids[m.doc.index()],
                    similarity: round6(m.similarity),
                    kind: m.kind.as_str(),
                })
                .collect(),
        };
        self.next += 1;
        serde_json::to_writer(&mut self.out, &line).map_err(io::Error::from)?;
        self.out.write_all(b"\n")?;
        Ok(true)
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        Ok(self.out.flush()?)
    }
}

/// What site boilerplate removal did to one document (`--report`'s `boilerplate` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct BoilerplateRemoved {
    /// The text compared: `main` (the main content) or `visible` (all the visible text: the main
    /// content was the site's template).
    pub source: &'static str,
    /// Bytes of template lines removed from it.
    pub removed_bytes: u64,
    /// Its bytes before the removal.
    pub before_bytes: u64,
}

/// One input record of the report, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportEntry {
    /// A document that reached the pipeline, by its pipeline index, with its language.
    Doc {
        /// Its index in the run.
        index: DocId,
        /// Its detected language.
        lang: Option<&'static str>,
        /// What site boilerplate removal took out of its text, when it ran on the document.
        boilerplate: Option<BoilerplateRemoved>,
    },
    /// A record the reader could not turn into a document.
    Skipped {
        /// Its id.
        id: String,
        /// Why.
        reason: String,
        /// Where it is.
        origin: Origin,
    },
    /// A file found in a directory and not read (binary, empty, a JSON document): listed with
    /// the status `ignored`, its path as id and source.
    Ignored {
        /// The file, as found under its argument.
        path: String,
        /// Why it is not read.
        reason: String,
    },
}

#[derive(serde::Serialize)]
struct ReportLine<'a> {
    id: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    lang: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    of: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    /// Lexical methods: why the document has no signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    unsigned: Option<&'a str>,
    /// The input the record is in.
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    row: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<u64>,
    /// Site boilerplate removal: what it took out of the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    boilerplate: Option<BoilerplateRemoved>,
}

impl<'a> ReportLine<'a> {
    /// A line with the id, status and origin; the rest empty.
    fn new(id: &'a str, status: &'static str, origin: &'a Origin) -> Self {
        let (line, row, record) = origin.position.fields();
        ReportLine {
            id,
            status,
            lang: None,
            of: None,
            similarity: None,
            kind: None,
            reason: None,
            unsigned: None,
            source: &origin.source,
            line,
            row,
            record,
            boilerplate: None,
        }
    }

    fn skipped(id: &'a str, reason: &'a str, origin: &'a Origin) -> Self {
        ReportLine { reason: Some(reason), ..ReportLine::new(id, "skipped", origin) }
    }
}

/// One JSON line per input record, in input order: `kept`, `duplicate` (with the representative,
/// the similarity and the match kind) or `skipped` (with the reason; `ignored` for a file found in
/// a directory and not read, [`ReportEntry::Ignored`]), the language, and for the
/// lexical methods why a kept document has no signature; then where the record is: `source` (the
/// input) and `line` (JSONL), `row` (Parquet) or `record` (the WARC record's number), none for a
/// whole file. Records the readers skipped are given as [`ReportEntry::Skipped`] among the
/// documents' [`ReportEntry::Doc`] entries.
///
/// ```text
/// {"id":"a","status":"kept","source":"in.jsonl","line":1}
/// {"id":"http://x/","status":"skipped","reason":"HTTP status: 404 Not Found","source":"c.warc","record":4}
/// ```
#[derive(Debug)]
pub struct ReportJsonl<W> {
    out: W,
    entries: Vec<ReportEntry>,
    origins: Arc<[Origin]>,
    next: usize,
    unsigned: HashMap<DocId, String>,
    /// One line, serialized here and written at once (serializing into the writer called it for
    /// every field and quote).
    buf: Vec<u8>,
}

impl<W: Write> ReportJsonl<W> {
    /// A sink writing to `out`; `entries` lists every input record in input order, `origins`
    /// where each document of the run is (by [`DocId`]).
    pub fn new(out: W, entries: Vec<ReportEntry>, origins: Arc<[Origin]>) -> Self {
        ReportJsonl { out, entries, origins, next: 0, unsigned: HashMap::new(), buf: Vec::new() }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn line(&mut self, line: &ReportLine<'_>) -> io::Result<()> {
        write_line(&mut self.out, &mut self.buf, line)
    }

    /// Writes the reader-skipped records up to the next document entry.
    #[allow(clippy::type_complexity)]
    fn skipped_until_doc(
        &mut self,
    ) -> io::Result<Option<(Option<&'static str>, Option<BoilerplateRemoved>)>> {
        while self.next < self.entries.len() {
            let entry = std::mem::replace(
                &mut self.entries[self.next],
                ReportEntry::Doc { index: DocId(u32::MAX), lang: None, boilerplate: None },
            );
            self.next += 1;
            match entry {
                ReportEntry::Skipped { id, reason, origin } => {
                    self.line(&ReportLine::skipped(&id, &reason, &origin))?
                }
                ReportEntry::Ignored { path, reason } => {
                    let origin = Origin::whole(path.as_str());
                    let line = ReportLine::new(&path, "ignored", &origin);
                    self.line(&ReportLine { reason: Some(&reason), ..line })?
                }
                ReportEntry::Doc { lang, boilerplate, .. } => return Ok(Some((lang, boilerplate))),
            }
        }
        Ok(None)
    }
}

impl<W: Write> Sink for ReportJsonl<W> {
    type Error = SinkError;

    fn unsigned(&mut self, _ids: &[String], doc: DocId, reason: &str) -> Result<bool, SinkError> {
        self.unsigned.insert(doc, reason.to_owned());
        Ok(true)
    }

    fn document(
        &mut self,
        ids: &[String],
        doc: DocId,
        status: &DocStatus,
    ) -> Result<bool, SinkError> {
        let (lang, boilerplate) = self.skipped_until_doc()?.unwrap_or((None, None));
        let id = &ids[doc.index()];
        let unsigned = self.unsigned.get(&doc).map(String::as_str);
        let origin = &self.origins[doc.index()];
        let line = match status {
            DocStatus::Kept => {
                ReportLine { lang, unsigned, boilerplate, ..ReportLine::new(id, "kept", origin) }
            }
            DocStatus::Duplicate { of, similarity, kind } => ReportLine {
                lang,
                boilerplate,
                of: Some(&ids[of.index()]),
                similarity: Some(round6(*similarity)),
                kind: Some(kind.as_str()),
                unsigned,
                ..ReportLine::new(id, "duplicate", origin)
            },
            DocStatus::Skipped { reason } => {
                ReportLine { lang, boilerplate, ..ReportLine::skipped(id, reason.as_str(), origin) }
            }
        };
        write_line(&mut self.out, &mut self.buf, &line)?;
        Ok(true)
    }

    /// Writes the reader-skipped records after the last document.
    fn finish(&mut self) -> Result<(), SinkError> {
        while self.skipped_until_doc()?.is_some() {}
        Ok(self.out.flush()?)
    }
}

/// Writes `line` and a newline to `out` in one call, serialized in `buf` (scratch space).
fn write_line(out: &mut impl Write, buf: &mut Vec<u8>, line: &ReportLine<'_>) -> io::Result<()> {
    buf.clear();
    serde_json::to_writer(&mut *buf, line).map_err(io::Error::from)?;
    buf.push(b'\n');
    out.write_all(buf)
}

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

    fn write_slot(&mut self, slot: usize, skipped: Option<&str>) -> io::Result<()> {
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
                self.write_slot(slot, Some(reason.as_str()))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_ids_are_escaped() {
        assert_eq!(tsv_escape("a\tb\nc\\d\r"), "a\\tb\\nc\\\\d\\r");
        assert_eq!(tsv_escape("plain"), "plain");
        for special in ['\t', '\n', '\r', '\\'] {
            for at in [0, 1, 40, 79] {
                let mut id = "x".repeat(80);
                id.replace_range(at..at + 1, &special.to_string());
                assert_ne!(tsv_escape(&id), id, "{special:?} at {at}");
                assert!(!tsv_escape(&id).contains(special) || special == '\\');
            }
        }
        for x in [1.0, 0.0, 0.5, 0.8, 0.904918, 1.0 / 3.0, 0.9999995, 0.8000005, 1.0 - 1e-12] {
            let mut buf = Vec::new();
            write_fixed6(&mut buf, x).unwrap();
            assert_eq!(String::from_utf8(buf).unwrap(), format!("{x:.6}"));
        }
    }
}
