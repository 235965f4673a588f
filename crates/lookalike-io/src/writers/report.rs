//! `--report`: contract: "give me every input record in input order and push me the documents'
//! fates, I write one JSON line per record, the records the readers skipped in their place".

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

use lookalike::{DocId, DocStatus, Sink};

use super::{SinkError, round6};
use crate::Origin;
use crate::skip::SkipReason;

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
        reason: SkipReason,
        /// Where it is.
        origin: Origin,
    },
    /// A file found in a directory and not read (binary, empty, a JSON document): listed with
    /// the status `ignored`, its path as id and source.
    Ignored {
        /// The file, as found under its argument.
        path: String,
        /// Why it is not read.
        reason: SkipReason,
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

    fn skipped(id: &'a str, reason: &'a SkipReason, origin: &'a Origin) -> Self {
        ReportLine { reason: Some(reason.as_str()), ..ReportLine::new(id, "skipped", origin) }
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
                    self.line(&ReportLine { reason: Some(reason.as_str()), ..line })?
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
        let pipeline;
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
                pipeline = SkipReason::from(*reason);
                ReportLine { lang, boilerplate, ..ReportLine::skipped(id, &pipeline, origin) }
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
