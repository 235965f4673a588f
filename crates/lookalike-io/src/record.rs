//! Records, as read and as decoded: contract: "a record is one document's bytes, where they are
//! and how to read them; decoded, it is a [`Document`] or the reason it has none".
//!
//! What every format shares: [`RawRecord`] (with the [`WarcHeader`] a WARC record carries), the
//! record size limit, [`Decoded`], the id of a record without one of its own, and the message of a
//! read error.

use std::io;
use std::sync::Arc;

use lookalike::Document;

use crate::format::Format;
use crate::gzip::GzipGap;
use crate::skip::SkipReason;

/// The largest record read into memory (256 MiB): a longer JSONL line, or a bigger text or HTML
/// file, is reported as an [`InputError`] and skipped without being loaded; a bigger WARC
/// response is read past and yielded without its bytes, to be skipped with a reason.
///
/// [`InputError`]: crate::InputError
pub const MAX_RECORD_BYTES: u64 = 256 << 20;

/// The bytes of one record, before decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRecord {
    /// Display name of the input: the path as given, `-` for stdin. Shared by all the records of
    /// one input.
    pub source: Arc<str>,
    /// The 1-based line of a JSONL record, row of a Parquet record or number of a docreader
    /// record; `None` for a whole-file record and a WARC record (whose number is
    /// [`WarcHeader::number`]).
    pub line: Option<u64>,
    /// How to decode [`RawRecord::bytes`].
    pub format: Format,
    /// The whole (decompressed) file for text and HTML; the line without its line ending for
    /// JSONL; the content block (HTTP headers and payload, as stored) of a WARC response, empty
    /// for other WARC records and for responses the reader already skips.
    pub bytes: Vec<u8>,
    /// For a WARC record, what its header says (number, offset, type, id, and a skip reason when
    /// the record holds no document); `None` for every other format.
    pub warc: Option<Box<WarcHeader>>,
}

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
    /// record` ([`SkipKind::WarcRecordType`](crate::SkipKind::WarcRecordType)), damaged framing,
    /// or a size over the reader's limit. Its block is then not stored.
    pub skip: Option<SkipReason>,
}

/// The result of decoding one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A document to compare.
    Doc {
        /// The document.
        doc: Document,
        /// Something lossy or uncertain happened on the way, e.g. `invalid UTF-8 replaced with
        /// U+FFFD: 2 bytes` or `charset detected: windows-1251`; several are joined with `; `.
        warning: Option<String>,
        /// The charset the text was read in, by its WHATWG name (`UTF-8`, `windows-1251`,
        /// `Shift_JIS`, `GBK`, `UTF-16LE`, ...); `UTF-8` for JSONL.
        charset: &'static str,
        /// The page's title, for HTML read with [`Extract::Main`](crate::Extract::Main) (it is
        /// not part of the text).
        title: Option<String>,
        /// How the text was obtained: `plain` (text, JSONL), `main` (main content), `text` (all
        /// visible text, asked for or as the fallback of `main`) or `none` (markup as is).
        extraction: &'static str,
        /// The page's visible text, one block a line, when
        /// [`ReadOptions::visible_text`](crate::ReadOptions::visible_text) asked for it and the
        /// text is the main content of an HTML page (see [`crate::extract_main_and_visible`]).
        visible: Option<String>,
        /// The value of the record's [`ReadOptions::site_field`](crate::ReadOptions::site_field)
        /// (JSONL, Parquet), if any.
        site: Option<String>,
    },
    /// The record holds no document; it must still be reported, with this reason.
    Skip {
        /// The record's id (its id field, or `source:line`; for WARC records see
        /// [`crate::WarcReader`]).
        id: String,
        /// Why there is no document, e.g. `invalid JSON: ...`, `no string field 'text'`, `WARC
        /// request record` or `binary payload: image/png`.
        reason: SkipReason,
    },
}

/// The id of a record that has none of its own: `source:line`, or the source for a whole file.
pub(crate) fn position_id(rec: &RawRecord) -> String {
    match rec.line {
        Some(line) => format!("{}:{}", rec.source, line),
        None => rec.source.to_string(),
    }
}

pub(crate) fn read_error_message(e: &io::Error, compressed: bool) -> String {
    if let Some(gap) = GzipGap::of(e) {
        return gap.to_string();
    }
    let data_error = matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData
    );
    if compressed && data_error {
        format!("truncated or corrupt gzip data: {e}")
    } else {
        format!("read error: {e}")
    }
}
