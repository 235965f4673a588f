//! WARC files: one record per WARC record. `read.rs` frames the records (headers, blocks,
//! resynchronisation), `decode.rs` makes a response's HTTP payload a document, `header.rs` reads
//! the `Name: value` header blocks both use. The rules are documented on [`WarcReader`].

mod decode;
mod header;
mod read;

pub(crate) use decode::decode;
pub use read::WarcReader;
