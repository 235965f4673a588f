//! Keyword options into the library's one configuration type, [`DedupConfig`].
//!
//! The options are the CLI's (`lookalike dedup --help`), spelled with `_` instead of `-`
//! (`num_perm=64` is `--num-perm 64`), with the same defaults and meanings: each fills a field of
//! [`DedupConfig`] or of the method's settings struct, starting from the library's defaults.
//! Names of choices (`method`, `keep`, `cluster`, `verify`, `minhash`, ...) are parsed by the
//! library's own `clap::ValueEnum` derives (its `clap` feature), so they cannot drift from the
//! CLI's. The library validates the result ([`Dedup::new`]); an unknown option, a value of the
//! wrong type or a setting out of range is a `ValueError`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::ValueEnum;
use lookalike::candidates::lsh::ErrorWeights;
use lookalike::lexical::collection::{Lexicon, lexicon_settings};
use lookalike::sketch::simhash::{DEFAULT_MAX_DISTANCE, SimFeatures};
use lookalike::sketch::supershingles::SuperShingleConfig;
use lookalike::{
    ClusterMode, CombinedConfig, Dedup, DedupConfig, IMatchSettings, Keep, LshParams, Measure,
    MethodConfig, MethodKind, MinHashConfig, MinHashScheme, RefWordsSettings, Sample, SampleConfig,
    Segmentation, ShingleKind, SimHashConfig, SpotSigsConfig, SuperShinglesConfig, TfRidfSettings,
    Verify,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{lib_err, value_err};

/// Every option name accepted (besides `method`, `threshold`, `keep` and `cluster`).
pub const OPTIONS: &[&str] = &[
    "shingle",
    "cjk",
    "seed",
    "verify",
    "measure",
    "num_perm",
    "bands",
    "rows",
    "fp_weight",
    "fn_weight",
    "minhash",
    "max_bucket",
    "max_pairs_per_group",
    "spill_dir",
    "spill_memory",
    "sample",
    "max_docs_per_shingle",
    "frequent_shingles",
    "super_hashes",
    "super_groups",
    "super_mode",
    "max_distance",
    "simhash_blocks",
    "weights",
    "features",
    "lexicon",
    "nidf_low",
    "nidf_high",
    "min_terms",
    "extra_lexicons",
    "drop_fraction",
    "lists",
    "min_shared",
    "ridf_words",
    "sentences",
    "refwords",
    "refwords_distance",
    "refwords_min_bits",
    "spot_chain",
];

/// The options given, taken one at a time; what is left at the end is unknown.
struct Options<'py> {
    map: BTreeMap<String, Bound<'py, PyAny>>,
}

impl<'py> Options<'py> {
    fn new(options: Option<&Bound<'py, PyDict>>) -> PyResult<Self> {
        let mut map = BTreeMap::new();
        if let Some(options) = options {
            for (k, v) in options.iter() {
                let name: String = k.extract()?;
                if !v.is_none() {
                    map.insert(name, v);
                }
            }
        }
        Ok(Options { map })
    }

