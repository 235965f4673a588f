//! The docreader format of the lecture's homework (seed 003): contract: "give me a (decompressed)
//! stream of length-prefixed protobuf `document` messages, I give you one raw record per message,
//! in order, holding at most one record in memory, and an error naming the record, its number and
//! its offset for every part I cannot read"; and "give me such a record, I give you the page in it".
//!
//! The reading rules and error messages are documented on [`DocreaderReader`].

use std::fmt;
use std::io::{self, Read};
use std::sync::Arc;

use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;

use crate::charset::{self, Kind};
use crate::decode::{HtmlText, html_text};
use crate::lookahead::{BUFFER, Lookahead};
use crate::reader::read_error_message;
use crate::sniff::magic_type;
use crate::warc::Step;
use crate::{Decoded, Format, GzipGap, InputError, MAX_RECORD_BYTES, RawRecord, ReadOptions};

/// The size of the length that precedes every message: 4 bytes, little-endian.
const HEADER: usize = 4;
/// The protobuf tag of field 1 (`url`) as a length-delimited field: `(1 << 3) | 2`.
const URL_TAG: u8 = 0x0a;
/// The longest url a searched-for record start may have (see [`record_start`]).
const MAX_START_URL: usize = 16 << 10;
/// Bytes a record start needs to be recognised: its length, the url tag, the url's length and the
/// url itself.
const START_WINDOW: usize = HEADER + 1 + 3 + MAX_START_URL;
/// Deepest nesting of (deprecated) protobuf groups skipped in unknown fields.
const MAX_GROUP_DEPTH: usize = 64;

/// Reads the records of one docreader stream (already decompressed; [`crate::Reader`] undoes
/// gzip, one member per file or many). Yields a [`RawRecord`] of format [`Format::Docreader`] for
/// every message read whole, or an [`InputError`] for every record (or run of bytes) that cannot be
/// read; after a read error of the input itself, it ends.
///
/// # The format
///
/// The homework's collections (`zcat ... | docreader.py`) are a sequence of records, each a 4-byte
/// little-endian length followed by that many bytes of a protobuf message
///
/// ```text
/// message document { required string url = 1; optional string body = 2; optional string text = 3; }
/// ```
///
/// where `body` is the page's HTML. The message is decoded by hand: a field is a varint key
/// (field number and wire type), then a varint (wire type 0), 8 bytes (1), a varint length and
/// that many bytes (2), or 4 bytes (5); unknown fields are skipped by their wire type, deprecated
/// groups (wire types 3 and 4) included; when a field occurs twice, the last one counts.
///
/// # Records and errors
///
/// A record's [`RawRecord::bytes`] is its message; [`RawRecord::line`] is its 1-based number in the
/// input (every record started counts) and its [`crate::Origin`] is `SOURCE#record-N`. The
/// decoder ([`crate::decode`]) makes the url the document id and reads `body` as HTML, in its own
/// charset, through `--extract`, as a WARC response's payload is read; a record without a body
/// (or with an empty one) is read from its `text` field as plain text.
///
/// Each of these is an [`InputError`] that names the input, the record number and its byte
/// offset in the decompressed stream, and loses the record (listed under its url when that much
/// of it could be read, else as `SOURCE#record-N`); reading goes on:
/// - `bad length`: a length over the record limit (256 MiB, [`MAX_RECORD_BYTES`]); the bytes up
///   to the next record start are skipped;
/// - `truncated record`: the input ends inside the length or the message;
/// - `wrong length`: the message is not followed by another record or the end of the input.
///   When a record starts inside the message, the length was too long: the record is cut there
///   and reading goes on from that record. Otherwise, when the message does not read as one
///   either, the length was too short (or garbage follows): the bytes up to the next record start
///   are skipped. A message that reads whole is kept, and what follows it is reported as the
///   next record;
/// - `malformed protobuf`: a varint longer than 10 bytes, a field number 0, a wire type 6 or 7,
///   a field running past the end of the message, an unmatched group, a known field with the
///   wrong wire type;
/// - `no url`: a message without a (non-empty) field 1, a zero-length record among them;
/// - `corrupt gzip data`: a gzip member that held part of the record is corrupt or cut short (see
///   [`crate::GzipGap`]); reading goes on at the next record start after the gap.
///
/// A *record start*, where reading resumes after skipped bytes, is a length within the limit
/// followed by a message whose first field is a url of at most 16 KiB without blanks or control
/// characters (every protobuf writer puts field 1 first), whose other fields (as far as they can
/// be seen) are well formed, and, when the message ends within sight, followed by another length
/// or the end. Skipped bytes that belong to no record started are reported without losing a
/// record (`N bytes at offset X (after record M) are not a docreader record`).
///
/// # Example
///
/// ```
/// use lookalike_io::{Decoded, DocreaderReader, ReadOptions, decode};
///
/// // Field 1 (url) and field 2 (body), each a tag, a length (one byte here) and the bytes.
/// let (url, body) = (&b"http://a.example/"[..], &b"<p>Hello</p>"[..]);
/// let mut message = vec![0x0a, url.len() as u8];
/// message.extend(url);
/// message.extend([0x12, body.len() as u8]);
/// message.extend(body);
/// let mut stream = (message.len() as u32).to_le_bytes().to_vec();
/// stream.extend(&message);
///
/// let mut records = DocreaderReader::new("pages", &stream[..]);
/// let record = records.next().unwrap()?;
/// match decode(&record, &ReadOptions::default()) {
///     Decoded::Doc { doc, .. } => assert_eq!((doc.id.as_str(), doc.text.as_str()), ("http://a.example/", "Hello")),
///     other => panic!("{other:?}"),
/// }
/// assert!(records.next().is_none());
/// # Ok::<(), lookalike_io::InputError>(())
/// ```
pub struct DocreaderReader<R> {
    source: Arc<str>,
    input: Lookahead<R>,
    max_record_bytes: u64,
    compressed: bool,
    /// Records started so far: the number of the last one.
    records: u64,
    /// Set after a gzip gap: the next record start is searched for, not assumed.
    seek: bool,
    finished: bool,
}

