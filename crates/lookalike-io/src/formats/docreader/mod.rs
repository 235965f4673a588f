//! The docreader format of the lecture's homework (seed 003): length-prefixed protobuf `document`
//! messages. `wire.rs` reads the layout (a record's length, its message's fields, whether a record
//! starts at some byte), `read.rs` frames the records, `decode.rs` makes a record's page a
//! document. The rules are documented on [`DocreaderReader`].

mod decode;
mod read;
pub(crate) mod wire;

pub(crate) use decode::decode;
pub use read::DocreaderReader;
