//! The docreader format: length-prefixed protobuf `document` messages in gzip files, the
//! collections of the near-duplicate assignment in Mail.ru's information-retrieval course (2016,
//! lecture 5 "Finding duplicates on the Web"), read there with `zcat ... | docreader.py`. `wire.rs`
//! reads the layout (a record's length, its message's fields, whether a record starts at some
//! byte), `read.rs` frames the records, `decode.rs` makes a record's page a document. The rules are
//! documented on [`DocreaderReader`].

mod decode;
mod read;
pub(crate) mod wire;

pub(crate) use decode::decode;
pub use read::DocreaderReader;