impl<R> fmt::Debug for DocreaderReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DocreaderReader")
            .field("source", &self.source)
            .field("records", &self.records)
            .field("max_record_bytes", &self.max_record_bytes)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

/// What stopped the bytes from coming.
enum Stop {
    /// The end of the input.
    End,
    /// A corrupt or truncated gzip member: reading goes on after it.
    Gap(GzipGap),
    /// A read error of the input: nothing more can be read.
    Failed(io::Error),
}

impl<R: Read> DocreaderReader<R> {
    /// A reader of the records in `stream`; `source` names the input in records and errors.
    pub fn new(source: impl Into<Arc<str>>, stream: R) -> DocreaderReader<R> {
        DocreaderReader {
            source: source.into(),
            input: Lookahead::new(stream),
            max_record_bytes: MAX_RECORD_BYTES,
            compressed: false,
            records: 0,
            seek: false,
            finished: false,
        }
    }

    /// Sets the longest message read (default [`MAX_RECORD_BYTES`]); a longer length is a bad
    /// length.
    pub fn with_max_record_bytes(mut self, max: u64) -> DocreaderReader<R> {
        self.max_record_bytes = max.min(u64::from(u32::MAX));
        self
    }

    /// Read errors are reported as gzip errors (the stream was decompressed).
    pub(crate) fn with_compressed(mut self, compressed: bool) -> DocreaderReader<R> {
        self.compressed = compressed;
        self
    }

    /// Why the bytes ran out, once every byte before the stop was consumed; after a gzip gap,
    /// reading goes on with the next member (and the next record start is searched for).
    fn stop(&mut self) -> Stop {
        match self.input.take_error() {
            None => Stop::End,
            Some(e) => match GzipGap::of(&e) {
                Some(gap) => {
                    let gap = gap.clone();
                    self.input.resume();
                    self.seek = true;
                    Stop::Gap(gap)
                }
                None => {
                    self.finished = true;
                    Stop::Failed(e)
                }
            },
        }
    }

