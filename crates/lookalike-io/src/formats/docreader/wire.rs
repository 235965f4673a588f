//! The docreader wire format: contract: "give me bytes, I tell you whether a record starts there
//! (a 4-byte little-endian length, then a protobuf `document` message whose first field is a url);
//! give me a message, I give you its url, body and text, or why it is not well-formed protobuf".

use std::fmt;

/// The size of the length that precedes every message: 4 bytes, little-endian.
pub(super) const HEADER: usize = 4;
/// The protobuf tag of field 1 (`url`) as a length-delimited field: `(1 << 3) | 2`.
pub(super) const URL_TAG: u8 = 0x0a;
/// The longest url a searched-for record start may have (see [`record_start`]).
const MAX_START_URL: usize = 16 << 10;
/// Bytes a record start needs to be recognised: its length, the url tag, the url's length and the
/// url itself.
pub(super) const START_WINDOW: usize = HEADER + 1 + 3 + MAX_START_URL;
/// Deepest nesting of (deprecated) protobuf groups skipped in unknown fields.
const MAX_GROUP_DEPTH: usize = 64;

/// The fields of a `document` message that the reader uses.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Message<'a> {
    /// Field 1.
    pub(crate) url: Option<&'a [u8]>,
    /// Field 2: the page's HTML.
    pub(crate) body: Option<&'a [u8]>,
    /// Field 3: the page's text.
    pub(crate) text: Option<&'a [u8]>,
    /// The number of the first field, if any.
    pub(crate) first_field: Option<u64>,
}

/// Why a message is not well-formed protobuf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed(String);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a varint at `*pos` of `data`: `Ok(None)` when `data` ends inside it.
fn varint(data: &[u8], pos: &mut usize) -> Result<Option<u64>, Malformed> {
    let start = *pos;
    let mut value = 0u64;
    for i in 0..10 {
        let Some(&b) = data.get(start + i) else { return Ok(None) };
        // The tenth byte holds bit 63 only.
        if i == 9 && b > 1 {
            break;
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            *pos = start + i + 1;
            return Ok(Some(value));
        }
    }
    Err(Malformed(format!("varint longer than 10 bytes at byte {start}")))
}

/// Scans the message of `len` bytes whose first `data.len()` bytes (all of it, or a prefix) are
/// `data`: its url, body and text where they are whole in `data`. A field that runs past `len`
/// is an error; one that runs past the end of a prefix ends the scan without one.
pub(crate) fn scan(data: &[u8], len: usize) -> Result<Message<'_>, Malformed> {
    let mut m = Message::default();
    scan_into(data, len, &mut m, true).map(|()| m)
}

/// Whether the message of `len` bytes whose first bytes are `data` is well-formed protobuf as
/// far as it goes, whatever its fields are (a known field with another wire type included): the
/// framing test of the record after another.
fn well_formed(data: &[u8], len: usize) -> bool {
    scan_into(data, len, &mut Message::default(), false).is_ok()
}

