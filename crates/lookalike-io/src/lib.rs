//! Readers for lookalike: from command-line arguments to [`lookalike::Document`]s.
//!
//! Three steps, each its own module, so that a caller can put threads between them:
//!
//! 1. [`expand_inputs`] turns arguments (`-`, files, directories, glob patterns) into a list of
//!    [`Input`]s, in a deterministic order, and lists the files it ignored.
//! 2. [`Reader`] iterates over the inputs and yields [`RawRecord`]s: the bytes of one document
//!    each (a whole text or HTML file, one JSONL line, one WARC record, or one docreader record,
//!    [`DocreaderReader`]), decompressed if they
//!    were gzip ([`GzipMembers`]: a corrupt member loses only itself). It detects formats,
//!    streams JSONL and WARC ([`WarcReader`]: a multi-GB crawl is never loaded whole), and turns
//!    every read failure into an [`InputError`] naming the file (and line, or WARC record and
//!    offset, and the record it lost) before going on, so bad input never stops a run. Every
//!    record has an [`Origin`]; [`UniqueIds`] keeps ids unique across inputs. A large
//!    uncompressed JSONL file ([`plain_jsonl`]) can also be read in byte ranges, on several
//!    threads or machines, each range giving its lines as a reading of the whole file gives them
//!    ([`Reader::jsonl_range`], [`LineRange`], [`count_newlines`]).
//! 3. [`decode`] turns a record into a [`Decoded::Doc`] (text, id, raw fingerprint, the charset
//!    it was read in, and a warning when bytes were not valid text or the charset was guessed)
//!    or a [`Decoded::Skip`] with its reason (a WARC request record, an image, a 404 page...).
//!    It is a pure function: decode on many threads while one thread reads.
//!
//! [`DecodedBatches`] puts the three together as every command of the CLI uses them: one thread
//! reads, batches are decoded in parallel on the rayon pool, results come back in input order.
//!
//! HTML becomes text by main-content extraction ([`extract_main`], the default: menus, footers
//! and banners removed, title kept apart; lookalike's own extractor, one parse into a flat arena
//! and linear passes over it), or all visible text with [`html_to_text`] (a single
//! pass of the html5ever tokenizer, no DOM), or the markup as it is: see [`Extract`].
//! Charsets are found as browsers find them: byte order mark, HTTP `Content-Type` (WARC), a
//! `<meta>` declaration in the first 2 KiB, then detection with `chardetng` (Firefox's
//! detector) when the bytes are not UTF-8; plain text skips the `<meta>` step.
//!
//! # Example
//!
//! ```
//! use lookalike_io::{Decoded, ReadOptions, Reader, decode, expand_inputs};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("a.jsonl"), "{\"id\":\"x\",\"text\":\"hello\"}\n\n{\"id\":2}\n")?;
//! std::fs::write(dir.path().join("b.html"), "<title>T</title><p>Hi &amp; bye</p>")?;
//! std::fs::write(dir.path().join("notes.bin"), [0u8; 4])?;
//!
//! let expanded = expand_inputs(&[dir.path().display().to_string()])?;
//! assert_eq!((expanded.inputs.len(), expanded.ignored.len()), (2, 1));
//!
//! let opts = ReadOptions::default();
//! let mut seen = Vec::new();
//! for record in Reader::new(expanded.inputs, opts.clone()) {
//!     match decode(&record?, &opts) {
//!         Decoded::Doc { doc, title: Some(title), .. } => seen.push(format!("{title}: {}", doc.text)),
//!         Decoded::Doc { doc, .. } => seen.push(doc.text),
//!         Decoded::Skip { id, reason } => seen.push(format!("skipped {id}: {reason}")),
//!     }
//! }
//! assert_eq!(
//!     seen,
//!     ["hello", "skipped 2: no string field 'text' (the record's fields are id)", "T: Hi & bye"]
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod batches;
pub mod boilerplate;
mod charset;
mod decode;
mod encoding;
mod error;
mod format;
mod formats;
mod framed;
mod gzip;
mod html;
mod inputs;
mod lookahead;
mod main_content;
mod options;
mod origin;
mod page;
mod readable;
mod reader;
mod record;
mod skip;
mod sniff;
mod writers;

/// What reading a Parquet file says when this crate is built without its `parquet` feature.
pub const PARQUET_DISABLED: &str = "Parquet input needs lookalike built with the `parquet` \
    feature (on by default): cargo install lookalike-cli --features parquet";

pub use batches::{BatchLimits, DecodedBatches};
pub use decode::decode;
pub use error::{Error, InputError};
pub use format::{Format, ParseFormatError};
pub use formats::docreader::DocreaderReader;
pub use formats::jsonl::{LineRange, count_newlines};
#[cfg(feature = "parquet")]
pub use formats::parquet::arrow_ids;
pub use formats::warc::WarcReader;
pub use gzip::{GzipGap, GzipMembers};
pub use html::html_to_text;
pub use inputs::{Expanded, Input, SkippedPath, expand_inputs};
pub use main_content::{
    ExtractMethod, Extracted, MAX_MAIN_CONTENT_BYTES, explain_main_content, extract_main,
    extract_main_and_visible, main_content_work,
};
pub use options::{Extract, ReadOptions};
pub use origin::{Origin, Position, UniqueIds};
pub use readable::Work;
pub use reader::{Reader, plain_jsonl};
pub use record::{Decoded, MAX_RECORD_BYTES, RawRecord, WarcHeader};
pub use skip::{SkipKind, SkipReason};
pub use sniff::{SNIFF_LEN, is_gzip, sniff_format};
pub use writers::{
    BoilerplateRemoved, ClustersJsonl, KeptJsonl, PairsTsv, PayloadStore, ReportEntry, ReportJsonl,
    SinkError,
};
