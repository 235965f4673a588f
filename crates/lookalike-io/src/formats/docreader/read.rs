//! Reading docreader records: contract: "give me a (decompressed) stream of length-prefixed
//! protobuf `document` messages, I give you one raw record per message, in order, holding at most
//! one record in memory, and an error naming the record, its number and its offset for every part
//! I cannot read".
//!
//! The reading rules and error messages are documented on [`DocreaderReader`].

use std::fmt;
use std::io::Read;
use std::sync::Arc;

use super::wire::{HEADER, START_WINDOW, URL_TAG, next_is_plausible, record_start, scan, url_of};
use crate::error::InputError;
use crate::format::Format;
use crate::framed::{Framed, Search, Step, Stop};
use crate::lookahead::BUFFER;
use crate::record::RawRecord;

/// Reads the records of one docreader stream (already decompressed; [`crate::Reader`] undoes
/// gzip, one member per file or many). Yields a [`RawRecord`] of format [`Format::Docreader`] for
/// every message read whole, or an [`InputError`] for every record (or run of bytes) that cannot be
/// read; after a read error of the input itself, it ends.
///
/// # The format
///
/// The course assignment's collections (`zcat ... | docreader.py`) are a sequence of records, each
/// a 4-byte little-endian length followed by that many bytes of a protobuf message
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
///
/// [`MAX_RECORD_BYTES`]: crate::MAX_RECORD_BYTES
pub struct DocreaderReader<R> {
    /// After a gzip gap ([`Framed::after_gap`]) the next record start is searched for, not
    /// assumed.
    framed: Framed<R>,
}

impl<R> fmt::Debug for DocreaderReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DocreaderReader")
            .field("source", &self.framed.source)
            .field("records", &self.framed.records)
            .field("max_record_bytes", &self.framed.max_record_bytes)
            .field("finished", &self.framed.finished)
            .finish_non_exhaustive()
    }
}

impl<R: Read> DocreaderReader<R> {
    /// A reader of the records in `stream`; `source` names the input in records and errors.
    pub fn new(source: impl Into<Arc<str>>, stream: R) -> DocreaderReader<R> {
        DocreaderReader { framed: Framed::new(source.into(), stream) }
    }

    /// Sets the longest message read (default [`MAX_RECORD_BYTES`]); a longer length is a bad
    /// length.
    ///
    /// [`MAX_RECORD_BYTES`]: crate::MAX_RECORD_BYTES
    pub fn with_max_record_bytes(mut self, max: u64) -> DocreaderReader<R> {
        self.framed.max_record_bytes = max.min(u64::from(u32::MAX));
        self
    }

    /// Read errors are reported as gzip errors (the stream was decompressed).
    pub(crate) fn with_compressed(mut self, compressed: bool) -> DocreaderReader<R> {
        self.framed.compressed = compressed;
        self
    }

    /// An error that loses record `number` (at `offset`), listed under `url` when known.
    fn lost(&self, number: u64, offset: u64, url: Option<String>, reason: &str) -> Step {
        let id = url.unwrap_or_else(|| format!("{}#record-{number}", self.framed.source));
        let message = format!("record {number} at offset {offset}: {reason}");
        Step::Error(
            InputError::new(&self.framed.source, None, message).at_record(number).losing(id),
        )
    }