/// [`scan`] into `m`, which keeps the fields read before an error; `typed` checks the wire type
/// of the known fields (else they are skipped like unknown ones when it is not 2).
fn scan_into<'a>(
    data: &'a [u8],
    len: usize,
    m: &mut Message<'a>,
    typed: bool,
) -> Result<(), Malformed> {
    let complete = data.len() >= len;
    let data = &data[..data.len().min(len)];
    let mut groups: Vec<u64> = Vec::new();
    let mut pos = 0;
    // Ends the scan: an error when the message is complete (the field runs past its end).
    let cut = |what: &str, at: usize| {
        if complete {
            Err(Malformed(format!(
                "{what} at byte {at} runs past the end of the {len}-byte message"
            )))
        } else {
            Ok(())
        }
    };
    while pos < data.len() {
        let at = pos;
        let Some(key) = varint(data, &mut pos)? else {
            cut("a field key", at)?;
            break;
        };
        let field = key >> 3;
        let wire = (key & 7) as u8;
        if field == 0 {
            return Err(Malformed(format!("field number 0 at byte {at}")));
        }
        if field > u64::from(u32::MAX >> 3) {
            return Err(Malformed(format!("field number {field} is too large, at byte {at}")));
        }
        if wire > 5 {
            return Err(Malformed(format!("invalid wire type {wire} at byte {at}")));
        }
        m.first_field.get_or_insert(field);
        let known = groups.is_empty() && (1..=3).contains(&field);
        if typed && known && wire != 2 {
            let name = ["url", "body", "text"][field as usize - 1];
            return Err(Malformed(format!(
                "field {field} ({name}) has wire type {wire}, not 2 (a string), at byte {at}"
            )));
        }
        match wire {
            0 => {
                if varint(data, &mut pos)?.is_none() {
                    cut("a varint", at)?;
                    break;
                }
            }
            1 | 5 => {
                let size = if wire == 1 { 8 } else { 4 };
                if data.len() - pos < size {
                    cut(&format!("a {size}-byte field"), at)?;
                    break;
                }
                pos += size;
            }
            2 => {
                let Some(size) = varint(data, &mut pos)? else {
                    cut("a field length", at)?;
                    break;
                };
                if size > (len - pos) as u64 {
                    return Err(Malformed(format!(
                        "field {field} of {size} bytes at byte {at} runs past the end of the \
                         {len}-byte message"
                    )));
                }
                let size = size as usize;
                if data.len() - pos < size {
                    break;
                }
                let value = &data[pos..pos + size];
                pos += size;
                if known {
                    match field {
                        1 => m.url = Some(value),
                        2 => m.body = Some(value),
                        _ => m.text = Some(value),
                    }
                }
            }
            3 => {
                if groups.len() >= MAX_GROUP_DEPTH {
                    return Err(Malformed(format!(
                        "groups nested deeper than {MAX_GROUP_DEPTH}, at byte {at}"
                    )));
                }
                groups.push(field);
            }
            4 => {
                if groups.pop() != Some(field) {
                    return Err(Malformed(format!(
                        "end of group {field} without its start, at byte {at}"
                    )));
                }
            }
            _ => return Err(Malformed(format!("invalid wire type {wire} at byte {at}"))),
        }
    }
    if complete && let Some(open) = groups.last() {
        return Err(Malformed(format!("group {open} is not closed at the end of the message")));
    }
    Ok(())
}

/// The url of a (possibly damaged) message, when its fields up to the url read well.
pub(super) fn url_of(bytes: &[u8]) -> Option<String> {
    let mut m = Message::default();
    // The fields read before the damage are kept.
    let _ = scan_into(bytes, bytes.len(), &mut m, true);
    let url = m.url.filter(|u| !u.is_empty())?;
    Some(String::from_utf8_lossy(url).into_owned())
}

/// Whether `w` (the bytes after a message; `more` when more may follow) looks like the next
/// record or the end: a length within `max` whose message reads well as far as it is seen.
pub(super) fn next_is_plausible(w: &[u8], more: bool, max: u64) -> bool {
    if w.is_empty() {
        return true;
    }
    if w.len() < HEADER {
        return more;
    }
    let len = u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    len <= max && well_formed(&w[HEADER..], len as usize)
}

