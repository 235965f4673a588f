//! Main-content extraction: contract: "give me an HTML page (already decoded), I give you its
//! title and the text of its main content, or all its visible text when it has none".
//!
//! Menus, footers, cookie banners and "related stories" are shared by every page of a site;
//! compared whole, two unrelated pages of one site look alike. Extraction keeps the article.
//!
//! The extractor is the `trafilatura` crate (a Rust port of go-trafilatura, itself a port of
//! Python trafilatura), with its readability/jusText fallback on and the `FavorPrecision` focus.
//! It was chosen by measurement (`lookalike-bench extraction-bench`; the other crates compared are
//! in `crates/lookalike-bench/candidates/`): on the article-extraction benchmark (181 real pages)
//! it scores F1 0.969 (precision 0.958, recall 0.980) at about 30 MB of HTML per second on one
//! core, against F1 0.667 for all visible text ([`crate::html_to_text`]). Comments and dates are
//! not extracted: nothing here uses them.
//!
//! The speed depends on how much of a page is text: real pages, mostly markup and scripts, go
//! at about 30 MB/s, while text-dense markup (a long article with little around it) goes at 1 to
//! 4 MB/s. `html_to_text` streams at about 200 MB/s either way.
//!
//! The fallback to all visible text happens when the extractor finds nothing, returns an error,
//! or panics (a panic is caught with [`std::panic::catch_unwind`]; its message still reaches the
//! panic hook, by default stderr), and without trying for pages above
//! [`MAX_MAIN_CONTENT_BYTES`] (a DOM of the whole page is costly) or nested deeper than
//! [`MAX_MAIN_CONTENT_DEPTH`] (the extractor recurses, and a stack overflow cannot be caught).

use std::panic::{AssertUnwindSafe, catch_unwind};

use trafilatura::{ExtractionFocus, HtmlDateMode, Options};

use crate::html;

/// Pages larger than this (bytes of decoded HTML) skip main-content extraction, which builds a
/// DOM of the whole page and reads text-dense markup at only 1 to 4 MB/s, and get all their
/// visible text. Real article pages are smaller (the benchmark's largest is 1.5 MB).
pub const MAX_MAIN_CONTENT_BYTES: usize = 4 << 20;

/// Pages whose elements nest deeper than this (as estimated by a quick scan of the markup) skip
/// main-content extraction and get all their visible text: the extractor recurses over the tree
/// (a few thousand levels overflow a 2 MiB thread stack, which aborts the process) and its time
/// grows with the square of the depth. Real pages stay far below (the deepest benchmark page is
/// estimated at 49).
pub const MAX_MAIN_CONTENT_DEPTH: usize = 512;

/// How [`extract_main`] found a page's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtractMethod {
    /// The main content, boilerplate removed.
    Main,
    /// All visible text ([`crate::html_to_text`] without the title line): the extractor found
    /// nothing or failed, or the page was too large or too deeply nested to try.
    FallbackText,
}

impl ExtractMethod {
    /// A short name for reports: `main` or `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExtractMethod::Main => "main",
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
    let mut title = None;
    if html.len() <= MAX_MAIN_CONTENT_BYTES
        && nesting_depth(html, MAX_MAIN_CONTENT_DEPTH) <= MAX_MAIN_CONTENT_DEPTH
    {
        let found = catch_unwind(AssertUnwindSafe(|| trafilatura::extract(html, &options(url))));
        if let Ok(Ok(result)) = found {
            title = non_empty(result.metadata.title);
            let text = result.content_text.trim();
            if !text.is_empty() {
                return Extracted { title, text: text.to_owned(), method: ExtractMethod::Main };
            }
        }
    }
    let (page_title, text) = visible_text(html);
    Extracted { title: title.or(page_title), text, method: ExtractMethod::FallbackText }
}

/// [`extract_main`] with lookalike's own extractor.
pub fn extract_main_fast(html: &str, _url: Option<&str>) -> Extracted {
    let mut work = crate::readable::Work::default();
    let found = crate::readable::extract(html, &mut work);
    let text = found.text.trim();
    if !text.is_empty() {
        return Extracted { title: found.title, text: text.to_owned(), method: ExtractMethod::Main };
    }
    let (page_title, text) = visible_text(html);
    Extracted { title: found.title.or(page_title), text, method: ExtractMethod::FallbackText }
}

/// The work the main-content extractor does on `html` (see [`crate::Work`]).
#[doc(hidden)]
pub fn main_content_work(html: &str) -> crate::Work {
    let mut work = crate::readable::Work::default();
    crate::readable::extract(html, &mut work);
    work
}

/// How the extractor decided on `html` (candidates and chosen subtrees; for tuning, not stable).
#[doc(hidden)]
pub fn explain_main_content(html: &str) -> String {
    crate::readable::explain(html)
}

/// The extractor's settings: the measured best (see the module docs).
fn options(url: Option<&str>) -> Options {
    let mut opts = Options::default()
        .with_fallback(true)
        .with_focus(ExtractionFocus::FavorPrecision)
        .with_exclude_comments(true);
    opts.html_date_mode = HtmlDateMode::Disabled;
    if let Some(url) = url.and_then(|u| url::Url::parse(u).ok()) {
        opts = opts.with_url(url);
    }
    opts
}