    fn read_error(&self, e: &io::Error) -> String {
        read_error_message(e, self.compressed)
    }

    fn after_last(&self) -> String {
        match self.records {
            0 => "before the first record".to_owned(),
            n => format!("after record {n}"),
        }
    }

    /// An error that loses record `number` (at `offset`), listed under `url` when known.
    fn lost(&self, number: u64, offset: u64, url: Option<String>, reason: &str) -> Step {
        let id = url.unwrap_or_else(|| format!("{}#record-{number}", self.source));
        let message = format!("record {number} at offset {offset}: {reason}");
        Step::Error(InputError::new(&self.source, None, message).at_record(number).losing(id))
    }

    fn step(&mut self) -> Step {
        if std::mem::take(&mut self.seek)
            && let Some(step) = self.skip_to_start()
        {
            return step;
        }
        let avail = self.input.fill(HEADER);
        let header: Option<[u8; HEADER]> = avail.get(..HEADER).and_then(|h| h.try_into().ok());
        let avail_len = avail.len();
        if avail_len == 0 {
            let after = self.after_last();
            return match self.stop() {
                Stop::End => Step::End,
                Stop::Gap(gap) => {
                    Step::Error(InputError::new(&self.source, None, format!("{after}: {gap}")))
                }
                Stop::Failed(e) => Step::Fatal(InputError::new(
                    &self.source,
                    None,
                    format!("{after}: {}", self.read_error(&e)),
                )),
            };
        }
        let offset = self.input.offset();
        self.records += 1;
        let number = self.records;
        let Some(header) = header else {
            let n = avail_len;
            self.input.consume(n);
            let reason = match self.stop() {
                Stop::End => format!(
                    "truncated record: the input ends inside its 4-byte length, after {n} bytes"
                ),
                Stop::Gap(gap) => format!("corrupt gzip data in the record's length: {gap}"),
                Stop::Failed(e) => format!("truncated record: {}", self.read_error(&e)),
            };
            return self.lost(number, offset, None, &reason);
        };
        let len = u64::from(u32::from_le_bytes(header));
        if len > self.max_record_bytes {
            // Not a length: the record (if there was one) is found again by its start.
            self.input.consume(1);
            let skipped = self.skip_description(1);
            let reason = format!(
                "bad length: {len} bytes is over the {}-byte limit (not a record length); skipped \
                 {skipped}",
                self.max_record_bytes
            );
            return self.lost(number, offset, None, &reason);
        }
        self.input.consume(HEADER);
        let mut bytes = Vec::with_capacity(len.min(1 << 20) as usize);
        let got = self.input.copy(len, Some(&mut bytes));
        if got < len {
            if let Some(at) = embedded_start(&bytes, &[], false, self.max_record_bytes) {
                return self.cut(number, offset, len, bytes, at);
            }
            let url = url_of(&bytes);
            let reason = match self.stop() {
                Stop::End => format!(
                    "truncated record: the length is {len} bytes, the input ends after {got} of \
                     them"
                ),
                Stop::Gap(gap) => format!("corrupt gzip data in the record: {gap}"),
                Stop::Failed(e) => format!("truncated record: {}", self.read_error(&e)),
            };
            return self.lost(number, offset, url, &reason);
        }
        let block_end = self.input.offset();
        let max = self.max_record_bytes;
        let (next_ok, next_empty) = {
            let next = self.input.fill(BUFFER);
            (next_is_plausible(next, next.len() == BUFFER, max), next.is_empty())
        };
        if next_empty {
            // The end, or a gzip gap: the record is damaged when the failed member gave part of
            // it (a checksum mismatch is found at the member's end, after its data).
            let damaged = self
                .input
                .error()
                .and_then(GzipGap::of)
                .is_some_and(|gap| gap.damages_before(block_end));
            if damaged && let Stop::Gap(gap) = self.stop() {
                let reason = format!("corrupt gzip data in the record: {gap}");
                return self.lost(number, offset, url_of(&bytes), &reason);
            }
        }
        let parsed = scan(&bytes, bytes.len());
        let whole = parsed.as_ref().is_ok_and(|m| m.url.is_some_and(|u| !u.is_empty()));
        if !next_ok {
            let embedded = {
                let next = self.input.fill(BUFFER);
                embedded_start(&bytes, next, next.len() == BUFFER, max)
            };
            if let Some(at) = embedded {
                return self.cut(number, offset, len, bytes, at);
            }
            if !whole {
                let skipped = self.skip_description(0);
                let reason = format!(
                    "wrong length: the {len}-byte message does not read as one and is followed by \
                     bytes that are not a record (a length too short?); skipped {skipped}"
                );
                return self.lost(number, offset, url_of(&bytes), &reason);
            }
        }
        match parsed {
            Err(e) => {
                let reason = format!("malformed protobuf: {e}");
                self.lost(number, offset, url_of(&bytes), &reason)
            }
            Ok(m) if m.url.is_none_or(<[u8]>::is_empty) => {
                let what = if len == 0 { "a zero-length record" } else { "a message" };
                let reason = format!("no url: {what} without field 1 (url), which is required");
                self.lost(number, offset, None, &reason)
            }
            Ok(_) => Step::Record(RawRecord {
                source: self.source.clone(),
                line: Some(number),
                format: Format::Docreader,
                bytes,
                warc: None,
            }),
        }
    }

