//! The texts of the sampled documents, read again from the run's inputs.
//!
//! A run keeps no text (a million documents would not fit), so the report reads the inputs a
//! second time, with the run's own read options, and keeps the texts of the few documents its
//! sampled pairs show. Only the inputs that hold them are read, and only the records wanted are
//! decoded: each document is found by where it is (its input and its line, row or record), which
//! the run knows for every document. Reading stops when every wanted document is found. For a
//! folder of files that is one small file per document; for one large JSONL file, its records
//! are split again up to the last one wanted. Standard input cannot be read twice: its documents
//! are shown without text, and the page says why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use lookalike_io::{Decoded, Input, Origin, ReadOptions, Reader, decode};

/// What was found: texts by id, and a note on those that could not be read.
#[derive(Debug, Default)]
pub struct Found {
    pub texts: BTreeMap<String, String>,
    pub note: Option<String>,
}

/// Reads the texts of the documents `wanted` (id → where it is) with `opts`.
pub fn fetch(wanted: &BTreeMap<String, Origin>, opts: &ReadOptions) -> Found {
    let mut found = Found::default();
    if wanted.is_empty() {
        return found;
    }
    // Where each wanted document is (its origin as text) → its id.
    let by_origin: BTreeMap<String, &str> =
        wanted.iter().map(|(id, o)| (o.to_string(), id.as_str())).collect();
    let sources: BTreeSet<&str> = wanted.values().map(|o| &*o.source).collect();
    let mut stdin = false;
    let mut inputs = Vec::new();
    for source in sources {
        if source == "-" {
            stdin = true;
        } else {
            inputs.push(Input::Path(PathBuf::from(source)));
        }
    }
    let mut errors = Vec::new();
    for item in Reader::new(inputs, opts.clone()) {
        if found.texts.len() == wanted.len() {
            break;
        }
        match item {
            Ok(rec) => {
                let Some(id) = by_origin.get(&rec.origin().to_string()) else { continue };
                if let Decoded::Doc { doc, .. } = decode(&rec, opts) {
                    found.texts.insert((*id).to_owned(), doc.text);
                }
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    let missing = wanted.len() - found.texts.len();
    if missing > 0 {
        let mut why = Vec::new();
        if stdin {
            why.push("standard input cannot be read a second time".to_owned());
        }
        if let Some(e) = errors.first() {
            why.push(format!("reading again failed: {e}"));
        }
        if why.is_empty() {
            why.push("the inputs changed since the run".to_owned());
        }
        found.note = Some(format!(
            "{missing} of the {} sampled documents have no text here: {}.",
            wanted.len(),
            why.join("; ")
        ));
    }
    found
}
