//! Reading inputs into raw records: contract: "give me inputs, I give you their records as bytes,
//! one per file (text, HTML), per line (JSONL), per row (Parquet) or per record (WARC,
//! docreader), and an error for each part I cannot read".
//!
//! Opening, decompression and format detection happen here; each format frames its own records
//! (`formats/*/read.rs`), and turning bytes into text happens in [`crate::decode`], so that a
//! caller can decode records in parallel while one thread reads.

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::InputError;
use crate::format::Format;
use crate::formats::docreader::DocreaderReader;
use crate::formats::jsonl::{LineRange, Lines, open_range};
#[cfg(feature = "parquet")]
use crate::formats::parquet::ParquetRows;
use crate::formats::text::read_whole;
use crate::formats::warc::WarcReader;
use crate::gzip::GzipMembers;
use crate::inputs::Input;
use crate::options::ReadOptions;
use crate::record::{MAX_RECORD_BYTES, RawRecord, read_error_message};
use crate::sniff::{self, SNIFF_LEN, Stream};

/// An iterator over the records of a list of inputs, in order.
///
/// Bad input never stops it: an input that cannot be opened, a gzip stream that is truncated or
/// corrupt, an over-long line each yield one `Err(InputError)` and reading goes on (with the next
/// line, or the next input after a read error). Records read before an error are kept; an error
/// that loses a record (a line, a whole file) names it in [`InputError::lost`]. Blank JSONL lines
/// are not records and are skipped silently (they still count for line numbers).
///
/// Every input is decompressed when it starts with the gzip magic bytes (concatenated members
/// included, so both a `.warc.gz` of one gzip member per record and a whole-file gzip read the
/// same), whatever its name. A corrupt or truncated gzip member loses only itself: reading goes
/// on at the next member ([`crate::GzipGap`]); in JSONL the line it cut is reported, and line
/// numbers after it count the lines read. A text or HTML file is lost whole. The format is
/// [`ReadOptions::format`] when set, else the file extension (an unknown extension, `.gz` alone
/// included, reads as WARC when the content starts with `WARC/`, as docreader when it starts
/// with a docreader record, else as text), else, for stdin, sniffed from the content
/// ([`crate::sniff_format`]). JSONL is streamed line by line, WARC record by record
/// ([`WarcReader`]) and docreader record by record ([`DocreaderReader`]); a text or HTML file is
/// read whole
/// (it is one document) up to [`MAX_RECORD_BYTES`].
///
/// The reader is `Send`, so it can be moved to a reading thread.
pub struct Reader {
    inputs: std::vec::IntoIter<Input>,
    opts: ReadOptions,
    max_record_bytes: u64,
    current: Option<Current>,
    /// A stream given to [`Reader::from_stream`], opened on the first call to `next`.
    stream: Option<(Arc<str>, Stream)>,
    /// A range given to [`Reader::jsonl_range`], opened on the first call to `next`.
    range: Option<(PathBuf, LineRange)>,
    /// Parquet rows carry every column ([`Reader::with_all_columns`]).
    all_columns: bool,
}

impl fmt::Debug for Reader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("pending_inputs", &self.inputs.len())
            .field("opts", &self.opts)
            .field("max_record_bytes", &self.max_record_bytes)
            .field("current", &self.current)
            .finish_non_exhaustive()
    }
}

impl Reader {
    /// A reader over `inputs`, in order. Nothing is opened before the first call to `next`.
    pub fn new(inputs: Vec<Input>, opts: ReadOptions) -> Reader {
        Reader {
            inputs: inputs.into_iter(),
            opts,
            max_record_bytes: MAX_RECORD_BYTES,
            current: None,
            stream: None,
            range: None,
            all_columns: false,
        }
    }

    /// A reader of one byte stream, named `name` in records and errors, read as stdin is:
    /// decompressed when it is gzip, in [`ReadOptions::format`] or else the format its content
    /// says ([`crate::sniff_format`]). Nothing is read before the first call to `next`.
    pub fn from_stream(
        name: &str,
        stream: impl Read + Send + 'static,
        opts: ReadOptions,
    ) -> Reader {
        let mut reader = Reader::new(Vec::new(), opts);
        reader.stream = Some((name.into(), Box::new(stream)));
        reader
    }

