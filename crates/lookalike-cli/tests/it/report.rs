//! The HTML report (`dedup --html`, `dedup --run` + `report --run`, `compare --html`): parsed back
//! with html5ever's tokenizer and checked for well-formedness, escaping, the run's numbers, the
//! diffs of hand-made pairs, its size cap and its determinism.

use std::cell::RefCell;
use std::path::Path;
use std::process::Output;

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use serde_json::Value;

use crate::common::*;

/// A token of the page, as the checks need it.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Start { name: String, attrs: Vec<(String, String)>, self_closing: bool },
    End(String),
    Text(String),
    Error(String),
}

#[derive(Default)]
struct Collect(RefCell<Vec<Tok>>);

impl TokenSink for Collect {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut toks = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => {
                let name = tag.name.to_string();
                if tag.kind == TagKind::StartTag {
                    let attrs = tag
                        .attrs
                        .iter()
                        .map(|a| (a.name.local.to_string(), a.value.to_string()))
                        .collect();
                    toks.push(Tok::Start {
                        name: name.clone(),
                        attrs,
                        self_closing: tag.self_closing,
                    });
                    // What the tree builder would tell the tokenizer: script and style are raw.
                    match name.as_str() {
                        "script" => return TokenSinkResult::RawData(RawKind::ScriptData),
                        "style" => return TokenSinkResult::RawData(RawKind::Rawtext),
                        _ => {}
                    }
                } else {
                    toks.push(Tok::End(name));
                }
            }
            Token::CharacterTokens(t) => match toks.last_mut() {
                Some(Tok::Text(s)) => s.push_str(&t),
                _ => toks.push(Tok::Text(t.to_string())),
            },
            Token::ParseError(e) => toks.push(Tok::Error(e.to_string())),
            Token::NullCharacterToken => toks.push(Tok::Error("NUL".into())),
            Token::CommentToken(_) | Token::DoctypeToken(_) | Token::EOFToken => {}
        }
        TokenSinkResult::Continue
    }
}

fn tokens(html: &str) -> Vec<Tok> {
    let tokenizer = Tokenizer::new(Collect::default(), TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(html));
    while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
    tokenizer.end();
    tokenizer.sink.0.take()
}

const VOID: &[&str] = &["meta", "br", "link", "img", "input", "hr", "wbr"];

/// Checks the page is well-formed: no tokenizer error, every element closed in order (void
/// elements and self-closed SVG elements aside). Returns its tokens.
fn well_formed(html: &str) -> Vec<Tok> {
    let toks = tokens(html);
    let mut stack: Vec<&str> = Vec::new();
    for t in &toks {
        match t {
            Tok::Error(e) => panic!("parse error: {e}"),
            Tok::Start { name, self_closing, .. } => {
                if !self_closing && !VOID.contains(&name.as_str()) {
                    stack.push(name);
                }
            }
            Tok::End(name) => {
                let open = stack.pop();
                assert_eq!(open, Some(name.as_str()), "</{name}> closes {open:?}; open: {stack:?}");
            }
            Tok::Text(_) => {}
        }
    }
    assert!(stack.is_empty(), "elements left open: {stack:?}");
    toks
}

/// The text inside every element that carries `attr`, by the attribute's value.
fn texts_with(toks: &[Tok], attr: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Tok::Start { attrs, .. } = t else { continue };
        let Some((_, key)) = attrs.iter().find(|(n, _)| n == attr) else { continue };
        let text = match toks.get(i + 1) {
            Some(Tok::Text(s)) => s.clone(),
            _ => String::new(),
        };
        out.push((key.clone(), text));
    }
    out
}

fn count_elements(toks: &[Tok], element: &str) -> usize {
    toks.iter().filter(|t| matches!(t, Tok::Start { name, .. } if name == element)).count()
}

/// The value at a dotted path of the stats JSON (`a.b-c.d` is the difference of two paths).
fn stat(stats: &Value, path: &str) -> Value {
    if let Some((a, b)) = path.split_once('-') {
        let (x, y) = (stat(stats, a), stat(stats, b));
        return Value::from(x.as_u64().unwrap() - y.as_u64().unwrap());
    }
    path.split('.').fold(stats.clone(), |v, k| v[k].clone())
}