    /// A record whose length is too long: another record starts `at` bytes into its message. The
    /// bytes from there are read again; the record is lost.
    fn cut(&mut self, number: u64, offset: u64, len: u64, bytes: Vec<u8>, at: usize) -> Step {
        self.input.unread(&bytes[at..]);
        let url = url_of(&bytes[..at]);
        let reason = format!(
            "wrong length: {len} bytes is too long: the next record starts {at} bytes into the \
             message, at offset {}; the record was cut there",
            self.input.offset()
        );
        self.lost(number, offset, url, &reason)
    }

    /// Skips to the next record start: the bytes skipped, and whether a start was found (else
    /// the input is at its end, or an error stopped it).
    fn find_start(&mut self) -> (u64, bool) {
        let max = self.max_record_bytes;
        let mut skipped = 0u64;
        loop {
            let avail = self.input.fill(BUFFER);
            let more = avail.len() == BUFFER;
            let limit = if more { avail.len() - START_WINDOW } else { avail.len() };
            // A start has the url tag 4 bytes in.
            let found = memchr::memchr_iter(URL_TAG, &avail[..(limit + HEADER).min(avail.len())])
                .filter(|&tag| tag >= HEADER)
                .map(|tag| tag - HEADER)
                .find(|&at| record_start(&avail[at..], more, max));
            if let Some(at) = found {
                self.input.consume(at);
                return (skipped + at as u64, true);
            }
            self.input.consume(limit);
            skipped += limit as u64;
            if !more {
                return (skipped, false);
            }
        }
    }

    /// [`Self::find_start`] after a bad record, described for its error message (`already`
    /// bytes of it were consumed before).
    fn skip_description(&mut self, already: u64) -> String {
        match self.find_start() {
            (skipped, true) => format!(
                "{} bytes to the next record, at offset {}",
                skipped + already,
                self.input.offset()
            ),
            (skipped, false) => {
                let skipped = skipped + already;
                match self.stop() {
                    Stop::End => format!("{skipped} bytes to the end"),
                    Stop::Gap(gap) => format!("{skipped} bytes, then {gap}"),
                    Stop::Failed(e) => format!("{skipped} bytes, then {}", self.read_error(&e)),
                }
            }
        }
    }