    /// A reader of the lines that start in a byte range of the uncompressed JSON Lines file at
    /// `path` ([`plain_jsonl`] says which files are), named and numbered as [`Reader::new`]
    /// names and numbers them when it reads the whole file: the records and errors of ranges
    /// that tile the file, in order, are those of the whole file. The range's first line is the
    /// one that starts at `range.start`, or else after the first `\n` after it; its last line
    /// is the last that starts before `range.end`, read whole. The file is read as JSONL
    /// whatever [`ReadOptions::format`] says, and must not change while its ranges are read.
    /// Nothing is opened before the first call to `next`.
    pub fn jsonl_range(path: impl Into<PathBuf>, range: LineRange, opts: ReadOptions) -> Reader {
        let mut reader = Reader::new(Vec::new(), opts);
        reader.range = Some((path.into(), range));
        reader
    }

    /// Sets the largest record read into memory (default [`MAX_RECORD_BYTES`]).
    pub fn with_max_record_bytes(mut self, max: u64) -> Reader {
        self.max_record_bytes = max;
        self
    }

    /// Makes a Parquet row's record carry every column of the row, not only the id and text
    /// columns: the JSON object of the row, columns in the file's order, the id and text as
    /// always and the others as Arrow's JSON writer writes them (nulls as `null`), for a caller
    /// that writes rows back whole. A file with a column that has no JSON form is an error.
    pub fn with_all_columns(mut self, all: bool) -> Reader {
        self.all_columns = all;
        self
    }

    /// The options the records are read with.
    pub(crate) fn options(&self) -> &ReadOptions {
        &self.opts
    }

    fn open(&self, input: &Input) -> Result<Opened, InputError> {
        let name: Arc<str> = input.name().into();
        match input {
            Input::Stdin => {
                if self.opts.format == Some(Format::Parquet) {
                    let message = "Parquet needs a seekable file: give its path, not stdin";
                    return Err(InputError::new(&name, None, message).losing_input());
                }
                let detect = self.opts.format.map_or(Detect::Sniff, Detect::Given);
                self.open_stream(name, Box::new(io::stdin()), detect)
            }
            Input::Path(path) if given_format(&self.opts, path) == Some(Format::Parquet) => {
                #[cfg(feature = "parquet")]
                {
                    let rows = ParquetRows::open(path, name, &self.opts, self.all_columns)?;
                    Ok(Opened::Records(Current::Parquet(Box::new(rows))))
                }
                #[cfg(not(feature = "parquet"))]
                Err(InputError::new(&name, None, crate::PARQUET_DISABLED).losing_input())
            }
            Input::Path(path) => {
                // std::fs rather than fs-err: the InputError names the path already.
                let file = std::fs::File::open(path).map_err(|e| {
                    InputError::new(&name, None, format!("cannot open: {e}")).losing_input()
                })?;
                let detect = given_format(&self.opts, path).map_or(Detect::Content, Detect::Given);
                self.open_stream(name, Box::new(file), detect)
            }
        }
    }

    /// Opens a byte stream: decompresses it if it is gzip, sniffs its format unless it is given,
    /// and reads it whole unless it is JSONL or WARC.
    fn open_stream(
        &self,
        name: Arc<str>,
        raw: Stream,
        detect: Detect,
    ) -> Result<Opened, InputError> {
        let fail = |e: io::Error, compressed: bool| {
            InputError::new(&name, None, read_error_message(&e, compressed)).losing_input()
        };
        let (magic, raw) = sniff::peek(raw, 2).map_err(|e| fail(e, false))?;
        let compressed = sniff::is_gzip(&magic);
        let stream: Stream = if compressed { Box::new(GzipMembers::new(raw)) } else { raw };
        let (format, stream) = match detect {
            Detect::Given(format) => (format, stream),
            Detect::Sniff => {
                let (prefix, stream) =
                    sniff::peek(stream, SNIFF_LEN).map_err(|e| fail(e, compressed))?;
                if sniff::is_parquet(&prefix) {
                    let message = "Parquet data: Parquet needs a seekable file; save it and give \
                                   its path";
                    return Err(InputError::new(&name, None, message).losing_input());
                }
                (sniff::sniff_format(&prefix), stream)
            }
            Detect::Content => {
                let (prefix, stream) =
                    sniff::peek(stream, SNIFF_LEN).map_err(|e| fail(e, compressed))?;
                (sniff::content_format(&prefix), stream)
            }
        };
        match format {
            Format::Warc => Ok(Opened::Records(Current::Warc(
                WarcReader::new(name, stream)
                    .with_max_record_bytes(self.max_record_bytes)
                    .with_compressed(compressed),
            ))),
            Format::Docreader => Ok(Opened::Records(Current::Docreader(
                DocreaderReader::new(name, stream)
                    .with_max_record_bytes(self.max_record_bytes)
                    .with_compressed(compressed),
            ))),
            Format::Parquet => {
                let message = "Parquet needs a seekable file: give its path, not a stream";
                Err(InputError::new(&name, None, message).losing_input())
            }
            Format::Jsonl => {
                // Binary data would become a skipped "line" per newline byte found in it.
                let (prefix, stream) =
                    sniff::peek(stream, SNIFF_LEN).map_err(|e| fail(e, compressed))?;
                if let Some(reason) = sniff::jsonl_binary(&prefix) {
                    return Err(InputError::new(&name, None, reason).losing_input());
                }
                Ok(Opened::Records(Current::Lines(Lines::new(name, stream, compressed))))
            }
            Format::Text | Format::Html => {
                let record = read_whole(name, stream, format, self.max_record_bytes, compressed)?;
                Ok(Opened::Whole(record))
            }
        }
    }
}

