//! Bad usage (exit 2), bad input (reported, the run goes on), --strict (exit 1).

use crate::common::*;

#[test]
fn help_lists_examples_and_version_works() {
    let o = run(&["dedup", "--help"], None, std::path::Path::new("."));
    assert!(o.status.success());
    let h = stdout(&o);
    assert!(
        h.contains("Examples:") && h.contains("--threshold") && h.contains("Exit codes"),
        "{h}"
    );
    assert!(run(&["--version"], None, std::path::Path::new(".")).status.success());
}

#[test]
fn bad_usage_exits_with_2_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", b"some text here");
    for (args, needle) in [
        (vec!["dedup"], "INPUT"),
        (vec!["dedup", "a.txt", "--threshold", "1.5"], "threshold"),
        (vec!["dedup", "a.txt", "--bands", "20", "--rows", "10"], "num-perm"),
        (vec!["dedup", "missing.txt"], "missing.txt"),
        (vec!["dedup", "nothing/*.txt"], "nothing/*.txt"),
        (vec!["dedup", "a.txt", "--shingle", "bytes:3"], "shingle"),
        (vec!["dedup", "a.txt", "--pairs", "-", "--clusters", "-"], "only one"),
        (vec!["dedup", "a.txt", "--no-such-flag"], "no-such-flag"),
    ] {
        let o = run(&args, None, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn truncated_gzip_is_reported_with_its_name_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let mut input = String::new();
    for i in 0..200 {
        input.push_str(&format!("{}\n", serde_json::json!({"id": i, "text": words(i, 50)})));
    }
    let gz = gzip(input.as_bytes());
    write(tmp.path(), "broken.jsonl.gz", &gz[..gz.len() / 2]);
    write(tmp.path(), "good.txt", words(7, 50).as_bytes());
    write(tmp.path(), "bad.jsonl", b"{\"id\": 1, \"text\": \"fine text\"}\n{oops\n");
    let o = run(
        &["dedup", "broken.jsonl.gz", "good.txt", "bad.jsonl", "--report", "r.jsonl"],
        None,
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("broken.jsonl.gz") && err.contains("gzip"), "{err}");
    assert!(err.contains("bad.jsonl:2") && err.contains("invalid JSON"), "{err}");
    let report = std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap();
    assert!(report.contains("\"good.txt\""));
    assert!(report.contains("bad.jsonl:2"));

    let strict = run(&["dedup", "broken.jsonl.gz", "good.txt", "--strict"], None, tmp.path());
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
}

#[test]
fn empty_and_binary_documents_are_skipped_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "empty.txt", b"");
    write(tmp.path(), "punct.txt", "... --- !!!".as_bytes());
    write(tmp.path(), "ok.txt", b"real words are here");
    let o = run(&["dedup", "empty.txt", "punct.txt", "ok.txt", "--report", "-"], None, tmp.path());
    assert!(o.status.success());
    let lines: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let fate: Vec<(&str, &str, &str)> = lines
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap(),
                v["status"].as_str().unwrap(),
                v["reason"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        fate,
        [
            ("empty.txt", "skipped", "empty text"),
            ("punct.txt", "skipped", "no tokens after normalization"),
            ("ok.txt", "kept", ""),
        ]
    );
}

/// Regression: atomic writes (temporary file + rename) must not replace a special file such as
/// /dev/null or a FIFO with a regular file. Tested on a FIFO of our own.
#[test]
fn outputs_to_special_files_are_written_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", words(1, 50).as_bytes());
    write(tmp.path(), "b.txt", words(1, 50).as_bytes());
    let fifo = tmp.path().join("pairs.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = run(&["dedup", "a.txt", "b.txt", "--pairs", "pairs.fifo"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(reader.join().unwrap(), "a.txt\tb.txt\t1.000000\n");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
}

/// Regression: a directory holding a FIFO hung forever, printing nothing (an
/// extension-less FIFO was opened to sniff it, a `.txt` one by the reader). Now each is skipped
/// with its reason, in the summary and the report, and the run ends.
#[cfg(unix)]
#[test]
fn directory_with_a_fifo_does_not_hang() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "d/a.txt", words(1, 50).as_bytes());
    write(tmp.path(), "d/b.txt", words(1, 50).as_bytes());
    for name in ["d/pipe", "d/pipe.txt"] {
        let made = std::process::Command::new("mkfifo").arg(tmp.path().join(name)).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
    }
    let limit = std::time::Duration::from_secs(120);
    let o = run_within(&["dedup", "d", "--report", "-"], None, tmp.path(), limit);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("skipped: special file: 2"), "{err}");
    assert!(err.contains("d/pipe: special file: FIFO (named pipe), not opened"), "{err}");
    let report = stdout(&o);
    let fifo_lines: Vec<&str> = report.lines().filter(|l| l.contains("FIFO")).collect();
    assert_eq!(fifo_lines.len(), 2, "{report}");
    assert!(report.contains("\"d/a.txt\"") && report.contains("\"d/b.txt\""), "{report}");
}

/// Regression: `--sentences 0`, `--ridf-words 0`, `--spot-chain 0` and
/// `--refwords 0` ran and found nothing; they are refused (exit 2) by the library's validation
/// of the method, which Python shares, with the option's name and its range.
#[test]
fn degenerate_method_values_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", words(1, 80).as_bytes());
    for (method, flag, needle) in [
        ("long-sentences", "--sentences", "sentences 0 is not in 1..=64"),
        ("tf-ridf", "--ridf-words", "ridf-words 0 is not in 1..=256"),
        ("spotsigs", "--spot-chain", "spot-chain 0 is not at least 1"),
        ("refwords", "--refwords", "refwords 0 is not at least 1"),
    ] {
        let o = run(&["dedup", "a.txt", "--method", method, flag, "0"], None, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{flag}: {}", stderr(&o));
    }
}