fn non_empty(s: String) -> Option<String> {
    let t = s.trim();
    if t.is_empty() {
        None
    } else if t.len() == s.len() {
        Some(s)
    } else {
        Some(t.to_owned())
    }
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

/// How deep the page's elements nest, estimated in one pass over the bytes without building a
/// tree; the scan stops as soon as the depth exceeds `limit`.
///
/// Start tags open an element and end tags close one, except for void elements, elements
/// whose end tag is usually left out (`p`, `li`, `td`, ...) and self-closing tags (SVG icons);
/// comments and the contents of raw-text elements (`script`, `style`, ...) are skipped. An
/// estimate is enough: it only keeps pathological pages away from the extractor.
fn nesting_depth(markup: &str, limit: usize) -> usize {
    let bytes = markup.as_bytes();
    let (mut at, mut depth, mut deepest) = (0, 0usize, 0);
    while let Some(i) = memchr::memchr(b'<', &bytes[at..]) {
        let lt = at + i;
        let rest = &bytes[lt + 1..];
        match rest.first() {
            Some(b'!') => {
                let (end, skip) =
                    if rest.starts_with(b"!--") { (&b"-->"[..], 4) } else { (&b">"[..], 2) };
                at = memchr::memmem::find(&bytes[lt + skip..], end)
                    .map_or(bytes.len(), |e| lt + skip + e + end.len());
            }
            Some(b'/') => {
                if nests(tag_name(&rest[1..])) {
                    depth = depth.saturating_sub(1);
                }
                at = lt + 2;
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let Some(gt) = memchr::memchr(b'>', rest) else { break };
                let name = tag_name(rest);
                at = lt + 1 + gt + 1;
                if rest[gt.saturating_sub(1)] == b'/' {
                    continue;
                }
                let mut close = [0u8; 16];
                if let Some(raw) = raw_text_end_tag(name, &mut close) {
                    match find_tag(markup, raw, at) {
                        Some(end) => at = end,
                        None => break,
                    }
                } else if nests(name) {
                    depth += 1;
                    deepest = deepest.max(depth);
                    if deepest > limit {
                        break;
                    }
                }
            }
            _ => at = lt + 1,
        }
    }
    deepest
}

/// The name of the tag that starts `rest` (after `<` or `</`).
fn tag_name(rest: &[u8]) -> &[u8] {
    let end = rest
        .iter()
        .position(|&b| matches!(b, b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0C'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Whether an element of this name holds the elements after it until its end tag.
fn nests(name: &[u8]) -> bool {
    const FLAT: &[&[u8]] = &[
        // Void elements.
        b"area",
        b"base",
        b"basefont",
        b"bgsound",
        b"br",
        b"col",
        b"embed",
        b"frame",
        b"hr",
        b"img",
        b"image",
        b"input",
        b"keygen",
        b"link",
        b"meta",
        b"param",
        b"source",
        b"track",
        b"wbr",
        // Elements whose end tag is implied by the next one of their kind.
        b"p",
        b"li",
        b"dt",
        b"dd",
        b"option",
        b"optgroup",
        b"tr",
        b"td",
        b"th",
        b"thead",
        b"tbody",
        b"tfoot",
        b"colgroup",
        b"rb",
        b"rt",
        b"rp",
        b"rtc",
    ];
    !name.is_empty() && !FLAT.iter().any(|f| f.eq_ignore_ascii_case(name))
}

/// For a raw-text element (whose content is not markup), the lower-case start of its end tag
/// (`</script`), written into `buf`.
fn raw_text_end_tag<'b>(name: &[u8], buf: &'b mut [u8; 16]) -> Option<&'b [u8]> {
    const RAW: &[&[u8]] = &[
        b"script",
        b"style",
        b"textarea",
        b"title",
        b"xmp",
        b"iframe",
        b"noembed",
        b"noframes",
        b"noscript",
        b"plaintext",
    ];
    let raw = RAW.iter().find(|r| r.eq_ignore_ascii_case(name))?;
    buf[..2].copy_from_slice(b"</");
    buf[2..2 + raw.len()].copy_from_slice(raw);
    Some(&buf[..2 + raw.len()])
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

    #[test]
    fn oversized_pages_fall_back_without_parsing() {
        let para = "<p>Some words of a rather long page, repeated to make it large.</p>";
        let page =
            format!("<title>Big</title>{}", para.repeat(MAX_MAIN_CONTENT_BYTES / para.len() + 1));
        let e = extract_main(&page, None);
        assert_eq!(e.method, ExtractMethod::FallbackText);
        assert_eq!(e.title.as_deref(), Some("Big"));
        assert!(e.text.starts_with("Some words"));
    }

    #[test]
    fn nesting_depth_estimates() {
        assert_eq!(nesting_depth("<div><div><p>a<p>b</div></div><div>", 100), 2);
        assert_eq!(nesting_depth("<!-- <div><div><div> --><div><!doctype html>", 100), 1);
        assert_eq!(nesting_depth("<script>'<div><div>'</script><div><STYLE>a<b</style>", 100), 1);
        assert_eq!(nesting_depth("<svg><path d='M0'/><path/></svg><br><img src=x><hr>", 100), 1);
        assert_eq!(nesting_depth("<DIV><Div class='a>b'>", 100), 2);
        assert_eq!(nesting_depth("<ul><li><ul><li><ul><li>x", 100), 3);
        assert_eq!(nesting_depth("a < b, c <3, </div></div>", 100), 0);
        assert_eq!(nesting_depth("<script>never closed <div>", 100), 0);
        assert_eq!(nesting_depth(&"<span>".repeat(1000), 10), 11);
        assert_eq!(nesting_depth("", 10), 0);
    }

    #[test]
    fn method_names() {
        assert_eq!(ExtractMethod::Main.as_str(), "main");
        assert_eq!(ExtractMethod::FallbackText.as_str(), "text");
    }
}
