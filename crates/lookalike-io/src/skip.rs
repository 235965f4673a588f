//! Skip reasons: contract: "a record that holds no document says why, as one typed value, from
//! the reader that found it to every output".
//!
//! A [`SkipReason`] is a [`SkipKind`] (what callers tell apart: an expected WARC record that is
//! not a response, damaged bytes, a record that is not a document, ...) and the text reports
//! print, which is stable: scripts and the run summary read it. The summary groups reasons by
//! their [class](SkipReason::class), the text before the first colon. The pipeline's own reasons
//! ([`lookalike::SkipReason`]) are one kind, [`SkipKind::Pipeline`], so a report row of either
//! source goes through this one type.

use std::borrow::Cow;
use std::fmt;

/// What kind of skip a [`SkipReason`] is: the families callers treat differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkipKind {
    /// A WARC record that is not a response (`WARC request record`, `WARC metadata record`,
    /// `WARC warcinfo record`, ...): expected in every crawl file, counted, not listed one by
    /// one.
    WarcRecordType,
    /// Damaged bytes: WARC framing (truncated record, bad header, wrong `Content-Length`, no
    /// `WARC-Type`), corrupt gzip data or content coding, malformed protobuf, invalid JSON, a
    /// malformed HTTP header.
    Damaged,
    /// A whole record that is not a document: a binary payload or file, a non-2xx HTTP status, a
    /// WARC response that is not HTTP, a media type that is not a document; a file found in a
    /// folder that is not one (a web page asset, a JSON document).
    NotADocument,
    /// A record with nothing in it: an empty payload, WARC response, docreader record or file.
    Empty,
    /// A record without the field a document needs: no string text field, no url, or JSON that
    /// is not an object.
    MissingField,
    /// A record over a size limit (the record, or its payload once decoded).
    TooLarge,
    /// A record the reader lost, with its input error's message.
    Unreadable,
    /// A file found in a directory and not opened: a special file (FIFO, socket, device) or a
    /// symbolic link loop.
    NotOpened,
    /// A page that is nothing but its site's template (site boilerplate removal).
    Boilerplate,
    /// A document the pipeline did not compare (empty text, no tokens).
    Pipeline(lookalike::SkipReason),
}

/// Why a record holds no document: its [`SkipKind`] and the text reports print (see the module
/// docs). `Display` writes the text.
///
/// ```
/// use lookalike_io::{SkipKind, SkipReason};
///
/// let request = SkipReason::warc_record_type("request");
/// assert_eq!(request.kind(), SkipKind::WarcRecordType);
/// assert_eq!(request.to_string(), "WARC request record");
/// let json = SkipReason::damaged(format!("invalid JSON: {}", "EOF while parsing"));
/// assert_eq!(json.class(), "invalid JSON");
/// let core = SkipReason::from(lookalike::SkipReason::NoTokens);
/// assert_eq!(core.to_string(), "no tokens after normalization");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SkipReason {
    kind: SkipKind,
    text: Cow<'static, str>,
}

impl SkipReason {
    fn new(kind: SkipKind, text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason { kind, text: text.into() }
    }

    /// A WARC record of type `warc_type` (lower-cased, not `response`): `WARC request record`.
    pub fn warc_record_type(warc_type: &str) -> SkipReason {
        SkipReason::new(SkipKind::WarcRecordType, format!("WARC {warc_type} record"))
    }

    /// Damaged bytes (see [`SkipKind::Damaged`]), described by `text`.
    pub fn damaged(text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::Damaged, text)
    }

    /// A record whose gzip member is damaged: `corrupt gzip data in the record: {gap}`.
    pub fn corrupt_gzip_in_record(gap: impl fmt::Display) -> SkipReason {
        SkipReason::damaged(format!("corrupt gzip data in the record: {gap}"))
    }

    /// A record that is not a document (see [`SkipKind::NotADocument`]), described by `text`.
    pub fn not_a_document(text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::NotADocument, text)
    }

    /// A binary payload: `binary payload: {what}` (a media type, with what was declared).
    pub fn binary_payload(what: impl fmt::Display) -> SkipReason {
        SkipReason::not_a_document(format!("binary payload: {what}"))
    }

    /// A record with nothing in it, described by `text`.
    pub fn empty(text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::Empty, text)
    }

    /// A record without the field a document needs, described by `text`.
    pub fn missing_field(text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::MissingField, text)
    }

    /// A record over a size limit, described by `text`.
    pub fn too_large(text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::TooLarge, text)
    }

    /// A record the reader lost: the message of its [`InputError`](crate::InputError).
    pub fn unreadable(message: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::Unreadable, message)
    }

    /// A file found in a directory and not opened (see [`SkipKind::NotOpened`]), described by
    /// `text`.
    pub fn not_opened(text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::NotOpened, text)
    }

    /// A page that is nothing but its site's template, described by `text`.
    pub fn boilerplate(text: impl Into<Cow<'static, str>>) -> SkipReason {
        SkipReason::new(SkipKind::Boilerplate, text)
    }

    /// What kind of skip this is.
    pub fn kind(&self) -> SkipKind {
        self.kind
    }

    /// The text reports print: `WARC request record`, `invalid JSON: ...`, `empty text`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The group the summary counts the reason in: the text before the first colon, trimmed
    /// (`invalid JSON: EOF ...` → `invalid JSON`).
    pub fn class(&self) -> &str {
        self.text.split(':').next().unwrap_or_default().trim()
    }

    /// A WARC record that is not a response: expected in every crawl file, counted and not
    /// reported one by one.
    pub fn is_warc_record_type(&self) -> bool {
        self.kind == SkipKind::WarcRecordType
    }

    /// The WARC type of a [`SkipKind::WarcRecordType`] reason (`request`), else `None`.
    pub fn warc_type(&self) -> Option<&str> {
        if !self.is_warc_record_type() {
            return None;
        }
        self.text.strip_prefix("WARC ").and_then(|t| t.strip_suffix(" record"))
    }

    /// The pipeline's reason, for a [`SkipKind::Pipeline`] reason.
    pub fn pipeline(&self) -> Option<lookalike::SkipReason> {
        match self.kind {
            SkipKind::Pipeline(reason) => Some(reason),
            _ => None,
        }
    }
}

