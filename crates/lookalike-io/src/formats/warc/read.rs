//! Reading WARC files: contract: "give me a (decompressed) WARC stream, I give you one raw record
//! per WARC record, in order, holding at most one record in memory, and an error naming the record
//! and its offset for every part I cannot read".
//!
//! The reading rules, ids and error messages are documented on [`WarcReader`].

use std::collections::HashSet;
use std::fmt;
use std::io::Read;
use std::sync::Arc;

use lookalike::fingerprint::raw_fingerprint;
use memchr::memmem;

use super::header::{header_end, header_lines};
use crate::error::InputError;
use crate::format::Format;
use crate::framed::{Framed, Search, Step, Stop};
use crate::record::{RawRecord, WarcHeader};
use crate::skip::SkipReason;

/// The longest WARC header block read; a longer one is reported and skipped.
const MAX_HEADER: usize = 32 << 10;

/// Reads the records of one WARC stream (already decompressed; [`crate::Reader`] undoes gzip,
/// per record or per file alike). Yields a [`RawRecord`] of format [`Format::Warc`] for every
/// record that was started, or an [`InputError`] for bytes that are not part of one; after a
/// read error of the input itself, it ends.
///
/// # Reading
///
/// A record is a header block (`WARC/1.0`, `WARC/1.1` or the older `WARC/0.18` of ClueWeb09,
/// then `Name: value` lines, then an empty line), then exactly `Content-Length` bytes of content
/// block, then a separator. Lines may end in CRLF (the standard) or LF (ClueWeb09). The
/// separator should be two CRLFs; ClueWeb09 counts it inside the block instead, so any run of CR
/// and LF bytes between records is accepted.
///
/// The reader reads the header, then the block: a `response` block up to the reader's record
/// limit is kept; every other block is read past without being kept. Every record that was
/// started becomes exactly one [`RawRecord`] with a [`WarcHeader`], so that every record is
/// accounted for: the decoder turns records that hold no document into a skip with the reason
/// the header gives (`WARC request record`, `WARC record larger than the 268435456-byte limit:
/// 300000000 bytes`), and so are records lost to bad framing or to damaged input
/// ([`WarcHeader::skip`]; the record's id is its target URI when the header got that far):
/// - `truncated WARC record: ...`: the input ends inside the header or the block;
/// - `corrupt gzip data: ...`: a gzip member that held part of the record is corrupt or cut
///   short (see [`crate::GzipGap`]: reading goes on at the next gzip member);
/// - `bad WARC header: ...`: no valid `Content-Length`, or a header longer than 32 KiB;
/// - `wrong WARC Content-Length: ...`: the block is not followed by a separator and the next
///   record. When a `WARC/` header is found inside the block, the length was too long: the
///   record is cut there and reading goes on from that header (nothing after it is lost).
///   Otherwise the length was too short (or garbage follows): the bytes up to the next line that
///   starts with `WARC/` are skipped.
///
/// Errors ([`InputError`]s naming the input and the offset, in the decompressed stream, and
/// the record before): bytes where a record should start that are not `WARC/` (garbage before
/// the first record, or between records), skipped up to the next line that starts with `WARC/`;
/// a corrupt gzip member between records; a read error of the input, after which the rest of the
/// input is not read.
///
/// # Ids
///
/// The id of a `response` record is its `WARC-Target-URI` (angle brackets removed). When the
/// same URI was already the id of an earlier response of the same input, the id is
/// `URI#WARC-Record-ID` (the record id without its angle brackets, e.g.
/// `http://a.example/#urn:uuid:67f7cabd-...`), or `URI#record-N` (N is the record's number)
/// when the record has no id or that id was taken too. These ids are stable (they do not depend
/// on reading order across inputs or on threads) and unique within an input. Records of other
/// types, and responses without a URI, are `SOURCE#record-N`, `SOURCE` being the input's name.
///
/// # Decoding a response
///
/// The block must be an HTTP response (`application/http` or starting with `HTTP/`; other
/// responses, such as `text/dns`, are skipped). Non-2xx statuses are skipped (`HTTP status: 404
/// Not Found`): redirects and error pages are not documents. A `chunked` transfer coding and a
/// `gzip`, `x-gzip` or `deflate` content coding are undone when the payload is actually encoded
/// that way: many crawlers, Common Crawl included, store the decoded payload and keep the
/// header. A chunked payload whose framing breaks (a chunk size that is not a hexadecimal
/// number, a chunk cut short) gets a warning, and what follows the break is kept as stored. The
/// payload is then classified by its HTTP `Content-Type` and its first bytes:
/// HTML (`text/html`, `application/xhtml+xml`) and plain text are documents; images, PDFs,
/// archives, fonts and anything else whose magic bytes or control bytes say binary are skipped as
/// `binary payload: image/png`; textual non-documents (CSS, JavaScript, JSON, XML feeds) as
/// `not a document: text/css`; a missing or generic type is sniffed. The charset is the BOM's,
/// else the HTTP `Content-Type`'s, else a `<meta>` declaration's, else detected (with the URL's
/// top-level domain as a hint), as [`crate::decode`] describes.
///
/// # Example
///
/// ```
/// use lookalike_io::{Decoded, ReadOptions, WarcReader, decode};
///
/// let block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>Hello";
/// let warc = format!(
///     "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\n\
///      Content-Length: {}\r\n\r\n{block}\r\n\r\n",
///     block.len()
/// );
/// let mut records = WarcReader::new("mem.warc", warc.as_bytes());
/// let record = records.next().unwrap()?;
/// match decode(&record, &ReadOptions::default()) {
///     Decoded::Doc { doc, charset, .. } => {
///         assert_eq!((doc.id.as_str(), doc.text.as_str(), charset), ("http://a.example/", "Hello", "UTF-8"));
///     }
///     other => panic!("{other:?}"),
/// }
/// assert!(records.next().is_none());
/// # Ok::<(), lookalike_io::InputError>(())
/// ```
pub struct WarcReader<R> {
    framed: Framed<R>,
    /// Fingerprints of the ids given to responses so far.
    ids: HashSet<u128>,
}

