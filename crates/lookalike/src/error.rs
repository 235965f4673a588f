//! Errors of the library. Contract: "when I fail, I say which setting or which file, typed".

use crate::config::Sample;
use crate::lexical::imatch::IMatchConfigError;
use crate::lexical::lexsig::LexSigConfigError;
use crate::lexical::partitioned::PartitionConfigError;
use crate::method::MethodKind;
use crate::sketch::supershingles::SuperShingleConfigError;

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is out of range or settings contradict each other.
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
    /// Reading or writing a spill file failed.
    #[error("spill file I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

/// What is wrong with a configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The threshold is not in (0, 1].
    #[error("threshold {0} is not in (0, 1]")]
    Threshold(f64),
    /// The MinHash signature length is not in 1..=8192.
    #[error("num-perm {0} is not in 1..=8192")]
    NumPerm(usize),
    /// LSH bands or rows are 0.
    #[error("bands and rows must be at least 1")]
    EmptyBands,
    /// LSH bands × rows exceed the signature length.
    #[error("bands × rows = {bands} × {rows} = {} exceeds num-perm {num_perm}", bands * rows)]
    BandsExceedSignature {
        /// Bands.
        bands: usize,
        /// Rows per band.
        rows: usize,
        /// Signature length.
        num_perm: usize,
    },
    /// Broder's L is below 2.
    #[error("max docs per shingle must be at least 2")]
    MaxDocsPerShingle,
    /// The SimHash distance is 64 or more.
    #[error("Hamming distance {0} must be below 64")]
    HammingDistance(u32),
    /// No permuted-table layout exists for the SimHash distance (and block count).
    #[error("no permuted-table layout for Hamming distance {k}{}", blocks.map(|b| format!(" with {b} blocks")).unwrap_or_default())]
    NoTableLayout {
        /// The distance.
        k: u32,
        /// The block count asked for.
        blocks: Option<usize>,
    },
    /// A sample of the wrong kind for the method.
    #[error("{}", sample_mismatch(*method))]
    SampleMismatch {
        /// The method.
        method: MethodKind,
        /// The sample given.
        sample: Sample,
    },
    /// Containment with a method whose candidates cannot reach low-resemblance pairs.
    #[error(
        "containment needs candidates that reach low-resemblance pairs: use --method mod-m or \
         --method broder with a mod:M sample (got {method}{})",
        sample.map(|s| format!(" with {s}")).unwrap_or_default()
    )]
    Containment {
        /// The method.
        method: MethodKind,
        /// Its sample, for the sampling methods.
        sample: Option<Sample>,
    },
    /// Super-shingle shape.
    #[error(transparent)]
    SuperShingles(#[from] SuperShingleConfigError),
    /// Partitioned-fingerprint settings.
    #[error(transparent)]
    Partition(#[from] PartitionConfigError),
    /// I-Match settings.
    #[error(transparent)]
    IMatch(#[from] IMatchConfigError),
    /// TF*RIDF words or long sentences out of range.
    #[error(transparent)]
    LexSig(#[from] LexSigConfigError),
    /// A SpotSigs chain of no words (its spots would be the antecedents alone).
    #[error("spot-chain {0} is not at least 1 (the words after a spot's antecedent)")]
    SpotChain(usize),
    /// Reference words: no word to choose (every signature would be empty).
    #[error("refwords {0} is not at least 1 (the number of reference words)")]
    RefWords(usize),
}

fn sample_mismatch(method: MethodKind) -> &'static str {
    if method == MethodKind::ModM {
        "method mod-m samples with mod:M; use --method min-s or broder for min:S"
    } else {
        "method min-s samples with min:S; use --method mod-m or broder for mod:M"
    }
}
