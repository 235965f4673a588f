//! Web input end to end: main-content extraction, `lookalike extract`, WARC files.

use crate::common::*;

/// A page of a site: the site's long menu and footer around a short article of its own.
fn page(article: &str) -> String {
    let menu = words(900, 250);
    let footer = words(901, 150);
    format!(
        "<html><head><title>Site</title></head><body><nav><ul><li>{menu}</li></ul></nav>\
         <article><h1>Story</h1><p>{article}</p></article><footer><p>{footer}</p></footer></body></html>"
    )
}

#[test]
fn shared_boilerplate_does_not_make_different_articles_duplicates() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.html", page(&words(1, 120)).as_bytes());
    write(tmp.path(), "b.html", page(&words(2, 120)).as_bytes());
    // All visible text: the shared menu and footer dominate, the pages look alike.
    let o = run(
        &["dedup", "a.html", "b.html", "-t", "0.5", "--extract", "text", "--pairs", "-"],
        None,
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(pairs(&stdout(&o)).len(), 1, "{}", stdout(&o));
    // Main content (the default): only the articles are compared.
    let o = run(&["dedup", "a.html", "b.html", "-t", "0.5", "--pairs", "-"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "different articles must not pair");
}

#[test]
fn extract_shows_title_and_main_text() {
    let tmp = tempfile::tempdir().unwrap();
    let article = words(3, 120);
    write(tmp.path(), "a.html", page(&article).as_bytes());
    let o = run(&["extract", "a.html", "--jsonl"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["id"], "a.html");
    assert_eq!(v["extraction"], "main");
    assert_eq!(v["charset"], "UTF-8");
    assert!(v["title"].is_string());
    let text = v["text"].as_str().unwrap();
    assert!(text.contains(&article), "{text}");
    assert!(!text.contains(&words(900, 250)), "the menu must be gone");
    let o = run(&["extract", "a.html", "--extract", "text"], None, tmp.path());
    assert!(stdout(&o).contains(&words(900, 250)), "all visible text keeps the menu");
}

#[test]
#[ignore = "needs ../shared/data"]
fn warc_samples_dedup_end_to_end() {
    let shared = shared("data");
    let tmp = tempfile::tempdir().unwrap();
    let warcs = shared.join("data/warc-samples");
    let dir = warcs.display().to_string();
    let o = run(&["dedup", &dir, "--report", "r.jsonl", "--output", "o.jsonl"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let report = std::fs::read_to_string(tmp.path().join("r.jsonl")).unwrap();
    // Every WARC record is accounted for: 4+14 (small CC), 19*3+1 (large CC), 24 (ClueWeb) ...,
    // and the folder's LICENSE.repo, a text file of a name lookalike does not know, is read.
    let lines: Vec<serde_json::Value> =
        report.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 95);
    assert!(lines.iter().any(|l| l["id"].as_str().unwrap().ends_with("LICENSE.repo")));
    let kept = lines.iter().filter(|l| l["status"] == "kept").count();
    // Skipped responses are in --output too (marked); WARC records other than responses are not
    // documents and are not.
    let skipped = lines
        .iter()
        .filter(|l| l["status"] == "skipped")
        .filter(|l| {
            let r = l["reason"].as_str().unwrap_or("");
            !(r.starts_with("WARC ") && r.ends_with(" record"))
        })
        .count();
    let out = std::fs::read_to_string(tmp.path().join("o.jsonl")).unwrap();
    assert_eq!(out.lines().count(), kept + skipped);
    assert_eq!(out.lines().filter(|l| l.contains("\"skipped\":")).count(), skipped);
    assert!(out.contains("\"title\""));
    assert!(report.contains("WARC request record"));
}

/// A huge page (here 44 MB, above the 40 MiB limit of main-content extraction; the same path
/// serves 100 MB pages) is not lost: its visible text is compared, and the summary says why
/// main-content extraction was not used.
#[test]
fn huge_pages_are_kept_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let para = format!("<p>{}</p>\n", words(5, 40));
    let big = format!("<title>Big</title>{}", para.repeat(44_000_000 / para.len()));
    write(tmp.path(), "big.html", big.as_bytes());
    let o = run(&["dedup", "big.html", "--report", "-"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(r#""status":"kept""#), "{}", stdout(&o));
    assert!(stderr(&o).contains("main content not extracted"), "{}", stderr(&o));
}
