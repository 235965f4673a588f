//! `lookalike index`: the same answers as `lookalike dedup`, however the corpus is cut
//! into batches; refusals; query, remove, verify; and SIGKILL at random points of `index add`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

use crate::common::*;

/// A corpus of near duplicates at many distances, exact copies (same bytes, and same text in
/// capitals), an empty document and a repeated id.
fn corpus(dir: &Path, n: u64) {
    let mut s = String::new();
    let mut texts: Vec<String> = Vec::new();
    for i in 0..n {
        let text = match i % 10 {
            _ if i < 5 => words(i, 80 + i as usize * 7),
            0..=3 => words(i, 60 + (i % 90) as usize),
            4 => edit(&texts[(i as usize * 7) % texts.len()], 40),
            5 => edit(&texts[(i as usize * 3) % texts.len()], 12),
            6 => edit(&texts[i as usize - 1], 6),
            7 => texts[(i as usize * 5) % texts.len()].clone(),
            8 => texts[(i as usize * 11) % texts.len()].to_uppercase(),
            _ if i == 19 => String::new(),
            _ => edit(&texts[(i as usize * 13) % texts.len()], 25),
        };
        let id = if i == 33 { "doc3".to_owned() } else { format!("doc{i}") };
        s.push_str(&format!("{}\n", serde_json::json!({"id": id, "text": text})));
        texts.push(text);
    }
    write(dir, "corpus.jsonl", s.as_bytes());
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "exit {:?}\nstdout {}\nstderr {}", o.status, stdout(o), stderr(o));
}

/// (id, status, of, similarity, match, reason) of report lines.
fn fates(jsonl: &str) -> Vec<String> {
    jsonl
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{} {} {} {} {} {}",
                v["id"], v["status"], v["of"], v["similarity"], v["match"], v["reason"]
            )
        })
        .collect()
}

/// The pairs the add reports imply: each document with every match, earlier first.
fn matched_pairs(jsonl: &str) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for l in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        for m in v["matches"].as_array().into_iter().flatten() {
            out.insert((
                m["id"].as_str().unwrap().to_owned(),
                v["id"].as_str().unwrap().to_owned(),
                format!("{:.6}", m["similarity"].as_f64().unwrap()),
            ));
        }
    }
    out
}

fn tsv_pairs(tsv: &str) -> BTreeSet<(String, String, String)> {
    tsv.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_owned(), f[1].to_owned(), f[2].to_owned())
        })
        .collect()
}

#[test]
fn index_add_in_one_or_ten_batches_gives_dedups_fates_pairs_and_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d, 400);
    let methods: [&[&str]; 3] = [
        &["--method", "minhash", "-t", "0.8"],
        &["--method", "simhash", "-t", "0.7", "--max-distance", "auto"],
        &["--method", "partitioned", "-t", "0.6"],
    ];
    for (m, opts) in methods.iter().enumerate() {
        let mut args = vec!["dedup", "corpus.jsonl", "-q", "--report", "rep.jsonl"];
        args.extend(["--pairs", "pairs.tsv", "--clusters", "clusters.jsonl"]);
        args.extend_from_slice(opts);
        ok(&run(&args, None, d));
        let report = std::fs::read_to_string(d.join("rep.jsonl")).unwrap();
        let pairs = std::fs::read_to_string(d.join("pairs.tsv")).unwrap();
        let clusters = std::fs::read_to_string(d.join("clusters.jsonl")).unwrap();
        let want = fates(&report);
        assert!(want.iter().filter(|f| f.contains("\"duplicate\"")).count() > 60, "{opts:?}");
        assert!(want.iter().any(|f| f.contains("\"skipped\"")));
        for batch in ["400", "40"] {
            let idx = format!("idx{m}-{batch}");
            let mut create = vec!["index", "create", idx.as_str()];
            create.extend_from_slice(opts);
            ok(&run(&create, None, d));
            let added = run(&["index", "add", &idx, "corpus.jsonl", "--batch", batch], None, d);
            ok(&added);
            let got = stdout(&added);
            assert_eq!(fates(&got), want, "{opts:?}, batches of {batch}");
            let want_pairs = tsv_pairs(&pairs);
            let got_pairs = matched_pairs(&got);
            assert_eq!(got_pairs, want_pairs, "{opts:?}, batches of {batch}");
            let e = run(
                &["index", "export", &idx, "--pairs", "ep.tsv", "--clusters", "ec.jsonl"],
                None,
                d,
            );
            ok(&e);
            assert_eq!(std::fs::read_to_string(d.join("ep.tsv")).unwrap(), pairs, "{opts:?}");
            assert_eq!(std::fs::read_to_string(d.join("ec.jsonl")).unwrap(), clusters, "{opts:?}");
            ok(&run(&["index", "verify", &idx], None, d));
        }
    }
}

