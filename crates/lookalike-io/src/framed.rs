//! The framed reader the record-by-record formats (WARC, docreader) share: contract: "give me a
//! (decompressed) stream, I count your records, tell you why the bytes stopped (the end, a gzip
//! gap after which reading goes on, a read error after which it cannot), skip to where your format
//! says the next record starts, and turn each step of your reader into the iterator's item".
//!
//! A format keeps a [`Framed`] and writes its `step`: it reads one record's framing from
//! [`Framed::input`] and says what it found ([`Step`]); what to do when the bytes run out, how a
//! gzip gap ends or damages a record, and the loop that skips bytes to the next record start are
//! here. What a record start is, and the messages that name the format's records, are the
//! format's.

use std::io::{self, Read};
use std::sync::Arc;

use crate::error::InputError;
use crate::gzip::GzipGap;
use crate::lookahead::Lookahead;
use crate::record::{MAX_RECORD_BYTES, RawRecord, read_error_message};

/// The state every framed reader has: its input, what it has read, and whether it can go on.
pub(crate) struct Framed<R> {
    /// The input's name, in records and errors.
    pub(crate) source: Arc<str>,
    pub(crate) input: Lookahead<R>,
    pub(crate) max_record_bytes: u64,
    /// Read errors are reported as gzip errors (the stream was decompressed).
    pub(crate) compressed: bool,
    /// Records started so far: the number of the last one.
    pub(crate) records: u64,
    /// Set by [`Framed::stop`] after a gzip gap, for a format that searches for the next record
    /// start then (docreader) rather than at the next step's bad bytes (WARC).
    pub(crate) after_gap: bool,
    /// Set after a read error of the input: nothing more can be read.
    pub(crate) finished: bool,
}

/// What stopped the bytes from coming.
pub(crate) enum Stop {
    /// The end of the input.
    End,
    /// A corrupt or truncated gzip member: reading goes on after it.
    Gap(GzipGap),
    /// A read error of the input: nothing more can be read.
    Failed(io::Error),
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

/// What a search of the buffered bytes for the next record start found.
pub(crate) enum Search {
    /// A record starts this many bytes in.
    Found(usize),
    /// None starts in the first this many bytes: they are skipped, and the search goes on.
    Skip(usize),
    /// None starts, and nothing follows these bytes: they are skipped, and the search ends.
    End(usize),
}

impl<R: Read> Framed<R> {
    /// A reader of `stream`, named `source`.
    pub(crate) fn new(source: Arc<str>, stream: R) -> Framed<R> {
        Framed {
            source,
            input: Lookahead::new(stream),
            max_record_bytes: MAX_RECORD_BYTES,
            compressed: false,
            records: 0,
            after_gap: false,
            finished: false,
        }
    }

    /// An error about the input (not losing a record).
    pub(crate) fn error(&self, message: String) -> InputError {
        InputError::new(&self.source, None, message)
    }

    /// Why the bytes ran out, once every byte before the stop was consumed; after a gzip gap,
    /// reading goes on with the next member (and [`Framed::after_gap`] is set); after a read
    /// error, the reader is finished.
    pub(crate) fn stop(&mut self) -> Stop {
        debug_assert!(self.input.fill(0).is_empty());
        match self.input.take_error() {
            None => Stop::End,
            Some(e) => match GzipGap::of(&e) {
                Some(gap) => {
                    let gap = gap.clone();
                    self.input.resume();
                    self.after_gap = true;
                    Stop::Gap(gap)
                }
                None => {
                    self.finished = true;
                    Stop::Failed(e)
                }
            },
        }
    }

    pub(crate) fn read_error(&self, e: &io::Error) -> String {
        read_error_message(e, self.compressed)
    }

    /// Where the reader is, for messages: before the first record, or after the last one started.
    pub(crate) fn after_last(&self) -> String {
        match self.records {
            0 => "before the first record".to_owned(),
            n => format!("after record {n}"),
        }
    }

    /// The step when the bytes ran out between records: the end, or the gzip gap or read error
    /// that stopped them, placed after the last record.
    pub(crate) fn end_between_records(&mut self) -> Step {
        let after = self.after_last();
        match self.stop() {
            Stop::End => Step::End,
            Stop::Gap(gap) => Step::Error(self.error(format!("{after}: {gap}"))),
            Stop::Failed(e) => Step::Fatal(self.error(format!("{after}: {}", self.read_error(&e)))),
        }
    }

    /// When nothing follows a record's block, which ended at offset `block_end`: the gzip gap that
    /// stopped the bytes, if the failed member gave part of the record (a checksum mismatch is
    /// found at the member's end, after its data), so the record is damaged.
    pub(crate) fn damaging_gap(&mut self, block_end: u64) -> Option<GzipGap> {
        let damaged = self
            .input
            .error()
            .and_then(GzipGap::of)
            .is_some_and(|gap| gap.damages_before(block_end));
        if damaged && let Stop::Gap(gap) = self.stop() { Some(gap) } else { None }
    }

    /// Skips to the next record start, looking at `window` bytes at a time with `search`: the
    /// number of bytes skipped, and whether a start was found (else the input is at its end, or
    /// an error stopped it).
    pub(crate) fn resync(
        &mut self,
        window: usize,
        mut search: impl FnMut(&[u8]) -> Search,
    ) -> (u64, bool) {
        let mut skipped = 0u64;
        loop {
            let avail = self.input.fill(window);
            match search(avail) {
                Search::Found(at) => {
                    self.input.consume(at);
                    return (skipped + at as u64, true);
                }
                Search::Skip(n) => {
                    self.input.consume(n);
                    skipped += n as u64;
                }
                Search::End(n) => {
                    self.input.consume(n);
                    return (skipped + n as u64, false);
                }
            }
        }
    }

    /// Bytes skipped by [`Framed::resync`] (`skipped`, such as `12 bytes`) and where the
    /// skip ended, for a message: `12 bytes to the next record, at offset 345`, `... to the end`,
    /// or `..., then` the gzip gap or read error that stopped it.
    pub(crate) fn skipped_to(&mut self, skipped: &str, found: bool) -> String {
        if found {
            return format!("{skipped} to the next record, at offset {}", self.input.offset());
        }
        match self.stop() {
            Stop::End => format!("{skipped} to the end"),
            Stop::Gap(gap) => format!("{skipped}, then {gap}"),
            Stop::Failed(e) => format!("{skipped}, then {}", self.read_error(&e)),
        }
    }
}
