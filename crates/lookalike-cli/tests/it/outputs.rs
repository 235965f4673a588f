//! Output files: modes, the commit of all outputs together, compression by extension,
//! skipped records in `--output`, exit codes and messages of runs that read nothing.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use crate::common::*;

/// Runs `lookalike ARGS` under `umask MASK` (through sh, which sets it for the child).
fn run_with_umask(mask: &str, args: &[&str], dir: &Path) -> std::process::Output {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("umask {mask} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_lookalike"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null());
    cmd.output().expect("sh runs")
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A JSONL corpus: pairs of near copies, an exact copy, a record without text, a line that is not
/// JSON, and a record with no words.
fn corpus(dir: &Path) {
    let mut s = String::new();
    for i in 0..6u64 {
        let text = words(i + 10, 120);
        s.push_str(&format!("{}\n", serde_json::json!({"id": format!("d{i}"), "text": text})));
        if i % 2 == 0 {
            let near = edit(&text, 40);
            s.push_str(&format!("{}\n", serde_json::json!({"id": format!("n{i}"), "text": near})));
        }
    }
    s.push_str(&format!("{}\n", serde_json::json!({"id": "copy", "text": words(10, 120)})));
    s.push_str("{\"id\": \"no-text\", \"body\": \"elsewhere\"}\n");
    s.push_str("{not json\n");
    s.push_str("{\"id\": \"punct\", \"text\": \"... !!! ---\"}\n");
    write(dir, "corpus.jsonl", s.as_bytes());
}

/// Regression: outputs were created with mode 0600 whatever the umask, and an
/// existing 0644 file was replaced by a 0600 one.
#[test]
fn outputs_are_created_with_the_umask_and_keep_the_mode_of_the_file_they_replace() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let existing = tmp.path().join("pairs.tsv");
    std::fs::write(&existing, "old\n").unwrap();
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o644)).unwrap();
    let group = tmp.path().join("group.tsv");
    std::fs::write(&group, "old\n").unwrap();
    std::fs::set_permissions(&group, std::fs::Permissions::from_mode(0o660)).unwrap();
    let args = [
        "dedup",
        "corpus.jsonl",
        "--pairs",
        "pairs.tsv",
        "--clusters",
        "new.jsonl",
        "--report",
        "group.tsv",
        "-q",
    ];
    let o = run_with_umask("027", &args, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(mode(&existing), 0o644, "an existing file keeps its mode");
    assert_eq!(mode(&group), 0o660, "an existing file keeps its mode, even against the umask");
    assert_eq!(mode(&tmp.path().join("new.jsonl")), 0o640, "a new file gets 0666 & !027");
    assert_ne!(std::fs::read(&existing).unwrap(), b"old\n");

    std::fs::remove_file(tmp.path().join("new.jsonl")).unwrap();
    let o = run_with_umask("002", &args, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(mode(&tmp.path().join("new.jsonl")), 0o664, "a new file gets 0666 & !002");
    assert!(temporary_files(tmp.path()).is_empty());
}

/// Regression: exit code 0 when every input failed and no document was read.
#[test]
fn a_run_that_reads_no_document_exits_1_says_so_and_replaces_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let gz = gzip(words(1, 200).as_bytes());
    write(tmp.path(), "a.txt.gz", &gz[..gz.len() / 3]);
    write(tmp.path(), "b.jsonl", b"{broken\n{\"id\": 1}\n");
    write(tmp.path(), "pairs.tsv", b"old pairs\n");
    let o = run(&["dedup", "a.txt.gz", "b.jsonl", "--pairs", "pairs.tsv"], None, tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("no document could be read"), "{err}");
    assert!(err.contains("1 input error, 2 records skipped"), "{err}");
    assert!(!err.contains("docs/s"), "no rates of nothing: {err}");
    assert_eq!(std::fs::read(tmp.path().join("pairs.tsv")).unwrap(), b"old pairs\n");
    assert!(temporary_files(tmp.path()).is_empty());

    // One readable document is a run: exit 0, as before; --strict still fails on the rest.
    write(tmp.path(), "c.txt", words(2, 50).as_bytes());
    let ok = run(&["dedup", "a.txt.gz", "b.jsonl", "c.txt", "--pairs", "p.tsv"], None, tmp.path());
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let strict = run(
        &["dedup", "a.txt.gz", "b.jsonl", "c.txt", "--pairs", "pairs.tsv", "--strict"],
        None,
        tmp.path(),
    );
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
    assert!(stderr(&strict).contains("--strict"), "{}", stderr(&strict));
    assert_eq!(std::fs::read(tmp.path().join("pairs.tsv")).unwrap(), b"old pairs\n");

    // Inputs with no record at all are not a failure.
    write(tmp.path(), "empty.jsonl", b"\n\n");
    let empty = run(&["dedup", "empty.jsonl"], None, tmp.path());
    assert_eq!(empty.status.code(), Some(0), "{}", stderr(&empty));
}

