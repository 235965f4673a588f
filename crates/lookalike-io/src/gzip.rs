//! gzip streams that survive a corrupt member: contract: "give me a gzip stream of one or many
//! members, I give you its decompressed bytes; where a member is corrupt or cut short I tell you
//! once (a [`GzipGap`] error: which member, what was skipped) and go on with the next member".
//!
//! A `.warc.gz` is one gzip member per record and a `.jsonl.gz` is often many members (pigz,
//! bgzip, files concatenated with `cat`): with a plain multi-member decoder, one corrupt member
//! loses every member after it. Here, after a member fails, the compressed bytes are searched for
//! the next gzip member header — the magic bytes `1f 8b 08`, then flags with the reserved bits
//! clear, an `XFL` of 0, 2 or 4 and a known `OS` byte, which a random match in deflate data
//! rarely has — starting one byte after the failed member's start (its bytes are kept, up to
//! [`REPLAY_CAP`], so that a member that a corrupt one swallowed is still found). A candidate that
//! fails before giving one byte is passed over silently, so one gap is reported however many
//! false starts the search meets.
//!
//! The data a member gave before it failed has been read already (a checksum mismatch is found
//! only at the member's end): the [`GzipGap`] says where it started in the decompressed stream
//! ([`GzipGap::output_start`]), so that a reader can drop the record it was part of.

use std::fmt;
use std::io::{self, BufRead, Read};

use flate2::bufread::GzDecoder;

use crate::lookahead::Lookahead;

/// How many compressed bytes of a member are kept to search again after it fails (a member
/// that a longer corrupt one swallowed is lost: the search starts where the corrupt one ended).
pub(crate) const REPLAY_CAP: usize = 16 << 20;

/// How much data of a candidate member is read ahead to know it is a real one.
const PROBE: usize = 8 << 10;

/// Something skipped in a gzip stream: a member that is corrupt or cut short, or bytes that are
/// not gzip data. Carried as the inner error of an [`io::Error`] of kind `InvalidData` returned
/// once by [`GzipMembers`]; reading goes on after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GzipGap {
    /// What went wrong: the decoder's message, e.g. `corrupt deflate stream`.
    pub cause: String,
    /// The byte offset, in the compressed input, of the member that failed (or of the bytes
    /// that are not gzip data).
    pub start: u64,
    /// The offset in the compressed input where reading goes on (the next member), `None` when
    /// nothing readable follows.
    pub resumed_at: Option<u64>,
    /// Compressed bytes skipped: from `start` to `resumed_at` or to the end.
    pub skipped: u64,
    /// The offset in the decompressed stream where the failed member's data began.
    pub output_start: u64,
    /// How many decompressed bytes the failed member gave before it failed (already read,
    /// possibly damaged).
    pub output_len: u64,
    /// Whether the bytes skipped are a member that failed (else they are not gzip data at all).
    pub member: bool,
}

impl GzipGap {
    /// The gap carried by `e`, if `e` is one.
    pub fn of(e: &io::Error) -> Option<&GzipGap> {
        e.get_ref().and_then(|inner| inner.downcast_ref::<GzipGap>())
    }

    /// Whether the failed member gave data from before `offset` of the decompressed stream:
    /// the bytes before `offset` may be damaged.
    pub fn damages_before(&self, offset: u64) -> bool {
        self.output_len > 0 && self.output_start < offset
    }
}

impl fmt::Display for GzipGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let truncated = self.cause.contains("end of file") && self.resumed_at.is_none();
        if !self.member {
            write!(f, "{} bytes at byte {} are not gzip data", self.skipped, self.start)?;
        } else if truncated {
            write!(
                f,
                "truncated gzip data: the input ends inside the member at byte {}",
                self.start
            )?;
        } else {
            write!(f, "corrupt gzip member at byte {} ({})", self.start, self.cause)?;
        }
        if self.output_len > 0 {
            write!(f, ", which gave {} bytes", self.output_len)?;
        }
        match self.resumed_at {
            Some(at) => {
                write!(f, "; skipped {} bytes to the next member, at byte {at}", self.skipped)
            }
            None if truncated => Ok(()),
            None => write!(f, "; skipped {} bytes to the end", self.skipped),
        }
    }
}

impl std::error::Error for GzipGap {}

