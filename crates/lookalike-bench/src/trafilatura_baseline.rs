//! The `trafilatura` extractor of `extraction-bench`: lookalike's main-content extraction as it
//! was before lookalike had its own extractor (the `trafilatura` crate 0.6, a Rust port of
//! go-trafilatura, with its readability/jusText fallback on and the `FavorPrecision` focus), kept
//! as the baseline the new extractor is measured against (`--baseline trafilatura`).
//!
//! Same guards as then: pages above [`MAX_BYTES`] or nested deeper than [`MAX_DEPTH`] (the crate
//! recurses over the tree, and a stack overflow cannot be caught) are not given to the crate, and
//! a page where it finds nothing, fails or panics gets all its visible text (here with its title
//! line: `html_to_text`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use trafilatura::{ExtractionFocus, HtmlDateMode, Options};

/// Pages larger than this (bytes) get their visible text without trying the crate.
pub const MAX_BYTES: usize = 4 << 20;

/// Pages nested deeper than this (estimated by a quick scan of the markup) get their visible
/// text.
pub const MAX_DEPTH: usize = 512;

/// The main text of `html` as lookalike extracted it with the `trafilatura` crate.
pub fn extract(html: &str, url: Option<&str>) -> String {
    if html.len() <= MAX_BYTES && nesting_depth(html, MAX_DEPTH) <= MAX_DEPTH {
        let found = catch_unwind(AssertUnwindSafe(|| trafilatura::extract(html, &options(url))));
        if let Ok(Ok(result)) = found {
            let text = result.content_text.trim();
            if !text.is_empty() {
                return text.to_owned();
            }
        }
    }
    lookalike_io::html_to_text(html.as_bytes())
}

/// The settings lookalike used (the measured best).
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
    fn deep_pages_get_their_visible_text() {
        let depth = 50_000;
        let page = format!("{}<p>deep text</p>{}", "<div>".repeat(depth), "</div>".repeat(depth));
        assert_eq!(extract(&page, None), "deep text");
    }
}
