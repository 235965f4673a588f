//! Decoding raw records into documents: contract: "give me a record's bytes, I give you a
//! [`Document`](lookalike::Document) (with the charset it was read in, and a warning if some bytes
//! were not valid text or the charset was a guess) or the reason it has none".
//!
//! Decoding is a pure function of the record and the options, so callers may run it on many
//! threads while one thread reads. Each format decodes its own records (`formats/*/decode.rs`);
//! this module picks the format.

use crate::format::Format;
use crate::formats::{docreader, jsonl, text, warc};
use crate::options::ReadOptions;
use crate::record::{Decoded, RawRecord};

/// Decodes a record by its format.
///
/// - Text: the whole record is the text, the id is the source name. The charset is the BOM's,
///   else UTF-16 when the bytes unmistakably are (NUL bytes at one parity: the high bytes of
///   ASCII characters; with a warning), else UTF-8 when the bytes are (nearly) valid UTF-8, else
///   detected with `chardetng` (with a warning naming it). Binary content is a
///   [`Decoded::Skip`], not text: the magic bytes of an image, an archive, a PDF, Parquet...
///   (`binary file: image/png`), or NUL bytes that are not UTF-16.
/// - HTML: the visible text ([`crate::html_to_text`]), the id is the source name. The charset is
///   the BOM's, else a `<meta>` declaration's, else found as for text; binary content is skipped
///   as for text.
/// - WARC: a `response` record's HTTP payload, decoded (chunked transfer coding, gzip or deflate
///   content coding), read in the charset of the HTTP header, a `<meta>` or detection, and
///   extracted as HTML or text; the id is the target URI. Other records, and responses without
///   a document (binary payloads, non-2xx statuses, ...), are [`Decoded::Skip`]s with the reason
///   (see [`crate::WarcReader`]).
/// - Docreader: the id is the record's url; its `body` is read as a WARC response's HTML payload
///   is (charset by `<meta>` or detection, then `--extract`), or, without a body, its `text` as
///   plain text; a record with neither is a [`Decoded::Skip`] (see [`crate::DocreaderReader`]).
/// - JSONL: the id is the [`ReadOptions::id_field`] value (a string as is, another value as its
///   JSON text; absent or null: `source:line`), the text is the [`ReadOptions::text_field`]
///   value, which must be a string. Invalid JSON, a line that is not an object and a missing or
///   non-string text field are [`Decoded::Skip`]s. A lone UTF-16 surrogate escape (`"\ud800"`,
///   which JSON writers produce from strings cut in the middle of a surrogate pair) is not
///   valid in a string: it is read as U+FFFD, with a warning, rather than losing the record.
///
/// `raw_fingerprint` is the fingerprint of the file's bytes for text and HTML, of the text
/// field for JSONL and of the (decoded) HTTP payload for WARC (the same text or page under
/// another id or URL is a full-layout copy); `raw_len` is the size of the record.
pub fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    match rec.format {
        Format::Text | Format::Html => text::decode(rec, opts),
        // Parquet rows are handed over as JSON objects (see the `parquet` module).
        Format::Jsonl | Format::Parquet => jsonl::decode(rec, opts),
        Format::Warc => warc::decode(rec, opts),
        Format::Docreader => docreader::decode(rec, opts),
    }
}
