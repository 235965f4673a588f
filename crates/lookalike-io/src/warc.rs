//! WARC files: contract: "give me a (decompressed) WARC stream, I give you one raw record per WARC
//! record, in order, holding at most one record in memory, and an error naming the record and its
//! offset for every part I cannot read"; and "give me a WARC response record, I give you the
//! document in its HTTP payload or the reason there is none".
//!
//! The reading and decoding rules, ids and error messages are documented on [`WarcReader`].

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::io::{self, Read};
use std::sync::Arc;

use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;
use memchr::memmem;

use crate::charset::{self, Kind};
use crate::decode::{HtmlText, html_text};
use crate::lookahead::Lookahead;
use crate::reader::read_error_message;
use crate::sniff::{looks_binary, magic_type};
use crate::{Decoded, Format, GzipGap, InputError, MAX_RECORD_BYTES, RawRecord, ReadOptions};

/// The longest WARC header block read; a longer one is reported and skipped.
const MAX_HEADER: usize = 32 << 10;
/// The longest HTTP header block looked for at the start of a response.
const MAX_HTTP_HEADER: usize = 64 << 10;

/// What a WARC record's header says, for the decoder: where the record is, what type it is, the
/// document id, and, when the reader already knows the record holds no document, why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WarcHeader {
    /// The 1-based number of the record in its input (every record counts, whatever its type).
    pub number: u64,
    /// The offset of the record's `WARC/` line in the decompressed stream.
    pub offset: u64,
    /// The version on the first line: `1.0`, `1.1`, `0.18`.
    pub version: String,
    /// The `WARC-Type`, lower-cased: `response`, `request`, `warcinfo`, `metadata`, `revisit`,
    /// `resource`, `conversion`; empty when the header has none.
    pub kind: String,
    /// The document id (see the module docs): the target URI, made unique within the input.
    pub id: String,
    /// The `WARC-Target-URI`, without angle brackets.
    pub target_uri: Option<String>,
    /// The `WARC-Record-ID`, as written (`<urn:uuid:...>`).
    pub record_id: Option<String>,
    /// The `Content-Type` of the block (`application/http; msgtype=response`).
    pub content_type: Option<String>,
    /// The `WARC-Truncated` reason (`length`, `time`, ...): the crawler stored only part of the
    /// payload.
    pub truncated: Option<String>,
    /// The `Content-Length` of the block.
    pub length: u64,
    /// Why the record holds no document, when the reader knows it already: `WARC request
    /// record`, or a size over the reader's limit. Its block is then not stored.
    pub skip: Option<String>,
}

impl WarcHeader {
    /// A header for a response record that came without one (a [`RawRecord`] built by hand).
    fn bare(rec: &RawRecord) -> WarcHeader {
        WarcHeader { kind: "response".into(), id: rec.source.to_string(), ..WarcHeader::default() }
    }
}

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
    source: Arc<str>,
    input: Lookahead<R>,
    max_record_bytes: u64,
    compressed: bool,
    /// Records started so far: the number of the last one.
    records: u64,
    /// Fingerprints of the ids given to responses so far.
    ids: HashSet<u128>,
    finished: bool,
}

impl<R> fmt::Debug for WarcReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarcReader")
            .field("source", &self.source)
            .field("records", &self.records)
            .field("max_record_bytes", &self.max_record_bytes)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

/// Blocks of records other than responses are kept (to look for a record inside them when their
/// length turns out wrong) up to this size.
const MAX_KEPT_OTHER_BLOCK: u64 = 1 << 20;

/// What stopped the bytes from coming.
enum Stop {
    /// The end of the input.
    End,
    /// A corrupt or truncated gzip member: reading goes on after it.
    Gap(GzipGap),
    /// A read error of the input: nothing more can be read.
    Failed(io::Error),
}

impl<R: Read> WarcReader<R> {
    /// A reader of the WARC records in `stream`; `source` names the input in records and errors.
    pub fn new(source: impl Into<Arc<str>>, stream: R) -> WarcReader<R> {
        WarcReader {
            source: source.into(),
            input: Lookahead::new(stream),
            max_record_bytes: MAX_RECORD_BYTES,
            compressed: false,
            records: 0,
            ids: HashSet::new(),
            finished: false,
        }
    }

