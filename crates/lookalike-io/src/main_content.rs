//! Main-content extraction: contract: "give me an HTML page (already decoded), I give you its
//! title and the text of its main content, or all its visible text when it has none".
//!
//! Menus, footers, cookie banners and "related stories" are shared by every page of a site;
//! compared whole, two unrelated pages of one site look alike. Extraction keeps the article.
//!
//! The extractor is lookalike's own (`readable/`): the page is parsed once by the html5ever
//! tokenizer into a flat arena, containers are scored readability-style (paragraph length,
//! commas, link density, class and id names), the best one and its fitting siblings are written
//! out without their boilerplate (navigation, asides, captions, link lists, "related posts"), and
//! jusText-style rules trim non-prose lines at the edges. Every pass is a loop over the arena, so
//! the time is linear in the page and nesting depth cannot overflow the stack.
//!
//! On the article-extraction benchmark (`bench/extraction.sh`) it scores above the `trafilatura`
//! crate it replaced, no page far below it, and runs several times faster; on text-dense
//! documentation pages it costs about 1.5 times [`crate::html_to_text`]
//! (bench/results/extraction-2026-11-24.md).
//!
//! The fallback to all visible text happens when the extractor finds nothing, or without trying
//! for pages above [`MAX_MAIN_CONTENT_BYTES`] (the arena of a huge page costs memory, not time).

use crate::html;

/// Pages larger than this (bytes of decoded HTML) skip main-content extraction and get all their
/// visible text (streamed, without an arena). Real article pages are far smaller (the
/// benchmark's largest is 1.5 MB); extraction time is linear, so the limit only bounds memory.
pub const MAX_MAIN_CONTENT_BYTES: usize = 40 << 20;

/// How [`extract_main`] found a page's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtractMethod {
    /// The main content, boilerplate removed.
    Main,
    /// The text of the page's `<main>` element, taken instead of a short extraction (the
    /// author marked it as the content; see the extractor's rules for short pages).
    MainElement,
    /// All visible text ([`crate::html_to_text`] without the title line): the extractor found
    /// nothing, or the page was too large to try ([`MAX_MAIN_CONTENT_BYTES`]).
    FallbackText,
}

impl ExtractMethod {
    /// A short name for reports: `main`, `main-element` or `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExtractMethod::Main => "main",
            ExtractMethod::MainElement => "main-element",
            ExtractMethod::FallbackText => "text",
        }
    }
}

/// A page's title and text, as [`extract_main`] found them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The page's title, if it has one: from its metadata (`og:title` and the like), its only
    /// `<h1>` or its `<title>`, as the extractor judges best; from `<title>` when the extractor
    /// failed. It is kept apart from [`Extracted::text`], which may still begin with the
    /// article's own headline.
    pub title: Option<String>,
    /// The text of the main content (or of the whole page, see [`Extracted::method`]). Empty
    /// when the page has no visible text.
    pub text: String,
    /// Where the text came from.
    pub method: ExtractMethod,
}

/// The title and main-content text of an HTML page.
///
/// `html` is the page already decoded to text (charsets are found by the caller); `url`, the
/// page's address if known, only resolves relative links and never changes the text. Never
/// fails and never panics: when no main content is found the text is all the visible text, with
/// [`ExtractMethod::FallbackText`]; a page without visible text gives an empty text.
///
/// ```
/// use lookalike_io::{ExtractMethod, extract_main};
///
/// let page = "<html><head><title>Bridge report</title></head><body>\
///     <nav><a href='/'>Home</a> <a href='/news'>News</a></nav>\
///     <article><h1>Why the bridge fell</h1>\
///     <p>Investigators sampled the steelwork for fatigue cracks on Monday morning, \
///     shortly after the collapse, and sent the samples to the national laboratory.</p>\
///     <p>The bridge opened in 1972 and was due for an inspection next month; engineers \
///     suspect corrosion at the western anchorage, as in two earlier failures.</p></article>\
///     <footer>Copyright 2024 Example News. All rights reserved.</footer></body></html>";
/// let e = extract_main(page, Some("https://news.example/bridge"));
/// assert_eq!(e.method, ExtractMethod::Main);
/// // A single `<h1>` is taken for the title rather than `<title>`, which often adds the site.
/// assert_eq!(e.title.as_deref(), Some("Why the bridge fell"));
/// assert!(e.text.contains("western anchorage"));
/// assert!(!e.text.contains("All rights reserved"));
///
/// // Nothing but navigation: no main content, all the visible text.
/// let e = extract_main("<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>", None);
/// assert_eq!((e.text.as_str(), e.method), ("Home News", ExtractMethod::FallbackText));
/// ```
pub fn extract_main(html: &str, url: Option<&str>) -> Extracted {
    // The address would only resolve relative links, which the text does not show.
    let _ = url;
    let mut title = None;
    if html.len() <= MAX_MAIN_CONTENT_BYTES {
        let mut work = crate::readable::Work::default();
        let found = crate::readable::extract(html, &mut work);
        title = found.title;
        if !found.text.is_empty() {
            let method =
                if found.main_element { ExtractMethod::MainElement } else { ExtractMethod::Main };
            return Extracted { title, text: found.text, method };
        }
    }
    let (page_title, text) = visible_text(html);
    Extracted { title: title.or(page_title), text, method: ExtractMethod::FallbackText }
}