/// The decompressed bytes of a gzip stream of any number of members, going on after a corrupt
/// or truncated member: a multi-member gzip decoder that loses only the damaged member.
///
/// Where a member fails, `read` returns one error of kind `InvalidData` carrying a [`GzipGap`]
/// (what was skipped, and where), then goes on with the next member header it finds (magic
/// bytes `1f 8b 08`, flags with the reserved bits clear, a plausible `XFL` and `OS`), searching
/// from one byte after the failed member's start. Bytes after the last member that are not gzip
/// data are one more gap. A read error of the input itself is returned as it is, and ends the
/// stream. [`crate::Reader`] reads every gzip input through it.
///
/// ```
/// use std::io::{Read, Write};
/// use lookalike_io::{GzipGap, GzipMembers};
///
/// let gzip = |data: &[u8]| {
///     let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
///     e.write_all(data).unwrap();
///     e.finish().unwrap()
/// };
/// let mut bad = gzip(b"second ");
/// bad[10] = 0xff; // a reserved deflate block type: fails at once
/// let stream = [gzip(b"first "), bad, gzip(b"third")].concat();
///
/// let mut reader = GzipMembers::new(&stream[..]);
/// let (mut out, mut gaps) = (Vec::new(), Vec::new());
/// let mut buf = [0u8; 64];
/// loop {
///     match reader.read(&mut buf) {
///         Ok(0) => break,
///         Ok(n) => out.extend_from_slice(&buf[..n]),
///         Err(e) => gaps.push(GzipGap::of(&e).expect("a gap").clone()),
///     }
/// }
/// assert_eq!(out, b"first third");
/// assert_eq!(gaps.len(), 1);
/// assert!(gaps[0].to_string().starts_with("corrupt gzip member at byte 26"));
/// ```
pub struct GzipMembers<R: Read> {
    state: State<R>,
    /// Decompressed bytes returned so far.
    out: u64,
    /// Data of the next member, read while searching for it, returned before anything else.
    held: Vec<u8>,
    held_pos: usize,
}

enum State<R: Read> {
    /// Between members (at the start, or after one ended).
    Between(Lookahead<R>),
    /// Inside a member that started at `start`.
    Member {
        decoder: Box<GzDecoder<Source<R>>>,
        start: u64,
        out_start: u64,
    },
    Done,
}

impl<R: Read> std::fmt::Debug for GzipMembers<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Between(_) => "between members",
            State::Member { .. } => "in a member",
            State::Done => "done",
        };
        f.debug_struct("GzipMembers")
            .field("state", &state)
            .field("out", &self.out)
            .finish_non_exhaustive()
    }
}

impl<R: Read> GzipMembers<R> {
    /// A decoder of the gzip stream `inner`, which should start with a gzip member header
    /// (anything else before the first member is reported as a gap).
    pub fn new(inner: R) -> GzipMembers<R> {
        GzipMembers {
            state: State::Between(Lookahead::new(inner)),
            out: 0,
            held: Vec::new(),
            held_pos: 0,
        }
    }

    /// After a member (or bytes at `start`) failed: searches for the next member from
    /// `search_from`, sets the state to read on there, and returns the gap to report.
    fn resync(&mut self, mut input: Lookahead<R>, mut gap: GzipGap) -> io::Error {
        loop {
            let Some(at) = next_header(&mut input) else {
                gap.skipped = input.offset() - gap.start;
                self.state = State::Done;
                break;
            };
            // Try the candidate: a real member gives data (or ends cleanly) at once.
            input.record(REPLAY_CAP);
            let mut decoder = GzDecoder::new(Source(input));
            let mut probe = vec![0; PROBE];
            match read_some(&mut decoder, &mut probe) {
                Ok(n) => {
                    probe.truncate(n);
                    gap.resumed_at = Some(at);
                    gap.skipped = at - gap.start;
                    self.held = probe;
                    self.held_pos = 0;
                    self.state = State::Member {
                        decoder: Box::new(decoder),
                        start: at,
                        out_start: self.out,
                    };
                    break;
                }
                Err(e) => {
                    input = decoder.into_inner().0;
                    if input.error().is_some() {
                        // The input itself failed: nothing more can be read.
                        self.state = State::Done;
                        return e;
                    }
                    // A false start: search again one byte after it.
                    if let Some(bytes) = input.take_recording() {
                        input.unread(&bytes[1.min(bytes.len())..]);
                    }
                }
            }
        }
        io::Error::new(io::ErrorKind::InvalidData, gap)
    }
}