/// Eight families of a 120-word base text and an edited copy at different similarities, an
/// exact copy, a pair whose id and text hold markup, and a hand-made pair that differs in one
/// word.
fn corpus(dir: &Path) -> String {
    let mut jsonl = String::new();
    let mut line = |id: &str, text: &str| {
        jsonl.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        jsonl.push('\n');
    };
    for (i, every) in [200, 60, 40, 30, 24, 20, 15, 12].into_iter().enumerate() {
        let text = words(300 + i as u64, 120);
        line(&format!("base{i}"), &text);
        line(&format!("edit{i}"), &edit(&text, every));
    }
    let copied = words(400, 80);
    line("http://example.com/a", &copied);
    line("https://example.org/b?x=1&y=2", &copied);
    let evil = format!("<script>alert('x')</script> {}", words(500, 100));
    line("<b>evil</b>", &evil);
    line("evil-copy", &edit(&evil, 50));
    let fox = format!(
        "{} the quick brown fox jumps over the lazy dog {}",
        words(600, 60),
        words(601, 60)
    );
    line("fox", &fox);
    line("cat", &fox.replace(" fox ", " cat "));
    for i in 0..20 {
        line(&format!("single{i}"), &words(700 + i, 50));
    }
    write(dir, "corpus.jsonl", jsonl.as_bytes());
    "corpus.jsonl".into()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn dedup(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["dedup", "corpus.jsonl", "--threshold", "0.6", "-q"];
    args.extend_from_slice(extra);
    let out = run(&args, None, dir);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

#[test]
fn html_report_is_well_formed_and_escapes_document_ids_and_texts() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    dedup(tmp.path(), &["--html", "r.html"]);
    let html = read(tmp.path(), "r.html");
    let toks = well_formed(&html);
    // The page's own script only: the document's <script> is text.
    assert_eq!(count_elements(&toks, "script"), 1);
    assert!(!html.contains("<b>evil</b>") && !html.contains("<script>alert"));
    assert!(html.contains("&lt;b&gt;evil&lt;/b&gt;"), "the markup id is shown, escaped");
    assert!(html.contains("&lt;script&gt;alert("), "the markup text is shown, escaped");
    let text: String = toks
        .iter()
        .filter_map(|t| if let Tok::Text(s) = t { Some(s.as_str()) } else { None })
        .collect();
    assert!(text.contains("<b>evil</b>") && text.contains("<script>alert("), "read back as text");
    // Sections, plots with a title and a description, no resource from elsewhere.
    for id in ["run", "similarity", "clusters", "pairs", "rates"] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "section {id}");
    }
    assert_eq!(count_elements(&toks, "svg"), 3, "S-curve, histogram, cluster sizes");
    assert_eq!(count_elements(&toks, "desc"), 3);
    assert!(!html.contains("src=") && !html.contains("<link"), "self-contained");
    // URL ids are links; the rate by host lists their hosts.
    assert!(html.contains("<a href=\"http://example.com/a\" rel=\"nofollow noreferrer\">"));
    assert!(html.contains("https://example.org/b?x=1&amp;y=2"));
    assert!(html.contains("<td class=\"ids\">example.org</td>"));
}

#[test]
fn html_report_numbers_match_the_stats_json() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    dedup(tmp.path(), &["--html", "r.html", "--stats", "s.json"]);
    let stats: Value = serde_json::from_str(&read(tmp.path(), "s.json")).unwrap();
    let toks = well_formed(&read(tmp.path(), "r.html"));
    assert_stat_cells(&toks, &stats);
    // Not a page of zeros: the run found what the corpus holds.
    assert!(stat(&stats, "pipeline.near_pairs").as_u64().unwrap() >= 6);
    assert!(stat(&stats, "pipeline.verification.verified").as_u64().unwrap() >= 6);
}

/// Every figure of the page that names its path in `--stats` (`data-stat`) says what the stats
/// say.
fn assert_stat_cells(toks: &[Tok], stats: &Value) {
    let cells = texts_with(toks, "data-stat");
    assert!(cells.len() >= 20, "{cells:?}");
    for (path, text) in &cells {
        let want = if path == "config.method" {
            // The method's description, as the summary prints it.
            stats["method_description"].as_str().unwrap().trim_start_matches("method ").to_owned()
        } else {
            match stat(stats, path) {
                Value::String(s) => s,
                Value::Null => panic!("{path} is not in the stats"),
                Value::Object(_) => panic!("{path} is an object"),
                other => other.to_string(),
            }
        };
        assert_eq!(text, &want, "{path}");
    }
}

