//! The WARC reader and the decoding of its records on arbitrary bytes (gzip-compressed when they
//! start with the gzip magic bytes, read through `GzipMembers`, which goes on after a corrupt
//! member): no panic, record numbers increase, response ids are unique, a record the reader
//! knows is lost carries its reason.
#![no_main]

use std::collections::HashSet;
use std::io::Read;

use libfuzzer_sys::fuzz_target;
use lookalike_io::{Decoded, GzipMembers, ReadOptions, WarcReader, decode, is_gzip};

fuzz_target!(|data: &[u8]| {
    let stream: Box<dyn Read> =
        if is_gzip(data) { Box::new(GzipMembers::new(data)) } else { Box::new(data) };
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
        if let Some(reason) = &header.skip {
            assert!(!reason.as_str().is_empty());
            assert!(rec.bytes.is_empty(), "a skipped record keeps no bytes");
        }
        if header.kind == "response" {
            assert!(ids.insert(header.id.clone()), "duplicate id {}", header.id);
        }
        match decode(&rec, &opts) {
            Decoded::Doc { doc, .. } => assert_eq!(doc.id, header.id),
            Decoded::Skip { id, reason } => {
                assert_eq!(id, header.id);
                assert!(!reason.as_str().is_empty());
            }
        }
    }
});
