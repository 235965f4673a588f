//! Candidate scoring: contract: "give me the tree, I give you the subtrees that hold the article,
//! and per node its text, link text and whether it is boilerplate", in a bounded number of loops
//! over the arena.

use super::Work;
use super::dom::{
    BLOCK, CAPTION, Dom, HIDDEN, INVISIBLE, LINK, MARKED_BOILERPLATE, MARKED_CONTENT, NONE,
    STRONG_NEGATIVE, Tag,
};

/// Per-node facts and the chosen subtrees.
#[derive(Debug, Default)]
pub(crate) struct Scored {
    /// Visible characters (not whitespace) in the subtree.
    pub chars: Vec<u32>,
    /// Of those, the ones inside links.
    pub link_chars: Vec<u32>,
    /// The node or one of its ancestors is not visible text (hidden, a control, the head).
    pub skipped: Vec<bool>,
    /// The node is boilerplate when found inside the article (its subtree is not written).
    pub boilerplate: Vec<bool>,
    /// The node is inside a link.
    pub in_link: Vec<bool>,
    /// The subtrees that make up the article, in document order.
    pub roots: Vec<u32>,
    /// Each node's final score (0 when not a candidate).
    pub score: Vec<f32>,
}

impl Scored {
    pub(crate) fn link_density(&self, n: u32) -> f32 {
        let c = self.chars[n as usize];
        if c == 0 { 0.0 } else { self.link_chars[n as usize] as f32 / c as f32 }
    }
}

/// Own text of a block shorter than this (in characters) is not a paragraph.
const MIN_PARAGRAPH: u32 = 25;

