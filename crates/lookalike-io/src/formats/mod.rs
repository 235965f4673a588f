//! The input formats, one folder each: framing (`read.rs`: a stream into raw records) apart from
//! decoding (`decode.rs`: a raw record into a document). [`crate::Reader`] picks the framing,
//! [`crate::decode`] the decoder.

pub(crate) mod docreader;
pub(crate) mod jsonl;
#[cfg(feature = "parquet")]
pub(crate) mod parquet;
pub(crate) mod text;
pub(crate) mod warc;
