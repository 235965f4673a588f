//! Main-content extraction: real article pages from the shared benchmark (`#[ignore]`d: they need
//! ../shared/data), then broken, empty and pathological pages.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use lookalike_io::{
    ExtractMethod, MAX_MAIN_CONTENT_BYTES, MAX_MAIN_CONTENT_DEPTH, extract_main, html_to_text,
};

use crate::common::shared_data;

fn benchmark() -> PathBuf {
    let dir = shared_data().join("article-extraction-benchmark");
    assert!(dir.join("ground-truth.json").is_file(), "{} is absent", dir.display());
    dir
}

/// The page whose key starts with `prefix`: its HTML, URL and gold article body.
fn page(dir: &Path, prefix: &str) -> (String, String, String) {
    let truth: BTreeMap<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("ground-truth.json")).unwrap()).unwrap();
    let (key, entry) = truth.iter().find(|(k, _)| k.starts_with(prefix)).unwrap();
    let mut html = String::new();
    let file = std::fs::File::open(dir.join("html").join(format!("{key}.html.gz"))).unwrap();
    GzDecoder::new(file).read_to_string(&mut html).unwrap();
    let field = |name: &str| entry[name].as_str().unwrap_or_default().to_owned();
    (html, field("url"), field("articleBody"))
}

/// Whitespace runs as single spaces, so that line breaks do not matter.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Case {
    page: &'static str,
    /// Sentences of the gold article body.
    kept: &'static [&'static str],
    /// Menu, footer and sidebar text visible on the page and absent from the gold.
    dropped: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        page: "06e5123e4ef7", // venturebeat.com, English
        kept: &[
            "is investigating WeWork, according to two people familiar with the matter",
            "The company shelved its plans for an initial public offering on September 30",
        ],
        dropped: &[
            "Support independent journalism",
            "Hearthstone: Battlegrounds gets four new heroes",
            "Clumio raises $135 million",
        ],
    },
    Case {
        page: "5fa3154ec031", // theguardian.com, English
        kept: &["Hong Kong is burning. The authorities continue to pour fuel on the fire."],
        dropped: &["Skip to main content", "switch to the International edition", "Sign in"],
    },
    Case {
        page: "70cb2d5bca75", // bbc.com, English
        kept: &[
            "says she will be allowed to play her old tracks at the American Music Awards",
            "But the company says she didn't need their permission in the first place.",
        ],
        dropped: &["Share this with Facebook", "Accessibility Help", "BBC News Navigation"],
    },
    Case {
        page: "c4a3637c6696", // gto-normativy.ru, Russian
        kept: &["Характеристики бега можно увеличить за счет кодов"],
        dropped: &["Перейти к контенту", "Таблица нормативов", "Вам также может быть интересно"],
    },
    Case {
        page: "0ec95c7261d1", // entermedia.co.kr, Korean
        kept: &["엘제이의 리벤지인가, 류화영의 피해자 코스프레인가."],
        dropped: &["뒤로가기 인쇄하기 목록", "기사입력"],
    },
    Case {
        page: "23aaecd14171", // comoeducarseusfilhos.com.br, Portuguese
        kept: &["Nunca ouviu as sensacionais brinquedorias musicais do grupo Serelepe"],
        dropped: &["Pular para o conteúdo", "Sobre Carlos Nadalim", "Alfabetize em Casa"],
    },
];

