//! JSON Lines: one document per line. `read.rs` cuts the stream into lines, `decode.rs` reads a
//! line's id and text fields (Parquet rows are decoded here too, as JSON objects).

mod decode;
mod read;

pub(crate) use decode::decode;
#[cfg(feature = "parquet")]
pub(crate) use decode::id_text;
pub(crate) use read::Lines;
