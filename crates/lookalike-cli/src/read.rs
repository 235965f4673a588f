//! The document loop the reading commands share (`dedup`, `extract`, `index`, `lexicon`): every
//! record of the inputs in input order, decoded on the workers, handed over batch by batch; with
//! site boilerplate removal (`dedup`, `extract`), in two passes over a temporary file.

use std::path::Path;

use anyhow::{Context, Result};
use lookalike_io::{
    BatchLimits, Decoded, DecodedBatches, Input, InputError, RawRecord, ReadOptions,
};
use rayon::prelude::*;

use lookalike_io::boilerplate::{BoilerplateOptions, Removal, Second, SitePass, first};

/// Reads `inputs` and hands every batch, in input order, to `each`; `decode` makes each record
/// the command's item, on the workers.
pub fn batches<T: Send>(
    inputs: Vec<Input>,
    opts: ReadOptions,
    limits: BatchLimits,
    decode: impl Fn(&RawRecord, Decoded) -> T + Sync,
    mut each: impl FnMut(Vec<Result<T, InputError>>) -> Result<()>,
) -> Result<()> {
    let batches = DecodedBatches::spawn(inputs, opts, limits, decode)
        .context("cannot start the reader thread")?;
    for batch in batches {
        each(batch)?;
    }
    Ok(())
}

/// Site boilerplate removal as a command runs it: where its temporary file goes, and what the
/// command makes of a record on either pass.
pub struct TwoPasses<'a, K, C> {
    pub options: BoilerplateOptions,
    /// The folder of the temporary file.
    pub dir: &'a Path,
    /// The folder as messages name it.
    pub dir_name: &'a str,
    /// Records per batch of the first pass, pages per batch of the second.
    pub limits: BatchLimits,
    pub batch: usize,
    /// What the first pass keeps of a record for the second (its `--output` line), on the
    /// workers.
    pub keep: K,
    /// A cleaned page (or a skipped record) as the command's item, on the workers.
    pub cleaned: C,
}

/// [`batches`] with site boilerplate removal: every page's blocks counted per site while the
/// texts go to a temporary file (`counted` hears of the pages and bytes so far after each
/// batch), then the pages cleaned of their site's template handed to `each`. Returns what the
/// removal did.
pub fn cleaned_batches<T, K, C>(
    inputs: Vec<Input>,
    opts: ReadOptions,
    two: TwoPasses<'_, K, C>,
    mut counted: impl FnMut(u64, u64),
    mut each: impl FnMut(Vec<Result<T, InputError>>) -> Result<()>,
) -> Result<Removal>
where
    T: Send,
    K: Fn(&RawRecord, &Decoded) -> Option<(Vec<u8>, bool)> + Sync,
    C: Fn(Second) -> T + Sync,
{
    let temp_error = |what: &str| {
        format!("cannot {what} the temporary file of --boilerplate in {}", two.dir_name)
    };
    let mut pass = SitePass::new(&two.options, two.dir).with_context(|| temp_error("create"))?;
    let mode = pass.mode();
    let first = |rec: &RawRecord, decoded: Decoded| {
        let payload = (two.keep)(rec, &decoded);
        first(mode, rec, decoded, payload)
    };
    let pass_opts = two.options.read_options(opts);
    let batches = DecodedBatches::spawn(inputs, pass_opts, two.limits, first)
        .context("cannot start the reader thread")?;
    let mut read = 0u64;
    for batch in batches {
        for item in batch {
            if let Ok(f) = &item
                && let Decoded::Doc { doc, .. } = &f.decoded
            {
                read += doc.raw_len;
            }
            pass.hold(item).with_context(|| temp_error("write"))?;
        }
        counted(pass.pages(), read);
    }
    let mut cleaned = pass.finish(two.batch).with_context(|| temp_error("read"))?;
    while let Some(batch) = cleaned.next_batch().with_context(|| temp_error("read"))? {
        each(batch.into_par_iter().map(|item| item.map(&two.cleaned)).collect())?;
    }
    Ok(cleaned.removal())
}
