//! Decoding arbitrary bytes as an HTML file, a text file, an HTTP response of a WARC record, and
//! through `html_to_text`: charset sniffing (BOM, HTTP charset, `<meta>` prescan, detection),
//! HTTP parsing, chunked and gzip/deflate decoding, HTML extraction. No panic, and a document
//! always names its charset.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use lookalike_io::{Decoded, Format, RawRecord, ReadOptions, decode, html_to_text};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else { return };
    let format = match selector % 4 {
        0 => Format::Html,
        1 => Format::Text,
        2 => Format::Warc,
        _ => {
            let _ = html_to_text(bytes);
            return;
        }
    };
    let rec = RawRecord {
        source: Arc::from("fuzz"),
        line: None,
        format,
        bytes: bytes.to_vec(),
        warc: None,
    };
    match decode(&rec, &ReadOptions::default()) {
        Decoded::Doc { doc, charset, .. } => {
            assert!(!charset.is_empty());
            assert_eq!(doc.raw_len, bytes.len() as u64);
        }
        Decoded::Skip { reason, .. } => assert!(!reason.as_str().is_empty()),
    }
});