#[test]
fn index_refuses_other_settings_and_collection_statistics_methods() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d, 20);
    ok(&run(&["index", "create", "idx", "-t", "0.8"], None, d));
    let o =
        run(&["index", "add", "idx", "corpus.jsonl", "--threshold", "0.9", "--seed", "3"], None, d);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("threshold: index 0.8, given 0.9") && e.contains("seed: index 1, given 3"),
        "{e}"
    );
    let o = run(&["index", "create", "idx"], None, d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    // The methods an index cannot hold are not offered.
    let o = run(&["index", "create", "lex", "--method", "i-match"], None, d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("possible values: minhash, simhash, partitioned"),
        "{}",
        stderr(&o)
    );
    let o = run(&["index", "stats", "nothing-here"], None, d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no index here"), "{}", stderr(&o));
}

/// Regression: `extract`, `index add` and `index query` exited 0 when nothing
/// could be read, and `index verify` exited 2 (a usage error) for a damaged index where its help
/// promises 1.
#[test]
fn nothing_read_fails_and_a_damaged_index_fails_verify_with_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&run(&["index", "create", "idx"], None, d));
    std::fs::write(d.join("broken.jsonl"), "{not json\n{\"id\": 1}\n").unwrap();
    for args in [
        &["extract", "broken.jsonl"][..],
        &["index", "add", "idx", "broken.jsonl"],
        &["index", "query", "idx", "broken.jsonl"],
    ] {
        let o = run(args, None, d);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("no document could be read"), "{args:?}: {}", stderr(&o));
    }
    // The index file cut to nothing: damaged, not a usage error.
    let db = std::fs::read_dir(d.join("idx")).unwrap().next().unwrap().unwrap().path();
    std::fs::write(&db, b"").unwrap();
    let o = run(&["index", "verify", "idx"], None, d);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("damaged"), "{}", stderr(&o));
    let o = run(&["index", "verify", "no-such-index"], None, d);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn index_query_inserts_nothing_and_remove_keeps_verify_passing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d, 60);
    ok(&run(&["index", "create", "idx"], None, d));
    ok(&run(&["index", "add", "idx", "corpus.jsonl"], None, d));
    let stats = |d: &Path| -> serde_json::Value {
        let o = run(&["index", "stats", "idx"], None, d);
        ok(&o);
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let before = stats(d)["documents"].as_u64().unwrap();
    assert_eq!(before, 59, "60 records, one empty");
    let q = run(&["index", "query", "idx", "corpus.jsonl"], None, d);
    ok(&q);
    for l in stdout(&q).lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        if v["status"] != "skipped" {
            // Every document held finds itself.
            let me = v["matches"].as_array().unwrap().iter().any(|m| m["id"] == v["id"]);
            assert!(me, "{l}");
            assert_eq!(v["inserted"], false);
        }
    }
    assert_eq!(stats(d)["documents"].as_u64().unwrap(), before);
    ok(&run(&["index", "remove", "idx", "doc0", "doc7", "doc17"], None, d));
    assert_eq!(stats(d)["documents"].as_u64().unwrap(), before - 3);
    let v = run(&["index", "verify", "idx"], None, d);
    ok(&v);
    assert!(stderr(&v).contains("index sound"), "{}", stderr(&v));
}

/// Which corpus ids `idx` holds: each document queried finds itself when it is there.
fn held(d: &Path, idx: &str) -> BTreeSet<String> {
    let q = run(&["index", "query", idx, "kill.jsonl"], None, d);
    ok(&q);
    stdout(&q)
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let id = v["id"].as_str().unwrap().to_owned();
            v["matches"].as_array().unwrap().iter().any(|m| m["id"] == v["id"]).then_some(id)
        })
        .collect()
}

