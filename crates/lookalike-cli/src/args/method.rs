//! The options of the methods: MinHash's (shared by `dedup`, `params` and `compare`) and the
//! others' (`dedup`).

use std::path::PathBuf;

use clap::Args;
use lookalike::lexical::imatch::IMatchConfig;
use lookalike::lexical::lexsig::{LongSentenceConfig, TfRidfConfig};
use lookalike::lexical::partitioned::PartitionConfig;
use lookalike::lexical::refwords::RefWordsConfig;
use lookalike::sketch::simhash::DEFAULT_MAX_DISTANCE;
use lookalike::sketch::simhash::{SimFeatures, Weighting};
use lookalike::sketch::supershingles::{SuperShingleConfig, SuperShingleMode};
use lookalike::{CombinedConfig, Measure, MinHashConfig, Sample, SimHashConfig};

use super::parse::{parse_distance, parse_features, parse_sample};

/// Options shared by `dedup` and `params` that decide the MinHash/LSH setting.
#[derive(Debug, Args, Clone)]
pub struct SketchArgs {
    /// Similarity threshold: pairs with Jaccard resemblance at or above it are duplicates.
    #[arg(long, short = 't', default_value_t = 0.8, help_heading = "Method options")]
    pub threshold: f64,
    /// Number of MinHash values per document.
    #[arg(long, default_value_t = 128, help_heading = "Method options")]
    pub num_perm: usize,
    /// LSH bands (with --rows; default: chosen from the threshold).
    #[arg(long, requires = "rows", help_heading = "Method options")]
    pub bands: Option<usize>,
    /// LSH rows per band (with --bands).
    #[arg(long, requires = "bands", help_heading = "Method options")]
    pub rows: Option<usize>,
    /// Choose bands and rows by weighing the false-positive area against the false-negative area
    /// (with --fn-weight; either alone takes 0.1 / 0.9 for the other). Default: no weights, the
    /// banding with the fewest false positives that finds a pair of Jaccard threshold + 0.05
    /// with probability 0.999 (18 bands × 7 rows at 0.8).
    #[arg(long, value_name = "W", help_heading = "Method options")]
    pub fp_weight: Option<f64>,
    /// Weight of the false-negative area when choosing bands and rows (see --fp-weight).
    #[arg(long, value_name = "W", help_heading = "Method options")]
    pub fn_weight: Option<f64>,
}

/// Options of the syntactic methods other than MinHash: containment, sampling, super-shingles,
/// Broder's algorithm, SimHash.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Options of particular methods")]
pub struct MethodArgs {
    /// What similarity means: jaccard (resemblance |A∩B|/|A∪B|) or containment (|A∩B|/|A| of the
    /// smaller document A: finds excerpts, quoted articles, print versions; pairs are written
    /// contained-first). Containment works with --method mod-m (the default then) or broder with
    /// a mod:M sample, and keeps the longest document of a cluster unless --keep says otherwise.
    #[arg(long, value_enum, default_value = "jaccard", help_heading = "Method options")]
    pub measure: Measure,
    /// Shingle sample of mod-m, min-s and broder: mod:M keeps the shingles whose hash is ≡ 0 mod
    /// M (about 1 in M, variable size), min:S keeps the S smallest hashes (bottom-S sketch).
    /// Default: mod:8 for mod-m and containment, min:128 otherwise.
    #[arg(long, value_name = "SAMPLE", value_parser = parse_sample)]
    pub sample: Option<Sample>,
    /// Broder's algorithm (mod-m, min-s, broder): shingles shared by more than L documents
    /// (boilerplate) emit no pairs; they are counted in the summary.
    #[arg(long, value_name = "L", default_value_t = lookalike::candidates::sorted_pairs::DEFAULT_MAX_DOCS_PER_SHINGLE)]
    pub max_docs_per_shingle: usize,
    /// What a shingle shared by more than L documents does to the estimate of mod-m, min-s and
    /// broder candidates: discount (default) leaves it out of the shared count and of both
    /// sketch sizes, so the estimate is over the rest of the sketches and recall holds as the
    /// collection grows; skip counts it as not shared (the lecture's rule: large collections
    /// lose near-duplicates whose shingles are common).
    #[arg(long, value_enum, value_name = "RULE", default_value = "discount")]
    pub frequent_shingles: lookalike::candidates::sorted_pairs::FrequentShingles,
    #[command(flatten)]
    pub supers: SuperShingleArgs,
    #[command(flatten)]
    pub simhash: SimHashArgs,
    /// SimHash feature weights: none (1 per distinct feature), tf (occurrences) or tfidf
    /// (occurrences × log(N/df), document frequencies from the input collection itself).
    #[arg(long, value_enum, default_value = "tf")]
    pub weights: Weighting,
    /// SimHash features: tokens (single words; characters in Chinese/Japanese) or a shingle kind
    /// (words:N, chars:N). Default: the --shingle shingles (tokens make pages on one topic look
    /// alike: on the benchmark corpus precision fell to 0.08).
    #[arg(long, value_name = "FEATURES", value_parser = parse_features)]
    pub features: Option<SimFeatures>,

