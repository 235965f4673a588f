//! `lookalike lexicon build`: the collection statistics of a corpus, saved for later runs.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use lookalike::lexical::collection::{CollectionStats, Lexicon, TermCounts, lexicon_settings};
use lookalike::lexical::refwords::{RefWords, RefWordsConfig};
use lookalike::{Segmentation, Shingler};
use lookalike_io::{BatchLimits, Decoded, DecodedBatches, RawRecord};

use crate::args::InputArgs;

pub const LEXICON_EXAMPLES: &str = "\
Examples:
  # Statistics of last month's crawl, then sign this month's batch with them
  lookalike lexicon build crawl-2026-10/ -o lex.bin
  lookalike dedup crawl-2026-11/ --method i-match --lexicon lex.bin --pairs pairs.tsv

  # The same for TF*RIDF signatures (RIDF needs document and collection frequencies)
  lookalike dedup batch.jsonl --method tf-ridf --lexicon lex.bin";

/// `lookalike lexicon`.
#[derive(Debug, Args)]
pub struct LexiconArgs {
    #[command(subcommand)]
    pub command: LexiconCommand,
}

/// What to do with a lexicon.
#[derive(Debug, Subcommand)]
pub enum LexiconCommand {
    /// Count document and collection frequencies of every term of a corpus and choose reference
    /// words, and save them: what I-Match (its mid-IDF lexicon), TF*RIDF (residual IDF) and
    /// reference words sign documents with.
    #[command(after_help = LEXICON_EXAMPLES)]
    Build(BuildArgs),
}

/// `lookalike lexicon build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Files, directories, glob patterns, or - for standard input (as for `dedup`).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The lexicon file to write (written atomically).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// Seed of the term hashes: `dedup --lexicon` needs the same --seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Tokens of space-less scripts, as for `dedup --cjk`: `dedup --lexicon` needs the same.
    #[arg(long, value_enum, default_value = "chars", value_name = "MODE")]
    pub cjk: Segmentation,
    #[command(flatten)]
    pub input: InputArgs,
    /// Reference words to choose and store (0: none; `dedup --method refwords --lexicon` signs
    /// with them).
    #[arg(long, value_name = "N", default_value_t = RefWordsConfig::default().words)]
    pub refwords: usize,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn run(args: &LexiconArgs) -> Result<ExitCode> {
    match &args.command {
        LexiconCommand::Build(b) => build(b),
    }
}

fn build(args: &BuildArgs) -> Result<ExitCode> {
    crate::args::set_threads(args.threads)?;
    let started = std::time::Instant::now();
    let expanded = crate::args::expand_nonempty(&args.inputs)?;
    let opts = args.input.read_options();
    let shingler =
        Shingler::new(lookalike::ShingleKind::default(), args.seed).with_segmentation(args.cjk);
    let mut builder = CollectionStats::builder();
    // Reference words are chosen from every document's term counts, kept until the end.
    let mut all_terms: Vec<TermCounts> = Vec::new();
    let (mut skipped, mut errors) = (0u64, 0u64);
    let count = |_: &RawRecord, decoded: Decoded| match decoded {
        Decoded::Doc { doc, .. } => {
            let mut norm = lookalike::text::normalize::NormalizedText::default();
            shingler.normalize_into(&doc.text, &mut norm);
            Ok(TermCounts::from_normalized(&norm, args.seed))
        }
        Decoded::Skip { id, reason } => Err((id, reason)),
    };
    let batches = DecodedBatches::spawn(expanded.inputs, opts, BatchLimits::records(1024), count)
        .context("cannot start the reader thread")?;
    for counted in batches {
        for item in counted {
            match item {
                Err(e) => {
                    errors += 1;
                    eprintln!("lookalike: warning: {e}");
                }
                Ok(Err((id, reason))) => {
                    skipped += 1;
                    if !args.quiet && !crate::extract::is_warc_record_type(&reason) {
                        eprintln!("lookalike: skipped {id}: {reason}");
                    }
                }
                Ok(Ok(terms)) => {
                    builder.add_document(&terms);
                    if args.refwords > 0 {
                        all_terms.push(terms);
                    }
                }
            }
        }
    }
    let docs = builder.docs();
    if docs == 0 {
        return Err(anyhow::anyhow!(
            "no documents in {}: nothing to build a lexicon from",
            args.inputs.join(" ")
        ));
    }
    let stats = builder.build();
    let terms = stats.len();
    let mut lexicon = Lexicon::new(stats, args.seed, lexicon_settings(args.seed, args.cjk));
    let mut chosen = 0;
    if args.refwords > 0 {
        let config = RefWordsConfig { words: args.refwords, ..RefWordsConfig::default() };
        let (words, _) = RefWords::select(&all_terms, &config);
        chosen = words.len();
        lexicon.reference_words =
            Some(words.words().iter().map(|w| (w.term, w.threshold)).collect());
    }
    lexicon.save(&args.output)?;
    if !args.quiet {
        eprintln!(
            "lookalike: lexicon of {docs} documents, {terms} distinct terms, {chosen} reference \
             words written to {} in {:.2} s (skipped {skipped}, input errors {errors})",
            args.output.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}
