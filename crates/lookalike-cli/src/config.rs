//! The library configuration from the command line: the shared options are defined in `args`, the
//! method options in the library's registry ([`lookalike::method::options`]); both are converted
//! here into [`DedupConfig`], the type the library, Python and the index share (the method's
//! settings by [`MethodConfig::from_options`], as Python builds them).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use lookalike::lexical::collection::Lexicon;
use lookalike::method::options::OptionValues;
use lookalike::{CombinedConfig, DedupConfig, MethodConfig, MethodKind};

use crate::UsageError;
use crate::args::DedupArgs;
use crate::params;

impl TryFrom<&DedupArgs> for DedupConfig {
    type Error = anyhow::Error;

    /// The run's settings; loads the `--lexicon` file (refused when it was built with another
    /// seed or segmentation).
    fn try_from(args: &DedupArgs) -> Result<DedupConfig> {
        let measure = args.methods.measure;
        let kind = method_kind(args);
        let keep = args.keep.unwrap_or(measure.default_keep());
        let mut values = args.option_values();
        if let Some(path) = values.get::<PathBuf>("lexicon") {
            let settings = lookalike::lexical::collection::lexicon_settings(args.seed, args.cjk);
            let lexicon = Lexicon::load_matching(&path, args.seed, &settings).map_err(|e| {
                UsageError(format!("{e} (build it with the same --seed and --cjk)"))
            })?;
            values.set_lexicon(Arc::new(lexicon));
        }
        let mut method = MethodConfig::from_options(kind, &values).map_err(UsageError)?;
        // The banding as run, checked with the CLI's messages, so that --stats shows it.
        if let MethodConfig::MinHash(m)
        | MethodConfig::Combined(CombinedConfig { minhash: m, .. }) = &mut method
        {
            m.lsh = Some(params::lsh_params(&args.sketch)?);
        }
        Ok(DedupConfig {
            method,
            shingle: args.shingle,
            segmentation: args.cjk,
            seed: args.seed,
            threshold: args.sketch.threshold,
            verify: args.verify,
            keep,
            cluster: args.cluster,
            measure,
            spill_dir: args.spill_dir.clone(),
            memory: args.spill_memory,
            max_pairs_per_group: args.max_pairs_per_group,
        })
    }
}

impl DedupArgs {
    /// The values of the method flags given on the command line (the registry's options).
    pub fn option_values(&self) -> OptionValues {
        let mut values = self.sketch.banding.values.clone();
        values.extend(&self.minhash.values);
        values.extend(&self.methods.particular.values);
        values
    }
}

/// The method a run uses: `--method`, or by default minhash (mod-m with `--measure containment`).
pub fn method_kind(args: &DedupArgs) -> MethodKind {
    args.method.unwrap_or(args.methods.measure.default_method())
}
