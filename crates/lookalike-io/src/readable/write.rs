//! Writing the article: contract: "give me the chosen subtrees, I give you their text as
//! paragraphs, boilerplate inside them and non-prose at the edges taken out".

use super::Work;
use super::dom::{BLOCK, Dom, NONE, PRE, Tag};
use super::score::Scored;

/// One paragraph of output.
#[derive(Debug, Default, Clone)]
struct Para {
    text: String,
    chars: u32,
    link_chars: u32,
    heading: bool,
    list_item: bool,
}

/// The text of the article `scored` found in `dom` (empty when none).
pub(crate) fn write(dom: &Dom, scored: &Scored, work: &mut Work) -> String {
    let paras = paragraphs(dom, scored, &scored.roots, true, work);
    let keep = select(&paras);
    let mut out = String::new();
    for (p, k) in paras.iter().zip(keep) {
        if k {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&p.text);
        }
    }
    out
}

/// All the visible text of the page in `dom`, one paragraph a line, cut into paragraphs exactly
/// as [`write`] cuts the article: a paragraph of the article is a line of this text, so that
/// the collection's block statistics (which count these lines) recognize it. Nothing is
/// skipped but what a browser does not show (hidden elements, scripts, styles).
pub(crate) fn write_visible(dom: &Dom, scored: &Scored, work: &mut Work) -> String {
    if dom.nodes.is_empty() {
        return String::new();
    }
    write_all(dom, scored, 0, work)
}

/// All the visible text under `root`, one paragraph a line, cut as [`write_visible`] cuts it.
pub(crate) fn write_all(dom: &Dom, scored: &Scored, root: u32, work: &mut Work) -> String {
    let paras = paragraphs(dom, scored, &[root], false, work);
    let mut out = String::with_capacity(paras.iter().map(|p| p.text.len() + 1).sum());
    for p in &paras {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&p.text);
    }
    out
}

/// The paragraphs of the subtrees under `roots`, in document order; with `skip_boilerplate`,
/// the boilerplate elements inside them (below each root) are left out.
fn paragraphs(
    dom: &Dom,
    scored: &Scored,
    roots: &[u32],
    skip_boilerplate: bool,
    work: &mut Work,
) -> Vec<Para> {
    let mut paras: Vec<Para> = Vec::new();
    let mut cur = Para::default();
    let mut pending_space = false;
    for &root in roots {
        let mut at = Some(root);
        while let Some(i) = at {
            work.nodes += 1;
            let node = &dom.nodes[i as usize];
            let skip = scored.skipped[i as usize]
                || (skip_boilerplate && i != root && scored.boilerplate[i as usize]);
            if skip {
                at = dom.next_in(root, i, false);
                // Leaving a skipped block still ends a paragraph.
                if node.flags & BLOCK != 0 {
                    flush(&mut paras, &mut cur);
                }
                continue;
            }
            if node.flags & BLOCK != 0 || node.tag == Tag::Td {
                if node.tag == Tag::Td {
                    pending_space = true;
                } else {
                    flush(&mut paras, &mut cur);
                }
            }
            if matches!(node.tag, Tag::Heading(_)) {
                cur.heading = true;
            }
            if matches!(node.tag, Tag::Li | Tag::Dt | Tag::Dd) {
                cur.list_item = true;
            }
            if node.tag == Tag::Text {
                let text = dom.text_of(node);
                work.bytes += text.len() as u64;
                let in_link = scored.in_link[i as usize];
                append(&mut cur, text, node.flags & PRE != 0, &mut pending_space, in_link);
            }
            let next = dom.next_in(root, i, true);
            // Closing blocks between this node and the next end the paragraph.
            if let Some(nx) = next
                && dom.nodes[nx as usize].parent != i
            {
                let mut up = i;
                while up != NONE && up != dom.nodes[nx as usize].parent {
                    if dom.nodes[up as usize].flags & BLOCK != 0 {
                        flush(&mut paras, &mut cur);
                        break;
                    }
                    up = dom.nodes[up as usize].parent;
                    work.nodes += 1;
                }
            }
            at = next;
        }
        flush(&mut paras, &mut cur);
    }
    paras
}

