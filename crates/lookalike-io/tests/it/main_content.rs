//! Main-content extraction: real article pages from the shared benchmark (`#[ignore]`d: they need
//! ../shared/data), then broken, empty and pathological pages.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use lookalike_io::{
    ExtractMethod, MAX_MAIN_CONTENT_BYTES, extract_main, html_to_text, main_content_work,
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
    // The title comes from the page's metadata (here `og:title`); the text is the article's
    // body, which starts with its first sentence, as in the benchmark's gold (the headline, a
    // heading at the edge of the article, is not body text).
    let (html, url, gold) = page(&dir, "70cb2d5bca75");
    let e = extract_main(&html, Some(&url));
    assert_eq!(e.title.as_deref(), Some("Taylor Swift's AMA row seems to be over"));
    assert!(!e.text.contains("seems to be over"), "{}", e.text);
    let first = "A row involving Taylor Swift, her former record label and a couple of big name US";
    assert!(squash(&gold).starts_with(first), "{gold}");
    assert!(squash(&e.text).starts_with(first), "{}", e.text);
    assert!(!e.text.contains("Taylor Swift is allowed to play her music"), "{}", e.text);
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
fn deeply_nested_pages_are_extracted_without_overflowing_the_stack() {
    // Every pass of the extractor is a loop over a flat arena: nesting far deeper than a thread's
    // stack could recurse is extracted like any page.
    let para = "<p>A sentence of ordinary words, long enough to look like content.</p>";
    let depth = 50_000;
    let page = format!("{}{}{}", "<div>".repeat(depth), para.repeat(10), "</div>".repeat(depth));
    let e = extract_main(&page, None);
    assert_eq!(e.method, ExtractMethod::Main);
    assert_eq!(e.text.lines().count(), 10);
    let page = format!("<p>{}deep{}", "<span>".repeat(depth), "</span>".repeat(depth));
    assert_eq!(extract_main(&page, None).text, "deep");
    let page = format!(
        "<title>T</title>{}<article>{}</article>{}",
        "<div class=wrap>".repeat(depth),
        para.repeat(10),
        "</div>".repeat(depth)
    );
    let e = extract_main(&page, None);
    assert_eq!((e.method, e.text.lines().count()), (ExtractMethod::Main, 10));
}

#[test]
fn oversized_pages_get_their_visible_text() {
    let para = "<p>A sentence of ordinary words, long enough to look like content.</p>";
    let n = MAX_MAIN_CONTENT_BYTES / para.len() + 1;
    let page = format!("<title>Big</title><article>{}</article>", para.repeat(n));
    assert!(page.len() > MAX_MAIN_CONTENT_BYTES);
    let e = extract_main(&page, None);
    assert_eq!((e.method, e.title.as_deref()), (ExtractMethod::FallbackText, Some("Big")));
    assert_eq!(e.text.lines().count(), n);
}

/// A news article page as sites lay them out: navigation, the article, a sidebar, a footer.
fn article_page(paragraphs: &[&str], extra: &str) -> String {
    let mut body = String::new();
    for p in paragraphs {
        body.push_str(&format!("<p>{p}</p>\n"));
    }
    format!(
        "<html><head><title>Harbour news</title></head><body>\
         <nav class='menu'><a href='/'>Home</a> <a href='/world'>World</a> <a href='/sport'>Sport</a></nav>\
         <div id='main'><article class='post'><h1>The harbour reopens</h1>\
         <div class='entry-content'>{body}{extra}</div></article>\
         <aside class='sidebar'><h3>Most read</h3><ul><li><a href='/a'>Storm closes roads</a></li>\
         <li><a href='/b'>Council votes on budget</a></li></ul></aside></div>\
         <footer>Copyright 2024 Harbour News. All rights reserved.</footer></body></html>"
    )
}

const HARBOUR: &[&str] = &[
    "The harbour reopened on Monday after three weeks of repairs to the sea wall, which was \
     breached during the January storms, the port authority said.",
    "Fishing boats were the first to return, followed by the ferry to the islands, which had \
     been running from a temporary landing stage further down the coast.",
    "Engineers say the new wall, built of granite blocks set in concrete, should withstand \
     waves twice as high as those that broke the old one.",
];