/// The numbers of the cells carrying `attr` with value `key`.
fn numbers_with(toks: &[Tok], attr: &str, key: &str) -> Vec<u64> {
    let cells = texts_with(toks, attr);
    let parse = |t: &String| t.parse().unwrap_or_else(|_| panic!("{attr}={key}: {t:?}"));
    cells.iter().filter(|(k, _)| k == key).map(|(_, t)| parse(t)).collect()
}

/// The run card said 826 exact and 93 near duplicates where the language table
/// said 799 and 120 (an exact copy of a near duplicate is a copy of an earlier document, and is
/// removed as a near duplicate of the document kept). A corpus of one document per file, in two
/// folders, holds such a copy: every exact/near figure of the page is the one split of
/// `--report`'s `match`, on the run card and in the total of every table; they add up to the
/// duplicates of `--stats`, and its count of exact copies is reconciled with them.
#[test]
fn html_report_has_one_exact_near_split_that_agrees_with_the_stats_and_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let file =
        |name: &str, text: &str| write(tmp.path(), &format!("docs/{name}.txt"), text.as_bytes());
    let (near, copied, also_near) = (words(800, 120), words(801, 120), words(802, 120));
    file("a/base0", &near);
    file("a/edit0", &edit(&near, 40));
    // An exact copy of a near duplicate: in `exact_duplicates`, removed as near.
    file("b/edit0-copy", &edit(&near, 40));
    file("a/base1", &copied);
    file("b/base1-copy", &copied);
    file("a/base2", &also_near);
    file("a/edit2", &edit(&also_near, 40));
    for i in 0..40 {
        file(&format!("{}/single{i:02}", if i % 2 == 0 { "a" } else { "b" }), &words(900 + i, 60));
    }
    let out = run(
        &[
            "dedup",
            "docs",
            "--threshold",
            "0.6",
            "-q",
            "--html",
            "r.html",
            "--stats",
            "s.json",
            "--report",
            "r.jsonl",
            "-o",
            "kept.jsonl",
        ],
        None,
        tmp.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stats: Value = serde_json::from_str(&read(tmp.path(), "s.json")).unwrap();
    let html = read(tmp.path(), "r.html");
    let toks = well_formed(&html);
    assert_stat_cells(&toks, &stats);

    // The split of `--report`: each removed document's match to the document kept.
    let (mut exact, mut near) = (0, 0);
    for line in read(tmp.path(), "r.jsonl").lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        match (r["status"].as_str(), r["match"].as_str()) {
            (Some("duplicate"), Some("near")) => near += 1,
            (Some("duplicate"), Some(_)) => exact += 1,
            _ => {}
        }
    }
    assert_eq!((exact, near), (1, 3), "the corpus as planted");
    let duplicates = stat(&stats, "pipeline.duplicates").as_u64().unwrap();
    let exact_copies = stat(&stats, "pipeline.exact_duplicates").as_u64().unwrap();
    assert_eq!((duplicates, exact_copies), (4, 2), "the stats as planted");

    // The run card (its cards and its sentence) and the total row of each table: one split.
    assert_eq!(numbers_with(&toks, "data-fate", "exact"), [exact; 2]);
    assert_eq!(numbers_with(&toks, "data-fate", "near"), [near; 2]);
    assert_eq!(numbers_with(&toks, "data-derived", "copies-of-near"), [exact_copies - exact]);
    assert!(html.contains("By folder (one document per input file)"), "the by-folder table");
    let documents = stat(&stats, "documents").as_u64().unwrap();
    // By language, by folder: each covers every record.
    assert_eq!(numbers_with(&toks, "data-total", "documents"), [documents; 2]);
    assert_eq!(numbers_with(&toks, "data-total", "exact"), [exact; 2]);
    assert_eq!(numbers_with(&toks, "data-total", "near"), [near; 2]);
    assert_eq!(
        numbers_with(&toks, "data-total", "skipped"),
        [stat(&stats, "skipped").as_u64().unwrap(); 2]
    );
    // No other split: the stats' exact copies appear once, in the row that reconciles them.
    assert_eq!(html.matches("data-stat=\"pipeline.exact_duplicates\"").count(), 1);
    assert!(!html.contains("pipeline.duplicates-pipeline.exact_duplicates"));
}