/// Regression: `index create --help` and `serve --help` listed all 15 methods
/// for `--method`, where an index holds 3; the others are refused by the parser.
#[test]
fn index_and_serve_help_list_only_the_methods_an_index_holds() {
    let here = std::path::Path::new(".");
    for args in
        [&["index", "create", "--help"][..], &["index", "add", "--help"], &["serve", "--help"]]
    {
        let o = run(args, None, here);
        let help = stdout(&o);
        assert!(o.status.success(), "{args:?}");
        for method in ["- minhash:", "- simhash:", "- partitioned:"] {
            assert!(help.contains(method), "{args:?} lacks {method}: {help}");
        }
        for method in ["- supershingles:", "- mod-m:", "- broder:", "- spotsigs:", "- exact:"] {
            assert!(!help.contains(method), "{args:?} lists {method}: {help}");
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&["index", "create", "x.idx", "--method", "mod-m"], None, tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("possible values: minhash, simhash, partitioned"),
        "{}",
        stderr(&o)
    );
}

/// Regression: `--spill-dir` naming a file printed a cleanup warning before
/// the error; now the one error says what is wrong.
#[test]
fn a_spill_dir_that_is_a_file_gives_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", words(1, 80).as_bytes());
    write(tmp.path(), "afile", b"");
    let o = run(&["dedup", "a.txt", "--spill-dir", "afile"], None, tmp.path());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot use --spill-dir afile: Not a directory"), "{err}");
}

/// Regression: on a full disk, the errors of `dedup --output` (its temporary
/// store) and `extract --output` named no path. A file size limit stands in for the full disk
/// (the signal it sends is ignored, so writes fail with EFBIG as they would with ENOSPC).
#[test]
fn write_errors_name_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let lines: String = (0..1000)
        .map(|i| serde_json::json!({"id": i, "text": words(i, 300)}).to_string() + "\n")
        .collect();
    write(tmp.path(), "big.jsonl", lines.as_bytes());
    std::fs::create_dir(tmp.path().join("spill")).unwrap();
    for (args, path) in [
        (&["dedup", "big.jsonl", "-q", "--output", "o.jsonl", "--spill-dir", "spill"][..], "spill"),
        (&["extract", "big.jsonl", "--output", "e.jsonl"], "e.jsonl"),
    ] {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "trap '' XFSZ; ulimit -f 200; exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_lookalike"))
            .args(args)
            .current_dir(tmp.path());
        let o = output_within(cmd, None, RUN_TIMEOUT);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(last.contains(path) && last.contains("File too large"), "{args:?}: {err}");
    }
}

/// `dedup` finds every usage error before it creates anything, in the order of
/// its plan: the options alone, then the inputs, then the settings (the `--lexicon` file loaded,
/// the method validated); the spill folder and the outputs only after.
#[test]
fn a_bad_option_is_reported_before_any_side_effect() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", words(1, 80).as_bytes());
    let dedup = |extra: &[&str]| {
        // --num-perm is MinHash's: SimHash and I-Match do not use it.
        let mut args = vec!["dedup", "a.txt", "--num-perm", "64"];
        args.extend_from_slice(extra);
        let o = run(&args, None, tmp.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains("does not use --num-perm"), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
    };
    // A spill folder that does not exist: the option's error, and the folder is not made.
    dedup(&["--method", "simhash", "--spill-dir", "new/spill"]);
    assert!(!tmp.path().join("new").exists());
    // A lexicon file that does not exist: the option's error (the lexicon is not loaded yet).
    dedup(&["--method", "i-match", "--lexicon", "missing.bin"]);
    // An existing spill folder and outputs: no run folder made in it, no output opened.
    std::fs::create_dir(tmp.path().join("spill")).unwrap();
    dedup(&["--method", "simhash", "--spill-dir", "spill", "--pairs", "p.tsv", "-o", "u.jsonl"]);
    assert_eq!(std::fs::read_dir(tmp.path().join("spill")).unwrap().count(), 0);
    assert!(temporary_files(tmp.path()).is_empty());
    assert!(!tmp.path().join("p.tsv").exists() && !tmp.path().join("u.jsonl").exists());
    // The inputs before the settings: a missing input is said before a missing lexicon.
    let o = run(
        &["dedup", "missing.txt", "--method", "i-match", "--lexicon", "missing.bin"],
        None,
        tmp.path(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("missing.txt") && !err.contains("missing.bin"), "{err}");
}

/// Built without the `parquet` feature, a Parquet input is an error naming the feature.
#[test]
#[cfg(not(feature = "parquet"))]
fn without_the_parquet_feature_a_parquet_input_names_the_feature() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "rows.parquet", b"PAR1 not read");
    write(tmp.path(), "a.txt", words(1, 80).as_bytes());
    let o = run(&["dedup", "rows.parquet", "a.txt", "--strict"], None, tmp.path());
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "rows.parquet: Parquet input needs lookalike built with the `parquet` feature"
        ),
        "{}",
        stderr(&o)
    );
}

/// Built without the `serve` feature, `lookalike serve` is a usage error naming the feature.
#[test]
#[cfg(not(feature = "serve"))]
fn without_the_serve_feature_serve_names_the_feature() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&["serve", "idx"], None, tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "lookalike serve needs lookalike built with the `serve` feature (on by default): \
             cargo install lookalike-cli --features serve"
        ),
        "{}",
        stderr(&o)
    );
}