#[test]
fn furigana_keeps_the_base_text_drops_the_reading_and_keeps_what_follows() {
    // Japanese pages annotate kanji with their reading (furigana) in ruby: the base text is
    // the text, the reading (rt) and its fallback brackets (rp) are not, and the sentence goes
    // on after the ruby.
    let ruby = "<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rp>(</rp><rt>じ</rt><rp>)</rp></ruby>";
    let sentences = [
        format!(
            "この記事では{ruby}の読み方について説明します。日本語の文章には、ひらがな、カタカナ、{ruby}が使われています。"
        ),
        format!(
            "{ruby}は中国から伝わった文字で、一つ一つの文字が意味を持っています。小学校では、約千字を学びます。"
        ),
        "新聞や本を読むためには、二千字以上の漢字を知っている必要があると言われています。"
            .to_owned(),
    ];
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let e = extract_main(&article_page(&refs, ""), None);
    assert_eq!(e.method, ExtractMethod::Main);
    assert!(e.text.contains("この記事では漢字の読み方について説明します。"), "{}", e.text);
    assert!(e.text.contains("カタカナ、漢字が使われています。"), "{}", e.text);
    assert!(e.text.contains("漢字は中国から伝わった文字で"), "{}", e.text);
    for reading in ["かん", "(", ")"] {
        assert!(!e.text.contains(reading), "reading {reading:?} kept: {}", e.text);
    }
    // Unclosed annotations end at the next one, as the HTML standard says.
    let page = article_page(
        &[
            "<ruby>東<rt>とう<rt>きょう</ruby>京の天気は、今日は晴れ、明日は雨になるでしょう。気温は二十度まで上がる見込みです。",
        ],
        "",
    );
    let e = extract_main(&page, None);
    assert!(e.text.contains("東京の天気は、今日は晴れ"), "{}", e.text);
}

#[test]
fn blogger_article_in_noscript_is_found() {
    // Blogger-style page: the body is rendered by a script; the article is only in noscript.
    let mut article = String::new();
    for p in HARBOUR {
        article.push_str(&format!("<p>{p}</p>"));
    }
    let page = format!(
        "<html><head><title>Harbour blog</title><script>var blog = {{}};</script></head><body>\
         <div id='header'><a href='/'>Harbour blog</a></div>\
         <div id='content'><script>renderPosts(blog);</script>\
         <noscript><div class='post-outer'><div class='post hentry'><h3 class='post-title'>\
         The harbour reopens</h3><div class='post-body entry-content'>{article}</div></div></div>\
         </noscript></div>\
         <div class='sidebar'><h2>Labels</h2><a href='/l/port'>port</a> <a href='/l/sea'>sea</a></div>\
         <noscript><p>Please enable JavaScript.</p></noscript></body></html>"
    );
    let e = extract_main(&page, Some("https://harbour.blogspot.com/2024/01/reopens.html"));
    assert_eq!(e.method, ExtractMethod::Main);
    for p in HARBOUR {
        assert!(e.text.contains(&squash(p)), "lost: {p}\n{}", e.text);
    }
    assert!(!e.text.contains("enable JavaScript"), "{}", e.text);
    assert!(!e.text.contains("Labels"), "{}", e.text);
}

#[test]
fn related_posts_block_is_not_kept() {
    // A block of links to other stories after the article, under a heading that says so, or
    // in a container classed as such.
    let related = [
        "<h3>You may also like</h3><ul><li><a href='/x'>Ferry timetable changes for the summer season</a></li>\
         <li><a href='/y'>New lighthouse keeper appointed after forty years</a></li>\
         <li><a href='/z'>Fish market moves to the old customs house</a></li></ul>",
        "<div class='related-posts'><h4>More stories</h4><div><a href='/x'>Ferry timetable changes \
         for the summer season</a></div><div><a href='/y'>New lighthouse keeper appointed after \
         forty years</a></div></div>",
        "<h2>Related posts</h2><p><a href='/x'>Ferry timetable changes for the summer season</a></p>\
         <p><a href='/y'>New lighthouse keeper appointed</a> - and what it means for the town</p>",
    ];
    for block in related {
        let e = extract_main(&article_page(HARBOUR, block), None);
        assert_eq!(e.method, ExtractMethod::Main);
        for p in HARBOUR {
            assert!(e.text.contains(&squash(p)), "lost: {p}\n{}", e.text);
        }
        for gone in ["Ferry timetable", "lighthouse keeper", "also like", "More stories", "Related"]
        {
            assert!(!e.text.contains(gone), "kept {gone:?} with {block:.40}: {}", e.text);
        }
        for boilerplate in ["World", "Most read", "Storm closes", "All rights reserved"] {
            assert!(!e.text.contains(boilerplate), "kept {boilerplate:?}: {}", e.text);
        }
    }
}