    /// Sets the largest response block kept in memory (default [`MAX_RECORD_BYTES`]); a larger
    /// one is read past and its record skipped with a reason.
    pub fn with_max_record_bytes(mut self, max: u64) -> WarcReader<R> {
        self.max_record_bytes = max;
        self
    }

    /// Read errors are reported as gzip errors (the stream was decompressed).
    pub(crate) fn with_compressed(mut self, compressed: bool) -> WarcReader<R> {
        self.compressed = compressed;
        self
    }

    fn error(&self, message: String) -> InputError {
        InputError::new(&self.source, None, message)
    }

    /// Why the bytes ran out, once every byte before the stop was consumed; after a gzip gap,
    /// reading goes on with the next member.
    fn stop(&mut self) -> Stop {
        debug_assert!(self.input.fill(0).is_empty());
        match self.input.take_error() {
            None => Stop::End,
            Some(e) => match GzipGap::of(&e) {
                Some(gap) => {
                    let gap = gap.clone();
                    self.input.resume();
                    Stop::Gap(gap)
                }
                None => Stop::Failed(e),
            },
        }
    }

    fn read_error(&self, e: &io::Error) -> String {
        read_error_message(e, self.compressed)
    }

    fn step(&mut self) -> Step {
        // Separators: any CR and LF between records.
        loop {
            let avail = self.input.fill(1);
            if avail.is_empty() {
                let after = self.after_last();
                return match self.stop() {
                    Stop::End => Step::End,
                    Stop::Gap(gap) => Step::Error(self.error(format!("{after}: {gap}"))),
                    Stop::Failed(e) => {
                        Step::Fatal(self.error(format!("{after}: {}", self.read_error(&e))))
                    }
                };
            }
            let blank = avail.iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
            if blank == 0 {
                break;
            }
            self.input.consume(blank);
        }
        if !self.input.fill(5).starts_with(b"WARC/") {
            return self.garbage();
        }

        let offset = self.input.offset();
        self.records += 1;
        let number = self.records;
        let avail = self.input.fill(MAX_HEADER);
        let (fields, header_len) = match header_end(&avail[..avail.len().min(MAX_HEADER)]) {
            Some(end) => (Fields::parse(&avail[..end]), end),
            None if avail.len() < MAX_HEADER => {
                // The input (or a gzip member) ends inside the header: its complete lines
                // still tell the record's URI.
                let complete = avail.iter().rposition(|&b| b == b'\n').map_or(0, |nl| nl + 1);
                let fields = Fields::parse(&avail[..complete]);
                let len = avail.len();
                self.input.consume(len);
                let reason = match self.stop() {
                    Stop::End => "truncated WARC record: the input ends inside its header".into(),
                    Stop::Gap(gap) => format!("corrupt gzip data in the WARC header: {gap}"),
                    Stop::Failed(e) => {
                        self.finished = true;
                        format!("truncated WARC record: {}", self.read_error(&e))
                    }
                };
                return self.lost(number, offset, fields, 0, reason);
            }
            None => {
                self.input.consume(5);
                let skipped = self.resync_description();
                let reason = format!(
                    "bad WARC header: longer than {} KiB; skipped {skipped}",
                    MAX_HEADER >> 10
                );
                return self.lost(number, offset, Fields::default(), 0, reason);
            }
        };
        self.input.consume(header_len);
        let Some(length) = fields.content_length else {
            let skipped = self.resync_description();
            let reason = format!("bad WARC header: no valid Content-Length; skipped {skipped}");
            return self.lost(number, offset, fields, 0, reason);
        };

        let kind = fields.kind.clone().unwrap_or_default();
        let is_response = kind == "response";
        let skip = if !is_response {
            Some(if kind.is_empty() {
                "WARC record without a WARC-Type".to_owned()
            } else {
                format!("WARC {kind} record")
            })
        } else if length > self.max_record_bytes {
            Some(format!(
                "WARC record larger than the {}-byte limit: {length} bytes",
                self.max_record_bytes
            ))
        } else {
            None
        };

        // Kept: a response's block for the decoder; a small block of another record, to look
        // for a record inside it should its length be wrong.
        let keep = skip.is_none() || length <= MAX_KEPT_OTHER_BLOCK.min(self.max_record_bytes);
        let mut bytes = Vec::new();
        if keep {
            bytes.reserve(length.min(1 << 20) as usize);
        }
        let block_start = self.input.offset();
        let got = self.input.copy(length, keep.then_some(&mut bytes));
        if got < length {
            if keep && let Some(at) = embedded_record(&bytes, &[]) {
                return self.cut(number, offset, fields, length, bytes, at);
            }
            let reason = match self.stop() {
                Stop::End => format!(
                    "truncated WARC record: the Content-Length is {length} bytes, the input ends \
                     after {got} of them"
                ),
                Stop::Gap(gap) => format!("corrupt gzip data in the record: {gap}"),
                Stop::Failed(e) => {
                    self.finished = true;
                    format!("truncated WARC record: {}", self.read_error(&e))
                }
            };
            return self.lost(number, offset, fields, length, reason);
        }

        // The block must be followed by a separator and the next record (or the end).
        let block_end = block_start + length;
        let mut separator = 0;
        loop {
            let avail = self.input.fill(1);
            let blank = avail.iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
            if blank == 0 {
                break;
            }
            separator += blank;
            self.input.consume(blank);
        }
        let next = self.input.fill(5);
        if next.is_empty() {
            // The end, or a gzip gap: the record is damaged when the failed member gave part of
            // it (a checksum mismatch is found at the member's end, after its data).
            let damaged = self
                .input
                .error()
                .and_then(GzipGap::of)
                .is_some_and(|gap| gap.damages_before(block_end));
            if damaged && let Stop::Gap(gap) = self.stop() {
                let reason = format!("corrupt gzip data in the record: {gap}");
                return self.lost(number, offset, fields, length, reason);
            }
        } else if !next.starts_with(b"WARC/") {
            if keep && let Some(at) = embedded_record(&bytes, self.input.fill(MAX_HEADER)) {
                return self.cut(number, offset, fields, length, bytes, at);
            }
            // The block ended where its length said, with the separator after it: the record is
            // whole, and what follows is garbage between records, reported and skipped by the
            // next step (issue 33: a stray byte there lost this record and the next).
            if separator >= 2 {
                if !is_response {
                    bytes = Vec::new();
                }
                let header = self.header(number, offset, fields, kind, is_response, length, skip);
                return Step::Record(self.record(bytes, header));
            }
            let (skipped, found) = self.resync();
            let to = if found {
                format!("the next record, at offset {}", self.input.offset())
            } else {
                match self.stop() {
                    Stop::End => "the end".to_owned(),
                    // The member that held the record is damaged: that is the cause.
                    Stop::Gap(gap) if gap.damages_before(block_end) => {
                        let reason = format!("corrupt gzip data in the record: {gap}");
                        return self.lost(number, offset, fields, length, reason);
                    }
                    Stop::Gap(gap) => format!("a gzip gap: {gap}"),
                    Stop::Failed(e) => {
                        self.finished = true;
                        format!("a read error: {}", self.read_error(&e))
                    }
                }
            };
            let reason = format!(
                "wrong WARC Content-Length: the {length}-byte block is followed by {skipped} bytes \
                 that are not a WARC record (a Content-Length too short?); skipped to {to}"
            );
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
        let at = self.input.offset();
        let after = self.after_last();
        let what = format!("bytes at offset {at} ({after}) are not a WARC record");
        let (skipped, found) = self.resync();
        if found {
            return Step::Error(self.error(format!(
                "{skipped} {what} (a wrong Content-Length?); skipped to the next record, at \
                 offset {}",
                self.input.offset()
            )));
        }
        match self.stop() {
            Stop::End => Step::Error(self.error(format!("{skipped} {what}; skipped to the end"))),
            Stop::Gap(gap) => Step::Error(self.error(format!("{skipped} {what}; then {gap}"))),
            Stop::Failed(e) => Step::Fatal(self.error(format!(
                "{skipped} {what}; then at offset {}: {}",
                self.input.offset(),
                self.read_error(&e)
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
        self.input.unread(&bytes[at..]);
        let reason = format!(
            "wrong WARC Content-Length: {length} bytes is too long: the next record starts {at} \
             bytes into the block, at offset {}; the record was cut there",
            self.input.offset()
        );
        self.lost(number, offset, fields, length, reason)
    }

    /// A record that was started but holds no document because of `reason`.
    fn lost(
        &mut self,
        number: u64,
        offset: u64,
        fields: Fields,
        length: u64,
        reason: String,
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
        skip: Option<String>,
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
            source: self.source.clone(),
            line: None,
            format: Format::Warc,
            bytes,
            warc: Some(Box::new(header)),
        }
    }

    fn record_id(&mut self, fields: &Fields, is_response: bool, number: u64) -> String {
        match (&fields.target_uri, is_response) {
            (Some(uri), true) => self.unique_id(uri, fields.record_id.as_deref(), number),
            _ => format!("{}#record-{number}", self.source),
        }
    }

    fn after_last(&self) -> String {
        match self.records {
            0 => "before the first record".to_owned(),
            n => format!("after record {n}"),
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
        let mut skipped = 0u64;
        loop {
            let avail = self.input.fill(MAX_HEADER.min(64));
            if avail.len() < 6 {
                let len = avail.len();
                self.input.consume(len);
                return (skipped + len as u64, false);
            }
            let found = memmem::find_iter(avail, b"WARC/")
                .find(|&at| (at > 0 && avail[at - 1] == b'\n') || version_line(&avail[at..]));
            if let Some(at) = found {
                self.input.consume(at);
                return (skipped + at as u64, true);
            }
            // Keep the last bytes: a header may begin in them.
            let len = avail.len().saturating_sub(16).max(1);
            self.input.consume(len);
            skipped += len as u64;
        }
    }

    /// [`Self::resync`] after a bad header, described for the skip reason; a gzip gap met on
    /// the way is passed over (the reason says so).
    fn resync_description(&mut self) -> String {
        match self.resync() {
            (skipped, true) => {
                format!(
                    "{skipped} more bytes to the next record, at offset {}",
                    self.input.offset()
                )
            }
            (skipped, false) => match self.stop() {
                Stop::End => format!("{skipped} more bytes to the end"),
                Stop::Gap(gap) => format!("{skipped} more bytes, then {gap}"),
                Stop::Failed(e) => {
                    self.finished = true;
                    format!("{skipped} more bytes, then {}", self.read_error(&e))
                }
            },
        }
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

/// What one step of a record reader (WARC, docreader) found.
pub(crate) enum Step {
    Record(RawRecord),
    /// Reported; reading goes on.
    Error(InputError),
    /// Reported; the rest of the input cannot be read.
    Fatal(InputError),
    End,
}

impl Step {
    /// The iterator's item for this step; `finished` is set when nothing can follow.
    pub(crate) fn into_next(self, finished: &mut bool) -> Option<Result<RawRecord, InputError>> {
        match self {
            Step::Record(rec) => Some(Ok(rec)),
            Step::Error(e) => Some(Err(e)),
            Step::Fatal(e) => {
                *finished = true;
                Some(Err(e))
            }
            Step::End => {
                *finished = true;
                None
            }
        }
    }
}

impl<R: Read> Iterator for WarcReader<R> {
    type Item = Result<RawRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        self.step().into_next(&mut self.finished)
    }
}

/// The end of a header block (after its empty line), if it is in `window`.
fn header_end(window: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', window).find_map(|nl| match window.get(nl + 1) {
        Some(b'\n') => Some(nl + 2),
        Some(b'\r') if window.get(nl + 2) == Some(&b'\n') => Some(nl + 3),
        _ => None,
    })
}

/// `Name: value` lines after a first line, names lower-cased; folded lines are joined.
fn header_lines(block: &[u8]) -> (String, Vec<(String, String)>) {
    let mut lines = block.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let first = String::from_utf8_lossy(lines.next().unwrap_or_default()).trim().to_owned();
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            if let Some((_, value)) = fields.last_mut() {
                value.push(' ');
                value.push_str(String::from_utf8_lossy(line).trim());
            }
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else { continue };
        let name = String::from_utf8_lossy(&line[..colon]).trim().to_ascii_lowercase();
        let value = String::from_utf8_lossy(&line[colon + 1..]).trim().to_owned();
        fields.push((name, value));
    }
    (first, fields)
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

/// Decodes a [`Format::Warc`] record (see the module docs).
pub(crate) fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    let bare;
    let header = match rec.warc.as_deref() {
        Some(header) => header,
        None => {
            bare = WarcHeader::bare(rec);
            &bare
        }
    };
    match payload(rec, header, opts) {
        Ok(doc) => doc,
        Err(reason) => Decoded::Skip { id: header.id.clone(), reason },
    }
}

fn payload(rec: &RawRecord, header: &WarcHeader, opts: &ReadOptions) -> Result<Decoded, String> {
    if let Some(reason) = &header.skip {
        return Err(reason.clone());
    }
    if let Some(media) = header.content_type.as_deref().map(media_type)
        && !media.is_empty()
        && !media.starts_with("application/http")
    {
        return Err(format!("not an HTTP response: {media}"));
    }
    let http = Http::parse(&rec.bytes)?;
    if !(200..300).contains(&http.status) {
        return Err(format!("HTTP status: {}", http.status_line));
    }
    let mut warnings = Vec::new();
    if let Some(reason) = &header.truncated {
        warnings.push(format!("payload truncated by the crawler: {reason}"));
    }
    let quiet = header.truncated.is_some();
    let mut body = Cow::Borrowed(http.body);
    if http.transfer_encoding.as_deref().is_some_and(|t| t.contains("chunked"))
        && let Some((data, warning)) = dechunk(&body)
    {
        // A payload the crawler truncated is expected to end early; broken framing is not.
        warnings.extend(warning.filter(|w| !(quiet && w == TRUNCATED_CHUNKED)));
        body = Cow::Owned(data);
    }
    if let Some(coding) = http.content_encoding.as_deref()
        && let Some(decoded) = undo_content_coding(coding, &body)?
    {
        warnings.extend(decoded.warning.filter(|_| !quiet));
        body = Cow::Owned(decoded.data);
    }
    if body.is_empty() {
        return Err("empty payload".to_owned());
    }
    let media = http.content_type.as_deref().map(media_type).unwrap_or_default();
    let http_charset = http.content_type.as_deref().and_then(charset_param);
    let utf16 = http_charset
        .as_deref()
        .and_then(|c| charset::label_encoding(c.as_bytes()))
        .is_some_and(|e| !e.is_ascii_compatible());
    let kind = classify(&media, &body, utf16)?;
    let tld = header.target_uri.as_deref().and_then(tld);
    let decoded = charset::decode(&body, kind, http_charset.as_deref(), tld.as_deref());
    warnings.extend(decoded.warning);
    let page = match kind {
        Kind::Html => html_text(decoded.text, opts, header.target_uri.as_deref()),
        Kind::Plain => HtmlText::plain_text(decoded.text),
    };
    warnings.extend(page.warning);
    let doc = Document {
        id: header.id.clone(),
        text: page.text,
        raw_fingerprint: Some(raw_fingerprint(&body)),
        raw_len: rec.bytes.len() as u64,
    };
    let warning = (!warnings.is_empty()).then(|| warnings.join("; "));
    Ok(Decoded::Doc {
        doc,
        warning,
        charset: decoded.charset,
        title: page.title,
        extraction: page.extraction,
        visible: page.visible,
        site: None,
    })
}

/// The parts of an HTTP response the decoder uses.
struct Http<'a> {
    status: u16,
    /// The status line without the version: `404 Not Found`.
    status_line: String,
    content_type: Option<String>,
    content_encoding: Option<String>,
    transfer_encoding: Option<String>,
    body: &'a [u8],
}

impl Http<'_> {
    fn parse(block: &[u8]) -> Result<Http<'_>, String> {
        if block.is_empty() {
            return Err("empty WARC response".to_owned());
        }
        if !block.starts_with(b"HTTP/") {
            return Err("not an HTTP response: no status line".to_owned());
        }
        let window = &block[..block.len().min(MAX_HTTP_HEADER)];
        let (head, body) = match header_end(window) {
            Some(end) => (&block[..end], &block[end..]),
            // Headers without a body (and without the final empty line).
            None if block.len() <= MAX_HTTP_HEADER => (block, &[][..]),
            None => return Err(format!("HTTP header longer than {} KiB", MAX_HTTP_HEADER >> 10)),
        };
        let (first, fields) = header_lines(head);
        let mut parts = first.splitn(2, ' ');
        let _version = parts.next();
        let rest = parts.next().unwrap_or_default().trim();
        let code = rest.split(' ').next().unwrap_or_default();
        let status = match code.parse::<u16>() {
            Ok(status) if code.len() == 3 => status,
            _ => return Err(format!("malformed HTTP status line: {}", shorten(&first, 60))),
        };
        let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        Ok(Http {
            status,
            status_line: shorten(rest, 60),
            content_type: field("content-type"),
            content_encoding: field("content-encoding").map(|v| v.to_ascii_lowercase()),
            transfer_encoding: field("transfer-encoding").map(|v| v.to_ascii_lowercase()),
            body,
        })
    }
}

fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_owned(),
    }
}

/// The media type of a `Content-Type` value, lower-cased, without parameters.
fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// The `charset` parameter of a `Content-Type` value, without quotes.
fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_owned())
    })
}

/// The top-level domain of a URL's host, lower-cased, for the charset detector; `None` for IP
/// addresses and non-ASCII (not Punycode) labels.
pub(crate) fn tld(uri: &str) -> Option<String> {
    let rest = uri.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    if host.starts_with('[') {
        return None;
    }
    let host = host.split(':').next()?.trim_end_matches('.');
    let label = host.rsplit('.').next()?;
    let ok = !label.is_empty()
        && !label.bytes().all(|b| b.is_ascii_digit())
        && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| label.to_ascii_lowercase())
}

/// The warning of a chunked payload cut short (expected when the crawler truncated it).
const TRUNCATED_CHUNKED: &str = "truncated chunked transfer coding";

/// Undoes chunked transfer coding: the data, and a warning when the framing is broken. `None`
/// when the body does not start like a chunked body (a crawler stored it de-chunked and kept the
/// header): its first line must be a hex size ending in CRLF. A first line that looks like a
/// size but is not one (short, starting with a digit: `1g`, `0x1F`) keeps the body as stored
/// with a warning, and so does a bad size later on (the data before it decoded, the rest kept
/// as stored: nothing is dropped); a body that ends before its zero-size chunk is
/// [`TRUNCATED_CHUNKED`].
fn dechunk(body: &[u8]) -> Option<(Vec<u8>, Option<String>)> {
    let mut out = Vec::with_capacity(body.len());
    let mut pos = 0;
    let mut first = true;
    loop {
        let Some(nl) = memchr::memchr(b'\n', &body[pos..]) else {
            return (!first).then(|| (out, Some(TRUNCATED_CHUNKED.to_owned())));
        };
        let raw = &body[pos..pos + nl];
        // A first line must end in CRLF: text that happens to start with a hex word does not.
        let line = raw.strip_suffix(b"\r").or((!first).then_some(raw))?;
        let token = line.split(|&b| b == b';').next().unwrap_or_default().trim_ascii();
        let size = std::str::from_utf8(token)
            .ok()
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|s| u64::from_str_radix(s, 16).ok());
        let Some(size) = size else {
            let shown = String::from_utf8_lossy(&token[..token.len().min(20)]).into_owned();
            if first {
                let like_a_size = (1..=16).contains(&token.len())
                    && token[0].is_ascii_digit()
                    && token.iter().all(u8::is_ascii_alphanumeric);
                let warning = format!(
                    "bad chunk size {shown:?} at the start of a chunked payload: kept as stored"
                );
                return like_a_size.then(|| (body.to_vec(), Some(warning)));
            }
            out.extend_from_slice(&body[pos..]);
            let warning = format!(
                "bad chunk size {shown:?} at byte {pos} of the chunked payload: the rest kept as \
                 stored"
            );
            return Some((out, Some(warning)));
        };
        pos += nl + 1;
        if size == 0 {
            return Some((out, None));
        }
        let rest = &body[pos..];
        if size >= rest.len() as u64 {
            out.extend_from_slice(rest);
            return Some((out, Some(TRUNCATED_CHUNKED.to_owned())));
        }
        let size = size as usize;
        out.extend_from_slice(&rest[..size]);
        pos += size;
        if body[pos..].starts_with(b"\r\n") {
            pos += 2;
        } else if body[pos..].starts_with(b"\n") {
            pos += 1;
        } else if first {
            return None;
        } else {
            out.extend_from_slice(&body[pos..]);
            let warning = format!(
                "the chunk ending at byte {pos} of the chunked payload is not followed by a line \
                 break: the rest kept as stored"
            );
            return Some((out, Some(warning)));
        }
        first = false;
    }
}

