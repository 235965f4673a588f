//! End-to-end tests of the `lookalike-bench` binary: gen-corpus → truth → score, and baseline,
//! on a small synthetic source written by the test itself.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lookalike_bench::rng::Rng;

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("lookalike-bench-it-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes HTML pages of pseudo-words drawn from `alphabet` (a script the language filter
/// accepts), 40 paragraphs of 20–60 words per page.
fn write_source(dir: &Path, alphabet: &[char], seed: u64) {
    std::fs::create_dir_all(dir).unwrap();
    let mut rng = Rng::new(seed);
    for page in 0..8 {
        let mut html = String::from("<html><head><title>t</title></head><body>");
        for _ in 0..40 {
            html.push_str("<p>");
            for _ in 0..rng.range_incl(20, 60) {
                let len = rng.range_incl(2, 8);
                let word: String = (0..len).map(|_| alphabet[rng.index(alphabet.len())]).collect();
                html.push_str(&word);
                html.push(' ');
            }
            html.push_str("</p>\n");
        }
        html.push_str("</body></html>");
        std::fs::write(dir.join(format!("page{page}.html")), html).unwrap();
    }
}

fn eval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lookalike-bench")).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = eval(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn generate_truth_score_and_baseline() {
    let s = Scratch::new("e2e");
    write_source(&s.path("en"), &"abcdefghijklmnopqrstuvwxyz".chars().collect::<Vec<_>>(), 1);
    write_source(&s.path("ru"), &"абвгдежзийклмнопрстуфхцчшщыэюя".chars().collect::<Vec<_>>(), 2);
    let (en, ru) = (format!("en={}", s.arg("en")), format!("ru={}", s.arg("ru")));
    let generate = |out: &str, planted: &str, threads: &str| {
        let args = [
            "--threads",
            threads,
            "gen-corpus",
            "--source",
            &en,
            &ru,
            "--docs",
            "400",
            "--min-words",
            "40",
            "--max-words",
            "300",
            "--out",
            out,
            "--planted",
            planted,
        ];
        ok(&args);
    };
    generate(&s.arg("c.jsonl"), &s.arg("p.tsv"), "1");
    generate(&s.arg("c2.jsonl"), &s.arg("p2.tsv"), "2");
    let corpus = std::fs::read(s.path("c.jsonl")).unwrap();
    assert_eq!(corpus, std::fs::read(s.path("c2.jsonl")).unwrap(), "same arguments, same bytes");
    assert_eq!(std::fs::read(s.path("p.tsv")).unwrap(), std::fs::read(s.path("p2.tsv")).unwrap());
    assert_eq!(corpus.iter().filter(|&&b| b == b'\n').count(), 400);

    let (c, t) = (s.arg("c.jsonl"), s.arg("t.tsv"));
    ok(&["truth", "--corpus", &c, "--threshold", "0.5", "--out", &t]);
    ok(&[
        "--threads",
        "1",
        "truth",
        "--corpus",
        &c,
        "--threshold",
        "0.5",
        "--out",
        &s.arg("t1.tsv"),
    ]);
    let truth = std::fs::read_to_string(&t).unwrap();
    assert_eq!(truth, std::fs::read_to_string(s.path("t1.tsv")).unwrap(), "any thread count");
    let pairs: Vec<(&str, &str, f64)> = truth
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0], f[1], f[2].parse().unwrap())
        })
        .collect();
    assert!(pairs.len() > 20, "{} truth pairs", pairs.len());
    assert!(pairs.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)), "sorted, unique");

    // The truth at 0.8, written as a run's pairs, scores perfectly.
    let found: String =
        pairs.iter().filter(|p| p.2 >= 0.8).map(|(a, b, j)| format!("{b}\t{a}\t{j}\n")).collect();
    std::fs::write(s.path("found.tsv"), found).unwrap();
    let f = s.arg("found.tsv");
    let p = s.arg("p.tsv");
    let score = json(&ok(&["score", "--pairs", &f, "--truth", &t, "--planted", &p, "--json"]));
    assert_eq!(score["precision"], 1.0);
    assert_eq!(score["recall"], 1.0);
    assert_eq!(score["false_negatives"], 0);
    assert!(score["planted"].as_array().unwrap().iter().any(|k| k["kind"] == "exact"));

    // Nothing found: recall 0, precision undefined.
    std::fs::write(s.path("none.tsv"), "").unwrap();
    let score = json(&ok(&["score", "--pairs", &s.arg("none.tsv"), "--truth", &t, "--json"]));
    assert_eq!(score["recall"], 0.0);
    assert!(score["precision"].is_null());

    // A truth computed at 0.5 cannot score 0.4.
    let out = eval(&["score", "--pairs", &f, "--truth", &t, "--threshold", "0.4"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("threshold"));

    let base = json(&ok(&["baseline", "--corpus", &c, "--json"]));
    assert_eq!(base["docs"], 400);
    assert!(base["words"].as_u64().unwrap() > 400 * 40);
}

#[test]
fn bad_usage_exits_2_and_bad_input_1() {
    let out = eval(&["gen-corpus", "--docs", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let s = Scratch::new("bad");
    std::fs::write(s.path("c.jsonl"), "{\"id\": \"a\"}\n").unwrap();
    let out = eval(&["truth", "--corpus", &s.arg("c.jsonl"), "--out", &s.arg("t.tsv")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
    assert!(!s.path("t.tsv").exists());
}