/// Reads until some data or the end of the member: the number of bytes read.
fn read_some(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

impl<R: Read> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.held_pos < self.held.len() {
            let n = buf.len().min(self.held.len() - self.held_pos);
            buf[..n].copy_from_slice(&self.held[self.held_pos..self.held_pos + n]);
            self.held_pos += n;
            self.out += n as u64;
            return Ok(n);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(0),
                State::Between(mut input) => {
                    let avail = input.fill(3);
                    if avail.is_empty() {
                        return match input.take_error() {
                            Some(e) => Err(e),
                            None => Ok(0),
                        };
                    }
                    let is_gzip = avail.starts_with(&[0x1f, 0x8b]);
                    let start = input.offset();
                    if is_gzip {
                        input.record(REPLAY_CAP);
                        let decoder = Box::new(GzDecoder::new(Source(input)));
                        self.state = State::Member { decoder, start, out_start: self.out };
                        continue;
                    }
                    // Not gzip data after a member (trailing garbage, padding): reported once.
                    let gap = GzipGap {
                        cause: "not gzip data".to_owned(),
                        start,
                        resumed_at: None,
                        skipped: 0,
                        output_start: self.out,
                        output_len: 0,
                        member: false,
                    };
                    return Err(self.resync(input, gap));
                }
                State::Member { mut decoder, start, out_start } => match decoder.read(buf) {
                    Ok(0) => {
                        let mut input = decoder.into_inner().0;
                        let _ = input.take_recording();
                        self.state = State::Between(input);
                    }
                    Ok(n) => {
                        self.out += n as u64;
                        self.state = State::Member { decoder, start, out_start };
                        return Ok(n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                        self.state = State::Member { decoder, start, out_start };
                    }
                    Err(e) => {
                        let mut input = decoder.into_inner().0;
                        if input.error().is_some() {
                            // The input itself failed (not the gzip data): the end.
                            return Err(e);
                        }
                        let cause = match e.kind() {
                            io::ErrorKind::UnexpectedEof => "unexpected end of file".to_owned(),
                            _ => e.to_string(),
                        };
                        // Search again from one byte after the member's start.
                        if let Some(bytes) = input.take_recording() {
                            input.unread(&bytes[1.min(bytes.len())..]);
                        }
                        let gap = GzipGap {
                            cause,
                            start,
                            resumed_at: None,
                            skipped: 0,
                            output_start: out_start,
                            output_len: self.out - out_start,
                            member: true,
                        };
                        return Err(self.resync(input, gap));
                    }
                },
            }
        }
    }
}

/// Consumes bytes up to the next plausible gzip member header: its offset, or `None` at the end
/// of the input (or at a read error, left in `input`).
fn next_header<R: Read>(input: &mut Lookahead<R>) -> Option<u64> {
    const HEADER: usize = 10;
    loop {
        let avail = input.fill(HEADER);
        if avail.len() < HEADER {
            let len = avail.len();
            input.consume(len);
            return None;
        }
        let last = avail.len() - HEADER;
        let found = memchr::memchr_iter(0x1f, &avail[..=last])
            .find(|&i| plausible_header(&avail[i..i + HEADER]));
        match found {
            Some(i) => {
                input.consume(i);
                return Some(input.offset());
            }
            None => input.consume(last + 1),
        }
    }
}

/// A gzip member header as compressors write it: magic, deflate, no reserved flag, `XFL` 0, 2
/// or 4, `OS` 0 to 13 or 255 (RFC 1952).
fn plausible_header(h: &[u8]) -> bool {
    h[0] == 0x1f
        && h[1] == 0x8b
        && h[2] == 8
        && h[3] & 0xe0 == 0
        && matches!(h[8], 0 | 2 | 4)
        && (h[9] <= 13 || h[9] == 255)
}

/// The compressed input as the decoder reads it.
struct Source<R>(Lookahead<R>);