/// A payload with its content coding undone.
struct Inflated {
    data: Vec<u8>,
    /// Set when the coded data was cut short or corrupt after some output.
    warning: Option<String>,
}

/// Undoes a `Content-Encoding` when the payload is encoded that way: `Ok(None)` when it is not
/// (already decoded, or a coding this crate cannot undo), `Err(reason)` when nothing could be
/// decoded.
fn undo_content_coding(coding: &str, body: &[u8]) -> Result<Option<Inflated>, String> {
    let coding = coding.split(',').next_back().unwrap_or_default().trim();
    match coding {
        "gzip" | "x-gzip" if body.starts_with(&[0x1f, 0x8b]) => {
            inflate(MultiGzDecoder::new(body), "gzip").map(Some)
        }
        "deflate" => {
            let zlib = body.len() >= 2
                && body[0] & 0x0f == 8
                && (u16::from(body[0]) << 8 | u16::from(body[1])) % 31 == 0;
            if zlib {
                inflate(ZlibDecoder::new(body), "deflate").map(Some)
            } else {
                // Raw deflate, as some servers send it; text that is not deflate data fails at
                // once.
                Ok(inflate(DeflateDecoder::new(body), "deflate")
                    .ok()
                    .filter(|i| i.warning.is_none() && !i.data.is_empty()))
            }
        }
        _ => Ok(None),
    }
}

