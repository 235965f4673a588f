//! The docreader reader (the lecture's homework format) and the decoding of its records on
//! arbitrary bytes (gzip-compressed when they start with the gzip magic bytes, read through
//! `GzipMembers`): no panic, record numbers increase, every record read holds a
//! url and decodes under it, every error that loses a record names its number and offset.
#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use lookalike_io::{Decoded, DocreaderReader, GzipMembers, Position, ReadOptions, decode, is_gzip};

fuzz_target!(|data: &[u8]| {
    let stream: Box<dyn Read> =
        if is_gzip(data) { Box::new(GzipMembers::new(data)) } else { Box::new(data) };
    // A small limit, so that the bad-length path is reached too.
    let reader = DocreaderReader::new("fuzz.gz", stream).with_max_record_bytes(4096);
    let opts = ReadOptions::default();
    let mut last = 0;
    for item in reader {
        let number = match item {
            Ok(rec) => {
                assert!(rec.bytes.len() <= 4096);
                let Position::Record(n) = rec.origin().position else {
                    panic!("a docreader record has a number")
                };
                match decode(&rec, &opts) {
                    Decoded::Doc { doc, .. } => assert!(!doc.id.is_empty()),
                    Decoded::Skip { id, reason } => {
                        assert!(!id.is_empty());
                        assert!(!reason.as_str().is_empty());
                    }
                }
                n
            }
            Err(e) => {
                let Some(n) = e.record else { continue };
                assert!(e.lost.is_some(), "an error about a record loses it");
                assert!(e.message.starts_with(&format!("record {n} at offset ")), "{e}");
                n
            }
        };
        assert!(number > last, "record numbers must increase");
        last = number;
    }
});
