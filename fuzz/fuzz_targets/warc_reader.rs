//! The WARC reader and the decoding of its records on arbitrary bytes (gzip-compressed when they
//! start with the gzip magic bytes): no panic, record numbers increase, response ids are unique.
#![no_main]

use std::collections::HashSet;
use std::io::Read;

use flate2::read::MultiGzDecoder;
use libfuzzer_sys::fuzz_target;
use lookalike_io::{Decoded, ReadOptions, WarcReader, decode, is_gzip};

fuzz_target!(|data: &[u8]| {
    let stream: Box<dyn Read> =
        if is_gzip(data) { Box::new(MultiGzDecoder::new(data)) } else { Box::new(data) };
    // A small limit, so that the oversized-record path is reached too.
    let reader = WarcReader::new("fuzz.warc", stream).with_max_record_bytes(4096);
    let opts = ReadOptions::default();
    let mut last = 0;
    let mut ids = HashSet::new();
    for item in reader {
        let Ok(rec) = item else { continue };
        let header = rec.warc.as_deref().expect("WARC records carry their header");
        assert!(header.number > last, "record numbers must increase");
        last = header.number;
        assert!(rec.bytes.len() as u64 <= header.length);
        if header.kind == "response" {
            assert!(ids.insert(header.id.clone()), "duplicate id {}", header.id);
        }
        match decode(&rec, &opts) {
            Decoded::Doc { doc, .. } => assert_eq!(doc.id, header.id),
            Decoded::Skip { id, reason } => {
                assert_eq!(id, header.id);
                assert!(!reason.is_empty());
            }
        }
    }
});