fn flush(paras: &mut Vec<Para>, cur: &mut Para) {
    if !cur.text.is_empty() {
        paras.push(std::mem::take(cur));
    } else {
        *cur = Para::default();
    }
}

fn append(p: &mut Para, text: &str, pre: bool, pending_space: &mut bool, in_link: bool) {
    for c in text.chars() {
        if c.is_whitespace() {
            if pre && c == '\n' && !p.text.is_empty() {
                p.text.push('\n');
                *pending_space = false;
            } else {
                *pending_space = true;
            }
        } else if matches!(c, '\u{AD}' | '\u{200B}' | '\u{FEFF}') {
        } else {
            if *pending_space && !p.text.is_empty() && !p.text.ends_with('\n') {
                p.text.push(' ');
            }
            *pending_space = false;
            p.text.push(c);
            p.chars += 1;
            if in_link {
                p.link_chars += 1;
            }
        }
    }
}

/// Which paragraphs to keep: not lines made of links, not "related" blocks, and not
/// non-prose at the edges.
fn select(paras: &[Para]) -> Vec<bool> {
    let mut keep = vec![true; paras.len()];
    let density = |p: &Para| if p.chars == 0 { 1.0 } else { p.link_chars as f32 / p.chars as f32 };
    // A line that is all link inside the article points to another page ("READ MORE: ...").
    // A link written out as its address is quoted, not navigation.
    for (k, p) in keep.iter_mut().zip(paras) {
        if density(p) >= 0.8 && !is_address(&p.text) {
            *k = false;
        }
    }
    // Share buttons' labels, wherever they are.
    for (k, p) in keep.iter_mut().zip(paras) {
        if p.chars <= 20 && is_share_label(&p.text) {
            *k = false;
        }
    }
    // A short line giving a date near the top is the byline, even after a standfirst.
    let mut seen = 0;
    for (k, p) in keep.iter_mut().zip(paras) {
        if *k {
            if seen < 4 && p.chars <= 60 && has_date(&p.text) {
                *k = false;
            }
            seen += 1;
        }
    }
    drop_related(paras, &mut keep);
    // At the edges, headings, link lines and short scraps (bylines, dates, "Advertisement")
    // go; any line of some length stays, and so do runs of short lines (a list, a schedule).
    // Long paragraphs are prose even when many of their words link somewhere (a deals post).
    let good = |p: &Para| {
        !p.heading
            && (density(p) < 0.5 || (p.chars >= 200 && density(p) < 0.8))
            && !is_dateline(&p.text)
            && (p.chars >= 40 || (p.chars >= 15 && ends_sentence(&p.text)))
    };
    let line = |p: &Para| !p.heading && density(p) < 0.5 && p.chars >= 20 && !is_dateline(&p.text);
    let kept: Vec<usize> = (0..paras.len()).filter(|&i| keep[i]).collect();
    const RUN: usize = 4;
    let starts_run =
        |at: usize| kept[at..].iter().take(RUN).filter(|&&i| line(&paras[i])).count() == RUN;
    let ends_run =
        |at: usize| kept[..=at].iter().rev().take(RUN).filter(|&&i| line(&paras[i])).count() == RUN;
    let first = (0..kept.len()).find(|&k| good(&paras[kept[k]]) || starts_run(k));
    let last = (0..kept.len()).rev().find(|&k| good(&paras[kept[k]]) || ends_run(k));
    if let (Some(f), Some(l)) = (first, last) {
        for &i in kept[..f].iter().chain(&kept[l + 1..]) {
            keep[i] = false;
        }
    }
    keep
}

