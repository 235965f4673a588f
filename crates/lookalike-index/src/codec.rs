//! How records are laid out in the tables. Contract: "give me a record, I give you bytes with a
//! checksum; give me bytes, I give you the record or say it is corrupt".

use crate::error::{Error, Result};

/// Layout version of a document record (the first byte).
const DOC_RECORD: u8 = 1;

/// How a document stands in its exact-copy group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// The first document with its normalized text: it carries the signature (and, in format 1
    /// indexes, the shingles).
    Head,
    /// An exact copy of head `of`; `bytes` when their raw bytes are equal too.
    Copy {
        /// The head.
        of: u64,
        /// Same raw bytes as the head.
        bytes: bool,
    },
}

/// The fate decided when a document was added.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredFate {
    /// Its representative: itself when it was kept (a cluster center).
    pub rep: u64,
    /// Similarity to the representative (1.0 for itself).
    pub similarity: f64,
    /// How it matched the representative: 0 itself, 1 near, 2 exact bytes, 3 exact text.
    pub kind: u8,
}

/// One document of the index.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRecord {
    /// The caller's id.
    pub id: String,
    /// Head or copy.
    pub group: Group,
    /// Its fate when added.
    pub fate: StoredFate,
    /// Fingerprint of its normalized text.
    pub fingerprint: u128,
    /// Fingerprint of its raw bytes, when the reader knew them.
    pub raw_fingerprint: Option<u128>,
    /// Size of its raw input.
    pub raw_len: u64,
    /// Length of its text in bytes.
    pub text_len: u64,
    /// Heads: the method's signature (MinHash values as u32 LE, a SimHash fingerprint, or
    /// signature keys), empty for copies.
    pub signature: Vec<u8>,
    /// Heads a lexical method could not sign: why.
    pub unsigned: Option<String>,
    /// Heads of format 1 indexes: the sorted shingle hashes (empty for copies, which share their
    /// head's, and for every document of a format 2 index, which re-shingles the text).
    pub shingles: Vec<u64>,
}

