//! What the subcommands do before their work: start the worker threads, expand the inputs.

use clap::ArgMatches;
use clap::parser::ValueSource;
use lookalike::method::options;

use crate::UsageError;
use crate::args::DedupArgs;

/// The files named by `inputs` (files, directories, globs, `-`); a usage error when there are
/// none, saying how many files were ignored and why.
pub fn expand_nonempty(inputs: &[String]) -> anyhow::Result<lookalike_io::Expanded> {
    let expanded = lookalike_io::expand_inputs(inputs).map_err(|e| UsageError(e.to_string()))?;
    if expanded.inputs.is_empty() {
        let mut by_reason = std::collections::BTreeMap::new();
        for file in &expanded.ignored {
            *by_reason.entry(file.reason.to_string()).or_default() += 1;
        }
        let mut why = if by_reason.is_empty() {
            "no file in them".to_owned()
        } else {
            crate::summary::ignored_line(&by_reason)
        };
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

/// A usage error when an option of particular methods is given with a method that does not use
/// it (it would be silently ignored).
pub fn check_method_options(args: &DedupArgs, matches: &ArgMatches) -> anyhow::Result<()> {
    let kind = crate::config::method_kind(args);
    let unused: Vec<String> = options::all_options()
        .into_iter()
        .filter(|option| {
            let id = option.name;
            !option.users().contains(&kind)
                && matches!(
                    matches.try_get_raw(id).ok().flatten().and(matches.value_source(id)),
                    Some(ValueSource::CommandLine)
                )
        })
        .map(|option| {
            let names: Vec<&str> = option.users().iter().map(|m| m.name()).collect();
            format!("{} (used by --method {})", option.flag(), names.join(", "))
        })
        .collect();
    if unused.is_empty() {
        return Ok(());
    }
    Err(UsageError(format!(
        "--method {} does not use {}: remove {} or choose a method that uses {}",
        kind.name(),
        unused.join("; "),
        if unused.len() == 1 { "it" } else { "them" },
        if unused.len() == 1 { "it" } else { "them" },
    ))
    .into())
}