#[test]
#[ignore = "needs ../shared/data"]
fn real_pages_keep_the_article_and_drop_the_boilerplate() {
    let dir = benchmark();
    for case in CASES {
        let (html, url, gold) = page(&dir, case.page);
        let all = squash(&html_to_text(html.as_bytes()));
        let e = extract_main(&html, Some(&url));
        assert_eq!(e.method, ExtractMethod::Main, "{url}");
        assert!(e.title.as_deref().is_some_and(|t| !t.is_empty()), "{url}: no title");
        let text = squash(&e.text);
        assert!(text.len() < all.len(), "{url}: {} of {} bytes kept", text.len(), all.len());
        for s in case.kept {
            assert!(squash(&gold).contains(s), "{url}: not in the gold: {s}");
            assert!(text.contains(s), "{url}: lost: {s}\n{text}");
        }
        for s in case.dropped {
            assert!(all.contains(s), "{url}: not on the page: {s}");
            assert!(!gold.contains(s), "{url}: in the gold: {s}");
            assert!(!text.contains(s), "{url}: kept: {s}\n{text}");
        }
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_title_is_kept_apart() {
    let dir = benchmark();
    // The title comes from the page's metadata (here `og:title`); the text is the article's,
    // which starts with its own headline.
    let (html, url, _) = page(&dir, "70cb2d5bca75");
    let e = extract_main(&html, Some(&url));
    assert_eq!(e.title.as_deref(), Some("Taylor Swift's AMA row seems to be over"));
    assert!(!e.text.contains("seems to be over"), "{}", e.text);
    assert!(
        e.text.starts_with("Taylor Swift is allowed to play her music at the AMAs after all A row"),
        "{}",
        e.text
    );
}

#[test]
fn empty_pages_give_empty_text() {
    for page in ["", "   \n", "<html><head><title></title></head><body></body></html>", "<!-- -->"]
    {
        let e = extract_main(page, None);
        assert_eq!((e.text.as_str(), e.method), ("", ExtractMethod::FallbackText), "{page:?}");
        assert_eq!(e.title, None, "{page:?}");
    }
    let e = extract_main("<title>Only a title</title><script>var x = 1;</script>", None);
    assert_eq!((e.title.as_deref(), e.text.as_str()), (Some("Only a title"), ""));
    assert_eq!(e.method, ExtractMethod::FallbackText);
}

#[test]
fn pages_without_an_article_fall_back_to_their_text() {
    // Only navigation and a footer: the extractor keeps nothing, the fallback keeps it all (with
    // its line breaks), without the title.
    let page = "<title>T</title><nav><a href=/>Home</a> <a href=/b>Blog</a></nav>\
                <footer>Copyright 2020</footer>";
    let e = extract_main(page, None);
    assert_eq!(e.method, ExtractMethod::FallbackText);
    assert_eq!((e.title.as_deref(), e.text.as_str()), (Some("T"), "Home Blog\nCopyright 2020"));
}

#[test]
fn broken_html_never_panics() {
    let para = "<p>A sentence of ordinary words, long enough to look like content to anyone.</p>";
    let pages = [
        "<".to_owned(),
        "<<<>>>&&&;;;".to_owned(),
        "<html><body><p>unclosed <b>bold <i>both</p>after".to_owned(),
        "<div <p>>text</div".to_owned(),
        "<!-- never closed <p>x</p>".to_owned(),
        "<script>never closed <p>x</p>".to_owned(),
        "<title>never closed".to_owned(),
        "\0\0\u{FFFD}\u{FFFD}<p>\0</p>".to_owned(),
        "<svg><math><table><tr><td><select><option><p>x".to_owned(),
        "<table><td><table><td><table><td>".repeat(50) + para,
        format!("<article>{}</article></article></article></body></html></html>", para.repeat(30)),
        format!("<p title='{}'>x</p>", "'\"<>".repeat(10_000)),
        format!("<frameset><frame src=x>{para}</frameset><noframes>{para}</noframes>"),
        format!("<html><head>{para}</head><body><head><body>{para}<html lang=x>{para}"),
        format!("<a href='javascript:alert(1)'>{}</a>", para.repeat(20)),
        "<p>\u{202E}\u{200B}\u{FEFF}text</p>".repeat(100),
    ];
    for page in &pages {
        let e = extract_main(page, Some("not a url"));
        assert!(!e.text.contains('\0'), "{page:.60}");
        let e = extract_main(page, Some("https://example.com/a?b#c"));
        assert!(e.title.as_deref().is_none_or(|t| !t.is_empty()));
    }
}

#[test]
fn deeply_nested_pages_fall_back_instead_of_overflowing_the_stack() {
    // The extractor recurses over the tree: far deeper nesting would abort the process.
    let para = "<p>A sentence of ordinary words, long enough to look like content.</p>";
    let depth = 50_000;
    let page = format!("{}{}{}", "<div>".repeat(depth), para.repeat(10), "</div>".repeat(depth));
    let e = extract_main(&page, None);
    assert_eq!(e.method, ExtractMethod::FallbackText);
    assert_eq!(e.text.lines().count(), 10);
    let page = format!("<p>{}deep{}", "<span>".repeat(depth), "</span>".repeat(depth));
    assert_eq!(extract_main(&page, None).text, "deep");

    // Nesting at the limit's order of magnitude still goes through the extractor (on a test
    // thread's 2 MiB stack, in a debug build).
    let depth = MAX_MAIN_CONTENT_DEPTH / 2;
    let page = format!(
        "<title>T</title>{}<article>{}</article>{}",
        "<div>".repeat(depth),
        para.repeat(10),
        "</div>".repeat(depth)
    );
    assert_eq!(extract_main(&page, None).method, ExtractMethod::Main);
}

#[test]
fn oversized_pages_get_their_visible_text() {
    let para = "<p>A sentence of ordinary words, long enough to look like content.</p>";
    let page = format!("<title>Big</title><article>{}</article>", para.repeat(70_000));
    assert!(page.len() > MAX_MAIN_CONTENT_BYTES);
    let e = extract_main(&page, None);
    assert_eq!((e.method, e.title.as_deref()), (ExtractMethod::FallbackText, Some("Big")));
    assert_eq!(e.text.lines().count(), 70_000);
}