    /// After a gzip gap: skips to the next record start. `None` when one starts right here;
    /// else the error that reports the bytes skipped.
    fn skip_to_start(&mut self) -> Option<Step> {
        let at = self.input.offset();
        let after = self.after_last();
        let (skipped, found) = self.find_start();
        if found && skipped == 0 {
            return None;
        }
        let what = format!("{skipped} bytes at offset {at} ({after}) are not a docreader record");
        let source = self.source.clone();
        let error = |message: String| InputError::new(&source, None, message);
        if skipped == 0 {
            // Nothing skipped, no start found: the end, or another gap, which the next step
            // reports.
            return None;
        }
        if found {
            let to = self.input.offset();
            return Some(Step::Error(error(format!(
                "{what}; skipped to the next record, at offset {to}"
            ))));
        }
        Some(match self.stop() {
            Stop::End => Step::Error(error(format!("{what}; skipped to the end"))),
            Stop::Gap(gap) => Step::Error(error(format!("{what}; then {gap}"))),
            Stop::Failed(e) => Step::Fatal(error(format!("{what}; then {}", self.read_error(&e)))),
        })
    }
}

impl<R: Read> Iterator for DocreaderReader<R> {
    type Item = Result<RawRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        self.step().into_next(&mut self.finished)
    }
}

/// The fields of a `document` message that the reader uses.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Message<'a> {
    /// Field 1.
    pub(crate) url: Option<&'a [u8]>,
    /// Field 2: the page's HTML.
    pub(crate) body: Option<&'a [u8]>,
    /// Field 3: the page's text.
    pub(crate) text: Option<&'a [u8]>,
    /// The number of the first field, if any.
    pub(crate) first_field: Option<u64>,
}

/// Why a message is not well-formed protobuf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed(String);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a varint at `*pos` of `data`: `Ok(None)` when `data` ends inside it.
fn varint(data: &[u8], pos: &mut usize) -> Result<Option<u64>, Malformed> {
    let start = *pos;
    let mut value = 0u64;
    for i in 0..10 {
        let Some(&b) = data.get(start + i) else { return Ok(None) };
        // The tenth byte holds bit 63 only.
        if i == 9 && b > 1 {
            break;
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            *pos = start + i + 1;
            return Ok(Some(value));
        }
    }
    Err(Malformed(format!("varint longer than 10 bytes at byte {start}")))
}

/// Scans the message of `len` bytes whose first `data.len()` bytes (all of it, or a prefix) are
/// `data`: its url, body and text where they are whole in `data`. A field that runs past `len`
/// is an error; one that runs past the end of a prefix ends the scan without one.
pub(crate) fn scan(data: &[u8], len: usize) -> Result<Message<'_>, Malformed> {
    let mut m = Message::default();
    scan_into(data, len, &mut m, true).map(|()| m)
}

/// Whether the message of `len` bytes whose first bytes are `data` is well-formed protobuf as
/// far as it goes, whatever its fields are (a known field with another wire type included): the
/// framing test of the record after another.
fn well_formed(data: &[u8], len: usize) -> bool {
    scan_into(data, len, &mut Message::default(), false).is_ok()
}