/// As [`extract_main`], and also all the page's visible text, one paragraph (block) a line,
/// cut into lines exactly as the main text is, so that a paragraph of the main text is a line of
/// the visible text: what site boilerplate removal counts across a site's pages, and falls back
/// to when the main content turns out to be the site's template (see
/// [`lookalike::boilerplate`]). One parse for both; when the extractor finds no main content,
/// the text is that visible text (cut as the statistics cut it, where [`extract_main`] falls
/// back to [`crate::html_to_text`]'s lines); the visible text of a page above
/// [`MAX_MAIN_CONTENT_BYTES`] is the extraction's own fallback text.
///
/// ```
/// use lookalike_io::extract_main_and_visible;
///
/// let page = "<nav><ul><li><a href='/'>Home</a></li><li><a href='/docs'>Docs</a></li></ul></nav>\
///     <article><p>The parser reads a configuration file, checks every key against the \
///     schema and reports the first unknown key with its line and column.</p></article>";
/// let (main, visible) = extract_main_and_visible(page, None);
/// assert!(!main.text.contains("Home"));
/// assert_eq!(visible.lines().collect::<Vec<_>>()[..2], ["Home", "Docs"]);
/// assert!(visible.lines().any(|l| l == main.text));
/// ```
pub fn extract_main_and_visible(html: &str, url: Option<&str>) -> (Extracted, String) {
    let _ = url;
    if html.len() <= MAX_MAIN_CONTENT_BYTES {
        let mut work = crate::readable::Work::default();
        let (found, visible) = crate::readable::extract_with_visible(html, &mut work);
        if !found.text.is_empty() {
            let method =
                if found.main_element { ExtractMethod::MainElement } else { ExtractMethod::Main };
            return (Extracted { title: found.title, text: found.text, method }, visible);
        }
        // No main content: the visible text, cut into lines as the statistics count them.
        let (page_title, _) = visible_text(html);
        let title = found.title.or(page_title);
        let text = visible.clone();
        return (Extracted { title, text, method: ExtractMethod::FallbackText }, visible);
    }
    let (title, text) = visible_text(html);
    let visible = text.clone();
    (Extracted { title, text, method: ExtractMethod::FallbackText }, visible)
}

/// The work [`extract_main`]'s extractor does on `html`, counted (see [`crate::Work`]): for
/// tests that check it is linear in the page, by construction rather than by the clock.
#[doc(hidden)]
pub fn main_content_work(html: &str) -> crate::Work {
    let mut work = crate::readable::Work::default();
    crate::readable::extract(html, &mut work);
    work
}

/// How the extractor decided on `html` (its best candidates and chosen subtrees, with their
/// tags, classes and ids): for tuning with `lookalike-bench extraction-bench --explain`; the
/// format is not stable.
#[doc(hidden)]
pub fn explain_main_content(html: &str) -> String {
    crate::readable::explain(html)
}

/// The page's `<title>` and its other visible text, as [`crate::html_to_text`] reads them.
///
/// `html_to_text` puts the title on the first line; it is taken off when that line is the
/// text of the page's first `<title>` element, read by the same code.
fn visible_text(markup: &str) -> (Option<String>, String) {
    let mut text = html::extract(markup);
    let title = title_element(markup).map(html::extract).filter(|t| !t.is_empty());
    if let Some(t) = &title {
        if text == *t {
            text.clear();
        } else if text.starts_with(t.as_str()) && text[t.len()..].starts_with('\n') {
            text.drain(..=t.len());
        } else {
            // The first `<title>` was not the page's title (it was inside an `<svg>`, say).
            return (None, text);
        }
    }
    (title, text)
}

/// The markup of the first `<title>` element, from its start tag to the end of its end tag (or
/// of the page).
fn title_element(markup: &str) -> Option<&str> {
    let start = find_tag(markup, b"<title", 0)?;
    let end = match find_tag(markup, b"</title", start + 6) {
        Some(close) => markup[close..].find('>').map_or(markup.len(), |gt| close + gt + 1),
        None => markup.len(),
    };
    Some(&markup[start..end])
}

