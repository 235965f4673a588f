//! The JSONL reader and decoder on arbitrary bytes, plain or split into gzip members (one of
//! them possibly damaged), with a small line limit: no panic; line numbers that increase; lines
//! within the limit and without line breaks; an error that loses a line names it; every record
//! decodes to a document or a skip with a reason; ids made unique stay unique.
#![no_main]

use std::collections::HashSet;
use std::io::{Cursor, Write};

use flate2::Compression;
use flate2::write::GzEncoder;
use libfuzzer_sys::fuzz_target;
use lookalike_io::{Decoded, Format, ReadOptions, Reader, UniqueIds, decode};

const MAX: u64 = 512;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else { return };
    let stream = if mode & 1 == 1 {
        // Gzip members of 100 bytes each; mode's high bits damage one byte of the stream.
        let mut out: Vec<u8> = bytes
            .chunks(100)
            .flat_map(|chunk| {
                let mut e = GzEncoder::new(Vec::new(), Compression::fast());
                e.write_all(chunk).unwrap();
                e.finish().unwrap()
            })
            .collect();
        if mode & 2 == 2 && !out.is_empty() {
            let at = usize::from(mode >> 2) * out.len() / 64;
            let last = out.len() - 1;
            out[at.min(last)] ^= 0x5a;
        }
        out
    } else {
        bytes.to_vec()
    };
    let opts = ReadOptions {
        format: Some(Format::Jsonl),
        // The id and the text in one field, now and then.
        id_field: if mode & 4 == 4 { "text".into() } else { "id".into() },
        ..ReadOptions::default()
    };
    let reader = Reader::from_stream("fuzz.jsonl", Cursor::new(stream), opts.clone())
        .with_max_record_bytes(MAX);
    let mut last = 0u64;
    let mut unique = UniqueIds::default();
    let mut seen = HashSet::new();
    for item in reader {
        let id = match item {
            Ok(rec) => {
                let line = rec.line.expect("JSONL records have a line");
                assert!(line > last, "line {line} after {last}");
                last = line;
                assert!(rec.bytes.len() as u64 <= MAX);
                assert!(!rec.bytes.contains(&b'\n'));
                let origin = rec.origin();
                let id = match decode(&rec, &opts) {
                    Decoded::Doc { doc, warning, .. } => {
                        if warning.as_deref().is_some_and(|w| w.starts_with("lone surrogate")) {
                            // In any string of the line, not only the id or the text.
                            assert!(has_surrogate_escape(&rec.bytes));
                        }
                        doc.id
                    }
                    Decoded::Skip { id, reason } => {
                        assert!(!reason.as_str().is_empty());
                        id
                    }
                };
                unique.make_unique(&id, &origin).unwrap_or(id)
            }
            Err(e) => {
                assert_eq!(e.source, "fuzz.jsonl");
                assert!(!e.message.is_empty());
                let Some(lost) = e.lost.clone() else {
                    // Nothing lost: a gap between two lines.
                    assert!(e.line.is_none_or(|l| l > last));
                    continue;
                };
                match e.line {
                    Some(line) => {
                        assert!(line > last, "line {line} after {last}");
                        last = line;
                        assert_eq!(lost, format!("fuzz.jsonl:{line}"));
                    }
                    None => assert_eq!(lost, "fuzz.jsonl"),
                }
                unique.make_unique(&lost, &e.origin()).unwrap_or(lost)
            }
        };
        assert!(seen.insert(id.clone()), "id {id:?} given twice");
    }
});

/// Whether `bytes` hold a `\uD800`-`\uDFFF` escape (any case).
fn has_surrogate_escape(bytes: &[u8]) -> bool {
    bytes.windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && w[2].eq_ignore_ascii_case(&b'd')
            && matches!(w[3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f')
    })
}