    /// Lexical methods (i-match, i-match-rand, tf-ridf, refwords): sign with the collection statistics
    /// saved by `lookalike lexicon build` instead of those of the input itself, so that a new
    /// batch gets the same signatures as an old one.
    #[arg(long, value_name = "FILE")]
    pub lexicon: Option<PathBuf>,
    /// I-Match: lowest normalized IDF (idf / log2 N) of a lexicon term; drops the commonest
    /// terms.
    #[arg(long, value_name = "X", default_value_t = IMatchConfig::default().nidf_low)]
    pub nidf_low: f64,
    /// I-Match: highest normalized IDF of a lexicon term; drops the rarest terms.
    #[arg(long, value_name = "X", default_value_t = IMatchConfig::default().nidf_high)]
    pub nidf_high: f64,
    /// I-Match: fewest distinct lexicon terms a document needs for a signature (documents with
    /// fewer are reported as unsigned, and kept).
    #[arg(long, value_name = "N", default_value_t = IMatchConfig::default().min_terms)]
    pub min_terms: usize,
    /// i-match-rand: K extra lexicons, each dropping a random fraction of the base lexicon
    /// (Kołcz et al.: 10).
    #[arg(long, value_name = "K", default_value_t = IMatchConfig::default().extra_lexicons)]
    pub extra_lexicons: usize,
    /// i-match-rand: the fraction p of the base lexicon each extra lexicon drops (Kołcz et
    /// al.: 0.33).
    #[arg(long, value_name = "P", default_value_t = IMatchConfig::default().drop_fraction)]
    pub drop_fraction: f64,
    /// Partitioned fingerprints: number of term lists L (a change of fewer than L terms leaves
    /// at least one list intact).
    #[arg(long, value_name = "L", default_value_t = PartitionConfig::default().lists)]
    pub lists: usize,
    /// Partitioned fingerprints: equal list fingerprints that make two documents candidates.
    #[arg(long, value_name = "K", default_value_t = PartitionConfig::default().min_shared)]
    pub min_shared: usize,
    /// TF*RIDF: words of highest tf·RIDF in the signature (Zelenkov & Segalovich: 6).
    #[arg(long, value_name = "N", default_value_t = TfRidfConfig::default().words)]
    pub ridf_words: usize,
    /// Long sentences: sentences in the signature (Zelenkov & Segalovich: 2).
    #[arg(long, value_name = "N", default_value_t = LongSentenceConfig::default().sentences)]
    pub sentences: usize,
    /// Reference words: how many words to choose from the collection (Zelenkov & Segalovich's study:
    /// 3-5 thousand); `--lexicon` files built by `lexicon build` carry a selection.
    #[arg(long, value_name = "N", default_value_t = RefWordsConfig::default().words)]
    pub refwords: usize,
    /// Reference words: signatures within this Hamming distance are candidates (0: equal
    /// signatures only).
    #[arg(long, value_name = "D", default_value_t = 0)]
    pub refwords_distance: u32,
    /// Reference words: fewest words above their thresholds a document needs for a signature
    /// (fewer identify too little: on the benchmark corpus thousands of unrelated documents had
    /// the same one-bit signature). Documents with fewer are reported as unsigned, and kept.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub refwords_min_bits: u32,
    /// SpotSigs: content words in each spot's chain (default 2; 4 characters for Chinese and
    /// Japanese).
    #[arg(long, value_name = "C")]
    pub spot_chain: Option<usize>,
}

impl MethodArgs {
    /// The super-shingle shape: `super_hashes / super_groups` values per group.
    pub fn supershingles(&self) -> SuperShingleConfig {
        self.supers.config()
    }

    /// The SimHash settings.
    pub fn simhash(&self) -> SimHashConfig {
        SimHashConfig {
            max_distance: self.simhash.simhash_distance(),
            weights: self.weights,
            features: self.features,
            blocks: self.simhash.simhash_blocks,
        }
    }