impl From<lookalike::SkipReason> for SkipReason {
    fn from(reason: lookalike::SkipReason) -> SkipReason {
        SkipReason::new(SkipKind::Pipeline(reason), reason.as_str())
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl serde::Serialize for SkipReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_prints_todays_text_and_class() {
        use SkipKind::*;
        let table: Vec<(SkipReason, SkipKind, &str, &str)> = vec![
            (
                SkipReason::warc_record_type("request"),
                WarcRecordType,
                "WARC request record",
                "WARC request record",
            ),
            (
                SkipReason::warc_record_type("warcinfo"),
                WarcRecordType,
                "WARC warcinfo record",
                "WARC warcinfo record",
            ),
            (
                SkipReason::damaged("WARC record without a WARC-Type"),
                Damaged,
                "WARC record without a WARC-Type",
                "WARC record without a WARC-Type",
            ),
            (
                SkipReason::damaged("invalid JSON: EOF while parsing a string at line 1 column 12"),
                Damaged,
                "invalid JSON: EOF while parsing a string at line 1 column 12",
                "invalid JSON",
            ),
            (
                SkipReason::corrupt_gzip_in_record("bad member"),
                Damaged,
                "corrupt gzip data in the record: bad member",
                "corrupt gzip data in the record",
            ),
            (
                SkipReason::binary_payload("image/png"),
                NotADocument,
                "binary payload: image/png",
                "binary payload",
            ),
            (
                SkipReason::not_a_document("HTTP status: 404 Not Found"),
                NotADocument,
                "HTTP status: 404 Not Found",
                "HTTP status",
            ),
            (SkipReason::empty("empty payload"), Empty, "empty payload", "empty payload"),
            (
                SkipReason::missing_field("no string field 'text' (the record's fields are id)"),
                MissingField,
                "no string field 'text' (the record's fields are id)",
                "no string field 'text' (the record's fields are id)",
            ),
            (
                SkipReason::too_large("WARC record larger than the 10-byte limit: 20 bytes"),
                TooLarge,
                "WARC record larger than the 10-byte limit: 20 bytes",
                "WARC record larger than the 10-byte limit",
            ),
            (
                SkipReason::unreadable("record 3 at offset 9: malformed protobuf: x"),
                Unreadable,
                "record 3 at offset 9: malformed protobuf: x",
                "record 3 at offset 9",
            ),
            (
                SkipReason::not_opened("symbolic link loop: leads back to d"),
                NotOpened,
                "symbolic link loop: leads back to d",
                "symbolic link loop",
            ),
            (
                SkipReason::boilerplate("nothing of its own: every line repeats"),
                Boilerplate,
                "nothing of its own: every line repeats",
                "nothing of its own",
            ),
            (
                lookalike::SkipReason::EmptyText.into(),
                Pipeline(lookalike::SkipReason::EmptyText),
                "empty text",
                "empty text",
            ),
            (
                lookalike::SkipReason::NoTokens.into(),
                Pipeline(lookalike::SkipReason::NoTokens),
                "no tokens after normalization",
                "no tokens after normalization",
            ),
        ];
        for (reason, kind, text, class) in table {
            assert_eq!(reason.kind(), kind, "{text}");
            assert_eq!(reason.to_string(), text);
            assert_eq!(reason.as_str(), text);
            assert_eq!(reason.class(), class, "{text}");
            assert_eq!(
                serde_json::to_string(&reason).unwrap(),
                serde_json::to_string(text).unwrap()
            );
        }
    }

    #[test]
    fn the_warc_type_is_known_by_kind_only() {
        assert_eq!(SkipReason::warc_record_type("metadata").warc_type(), Some("metadata"));
        assert!(SkipReason::warc_record_type("metadata").is_warc_record_type());
        // Text that merely looks like one is not one.
        let lookalike = SkipReason::damaged("WARC odd record");
        assert!(!lookalike.is_warc_record_type());
        assert_eq!(lookalike.warc_type(), None);
        assert_eq!(
            SkipReason::from(lookalike::SkipReason::NoTokens).pipeline(),
            Some(lookalike::SkipReason::NoTokens)
        );
    }
}
