//! `lang-bench`: how fast and how right lookalike's language detection is, against whatlang
//! alone, on corpora whose documents carry their language (`lookalike-bench gen-corpus` writes
//! `{"id", "lang", "text"}` lines, the language taken from the source folder).
//!
//! For each document both [`lookalike::text::lang::detect`] (the quick pass, whatlang when it
//! is unsure) and [`lookalike::text::lang::detect_whatlang`] run; the report gives, per
//! language, how often each is right, how often the quick pass answered alone, and where the
//! two disagree; and the time per document of each, measured in the same run on one thread.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use lookalike::text::lang::{self, Detected};

/// Command-line arguments of `lang-bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct LangBenchArgs {
    /// JSONL corpora with `lang` and `text` fields (e.g. written by `gen-corpus`).
    #[arg(required = true, value_name = "JSONL")]
    pub corpora: Vec<PathBuf>,
    /// Read at most this many documents of each corpus.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Timing rounds (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Print (to stderr) the start of up to this many documents where the two answers differ.
    #[arg(long, default_value_t = 0)]
    pub show: usize,
    /// Print (to stderr) the start of up to this many documents the quick pass leaves to
    /// whatlang, with whatlang's answer: the cases that cost the most time.
    #[arg(long, default_value_t = 0)]
    pub show_unsure: usize,
    /// Also time whatlang alone on the first 64, 256, 1024 and 2048 bytes of each document: how
    /// much of its cost is per call rather than per byte.
    #[arg(long)]
    pub prefix_sweep: bool,
    /// Documents per round of folder votes (`dedup` seals its votes after each batch of its
    /// reader: 4,096 records or 8 MiB); smaller rounds let the votes answer more of a small
    /// corpus.
    #[arg(long, default_value_t = READ_BATCH)]
    pub votes_batch: usize,
}

/// One document: its id, known language and text.
struct Doc {
    id: String,
    lang: String,
    text: String,
}

/// Per-language counts.
#[derive(Default)]
struct Tally {
    docs: usize,
    detect_right: usize,
    whatlang_right: usize,
    quick_answered: usize,
    /// Right with folder votes (`dedup`'s answer).
    folder_right: usize,
    /// Answers folder votes changed (left by the quick pass, answered by the folder's votes
    /// otherwise than by whatlang).
    folder_changed: usize,
    disagree: usize,
    /// What `detect` said when it was wrong: answer → count.
    detect_wrong: BTreeMap<String, usize>,
    /// What whatlang said when it was wrong.
    whatlang_wrong: BTreeMap<String, usize>,
}

/// The known language as `detect` reports it (`gen-corpus` labels: `zh-cn`, `pt-br` → `zh`, `pt`).
fn base_code(label: &str) -> &str {
    label.split(['-', '_']).next().unwrap_or(label)
}

