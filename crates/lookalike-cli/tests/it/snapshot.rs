//! Snapshots of what the command line shows: the help of every (sub)command, `params` tables and
//! the summary `dedup` prints on stderr. A change to an option's name, default or text shows up
//! here as a diff to review (`cargo insta review`).

use std::path::Path;

use crate::common::*;

/// Runs the binary with a fixed terminal width (clap reads `COLUMNS`) and no colour.
fn run_fixed(args: &[&str], dir: &Path) -> std::process::Output {
    let mut cmd = lookalike();
    cmd.args(args)
        .current_dir(dir)
        .env("COLUMNS", "100")
        .env_remove("LINES")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE");
    output_within(cmd, None, RUN_TIMEOUT)
}

/// The help of `path` (`--help` or `-h` appended), which must succeed.
fn help(path: &[&str], flag: &str) -> String {
    let mut args = path.to_vec();
    args.push(flag);
    let o = run_fixed(&args, Path::new("."));
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The subcommands a help text lists under `Commands:` (without clap's `help`).
fn listed_subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every command path with a help text: the top level, each subcommand and each nested one.
const COMMANDS: &[&[&str]] = &[
    &[],
    &["dedup"],
    &["params"],
    &["extract"],
    &["paragraphs"],
    &["lexicon"],
    &["lexicon", "build"],
    &["eval"],
    &["eval", "pool"],
    &["compare"],
    &["report"],
    &["index"],
    &["index", "create"],
    &["index", "add"],
    &["index", "query"],
    &["index", "remove"],
    &["index", "get"],
    &["index", "stats"],
    &["index", "export"],
    &["index", "verify"],
    &["serve"],
];

#[test]
fn the_snapshot_list_covers_every_subcommand() {
    let mut found: Vec<Vec<String>> = vec![vec![]];
    let mut i = 0;
    while i < found.len() {
        let path: Vec<&str> = found[i].iter().map(String::as_str).collect();
        let sub = listed_subcommands(&help(&path, "--help"));
        for s in sub {
            let mut p = found[i].clone();
            p.push(s);
            found.push(p);
        }
        i += 1;
    }
    let mut found: Vec<String> = found.iter().map(|p| p.join(" ")).collect();
    let mut listed: Vec<String> = COMMANDS.iter().map(|p| p.join(" ")).collect();
    found.sort();
    listed.sort();
    assert_eq!(found, listed, "add the new subcommand to COMMANDS");
}

/// The snapshot name of a command path: `help_lookalike_lexicon_build` and the like.
fn snapshot_name(path: &[&str], long: bool) -> String {
    let mut name = String::from(if long { "help" } else { "short_help" });
    name.push_str("_lookalike");
    for p in path {
        name.push('_');
        name.push_str(p);
    }
    name
}

#[test]
fn long_help() {
    for path in COMMANDS {
        insta::assert_snapshot!(snapshot_name(path, true), help(path, "--help"));
    }
}

#[test]
fn short_help() {
    for path in COMMANDS {
        insta::assert_snapshot!(snapshot_name(path, false), help(path, "-h"));
    }
}

/// `lookalike params ARGS`, which must succeed.
fn params(args: &[&str]) -> String {
    let mut all = vec!["params"];
    all.extend_from_slice(args);
    let o = run_fixed(&all, Path::new("."));
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn params_minhash_default() {
    insta::assert_snapshot!(params(&[]));
}

#[test]
fn params_minhash_threshold_0_9_num_perm_256() {
    insta::assert_snapshot!(params(&["--threshold", "0.9", "--num-perm", "256"]));
}

#[test]
fn params_minhash_json() {
    insta::assert_snapshot!(params(&[
        "--threshold",
        "0.7",
        "--bands",
        "20",
        "--rows",
        "5",
        "--json"
    ]));
}

#[test]
fn params_supershingles_default() {
    insta::assert_snapshot!(params(&["--method", "supershingles"]));
}

#[test]
fn params_supershingles_single_with_unused_values() {
    insta::assert_snapshot!(params(&[
        "--method",
        "supershingles",
        "--super-hashes",
        "50",
        "--super-groups",
        "4",
        "--super-mode",
        "single",
        "--threshold",
        "0.6",
    ]));
}

#[test]
fn params_supershingles_json() {
    insta::assert_snapshot!(params(&["--method", "supershingles", "--json"]));
}

#[test]
fn params_simhash_minimal() {
    insta::assert_snapshot!(params(&["--method", "simhash"]));
}

#[test]
fn params_simhash_for_a_collection() {
    insta::assert_snapshot!(params(&[
        "--method",
        "simhash",
        "--max-distance",
        "4",
        "--docs",
        "10000000"
    ]));
}

#[test]
fn params_simhash_given_blocks_json() {
    insta::assert_snapshot!(params(&[
        "--method",
        "simhash",
        "--max-distance",
        "3",
        "--simhash-blocks",
        "6",
        "--json"
    ]));
}

/// The summary of `dedup` on a small fixed corpus: timings, throughput, thread counts and the
/// temporary folder are redacted.
#[test]
fn dedup_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let base = words(1, 300);
    let mut jsonl = String::new();
    for (id, text) in [
        ("a", base.clone()),
        ("b", edit(&base, 50)),
        ("c", base.clone()),
        ("d", words(2, 300)),
        ("e", String::new()),
    ] {
        jsonl.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        jsonl.push('\n');
    }
    write(tmp.path(), "corpus.jsonl", jsonl.as_bytes());
    write(tmp.path(), "notes/x.txt", words(3, 200).as_bytes());
    write(tmp.path(), "notes/y.txt", edit(&words(3, 200), 40).as_bytes());
    let o = run_fixed(&["dedup", "corpus.jsonl", "notes", "--pairs", "pairs.tsv"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = tmp.path().display().to_string();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&dir), "[TMP]");
    settings.add_filter(r"[0-9]+\.[0-9]+ MB/s", "[MB/S] MB/s");
    settings.add_filter(r"[0-9]+ docs/s", "[DOCS/S] docs/s");
    settings.add_filter(r"[0-9]+ threads?\b", "[N] threads");
    settings.add_filter(r"[0-9]+\.[0-9]+ s\b", "[SECS] s");
    settings.bind(|| insta::assert_snapshot!(stderr(&o)));
}

/// `s` with the characters a regular expression gives a meaning escaped.
fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Regression: output options appeared under "Method options", 130 lines
/// down, and the help named internal things ("seed 002", "[`DocFreq`]").
#[test]
fn dedup_help_has_a_heading_per_kind_of_option_and_no_internal_names() {
    let h = help(&["dedup"], "--help");
    let heading_of = |flag: &str| {
        let at = h.find(&format!(" {flag} ")).unwrap_or_else(|| panic!("{flag} not in help"));
        h[..at].lines().rev().find(|l| l.ends_with(':') && !l.starts_with(' ')).unwrap().to_owned()
    };
    for (flag, heading) in [
        ("--id-field", "Input options:"),
        ("--extract", "Input options:"),
        ("--pairs", "Output options:"),
        ("--output", "Output options:"),
        ("--report", "Output options:"),
        ("--skipped", "Output options:"),
        ("--method", "Method options:"),
        ("--threshold", "Method options:"),
        ("--shingle", "Method options:"),
        ("--max-distance", "Options of particular methods:"),
        ("--threads", "Performance options:"),
        ("--spill-memory", "Performance options:"),
    ] {
        assert_eq!(heading_of(flag), heading, "{flag}");
    }
    for path in COMMANDS {
        let text = help(path, "--help");
        for internal in ["seed 0", "[`", "`]", "](", "DocFreq"] {
            assert!(!text.contains(internal), "{path:?} --help shows {internal:?}");
        }
    }
}