#[test]
fn html_report_diffs_the_hand_made_pair_word_by_word() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    dedup(tmp.path(), &["--html", "r.html"]);
    let html = read(tmp.path(), "r.html");
    well_formed(&html);
    // fox/cat differ in one word: it is the only change on either side.
    let start = html.find("<h4>fox</h4>").expect("the fox/cat pair is shown");
    let left = &html[start..html[start..].find("</div>").unwrap() + start];
    assert_eq!(left.matches("<del>").count(), 1, "{left}");
    assert!(left.contains("<del>fox</del>"), "{left}");
    assert!(!left.contains("<ins>"));
    let start = html.find("<h4>cat</h4>").unwrap();
    let right = &html[start..html[start..].find("</div>").unwrap() + start];
    assert_eq!(right.matches("<ins>").count(), 1, "{right}");
    assert!(right.contains("<ins>cat</ins>"));
    assert!(html.contains("the quick brown </span><del>fox</del>"), "shared run before it");
}

/// The page less its measured figures (times, threads, memory).
fn without_measured(html: &str) -> String {
    let start = html.find("<table id=\"measured\">").expect("measured table");
    let end = start + html[start..].find("</table>").unwrap();
    format!("{}{}", &html[..start], &html[end..])
}

#[test]
fn html_report_same_bytes_at_1_and_2_threads() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    dedup(tmp.path(), &["--html", "one.html", "--threads", "1"]);
    dedup(tmp.path(), &["--html", "two.html", "--threads", "2"]);
    let (one, two) = (read(tmp.path(), "one.html"), read(tmp.path(), "two.html"));
    assert_eq!(without_measured(&one), without_measured(&two));
    assert!(one.contains("Time and memory (measured)"));
}

#[test]
fn report_run_writes_the_page_dedup_html_writes() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    dedup(
        tmp.path(),
        &[
            "--html",
            "direct.html",
            "--run",
            "run.json",
            "--pairs",
            "p.tsv",
            "--clusters",
            "c.jsonl",
            "--report",
            "r.jsonl",
        ],
    );
    // From another folder: the run file says where the inputs are.
    let elsewhere = tempfile::tempdir().unwrap();
    let run_json = tmp.path().join("run.json");
    let out = run(
        &["report", "--run", run_json.to_str().unwrap(), "-o", "later.html"],
        None,
        elsewhere.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let later = read(elsewhere.path(), "later.html");
    assert_eq!(later, read(tmp.path(), "direct.html"));
    well_formed(&later);
    assert!(later.contains("<h4>fox</h4>"), "texts read again from the run's folder");
    assert!(temporary_files(elsewhere.path()).is_empty());
}

/// A run with `--html` and `--run` in `dir`: its page is `direct.html`, its run file `run.json`.
fn dedup_with_run_file(dir: &Path) {
    corpus(dir);
    dedup(
        dir,
        &[
            "--html",
            "direct.html",
            "--run",
            "run.json",
            "--pairs",
            "p.tsv",
            "--clusters",
            "c.jsonl",
            "--report",
            "r.jsonl",
        ],
    );
}

/// `run.json` of `dir` with `edit` applied to its statistics, and `report` run on it.
fn report_edited(dir: &Path, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Output {
    let mut run_file: Value = serde_json::from_str(&read(dir, "run.json")).unwrap();
    edit(run_file["stats"].as_object_mut().unwrap());
    write(dir, "edited.json", serde_json::to_string_pretty(&run_file).unwrap().as_bytes());
    run(&["report", "--run", "edited.json", "-o", "later.html"], None, dir)
}

/// The statistics are read as one type; the two fields added after the first
/// run files (2026-11-24) may be missing, and the page is then the same.
#[test]
fn a_run_file_without_the_later_fields_gives_the_same_page() {
    let tmp = tempfile::tempdir().unwrap();
    dedup_with_run_file(tmp.path());
    let out = report_edited(tmp.path(), |stats| {
        assert_eq!(stats.shift_remove("files_ignored"), Some(serde_json::json!({})));
        assert_eq!(stats.shift_remove("boilerplate"), Some(Value::Null));
    });
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(tmp.path(), "later.html"), read(tmp.path(), "direct.html"));
}

/// A figure renamed in the writer was shown as 0; now the run file is refused,
/// naming the file and the field, and no page is written.
#[test]
fn a_run_file_with_a_renamed_figure_is_refused_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    dedup_with_run_file(tmp.path());
    let out = report_edited(tmp.path(), |stats| {
        let pipeline = stats["pipeline"].as_object_mut().unwrap();
        let near = pipeline.shift_remove("near_pairs").unwrap();
        pipeline.insert("near_duplicate_pairs".into(), near);
    });
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("edited.json: the run's statistics do not read at pipeline"), "{err}");
    assert!(err.contains("missing field `near_pairs`"), "{err}");
    assert!(!tmp.path().join("later.html").exists());
}

