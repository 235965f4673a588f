//! The library configuration from the command line: each option is defined once in `args` and
//! converted here into [`DedupConfig`], the type the library, Python and the index share.

use std::sync::Arc;

use anyhow::Result;
use lookalike::lexical::collection::Lexicon;
use lookalike::{
    DedupConfig, IMatchSettings, MethodConfig, MethodKind, MinHashConfig, RefWordsSettings,
    SampleConfig, SpotSigsConfig, SuperShinglesConfig, TfRidfSettings,
};

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
        let lexicon = match &args.methods.lexicon {
            Some(path) => {
                let settings =
                    lookalike::lexical::collection::lexicon_settings(args.seed, args.cjk);
                let lexicon = Lexicon::load_matching(path, args.seed, &settings).map_err(|e| {
                    UsageError(format!("{e} (build it with the same --seed and --cjk)"))
                })?;
                Some(Arc::new(lexicon))
            }
            None => None,
        };
        let m = &args.methods;
        let sample = SampleConfig {
            sample: m.sample,
            max_docs_per_shingle: m.max_docs_per_shingle,
            frequent: m.frequent_shingles,
        };
        // Checks --bands and --rows only for the methods that use them.
        let minhash = || -> Result<MinHashConfig> {
            Ok(MinHashConfig {
                num_perm: args.sketch.num_perm,
                scheme: args.minhash,
                lsh: Some(params::lsh_params(&args.sketch)?),
                weights: params::weights(&args.sketch),
                max_bucket: args.max_bucket,
            })
        };
        let method = match kind {
            MethodKind::MinHash => MethodConfig::MinHash(minhash()?),
            MethodKind::SuperShingles => MethodConfig::SuperShingles(SuperShinglesConfig {
                shape: m.supershingles(),
                scheme: args.minhash,
            }),
            MethodKind::ModM => MethodConfig::ModM(sample),
            MethodKind::MinS => MethodConfig::MinS(sample),
            MethodKind::Broder => MethodConfig::Broder(sample),
            MethodKind::SimHash => MethodConfig::SimHash(m.simhash()),
            MethodKind::Combined => MethodConfig::Combined(m.combined(minhash()?)),
            MethodKind::IMatch => {
                MethodConfig::IMatch(IMatchSettings { imatch: m.imatch(), lexicon })
            }
            MethodKind::IMatchRand => {
                MethodConfig::IMatchRand(IMatchSettings { imatch: m.imatch(), lexicon })
            }
            MethodKind::Partitioned => MethodConfig::Partitioned(m.partition()),
            MethodKind::TfRidf => {
                MethodConfig::TfRidf(TfRidfSettings { tf_ridf: m.tf_ridf(), lexicon })
            }
            MethodKind::LongSentences => MethodConfig::LongSentences(m.long_sentences()),
            MethodKind::RefWords => MethodConfig::RefWords(RefWordsSettings {
                selection: m.refwords(),
                distance: m.refwords_distance,
                min_bits: m.refwords_min_bits,
                lexicon,
            }),
            MethodKind::SpotSigs => MethodConfig::SpotSigs(SpotSigsConfig { chain: m.spot_chain }),
            MethodKind::Exact => MethodConfig::Exact,
        };
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

/// The method a run uses: `--method`, or by default minhash (mod-m with `--measure containment`).
pub fn method_kind(args: &DedupArgs) -> MethodKind {
    args.method.unwrap_or(args.methods.measure.default_method())
}