impl<R> fmt::Debug for WarcReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarcReader")
            .field("source", &self.framed.source)
            .field("records", &self.framed.records)
            .field("max_record_bytes", &self.framed.max_record_bytes)
            .field("finished", &self.framed.finished)
            .finish_non_exhaustive()
    }
}

/// Blocks of records other than responses are kept (to look for a record inside them when their
/// length turns out wrong) up to this size.
const MAX_KEPT_OTHER_BLOCK: u64 = 1 << 20;

impl<R: Read> WarcReader<R> {
    /// A reader of the WARC records in `stream`; `source` names the input in records and errors.
    pub fn new(source: impl Into<Arc<str>>, stream: R) -> WarcReader<R> {
        WarcReader { framed: Framed::new(source.into(), stream), ids: HashSet::new() }
    }

    /// Sets the largest response block kept in memory (default [`MAX_RECORD_BYTES`]); a larger
    /// one is read past and its record skipped with a reason.
    ///
    /// [`MAX_RECORD_BYTES`]: crate::MAX_RECORD_BYTES
    pub fn with_max_record_bytes(mut self, max: u64) -> WarcReader<R> {
        self.framed.max_record_bytes = max;
        self
    }

    /// Read errors are reported as gzip errors (the stream was decompressed).
    pub(crate) fn with_compressed(mut self, compressed: bool) -> WarcReader<R> {
        self.framed.compressed = compressed;
        self
    }