#[test]
fn index_add_killed_with_sigkill_keeps_acknowledged_batches_and_no_half_batch() {
    const BATCH: usize = 50;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut s = String::new();
    for i in 0..1000u64 {
        let text = if i % 4 == 3 { edit(&words(i - 1, 200), 30) } else { words(i, 200) };
        s.push_str(&format!("{}\n", serde_json::json!({"id": format!("k{i}"), "text": text})));
    }
    write(d, "kill.jsonl", s.as_bytes());
    let batch_of: BTreeMap<String, usize> =
        (0..1000).map(|i| (format!("k{i}"), i / BATCH)).collect();
    // How long a whole run takes here, to spread the kills over it.
    ok(&run(&["index", "create", "full"], None, d));
    let t = Instant::now();
    ok(&run(&["index", "add", "full", "kill.jsonl", "--batch", "50", "-q"], None, d));
    let full = t.elapsed();
    let mut rng = Rng(15);
    let mut mid_run = 0;
    for round in 0..6 {
        let idx = format!("idx{round}");
        ok(&run(&["index", "create", &idx], None, d));
        let mut child = lookalike()
            .args(["index", "add", &idx, "kill.jsonl", "--batch", "50", "-q"])
            .current_dir(d)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The lines printed (each after its batch's commit) are the acknowledged documents.
        let out = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut acked = Vec::new();
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) {
                    acked.push(v["id"].as_str().unwrap().to_owned());
                }
            }
            acked
        });
        let delay = full.mul_f64(0.05 + 0.9 * rng.next_f64());
        std::thread::sleep(delay);
        let finished = child.try_wait().unwrap().is_some();
        child.kill().unwrap();
        child.wait().unwrap();
        let acked = reader.join().unwrap();
        if !finished && acked.len() < 1000 {
            mid_run += 1;
        }
        let held = held(d, &idx);
        for id in &acked {
            assert!(held.contains(id), "round {round}: acknowledged {id} is not in the index");
        }
        let mut per_batch: BTreeMap<usize, usize> = BTreeMap::new();
        for id in &held {
            *per_batch.entry(batch_of[id]).or_default() += 1;
        }
        for (b, n) in per_batch {
            assert_eq!(n, BATCH, "round {round}: batch {b} is half there ({n} of {BATCH})");
        }
        ok(&run(&["index", "verify", &idx], None, d));
        // The index takes the rest after the crash.
        ok(&run(&["index", "add", &idx, "kill.jsonl", "--batch", "200", "-q"], None, d));
        assert_eq!(held_count(d, &idx), 1000);
        ok(&run(&["index", "verify", &idx], None, d));
    }
    assert!(mid_run >= 3, "too few kills landed mid-run ({mid_run} of 6)");
}

fn held_count(d: &Path, idx: &str) -> u64 {
    let o = run(&["index", "stats", idx], None, d);
    ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    v["documents"].as_u64().unwrap()
}

/// Regression: `index stats`, `query`, `verify` and `export` changed the
/// database file, and `verify` turned a 0-byte file into an empty index. They open the index
/// read-only: the file's bytes and modification time stay as they were, and an empty file is
/// refused by every command, not made an index.
#[test]
fn read_only_commands_leave_the_index_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d, 60);
    ok(&run(&["index", "create", "idx"], None, d));
    ok(&run(&["index", "add", "idx", "corpus.jsonl"], None, d));
    let db = d.join("idx/index.redb");
    // A time in the past, so that a write within the same clock tick would show too.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&db).unwrap().set_modified(past).unwrap();
    let bytes = std::fs::read(&db).unwrap();
    let read_only: [&[&str]; 4] = [
        &["index", "stats", "idx"],
        &["index", "query", "idx", "corpus.jsonl"],
        &["index", "verify", "idx"],
        &["index", "export", "idx", "--pairs", "pairs.tsv"],
    ];
    for args in read_only {
        ok(&run(args, None, d));
        assert!(std::fs::read(&db).unwrap() == bytes, "{args:?} changed the file's bytes");
        let modified = std::fs::metadata(&db).unwrap().modified().unwrap();
        assert_eq!(modified, past, "{args:?} changed the file's modification time");
    }
    std::fs::write(&db, b"").unwrap();
    for args in read_only.iter().copied().chain([&["index", "add", "idx", "corpus.jsonl"][..]]) {
        let o = run(args, None, d);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("index.redb") && e.contains("the file is empty"), "{args:?}: {e}");
        assert_eq!(std::fs::metadata(&db).unwrap().len(), 0, "{args:?} wrote to the empty file");
    }
}

/// Regression: one flipped bit of the index file made `index query`,
/// `verify`, `add` and `export` panic inside the storage engine (exit 101).
#[test]
fn a_damaged_index_is_refused_or_answered_right_never_a_panic() {
    damaged_index_rounds(40, 33);
}