/// Drops a "related posts" block: a short heading that names one, and the link lists and
/// short lines after it, up to the next prose paragraph or heading.
fn drop_related(paras: &[Para], keep: &mut [bool]) {
    let mut i = 0;
    while i < paras.len() {
        let p = &paras[i];
        if p.chars <= 60 && names_related_block(&p.text) {
            keep[i] = false;
            i += 1;
            while i < paras.len() {
                let q = &paras[i];
                let ld = if q.chars == 0 { 0.0 } else { q.link_chars as f32 / q.chars as f32 };
                let listy = ld >= 0.5 || q.chars < 120;
                if q.heading && !names_related_block(&q.text) || !listy {
                    break;
                }
                keep[i] = false;
                i += 1;
            }
        } else {
            i += 1;
        }
    }
}

/// Whether a short line is the heading of a block of links to other pages.
fn names_related_block(text: &str) -> bool {
    const NAMES: &[&str] = &[
        "related",
        "you may also like",
        "you might also like",
        "you may like",
        "more stories",
        "more from",
        "more news",
        "more articles",
        "read more",
        "read next",
        "read also",
        "also read",
        "recommended",
        "most popular",
        "most read",
        "popular posts",
        "recent posts",
        "latest posts",
        "trending",
        "also on",
        "также может быть интересно",
        "читайте также",
        "похожие",
        "самые популярные",
        "lesen sie auch",
        "mehr zum thema",
        "könnte sie auch interessieren",
        "à lire aussi",
        "a lire aussi",
        "sur le même sujet",
        "te puede interesar",
        "relacionad",
        "leia também",
        "veja também",
        "potrebbe interessarti",
        "leggi anche",
        "関連記事",
        "相关文章",
        "相關文章",
        "관련기사",
    ];
    let lower = text.to_lowercase();
    NAMES.iter().any(|n| lower.contains(n))
}

/// Whether a short line says when or by whom the page was published ("Posted: …",
/// "Updated …", "By …").
fn is_dateline(t: &str) -> bool {
    if t.len() > 100 {
        return false;
    }
    let lower = t.trim_start().to_lowercase();
    ["posted", "updated", "published", "last updated", "last modified", "by "]
        .iter()
        .any(|w| lower.starts_with(w))
}

/// Whether a line has a date written out: a year (1900 to 2099) and a month's name.
fn has_date(t: &str) -> bool {
    let year = t
        .split(|c: char| !c.is_ascii_digit())
        .any(|d| d.len() == 4 && (d.starts_with("19") || d.starts_with("20")));
    if !year {
        return false;
    }
    const MONTHS: &[&str] =
        &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    t.split(|c: char| !c.is_alphabetic()).any(|w| {
        let w = w.to_lowercase();
        w.len() >= 3 && MONTHS.iter().any(|m| w.starts_with(m))
    })
}

/// Whether a short line is the label of share buttons.
fn is_share_label(t: &str) -> bool {
    let lower = t.trim().trim_end_matches(['!', ':', '.']).to_lowercase();
    matches!(
        lower.as_str(),
        "share"
            | "share this"
            | "share this article"
            | "share on facebook"
            | "share on twitter"
            | "tweet"
            | "email"
            | "print"
            | "sharing is caring"
            | "facebook"
            | "twitter"
            | "pinterest"
            | "linkedin"
            | "whatsapp"
    )
}

/// Whether a line is a web address (`http://…`, `www.…`).
fn is_address(t: &str) -> bool {
    let t = t.trim();
    (t.starts_with("http://") || t.starts_with("https://") || t.starts_with("www."))
        && !t.contains(char::is_whitespace)
}

fn ends_sentence(t: &str) -> bool {
    t.trim_end()
        .chars()
        .next_back()
        .is_some_and(|c| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '"' | '”' | '»' | ':'))
}

/// All the visible text under `n`, spaces collapsed (for titles).
pub(crate) fn plain_text(dom: &Dom, n: u32) -> String {
    let mut out = String::new();
    let mut at = Some(n);
    while let Some(i) = at {
        let node = &dom.nodes[i as usize];
        if node.tag == Tag::Text {
            out.push_str(dom.text_of(node));
            out.push(' ');
        }
        at = dom.next_in(n, i, true);
    }
    out
}