/// [`scan`] into `m`, which keeps the fields read before an error; `typed` checks the wire type
/// of the known fields (else they are skipped like unknown ones when it is not 2).
fn scan_into<'a>(
    data: &'a [u8],
    len: usize,
    m: &mut Message<'a>,
    typed: bool,
) -> Result<(), Malformed> {
    let complete = data.len() >= len;
    let data = &data[..data.len().min(len)];
    let mut groups: Vec<u64> = Vec::new();
    let mut pos = 0;
    // Ends the scan: an error when the message is complete (the field runs past its end).
    let cut = |what: &str, at: usize| {
        if complete {
            Err(Malformed(format!(
                "{what} at byte {at} runs past the end of the {len}-byte message"
            )))
        } else {
            Ok(())
        }
    };
    while pos < data.len() {
        let at = pos;
        let Some(key) = varint(data, &mut pos)? else {
            cut("a field key", at)?;
            break;
        };
        let field = key >> 3;
        let wire = (key & 7) as u8;
        if field == 0 {
            return Err(Malformed(format!("field number 0 at byte {at}")));
        }
        if field > u64::from(u32::MAX >> 3) {
            return Err(Malformed(format!("field number {field} is too large, at byte {at}")));
        }
        if wire > 5 {
            return Err(Malformed(format!("invalid wire type {wire} at byte {at}")));
        }
        m.first_field.get_or_insert(field);
        let known = groups.is_empty() && (1..=3).contains(&field);
        if typed && known && wire != 2 {
            let name = ["url", "body", "text"][field as usize - 1];
            return Err(Malformed(format!(
                "field {field} ({name}) has wire type {wire}, not 2 (a string), at byte {at}"
            )));
        }
        match wire {
            0 => {
                if varint(data, &mut pos)?.is_none() {
                    cut("a varint", at)?;
                    break;
                }
            }
            1 | 5 => {
                let size = if wire == 1 { 8 } else { 4 };
                if data.len() - pos < size {
                    cut(&format!("a {size}-byte field"), at)?;
                    break;
                }
                pos += size;
            }
            2 => {
                let Some(size) = varint(data, &mut pos)? else {
                    cut("a field length", at)?;
                    break;
                };
                if size > (len - pos) as u64 {
                    return Err(Malformed(format!(
                        "field {field} of {size} bytes at byte {at} runs past the end of the \
                         {len}-byte message"
                    )));
                }
                let size = size as usize;
                if data.len() - pos < size {
                    break;
                }
                let value = &data[pos..pos + size];
                pos += size;
                if known {
                    match field {
                        1 => m.url = Some(value),
                        2 => m.body = Some(value),
                        _ => m.text = Some(value),
                    }
                }
            }
            3 => {
                if groups.len() >= MAX_GROUP_DEPTH {
                    return Err(Malformed(format!(
                        "groups nested deeper than {MAX_GROUP_DEPTH}, at byte {at}"
                    )));
                }
                groups.push(field);
            }
            4 => {
                if groups.pop() != Some(field) {
                    return Err(Malformed(format!(
                        "end of group {field} without its start, at byte {at}"
                    )));
                }
            }
            _ => return Err(Malformed(format!("invalid wire type {wire} at byte {at}"))),
        }
    }
    if complete && let Some(open) = groups.last() {
        return Err(Malformed(format!("group {open} is not closed at the end of the message")));
    }
    Ok(())
}

/// The url of a (possibly damaged) message, when its fields up to the url read well.
fn url_of(bytes: &[u8]) -> Option<String> {
    let mut m = Message::default();
    // The fields read before the damage are kept.
    let _ = scan_into(bytes, bytes.len(), &mut m, true);
    let url = m.url.filter(|u| !u.is_empty())?;
    Some(String::from_utf8_lossy(url).into_owned())
}

/// Whether `w` (the bytes after a message; `more` when more may follow) looks like the next
/// record or the end: a length within `max` whose message reads well as far as it is seen.
fn next_is_plausible(w: &[u8], more: bool, max: u64) -> bool {
    if w.is_empty() {
        return true;
    }
    if w.len() < HEADER {
        return more;
    }
    let len = u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    len <= max && well_formed(&w[HEADER..], len as usize)
}

/// Whether a record starts at `w[0]` (see [`DocreaderReader`]): a length within `max`, then a
/// message whose first field is a url of at most 16 KiB without blanks or control characters,
/// whose fields read well as far as `w` goes, and, when it ends within `w`, followed by another
/// plausible record or the end. `more` says whether bytes may follow `w`.
pub(crate) fn record_start(w: &[u8], more: bool, max: u64) -> bool {
    if w.len() <= HEADER || w[HEADER] != URL_TAG {
        return false;
    }
    let len = u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    if len > max || len < 2 {
        return false;
    }
    let len = len as usize;
    let message = &w[HEADER..];
    let Ok(m) = scan(message, len) else { return false };
    let Some(url) = m.url else { return false };
    let url_ok = !url.is_empty()
        && url.len() <= MAX_START_URL
        && std::str::from_utf8(url)
            .is_ok_and(|u| !u.chars().any(|c| c.is_whitespace() || c.is_control()));
    if !url_ok {
        return false;
    }
    match message.get(len..) {
        Some(after) => next_is_plausible(after, more, max),
        None => true,
    }
}

