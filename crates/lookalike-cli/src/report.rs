//! `lookalike report --run run.json -o report.html`: the HTML report of a finished run, from its
//! run file (`dedup --run`) and the files it names. The page is the one `dedup --html` writes
//! for the same run: the same values are pushed into the same [`RunData`].

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use clap::Parser;
use lookalike_io::{Origin, Position};
use serde_json::Value;

use crate::UsageError;
use crate::args::{Cli, Command, ReportArgs};
use crate::html::data::{Fate, Member, RunData};
use crate::output::OutputFile;
use crate::stats::RunStats;

/// The largest run file read. A run file is the run's command line and its `--stats` figures
/// (kilobytes); without a bound, `--run /dev/zero` read until the kernel killed the process.
const MAX_RUN_FILE: u64 = 64 << 20;

pub fn run(args: &ReportArgs) -> Result<ExitCode> {
    let mut text = String::new();
    fs_err::File::open(&args.run)?
        .take(MAX_RUN_FILE + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {} as text", args.run.display()))?;
    if text.len() as u64 > MAX_RUN_FILE {
        return Err(UsageError(format!(
            "{} is larger than {} MiB: not a run file of `lookalike dedup --run`",
            args.run.display(),
            MAX_RUN_FILE >> 20
        ))
        .into());
    }
    let run: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", args.run.display()))?;
    if run["lookalike_run"].as_u64() != Some(1) {
        return Err(UsageError(format!(
            "{} is not a run file of `lookalike dedup --run` (no \"lookalike_run\": 1)",
            args.run.display()
        ))
        .into());
    }
    // The run's own input options, from its command line.
    let command: Vec<String> = serde_json::from_value(run["command"].clone())
        .with_context(|| format!("{}: \"command\" is not a list of strings", args.run.display()))?;
    let dedup = match Cli::try_parse_from(&command).map(|cli| cli.command) {
        Ok(Command::Dedup(d)) => d,
        _ => {
            return Err(anyhow!(
                "{}: \"command\" is not a `lookalike dedup` command line this version reads",
                args.run.display()
            ));
        }
    };
    let opts = dedup.input.read_options();
    let file = |key: &str| -> Result<String> {
        run["outputs"][key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("{}: the run wrote no --{key} file", args.run.display()))
    };
    let (pairs, clusters, report) = (file("pairs")?, file("clusters")?, file("report")?);
    let stats = RunStats::from_value(&run["stats"], &args.run.display().to_string())?;
    // Open the output now (an absolute path: the inputs are read from the run's folder).
    let target = if args.output == "-" {
        args.output.clone()
    } else {
        std::path::absolute(&args.output)?.display().to_string()
    };
    let mut out = OutputFile::open(&target)?;

    let inputs: Vec<String> = serde_json::from_value(run["inputs"].clone()).unwrap_or_default();
    let shown = &stats.config.shown;
    let mut data = RunData::new(shown.threshold, shown.seed, inputs);
    for (n, line) in lines(&pairs)?.enumerate() {
        let line = line.with_context(|| format!("cannot read {pairs}"))?;
        let mut cols = line.split('\t');
        let (Some(a), Some(b), Some(sim)) = (cols.next(), cols.next(), cols.next()) else {
            return Err(anyhow!("{pairs}:{}: not id1<TAB>id2<TAB>similarity", n + 1));
        };
        let sim: f64 =
            sim.parse().map_err(|_| anyhow!("{pairs}:{}: bad similarity {sim:?}", n + 1))?;
        data.pair(&tsv_unescape(a), &tsv_unescape(b), sim);
    }
    for (n, line) in lines(&clusters)?.enumerate() {
        let line = line.with_context(|| format!("cannot read {clusters}"))?;
        let c: Value = serde_json::from_str(&line)
            .with_context(|| format!("{clusters}:{}: not JSON", n + 1))?;
        let members = c["members"]
            .as_array()
            .map(|ms| {
                ms.iter()
                    .map(|m| Member {
                        id: m["id"].as_str().unwrap_or_default().to_owned(),
                        similarity: m["similarity"].as_f64().unwrap_or(0.0),
                        kind: m["match"].as_str().unwrap_or_default().to_owned(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let number = c["cluster"].as_u64().unwrap_or(n as u64);
        data.cluster(number, c["representative"].as_str().unwrap_or_default(), members);
    }
    for r in run["rejected_sample"].as_array().into_iter().flatten() {
        if let (Some(a), Some(b), Some(s)) = (r[0].as_str(), r[1].as_str(), r[2].as_f64()) {
            data.rejected(a, b, s);
        }
    }
    let wanted_ids = data.wanted_ids();
    let mut wanted: BTreeMap<String, Origin> = BTreeMap::new();
    for (n, line) in lines(&report)?.enumerate() {
        let line = line.with_context(|| format!("cannot read {report}"))?;
        let r: Value =
            serde_json::from_str(&line).with_context(|| format!("{report}:{}: not JSON", n + 1))?;
        let id = r["id"].as_str().unwrap_or_default();
        if r["status"] == "ignored" {
            // A file not read is no record (the run's stats count them).
            continue;
        }
        let fate = match (r["status"].as_str(), r["match"].as_str()) {
            (Some("kept"), _) => Fate::Kept,
            (Some("duplicate"), Some("near")) => Fate::Near,
            (Some("duplicate"), _) => Fate::Exact,
            _ => Fate::Skipped,
        };
        let source = r["source"].as_str().unwrap_or_default();
        data.record(id, fate, r["lang"].as_str(), source);
        if wanted_ids.contains(id) {
            let position = match (r["line"].as_u64(), r["row"].as_u64(), r["record"].as_u64()) {
                (Some(l), _, _) => Position::Line(l),
                (_, Some(row), _) => Position::Row(row),
                (_, _, Some(rec)) => Position::Record(rec),
                _ => Position::Whole,
            };
            wanted.insert(id.to_owned(), Origin { source: Arc::from(source), position });
        }
    }
    // Inputs named relative to the run's folder are read from there.
    if let Some(cwd) = run["cwd"].as_str() {
        std::env::set_current_dir(cwd)
            .with_context(|| format!("cannot read the inputs from the run's folder {cwd}"))?;
    }
    let found = crate::html::texts::fetch(&wanted, &opts);
    data.texts = found.texts;
    data.texts_note = found.note;
    let page = crate::html::render(&data, &stats, args.max_size);
    std::io::Write::write_all(&mut out, page.as_bytes())
        .with_context(|| format!("cannot write {}", out.name()))?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// An id as the pairs file escapes it (`\\`, `\t`, `\n`, `\r`), back to itself.
fn tsv_unescape(id: &str) -> std::borrow::Cow<'_, str> {
    if !id.contains('\\') {
        return id.into();
    }
    let mut out = String::with_capacity(id.len());
    let mut chars = id.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out.into()
}

/// The lines of a run's output file, decompressed as its name says (`.gz`, `.zst`).
fn lines(path: &str) -> Result<impl Iterator<Item = std::io::Result<String>>> {
    let file = fs_err::File::open(path)?;
    let reader: Box<dyn Read> = if Path::new(path).extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else if Path::new(path).extension().is_some_and(|e| e == "zst") {
        Box::new(zstd::Decoder::new(file)?)
    } else {
        Box::new(file)
    };
    Ok(BufReader::new(reader).lines())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_file_ids_are_unescaped() {
        assert_eq!(tsv_unescape("plain/id"), "plain/id");
        assert_eq!(tsv_unescape("a\\tb\\\\c\\nd"), "a\tb\\c\nd");
    }
}
