//! The texts of the sampled documents, read again from the run's inputs.
//!
//! A run keeps no text (a million documents would not fit), so the report reads the inputs a
//! second time, with the run's own read options, and keeps the texts of the few documents its
//! sampled pairs show. Only the inputs that hold them are read: each document is found by where
//! it is (its input and its line, row or record), which the run knows for every document. For a
//! folder of files that is one small file per document; for one large JSONL file, the whole file
//! again. Standard input cannot be read twice: its documents are shown without text, and the
//! page says why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use lookalike_io::{BatchLimits, Decoded, DecodedBatches, Input, Origin, ReadOptions};

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
    if !inputs.is_empty() {
        let map = |rec: &lookalike_io::RawRecord, decoded: Decoded| match decoded {
            Decoded::Doc { doc, .. } => Some((rec.origin().to_string(), doc.text)),
            Decoded::Skip { .. } => None,
        };
        match DecodedBatches::spawn(inputs, opts.clone(), BatchLimits::default(), map) {
            Ok(batches) => {
                for item in batches.flatten() {
                    match item {
                        Ok(Some((origin, text))) => {
                            if let Some(id) = by_origin.get(&origin) {
                                found.texts.insert((*id).to_owned(), text);
                            }
                        }
                        Ok(None) => {}
                        Err(e) => errors.push(e.to_string()),
                    }
                }
            }
            Err(e) => errors.push(format!("cannot start the reader thread: {e}")),
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
