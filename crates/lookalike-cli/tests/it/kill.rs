//! The kill test: a `lookalike dedup` writing several outputs over old ones is
//! killed with SIGKILL and with SIGTERM at random points. Afterwards either every old output or
//! every new output is there, byte for byte, never a mix; after the next run in the folder no
//! temporary file remains, in the outputs' folder or in the spill directory.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// The outputs of the run under test, and the bytes each held before it.
const OUTPUTS: &[(&str, &str)] = &[
    ("--pairs", "pairs.tsv"),
    ("--clusters", "clusters.jsonl"),
    ("--report", "report.jsonl.gz"),
    ("--output", "unique.jsonl"),
];

fn old_bytes(name: &str) -> Vec<u8> {
    format!("old {name}\n").into_bytes()
}

/// A corpus large enough that kills land mid-run (a run takes seconds in a debug build): 1200
/// documents of 300 words, every third one a near copy of the one before (a word in 80 changed).
fn corpus(dir: &Path) {
    let mut s = String::new();
    let mut base = String::new();
    for i in 0..1200u64 {
        let text = if i % 3 == 2 { edit(&base, 80) } else { words(i, 300) };
        s.push_str(&format!("{}\n", serde_json::json!({"id": format!("doc{i}"), "text": text})));
        base = text;
    }
    write(dir, "corpus.jsonl", s.as_bytes());
    write(dir, "tiny.txt", words(1, 30).as_bytes());
}

fn args() -> Vec<String> {
    let mut a: Vec<String> =
        ["dedup", "../corpus.jsonl", "-q", "--spill-dir", "../spill"].map(String::from).to_vec();
    for (flag, name) in OUTPUTS {
        a.push((*flag).to_owned());
        a.push((*name).to_owned());
    }
    a
}

/// Waits for `child` at most `limit`; kills it and fails past that.
fn wait(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// "old" when every output holds its old bytes, "new" when every one holds the complete run's.
fn state(dir: &Path, new: &[Vec<u8>]) -> Result<&'static str, String> {
    let now: Vec<Vec<u8>> =
        OUTPUTS.iter().map(|(_, n)| std::fs::read(dir.join(n)).unwrap_or_default()).collect();
    if now.iter().zip(OUTPUTS).all(|(b, (_, n))| *b == old_bytes(n)) {
        Ok("old")
    } else if now == new {
        Ok("new")
    } else {
        let which: Vec<String> = now
            .iter()
            .zip(OUTPUTS)
            .zip(new)
            .map(|((b, (_, n)), new)| {
                let kind = if *b == old_bytes(n) {
                    "old"
                } else if b == new {
                    "new"
                } else {
                    "other"
                };
                format!("{n}: {kind}")
            })
            .collect();
        Err(which.join(", "))
    }
}

#[test]
fn killed_runs_leave_all_old_or_all_new_outputs_and_no_temporary_file() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let spill = tmp.path().join("spill");
    std::fs::create_dir(&spill).unwrap();

    // The complete run, for the new bytes and the length of a run.
    let started = Instant::now();
    let full = lookalike().args(args()).current_dir(&out).stdin(Stdio::null()).output().unwrap();
    let length = started.elapsed();
    assert!(full.status.success(), "{}", stderr(&full));
    let new: Vec<Vec<u8>> =
        OUTPUTS.iter().map(|(_, n)| std::fs::read(out.join(n)).unwrap()).collect();
    assert!(new.iter().all(|b| !b.is_empty()));

    let mut rng = Rng(0x5EED_0012);
    let mut interrupted = [0; 2];
    for round in 0..12 {
        let term = round % 2 == 1;
        for (_, n) in OUTPUTS {
            std::fs::write(out.join(n), old_bytes(n)).unwrap();
        }
        let mut child =
            lookalike().args(args()).current_dir(&out).stdin(Stdio::null()).spawn().unwrap();
        // Anywhere in the run, a little past its usual end included.
        std::thread::sleep(length.mul_f64(rng.next_f64() * 1.1));
        if term {
            let sent = Command::new("kill")
                .args(["-s", "TERM", &child.id().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
        } else {
            child.kill().unwrap();
        }
        let status = wait(&mut child, Duration::from_secs(120));
        let finished = status.code() == Some(0);
        if term {
            // Our handler exits with 128 + 15; a run that had ended first exits with 0, one that
            // had not yet installed the handler (its first milliseconds) dies of the signal.
            use std::os::unix::process::ExitStatusExt;
            assert!(
                matches!(status.code(), Some(0 | 143)) || status.signal() == Some(15),
                "round {round}: {status:?}"
            );
            assert!(temporary_files(&out).is_empty(), "round {round}: SIGTERM left files");
            assert!(temporary_files(&spill).is_empty(), "round {round}: SIGTERM left spill files");
        }
        if !finished {
            interrupted[usize::from(term)] += 1;
        }
        let journal = temporary_files(&out).iter().any(|n| n.ends_with(".commit"));
        let before = state(&out, &new);
        if !journal {
            assert!(before.is_ok(), "round {round}: a mix of outputs: {}", before.unwrap_err());
        }
        if finished {
            assert_eq!(before, Ok("new"), "round {round}");
        }

        // The next run writing into the folder (another output) cleans up.
        let next = run(
            &["dedup", "../tiny.txt", "-q", "--stats", "stats.json", "--spill-dir", "../spill"],
            None,
            &out,
        );
        assert!(next.status.success(), "{}", stderr(&next));
        assert!(temporary_files(&out).is_empty(), "round {round}: {:?}", temporary_files(&out));
        assert!(temporary_files(&spill).is_empty(), "round {round}: {:?}", temporary_files(&spill));
        let after = state(&out, &new);
        assert!(after.is_ok(), "round {round}: a mix after the next run: {}", after.unwrap_err());
        if before.is_ok() {
            assert_eq!(before, after, "round {round}");
        }
    }
    eprintln!(
        "a run took {length:?}; interrupted by SIGKILL {}, by SIGTERM {}",
        interrupted[0], interrupted[1]
    );
    assert!(interrupted[0] > 0 && interrupted[1] > 0, "no kill landed mid-run: {interrupted:?}");
}