/// [`a_damaged_index_is_refused_or_answered_right_never_a_panic`] with many more rounds.
#[test]
#[ignore = "long: 300 rounds of every index command"]
fn a_damaged_index_is_refused_or_answered_right_in_300_rounds() {
    damaged_index_rounds(300, 3303);
}

/// Flips random bits and bytes of an index (`rounds` rounds, seeded: the same damage on every
/// run) and runs every index command on each damaged copy: each either refuses the index (exit 1,
/// a message naming its file, no panic) or answers exactly as on the undamaged index.
fn damaged_index_rounds(rounds: usize, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d, 80);
    // Near and exact copies of indexed documents, and new ones: `add` looks up every table.
    let mut more = String::new();
    for i in 0..12u64 {
        let text = match i % 3 {
            0 => edit(&words(i, 80 + i as usize * 7), 30),
            1 => words(i, 80 + i as usize * 7),
            _ => words(1000 + i, 90),
        };
        more.push_str(&format!(
            "{}\n",
            serde_json::json!({"id": format!("more{i}"), "text": text})
        ));
    }
    write(d, "more.jsonl", more.as_bytes());
    ok(&run(&["index", "create", "good"], None, d));
    ok(&run(&["index", "add", "good", "corpus.jsonl", "--batch", "20", "-q"], None, d));
    let good = std::fs::read(d.join("good/index.redb")).unwrap();
    let commands: [&[&str]; 5] = [
        &["index", "query", "idx", "corpus.jsonl"],
        &["index", "stats", "idx"],
        &["index", "verify", "idx"],
        &["index", "export", "idx", "--pairs", "-"],
        &["index", "add", "idx", "more.jsonl"],
    ];
    let place = |image: &[u8]| {
        let _ = std::fs::remove_dir_all(d.join("idx"));
        std::fs::create_dir(d.join("idx")).unwrap();
        std::fs::write(d.join("idx/index.redb"), image).unwrap();
    };
    let answers: Vec<String> = commands
        .iter()
        .map(|args| {
            place(&good);
            let o = run(args, None, d);
            ok(&o);
            stdout(&o)
        })
        .collect();
    let mut rng = Rng(seed);
    let (mut refused, mut answered) = (0, 0);
    for round in 0..rounds {
        let mut image = good.clone();
        let flips = [1, 1, 2, 8][(rng.next_f64() * 4.0) as usize];
        let mut at = Vec::new();
        for _ in 0..flips {
            let i = (rng.next_f64() * image.len() as f64) as usize;
            if rng.next_f64() < 0.5 {
                image[i] ^= 1 << (rng.next_f64() * 8.0) as u32;
            } else {
                image[i] = (rng.next_f64() * 256.0) as u8;
            }
            at.push(i);
        }
        for (args, answer) in commands.iter().zip(&answers) {
            place(&image);
            let o = run(args, None, d);
            let (code, e) = (o.status.code(), stderr(&o));
            let what = format!("round {round}, bytes {at:?}, {args:?}: exit {code:?}\n{e}");
            assert!(!e.contains("panicked") && code != Some(101), "a panic: {what}");
            if code == Some(0) {
                assert!(stdout(&o) == *answer, "a wrong answer: {what}");
                answered += 1;
            } else {
                assert_eq!(code, Some(1), "{what}");
                assert!(e.contains("idx/index.redb") && e.contains("damaged"), "unclear: {what}");
                refused += 1;
            }
        }
    }
    // The damage reached the data (refusals) and missed it (answers) in some rounds each.
    assert!(refused > 0 && answered > 0, "{refused} refused, {answered} answered");
}

