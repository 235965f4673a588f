//! lookalike's own main-content extractor: contract: "give me an HTML page, I give you its title
//! and the text of its article, or nothing when I find none", in time linear in the page.
//!
//! Three steps, each a loop over a flat arena ([`dom`]), none recursive:
//!
//! 1. **Parse once** ([`dom::parse`]): the html5ever tokenizer feeds a small tree builder; nodes
//!    are created in document order, parents first. `script`, `style`, `iframe` and `svg`
//!    contents are not built; `noscript` content is parsed as markup (a browser without scripts
//!    shows it, and some sites put their whole article there).
//! 2. **Score** ([`score`]): one forward loop gives each node what it inherits (hidden, inside a
//!    link, the block that owns its text), one backward loop sums each subtree (characters,
//!    characters inside links, commas); then every paragraph (a block with 25 or more characters
//!    of its own text) gives points to the containers above it, as readability does: one for
//!    being there, one per comma, one per 100 characters up to three, in full to the block that
//!    holds it and in decreasing parts to three more ancestors. A container's class and id add
//!    or take away 25 (`article`, `content`, `entry`, `post`, `story`… against `comment`,
//!    `footer`, `nav`, `menu`, `sidebar`, `related`, `share`…); its score is scaled by one minus
//!    its link density. The best container wins; its parent replaces it when the parent scores
//!    nearly as well, and siblings that score well, or are prose paragraphs, join it.
//! 3. **Write** ([`write`]): the chosen subtrees become paragraphs of text, skipping boilerplate
//!    inside them (navigation, asides, footers, forms, elements whose class says boilerplate,
//!    lists and blocks made mostly of links, ruby annotations); then, as jusText does, paragraphs
//!    at the edges that do not look like prose (short, no sentence end, mostly links) are
//!    trimmed, and a "related posts" / "more stories" heading is dropped with the link lists
//!    after it.
//!
//! Every pass touches each node a bounded number of times (the ancestors a paragraph scores are
//! at most four; the parent walk and the sibling scan run once), so the work is linear in the
//! number of nodes plus the bytes of text; [`Work`] counts it, and a test checks that it grows
//! linearly with the page and with its nesting depth.

mod dom;
mod score;
mod write;

use dom::{Dom, Tag};

/// The extractor's result when it found an article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The page's title (metadata, single `h1` or `<title>`).
    pub title: Option<String>,
    /// The article's text: paragraphs separated by newlines (empty when none was found).
    pub text: String,
    /// The text is the page's `<main>` element's, taken instead of a short extraction.
    pub main_element: bool,
}

/// How much work an extraction did: nodes visited by each pass plus bytes of markup and text
/// scanned. Not a time: a count that depends only on the page, for tests that check the
/// extractor is linear.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    /// Node visits, summed over all passes.
    pub nodes: u64,
    /// Bytes read: the markup once, then the text and attributes each pass reads.
    pub bytes: u64,
}

impl Work {
    /// Nodes plus bytes.
    pub fn total(&self) -> u64 {
        self.nodes + self.bytes
    }
}

/// Extracts the title and article text of `markup`, counting the work done into `work`.
pub(crate) fn extract(markup: &str, work: &mut Work) -> Found {
    extract_parts(markup, false, work).0
}

/// As [`extract`], and also all the page's visible text, one paragraph a line, cut as the
/// article's paragraphs are (for the collection's block statistics, see
/// [`crate::extract_main_and_visible`]); from the same parse.
pub(crate) fn extract_with_visible(markup: &str, work: &mut Work) -> (Found, String) {
    let (found, visible) = extract_parts(markup, true, work);
    (found, visible.unwrap_or_default())
}

/// One parse, the article, and the visible text when `visible` asks for it.
fn extract_parts(markup: &str, visible: bool, work: &mut Work) -> (Found, Option<String>) {
    let dom = dom::parse(markup, false);
    work.bytes += markup.len() as u64 + dom.attr_bytes as u64;
    work.nodes += dom.nodes.len() as u64;
    let title = title(&dom);
    let scored = score::score(&dom, work);
    let mut text = write::write(&dom, &scored, work);
    let main = main_element_text(&dom, &scored, &text, work);
    let main_element = main.is_some();
    if let Some(main) = main {
        text = main;
    }
    let visible = visible.then(|| write::write_visible(&dom, &scored, work));
    (Found { title, text, main_element }, visible)
}

/// Below this many visible characters, an extraction is replaced by the page's `<main>` when
/// that holds more text.
const SHORT_EXTRACTION: usize = 400;

/// Below this many visible characters, an extraction is replaced by the page's `<main>` when it
/// has a line from outside `<main>`: at 400, date-stamped copies of rustdoc items with a few
/// paragraphs kept their "Printed from" line and were missed; taking `<main>` whenever it holds
/// more below 1,000 characters cost the article benchmark F1, this rule nothing
/// (bench/results/boilerplate-2026-11-28-stubs.md).
const OUTSIDE_EXTRACTION: usize = 1000;

