//! `lookalike lexicon build`: the collection statistics of a corpus, saved for later runs.

use std::process::ExitCode;

use anyhow::Result;
use lookalike::Shingler;
use lookalike::lexical::collection::{CollectionStats, Lexicon, TermCounts, lexicon_settings};
use lookalike::lexical::refwords::{RefWords, RefWordsConfig};
use lookalike_io::{BatchLimits, Decoded, RawRecord};

use crate::args::{BuildArgs, LexiconArgs, LexiconCommand};

pub fn run(args: &LexiconArgs) -> Result<ExitCode> {
    match &args.command {
        LexiconCommand::Build(b) => build(b),
    }
}

fn build(args: &BuildArgs) -> Result<ExitCode> {
    crate::setup::set_threads(args.threads)?;
    let started = std::time::Instant::now();
    let expanded = crate::setup::expand_nonempty(&args.inputs)?;
    if !args.quiet {
        crate::setup::warn_skipped_paths(&expanded);
    }
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
    type Counted = Result<TermCounts, (String, lookalike_io::SkipReason)>;
    let each = |counted: Vec<Result<Counted, lookalike_io::InputError>>| {
        for item in counted {
            match item {
                Err(e) => {
                    errors += 1;
                    eprintln!("lookalike: warning: {e}");
                }
                Ok(Err((id, reason))) => {
                    skipped += 1;
                    if !args.quiet && !reason.is_warc_record_type() {
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
        Ok(())
    };
    crate::read::batches(expanded.inputs, opts, BatchLimits::records(1024), count, each)?;
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