impl<R: Read> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.0.fill(1).is_empty()
            && let Some(e) = self.0.error()
        {
            // Kept in the buffer (the caller tells an input failure by it); the decoder sees a
            // copy.
            return Err(io::Error::new(e.kind(), e.to_string()));
        }
        Ok(self.0.fill(1))
    }

    fn consume(&mut self, n: usize) {
        self.0.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    /// Everything readable, and the gaps met on the way.
    fn read_all(bytes: &[u8]) -> (Vec<u8>, Vec<GzipGap>) {
        let mut r = GzipMembers::new(bytes);
        let (mut out, mut gaps) = (Vec::new(), Vec::new());
        let mut buf = [0u8; 777];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (out, gaps),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => gaps.push(GzipGap::of(&e).expect("a gap").clone()),
            }
            assert!(gaps.len() < 100, "no progress");
        }
    }

    /// Members of varied, poorly compressible text.
    fn members(n: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let plain: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                (0..300)
                    .map(|j| format!("{} ", (i * 7919 + j * 104_729) % 100_003))
                    .collect::<String>()
            })
            .map(String::into_bytes)
            .collect();
        let gz = plain.iter().map(|p| gzip(p)).collect();
        (plain, gz)
    }

    #[test]
    fn intact_members_read_like_a_multi_member_decoder() {
        let (plain, gz) = members(5);
        let (out, gaps) = read_all(&gz.concat());
        assert_eq!(out, plain.concat());
        assert!(gaps.is_empty());
        let (out, gaps) = read_all(&gzip(b""));
        assert!(out.is_empty() && gaps.is_empty());
    }

    #[test]
    fn a_corrupt_member_loses_only_itself() {
        let (plain, gz) = members(6);
        let mut bytes = gz.concat();
        let start: usize = gz[..2].iter().map(Vec::len).sum();
        let mid = start + gz[2].len() / 2;
        for b in &mut bytes[mid..mid + 8] {
            *b ^= 0x55;
        }
        let (out, gaps) = read_all(&bytes);
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        let gap = &gaps[0];
        assert!(gap.member);
        assert_eq!(gap.start, start as u64);
        assert_eq!(gap.resumed_at, Some((start + gz[2].len()) as u64));
        assert_eq!(gap.skipped, gz[2].len() as u64);
        let before = plain[..2].concat();
        assert_eq!(gap.output_start, before.len() as u64);
        // What the damaged member gave, then the members after it, intact.
        assert!(out.starts_with(&before));
        assert!(out.ends_with(&plain[3..].concat()));
        assert_eq!(
            out.len() as u64,
            (before.len() + plain[3..].concat().len()) as u64 + gap.output_len
        );
        assert!(gap.to_string().starts_with(&format!("corrupt gzip member at byte {start} (")));
    }

    #[test]
    fn a_broken_header_and_a_checksum_mismatch() {
        let (plain, gz) = members(3);
        let mut bytes = gz.concat();
        bytes[gz[0].len() + 2] = 7; // member 2: not deflate
        let (out, gaps) = read_all(&bytes);
        assert_eq!(gaps.len(), 1);
        assert_eq!(gaps[0].output_len, 0);
        assert_eq!(out, [plain[0].clone(), plain[2].clone()].concat());
        // A wrong CRC is found after all of the member's data was read.
        let mut bytes = gz.concat();
        let crc = gz[0].len() + gz[1].len() - 8;
        bytes[crc] ^= 1;
        let (out, gaps) = read_all(&bytes);
        assert_eq!(out, plain.concat());
        assert_eq!(gaps.len(), 1);
        assert_eq!(
            (gaps[0].output_start, gaps[0].output_len),
            (plain[0].len() as u64, plain[1].len() as u64)
        );
        assert!(gaps[0].damages_before(plain[0].len() as u64 + 1));
        assert!(!gaps[0].damages_before(plain[0].len() as u64));
        assert_eq!(gaps[0].resumed_at, Some((gz[0].len() + gz[1].len()) as u64));
    }

    #[test]
    fn truncation_and_trailing_garbage() {
        let (plain, gz) = members(2);
        let mut bytes = gz.concat();
        bytes.truncate(bytes.len() - 20);
        let (out, gaps) = read_all(&bytes);
        assert_eq!(gaps.len(), 1);
        assert_eq!(gaps[0].resumed_at, None);
        assert_eq!(
            gaps[0].to_string().split(", which").next().unwrap(),
            format!(
                "truncated gzip data: the input ends inside the member at byte {}",
                gz[0].len()
            )
        );
        assert!(out.starts_with(&plain[0]));
        let mut bytes = gz.concat();
        bytes.extend([0u8; 100]);
        let (out, gaps) = read_all(&bytes);
        assert_eq!(out, plain.concat());
        assert_eq!(gaps.len(), 1);
        assert_eq!(
            gaps[0].to_string(),
            format!(
                "100 bytes at byte {} are not gzip data; skipped 100 bytes to the end",
                bytes.len() - 100
            )
        );
    }

    #[test]
    fn a_member_swallowed_by_a_corrupt_one_is_found_again() {
        // A stored block whose length is made to cover the next member: the decoder reads the
        // next member as data, then fails; the search starts again inside what it consumed.
        let (plain, gz) = members(3);
        let stored = {
            let mut enc = GzEncoder::new(Vec::new(), Compression::none());
            enc.write_all(b"tiny").unwrap();
            enc.finish().unwrap()
        };
        let mut bytes = stored.clone();
        // The stored block's LEN (after the 10-byte header and 1 byte of block header).
        let len = (gz[0].len() + 50) as u16;
        bytes[11..13].copy_from_slice(&len.to_le_bytes());
        bytes[13..15].copy_from_slice(&(!len).to_le_bytes());
        bytes.extend(gz.concat());
        let (out, gaps) = read_all(&bytes);
        assert!(!gaps.is_empty());
        assert!(out.ends_with(&plain.concat()), "members after the swallowing one are read");
    }
}