impl DocRecord {
    /// The record's bytes: layout version, fields, xxh3-64 of everything before it.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.id.len() + self.shingles.len() * 8);
        out.push(DOC_RECORD);
        put_bytes(&mut out, self.id.as_bytes());
        match self.group {
            Group::Head => out.push(0),
            Group::Copy { of, bytes } => {
                out.push(if bytes { 2 } else { 1 });
                put_varint(&mut out, of);
            }
        }
        put_varint(&mut out, self.fate.rep);
        out.extend_from_slice(&self.fate.similarity.to_le_bytes());
        out.push(self.fate.kind);
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        match self.raw_fingerprint {
            Some(f) => {
                out.push(1);
                out.extend_from_slice(&f.to_le_bytes());
            }
            None => out.push(0),
        }
        put_varint(&mut out, self.raw_len);
        put_varint(&mut out, self.text_len);
        put_bytes(&mut out, &self.signature);
        put_bytes(&mut out, self.unsigned.as_deref().unwrap_or("").as_bytes());
        put_shingles(&mut out, &self.shingles);
        let sum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The record in `bytes`, or why it is corrupt.
    pub fn decode(bytes: &[u8]) -> Result<DocRecord> {
        let corrupt = |m: &str| Error::Corrupt { table: "docs", message: m.to_owned() };
        if bytes.len() < 9 {
            return Err(corrupt("record too short"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != sum {
            return Err(corrupt("checksum mismatch"));
        }
        let mut r = Reader { bytes: body, at: 0 };
        if r.u8()? != DOC_RECORD {
            return Err(corrupt("unknown record layout"));
        }
        let id = String::from_utf8(r.bytes()?.to_vec()).map_err(|_| corrupt("id is not UTF-8"))?;
        let group = match r.u8()? {
            0 => Group::Head,
            b @ (1 | 2) => Group::Copy { of: r.varint()?, bytes: b == 2 },
            _ => return Err(corrupt("bad group tag")),
        };
        let rep = r.varint()?;
        let similarity = f64::from_le_bytes(r.array()?);
        let kind = r.u8()?;
        let fingerprint = u128::from_le_bytes(r.array()?);
        let raw_fingerprint = match r.u8()? {
            0 => None,
            _ => Some(u128::from_le_bytes(r.array()?)),
        };
        let raw_len = r.varint()?;
        let text_len = r.varint()?;
        let signature = r.bytes()?.to_vec();
        let unsigned = String::from_utf8(r.bytes()?.to_vec()).map_err(|_| corrupt("not UTF-8"))?;
        let shingles = r.shingles()?;
        if r.at != body.len() {
            return Err(corrupt("trailing bytes"));
        }
        Ok(DocRecord {
            id,
            group,
            fate: StoredFate { rep, similarity, kind },
            fingerprint,
            raw_fingerprint,
            raw_len,
            text_len,
            signature,
            unsigned: (!unsigned.is_empty()).then_some(unsigned),
            shingles,
        })
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Sorted shingle hashes as a count and varint deltas.
fn put_shingles(out: &mut Vec<u8>, s: &[u64]) {
    put_varint(out, s.len() as u64);
    let mut prev = 0u64;
    for &h in s {
        put_varint(out, h.wrapping_sub(prev));
        prev = h;
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn short() -> Error {
        Error::Corrupt { table: "docs", message: "record cut short".to_owned() }
    }

    fn u8(&mut self) -> Result<u8> {
        let b = *self.bytes.get(self.at).ok_or_else(Reader::short)?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(Reader::short)?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Error::Corrupt { table: "docs", message: "varint too long".to_owned() })
    }

    fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = usize::try_from(self.varint()?).map_err(|_| Reader::short())?;
        self.take(n)
    }

    fn shingles(&mut self) -> Result<Vec<u64>> {
        let n = usize::try_from(self.varint()?).map_err(|_| Reader::short())?;
        if n > self.bytes.len() - self.at {
            return Err(Reader::short());
        }
        let mut out = Vec::with_capacity(n);
        let mut prev = 0u64;
        for _ in 0..n {
            prev = prev.wrapping_add(self.varint()?);
            out.push(prev);
        }
        Ok(out)
    }
}

/// A document number as a big-endian key (keys sort in insertion order).
pub fn doc_key(doc: u64) -> [u8; 8] {
    doc.to_be_bytes()
}

/// The document number of a key.
pub fn doc_of(key: &[u8]) -> Result<u64> {
    let b: [u8; 8] = key.try_into().map_err(|_| Error::Corrupt {
        table: "ids",
        message: "document number is not 8 bytes".to_owned(),
    })?;
    Ok(u64::from_be_bytes(b))
}

/// `(table, key, doc)` as the 18-byte key of the keys table.
pub fn band_row(table: u16, key: u64, doc: u64) -> Vec<u8> {
    let mut k = Vec::with_capacity(18);
    k.extend_from_slice(&table.to_be_bytes());
    k.extend_from_slice(&key.to_be_bytes());
    k.extend_from_slice(&doc.to_be_bytes());
    k
}

/// `(table, key)`: the prefix of every document under one key.
pub fn band_prefix(table: u16, key: u64) -> [u8; 10] {
    let mut k = [0u8; 10];
    k[..2].copy_from_slice(&table.to_be_bytes());
    k[2..].copy_from_slice(&key.to_be_bytes());
    k
}

/// `(head, copy)` as the key of the copies table.
pub fn copy_row(head: u64, copy: u64) -> Vec<u8> {
    let mut k = Vec::with_capacity(16);
    k.extend_from_slice(&head.to_be_bytes());
    k.extend_from_slice(&copy.to_be_bytes());
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> DocRecord {
        DocRecord {
            id: "https://example.com/ä".to_owned(),
            group: Group::Copy { of: 300, bytes: true },
            fate: StoredFate { rep: 7, similarity: 0.875, kind: 1 },
            fingerprint: u128::MAX - 5,
            raw_fingerprint: Some(42),
            raw_len: 1 << 40,
            text_len: 12,
            signature: vec![1, 2, 3],
            unsigned: Some("too short".to_owned()),
            shingles: vec![0, 1, 1 << 63, u64::MAX],
        }
    }

    #[test]
    fn records_round_trip() {
        let r = record();
        assert_eq!(DocRecord::decode(&r.encode()).unwrap(), r);
        let plain = DocRecord { group: Group::Head, raw_fingerprint: None, unsigned: None, ..r };
        assert_eq!(DocRecord::decode(&plain.encode()).unwrap(), plain);
    }

    #[test]
    fn torn_or_flipped_records_are_refused_not_misread() {
        let bytes = record().encode();
        for cut in 0..bytes.len() {
            assert!(DocRecord::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(DocRecord::decode(&b).is_err(), "flipped byte {i}");
        }
    }

    /// Regression: decoding never panics, whatever the bytes, also when their
    /// checksum holds (a damaged record whose checksum was recomputed, or a bug in a writer):
    /// random bodies, and a valid record with each byte changed, under a valid checksum.
    #[test]
    fn decoding_never_panics_on_any_bytes_even_under_a_valid_checksum() {
        let sealed = |body: &[u8]| {
            let mut b = body.to_vec();
            b.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(body).to_le_bytes());
            b
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let len = (next() % 120) as usize;
            let mut body: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if let Some(first) = body.first_mut() {
                *first = DOC_RECORD;
            }
            let _ = DocRecord::decode(&body);
            let _ = DocRecord::decode(&sealed(&body));
        }
        let good = record().encode();
        let body = &good[..good.len() - 8];
        for i in 1..body.len() {
            for v in [0u8, 0x7f, 0x80, 0xff] {
                let mut b = body.to_vec();
                b[i] = v;
                let _ = DocRecord::decode(&sealed(&b));
            }
        }
    }
}