/// The visible text of the page's first `<main>` element, when the extraction `found` is short
/// (some text, under [`SHORT_EXTRACTION`] visible characters) and `<main>` holds more text, or
/// when `found` (under [`OUTSIDE_EXTRACTION`]) has a line that is not in `<main>` (a banner or a
/// "printed from" line above it, taken with the content because the page has so little), and
/// `<main>` has 40 characters or more.
///
/// On short reference pages (a rustdoc item: its signature in a `<pre>`, perhaps a one-line
/// description, a stability banner) the scorer can keep one small block of several, and then
/// pages that differ only in the blocks left out read the same: hundreds of distinct functions
/// became exact duplicates of each other. The author marked `<main>` as the content; on a page
/// with so little text, all of it is safer than a fragment. `<main>` is taken whenever it holds
/// more, not only when it holds much more, and its text is cut into lines as the visible text
/// is: a page and its near-copy fell on either side of a "half as much again" bar, or were
/// written by two different writers, and were compared by different texts (on the labelled
/// rustdoc pages more planted near-copies are found, the article benchmark's F1 is unchanged:
/// bench/results/boilerplate-2026-11-28-stubs.md). A scan of the nodes for `<main>` and a pass
/// over its subtree, only on short extractions.
fn main_element_text(
    dom: &Dom,
    scored: &score::Scored,
    found: &str,
    work: &mut Work,
) -> Option<String> {
    let visible = |s: &str| s.chars().filter(|c| !c.is_whitespace()).count();
    let got = visible(found);
    if got == 0 || got >= OUTSIDE_EXTRACTION {
        return None;
    }
    let main = dom.nodes.iter().position(|n| n.tag == Tag::Main)? as u32;
    work.nodes += u64::from(main);
    if scored.skipped[main as usize] {
        return None;
    }
    let text = write::write_all(dom, scored, main, work);
    let in_main = visible(&text);
    // The extraction took paragraphs from outside `<main>` (a printed-from line, a banner
    // above it): on so short a page they are a large part of what is compared, and the
    // author's `<main>` is the content.
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    let main_squashed = squash(&text);
    let outside = found.lines().any(|l| {
        let l = squash(l);
        !l.is_empty() && !main_squashed.contains(&l)
    });
    let more = in_main > got && got < SHORT_EXTRACTION;
    ((more || outside) && in_main >= 40).then_some(text)
}

/// The page's title: its metadata title, else its only `h1`, else its `<title>`.
fn title(dom: &Dom) -> Option<String> {
    let clean = |s: &str| {
        let t = s.split_whitespace().collect::<Vec<_>>().join(" ");
        (!t.is_empty()).then_some(t)
    };
    if let Some(t) = dom.meta_title.as_deref().and_then(clean) {
        return Some(t);
    }
    let mut h1 = None;
    let mut count = 0;
    for (i, n) in dom.nodes.iter().enumerate() {
        if n.tag == Tag::Heading(1) {
            count += 1;
            h1 = Some(i as u32);
        }
    }
    if count == 1
        && let Some(t) = h1.and_then(|h| clean(&write::plain_text(dom, h)))
    {
        return Some(t);
    }
    dom.title.as_deref().and_then(clean)
}

/// A description of the extractor's decisions on `markup`: the best-scoring candidates and the
/// chosen subtrees, each with its path of tags, classes and ids (for tuning; not stable).
pub(crate) fn explain(markup: &str) -> String {
    use std::fmt::Write as _;
    let dom = dom::parse(markup, true);
    let mut work = Work::default();
    let scored = score::score(&dom, &mut work);
    let path = |n: u32| {
        let mut parts = Vec::new();
        let mut at = n;
        while at != dom::NONE && at != 0 {
            parts.push(dom.label(at).chars().take(60).collect::<String>());
            at = dom.nodes[at as usize].parent;
        }
        parts.reverse();
        parts.join(" > ")
    };
    let mut out = String::new();
    let mut order: Vec<u32> = (0..dom.nodes.len() as u32)
        .filter(|&i| scored.score.get(i as usize).is_some_and(|&s| s > 0.0))
        .collect();
    order.sort_by(|a, b| scored.score[*b as usize].total_cmp(&scored.score[*a as usize]));
    for &i in order.iter().take(8) {
        let _ = writeln!(
            out,
            "{:8.1} chars {:6} ld {:.2}  {}",
            scored.score[i as usize],
            scored.chars[i as usize],
            scored.link_density(i),
            path(i)
        );
    }
    if let Some(longest) = (0..dom.nodes.len() as u32)
        .filter(|&i| dom.nodes[i as usize].tag == Tag::Text)
        .max_by_key(|&i| scored.chars[i as usize])
    {
        let _ = writeln!(
            out,
            "longest text ({} chars): {}",
            scored.chars[longest as usize],
            path(longest)
        );
    }
    for &r in &scored.roots {
        let _ = writeln!(out, "root: chars {} {}", scored.chars[r as usize], path(r));
    }
    out
}
