//! A byte range of an uncompressed JSON Lines file, read as its part of the whole: contract:
//! "give me a file, a byte range of it and the number of newlines before the range, I give you
//! the lines that start in the range, numbered as a reading of the whole file numbers them".
//!
//! A line belongs to the range its first byte is in, so ranges cut anywhere (inside a line, on a
//! `\n`, between `\r` and `\n`, inside a UTF-8 character) give every line to exactly one range:
//! a range skips the end of the line it starts in, and reads its last line to the end, past the
//! range. Line numbers need only the newlines before the range, which the caller counts
//! ([`count_newlines`], one range at a time and in parallel if it likes).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use super::read::Lines;
use crate::error::InputError;
use crate::record::read_error_message;

const CHUNK: usize = 64 << 10;

/// A byte range of an uncompressed JSON Lines file: its lines are those that start at offsets
/// `start..end` (see [`crate::Reader::jsonl_range`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineRange {
    /// The first byte of the range.
    pub start: u64,
    /// The byte after the range.
    pub end: u64,
    /// The number of `\n` bytes in the file before `start` ([`count_newlines`] of `0..start`):
    /// the line numbers follow from it.
    pub newlines_before: u64,
}

/// The number of `\n` bytes at offsets `start..end` of the file at `path` (fewer when the file
/// ends before `end`). The counts of ranges that tile a file add up to the
/// [`LineRange::newlines_before`] of each.
pub fn count_newlines(path: &Path, start: u64, end: u64) -> io::Result<u64> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    let mut left = end.saturating_sub(start);
    let mut buf = vec![0u8; CHUNK.min(usize::try_from(left).unwrap_or(CHUNK)).max(1)];
    let mut count = 0u64;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = match file.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        count += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        left -= n as u64;
    }
    Ok(count)
}

/// The lines of `range` of the file at `path`, named `source`: `None` when no line starts in
/// the range (it is inside a line that started before it). An error when the file cannot be
/// opened (losing the input, as a reading of the whole file reports it) or read.
pub(crate) fn open_range(
    source: Arc<str>,
    path: &Path,
    range: LineRange,
) -> Result<Option<Lines>, InputError> {
    let opened =
        |e: io::Error| InputError::new(&source, None, format!("cannot open: {e}")).losing_input();
    let mut file = File::open(path).map_err(opened)?;
    let mut line = range.newlines_before;
    let read_error = |line: u64, e: io::Error| {
        InputError::new(&source, Some(line), read_error_message(&e, false))
    };
    let first = if range.start == 0 {
        0
    } else {
        // The byte before the range says whether a line starts at `start`; else the first line
        // starts after the next `\n`, and is one line further.
        file.seek(SeekFrom::Start(range.start - 1)).map_err(|e| read_error(line + 1, e))?;
        match next_newline(&mut file, range.start - 1).map_err(|e| read_error(line + 1, e))? {
            Some(at) if at == range.start - 1 => range.start,
            Some(at) => {
                line += 1;
                at + 1
            }
            None => return Ok(None),
        }
    };
    if first >= range.end {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(first)).map_err(|e| read_error(line + 1, e))?;
    let stream = ToLineEnd { inner: file, pos: first, last: range.end - 1, done: false };
    let mut lines = Lines::new(source, Box::new(stream), false);
    lines.line = line;
    Ok(Some(lines))
}

/// The offset of the first `\n` at or after `pos`, where `file` is; `None` at the end of the file.
fn next_newline(file: &mut File, mut pos: u64) -> io::Result<Option<u64>> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => return Ok(None),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(Some(pos + i as u64));
        }
        pos += n as u64;
    }
}

/// The bytes of a file from `pos` up to and including the first `\n` at or after offset `last`
/// (or the end of the file): the lines that start at or before `last`, whole.
struct ToLineEnd {
    inner: File,
    /// The offset of the next byte `inner` gives.
    pos: u64,
    last: u64,
    done: bool,
}