/// Where a record starts inside `block` (the message of a record whose next bytes are not a
/// record), looking on into `after`, the bytes that follow the block; `more` when bytes may
/// follow `after`.
fn embedded_start(block: &[u8], after: &[u8], more: bool, max: u64) -> Option<usize> {
    // A start has the url tag 4 bytes in: in the block, or, for the last starts, in `after`.
    let in_block =
        memchr::memchr_iter(URL_TAG, block).filter(|&tag| tag > HEADER).map(|tag| tag - HEADER);
    let straddling = (block.len().saturating_sub(HEADER).max(1)..block.len())
        .filter(|&at| after.get(at + HEADER - block.len()) == Some(&URL_TAG));
    in_block.chain(straddling).find(|&at| {
        let rest = &block[at..];
        if rest.len() >= BUFFER {
            return record_start(&rest[..BUFFER], true, max);
        }
        let joined = [rest, &after[..after.len().min(BUFFER - rest.len())]].concat();
        if joined.len() < HEADER {
            return false;
        }
        let header = u32::from_le_bytes([joined[0], joined[1], joined[2], joined[3]]);
        if u64::from(header) > max {
            return false;
        }
        let more = more || after.len() > BUFFER - rest.len();
        record_start(&joined, more, max)
    })
}

/// Decodes a [`Format::Docreader`] record (see [`DocreaderReader`]).
pub(crate) fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    let fallback = || rec.origin().to_string();
    let m = match scan(&rec.bytes, rec.bytes.len()) {
        Ok(m) => m,
        Err(e) => {
            return Decoded::Skip { id: fallback(), reason: format!("malformed protobuf: {e}") };
        }
    };
    let Some(url) = m.url.filter(|u| !u.is_empty()) else {
        return Decoded::Skip {
            id: fallback(),
            reason: "no url: a message without field 1 (url), which is required".to_owned(),
        };
    };
    let mut warnings = Vec::new();
    let id = match std::str::from_utf8(url) {
        Ok(url) => url.to_owned(),
        Err(_) => {
            warnings.push("url is not valid UTF-8: invalid bytes replaced with U+FFFD".to_owned());
            String::from_utf8_lossy(url).into_owned()
        }
    };
    let tld = crate::warc::tld(&id);
    let (payload, kind) = match (m.body.filter(|b| !b.is_empty()), m.text) {
        (Some(body), _) => (body, Kind::Html),
        (None, Some(text)) if !text.is_empty() => (text, Kind::Plain),
        _ => {
            return Decoded::Skip {
                id,
                reason: "empty record: no body (field 2) and no text (field 3)".to_owned(),
            };
        }
    };
    if let Some(media) = magic_type(payload) {
        return Decoded::Skip { id, reason: format!("binary payload: {media}") };
    }
    let decoded = charset::decode(payload, kind, None, tld.as_deref());
    warnings.extend(decoded.warning);
    let page = match kind {
        Kind::Html => html_text(decoded.text, opts, Some(&id)),
        Kind::Plain => HtmlText::plain_text(decoded.text),
    };
    warnings.extend(page.warning);
    let doc = Document {
        id,
        text: page.text,
        raw_fingerprint: Some(raw_fingerprint(payload)),
        raw_len: rec.bytes.len() as u64,
    };
    Decoded::Doc {
        doc,
        warning: (!warnings.is_empty()).then(|| warnings.join("; ")),
        charset: decoded.charset,
        title: page.title,
        extraction: page.extraction,
        visible: page.visible,
        site: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(number: u64, value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, number << 3 | 2);
        put_varint(&mut out, value.len() as u64);
        out.extend_from_slice(value);
        out
    }

    fn put_varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    #[test]
    fn varints() {
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            let mut pos = 0;
            assert_eq!(varint(&buf, &mut pos), Ok(Some(v)));
            assert_eq!(pos, buf.len());
            let mut pos = 0;
            assert_eq!(varint(&buf[..buf.len() - 1], &mut pos), Ok(None));
        }
        let mut pos = 0;
        assert!(varint(&[0xff; 11], &mut pos).is_err());
        // A tenth byte with more than bit 63.
        let mut ten = vec![0xff; 9];
        ten.push(0x02);
        assert!(varint(&ten, &mut 0).is_err());
    }

    #[test]
    fn scan_skips_unknown_fields_of_every_wire_type() {
        let mut m = Vec::new();
        m.extend([4 << 3, 0x96, 0x01]); // field 4, varint 150
        m.extend(field(1, b"http://x/"));
        m.push(5 << 3 | 1); // field 5, fixed64
        m.extend([1, 2, 3, 4, 5, 6, 7, 8]);
        m.push(6 << 3 | 5); // field 6, fixed32
        m.extend([1, 2, 3, 4]);
        m.push(7 << 3 | 3); // group 7 holding a field 1 of its own
        m.extend(field(1, b"inner"));
        m.push(7 << 3 | 4);
        m.extend(field(9, b"unknown bytes"));
        m.extend(field(3, b"some text"));
        let got = scan(&m, m.len()).unwrap();
        assert_eq!(got.url, Some(&b"http://x/"[..]));
        assert_eq!(got.text, Some(&b"some text"[..]));
        assert_eq!(got.body, None);
        assert_eq!(got.first_field, Some(4));
    }

    #[test]
    fn scan_rejects_malformed_messages() {
        let err = |m: &[u8]| scan(m, m.len()).unwrap_err().to_string();
        assert_eq!(err(&[0x00]), "field number 0 at byte 0");
        assert_eq!(err(&[1 << 3 | 6]), "invalid wire type 6 at byte 0");
        assert_eq!(
            err(&[0x08, 0x01]),
            "field 1 (url) has wire type 0, not 2 (a string), at byte 0"
        );
        assert_eq!(
            err(&[0x0a, 0x05, b'a']),
            "field 1 of 5 bytes at byte 0 runs past the end of the 3-byte message"
        );
        assert_eq!(err(&[4 << 3 | 4]), "end of group 4 without its start, at byte 0");
        assert_eq!(err(&[4 << 3 | 3]), "group 4 is not closed at the end of the message");
        assert_eq!(
            err(&[5 << 3 | 5, 1, 2]),
            "a 4-byte field at byte 0 runs past the end of the 3-byte message"
        );
        // A prefix is not an error where the message goes on.
        let m = field(1, b"http://long.example/");
        assert_eq!(scan(&m[..5], m.len()).unwrap().url, None);
    }

    #[test]
    fn record_starts() {
        let message = [field(1, b"http://a.example/"), field(2, b"<p>x")].concat();
        let mut rec = (message.len() as u32).to_le_bytes().to_vec();
        rec.extend(&message);
        assert!(record_start(&rec, false, MAX_RECORD_BYTES));
        // Followed by another record, or by garbage.
        let mut two = rec.clone();
        two.extend(&rec);
        assert!(record_start(&two, false, MAX_RECORD_BYTES));
        let mut garbage = rec.clone();
        garbage.extend(b"<html> and more text");
        assert!(!record_start(&garbage, false, MAX_RECORD_BYTES));
        // A url with a blank is not a start.
        let message = field(1, b"not a url");
        let mut rec = (message.len() as u32).to_le_bytes().to_vec();
        rec.extend(&message);
        assert!(!record_start(&rec, false, MAX_RECORD_BYTES));
        // Text is never a start.
        assert!(!record_start(b"hello\nworld\n", false, MAX_RECORD_BYTES));
    }
}
