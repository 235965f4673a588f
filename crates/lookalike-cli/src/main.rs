//! The `lookalike` command: one module per subcommand over the library crates (`lookalike`,
//! `lookalike-io`, `lookalike-metrics`, `lookalike-index`), and what only a command line needs:
//! output files committed together, temporary files, progress, the summary, the HTML report and
//! the HTTP server. Arguments are in `args/`, which imports no command module.

mod args;
mod compare;
mod config;
mod dedup;
mod eval;
mod extract;
mod html;
mod index;
mod lexicon;
mod output;
mod paragraphs;
mod params;
mod progress;
mod read;
mod report;
#[cfg(feature = "serve")]
mod serve;
mod setup;
mod stats;
mod summary;
mod tmpfiles;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

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
    // Parsed in two steps (what `Cli::try_parse` does) to keep the matches: `params` asks them
    // which options were given.
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)))
        .map_err(|e| e.format(&mut Cli::command()));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            // Help and version go to stdout with success; real parse errors exit with 2.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // Interrupted runs remove their temporary files (and exit 130, 143 or 129).
    // `serve` stops gracefully on those signals itself (answers in flight, commits, closes).
    if let Command::Serve(_) = cli.command {
    } else if let Err(e) = tmpfiles::handle_signals() {
        eprintln!("lookalike: warning: cannot handle SIGINT and SIGTERM: {e}");
    }
    let result = match cli.command {
        Command::Dedup(args) => match matches.subcommand_matches("dedup") {
            Some(m) => dedup::run(*args, m),
            None => Err(anyhow::anyhow!("the arguments of dedup were parsed, not their matches")),
        },
        Command::Params(args) => match matches.subcommand_matches("params") {
            Some(m) => params::run(&args, m),
            None => Err(anyhow::anyhow!("the arguments of params were parsed, not their matches")),
        },
        Command::Extract(args) => extract::run(&args),
        Command::Paragraphs(args) => paragraphs::run(&args),
        Command::Lexicon(args) => lexicon::run(&args),
        Command::Eval(args) => eval::run(*args),
        Command::Compare(args) => compare::run(*args),
        Command::Report(args) => report::run(&args),
        Command::Index(args) => index::run(args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::run(*args),
        #[cfg(not(feature = "serve"))]
        Command::Serve(_) => Err(UsageError(
            "lookalike serve needs lookalike built with the `serve` feature (on by default): \
             cargo install lookalike-cli --features serve"
                .into(),
        )
        .into()),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("lookalike: error: {}", message(&err));
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

/// The error and its causes, `: `-separated, each said once: a cause whose text its parent
/// already ends with (an error that prints its source) is not repeated.
fn message(err: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if msg.ends_with(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}