/// The ratios of `work(k)` to `work(1)` for k = 2, 4, 8.
fn growth(work: impl Fn(usize) -> u64) -> Vec<f64> {
    let base = work(1) as f64;
    [2, 4, 8].iter().map(|&k| work(k) as f64 / (base * k as f64)).collect()
}

/// Linear work: doubling the input doubles the work (within 10%), never more.
fn assert_linear(ratios: &[f64], what: &str) {
    for (r, k) in ratios.iter().zip([2, 4, 8]) {
        assert!((0.9..=1.1).contains(r), "{what} x{k}: work per unit {r:.3} of x1's");
    }
}

#[test]
fn extractor_work_grows_linearly_with_page_size() {
    // The same article body repeated 1, 2, 4, 8 times inside one page: the counted work (nodes
    // visited by every pass plus bytes scanned) grows in proportion.
    let page = |k: usize| {
        let mut extra = String::new();
        for _ in 1..k {
            extra.push_str(&article_page(HARBOUR, ""));
        }
        article_page(HARBOUR, &extra)
    };
    let ratios = growth(|k| main_content_work(&page(k)).total());
    assert_linear(&ratios, "repeated page");
}

#[test]
fn extractor_work_grows_linearly_with_nesting_depth() {
    // Nesting 1k, 2k, 4k, 8k levels of divs, each with a line of text, around an article: each
    // level costs the same (no per-level walk to the root).
    let page = |depth: usize| {
        let mut p = String::from("<title>Deep</title>");
        for i in 0..depth {
            p.push_str(&format!("<div class='level'><a href='/{i}'>Level {i}</a>"));
        }
        p.push_str(&article_page(HARBOUR, ""));
        p.push_str(&"</div>".repeat(depth));
        p
    };
    let ratios = growth(|k| main_content_work(&page(1000 * k)).total());
    assert_linear(&ratios, "nesting depth");
    // Unclosed paragraphs and list items, nested inline elements: the builder's implied end tags
    // and end-tag search stay constant per element.
    let soup = |k: usize| {
        let n = 1000 * k;
        format!(
            "<ul>{}</ul>{}{}{}",
            "<li>item with some words".repeat(n),
            "<p>paragraph, with commas, never closed".repeat(n),
            "<b><i><span>".repeat(n),
            "</div></section>".repeat(n)
        )
    };
    assert_linear(&growth(|k| main_content_work(&soup(k)).total()), "tag soup");
}

#[test]
#[ignore = "needs ../shared/data"]
fn extractor_work_grows_linearly_on_a_real_page_repeated() {
    // A real benchmark page (theguardian.com), repeated 1, 2, 4, 8 times in one document.
    let dir = benchmark();
    let (html, _, _) = page(&dir, "5fa3154ec031");
    let page = |k: usize| html.repeat(k);
    let ratios = growth(|k| main_content_work(&page(k)).total());
    assert_linear(&ratios, "real page");
}

/// Short reference pages (rustdoc items) must keep what tells them apart: the scorer alone kept
/// only the shared stability banner, and 509 distinct functions of `/usr/share/doc/rust-doc`
/// became exact duplicates of each other.
#[test]
fn short_reference_pages_keep_their_main_element() {
    let page = |name: &str, args: &str| {
        format!(
            "<html><head><title>{name}</title></head><body><nav class='sidebar'><a href='a'>Modules</a>\
             <a href='b'>Functions</a></nav><main><div class='width-limiter'><section id='main-content' \
             class='content'><div class='main-heading'><h1>Function core::arch::arm::{name}</h1>\
             <span class='out-of-band'><a class='srclink' href='src'>source</a></span></div>\
             <div class='docblock item-decl'><pre class='rust fn'><code>pub unsafe fn {name}({args}) \
             -&gt; int16x4_t</code></pre></div><span class='item-info'><div class='stab unstable'>\
             This is a nightly-only experimental API. (stdsimd #48556)</div><div class='stab portability'>\
             Available on ARM and target feature neon only.</div></span></section></div></main>\
             <footer>Rust documentation</footer></body></html>"
        )
    };
    let a = extract_main(&page("vaba_s16", "a: int16x4_t, b: int16x4_t, c: int16x4_t"), None);
    let b = extract_main(&page("vabdq_u8", "a: uint8x16_t, b: uint8x16_t"), None);
    assert_eq!(a.method, ExtractMethod::MainElement);
    assert!(a.text.contains("pub unsafe fn vaba_s16(a: int16x4_t"), "{}", a.text);
    assert!(a.text.contains("nightly-only experimental API"), "{}", a.text);
    assert!(!a.text.contains("Modules"), "the navigation outside <main> stays out: {}", a.text);
    assert_ne!(a.text, b.text);
}