    /// The settings of the combined method, around its MinHash half.
    pub fn combined(&self, minhash: MinHashConfig) -> CombinedConfig {
        CombinedConfig {
            minhash,
            max_distance: self.simhash.max_distance.and_then(|d| d.0),
            weights: self.weights,
            features: self.features,
        }
    }
}

impl MethodArgs {
    /// I-Match settings (the lexicon file is loaded by the caller).
    pub fn imatch(&self) -> IMatchConfig {
        IMatchConfig {
            nidf_low: self.nidf_low,
            nidf_high: self.nidf_high,
            min_terms: self.min_terms,
            extra_lexicons: self.extra_lexicons,
            drop_fraction: self.drop_fraction,
        }
    }

    /// Partitioned-fingerprint settings.
    pub fn partition(&self) -> PartitionConfig {
        PartitionConfig {
            lists: self.lists,
            min_shared: self.min_shared,
            ..PartitionConfig::default()
        }
    }

    /// TF*RIDF settings.
    pub fn tf_ridf(&self) -> TfRidfConfig {
        TfRidfConfig { words: self.ridf_words, ..TfRidfConfig::default() }
    }

    /// Long-sentence settings.
    pub fn long_sentences(&self) -> LongSentenceConfig {
        LongSentenceConfig { sentences: self.sentences, ..LongSentenceConfig::default() }
    }

    /// Reference-word selection settings.
    pub fn refwords(&self) -> RefWordsConfig {
        RefWordsConfig { words: self.refwords, ..RefWordsConfig::default() }
    }
}

/// The shape of super-shingles (`--super-*`): options of `dedup` and `params`.
#[derive(Debug, Clone, Args)]
pub struct SuperShingleArgs {
    /// Super-shingles: number of min-hash values per document (Fetterly et al.: 84).
    #[arg(long, value_name = "N", default_value_t = SuperShingleConfig::default().minhashes)]
    pub super_hashes: usize,
    /// Super-shingles: number of super-shingles per document (Fetterly et al.: 6; each hashes
    /// N / groups consecutive min-hash values).
    #[arg(long, value_name = "G", default_value_t = SuperShingleConfig::default().groups)]
    pub super_groups: usize,
    /// Super-shingles: pairs (documents meet when 2 of the G super-shingles agree, via the
    /// mega-shingles) or single (1 agreeing super-shingle is enough).
    #[arg(long, value_enum, default_value = "pairs", value_name = "MODE")]
    pub super_mode: SuperShingleMode,
}

impl SuperShingleArgs {
    /// The super-shingle shape: `super_hashes / super_groups` values per group (not checked: the
    /// engine and `params` check it).
    pub fn config(&self) -> SuperShingleConfig {
        SuperShingleConfig {
            minhashes: self.super_hashes,
            groups: self.super_groups,
            per_group: self.super_hashes.checked_div(self.super_groups).unwrap_or(0),
            mode: self.super_mode,
        }
    }
}

/// The Hamming distance of SimHash and the layout of its tables: options of `dedup` and
/// `params`.
#[derive(Debug, Clone, Args)]
pub struct SimHashArgs {
    /// SimHash: documents whose 64-bit fingerprints differ in at most K bits are near duplicates
    /// (default 3, Manku et al.: near-identical pages, Jaccard ≈ 0.97), or `auto`: the distance
    /// expected at --threshold for shingle features, 64·arccos(2t/(1+t))/π (10 at 0.8). Combined:
    /// the LSH candidates whose fingerprints differ in at most K bits are kept (default auto).
    #[arg(long, value_name = "K|auto", value_parser = parse_distance)]
    pub max_distance: Option<Distance>,
    /// SimHash: blocks the 64 bits are cut into for the permuted tables (C(blocks, K) tables;
    /// default: chosen from K and the number of documents).
    #[arg(long, value_name = "B")]
    pub simhash_blocks: Option<usize>,
}

impl SimHashArgs {
    /// The SimHash method's distance: the one given, `None` for `auto`, else
    /// [`DEFAULT_MAX_DISTANCE`].
    pub fn simhash_distance(&self) -> Option<u32> {
        self.max_distance.map_or(Some(DEFAULT_MAX_DISTANCE), |d| d.0)
    }
}

/// `--max-distance`: a Hamming distance, or `None` for `auto` (chosen from the threshold).
#[derive(Debug, Clone, Copy)]
pub struct Distance(pub Option<u32>);
