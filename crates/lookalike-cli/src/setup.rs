//! What the subcommands do before their work: start the worker threads, expand the inputs.

use crate::UsageError;

/// The files named by `inputs` (files, directories, globs, `-`); a usage error when there are
/// none, saying how many files were ignored for their extension.
pub fn expand_nonempty(inputs: &[String]) -> anyhow::Result<lookalike_io::Expanded> {
    let expanded = lookalike_io::expand_inputs(inputs).map_err(|e| UsageError(e.to_string()))?;
    if expanded.inputs.is_empty() {
        let mut why = format!("{} files with other extensions ignored", expanded.ignored.len());
        if let Some(first) = expanded.skipped.first() {
            why += &format!(
                "; {} special files or link loops not opened, e.g. {}: {}",
                expanded.skipped.len(),
                first.path.display(),
                first.reason
            );
        }
        return Err(UsageError(format!(
            "no readable input files found in {} ({why})",
            inputs.join(" ")
        ))
        .into());
    }
    Ok(expanded)
}

/// Prints the directory entries that were not opened (special files, link loops), one line
/// each, for the commands without a summary.
pub fn warn_skipped_paths(expanded: &lookalike_io::Expanded) {
    for s in &expanded.skipped {
        eprintln!("lookalike: skipped {}: {}", s.path.display(), s.reason);
    }
}

/// Sets the number of worker threads of the global pool (`--threads`).
pub fn set_threads(threads: Option<usize>) -> anyhow::Result<()> {
    if let Some(n) = threads {
        if n == 0 {
            return Err(UsageError("--threads must be at least 1".into()).into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| anyhow::anyhow!("cannot start the worker threads: {e}"))?;
    }
    Ok(())
}