/// Whether a record starts at `w[0]` (see [`DocreaderReader`]): a length within `max`, then a
/// message whose first field is a url of at most 16 KiB without blanks or control characters,
/// whose fields read well as far as `w` goes, and, when it ends within `w`, followed by another
/// plausible record or the end. `more` says whether bytes may follow `w`.
pub(crate) fn record_start(w: &[u8], more: bool, max: u64) -> bool {
    if w.len() <= HEADER || w[HEADER] != URL_TAG {
        return false;
    }
    let len = u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    if len > max || len < 2 {
        return false;
    }
    let len = len as usize;
    let message = &w[HEADER..];
    let Ok(m) = scan(message, len) else { return false };
    let Some(url) = m.url else { return false };
    let url_ok = !url.is_empty()
        && url.len() <= MAX_START_URL
        && std::str::from_utf8(url)
            .is_ok_and(|u| !u.chars().any(|c| c.is_whitespace() || c.is_control()));
    if !url_ok {
        return false;
    }
    match message.get(len..) {
        Some(after) => next_is_plausible(after, more, max),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::MAX_RECORD_BYTES;

    fn field(number: u64, value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, number << 3 | 2);
        put_varint(&mut out, value.len() as u64);
        out.extend_from_slice(value);
        out
    }

    fn put_varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    #[test]
    fn varints() {
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            let mut pos = 0;
            assert_eq!(varint(&buf, &mut pos), Ok(Some(v)));
            assert_eq!(pos, buf.len());
            let mut pos = 0;
            assert_eq!(varint(&buf[..buf.len() - 1], &mut pos), Ok(None));
        }
        let mut pos = 0;
        assert!(varint(&[0xff; 11], &mut pos).is_err());
        // A tenth byte with more than bit 63.
        let mut ten = vec![0xff; 9];
        ten.push(0x02);
        assert!(varint(&ten, &mut 0).is_err());
    }

    #[test]
    fn scan_skips_unknown_fields_of_every_wire_type() {
        let mut m = Vec::new();
        m.extend([4 << 3, 0x96, 0x01]); // field 4, varint 150
        m.extend(field(1, b"http://x/"));
        m.push(5 << 3 | 1); // field 5, fixed64
        m.extend([1, 2, 3, 4, 5, 6, 7, 8]);
        m.push(6 << 3 | 5); // field 6, fixed32
        m.extend([1, 2, 3, 4]);
        m.push(7 << 3 | 3); // group 7 holding a field 1 of its own
        m.extend(field(1, b"inner"));
        m.push(7 << 3 | 4);
        m.extend(field(9, b"unknown bytes"));
        m.extend(field(3, b"some text"));
        let got = scan(&m, m.len()).unwrap();
        assert_eq!(got.url, Some(&b"http://x/"[..]));
        assert_eq!(got.text, Some(&b"some text"[..]));
        assert_eq!(got.body, None);
        assert_eq!(got.first_field, Some(4));
    }

    #[test]
    fn scan_rejects_malformed_messages() {
        let err = |m: &[u8]| scan(m, m.len()).unwrap_err().to_string();
        assert_eq!(err(&[0x00]), "field number 0 at byte 0");
        assert_eq!(err(&[1 << 3 | 6]), "invalid wire type 6 at byte 0");
        assert_eq!(
            err(&[0x08, 0x01]),
            "field 1 (url) has wire type 0, not 2 (a string), at byte 0"
        );
        assert_eq!(
            err(&[0x0a, 0x05, b'a']),
            "field 1 of 5 bytes at byte 0 runs past the end of the 3-byte message"
        );
        assert_eq!(err(&[4 << 3 | 4]), "end of group 4 without its start, at byte 0");
        assert_eq!(err(&[4 << 3 | 3]), "group 4 is not closed at the end of the message");
        assert_eq!(
            err(&[5 << 3 | 5, 1, 2]),
            "a 4-byte field at byte 0 runs past the end of the 3-byte message"
        );
        // A prefix is not an error where the message goes on.
        let m = field(1, b"http://long.example/");
        assert_eq!(scan(&m[..5], m.len()).unwrap().url, None);
    }

    #[test]
    fn record_starts() {
        let message = [field(1, b"http://a.example/"), field(2, b"<p>x")].concat();
        let mut rec = (message.len() as u32).to_le_bytes().to_vec();
        rec.extend(&message);
        assert!(record_start(&rec, false, MAX_RECORD_BYTES));
        // Followed by another record, or by garbage.
        let mut two = rec.clone();
        two.extend(&rec);
        assert!(record_start(&two, false, MAX_RECORD_BYTES));
        let mut garbage = rec.clone();
        garbage.extend(b"<html> and more text");
        assert!(!record_start(&garbage, false, MAX_RECORD_BYTES));
        // A url with a blank is not a start.
        let message = field(1, b"not a url");
        let mut rec = (message.len() as u32).to_le_bytes().to_vec();
        rec.extend(&message);
        assert!(!record_start(&rec, false, MAX_RECORD_BYTES));
        // Text is never a start.
        assert!(!record_start(b"hello\nworld\n", false, MAX_RECORD_BYTES));
    }
}