pub(crate) fn score(dom: &Dom, work: &mut Work) -> Scored {
    let n = dom.nodes.len();
    let mut s = Scored {
        chars: vec![0; n],
        link_chars: vec![0; n],
        skipped: vec![false; n],
        boilerplate: vec![false; n],
        in_link: vec![false; n],
        roots: Vec::new(),
        score: Vec::new(),
    };
    // The block that owns each node's text, and whether it is inside a link: inherited, so a
    // forward loop (parents come first).
    let mut owner = vec![0u32; n];
    let mut in_link = std::mem::take(&mut s.in_link);
    // Paragraphs: runs of text owned by one block, cut at `br` (text laid out with line breaks
    // instead of `p` elements is several paragraphs, as a reader sees it).
    let mut run_chars = vec![0u32; n];
    let mut run_commas = vec![0u32; n];
    let mut paragraphs: Vec<(u32, u32, u32)> = Vec::new();
    // Inside a container whose class or tag says boilerplate: not a candidate.
    let mut in_boilerplate = vec![false; n];
    for i in 1..n {
        let node = &dom.nodes[i];
        let p = node.parent as usize;
        s.skipped[i] = s.skipped[p] || node.flags & (INVISIBLE | HIDDEN) != 0;
        in_link[i] = in_link[p] || node.flags & LINK != 0;
        owner[i] = if dom.nodes[p].flags & BLOCK != 0 || dom.nodes[p].tag == Tag::Td {
            p as u32
        } else {
            owner[p]
        };
        if node.tag == Tag::Text && !s.skipped[i] {
            let text = dom.text_of(node);
            work.bytes += text.len() as u64;
            let (chars, commas) = count_text(text);
            s.chars[i] = chars;
            if in_link[i] {
                s.link_chars[i] = chars;
            }
            let o = owner[i] as usize;
            run_chars[o] += chars;
            run_commas[o] += commas;
        } else if node.tag == Tag::Br || node.flags & BLOCK != 0 {
            // A line break ends the run of its block; a block starting inside another ends
            // the run of the outer one too.
            let o = if node.tag == Tag::Br { owner[i] as usize } else { p };
            if run_chars[o] > 0 {
                paragraphs.push((o as u32, run_chars[o], run_commas[o]));
                run_chars[o] = 0;
                run_commas[o] = 0;
            }
        }
    }
    for o in 0..n {
        if run_chars[o] > 0 {
            paragraphs.push((o as u32, run_chars[o], run_commas[o]));
        }
    }
    work.nodes += n as u64;
    s.in_link = in_link;
    // Sums over subtrees: a backward loop (children come after their parent).
    for i in (1..n).rev() {
        let p = dom.nodes[i].parent as usize;
        s.chars[p] += s.chars[i];
        s.link_chars[p] += s.link_chars[i];
    }
    work.nodes += n as u64;
    // Boilerplate containers, inherited. A container that holds most of the page's text is a
    // wrapper whatever its class says (`page-ad-margins`).
    let wrapper = s.chars[0] / 5 * 3;
    // Characters inside `article` elements (or elements marked as the article body): a
    // container with "sidebar" in its class that holds the article is a layout wrapper.
    let mut article_chars = vec![0u32; n];
    for i in (1..n).rev() {
        let node = &dom.nodes[i];
        if node.tag == Tag::Article || node.flags & MARKED_CONTENT != 0 {
            article_chars[i] = s.chars[i];
        }
        article_chars[node.parent as usize] += article_chars[i];
    }
    for i in 1..n {
        let node = &dom.nodes[i];
        in_boilerplate[i] = in_boilerplate[node.parent as usize]
            || (node.flags & MARKED_CONTENT == 0
                && s.chars[i] <= wrapper
                && article_chars[i] * 2 < s.chars[i]
                && (node.flags & (STRONG_NEGATIVE | MARKED_BOILERPLATE) != 0
                    || matches!(node.tag, Tag::Nav | Tag::Aside | Tag::Footer)));
    }
    work.nodes += n as u64;

    // Paragraph points to the containers above.
    let mut points = vec![0f32; n];
    let mut scored = vec![false; n];
    for &(b, chars, commas) in &paragraphs {
        let b = b as usize;
        if chars < MIN_PARAGRAPH || s.skipped[b] {
            continue;
        }
        let node = &dom.nodes[b];
        let value = 1.0 + commas as f32 + (chars as f32 / 100.0).min(3.0);
        // A container that holds text itself is scored for it; a paragraph's text scores
        // the paragraph's parent.
        let mut at = if is_container(node.tag) { b as u32 } else { node.parent };
        let mut level = 0;
        while at != NONE && at != 0 && level < 4 {
            let divider = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f32 * 3.0,
            };
            points[at as usize] += value / divider;
            scored[at as usize] = true;
            at = dom.nodes[at as usize].parent;
            level += 1;
        }
        work.nodes += level as u64 + 1;
    }

    // Final scores and the best container.
    let mut best = NONE;
    let mut best_score = 0f32;
    let mut final_score = vec![0f32; n];
    for i in 1..n {
        if !scored[i] || s.skipped[i] || in_boilerplate[i] {
            continue;
        }
        let node = &dom.nodes[i];
        let base = initial_score(node.tag) + node.weight as f32 + marked_bonus(node.flags);
        let f = (points[i] + base) * (1.0 - s.link_density(i as u32));
        final_score[i] = f;
        if f > best_score {
            best_score = f;
            best = i as u32;
        }
    }
    work.nodes += n as u64;
    boilerplate(dom, &mut s, work);
    s.score = final_score.clone();
    if best == NONE {
        return s;
    }

    // When several of the best candidates lie under one ancestor of the best, the article is
    // split over them (one wrapper per paragraph): that ancestor is the article.
    let mut top = best;
    let mut rivals: Vec<u32> = (1..n as u32)
        .filter(|&i| i != best && final_score[i as usize] >= best_score * 0.75)
        .collect();
    work.nodes += n as u64;
    if rivals.len() >= 2 {
        rivals.sort_by(|a, b| final_score[*b as usize].total_cmp(&final_score[*a as usize]));
        rivals.truncate(5);
        // Mark the best's ancestors with their distance, then find each rival's nearest
        // marked ancestor.
        let mut up = vec![];
        let mut at = dom.nodes[best as usize].parent;
        while at != NONE && at != 0 {
            up.push(at);
            at = dom.nodes[at as usize].parent;
        }
        let mut mark = vec![u32::MAX; n];
        for (k, &u) in up.iter().enumerate() {
            mark[u as usize] = k as u32;
        }
        let mut hits = vec![0u32; up.len()];
        for &r in &rivals {
            let mut at = r;
            while at != NONE && at != 0 {
                work.nodes += 1;
                let k = mark[at as usize];
                if k != u32::MAX {
                    hits[k as usize] += 1;
                    break;
                }
                at = dom.nodes[at as usize].parent;
            }
        }
        // Hits at an ancestor count for all the ancestors above it.
        for k in 1..hits.len() {
            hits[k] += hits[k - 1];
        }
        if let Some(k) = hits.iter().position(|&h| h >= 2)
            && dom.nodes[up[k] as usize].tag != Tag::Body
            && dom.nodes[up[k] as usize].tag != Tag::Html
        {
            top = up[k];
        }
    }

    let best_score = final_score[top as usize].max(best_score);
    // A parent that scores nearly as well holds more of the article (its text is split over
    // several children).
    let mut last = best_score;
    let mut parent = dom.nodes[top as usize].parent;
    while parent != NONE && parent != 0 && dom.nodes[parent as usize].tag != Tag::Body {
        let ps = final_score[parent as usize];
        if ps < best_score / 3.0 {
            break;
        }
        if ps > last {
            top = parent;
            break;
        }
        last = ps;
        parent = dom.nodes[parent as usize].parent;
        work.nodes += 1;
    }
    // The only child of its parent: the parent is the same content with more around it.
    while dom.nodes[top as usize].parent != NONE {
        let p = dom.nodes[top as usize].parent;
        if p == 0
            || dom.nodes[p as usize].tag == Tag::Body
            || s.chars[p as usize] != s.chars[top as usize]
        {
            break;
        }
        top = p;
        work.nodes += 1;
    }
    let top_score = final_score[top as usize].max(best_score);

    // Siblings that belong to the article.
    let parent = dom.nodes[top as usize].parent;
    if parent == NONE {
        s.roots.push(top);
        return s;
    }
    let threshold = (top_score * 0.2).max(10.0);
    let top_weight = dom.nodes[top as usize].weight;
    let mut c = dom.nodes[parent as usize].first_child;
    while c != NONE {
        work.nodes += 1;
        let node = &dom.nodes[c as usize];
        let keep = if c == top {
            true
        } else if s.skipped[c as usize] || s.boilerplate[c as usize] || node.tag == Tag::Text {
            false
        } else {
            let bonus =
                if top_weight > 0 && node.weight == top_weight { top_score * 0.2 } else { 0.0 };
            let ld = s.link_density(c);
            let chars = s.chars[c as usize];
            final_score[c as usize] + bonus >= threshold
                || (node.tag == Tag::P && chars > 80 && ld < 0.25)
                || (node.tag == Tag::P && chars > 0 && ld == 0.0 && ends_sentence(dom, c))
        };
        if keep {
            s.roots.push(c);
        }
        c = node.next_sibling;
    }
    s
}