    fn step(&mut self) -> Step {
        // Separators: any CR and LF between records.
        loop {
            let avail = self.framed.input.fill(1);
            if avail.is_empty() {
                return self.framed.end_between_records();
            }
            let blank = avail.iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
            if blank == 0 {
                break;
            }
            self.framed.input.consume(blank);
        }
        if !self.framed.input.fill(5).starts_with(b"WARC/") {
            return self.garbage();
        }

        let offset = self.framed.input.offset();
        self.framed.records += 1;
        let number = self.framed.records;
        let avail = self.framed.input.fill(MAX_HEADER);
        let (fields, header_len) = match header_end(&avail[..avail.len().min(MAX_HEADER)]) {
            Some(end) => (Fields::parse(&avail[..end]), end),
            None if avail.len() < MAX_HEADER => {
                // The input (or a gzip member) ends inside the header: its complete lines
                // still tell the record's URI.
                let complete = avail.iter().rposition(|&b| b == b'\n').map_or(0, |nl| nl + 1);
                let fields = Fields::parse(&avail[..complete]);
                let len = avail.len();
                self.framed.input.consume(len);
                let reason = match self.framed.stop() {
                    Stop::End => SkipReason::damaged(
                        "truncated WARC record: the input ends inside its header",
                    ),
                    Stop::Gap(gap) => {
                        SkipReason::damaged(format!("corrupt gzip data in the WARC header: {gap}"))
                    }
                    Stop::Failed(e) => SkipReason::damaged(format!(
                        "truncated WARC record: {}",
                        self.framed.read_error(&e)
                    )),
                };
                return self.lost(number, offset, fields, 0, reason);
            }
            None => {
                self.framed.input.consume(5);
                let skipped = self.resync_description();
                let reason = SkipReason::damaged(format!(
                    "bad WARC header: longer than {} KiB; skipped {skipped}",
                    MAX_HEADER >> 10
                ));
                return self.lost(number, offset, Fields::default(), 0, reason);
            }
        };
        self.framed.input.consume(header_len);
        let Some(length) = fields.content_length else {
            let skipped = self.resync_description();
            let reason = SkipReason::damaged(format!(
                "bad WARC header: no valid Content-Length; skipped {skipped}"
            ));
            return self.lost(number, offset, fields, 0, reason);
        };

        let kind = fields.kind.clone().unwrap_or_default();
        let is_response = kind == "response";
        let skip = if !is_response {
            Some(if kind.is_empty() {
                SkipReason::damaged("WARC record without a WARC-Type")
            } else {
                SkipReason::warc_record_type(&kind)
            })
        } else if length > self.framed.max_record_bytes {
            Some(SkipReason::too_large(format!(
                "WARC record larger than the {}-byte limit: {length} bytes",
                self.framed.max_record_bytes
            )))
        } else {
            None
        };

        // Kept: a response's block for the decoder; a small block of another record, to look
        // for a record inside it should its length be wrong.
        let keep =
            skip.is_none() || length <= MAX_KEPT_OTHER_BLOCK.min(self.framed.max_record_bytes);
        let mut bytes = Vec::new();
        if keep {
            bytes.reserve(length.min(1 << 20) as usize);
        }
        let block_start = self.framed.input.offset();
        let got = self.framed.input.copy(length, keep.then_some(&mut bytes));
        if got < length {
            if keep && let Some(at) = embedded_record(&bytes, &[]) {
                return self.cut(number, offset, fields, length, bytes, at);
            }
            let reason = match self.framed.stop() {
                Stop::End => SkipReason::damaged(format!(
                    "truncated WARC record: the Content-Length is {length} bytes, the input ends \
                     after {got} of them"
                )),
                Stop::Gap(gap) => SkipReason::corrupt_gzip_in_record(gap),
                Stop::Failed(e) => SkipReason::damaged(format!(
                    "truncated WARC record: {}",
                    self.framed.read_error(&e)
                )),
            };
            return self.lost(number, offset, fields, length, reason);
        }

        // The block must be followed by a separator and the next record (or the end).
        let block_end = block_start + length;
        let mut separator = 0;
        loop {
            let avail = self.framed.input.fill(1);
            let blank = avail.iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
            if blank == 0 {
                break;
            }
            separator += blank;
            self.framed.input.consume(blank);
        }
        let next = self.framed.input.fill(5);
        if next.is_empty() {
            // The end, or a gzip gap that damaged the record.
            if let Some(gap) = self.framed.damaging_gap(block_end) {
                let reason = SkipReason::corrupt_gzip_in_record(gap);
                return self.lost(number, offset, fields, length, reason);
            }
        } else if !next.starts_with(b"WARC/") {
            if keep && let Some(at) = embedded_record(&bytes, self.framed.input.fill(MAX_HEADER)) {
                return self.cut(number, offset, fields, length, bytes, at);
            }
            // The block ended where its length said, with the separator after it: the record is
            // whole, and what follows is garbage between records, reported and skipped by the
            // next step (a stray byte there lost this record and the next).
            if separator >= 2 {
                if !is_response {
                    bytes = Vec::new();
                }
                let header = self.header(number, offset, fields, kind, is_response, length, skip);
                return Step::Record(self.record(bytes, header));
            }
            let (skipped, found) = self.resync();
            let to = if found {
                format!("the next record, at offset {}", self.framed.input.offset())
            } else {
                match self.framed.stop() {
                    Stop::End => "the end".to_owned(),
                    // The member that held the record is damaged: that is the cause.
                    Stop::Gap(gap) if gap.damages_before(block_end) => {
                        let reason = SkipReason::corrupt_gzip_in_record(gap);
                        return self.lost(number, offset, fields, length, reason);
                    }
                    Stop::Gap(gap) => format!("a gzip gap: {gap}"),
                    Stop::Failed(e) => {
                        format!("a read error: {}", self.framed.read_error(&e))
                    }
                }
            };
            let reason = SkipReason::damaged(format!(
                "wrong WARC Content-Length: the {length}-byte block is followed by {skipped} bytes \
                 that are not a WARC record (a Content-Length too short?); skipped to {to}"
            ));
            return self.lost(number, offset, fields, length, reason);
        }

        if !is_response {
            bytes = Vec::new();
        }
        let header = self.header(number, offset, fields, kind, is_response, length, skip);
        Step::Record(self.record(bytes, header))
    }