/// Regression: "0 docs/s" when every document was skipped.
#[test]
fn a_run_whose_documents_are_all_skipped_says_so_instead_of_0_docs_per_second() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", b"");
    write(tmp.path(), "b.txt", "... !!!".as_bytes());
    let o = run(&["dedup", "a.txt", "b.txt"], None, tmp.path());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no document to compare from 2 inputs"), "{err}");
    assert!(!err.contains("docs/s"), "{err}");
}

fn gunzip(bytes: &[u8]) -> String {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(bytes).read_to_string(&mut s).unwrap();
    s
}

/// Regression: `--output x.jsonl.gz` wrote uncompressed JSONL.
#[test]
fn outputs_named_gz_or_zst_are_compressed() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let plain = run(
        &["dedup", "corpus.jsonl", "--pairs", "p.tsv", "--output", "u.jsonl", "--report", "r"],
        None,
        tmp.path(),
    );
    assert!(plain.status.success(), "{}", stderr(&plain));
    let o = run(
        &[
            "dedup",
            "corpus.jsonl",
            "--pairs",
            "p.tsv.gz",
            "--output",
            "u.jsonl.GZ",
            "--report",
            "r.zst",
        ],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |n: &str| std::fs::read(tmp.path().join(n)).unwrap();
    assert_eq!(&read("p.tsv.gz")[..2], b"\x1f\x8b", "gzip magic");
    assert_eq!(gunzip(&read("p.tsv.gz")).as_bytes(), read("p.tsv"));
    assert_eq!(gunzip(&read("u.jsonl.GZ")).as_bytes(), read("u.jsonl"));
    assert_eq!(zstd::decode_all(&read("r.zst")[..]).unwrap(), read("r"));
    assert!(!read("p.tsv").is_empty());
}

/// Regression: skipped records vanished from `--output`, so rewriting a file
/// with its deduplicated version deleted them.
#[test]
fn skipped_records_stay_in_output_and_an_in_place_rewrite_loses_only_duplicates() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let original = std::fs::read_to_string(tmp.path().join("corpus.jsonl")).unwrap();
    let o = run(
        &["dedup", "corpus.jsonl", "--output", "corpus.jsonl", "--report", "r.jsonl"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rewritten = std::fs::read_to_string(tmp.path().join("corpus.jsonl")).unwrap();
    let report = std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap();
    let fates: Vec<Value> = report.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let duplicates: Vec<&str> = fates
        .iter()
        .filter(|f| f["status"] == "duplicate")
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(duplicates.contains(&"copy"), "{report}");
    // Every input line but the duplicates', in input order, the JSON ones byte for byte.
    let expected: Vec<&str> = original
        .lines()
        .filter(|l| {
            let id = serde_json::from_str::<Value>(l).ok().map(|v| v["id"].clone());
            !id.is_some_and(|id| duplicates.iter().any(|d| id == *d))
        })
        .collect();
    let got: Vec<&str> = rewritten.lines().collect();
    assert_eq!(got.len(), expected.len(), "{rewritten}");
    for (g, e) in got.iter().zip(&expected) {
        if serde_json::from_str::<Value>(e).is_ok() {
            assert_eq!(g, e);
        } else {
            // The line that is not JSON is kept as a JSON line holding it.
            let v: Value = serde_json::from_str(g).unwrap();
            assert_eq!(v["raw"], *e, "{g}");
            assert!(v["skipped"].as_str().unwrap().starts_with("invalid JSON"), "{g}");
        }
    }
    for id in ["no-text", "punct"] {
        assert!(rewritten.contains(&format!("\"id\": \"{id}\"")), "{id} kept: {rewritten}");
    }

    // Run again on the rewritten file: nothing more is lost.
    let again = run(&["dedup", "corpus.jsonl", "--output", "corpus.jsonl"], None, tmp.path());
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(tmp.path().join("corpus.jsonl")).unwrap(), rewritten);

    // --skipped drop: the kept documents only.
    let dropped = run(
        &["dedup", "corpus.jsonl", "--output", "-", "--skipped", "drop", "--report", "r2.jsonl"],
        None,
        tmp.path(),
    );
    assert!(dropped.status.success(), "{}", stderr(&dropped));
    let kept = std::fs::read_to_string(tmp.path().join("r2.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"status\":\"kept\""))
        .count();
    assert_eq!(stdout(&dropped).lines().count(), kept);
    assert!(!stdout(&dropped).contains("no-text"));
}