impl Iterator for Reader {
    type Item = Result<RawRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let item = match &mut self.current {
                Some(Current::Lines(lines)) => lines.next_record(self.max_record_bytes),
                Some(Current::Warc(warc)) => warc.next(),
                Some(Current::Docreader(records)) => records.next(),
                #[cfg(feature = "parquet")]
                Some(Current::Parquet(rows)) => rows.next(),
                None => None,
            };
            if item.is_some() {
                return item;
            }
            self.current = None;
            if let Some((path, range)) = self.range.take() {
                let name: Arc<str> = path.display().to_string().into();
                match open_range(name, &path, range) {
                    Ok(Some(lines)) => self.current = Some(Current::Lines(lines)),
                    Ok(None) => {}
                    Err(e) => return Some(Err(e)),
                }
                continue;
            }
            let opened = match self.stream.take() {
                Some((name, stream)) => {
                    let detect = self.opts.format.map_or(Detect::Sniff, Detect::Given);
                    self.open_stream(name, stream, detect)
                }
                None => {
                    let input = self.inputs.next()?;
                    self.open(&input)
                }
            };
            match opened {
                Ok(Opened::Whole(record)) => return Some(Ok(record)),
                Ok(Opened::Records(current)) => self.current = Some(current),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// The format of the file at `path` by the options or else its name, if either says one.
fn given_format(opts: &ReadOptions, path: &Path) -> Option<Format> {
    opts.format.or_else(|| Format::from_path(path))
}

/// Whether [`Reader::new`] reads the file at `path` as uncompressed JSON Lines, so that
/// [`Reader::jsonl_range`] can read it in ranges: JSONL by [`ReadOptions::format`] or else its
/// name, and its first bytes neither gzip nor binary (which the reader reads otherwise, or
/// reports as one error). Reads the file's first [`SNIFF_LEN`] bytes; false when it cannot.
pub fn plain_jsonl(path: &Path, opts: &ReadOptions) -> bool {
    if given_format(opts, path) != Some(Format::Jsonl) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else { return false };
    let Ok((prefix, _)) = sniff::peek(Box::new(file), SNIFF_LEN) else { return false };
    !sniff::is_gzip(&prefix) && sniff::jsonl_binary(&prefix).is_none()
}

/// How the format of an input is found.
#[derive(Debug, Clone, Copy)]
enum Detect {
    Given(Format),
    /// By content ([`sniff::sniff_format`]): stdin.
    Sniff,
    /// WARC or docreader if the content says so, else text: files with an unknown extension.
    Content,
}

enum Opened {
    Whole(RawRecord),
    Records(Current),
}

/// An input being read record by record.
enum Current {
    Lines(Lines),
    Warc(WarcReader<Stream>),
    Docreader(DocreaderReader<Stream>),
    #[cfg(feature = "parquet")]
    Parquet(Box<ParquetRows>),
}

impl fmt::Debug for Current {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Current::Lines(l) => write!(f, "Lines({}:{})", l.source, l.line),
            Current::Warc(w) => w.fmt(f),
            Current::Docreader(d) => d.fmt(f),
            #[cfg(feature = "parquet")]
            Current::Parquet(p) => p.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Write};

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    fn read_stream(bytes: &[u8], format: Option<Format>) -> Vec<Result<RawRecord, InputError>> {
        read_stream_max(bytes, format, MAX_RECORD_BYTES)
    }

    fn read_stream_max(
        bytes: &[u8],
        format: Option<Format>,
        max: u64,
    ) -> Vec<Result<RawRecord, InputError>> {
        let opts = ReadOptions { format, ..ReadOptions::default() };
        Reader::from_stream("-", Cursor::new(bytes.to_vec()), opts)
            .with_max_record_bytes(max)
            .collect()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    fn lines_of(items: &[Result<RawRecord, InputError>]) -> Vec<(Option<u64>, String)> {
        items
            .iter()
            .map(|r| {
                let r = r.as_ref().unwrap();
                (r.line, String::from_utf8_lossy(&r.bytes).into_owned())
            })
            .collect()
    }

    #[test]
    fn reader_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<Reader>();
    }

    #[test]
    fn sniffed_jsonl_skips_blank_lines_and_strips_line_endings() {
        let got = read_stream(b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"b\":2}", None);
        assert_eq!(got[0].as_ref().unwrap().format, Format::Jsonl);
        assert_eq!(
            lines_of(&got),
            vec![(Some(1), "{\"a\":1}".to_owned()), (Some(4), "{\"b\":2}".to_owned())]
        );
    }

    #[test]
    fn sniffed_text_and_html_are_one_record() {
        let got = read_stream(b"just words\nmore words\n", None);
        assert_eq!(got.len(), 1);
        let rec = got[0].as_ref().unwrap();
        assert_eq!((rec.format, &*rec.source, rec.line), (Format::Text, "-", None));
        assert_eq!(rec.bytes, b"just words\nmore words\n");
        let got = read_stream(b"<!doctype html><p>x", None);
        assert_eq!(got[0].as_ref().unwrap().format, Format::Html);
    }

    #[test]
    fn gzip_is_detected_by_magic_then_sniffed() {
        let got = read_stream(&gzip(b"{\"id\":1}\n{\"id\":2}\n"), None);
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|r| r.as_ref().unwrap().format == Format::Jsonl));
        let got = read_stream(&gzip(b"<html><body>hi"), None);
        assert_eq!(got[0].as_ref().unwrap().bytes, b"<html><body>hi");
    }

    #[test]
    fn concatenated_gzip_members_are_all_read() {
        let mut bytes = gzip(b"{\"n\":1}\n");
        bytes.extend(gzip(b"{\"n\":2}\n"));
        assert_eq!(read_stream(&bytes, Some(Format::Jsonl)).len(), 2);
    }

    /// Regression: Parquet piped to stdin was deduplicated as one text document.
    #[test]
    fn parquet_on_stdin_is_an_error_not_text() {
        let got = read_stream(b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00", None);
        assert_eq!(got.len(), 1);
        let err = got[0].as_ref().unwrap_err();
        assert_eq!(
            err.to_string(),
            "-: Parquet data: Parquet needs a seekable file; save it and give its path"
        );
        assert_eq!(err.lost.as_deref(), Some("-"));
    }

    #[test]
    fn forced_format_is_not_sniffed() {
        let got = read_stream(b"{\"a\":1}\n{\"b\":2}\n", Some(Format::Text));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().unwrap().format, Format::Text);
    }

    #[test]
    fn over_long_lines_are_reported_and_skipped() {
        let mut input = b"{\"a\":1}\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100));
        input.extend(b"\n{\"b\":2}\n");
        input.extend(std::iter::repeat_n(b'y', 50));
        let got = read_stream_max(&input, Some(Format::Jsonl), 20);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_ref().unwrap().line, Some(1));
        let err = got[1].as_ref().unwrap_err();
        assert_eq!(err.line, Some(2));
        assert_eq!(err.message, "line of 100 bytes is longer than the 20-byte limit; skipped");
        assert_eq!(got[2].as_ref().unwrap().line, Some(3));
        assert_eq!(got[3].as_ref().unwrap_err().line, Some(4));
    }

    #[test]
    fn over_large_documents_are_reported() {
        let got = read_stream_max(&[b'a'; 30], Some(Format::Text), 20);
        let err = got[0].as_ref().unwrap_err();
        assert_eq!(err.to_string(), "-: document is larger than the 20-byte limit; skipped");
        let got = read_stream_max(&[b'a'; 20], Some(Format::Text), 20);
        assert_eq!(got[0].as_ref().unwrap().bytes.len(), 20);
    }
}