#[test]
fn dedup_run_without_its_files_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let out =
        run(&["dedup", "corpus.jsonl", "--run", "run.json", "--pairs", "p.tsv"], None, tmp.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--run needs --clusters FILE"), "{}", stderr(&out));
    let out = run(&["report", "--run", "corpus.jsonl", "-o", "x.html"], None, tmp.path());
    assert_ne!(out.status.code(), Some(0));
    assert!(!tmp.path().join("x.html").exists());
}

/// Regression: `report --run /dev/zero` read until the kernel killed it.
#[test]
fn an_endless_run_file_is_refused_after_a_bounded_read() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_within(
        &["report", "--run", "/dev/zero", "-o", "x.html"],
        None,
        tmp.path(),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("larger than 64 MiB"), "{}", stderr(&out));
    assert!(!tmp.path().join("x.html").exists());
}

#[test]
fn html_report_stays_under_its_size_cap() {
    let tmp = tempfile::tempdir().unwrap();
    // 600 families of long near-duplicate pairs in every band from 0.6 up: far more than 60 KB
    // of pairs to show.
    let mut jsonl = String::new();
    for i in 0..600u64 {
        let text = words(10_000 + i, 400);
        let every = [8, 10, 14, 20, 40, 400][i as usize % 6];
        for (id, t) in [(format!("a{i}"), text.clone()), (format!("b{i}"), edit(&text, every))] {
            jsonl.push_str(&serde_json::json!({"id": id, "text": t}).to_string());
            jsonl.push('\n');
        }
    }
    write(tmp.path(), "corpus.jsonl", jsonl.as_bytes());
    dedup(tmp.path(), &["--html", "big.html"]);
    dedup(tmp.path(), &["--html", "small.html", "--html-max-size", "60K"]);
    let (big, small) = (read(tmp.path(), "big.html"), read(tmp.path(), "small.html"));
    assert!(big.len() > 60 * 1024, "the uncapped page is larger: {}", big.len());
    assert!(small.len() <= 60 * 1024, "{} bytes", small.len());
    well_formed(&small);
    assert!(small.contains("Sampled to stay under 0.1 MB"), "the page says it is sampled");
    assert!(small.contains("<h4>a"), "some pairs are still shown");
}

#[test]
fn compare_html_has_the_method_table_and_a_labelled_scatter() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    let mut gold = String::new();
    for i in 0..8 {
        gold.push_str(&format!("base{i}\tedit{i}\t1\n"));
    }
    write(tmp.path(), "gold.tsv", gold.as_bytes());
    let out = run(
        &[
            "compare",
            "corpus.jsonl",
            "--gold",
            "gold.tsv",
            "--methods",
            "minhash,exact",
            "--html",
            "c.html",
            "--json",
            "c.json",
            "-q",
            "--threshold",
            "0.6",
        ],
        None,
        tmp.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let html = read(tmp.path(), "c.html");
    let toks = well_formed(&html);
    let json: Value = serde_json::from_str(&read(tmp.path(), "c.json")).unwrap();
    for m in json["methods"].as_array().unwrap() {
        let name = m["method"].as_str().unwrap();
        let row = format!(
            "<tr><td>{name}</td><td class=\"n\">{:.3}</td>",
            m["precision"].as_f64().unwrap()
        );
        assert!(html.contains(&row), "{row}");
        // Named beside its point, not told apart by colour.
        assert!(html.contains(&format!("\">{name}</text>")), "label of {name}");
    }
    assert_eq!(count_elements(&toks, "circle"), json["methods"].as_array().unwrap().len());
}

#[test]
fn html_report_draws_each_methods_own_candidate_curve() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    for (method, title) in [
        ("minhash", "LSH S-curve: "),
        ("supershingles", "Super-shingle match curve"),
        ("simhash", "SimHash: Hamming distance ≤ "),
    ] {
        let page = format!("{method}.html");
        dedup(tmp.path(), &["--method", method, "--html", &page]);
        let html = read(tmp.path(), &page);
        well_formed(&html);
        assert!(html.contains(&format!("<title id=\"curve-t\">{title}")), "{method}");
    }
    dedup(tmp.path(), &["--method", "i-match", "--html", "i.html"]);
    let html = read(tmp.path(), "i.html");
    well_formed(&html);
    assert!(html.contains("Method i-match: candidates are documents with an equal signature"));
}
