//! Helpers shared by the integration tests.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use lookalike_io::{Decoded, Input, InputError, RawRecord, ReadOptions, Reader};

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, bytes).unwrap();
    path
}

pub fn read_all(inputs: Vec<Input>, opts: &ReadOptions) -> Vec<Result<RawRecord, InputError>> {
    Reader::new(inputs, opts.clone()).collect()
}

pub fn read_paths(paths: &[&Path]) -> Vec<Result<RawRecord, InputError>> {
    let inputs = paths.iter().map(|p| Input::Path(p.to_path_buf())).collect();
    read_all(inputs, &crate::common::visible_text())
}

/// The single document a file decodes to, with its warning.
pub fn decode_file(path: &Path) -> (lookalike::Document, Option<String>) {
    let (doc, warning, _) = decode_file_charset(path);
    (doc, warning)
}

/// The single document a file decodes to, with its warning and charset.
pub fn decode_file_charset(path: &Path) -> (lookalike::Document, Option<String>, &'static str) {
    let records = read_paths(&[path]);
    assert_eq!(records.len(), 1, "{records:?}");
    match lookalike_io::decode(records[0].as_ref().unwrap(), &crate::common::visible_text()) {
        Decoded::Doc { doc, warning, charset, .. } => (doc, warning, charset),
        other => panic!("expected a document, got {other:?}"),
    }
}

/// The shared third-party data folder (`../shared/data` beside the repository, or
/// `LOOKALIKE_SHARED_DATA`). The tests that read it are `#[ignore]`d: run them with
/// `cargo test -- --ignored`, which fails here, loudly, when the folder is absent.
pub fn shared_data() -> PathBuf {
    let dir = match std::env::var_os("LOOKALIKE_SHARED_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    assert!(dir.is_dir(), "{} is absent (set LOOKALIKE_SHARED_DATA to its path)", dir.display());
    dir
}

/// Options that take all visible text from HTML (the behaviour these tests were written for;
/// main-content extraction has its own tests).
pub fn visible_text() -> lookalike_io::ReadOptions {
    lookalike_io::ReadOptions {
        extract: lookalike_io::Extract::Text,
        ..lookalike_io::ReadOptions::default()
    }
}