fn inflate(decoder: impl Read, coding: &str) -> Result<Inflated, String> {
    let limit = MAX_RECORD_BYTES;
    let mut out = Vec::new();
    match decoder.take(limit + 1).read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > limit => {
            Err(format!("payload larger than the {limit}-byte limit after {coding} decoding"))
        }
        Ok(_) => Ok(Inflated { data: out, warning: None }),
        Err(e) if out.is_empty() => Err(format!("corrupt {coding} content coding: {e}")),
        Err(_) => {
            let warning = format!(
                "truncated or corrupt {coding} content coding: kept the first {} bytes",
                out.len()
            );
            Ok(Inflated { data: out, warning: Some(warning) })
        }
    }
}

/// Whether a payload is a document, and of which kind.
fn classify(media: &str, body: &[u8], utf16: bool) -> Result<Kind, String> {
    if let Some(magic) = magic_type(body) {
        return Err(if media.is_empty() || media == magic {
            format!("binary payload: {magic}")
        } else {
            format!("binary payload: {magic} (declared {media})")
        });
    }
    let kind = match media {
        "text/html" | "application/xhtml+xml" | "application/xhtml" | "text/xhtml" => Kind::Html,
        "text/plain" => Kind::Plain,
        ""
        | "application/octet-stream"
        | "binary/octet-stream"
        | "application/unknown"
        | "unknown/unknown"
        | "*/*"
        | "application/x-unknown-content-type" => {
            if !utf16 && looks_binary(body) {
                return Err("binary payload: unknown type".to_owned());
            }
            if crate::sniff::sniff_format(body) == Format::Html { Kind::Html } else { Kind::Plain }
        }
        _ if is_textual(media) => return Err(format!("not a document: {media}")),
        _ => return Err(format!("binary payload: {media}")),
    };
    if !utf16 && looks_binary(body) {
        return Err(format!("binary payload: control bytes in {media}"));
    }
    Ok(kind)
}