/// The byte offset of the first `tag` (lower-case ASCII, like `<title`) at or after `from`,
/// matched without regard to case and followed by `>`, `/` or whitespace.
fn find_tag(markup: &str, tag: &[u8], from: usize) -> Option<usize> {
    let bytes = markup.as_bytes();
    let mut at = from;
    while let Some(i) = memchr::memchr(b'<', &bytes[at..]) {
        let i = at + i;
        let rest = &bytes[i..];
        if rest.len() > tag.len()
            && rest[..tag.len()].eq_ignore_ascii_case(tag)
            && matches!(rest[tag.len()], b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0C')
        {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_line_is_taken_off_the_fallback_text() {
        let (title, text) = visible_text("<title> A  &amp; B </title><p>x</p><p>y</p>");
        assert_eq!((title.as_deref(), text.as_str()), (Some("A & B"), "x\ny"));
        let (title, text) = visible_text("<TITLE>Only</TITLE >");
        assert_eq!((title.as_deref(), text.as_str()), (Some("Only"), ""));
        let (title, text) = visible_text("<p>no title</p>");
        assert_eq!((title, text.as_str()), (None, "no title"));
        // An unclosed title swallows the page, as in a browser.
        let (title, text) = visible_text("<title>T<p>x");
        assert_eq!((title.as_deref(), text.as_str()), (Some("T<p>x"), ""));
    }

    #[test]
    fn a_title_that_is_not_the_pages_stays_in_the_text() {
        // html_to_text skips titles inside svg; the first line is then not that title.
        let page = "<p>before</p><svg><title>icon</title></svg><p>after</p>";
        let (title, text) = visible_text(page);
        assert_eq!((title, text.as_str()), (None, "before\nafter"));
        // `<titles>` is not `<title>`.
        assert_eq!(find_tag("<titles><title>", b"<title", 0), Some(8));
        assert_eq!(find_tag("<TiTlE\n>", b"<title", 0), Some(0));
        assert_eq!(find_tag("<title", b"<title", 0), None);
    }

    /// Measured on rustdoc pages with a "Printed from URL on DATE" line before the content
    /// (bench/boilerplate.sh): the extractor took it with the short item documentation (the
    /// page's body won over its `<main>`), and the copy no longer matched its page.
    #[test]
    fn a_short_extraction_with_a_line_from_outside_main_is_main() {
        let body = "<main><section><pre>pub fn f(dst: *mut T, src: T) -&gt; T</pre>\
                    <p>Bitwise nand with the current value, returning the previous value.</p>\
                    </section></main>";
        let doc = "pub fn f(dst: *mut T, src: T) -> T\n\
                   Bitwise nand with the current value, returning the previous value.";
        let printed = "<p class='printed'>Printed from https://doc.example/fn.f.html on \
                       2024-10-16 11:52</p>";
        for page in [
            format!("<html><body>{printed}<nav><a href='/'>std</a></nav>{body}</body></html>"),
            format!("<html><body><nav><a href='/'>std</a></nav>{body}</body></html>"),
        ] {
            assert_eq!(extract_main(&page, None).text, doc, "{page}");
            assert_eq!(extract_main_and_visible(&page, None).0.text, doc, "{page}");
        }
        // The page with the printed line is read from its `<main>`, and says so (site
        // boilerplate removal trusts a `<main>` the author marked).
        let page =
            format!("<html><body>{printed}<nav><a href='/'>std</a></nav>{body}</body></html>");
        assert_eq!(extract_main(&page, None).method, ExtractMethod::MainElement);
        assert_eq!(extract_main_and_visible(&page, None).0.method, ExtractMethod::MainElement);
        // Up to 1,000 characters, a line from outside `<main>` still leaves the extraction.
        let para = "The value is read once, checked against the limits, and stored. ".repeat(4);
        let body = format!("<main><h1>f</h1><p>{para}</p><p>{para}</p><p>{para}</p></main>");
        let page = format!("<html><body><div class='content'>{printed}{body}</div></body></html>");
        let text = extract_main(&page, None).text;
        assert!(text.len() > 600 && !text.contains("Printed"), "{text}");
        // A long extraction is never second-guessed, though `<main>` holds more.
        let long = format!(
            "<html><body><main><nav><ul><li><a href='/'>Home</a></li><li><a href='/a'>About</a>\
             </li></ul></nav><article><p>{}</p></article></main></body></html>",
            "More text of the article, with a comma. ".repeat(20)
        );
        let e = extract_main(&long, None);
        assert!(e.text.starts_with("More text") && !e.text.contains("Home"), "{}", e.text);
        assert_eq!(e.method, ExtractMethod::Main);
    }

    /// The code of a `<pre>` keeps its lines in the article and in the visible text alike
    /// (it was one long line in both, and its lines never matched the same code read from
    /// `<main>`, where they were kept).
    #[test]
    fn preformatted_text_keeps_its_lines() {
        let prose = "The function reads the configuration, checks every key against the schema \
                     and reports the first unknown key with its line and column number.";
        let page = format!(
            "<html><body><nav><a href='/'>Home</a></nav><article><p>{prose}</p>\
             <pre><code><span>let a = 1;</span>\n<span>let b = a + 1;</span></code></pre>\
             <p>{prose}</p></article></body></html>"
        );
        let (main, visible) = extract_main_and_visible(&page, None);
        assert_eq!(main.method, ExtractMethod::Main);
        assert!(main.text.contains("let a = 1;\nlet b = a + 1;"), "{}", main.text);
        assert!(visible.contains("let a = 1;\nlet b = a + 1;"), "{visible}");
    }

    #[test]
    fn method_names() {
        assert_eq!(ExtractMethod::Main.as_str(), "main");
        assert_eq!(ExtractMethod::MainElement.as_str(), "main-element");
        assert_eq!(ExtractMethod::FallbackText.as_str(), "text");
    }
}