    /// Bytes where a record should start that are not `WARC/`: skipped to the next line that
    /// starts with `WARC/`, reported.
    fn garbage(&mut self) -> Step {
        let at = self.framed.input.offset();
        let after = self.framed.after_last();
        let what = format!("bytes at offset {at} ({after}) are not a WARC record");
        let (skipped, found) = self.resync();
        if found {
            return Step::Error(self.framed.error(format!(
                "{skipped} {what} (a wrong Content-Length?); skipped to the next record, at \
                 offset {}",
                self.framed.input.offset()
            )));
        }
        match self.framed.stop() {
            Stop::End => {
                Step::Error(self.framed.error(format!("{skipped} {what}; skipped to the end")))
            }
            Stop::Gap(gap) => {
                Step::Error(self.framed.error(format!("{skipped} {what}; then {gap}")))
            }
            Stop::Failed(e) => Step::Fatal(self.framed.error(format!(
                "{skipped} {what}; then at offset {}: {}",
                self.framed.input.offset(),
                self.framed.read_error(&e)
            ))),
        }
    }

    /// A record whose `Content-Length` is too long: another record starts `at` bytes into its
    /// (partly read) block. The bytes from there are read again; the record is lost.
    fn cut(
        &mut self,
        number: u64,
        offset: u64,
        fields: Fields,
        length: u64,
        bytes: Vec<u8>,
        at: usize,
    ) -> Step {
        self.framed.input.unread(&bytes[at..]);
        let reason = SkipReason::damaged(format!(
            "wrong WARC Content-Length: {length} bytes is too long: the next record starts {at} \
             bytes into the block, at offset {}; the record was cut there",
            self.framed.input.offset()
        ));
        self.lost(number, offset, fields, length, reason)
    }

    /// A record that was started but holds no document because of `reason`.
    fn lost(
        &mut self,
        number: u64,
        offset: u64,
        fields: Fields,
        length: u64,
        reason: SkipReason,
    ) -> Step {
        let kind = fields.kind.clone().unwrap_or_default();
        let is_response = kind == "response";
        let length = length.max(fields.content_length.unwrap_or(0));
        let header = self.header(number, offset, fields, kind, is_response, length, Some(reason));
        Step::Record(self.record(Vec::new(), header))
    }

    /// The header of record `number` from its parsed fields.
    #[allow(clippy::too_many_arguments)]
    fn header(
        &mut self,
        number: u64,
        offset: u64,
        fields: Fields,
        kind: String,
        is_response: bool,
        length: u64,
        skip: Option<SkipReason>,
    ) -> WarcHeader {
        let id = self.record_id(&fields, is_response, number);
        WarcHeader {
            number,
            offset,
            version: fields.version,
            kind,
            id,
            target_uri: fields.target_uri,
            record_id: fields.record_id,
            content_type: fields.content_type,
            truncated: fields.truncated,
            length,
            skip,
        }
    }

    fn record(&self, bytes: Vec<u8>, header: WarcHeader) -> RawRecord {
        RawRecord {
            source: self.framed.source.clone(),
            line: None,
            format: Format::Warc,
            bytes,
            warc: Some(Box::new(header)),
        }
    }

    fn record_id(&mut self, fields: &Fields, is_response: bool, number: u64) -> String {
        match (&fields.target_uri, is_response) {
            (Some(uri), true) => self.unique_id(uri, fields.record_id.as_deref(), number),
            _ => format!("{}#record-{number}", self.framed.source),
        }
    }