/// Regression: while `serve` held the index, `index verify`, `add` and
/// `stats` failed with the store's "Database already open. Cannot acquire lock."; they now say
/// that another process holds the index and how to inspect it, and `verify` does not call it
/// damaged.
#[test]
#[cfg(feature = "serve")]
fn an_index_held_by_serve_is_in_use_not_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d, 20);
    ok(&run(&["index", "create", "idx"], None, d));
    ok(&run(&["index", "add", "idx", "corpus.jsonl", "-q"], None, d));
    let mut serve = lookalike()
        .args(["serve", "idx", "--addr", "127.0.0.1:0"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(serve.stderr.take().unwrap()).lines();
    assert!(log.by_ref().map_while(Result::ok).any(|l| l.contains("http://")), "serve started");
    for args in [
        &["index", "verify", "idx"][..],
        &["index", "stats", "idx"],
        &["index", "query", "idx", "corpus.jsonl"],
        &["index", "add", "idx", "corpus.jsonl"],
        &["index", "remove", "idx", "doc1"],
    ] {
        let o = run(args, None, d);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(e.contains("idx/index.redb: the index is in use by another process"), "{e}");
        assert!(e.contains("GET /v1/index/stats") && !e.contains("damaged"), "{e}");
    }
    serve.kill().unwrap();
    serve.wait().unwrap();
    ok(&run(&["index", "verify", "idx"], None, d));
}

/// An index created with a template learned from the site (`--boilerplate-from`) cleans each
/// page added as `dedup` cleans the whole site: the same fates, pairs and export; without one,
/// every page of the site matches the others by their shared menu. A page checked later, alone,
/// is cleaned too.
#[test]
fn an_index_with_a_learned_site_template_answers_as_dedup() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::boilerplate::site(d, 12);
    let t = ["-t", "0.5"];
    // Without a template, the pages' visible texts match by their template.
    ok(&run(&[&["index", "create", "plain"][..], &t].concat(), None, d));
    let plain = run(&["index", "add", "plain", "site", "--extract", "text"], None, d);
    ok(&plain);
    assert!(matched_pairs(&stdout(&plain)).len() > 20, "{}", stdout(&plain));

    // With the template learned from the site itself, the index answers as dedup.
    let create =
        run(&[&["index", "create", "idx", "--boilerplate-from", "site"][..], &t].concat(), None, d);
    ok(&create);
    assert!(stderr(&create).contains("site template learned from 13 pages"), "{}", stderr(&create));
    let mut pairs = String::new();
    for extract in ["text", "main"] {
        let x = ["--extract", extract];
        let dedup = ["dedup", "site", "--report", "rep.jsonl", "--pairs", "pairs.tsv"];
        ok(&run(&[&dedup[..], &t, &x].concat(), None, d));
        let report = std::fs::read_to_string(d.join("rep.jsonl")).unwrap();
        pairs = std::fs::read_to_string(d.join("pairs.tsv")).unwrap();
        assert_eq!(pairs.lines().count(), 1, "{pairs}");
        let idx = format!("idx-{extract}");
        std::fs::create_dir(d.join(&idx)).unwrap();
        for f in std::fs::read_dir(d.join("idx")).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, d.join(&idx).join(f.file_name().unwrap())).unwrap();
        }
        let added =
            run(&[&["index", "add", &idx, "site", "--batch", "5"][..], &x].concat(), None, d);
        ok(&added);
        let got = stdout(&added);
        assert_eq!(fates(&got), fates(&report), "--extract {extract}");
        assert_eq!(matched_pairs(&got), tsv_pairs(&pairs), "--extract {extract}");
        assert!(got.lines().all(|l| l.contains("\"boilerplate\":{")), "{got}");
    }
    ok(&run(&["index", "add", "idx", "site"], None, d));
    ok(&run(&["index", "export", "idx", "--pairs", "ep.tsv"], None, d));
    assert_eq!(std::fs::read_to_string(d.join("ep.tsv")).unwrap(), pairs);
    ok(&run(&["index", "verify", "idx"], None, d));
    let stats = run(&["index", "stats", "idx"], None, d);
    ok(&stats);
    let v: serde_json::Value = serde_json::from_str(&stdout(&stats)).unwrap();
    assert_eq!((v["format"].as_u64(), v["template"]["mode"].as_str()), (Some(3), Some("auto")));
    assert!(v["template"]["template_blocks"].as_u64().unwrap() >= 40, "{v}");
    let stats = run(&["index", "stats", "plain"], None, d);
    assert!(!stdout(&stats).contains("template"), "{}", stdout(&stats));

    // A new page of the site, in another order and alone, finds only its own copy.
    let page = std::fs::read(d.join("site/p05.html")).unwrap();
    write(d, "site/new/p05-again.html", &page);
    let q = run(&["index", "query", "idx", "site/new/p05-again.html"], None, d);
    ok(&q);
    let v: serde_json::Value = serde_json::from_str(stdout(&q).trim()).unwrap();
    let matched: Vec<&str> =
        v["matches"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(matched, ["site/p05.html"], "{v}");

    // Refusals: nothing to learn, or no page in the sample.
    let o = run(
        &["index", "create", "x", "--boilerplate-from", "site", "--boilerplate", "off"],
        None,
        d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    write(d, "texts/a.txt", b"only text here");
    let o = run(&["index", "create", "y", "--boilerplate-from", "texts"], None, d);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("none of its 1 records is a page"), "{}", stderr(&o));
    assert!(!d.join("y").join("index.redb").exists());
}