/// Characters that are not whitespace, and commas (ASCII and CJK).
fn count_text(text: &str) -> (u32, u32) {
    let mut chars = 0;
    let mut commas = 0;
    for c in text.chars() {
        if !c.is_whitespace() {
            chars += 1;
            if matches!(c, ',' | '，' | '、' | '،') {
                commas += 1;
            }
        }
    }
    (chars, commas)
}

fn is_container(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::Div | Tag::Section | Tag::Article | Tag::Main | Tag::Td | Tag::Body | Tag::Other
    )
}

fn initial_score(tag: Tag) -> f32 {
    match tag {
        Tag::Div | Tag::Article => 5.0,
        Tag::Pre | Tag::Td | Tag::Blockquote => 3.0,
        Tag::Address | Tag::Ol | Tag::Ul | Tag::Dl | Tag::Dd | Tag::Dt | Tag::Li | Tag::Form => {
            -3.0
        }
        Tag::Heading(_) => -5.0,
        _ => 0.0,
    }
}

fn marked_bonus(flags: u16) -> f32 {
    if flags & MARKED_CONTENT != 0 {
        25.0
    } else if flags & MARKED_BOILERPLATE != 0 {
        -25.0
    } else {
        0.0
    }
}

/// Whether the text of `n` ends like a sentence.
fn ends_sentence(dom: &Dom, n: u32) -> bool {
    let mut last = None;
    let mut at = Some(n);
    while let Some(i) = at {
        let node = &dom.nodes[i as usize];
        if node.tag == Tag::Text {
            let t = dom.text_of(node).trim_end();
            if !t.is_empty() {
                last = t.chars().next_back();
            }
        }
        at = dom.next_in(n, i, true);
    }
    last.is_some_and(|c| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '"' | '”' | '»'))
}

/// Marks the elements that are boilerplate when they appear inside the article.
fn boilerplate(dom: &Dom, s: &mut Scored, work: &mut Work) {
    let wrapper = s.chars[0] / 5 * 3;
    for i in 1..dom.nodes.len() {
        let node = &dom.nodes[i];
        if node.tag == Tag::Text {
            continue;
        }
        let chars = s.chars[i];
        let ld = s.link_density(i as u32);
        let by_tag = matches!(
            node.tag,
            Tag::Nav | Tag::Aside | Tag::Footer | Tag::Form | Tag::Figure | Tag::Figcaption
        ) || node.flags & MARKED_BOILERPLATE != 0;
        // Inline elements stay: a link classed `tag` inside a sentence is part of it.
        let by_class = node.weight < 0
            && node.flags & MARKED_CONTENT == 0
            && chars <= wrapper
            && (node.flags & BLOCK != 0 || node.tag == Tag::Td);
        // Blocks and lists made mostly of links: menus, tag clouds, "related" lists.
        let links = match node.tag {
            Tag::Ul | Tag::Ol | Tag::Dl | Tag::Table | Tag::Div | Tag::Section | Tag::Header => {
                chars > 0 && ld > 0.5
            }
            Tag::Li | Tag::P => false,
            _ => false,
        };
        let noscript_stub = node.tag == Tag::Noscript && chars < 200;
        let caption = node.flags & CAPTION != 0 && chars <= wrapper;
        s.boilerplate[i] = by_tag || by_class || links || noscript_stub || caption;
    }
    work.nodes += dom.nodes.len() as u64;
}
