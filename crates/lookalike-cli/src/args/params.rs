//! The arguments of `lookalike params`.

use clap::{Args, ValueEnum};

use super::method::{SimHashArgs, SketchArgs, SuperShingleArgs};

/// The `--help` examples of `lookalike params`.
pub const PARAMS_EXAMPLES: &str = "\
Examples:
  # MinHash: the LSH bands and rows for a threshold, and their S-curve
  lookalike params --threshold 0.8 --num-perm 128

  # Super-shingles: 84 min-hashes in 6 groups of 14, candidates sharing 2 of 6 (mega-shingles)
  lookalike params --method supershingles --super-hashes 84 --super-groups 6 --super-mode pairs

  # SimHash: the permuted tables for Hamming distance 3, laid out for 10 million documents
  lookalike params --method simhash --max-distance 3 --docs 10000000

The curves are exact for independent coordinates (MinHash values, super-shingle groups) and for
random-hyperplane SimHash; real hashes come close. --json prints the same figures as JSON.";

/// `lookalike params`.
#[derive(Debug, Args)]
pub struct ParamsArgs {
    #[command(flatten)]
    pub sketch: SketchArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub curve: CurveArgs,
}

/// Which candidate curve `params` shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum CurveMethod {
    /// MinHash signatures grouped by LSH bands.
    #[default]
    Minhash,
    /// Super-shingles (or mega-shingles: pairs of them) from MinHash signatures.
    Supershingles,
    /// 64-bit SimHash fingerprints within a Hamming distance, found by permuted tables.
    Simhash,
}

/// Options of `params` that pick the method and its shape (besides the MinHash ones).
#[derive(Debug, Args, Clone)]
pub struct CurveArgs {
    /// Method whose candidate curve is shown.
    #[arg(long, short = 'm', value_enum, default_value = "minhash")]
    pub method: CurveMethod,
    /// Collection size: with --method simhash, the table layout is chosen for N documents
    /// (default: Manku's minimal layout of k + 1 blocks).
    #[arg(long, value_name = "N")]
    pub docs: Option<usize>,
    #[command(flatten, next_help_heading = "Super-shingles (--method supershingles)")]
    pub supers: SuperShingleArgs,
    #[command(flatten, next_help_heading = "SimHash (--method simhash)")]
    pub simhash: SimHashArgs,
}