    fn take<T>(&mut self, name: &str, what: &str) -> PyResult<Option<T>>
    where
        T: for<'a> FromPyObject<'a, 'py>,
    {
        match self.map.remove(name) {
            None => Ok(None),
            Some(v) => v.extract::<T>().map(Some).map_err(|_| {
                value_err(format!(
                    "option {name}={}: expected {what}",
                    v.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            }),
        }
    }

    fn string(&mut self, name: &str) -> PyResult<Option<String>> {
        self.take::<String>(name, "a string")
    }

    fn usize(&mut self, name: &str) -> PyResult<Option<usize>> {
        self.take::<usize>(name, "a non-negative integer")
    }

    fn u32(&mut self, name: &str) -> PyResult<Option<u32>> {
        self.take::<u32>(name, "a non-negative integer")
    }

    fn f64(&mut self, name: &str) -> PyResult<Option<f64>> {
        self.take::<f64>(name, "a number")
    }

    /// A choice named as on the command line (`value_enum`).
    fn choice<E: ValueEnum>(&mut self, name: &str) -> PyResult<Option<E>> {
        match self.string(name)? {
            None => Ok(None),
            Some(s) => parse_choice(name, &s).map(Some),
        }
    }

    fn parsed<T>(
        &mut self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> PyResult<Option<T>> {
        match self.map.remove(name) {
            None => Ok(None),
            Some(v) => {
                let s: String = match v.extract::<String>() {
                    Ok(s) => s,
                    Err(_) => v.str()?.to_string(),
                };
                parse(&s).map(Some).map_err(|e| value_err(format!("option {name}: {e}")))
            }
        }
    }
}

/// A value of a `clap::ValueEnum`, by name or alias, as the CLI accepts it.
pub fn parse_choice<E: ValueEnum>(name: &str, s: &str) -> PyResult<E> {
    E::from_str(s, true).map_err(|_| {
        let names: Vec<String> = E::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        value_err(format!("{name}={s:?} is not one of: {}", names.join(", ")))
    })
}

/// A Hamming distance, or `auto` (`None`).
fn parse_distance(s: &str) -> Result<Option<u32>, String> {
    if s == "auto" {
        return Ok(None);
    }
    s.parse::<u32>().map(Some).map_err(|_| format!("`{s}` is not a distance: a number or auto"))
}

/// `tokens` or a shingle kind.
fn parse_features(s: &str) -> Result<SimFeatures, String> {
    if s == "tokens" {
        return Ok(SimFeatures::Tokens);
    }
    s.parse::<ShingleKind>().map(SimFeatures::Shingles).map_err(|e| format!("{e} (or `tokens`)"))
}

/// The configuration of a run from the named arguments and the keyword options, validated by
/// building the detector. `method`, `keep` and `cluster` are names as on the command line;
/// `None` takes the library's default (which depends on `measure` for the first two).
pub fn build(
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Dedup> {
    let config = config(method, threshold, keep, cluster, options)?;
    Dedup::new(config).map_err(lib_err)
}

/// The configuration, not yet validated (see [`build`]).
pub fn config(
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<DedupConfig> {
    let mut o = Options::new(options)?;
    let d = DedupConfig::default();
    let measure: Measure = o.choice("measure")?.unwrap_or(d.measure);
    let kind: MethodKind = match method {
        Some(m) => parse_choice("method", m)?,
        None => measure.default_method(),
    };
    let keep: Keep = match keep {
        Some(k) => parse_choice("keep", k)?,
        None => measure.default_keep(),
    };
    let cluster: ClusterMode = match cluster {
        Some(c) => parse_choice("cluster", c)?,
        None => d.cluster,
    };
    let shingle: ShingleKind = o
        .parsed("shingle", |s| {
            s.parse().map_err(|e: lookalike::shingles::ParseShingleKindError| e.to_string())
        })?
        .unwrap_or(d.shingle);
    let segmentation: Segmentation = o.choice("cjk")?.unwrap_or(d.segmentation);
    let seed = o.take::<u64>("seed", "a non-negative integer")?.unwrap_or(d.seed);
    let verify: Verify = o.choice("verify")?.unwrap_or(d.verify);
    let scheme: MinHashScheme = o.choice("minhash")?.unwrap_or_default();

    let mh = MinHashConfig::default();
    let num_perm = o.usize("num_perm")?.unwrap_or(mh.num_perm);
    let bands = o.usize("bands")?;
    let rows = o.usize("rows")?;
    let lsh = match (bands, rows) {
        (Some(bands), Some(rows)) => Some(LshParams { bands, rows }),
        (None, None) => None,
        _ => return Err(value_err("bands and rows go together: give both or neither")),
    };
    // Either weight chooses the banding by the weighted error areas (the other takes its
    // default); neither: the library's default banding.
    let weights = match (o.f64("fp_weight")?, o.f64("fn_weight")?) {
        (None, None) => None,
        (fp, fn_) => {
            let d = ErrorWeights::default();
            Some(ErrorWeights {
                false_positive: fp.unwrap_or(d.false_positive),
                false_negative: fn_.unwrap_or(d.false_negative),
            })
        }
    };
    let max_bucket = o.usize("max_bucket")?.unwrap_or(mh.max_bucket);
    let max_pairs_per_group = o
        .take::<u64>("max_pairs_per_group", "a non-negative integer")?
        .unwrap_or(d.max_pairs_per_group);
    let spill_dir = o.string("spill_dir")?.map(PathBuf::from);
    let memory = o.parsed("spill_memory", lookalike::config::parse_size)?.unwrap_or(d.memory);
    let minhash = MinHashConfig { num_perm, scheme, lsh, weights, max_bucket };

    let sd = SampleConfig::default();
    let sample = SampleConfig {
        sample: o.parsed("sample", |s| s.parse::<Sample>())?,
        max_docs_per_shingle: o.usize("max_docs_per_shingle")?.unwrap_or(sd.max_docs_per_shingle),
        frequent: o.choice("frequent_shingles")?.unwrap_or(sd.frequent),
    };
    let ss = SuperShingleConfig::default();
    let super_hashes = o.usize("super_hashes")?.unwrap_or(ss.minhashes);
    let super_groups = o.usize("super_groups")?.unwrap_or(ss.groups);
    let shape = SuperShingleConfig {
        minhashes: super_hashes,
        groups: super_groups,
        per_group: super_hashes.checked_div(super_groups).unwrap_or(0),
        mode: o.choice("super_mode")?.unwrap_or(ss.mode),
    };
    // `max_distance`: a number or `auto` (None); absent: SimHash's default, combined's auto.
    let max_distance: Option<Option<u32>> = o.parsed("max_distance", parse_distance)?;
    let simhash_blocks = o.usize("simhash_blocks")?;
    let sim_weights = o.choice("weights")?.unwrap_or(SimHashConfig::default().weights);
    let features = o.parsed("features", parse_features)?;
    let lexicon = match o.string("lexicon")? {
        Some(path) => {
            // A file that cannot be opened is an I/O error; one of another run, a bad setting.
            std::fs::File::open(&path)
                .map_err(|e| crate::errors::io_err(format!("lexicon file {path}: {e}")))?;
            let settings = lexicon_settings(seed, segmentation);
            let lexicon = Lexicon::load_matching(&path, seed, &settings)
                .map_err(|e| value_err(format!("{e} (build it with the same seed and cjk)")))?;
            Some(Arc::new(lexicon))
        }
        None => None,
    };
    let mut imatch = lookalike::lexical::imatch::IMatchConfig::default();
    imatch.nidf_low = o.f64("nidf_low")?.unwrap_or(imatch.nidf_low);
    imatch.nidf_high = o.f64("nidf_high")?.unwrap_or(imatch.nidf_high);
    imatch.min_terms = o.usize("min_terms")?.unwrap_or(imatch.min_terms);
    imatch.extra_lexicons = o.usize("extra_lexicons")?.unwrap_or(imatch.extra_lexicons);
    imatch.drop_fraction = o.f64("drop_fraction")?.unwrap_or(imatch.drop_fraction);
    let mut partition = lookalike::lexical::partitioned::PartitionConfig::default();
    partition.lists = o.usize("lists")?.unwrap_or(partition.lists);
    partition.min_shared = o.usize("min_shared")?.unwrap_or(partition.min_shared);
    let mut tf_ridf = lookalike::lexical::lexsig::TfRidfConfig::default();
    tf_ridf.words = o.usize("ridf_words")?.unwrap_or(tf_ridf.words);
    let mut long_sentences = lookalike::lexical::lexsig::LongSentenceConfig::default();
    long_sentences.sentences = o.usize("sentences")?.unwrap_or(long_sentences.sentences);
    let rd = RefWordsSettings::default();
    let mut selection = rd.selection.clone();
    selection.words = o.usize("refwords")?.unwrap_or(selection.words);
    let refwords_distance = o.u32("refwords_distance")?.unwrap_or(rd.distance);
    let refwords_min_bits = o.u32("refwords_min_bits")?.unwrap_or(rd.min_bits);
    let spot_chain = o.usize("spot_chain")?;

    if !o.map.is_empty() {
        let unknown: Vec<&str> = o.map.keys().map(String::as_str).collect();
        return Err(value_err(format!(
            "unknown option(s): {}; the options are method, threshold, keep, cluster and {}",
            unknown.join(", "),
            OPTIONS.join(", ")
        )));
    }

    let method = match kind {
        MethodKind::MinHash => MethodConfig::MinHash(minhash),
        MethodKind::SuperShingles => {
            MethodConfig::SuperShingles(SuperShinglesConfig { shape, scheme })
        }
        MethodKind::ModM => MethodConfig::ModM(sample),
        MethodKind::MinS => MethodConfig::MinS(sample),
        MethodKind::Broder => MethodConfig::Broder(sample),
        MethodKind::SimHash => MethodConfig::SimHash(SimHashConfig {
            max_distance: max_distance.unwrap_or(Some(DEFAULT_MAX_DISTANCE)),
            weights: sim_weights,
            features,
            blocks: simhash_blocks,
        }),
        MethodKind::Combined => MethodConfig::Combined(CombinedConfig {
            minhash,
            max_distance: max_distance.flatten(),
            weights: sim_weights,
            features,
        }),
        MethodKind::IMatch => MethodConfig::IMatch(IMatchSettings { imatch, lexicon }),
        MethodKind::IMatchRand => MethodConfig::IMatchRand(IMatchSettings { imatch, lexicon }),
        MethodKind::Partitioned => MethodConfig::Partitioned(partition),
        MethodKind::TfRidf => MethodConfig::TfRidf(TfRidfSettings { tf_ridf, lexicon }),
        MethodKind::LongSentences => MethodConfig::LongSentences(long_sentences),
        MethodKind::RefWords => MethodConfig::RefWords(RefWordsSettings {
            selection,
            distance: refwords_distance,
            min_bits: refwords_min_bits,
            lexicon,
        }),
        MethodKind::SpotSigs => MethodConfig::SpotSigs(SpotSigsConfig { chain: spot_chain }),
        MethodKind::Exact => MethodConfig::Exact,
    };
    Ok(DedupConfig {
        method,
        shingle,
        segmentation,
        seed,
        threshold,
        verify,
        keep,
        cluster,
        measure,
        spill_dir,
        memory,
        max_pairs_per_group,
    })
}

/// describe(method=None, threshold=0.8, keep=None, cluster=None, **options) -> str
/// --
///
/// The run the options configure, in one line (as the CLI's summary prints it); raises
/// `ValueError` for an unknown option or a setting out of range.
#[pyfunction]
#[pyo3(signature = (method=None, threshold=0.8, keep=None, cluster=None, **options))]
pub fn describe(
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    Ok(build(method, threshold, keep, cluster, options)?.describe())
}
