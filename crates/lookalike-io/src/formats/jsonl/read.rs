//! Reading JSON Lines: contract: "give me a (decompressed) stream, I give you one raw record per
//! non-blank line, in order, and an error naming the line for every line I cannot read".

use std::io::{self, BufRead, BufReader};
use std::sync::Arc;

use crate::error::InputError;
use crate::format::Format;
use crate::gzip::GzipGap;
use crate::record::{RawRecord, read_error_message};
use crate::sniff::Stream;

const LINE_BUFFER: usize = 64 << 10;

/// A JSONL input being read line by line.
pub(crate) struct Lines {
    pub(crate) source: Arc<str>,
    reader: Box<dyn BufRead + Send>,
    /// Lines read so far (the number of the last one).
    pub(crate) line: u64,
    compressed: bool,
    /// Set after a read error: the rest of the stream is not trusted.
    finished: bool,
}

impl Lines {
    /// The lines of `stream`, named `source`; `compressed` says read errors are gzip errors.
    pub(crate) fn new(source: Arc<str>, stream: Stream, compressed: bool) -> Lines {
        Lines {
            source,
            reader: Box::new(BufReader::with_capacity(LINE_BUFFER, stream)),
            line: 0,
            compressed,
            finished: false,
        }
    }

    pub(crate) fn next_record(&mut self, max: u64) -> Option<Result<RawRecord, InputError>> {
        if self.finished {
            return None;
        }
        loop {
            let mut buf = Vec::new();
            let read = read_line_limited(&mut *self.reader, &mut buf, max);
            let error =
                |line: u64, message: String| InputError::new(&self.source, Some(line), message);
            match read {
                Ok(LineRead::Eof) => return None,
                Ok(LineRead::TooLong(len)) => {
                    self.line += 1;
                    let message =
                        format!("line of {len} bytes is longer than the {max}-byte limit; skipped");
                    let lost = format!("{}:{}", self.source, self.line);
                    return Some(Err(error(self.line, message).losing(lost)));
                }
                Ok(LineRead::Line) => {
                    self.line += 1;
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                    if self.line == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
                        buf.drain(..3);
                    }
                    if buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Some(Ok(RawRecord {
                        source: self.source.clone(),
                        line: Some(self.line),
                        format: Format::Jsonl,
                        bytes: buf,
                        warc: None,
                    }));
                }
                Err((e, partial)) => {
                    // The compressed bytes a gzip gap skipped, as an id for the report: what
                    // they held is lost, and a report reader must see that.
                    let skipped_bytes = GzipGap::of(&e).map(|g| {
                        let end = g.resumed_at.unwrap_or(g.start + g.skipped);
                        format!("{}#gzip-bytes-{}-{}", self.source, g.start, end)
                    });
                    let gap = skipped_bytes.is_some();
                    // After a gzip gap, reading goes on with the next member; after any other
                    // error the rest of the stream is not trusted.
                    self.finished = !gap;
                    let mut message = read_error_message(&e, self.compressed);
                    if gap {
                        message += "; the lines in the skipped data are lost (line numbers from \
                                    here on count the lines read)";
                    }
                    if partial == 0 {
                        // Between two lines: no line was started; a gap still lost bytes.
                        let e = error(self.line + 1, message);
                        return Some(Err(match skipped_bytes {
                            Some(lost) => e.losing(lost),
                            None => e,
                        }));
                    }
                    self.line += 1;
                    let lost = format!("{}:{}", self.source, self.line);
                    let message = format!("line cut short: {message}");
                    return Some(Err(error(self.line, message).losing(lost)));
                }
            }
        }
    }
}

enum LineRead {
    Eof,
    Line,
    /// The line (of this many bytes, without its `\n`) was consumed but not kept.
    TooLong(u64),
}

/// `read_until(b'\n')` that stops keeping bytes once the line exceeds `max`: a gigantic line is
/// consumed in buffer-sized pieces and never held in memory. An error comes with the number of
/// bytes of the line read before it.
fn read_line_limited(
    r: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    max: u64,
) -> Result<LineRead, (io::Error, u64)> {
    let mut len: u64 = 0;
    let mut too_long = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err((e, len)),
        };
        if chunk.is_empty() {
            return Ok(match (len, too_long) {
                (0, _) => LineRead::Eof,
                (_, true) => LineRead::TooLong(len),
                (_, false) => LineRead::Line,
            });
        }
        let newline = memchr::memchr(b'\n', chunk);
        let take = newline.unwrap_or(chunk.len());
        len += take as u64;
        if !too_long {
            if len > max {
                too_long = true;
                *buf = Vec::new();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        r.consume(take + usize::from(newline.is_some()));
        if newline.is_some() {
            return Ok(if too_long { LineRead::TooLong(len) } else { LineRead::Line });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_reader_with_small_buffer() {
        let data = b"abc\n\ndefghij\nkl";
        let mut r = BufReader::with_capacity(2, &data[..]);
        let mut got = Vec::new();
        loop {
            let mut buf = Vec::new();
            match read_line_limited(&mut r, &mut buf, 5).map_err(|(e, _)| e).unwrap() {
                LineRead::Eof => break,
                LineRead::Line => got.push(String::from_utf8(buf).unwrap()),
                LineRead::TooLong(n) => got.push(format!("too long {n}")),
            }
        }
        assert_eq!(got, ["abc", "", "too long 7", "kl"]);
    }
}
