//! The `lookalike` command: argument parsing and glue. The work is done by the `lookalike` (core)
//! and `lookalike-io` (readers) crates.

mod args;
mod compare;
mod dedup;
mod eval;
mod extract;
mod lexicon;
mod output;
mod params;
mod setup;
mod summary;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

/// Errors that are the user's to fix (exit code 2), as opposed to failures (exit code 1).
#[derive(Debug)]
pub(crate) struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with success; real parse errors exit with 2.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Dedup(args) => dedup::run(*args),
        Command::Params(args) => params::run(&args),
        Command::Extract(args) => extract::run(&args),
        Command::Lexicon(args) => lexicon::run(&args),
        Command::Eval(args) => eval::run(*args),
        Command::Compare(args) => compare::run(*args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("lookalike: error: {err:#}");
            if err.downcast_ref::<UsageError>().is_some()
                || err
                    .downcast_ref::<lookalike::Error>()
                    .is_some_and(|e| matches!(e, lookalike::Error::Config(_)))
            {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
