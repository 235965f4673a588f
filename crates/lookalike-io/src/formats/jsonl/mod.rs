//! JSON Lines: one document per line. `read.rs` cuts the stream into lines, `range.rs` reads the
//! lines of a byte range of a file as a reading of the whole file gives them, `decode.rs` reads a
//! line's id and text fields (Parquet rows are decoded here too, as JSON objects).

mod decode;
mod range;
mod read;

pub(crate) use decode::decode;
#[cfg(feature = "parquet")]
pub(crate) use decode::id_text;
pub(crate) use range::open_range;
pub use range::{LineRange, count_newlines};
pub(crate) use read::Lines;