/// The first `bytes` bytes of `text` (all of it when shorter), cut at a character boundary.
fn head(text: &str, bytes: usize) -> &str {
    let mut end = text.len().min(bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Documents per round of folder votes: the records of a batch of `dedup`'s reader
/// (`BatchLimits::default`, whose byte limit cuts batches of long texts sooner).
const READ_BATCH: usize = 4096;

/// Runs the benchmark and returns its Markdown report.
pub fn run(args: &LangBenchArgs) -> Result<String> {
    let mut docs = Vec::new();
    for path in &args.corpora {
        let file = fs_err::File::open(path)?;
        let reader = std::io::BufReader::new(file);
        for (n, line) in reader.lines().enumerate() {
            if args.limit.is_some_and(|l| n >= l) {
                break;
            }
            let line = line.with_context(|| format!("{}: line {}", path.display(), n + 1))?;
            let v: serde_json::Value = serde_json::from_str(&line)
                .with_context(|| format!("{}: line {} is not JSON", path.display(), n + 1))?;
            let (Some(lang), Some(text)) = (v["lang"].as_str(), v["text"].as_str()) else {
                anyhow::bail!("{}: line {} lacks `lang` or `text`", path.display(), n + 1);
            };
            let id = v["id"].as_str().unwrap_or_default().to_owned();
            docs.push(Doc { id, lang: lang.to_owned(), text: text.to_owned() });
        }
    }
    // The fastest of the rounds of `f` over every document's first `bytes` bytes.
    let time = |f: fn(&str) -> Option<Detected>, bytes: usize| {
        (0..args.rounds.max(1))
            .map(|_| {
                let start = Instant::now();
                let mut found = 0usize;
                for d in &docs {
                    found += usize::from(f(head(&d.text, bytes)).is_some());
                }
                std::hint::black_box(found);
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let t_whatlang = time(lang::detect_whatlang, usize::MAX);
    let t_detect = time(lang::detect, usize::MAX);
    let t_quick = time(lang::detect_quick, usize::MAX);
    // whatlang on shorter prefixes: how much of its cost is per call.
    let sweep: Vec<(usize, f64)> = if args.prefix_sweep {
        [64, 256, 1024, lang::DETECT_PREFIX]
            .into_iter()
            .map(|bytes| (bytes, time(lang::detect_whatlang, bytes)))
            .collect()
    } else {
        Vec::new()
    };

    // What `dedup` answers: folder votes, sealed after each batch of its reader.
    let votes = lang::DetectCache::with_folder_votes();
    let mut with_votes = Vec::with_capacity(docs.len());
    for batch in docs.chunks(args.votes_batch.max(1)) {
        with_votes.extend(
            batch.iter().map(|d| votes.detect_in(&d.text, lang::folder_of(&d.id)).map(|l| l.code)),
        );
        votes.seal();
    }
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut shown, mut shown_unsure) = (0, 0);
    // Quick answers of the lean rule (prose among code: `reliable` false).
    let mut lean = 0usize;
    let start_of = |text: &str| head(text, lang::DETECT_PREFIX).to_owned();
    for (d, &voted) in docs.iter().zip(&with_votes) {
        let truth = base_code(&d.lang);
        let ours = lang::detect(&d.text).map(|l| l.code);
        let theirs = lang::detect_whatlang(&d.text).map(|l| l.code);
        let t = tallies.entry(truth.to_owned()).or_default();
        t.docs += 1;
        let quick = lang::detect_quick(&d.text);
        let answered = quick.is_some();
        t.quick_answered += usize::from(answered);
        t.folder_right += usize::from(voted == Some(truth));
        t.folder_changed += usize::from(voted != ours);
        lean += usize::from(quick.is_some_and(|q| !q.reliable));
        if !answered && shown_unsure < args.show_unsure {
            shown_unsure += 1;
            eprintln!("== unsure: label {} whatlang {:?}\n{}\n", d.lang, theirs, start_of(&d.text));
        }
        if ours != theirs {
            t.disagree += 1;
            if shown < args.show {
                shown += 1;
                eprintln!(
                    "== label {} detect {:?} whatlang {:?}\n{}\n",
                    d.lang,
                    ours,
                    theirs,
                    start_of(&d.text)
                );
            }
        }
        if ours == Some(truth) {
            t.detect_right += 1;
        } else {
            *t.detect_wrong.entry(ours.unwrap_or("none").to_owned()).or_default() += 1;
        }
        if theirs == Some(truth) {
            t.whatlang_right += 1;
        } else {
            *t.whatlang_wrong.entry(theirs.unwrap_or("none").to_owned()).or_default() += 1;
        }
    }

    let n = docs.len().max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(out, "documents: {}\n", docs.len());
    let _ = writeln!(out, "| detector | µs per document | ÷ whatlang |\n|---|---|---|");
    for (name, t) in [
        ("whatlang alone (`detect_whatlang`)", t_whatlang),
        ("quick pass, whatlang when unsure (`detect`)", t_detect),
        ("quick pass alone (`detect_quick`, None when unsure)", t_quick),
    ] {
        let _ = writeln!(out, "| {name} | {:.2} | {:.3} |", t * 1e6 / n, t / t_whatlang);
    }
    for (bytes, t) in &sweep {
        let _ = writeln!(
            out,
            "| whatlang alone on the first {bytes} bytes | {:.2} | {:.3} |",
            t * 1e6 / n,
            t / t_whatlang
        );
    }
    let _ = writeln!(
        out,
        "\n| language | docs | `detect` right | whatlang right | quick pass answered | answers differ | with folder votes (`dedup`): right | changed by them | `detect` wrong as | whatlang wrong as |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut total = Tally::default();
    let show = |m: &BTreeMap<String, usize>| {
        m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    };
    for (code, t) in &tallies {
        let pct = |x: usize| 100.0 * x as f64 / t.docs as f64;
        let _ = writeln!(
            out,
            "| {code} | {} | {:.1}% | {:.1}% | {:.1}% | {} | {:.1}% | {} | {} | {} |",
            t.docs,
            pct(t.detect_right),
            pct(t.whatlang_right),
            pct(t.quick_answered),
            t.disagree,
            pct(t.folder_right),
            t.folder_changed,
            show(&t.detect_wrong),
            show(&t.whatlang_wrong)
        );
        total.docs += t.docs;
        total.detect_right += t.detect_right;
        total.whatlang_right += t.whatlang_right;
        total.quick_answered += t.quick_answered;
        total.disagree += t.disagree;
        total.folder_right += t.folder_right;
        total.folder_changed += t.folder_changed;
    }
    let pct = |x: usize| 100.0 * x as f64 / total.docs.max(1) as f64;
    let _ = writeln!(
        out,
        "| **all** | {} | {:.2}% | {:.2}% | {:.1}% | {} | {:.2}% | {} | | |",
        total.docs,
        pct(total.detect_right),
        pct(total.whatlang_right),
        pct(total.quick_answered),
        total.disagree,
        pct(total.folder_right),
        total.folder_changed
    );
    let _ = writeln!(
        out,
        "\nQuick answers given by the lean rule (Latin prose among code, `reliable` false): {lean} \
         of {}.",
        total.docs
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A labelled corpus of `lines` written in `dir`.
    fn corpus(dir: &tempfile::TempDir, lines: &[serde_json::Value]) -> std::path::PathBuf {
        let path = dir.path().join("c.jsonl");
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, body).unwrap();
        path
    }

    /// One round over `path`, nothing shown.
    fn args(path: &std::path::Path, prefix_sweep: bool, votes_batch: usize) -> LangBenchArgs {
        LangBenchArgs {
            corpora: vec![path.to_owned()],
            limit: None,
            rounds: 1,
            show: 0,
            show_unsure: 0,
            prefix_sweep,
            votes_batch,
        }
    }

    #[test]
    fn labels_of_regional_variants_compare_as_their_language() {
        assert_eq!(base_code("zh-cn"), "zh");
        assert_eq!(base_code("pt_BR"), "pt");
        assert_eq!(base_code("uk"), "uk");
    }

    #[test]
    fn report_counts_right_and_wrong_answers_per_language() {
        let dir = tempfile::tempdir().unwrap();
        let en = "The committee will meet again next week, and the members have said that they \
                  would like to discuss the budget before the end of the year.";
        // Labelled German but English: both detectors are wrong on it.
        let path = corpus(
            &dir,
            &[
                serde_json::json!({"id": "a", "lang": "en", "text": en}),
                serde_json::json!({"id": "b", "lang": "de", "text": en}),
            ],
        );
        let report = run(&args(&path, true, READ_BATCH)).unwrap();
        assert!(report.contains("documents: 2"), "{report}");
        let de = "| de | 1 | 0.0% | 0.0% | 100.0% | 0 | 0.0% | 0 | en 1 | en 1 |";
        assert!(report.contains(de), "{report}");
        let en = "| en | 1 | 100.0% | 100.0% | 100.0% | 0 | 100.0% | 0 |  |  |";
        assert!(report.contains(en), "{report}");
        for bytes in [64, 256, 1024, 2048] {
            assert!(report.contains(&format!("whatlang alone on the first {bytes} bytes")));
        }
        // Plain English prose: the strict rule's, not the lean rule's.
        assert!(report.contains("lean rule (Latin prose among code, `reliable` false): 0 of 2."));
    }

    #[test]
    fn folder_votes_of_earlier_rounds_answer_what_the_quick_pass_leaves() {
        let dir = tempfile::tempdir().unwrap();
        let en = "The committee will meet again next week, and the members have said that they \
                  would like to discuss the budget before the end of the year.";
        // An API reference line (the quick pass leaves it; whatlang does not call it English).
        let api = "const MSG_CMSG_CLOEXEC = $40000000; MSG_DONTWAIT = $40; MSG_ERRQUEUE = $2000; \
                   MSG_NOSIGNAL = $4000; MSG_OOB = $01; MSG_PEEK = $02; MSG_TRUNC = $20; \
                   MSG_WAITALL = $100; fpaccept fpbind fpconnect fpgetpeername fpgetsockname";
        assert!(lang::detect_quick(api).is_none());
        assert_ne!(lang::detect(api).map(|d| d.code), Some("en"));
        let mut lines: Vec<_> = (0..8)
            .map(|i| serde_json::json!({"id": format!("https://a.org/guide/{i}"), "lang": "en", "text": en}))
            .collect();
        lines.push(serde_json::json!({"id": "https://a.org/api/x", "lang": "en", "text": api}));
        let path = corpus(&dir, &lines);
        // Rounds of eight: the guide's answers settle the site before the API page is read.
        let report = run(&args(&path, false, 8)).unwrap();
        assert!(report.contains("| en | 9 | 88.9% | 88.9% | 88.9% | 0 | 100.0% | 1 |"), "{report}");
        // One round: the votes come too late for it.
        let report = run(&args(&path, false, READ_BATCH)).unwrap();
        assert!(report.contains("| en | 9 | 88.9% | 88.9% | 88.9% | 0 | 88.9% | 0 |"), "{report}");
    }
}