    /// The id of a response: its URI, or the URI with a suffix when an earlier response of this
    /// input had it.
    fn unique_id(&mut self, uri: &str, record_id: Option<&str>, number: u64) -> String {
        let record_id = record_id.map(|r| r.trim_start_matches('<').trim_end_matches('>'));
        let candidates = [
            Some(uri.to_owned()),
            record_id.filter(|r| !r.is_empty()).map(|r| format!("{uri}#{r}")),
            Some(format!("{uri}#record-{number}")),
        ];
        let mut last = String::new();
        for id in candidates.into_iter().flatten() {
            if self.ids.insert(raw_fingerprint(id.as_bytes())) {
                return id;
            }
            last = id;
        }
        // Only a URI that itself ends in `#record-N` can get here.
        last
    }

    /// Skips to the next record header: a line that starts with `WARC/`, or a `WARC/` with a
    /// version and a line end after it anywhere (garbage written without a newline before the
    /// next record must not hide it). Returns the number of bytes skipped and whether such a
    /// header was found (else the input is at its end, or an error stopped it).
    fn resync(&mut self) -> (u64, bool) {
        self.framed.resync(MAX_HEADER.min(64), |avail| {
            if avail.len() < 6 {
                return Search::End(avail.len());
            }
            let found = memmem::find_iter(avail, b"WARC/")
                .find(|&at| (at > 0 && avail[at - 1] == b'\n') || version_line(&avail[at..]));
            match found {
                Some(at) => Search::Found(at),
                // Keep the last bytes: a header may begin in them.
                None => Search::Skip(avail.len().saturating_sub(16).max(1)),
            }
        })
    }

    /// [`Self::resync`] after a bad header, described for the skip reason; a gzip gap met on
    /// the way is passed over (the reason says so).
    fn resync_description(&mut self) -> String {
        let (skipped, found) = self.resync();
        self.framed.skipped_to(&format!("{skipped} more bytes"), found)
    }
}

/// Whether `rest` (which starts with `WARC/`) goes on with a version (`1.0`, `0.18`) and a line
/// end: a record header, even where no newline came before it.
fn version_line(rest: &[u8]) -> bool {
    let Some(line) = rest.get(5..).map(|r| &r[..r.len().min(12)]) else { return false };
    let end = line.iter().position(|&b| b == b'\r' || b == b'\n');
    let Some(end) = end else { return false };
    let version = &line[..end];
    let Some(dot) = version.iter().position(|&b| b == b'.') else { return false };
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    digits(&version[..dot]) && digits(&version[dot + 1..])
}

/// Where a WARC record starts inside `block` (a line that starts with a `WARC/1.0`-like version
/// and a complete header with a valid `Content-Length`, which may go on into `after`, the bytes
/// that follow the block), if one does.
fn embedded_record(block: &[u8], after: &[u8]) -> Option<usize> {
    let mut starts =
        std::iter::once(0).chain(memmem::find_iter(block, b"\nWARC/").map(|nl| nl + 1));
    starts.find(|&at| {
        let rest = &block[at..];
        if !rest.starts_with(b"WARC/") {
            return false;
        }
        let joined;
        let window = if rest.len() >= MAX_HEADER {
            &rest[..MAX_HEADER]
        } else {
            joined = [rest, &after[..after.len().min(MAX_HEADER - rest.len())]].concat();
            &joined[..]
        };
        let Some(end) = header_end(window) else { return false };
        let fields = Fields::parse(&window[..end]);
        let version = fields.version.split_once('.');
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        fields.content_length.is_some() && version.is_some_and(|(a, b)| numeric(a) && numeric(b))
    })
}

impl<R: Read> Iterator for WarcReader<R> {
    type Item = Result<RawRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.framed.finished {
            return None;
        }
        self.step().into_next(&mut self.framed.finished)
    }
}

/// The WARC header fields the reader uses.
#[derive(Debug, Default)]
struct Fields {
    version: String,
    kind: Option<String>,
    target_uri: Option<String>,
    record_id: Option<String>,
    content_type: Option<String>,
    truncated: Option<String>,
    content_length: Option<u64>,
}

