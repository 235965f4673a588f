//! The README's commands, run: every `lookalike` line of its `sh` blocks, each block in a fresh
//! folder that holds a small input under every name the README uses (`pages/`, `corpus.jsonl`,
//! `crawl.warc.gz`, ...). A line that exits with anything but 0 fails the test, naming the line;
//! a block of shown files (`$ cat cleaned.jsonl`) must be what the commands wrote.
//!
//! Substitutions, so that the lines run on a small input in a test's time: `/usr/share/doc` is
//! the folder `doc/`, `/scratch` the folder `scratch/`, and `cargo run --release --bin lookalike
//! --` is the `lookalike` under test. Lines that are not run say why ([`not_run`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::common::*;

const README: &str = include_str!("../../../../README.md");

/// The fenced blocks of `text` whose info string is `lang` (indented blocks too), in order.
fn blocks<'a>(text: &'a str, lang: &str) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    // The open block: its info string, indent and lines.
    let mut current: Option<(&str, usize, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut current {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    current = Some((info.trim(), indent, Vec::new()));
                }
            }
            Some(_) if trimmed == "```" => {
                let (info, _, lines) = current.take().expect("open");
                if info == lang {
                    out.push(lines);
                }
            }
            Some((_, indent, lines)) => {
                lines.push(line.get(*indent..).unwrap_or(trimmed));
            }
        }
    }
    out
}

/// The commands of an `sh` block: continuation lines joined, comment lines dropped.
fn commands(block: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in block {
        if pending.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    out
}

/// Why a README line is not run here, if it is not.
fn not_run(line: &str) -> Option<&'static str> {
    let line = line.trim_start();
    if line.starts_with("cargo install") || line.starts_with("cargo test") {
        Some("a build or test command: CI runs it (.ci/run)")
    } else if line.starts_with("pip ") {
        Some("the Python package's build: .ci/python runs it")
    } else if line.starts_with("bench/") {
        Some("a benchmark script, minutes long")
    } else if line.starts_with("lookalike serve") || line.starts_with("curl ") {
        Some("a service on a fixed port: tests/it/serve.rs runs serve on a free one")
    } else if line.contains("\"$@\"") {
        Some("a script's body (its arguments are the caller's)")
    } else if cfg!(not(feature = "parquet")) && line.contains(".parquet") {
        Some("Parquet input: this build has no `parquet` feature")
    } else {
        None
    }
}

/// What a line runs here.
fn substituted(line: &str) -> String {
    line.replace("cargo run --release --bin lookalike --", "lookalike")
        .replace("/usr/share/doc", "doc")
        .replace("/scratch", "scratch")
}

