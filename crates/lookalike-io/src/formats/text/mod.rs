//! Text and HTML files: one document per file. `read.rs` reads a file whole, `decode.rs` makes it
//! a document.

mod decode;
mod read;

pub(crate) use decode::decode;
pub(crate) use read::read_whole;