impl Fields {
    fn parse(block: &[u8]) -> Fields {
        let (first, lines) = header_lines(block);
        let mut f = Fields {
            version: first.strip_prefix("WARC/").unwrap_or(&first).to_owned(),
            ..Fields::default()
        };
        let non_empty = |v: String| (!v.is_empty()).then_some(v);
        // The first occurrence of a field counts.
        for (name, value) in lines {
            match name.as_str() {
                "warc-type" if f.kind.is_none() => f.kind = non_empty(value.to_ascii_lowercase()),
                "warc-target-uri" if f.target_uri.is_none() => {
                    let uri = value.strip_prefix('<').and_then(|v| v.strip_suffix('>'));
                    f.target_uri = non_empty(uri.map_or(value.clone(), str::to_owned));
                }
                "warc-record-id" if f.record_id.is_none() => f.record_id = non_empty(value),
                "content-type" if f.content_type.is_none() => f.content_type = non_empty(value),
                "warc-truncated" if f.truncated.is_none() => f.truncated = non_empty(value),
                "content-length" if f.content_length.is_none() => {
                    f.content_length = value.parse().ok();
                }
                _ => {}
            }
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn record(kind: &str, uri: &str, block: &[u8]) -> Vec<u8> {
        let mut out = format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        out.extend_from_slice(block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    fn read(bytes: &[u8]) -> Vec<Result<RawRecord, InputError>> {
        WarcReader::new("t.warc", Cursor::new(bytes.to_vec())).collect()
    }

    /// Regression: garbage without a newline between records 3 and 4 lost
    /// record 4 unreported and record 3 as "wrong WARC Content-Length"; junk before the first
    /// record lost it too. Every record is read, and the garbage is one error.
    #[test]
    fn a_stray_byte_between_records_loses_nothing() {
        let page = |i: usize| {
            let body = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npage {i}");
            record("response", &format!("http://a.example/{i}"), body.as_bytes())
        };
        for (junk_at, junk) in [(3, &b"X"[..]), (3, b"garbage!"), (0, b"junk before"), (6, b"Z")] {
            let mut bytes = Vec::new();
            for i in 1..=6 {
                if i - 1 == junk_at {
                    bytes.extend_from_slice(junk);
                }
                bytes.extend(page(i));
            }
            if junk_at == 6 {
                bytes.extend_from_slice(junk);
            }
            let got = read(&bytes);
            let records: Vec<&RawRecord> = got.iter().filter_map(|r| r.as_ref().ok()).collect();
            let ids: Vec<String> = records
                .iter()
                .map(|r| String::from_utf8_lossy(&r.bytes).rsplit(' ').next().unwrap().to_owned())
                .collect();
            assert_eq!(ids, ["1", "2", "3", "4", "5", "6"], "junk at {junk_at}: {got:?}");
            assert!(records.iter().all(|r| r.warc.as_ref().unwrap().skip.is_none()), "{got:?}");
            let errors: Vec<&InputError> = got.iter().filter_map(|r| r.as_ref().err()).collect();
            assert_eq!(errors.len(), 1, "junk at {junk_at}: {errors:?}");
            assert!(errors[0].message.contains("are not a WARC record"), "{}", errors[0].message);
        }
    }

    #[test]
    fn header_ends_and_fields() {
        assert_eq!(header_end(b"WARC/1.0\r\nA: b\r\n\r\nbody"), Some(18));
        assert_eq!(header_end(b"WARC/0.18\nA: b\n\nbody"), Some(16));
        assert_eq!(header_end(b"WARC/1.0\r\nA: b\r\n"), None);
        let f = Fields::parse(
            b"WARC/1.1\r\nwarc-type: Response\r\nWARC-Target-URI: <http://a/>\r\n\
              X-Folded: a\r\n  b\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n",
        );
        assert_eq!(f.version, "1.1");
        assert_eq!(f.kind.as_deref(), Some("response"));
        assert_eq!(f.target_uri.as_deref(), Some("http://a/"));
        assert_eq!(f.content_length, Some(12));
    }

    #[test]
    fn ids_are_unique_within_an_input() {
        let mut input = record("response", "http://a/", b"HTTP/1.1 200 OK\r\n\r\nx");
        input.extend(record("request", "http://a/", b"GET / HTTP/1.1\r\n\r\n"));
        input.extend(
            b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/\r\n\
              WARC-Record-ID: <urn:uuid:1>\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
        );
        input.extend(
            b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/\r\n\
              WARC-Record-ID: <urn:uuid:1>\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
        );
        input.extend(record("response", "http://a/#urn:uuid:1", b""));
        input.extend(record("metadata", "http://a/", b"x"));
        let ids: Vec<String> =
            read(&input).into_iter().map(|r| r.unwrap().warc.unwrap().id).collect();
        assert_eq!(
            ids,
            [
                "http://a/",
                "t.warc#record-2",
                "http://a/#urn:uuid:1",
                "http://a/#record-4",
                "http://a/#urn:uuid:1#record-5",
                "t.warc#record-6"
            ]
        );
    }
}