    fn step(&mut self) -> Step {
        if std::mem::take(&mut self.framed.after_gap)
            && let Some(step) = self.skip_to_start()
        {
            return step;
        }
        let avail = self.framed.input.fill(HEADER);
        let header: Option<[u8; HEADER]> = avail.get(..HEADER).and_then(|h| h.try_into().ok());
        let avail_len = avail.len();
        if avail_len == 0 {
            return self.framed.end_between_records();
        }
        let offset = self.framed.input.offset();
        self.framed.records += 1;
        let number = self.framed.records;
        let Some(header) = header else {
            let n = avail_len;
            self.framed.input.consume(n);
            let reason = match self.framed.stop() {
                Stop::End => format!(
                    "truncated record: the input ends inside its 4-byte length, after {n} bytes"
                ),
                Stop::Gap(gap) => format!("corrupt gzip data in the record's length: {gap}"),
                Stop::Failed(e) => format!("truncated record: {}", self.framed.read_error(&e)),
            };
            return self.lost(number, offset, None, &reason);
        };
        let len = u64::from(u32::from_le_bytes(header));
        if len > self.framed.max_record_bytes {
            // Not a length: the record (if there was one) is found again by its start.
            self.framed.input.consume(1);
            let skipped = self.skip_description(1);
            let reason = format!(
                "bad length: {len} bytes is over the {}-byte limit (not a record length); skipped \
                 {skipped}",
                self.framed.max_record_bytes
            );
            return self.lost(number, offset, None, &reason);
        }
        self.framed.input.consume(HEADER);
        let mut bytes = Vec::with_capacity(len.min(1 << 20) as usize);
        let got = self.framed.input.copy(len, Some(&mut bytes));
        if got < len {
            if let Some(at) = embedded_start(&bytes, &[], false, self.framed.max_record_bytes) {
                return self.cut(number, offset, len, bytes, at);
            }
            let url = url_of(&bytes);
            let reason = match self.framed.stop() {
                Stop::End => format!(
                    "truncated record: the length is {len} bytes, the input ends after {got} of \
                     them"
                ),
                Stop::Gap(gap) => format!("corrupt gzip data in the record: {gap}"),
                Stop::Failed(e) => format!("truncated record: {}", self.framed.read_error(&e)),
            };
            return self.lost(number, offset, url, &reason);
        }
        let block_end = self.framed.input.offset();
        let max = self.framed.max_record_bytes;
        let (next_ok, next_empty) = {
            let next = self.framed.input.fill(BUFFER);
            (next_is_plausible(next, next.len() == BUFFER, max), next.is_empty())
        };
        if next_empty {
            // The end, or a gzip gap that damaged the record.
            if let Some(gap) = self.framed.damaging_gap(block_end) {
                let reason = format!("corrupt gzip data in the record: {gap}");
                return self.lost(number, offset, url_of(&bytes), &reason);
            }
        }
        let parsed = scan(&bytes, bytes.len());
        let whole = parsed.as_ref().is_ok_and(|m| m.url.is_some_and(|u| !u.is_empty()));
        if !next_ok {
            let embedded = {
                let next = self.framed.input.fill(BUFFER);
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
                source: self.framed.source.clone(),
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
        self.framed.input.unread(&bytes[at..]);
        let url = url_of(&bytes[..at]);
        let reason = format!(
            "wrong length: {len} bytes is too long: the next record starts {at} bytes into the \
             message, at offset {}; the record was cut there",
            self.framed.input.offset()
        );
        self.lost(number, offset, url, &reason)
    }

    /// Skips to the next record start: the bytes skipped, and whether a start was found (else
    /// the input is at its end, or an error stopped it).
    fn find_start(&mut self) -> (u64, bool) {
        let max = self.framed.max_record_bytes;
        self.framed.resync(BUFFER, |avail| {
            let more = avail.len() == BUFFER;
            let limit = if more { avail.len() - START_WINDOW } else { avail.len() };
            // A start has the url tag 4 bytes in.
            let found = memchr::memchr_iter(URL_TAG, &avail[..(limit + HEADER).min(avail.len())])
                .filter(|&tag| tag >= HEADER)
                .map(|tag| tag - HEADER)
                .find(|&at| record_start(&avail[at..], more, max));
            match found {
                Some(at) => Search::Found(at),
                None if more => Search::Skip(limit),
                None => Search::End(limit),
            }
        })
    }

    /// [`Self::find_start`] after a bad record, described for its error message (`already`
    /// bytes of it were consumed before).
    fn skip_description(&mut self, already: u64) -> String {
        let (skipped, found) = self.find_start();
        self.framed.skipped_to(&format!("{} bytes", skipped + already), found)
    }

    /// After a gzip gap: skips to the next record start. `None` when one starts right here;
    /// else the error that reports the bytes skipped.
    fn skip_to_start(&mut self) -> Option<Step> {
        let at = self.framed.input.offset();
        let after = self.framed.after_last();
        let (skipped, found) = self.find_start();
        if found && skipped == 0 {
            return None;
        }
        let what = format!("{skipped} bytes at offset {at} ({after}) are not a docreader record");
        let source = self.framed.source.clone();
        let error = |message: String| InputError::new(&source, None, message);
        if skipped == 0 {
            // Nothing skipped, no start found: the end, or another gap, which the next step
            // reports.
            return None;
        }
        if found {
            let to = self.framed.input.offset();
            return Some(Step::Error(error(format!(
                "{what}; skipped to the next record, at offset {to}"
            ))));
        }
        Some(match self.framed.stop() {
            Stop::End => Step::Error(error(format!("{what}; skipped to the end"))),
            Stop::Gap(gap) => Step::Error(error(format!("{what}; then {gap}"))),
            Stop::Failed(e) => {
                Step::Fatal(error(format!("{what}; then {}", self.framed.read_error(&e))))
            }
        })
    }
}

impl<R: Read> Iterator for DocreaderReader<R> {
    type Item = Result<RawRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.framed.finished {
            return None;
        }
        self.step().into_next(&mut self.framed.finished)
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
