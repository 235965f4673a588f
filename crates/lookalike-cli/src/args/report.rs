//! The arguments of `lookalike report`.

use std::path::PathBuf;

use clap::Args;

use super::parse::parse_size;

/// The `--help` examples of `lookalike report`.
pub const REPORT_EXAMPLES: &str = "\
Examples:
  # A run that can be reported on later: its pairs, clusters, report and a run file
  lookalike dedup pages/ --pairs pairs.tsv --clusters clusters.jsonl --report report.jsonl --run run.json
  lookalike report --run run.json -o report.html

  # The same page written by the run itself
  lookalike dedup pages/ --html report.html

The run file (dedup --run) is JSON: {lookalike_run: 1, version, cwd, command (the dedup command
line), inputs, outputs: {pairs, clusters, report} (absolute paths), stats (what --stats writes),
rejected_sample: [[id1, id2, similarity], ...] (candidates verification rejected just below the
threshold)}. The report reads those files, and reads the inputs again (from the run's folder,
with the run's input options) for the texts of the sampled pairs only.";

/// `lookalike report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run file written by `lookalike dedup --run FILE`.
    #[arg(long, value_name = "FILE")]
    pub run: PathBuf,
    /// Write the HTML page to FILE (- for stdout).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: String,
    /// Largest size of the page (bytes, or with a K, M or G suffix): pairs and texts are sampled
    /// down to fit, and the page says so.
    #[arg(long, value_name = "SIZE", default_value = "4M", value_parser = parse_size)]
    pub max_size: usize,
}
