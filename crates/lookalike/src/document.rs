//! The unit of work: a document with a stable id and its text, and [`DocId`], its position in the
//! input.

/// A document's input index: the order in which [`crate::DedupRun::add`] received it, from 0.
///
/// Every result names documents by `DocId` ([`crate::ScoredPair`], [`crate::Cluster`],
/// [`crate::DocStatus`], the [`crate::Sink`] calls); `ids[doc.index()]` is its printed id. It is
/// distinct from [`crate::Slot`], a head's position inside a method. Serialized as the bare number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct DocId(pub u32);

impl DocId {
    /// The input index, to index per-document arrays (`ids`, statuses).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One input document, as the readers hand it to the pipeline.
///
/// `id` is what the outputs print (a path, a URL, `file:line`); `text` is the extracted text that
/// is compared; `raw_fingerprint` is the [`crate::fingerprint::raw_fingerprint`] of the bytes the
/// document was read from (the file or the record), used to tell full-layout copies (same bytes)
/// from full-content copies (same normalized text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Stable identifier printed in every output.
    pub id: String,
    /// The text to compare (already extracted from HTML, JSON, ...).
    pub text: String,
    /// Fingerprint of the raw input bytes, when the reader knows them.
    pub raw_fingerprint: Option<u128>,
    /// Size in bytes of the raw input the document came from (for throughput figures).
    pub raw_len: u64,
}

impl Document {
    /// A document whose raw bytes are its text (plain-text inputs, tests).
    pub fn from_text(id: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        Document {
            id: id.into(),
            raw_fingerprint: Some(crate::fingerprint::raw_fingerprint(text.as_bytes())),
            raw_len: text.len() as u64,
            text,
        }
    }
}
