//! The texts of the pooled documents: contract: "give me a corpus and the ids you need, I read
//! it once, streaming, and keep only their texts".

use std::collections::{HashMap, HashSet};

use lookalike_io::{BatchLimits, Decoded, DecodedBatches, Input, InputError, ReadOptions};

use crate::Error;
use crate::relation::Ids;

/// Records per batch: the corpus is decoded in parallel, one batch at a time.
const BATCH: BatchLimits = BatchLimits { records: 1024, bytes: 8 << 20 };

/// Reads the corpus (one thread reading, decoding in parallel on the rayon pool) and keeps the
/// texts of the `wanted` ids, the first record of an id winning. An input that cannot be read is
/// handed to `on_input_error` and reading goes on.
pub fn load_texts(
    inputs: Vec<Input>,
    opts: &ReadOptions,
    ids: &Ids,
    wanted: &[u32],
    mut on_input_error: impl FnMut(&InputError),
) -> Result<HashMap<u32, String>, Error> {
    let want: HashSet<u32> = wanted.iter().copied().collect();
    let mut texts: HashMap<u32, String> = HashMap::with_capacity(want.len());
    let keep = |_: &_, decoded: Decoded| match decoded {
        Decoded::Doc { doc, .. } => {
            ids.get(&doc.id).filter(|i| want.contains(i)).map(|i| (i, doc.text))
        }
        Decoded::Skip { .. } => None,
    };
    let batches =
        DecodedBatches::spawn(inputs, opts.clone(), BATCH, keep).map_err(Error::ReaderThread)?;
    for batch in batches {
        for item in batch {
            match item {
                Ok(Some((i, text))) => {
                    texts.entry(i).or_insert(text);
                }
                Ok(None) => {}
                Err(e) => on_input_error(&e),
            }
        }
    }
    Ok(texts)
}