impl Read for ToLineEnd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        let from = usize::try_from(self.last.saturating_sub(self.pos)).unwrap_or(usize::MAX);
        if from < n
            && let Some(i) = memchr::memchr(b'\n', &buf[from..n])
        {
            self.done = true;
            let keep = from + i + 1;
            self.pos += keep as u64;
            return Ok(keep);
        }
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Input, RawRecord, ReadOptions, Reader};

    type Items = Vec<Result<RawRecord, InputError>>;

    /// The longest line kept: the long lines below are over it.
    const MAX: u64 = 80;

    /// Every kind of line a range must cut right: a byte order mark, CRLF and lone CR line ends,
    /// blank and whitespace lines, invalid JSON, no text field, no id field (the id is the line
    /// number), repeated ids, multi-byte UTF-8, lines over the limit and longer than many ranges,
    /// and a last line without its newline.
    const AWKWARD: &str = concat!(
        "\u{feff}{\"id\":\"a\",\"text\":\"first\"}\r\n",
        "\n",
        "  \t \n",
        "\r\n",
        "{\"id\":\"b\",\"text\":\n",
        "{\"id\":\"c\"}\n",
        "{\"text\":\"no id: its line\"}\n",
        "{\"id\":\"\u{e9}t\u{e9}\",\"text\":\"\u{65e5}\u{672c}\u{8a9e} \u{1f600} \u{fc}n\u{ef}c\u{f6}d\u{e9}\"}\r\n",
        "{\"id\":\"a\",\"text\":\"again\"}\n",
        "{\"id\":\"long\",\"text\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n",
        "\n",
        "\n",
        "not json at all \u{3b1}\u{3b2}\u{3b3}\n",
        "{\"id\":\"cr\",\"text\":\"lone\r cr\"}\n",
        "{\"text\":\"\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\u{44f}\"}\n",
        "{\"id\":7,\"text\":\"a number id\"}\n",
        "{\"text\":\"last, no newline\"}",
    );

    fn whole(path: &Path) -> Items {
        Reader::new(vec![Input::Path(path.to_owned())], ReadOptions::default())
            .with_max_record_bytes(MAX)
            .collect()
    }

    /// The records of the ranges that `cuts` (sorted offsets, 0 and the length included) cut
    /// the file into, in order; each range's newlines counted by itself, as the parts are.
    fn in_ranges(path: &Path, cuts: &[u64]) -> Items {
        let mut newlines_before = 0;
        let mut out = Vec::new();
        for w in cuts.windows(2) {
            let range = LineRange { start: w[0], end: w[1], newlines_before };
            assert_eq!(count_newlines(path, 0, w[0]).unwrap(), newlines_before);
            out.extend(
                Reader::jsonl_range(path, range, ReadOptions::default()).with_max_record_bytes(MAX),
            );
            newlines_before += count_newlines(path, w[0], w[1]).unwrap();
        }
        out
    }

    fn write(dir: &Path, name: &str, text: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A xorshift generator: random cuts, repeatable.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    #[test]
    fn the_awkward_lines_are_what_the_whole_file_gives() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "a.jsonl", AWKWARD.as_bytes());
        let expected = whole(&path);
        let lines: Vec<Option<u64>> = expected
            .iter()
            .map(|r| match r {
                Ok(rec) => rec.line,
                Err(e) => e.line,
            })
            .collect();
        let numbers: Vec<u64> = (1..=17).filter(|n| ![2, 3, 4, 11, 12].contains(n)).collect();
        assert_eq!(lines, numbers.into_iter().map(Some).collect::<Vec<_>>());
        assert!(expected.iter().filter(|r| r.is_err()).count() == 2, "two lines over {MAX} bytes");
        assert_eq!(in_ranges(&path, &[0, AWKWARD.len() as u64]), expected);
    }

    #[test]
    fn a_cut_anywhere_gives_the_same_records() {
        let dir = tempfile::tempdir().unwrap();
        let len = AWKWARD.len() as u64;
        // As written, with a last newline, and ending with blank lines.
        for (name, text) in [
            ("a.jsonl", AWKWARD.to_owned()),
            ("b.jsonl", format!("{AWKWARD}\n")),
            ("c.jsonl", format!("{AWKWARD}\r\n\n\n")),
        ] {
            let path = write(dir.path(), name, text.as_bytes());
            let expected = whole(&path);
            let size = text.len() as u64;
            // One cut at every byte: on each `\n` and `\r`, inside each multi-byte character,
            // inside the byte order mark, at both ends.
            for cut in 0..=size {
                assert_eq!(in_ranges(&path, &[0, cut, size]), expected, "{name}: cut at {cut}");
            }
            // Ranges of every small size: most lines are longer than a range.
            for step in 1..=9 {
                let cuts: Vec<u64> = (0..size).step_by(step).chain([size]).collect();
                assert_eq!(in_ranges(&path, &cuts), expected, "{name}: ranges of {step} bytes");
            }
            // The last range may end past the end of the file.
            assert_eq!(in_ranges(&path, &[0, len / 2, size + 10]), expected, "{name}");
        }
    }

    /// A file of random lines, good and bad, cut at random places.
    #[test]
    fn random_cuts_of_random_lines_give_the_same_records() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut text = String::new();
        for i in 0..400 {
            let end = if rng.below(4) == 0 { "\r\n" } else { "\n" };
            let words =
                "\u{e9}t\u{e9} \u{65e5}\u{672c} word \u{1f600} ".repeat(rng.below(3) as usize);
            let line = match rng.below(10) {
                0 => String::new(),
                1 => "   ".to_owned(),
                2 => format!("{{\"id\":\"d{i}\",\"text\":"),
                3 => format!("{{\"id\":\"d{}\"}}", rng.below(50)),
                4 => format!("{{\"text\":\"{words}\"}}"),
                5 => format!("{{\"id\":\"long{i}\",\"text\":\"{}\"}}", "y".repeat(100)),
                _ => format!("{{\"id\":\"d{}\",\"text\":\"{words}{i}\"}}", rng.below(50)),
            };
            text.push_str(&line);
            text.push_str(end);
        }
        text.push_str("{\"text\":\"the end\"}");
        let path = write(dir.path(), "r.jsonl", text.as_bytes());
        let expected = whole(&path);
        assert!(expected.len() > 300 && expected.iter().any(Result::is_err));
        let size = text.len() as u64;
        for _ in 0..300 {
            let mut cuts: Vec<u64> = (0..1 + rng.below(12)).map(|_| rng.below(size + 1)).collect();
            cuts.extend([0, size]);
            cuts.sort_unstable();
            // Repeated cuts are empty ranges: they give nothing.
            assert_eq!(in_ranges(&path, &cuts), expected, "cuts {cuts:?}");
        }
    }

    #[test]
    fn newlines_are_counted_in_the_range_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "n.jsonl", b"a\nb\r\n\n\xc3\xa9\n");
        assert_eq!(count_newlines(&path, 0, 100).unwrap(), 4);
        assert_eq!(count_newlines(&path, 2, 5).unwrap(), 1);
        assert_eq!(count_newlines(&path, 5, 6).unwrap(), 1);
        assert_eq!(count_newlines(&path, 6, 6).unwrap(), 0);
        assert_eq!(count_newlines(&path, 50, 60).unwrap(), 0);
    }

    #[test]
    fn a_missing_file_is_one_error_per_range() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gone.jsonl");
        let range = LineRange { start: 10, end: 20, newlines_before: 1 };
        let got: Items = Reader::jsonl_range(&path, range, ReadOptions::default()).collect();
        assert_eq!(got.len(), 1);
        let e = got[0].as_ref().unwrap_err();
        assert!(e.message.starts_with("cannot open: "), "{e}");
        assert_eq!(e.lost.as_deref(), Some(path.display().to_string().as_str()));
    }
}
