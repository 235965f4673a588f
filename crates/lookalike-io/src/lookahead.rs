//! A read buffer that can show the next `n` bytes at once, give bytes back, and count offsets:
//! contract: "give me a byte stream, I let you look ahead (a whole WARC header, a gzip header),
//! put bytes back (a record cut short, a gzip member to search again), and tell you where you
//! are".
//!
//! A read error ends the stream like its end does and is kept for the caller to look at when it
//! finds bytes missing: the bytes read before it are all used. A caller that knows the error is
//! not the end of everything (a corrupt gzip member, after which the next member is read) calls
//! [`Lookahead::resume`] to read on.

use std::io::{self, Read};

/// The buffer size, and the most [`Lookahead::fill`] can show at once.
pub(crate) const BUFFER: usize = 64 << 10;

pub(crate) struct Lookahead<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// The error that ended the stream, until taken.
    error: Option<io::Error>,
    /// The stream offset of `buf[start]`.
    offset: u64,
    /// The bytes consumed since [`Lookahead::record`], while fewer than its cap.
    recording: Option<Recording>,
}

struct Recording {
    bytes: Vec<u8>,
    cap: usize,
    overflowed: bool,
}

impl<R: Read> Lookahead<R> {
    pub(crate) fn new(inner: R) -> Lookahead<R> {
        Lookahead {
            inner,
            buf: vec![0; BUFFER],
            start: 0,
            end: 0,
            eof: false,
            error: None,
            offset: 0,
            recording: None,
        }
    }

    /// The offset in the stream of the next byte to consume.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// The buffered bytes, at least `n` (at most [`BUFFER`]) unless the stream ends (or an error
    /// stops it) first.
    pub(crate) fn fill(&mut self, n: usize) -> &[u8] {
        debug_assert!(n <= BUFFER);
        while self.end - self.start < n && !self.eof {
            // buf.len() >= BUFFER >= n, so after compaction there is room for n bytes.
            if self.buf.len() - self.start < n {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(read) => self.end += read,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.eof = true;
                    self.error = Some(e);
                }
            }
        }
        &self.buf[self.start..self.end]
    }

    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.end - self.start);
        if let Some(rec) = &mut self.recording
            && !rec.overflowed
        {
            if rec.bytes.len() + n > rec.cap {
                rec.overflowed = true;
                rec.bytes = Vec::new();
            } else {
                rec.bytes.extend_from_slice(&self.buf[self.start..self.start + n]);
            }
        }
        self.start += n;
        self.offset += n as u64;
    }

    /// Consumes up to `n` bytes, appending them to `out` when given: the number consumed, less
    /// than `n` only at the end of the stream (or at an error).
    pub(crate) fn copy(&mut self, n: u64, mut out: Option<&mut Vec<u8>>) -> u64 {
        let mut done = 0u64;
        while done < n {
            let avail = self.fill(1);
            if avail.is_empty() {
                break;
            }
            let take = avail.len().min(usize::try_from(n - done).unwrap_or(usize::MAX));
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(&avail[..take]);
            }
            self.consume(take);
            done += take as u64;
        }
        done
    }

    /// Gives back `bytes`, the last ones consumed: they are read again, and the offset moves
    /// back by their length.
    pub(crate) fn unread(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if bytes.len() <= self.start {
            self.start -= bytes.len();
            self.buf[self.start..self.start + bytes.len()].copy_from_slice(bytes);
        } else {
            let mut buf = Vec::with_capacity(bytes.len() + (self.end - self.start) + BUFFER);
            buf.extend_from_slice(bytes);
            buf.extend_from_slice(&self.buf[self.start..self.end]);
            self.end = buf.len();
            buf.resize(buf.len().max(BUFFER) + BUFFER, 0);
            self.buf = buf;
            self.start = 0;
        }
        self.offset -= bytes.len() as u64;
    }

    /// The error that stopped the stream, if one did (taken: asked twice, `None`).
    pub(crate) fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// The error that stopped the stream, if one did.
    pub(crate) fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    /// Reads on after an error that did not end the stream (the next `fill` reads again).
    pub(crate) fn resume(&mut self) {
        self.error = None;
        self.eof = false;
    }

    /// Starts keeping a copy of the bytes consumed from now on, up to `cap` bytes (beyond it the
    /// copy is dropped).
    pub(crate) fn record(&mut self, cap: usize) {
        self.recording = Some(Recording { bytes: Vec::new(), cap, overflowed: false });
    }

    /// The bytes consumed since [`Lookahead::record`], unless there were more than its cap; ends
    /// the recording.
    pub(crate) fn take_recording(&mut self) -> Option<Vec<u8>> {
        self.recording.take().filter(|r| !r.overflowed).map(|r| r.bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    #[test]
    fn fill_and_copy_across_refills() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let mut b = Lookahead::new(Cursor::new(data.clone()));
        assert_eq!(b.fill(10)[..10], data[..10]);
        b.consume(7);
        let mut out = Vec::new();
        assert_eq!(b.copy(150_000, Some(&mut out)), 150_000);
        assert_eq!(out, data[7..150_007]);
        assert_eq!(b.fill(BUFFER).len(), 200_000 - 150_007);
        assert_eq!(b.copy(100_000, None), 200_000 - 150_007);
        assert_eq!(b.offset(), 200_000);
        assert!(b.fill(1).is_empty());
        assert!(b.error().is_none());
    }

    #[test]
    fn keeps_the_bytes_before_a_read_error_and_resumes() {
        struct Failing(u8);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.0 += 1;
                if self.0 == 3 {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, "boom"));
                }
                if self.0 > 4 {
                    return Ok(0);
                }
                buf[..3].copy_from_slice(b"abc");
                Ok(3)
            }
        }
        let mut b = Lookahead::new(Failing(0));
        assert_eq!(b.fill(100), b"abcabc");
        assert_eq!(b.take_error().unwrap().to_string(), "boom");
        b.consume(6);
        b.resume();
        assert_eq!(b.fill(100), b"abc");
        assert!(b.error().is_none());
    }

    #[test]
    fn unread_small_and_large() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
        let mut b = Lookahead::new(Cursor::new(data.clone()));
        let mut first = Vec::new();
        b.copy(90_000, Some(&mut first));
        // Larger than the buffer: a new, larger buffer.
        b.unread(&first[10..]);
        assert_eq!(b.offset(), 10);
        let mut all = Vec::new();
        b.copy(u64::MAX, Some(&mut all));
        assert_eq!(all, data[10..]);
        // Small: fits before the current start.
        let mut b = Lookahead::new(Cursor::new(data.clone()));
        b.fill(100);
        b.consume(50);
        b.unread(&data[40..50]);
        assert_eq!((b.offset(), b.fill(1)[0]), (40, data[40]));
    }

    #[test]
    fn recording_keeps_what_was_consumed_up_to_its_cap() {
        let mut b = Lookahead::new(Cursor::new(b"0123456789".to_vec()));
        b.fill(10);
        b.consume(2);
        b.record(5);
        b.consume(3);
        assert_eq!(b.take_recording().as_deref(), Some(&b"234"[..]));
        b.record(2);
        b.consume(3);
        assert_eq!(b.take_recording(), None);
    }
}