/// The files a block of shown output (`$ cat NAME` then its lines) shows, by name.
fn shown_files() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for block in blocks(README, "") {
        let mut name: Option<String> = None;
        for line in block {
            if let Some(n) = line.strip_prefix("$ cat ") {
                name = Some(n.trim().to_owned());
                files.insert(n.trim().to_owned(), String::new());
            } else if let Some(n) = &name {
                let text = files.get_mut(n).expect("inserted");
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    files
}

fn html(title: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{body}</p></main></body></html>"
    )
}

/// A folder with an input under every name the README's commands read.
fn fixture(d: &Path) {
    // Texts with near duplicates at several distances and an exact copy.
    let texts: Vec<String> = (0..24)
        .map(|i| match i % 6 {
            1 => edit(&words(i - 1, 120), 30),
            2 => words(i - 2, 120),
            3 => edit(&words(i - 3, 120), 12),
            _ => words(i, 120),
        })
        .collect();
    let mut corpus = String::new();
    for (i, t) in texts.iter().enumerate() {
        let line = serde_json::json!({"id": format!("d{i}"), "url": format!("https://x.example/{i}"), "text": t});
        corpus.push_str(&format!("{line}\n"));
    }
    for name in ["corpus.jsonl", "pages.jsonl", "oct.jsonl"] {
        write(d, name, corpus.as_bytes());
    }
    write(d, "corpus.jsonl.gz", &gzip(corpus.as_bytes()));
    write(d, "big.jsonl.gz", &gzip(corpus.as_bytes()));
    let today = format!(
        "{}\n",
        serde_json::json!({"id": "https://d.example/other", "text": edit(&texts[0], 25)})
    );
    write(d, "today.jsonl", today.as_bytes());
    std::fs::create_dir_all(d.join("scratch")).unwrap();
    // Gold pairs, and two runs' pairs, as lookalike writes them.
    let gold: String = (0..4)
        .map(|g| format!("d{}\td{}\t1\nd{}\td{}\t1\n", 6 * g, 6 * g + 1, 6 * g, 6 * g + 2))
        .collect();
    for name in ["truth.tsv", "gold.tsv"] {
        write(d, name, gold.as_bytes());
    }
    let found: String = (0..4).map(|g| format!("d{}\td{}\t0.9\n", 6 * g, 6 * g + 1)).collect();
    for name in ["pairs.tsv", "a.tsv", "b.tsv"] {
        write(d, name, found.as_bytes());
    }
    // Documentation folders (/usr/share/doc), notes, pages.
    for (i, t) in texts.iter().take(8).enumerate() {
        write(d, &format!("doc/pkg{i}/copyright"), t.as_bytes());
        write(d, &format!("notes/n{}/note{i}.txt", i % 2), t.as_bytes());
        write(d, &format!("pages/p{i}.html"), html(&format!("Page {i}"), t).as_bytes());
    }
    write(d, "page.html", html("Again", &texts[3]).as_bytes());
    // A crawl (WARC, gzip members), a Parquet export, Chinese texts.
    let mut warc = Vec::new();
    for (i, t) in texts.iter().take(8).enumerate() {
        let page = html(&format!("Story {i}"), t);
        let uri = format!("https://x.example/{i}");
        warc.extend(gzip(&warc_record(&uri, "text/html; charset=utf-8", &page)));
    }
    for name in ["crawl.warc.gz", "news.warc.gz"] {
        write(d, name, &warc);
    }
    #[cfg(feature = "parquet")]
    parquet(d, &texts);
    let zh = [
        "北京是中国的首都，也是一座历史悠久的城市，每年都有很多游客来这里参观。",
        "上海是中国最大的城市之一，位于长江入海口，是重要的经济中心和港口。",
    ];
    let zh: String = (0..4)
        .map(|i| format!("{}\n", serde_json::json!({"id": format!("z{i}"), "text": zh[i % 2]})))
        .collect();
    write(d, "zh.jsonl", zh.as_bytes());
    // Sites with a template: a documentation mirror, two months of a crawl, an export by domain.
    crate::boilerplate::site(d, 10);
    for name in ["docs-mirror", "crawl-2026-10", "crawl-2026-11"] {
        copy_dir(&d.join("site"), &d.join(name));
    }
    let mut export = String::new();
    for i in 0..12 {
        let text =
            format!("Home | News | Contact\n{}\nCopyright the example press", words(900 + i, 40));
        export.push_str(&format!(
            "{}\n",
            serde_json::json!({"id": format!("e{i}"), "domain": "press.example", "text": text})
        ));
    }
    write(d, "export.jsonl", export.as_bytes());
    // The files the README shows being read (`$ cat news.jsonl`).
    write(d, "news.jsonl", shown_files()["news.jsonl"].as_bytes());
}

#[cfg(feature = "parquet")]
fn parquet(d: &Path, texts: &[String]) {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    let urls: Vec<String> = (0..texts.len()).map(|i| format!("https://x.example/{i}")).collect();
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("url", Arc::new(StringArray::from(urls))),
        ("content", Arc::new(StringArray::from(texts.to_vec()))),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = std::fs::File::create(d.join("part-0000.parquet")).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn every_lookalike_command_of_the_readme_runs() {
    let bin = Path::new(env!("CARGO_BIN_EXE_lookalike")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let shown = shown_files();
    let (mut ran, mut skipped, mut checked) = (0, Vec::new(), 0);
    for (b, block) in blocks(README, "sh").iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fixture(d);
        for line in commands(block) {
            if let Some(why) = not_run(&line) {
                skipped.push(format!("{line}: {why}"));
                continue;
            }
            let run = substituted(&line);
            let mut cmd = Command::new("sh");
            cmd.args(["-c", &run]).current_dir(d).env("PATH", &path);
            let o = output_within(cmd, None, RUN_TIMEOUT);
            assert!(
                o.status.success(),
                "README sh block {b}: `{run}` exited {:?}\n{}",
                o.status.code(),
                stderr(&o)
            );
            ran += 1;
        }
        // What the README shows of the files these commands write.
        for (name, text) in &shown {
            if name != "news.jsonl" && d.join(name).exists() {
                assert_eq!(&std::fs::read_to_string(d.join(name)).unwrap(), text, "README: {name}");
                checked += 1;
            }
        }
    }
    assert!(ran >= 39, "only {ran} README lines ran; not run: {skipped:#?}");
    assert_eq!(checked, 2, "cleaned.jsonl and removed.jsonl as the README shows them");
}

/// The main job's line writes into a folder of its own, not into the repository's root.
#[test]
fn the_readme_main_job_writes_under_a_folder_it_names() {
    let block = blocks(README, "sh").into_iter().find(|b| {
        b.iter().any(|l| l.contains("cargo run --release --bin lookalike -- dedup /usr/share/doc"))
    });
    let line = commands(&block.expect("the README's main job"))[0].clone();
    for output in ["--pairs", "--clusters", "--output"] {
        let value =
            line.split(output).nth(1).and_then(|r| r.split_whitespace().next()).unwrap_or("");
        assert!(value.contains('/'), "{output} {value}: {line}");
    }
}