/// Skipped files (not JSON records) get `{id, ..., "skipped": reason}` lines in `--output`.
#[test]
fn skipped_files_are_marked_in_output() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.txt", words(3, 40).as_bytes());
    write(tmp.path(), "b.txt", b"");
    write(tmp.path(), "c.txt", "... !!!".as_bytes());
    let o = run(&["dedup", "a.txt", "b.txt", "c.txt", "--output", "-"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{}", stdout(&o));
    assert_eq!(lines[0]["id"], "a.txt");
    assert!(lines[0].get("skipped").is_none());
    assert_eq!((&lines[1]["id"], &lines[1]["skipped"]), (&"b.txt".into(), &"empty text".into()));
    assert_eq!(lines[2]["id"], "c.txt");
    assert_eq!(lines[2]["skipped"], "no tokens after normalization");
    assert_eq!(lines[2]["text"], "... !!!");
}

/// Regression: `--max-distance` and other options of one method were
/// accepted, and ignored, with another.
#[test]
fn options_of_another_method_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    for (args, needles) in [
        (vec!["--max-distance", "5"], vec!["--method minhash does not use --max-distance"]),
        (
            vec!["--method", "exact", "--num-perm", "64", "--lists", "4"],
            vec![
                "--num-perm (used by --method minhash, combined)",
                "--lists (used by --method partitioned)",
            ],
        ),
        (vec!["--method", "simhash", "--sample", "mod:4"], vec!["mod-m, min-s, broder"]),
    ] {
        let mut all = vec!["dedup", "corpus.jsonl"];
        all.extend(&args);
        let o = run(&all, None, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        for n in needles {
            assert!(stderr(&o).contains(n), "{args:?}: {}", stderr(&o));
        }
    }
    // The same options with their own methods, and defaults given explicitly, are fine.
    for args in [
        vec!["--method", "simhash", "--max-distance", "5"],
        vec!["--method", "partitioned", "--lists", "4"],
        vec!["--num-perm", "64"],
        vec!["--measure", "containment", "--sample", "mod:4"],
    ] {
        let mut all = vec!["dedup", "corpus.jsonl", "-q"];
        all.extend(&args);
        let o = run(&all, None, tmp.path());
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
}

/// Regression: a bad spill directory gave "spill file I/O failed: <OS
/// error>: <OS error>" without naming the directory.
#[test]
fn a_bad_spill_dir_is_named_once() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let o = run(
        &["dedup", "corpus.jsonl", "--output", "u.jsonl", "--spill-dir", "no/such/dir"],
        None,
        tmp.path(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no/such/dir"), "{err}");
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    // A configuration error is said once, too.
    let o = run(&["dedup", "corpus.jsonl", "--threshold", "1.5"], None, tmp.path());
    assert_eq!(stderr(&o).matches("is not in (0, 1]").count(), 1, "{}", stderr(&o));
}

/// Two outputs naming one file would overwrite each other.
#[test]
fn two_outputs_naming_one_file_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let o = run(&["dedup", "corpus.jsonl", "--pairs", "x", "--report", "./x"], None, tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--pairs and --report name the same file"), "{}", stderr(&o));
}

/// Regression: `dedup in.jsonl --pairs in.jsonl` replaced the input, and
/// `--pairs a.tsv --clusters sub/../a.tsv` kept only the clusters. Files are compared as the file
/// system sees them: through `..`, symbolic links and hard links.
#[test]
fn an_output_naming_an_input_or_another_output_through_other_paths_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    let before = std::fs::read(tmp.path().join("corpus.jsonl")).unwrap();
    std::os::unix::fs::symlink("corpus.jsonl", tmp.path().join("link.jsonl")).unwrap();
    std::fs::hard_link(tmp.path().join("corpus.jsonl"), tmp.path().join("hard.jsonl")).unwrap();
    for target in ["corpus.jsonl", "sub/../corpus.jsonl", "link.jsonl", "hard.jsonl"] {
        let o = run(&["dedup", "corpus.jsonl", "--pairs", target], None, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{target}: {}", stderr(&o));
        assert!(stderr(&o).contains("is the input"), "{target}: {}", stderr(&o));
    }
    // --output may rewrite the only input in place (see the test above), not one of several: an
    // input found in a folder is an input too.
    let o = run(&["dedup", ".", "--output", "./sub/../corpus.jsonl"], None, tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is the input"), "{}", stderr(&o));
    assert_eq!(std::fs::read(tmp.path().join("corpus.jsonl")).unwrap(), before);
    let o = run(
        &["dedup", "corpus.jsonl", "--pairs", "a.tsv", "--clusters", "sub/../a.tsv"],
        None,
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--pairs and --clusters name the same file"), "{}", stderr(&o));
    assert!(!tmp.path().join("a.tsv").exists());
    // Distinct files are still fine.
    let o = run(
        &["dedup", "corpus.jsonl", "--pairs", "a.tsv", "--clusters", "sub/a.tsv"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Holds an advisory lock on `path` (a file or folder) in another process, as a live run holds
/// its temporary files, until [`release`] (flock(1) holds it, its child does not: `-o`).
fn hold_lock(path: &Path) -> std::process::Child {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new("flock")
        .arg("-o")
        .arg(path)
        .args(["-c", "echo locked; exec sleep 600"])
        .stdout(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("flock(1) runs");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line, "locked\n");
    child
}

/// Ends a [`hold_lock`] child and its own child (its process group).
fn release(holder: &mut std::process::Child) {
    let group = format!("-{}", holder.id());
    let killed = std::process::Command::new("kill").args(["--", &group]).status();
    assert!(killed.is_ok_and(|s| s.success()));
    holder.wait().unwrap();
}

/// Leftovers of a killed run are removed by the next run writing into that folder (output
/// folder or spill folder); those of a live run are not. Regression: a live
/// run was told by the pid in the name, which is not unique across containers sharing `/tmp`:
/// one run deleted another's live spill folder. Now a leftover goes only when its lock can be
/// taken: a live run's (locked by another process, under a pid that is gone here) stays, a stale
/// one goes.
#[test]
fn temporary_files_of_a_dead_run_are_removed_by_the_next_run_and_a_live_runs_kept() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    for folder in ["out", "spill"] {
        std::fs::create_dir(tmp.path().join(folder)).unwrap();
        write(tmp.path(), &format!("{folder}/.lookalike-tmp-{dead}-abcdefgh"), b"stale");
    }
    let live_file = format!(".lookalike-tmp-{dead}-11111111");
    write(tmp.path(), &format!("out/{live_file}"), b"a live run's output");
    let live_dir = format!(".lookalike-tmp-{dead}-22222222");
    write(tmp.path(), &format!("spill/{live_dir}/run-0"), b"a live run's spill file");
    let mut holders = [
        hold_lock(&tmp.path().join("out").join(&live_file)),
        hold_lock(&tmp.path().join("spill").join(&live_dir)),
    ];
    let o = run(
        &["dedup", "corpus.jsonl", "--pairs", "out/p.tsv", "--spill-dir", "spill"],
        None,
        tmp.path(),
    );
    for h in &mut holders {
        release(h);
    }
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o).matches("removed 1 temporary file").count(), 2, "{}", stderr(&o));
    assert_eq!(temporary_files(&tmp.path().join("out")), [live_file]);
    assert_eq!(temporary_files(&tmp.path().join("spill")), std::slice::from_ref(&live_dir));
    assert!(tmp.path().join("spill").join(&live_dir).join("run-0").exists());
    // Its run gone (the lock released), the next run removes it.
    let o = run(&["dedup", "corpus.jsonl", "--spill-dir", "spill"], None, tmp.path());
    assert!(stderr(&o).contains("removed 1 temporary file"), "{}", stderr(&o));
    assert!(temporary_files(&tmp.path().join("spill")).is_empty());
}