/// Media types that are text but not documents (style sheets, scripts, data, feeds).
fn is_textual(media: &str) -> bool {
    media.starts_with("text/")
        || media.ends_with("+xml")
        || media.ends_with("+json")
        || matches!(
            media,
            "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/json"
                | "application/x-json"
                | "application/xml"
                | "application/x-www-form-urlencoded"
        )
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

    /// Regression (issue 33, item 1): garbage without a newline between records 3 and 4 lost
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

    #[test]
    fn chunked_bodies() {
        let done = |data: &[u8]| Some((data.to_vec(), None));
        let truncated = |data: &[u8]| Some((data.to_vec(), Some(TRUNCATED_CHUNKED.to_owned())));
        assert_eq!(dechunk(b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n"), done(b"Wikipedia"));
        assert_eq!(dechunk(b"4\r\nWiki\r\n5\r\npe"), truncated(b"Wikipe"));
        assert_eq!(dechunk(b"A\r\n0123"), truncated(b"0123"));
        assert_eq!(dechunk(b"4\r\nWiki\r\n"), truncated(b"Wiki"));
        // Not chunked: stored de-chunked by the crawler.
        assert_eq!(dechunk(b"<html>"), None);
        assert_eq!(dechunk(b"cafe\nbabe"), None);
        assert_eq!(dechunk(b"2\r\nabc"), None);
        assert_eq!(dechunk(b"Hello\r\nworld"), None);
        assert_eq!(dechunk(b""), None);
    }

    /// Regression (issue 12): a chunked payload with a bad chunk size was kept with its framing
    /// and no warning (or its rest dropped as "truncated").
    #[test]
    fn a_bad_chunk_size_is_reported_and_nothing_is_dropped() {
        assert_eq!(
            dechunk(b"1g\r\nHello\r\n0\r\n\r\n"),
            Some((
                b"1g\r\nHello\r\n0\r\n\r\n".to_vec(),
                Some(
                    "bad chunk size \"1g\" at the start of a chunked payload: kept as stored"
                        .into()
                )
            ))
        );
        assert_eq!(
            dechunk(b"4\r\nWiki\r\nzz\r\npedia\r\n0\r\n\r\n"),
            Some((
                b"Wikizz\r\npedia\r\n0\r\n\r\n".to_vec(),
                Some(
                    "bad chunk size \"zz\" at byte 9 of the chunked payload: the rest kept as stored"
                        .into()
                )
            ))
        );
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n3\r\npediaX\r\n0\r\n\r\n"),
            Some((
                b"WikipediaX\r\n0\r\n\r\n".to_vec(),
                Some(
                    "the chunk ending at byte 15 of the chunked payload is not followed by a line \
                     break: the rest kept as stored"
                        .into()
                )
            ))
        );
    }

    #[test]
    fn tlds() {
        assert_eq!(tld("http://www.example.ru/a?b").as_deref(), Some("ru"));
        assert_eq!(tld("https://user@Example.JP:8080/").as_deref(), Some("jp"));
        assert_eq!(tld("http://example.com./").as_deref(), Some("com"));
        assert_eq!(tld("http://192.168.0.1/"), None);
        assert_eq!(tld("http://[::1]/"), None);
        assert_eq!(tld("http://пример.рф/"), None);
        assert_eq!(tld("no scheme"), None);
    }

    #[test]
    fn content_types() {
        assert_eq!(media_type(" Text/HTML; charset=UTF-8"), "text/html");
        assert_eq!(charset_param("text/html; Charset=\"koi8-r\"").as_deref(), Some("koi8-r"));
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(magic_type(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(magic_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(magic_type(b"\0\0\0\x20ftypisom"), Some("video/mp4"));
        assert_eq!(magic_type(b"<html>"), None);
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary("plain text\r\n\twith tabs\x1b$B".as_bytes()));
        assert_eq!(classify("text/css", b"a{}", false), Err("not a document: text/css".into()));
        assert_eq!(
            classify("text/html", b"\xff\xd8\xff\xe0", false),
            Err("binary payload: image/jpeg (declared text/html)".into())
        );
        assert_eq!(classify("", b"<!doctype html><p>x", false), Ok(Kind::Html));
        assert_eq!(classify("application/octet-stream", b"words", false), Ok(Kind::Plain));
        assert_eq!(
            classify("application/pdf", b"x", false),
            Err("binary payload: application/pdf".into())
        );
    }
}
