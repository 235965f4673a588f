//! The gzip layer that goes on after a corrupt member (`GzipMembers`), on arbitrary bytes and on
//! real members built from the input with one byte damaged. No panic, no endless loop, gaps that
//! add up; an intact stream reads as a plain multi-member decoder reads it; the members before a
//! damaged one are read whole, and so are all the members after it.
#![no_main]

use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use libfuzzer_sys::fuzz_target;
use lookalike_io::{GzipGap, GzipMembers};

/// Everything `GzipMembers` reads from `bytes`, and the gaps, checked as they come.
fn read_all(bytes: &[u8]) -> (Vec<u8>, Vec<GzipGap>) {
    let len = bytes.len() as u64;
    let mut reader = GzipMembers::new(bytes);
    let (mut out, mut gaps) = (Vec::new(), Vec::new());
    let mut buf = vec![0u8; 1000];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return (out, gaps),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => {
                let gap = GzipGap::of(&e).expect("an in-memory input fails only with gaps").clone();
                assert!(gap.start < len, "{gap:?}");
                match gap.resumed_at {
                    Some(at) => {
                        assert!(at > gap.start && at < len, "{gap:?}");
                        assert_eq!(gap.skipped, at - gap.start);
                    }
                    None => assert_eq!(gap.start + gap.skipped, len, "{gap:?}"),
                }
                assert!(gap.output_start + gap.output_len <= out.len() as u64, "{gap:?}");
                assert!(!gap.to_string().is_empty());
                // Every gap moves on past its start: there cannot be more gaps than bytes.
                assert!(gaps.len() as u64 <= len, "no progress");
                gaps.push(gap);
            }
        }
    }
}

fn gzip(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::new(level));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 2 == 0 {
        // Arbitrary bytes.
        let (out, gaps) = read_all(rest);
        let mut plain = Vec::new();
        if MultiGzDecoder::new(rest).read_to_end(&mut plain).is_ok() && !rest.is_empty() {
            assert!(gaps.is_empty(), "{gaps:?}");
            assert_eq!(out, plain);
        }
        return;
    }
    // Members built from the input, one byte damaged.
    if rest.len() < 4 {
        return;
    }
    let members = usize::from(rest[0] % 6) + 2;
    let level = u32::from(rest[0] / 6 % 10);
    let at = usize::from(u16::from_le_bytes([rest[1], rest[2]]));
    let flip = rest[3] | 1;
    let payload = &rest[4..];
    let size = payload.len().div_ceil(members).max(1);
    let plain: Vec<&[u8]> = payload.chunks(size).collect();
    let gz: Vec<Vec<u8>> = plain.iter().map(|p| gzip(p, level)).collect();
    let mut stream = gz.concat();
    if at >= stream.len() {
        let (out, gaps) = read_all(&stream);
        assert!(gaps.is_empty(), "{gaps:?}");
        assert_eq!(out, plain.concat());
        return;
    }
    stream[at] ^= flip;
    let mut end = 0;
    let damaged = gz.iter().take_while(|m| {
        end += m.len();
        end <= at
    });
    let damaged = damaged.count();
    let (out, _) = read_all(&stream);
    let before = plain[..damaged].concat();
    let after = plain[damaged + 1..].concat();
    assert!(out.starts_with(&before), "a member before the damaged one was not read whole");
    assert!(out.ends_with(&after), "a member after the damaged one was lost");
});
