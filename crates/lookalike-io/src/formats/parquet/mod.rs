//! Apache Parquet files: one record per row. `read.rs` reads the id and text columns (or every
//! column) a batch at a time; its rows are decoded by the JSON Lines decoder. `json.rs` writes
//! the other columns' values as JSON when every column is read.

mod json;
mod read;

pub(crate) use read::ParquetRows;
pub use read::arrow_ids;
