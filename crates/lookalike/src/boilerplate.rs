//! Site boilerplate: contract: "show me every page of a collection as its blocks (lines) and its
//! site, I tell you which blocks are the site's template; then give me a page, I give it back
//! without them".
//!
//! Menus, sidebars, footers, notices and generated lists (rustdoc's trait implementations) are
//! written by a site's template into many of its pages. A single page cannot tell them from its
//! content; the collection can: a block that repeats across many pages of one site is template
//! (Bar-Yossef & Rajagopalan 2002, "template detection"; CCNet and Dolma remove repeated
//! paragraphs the same way). Compared whole, two different pages of one site share their
//! template and look alike; with it removed, they are compared by what each says.
//!
//! **Blocks.** A block is one line of a page's extracted text (a paragraph, a list item, a
//! heading, a table row), normalized as the shingler normalizes ([`crate::text::normalize`]: case,
//! punctuation and whitespace folded), and identified by the 128-bit xxh3 of that normalized text
//! ([`BlockHasher`]). Lines without a token are not blocks.
//!
//! **The rule.** [`BlockCounts`] counts, for every site, in how many *distinct pages* each block
//! appears. A page counts once per distinct text: copies of one page (a mirror path, a revisit
//! of a URL) are one page, and so are texts that differ only in their numbers (a re-post with a
//! new date, a counter), so a page and such copies of it never make their own content template.
//! A block is template on a site when it appears in at least [`BoilerplateRule::min_pages`]
//! distinct pages and in at least [`BoilerplateRule::min_share`] of the site's distinct pages. A
//! site with fewer distinct pages than `min_pages` has no template: single pages and small sites
//! are left as they are. Two different near-copies of a page on one site share their content
//! blocks in two pages, which is below the default `min_pages`; a page with `min_pages - 1` or
//! more different near-copies of it on one small site can lose content that way (measured in
//! `bench/boilerplate.sh`).
//!
//! **Memory.** One entry per distinct (site, block) pair, 16 bytes in a hash table (the site's
//! number mixed into the block's 64 bits: one key). When the table reaches
//! [`BlockCounts::with_max_entries`]'s bound, the entries seen in only one page so far
//! are dropped (lossy counting, Manku & Motwani 2002): a block whose entry was dropped is
//! undercounted by at most the number of such rounds, so template blocks, which repeat from the
//! start, are still found; the number of rounds is reported ([`Template::pruned`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::text::normalize::{NormalizedText, normalize_into};

/// Turns lines into block keys: the xxh3-128 of the line's normalized text.
///
/// ```
/// use lookalike::boilerplate::BlockHasher;
///
/// let mut h = BlockHasher::default();
/// assert_eq!(h.key("Next page »"), h.key("next   PAGE"));
/// assert_ne!(h.key("Next page"), h.key("Previous page"));
/// assert_eq!(h.key("  -- | --  "), None);
/// ```
#[derive(Debug, Default)]
pub struct BlockHasher {
    norm: NormalizedText,
}

impl BlockHasher {
    /// The key of `line`, or `None` when it has no token (blank lines, punctuation only).
    pub fn key(&mut self, line: &str) -> Option<u128> {
        normalize_into(line, &mut self.norm);
        if self.norm.is_empty() {
            return None;
        }
        Some(xxhash_rust::xxh3::xxh3_128(self.norm.text.as_bytes()))
    }

    /// The identity of a page for counting, from its normalized lines: the text with every
    /// token made only of digits left out, so that copies differing in dates, counters or
    /// version numbers are one page.
    fn digitless(&self, into: &mut xxhash_rust::xxh3::Xxh3) {
        for tok in self.norm.token_strs() {
            if !tok.bytes().all(|b| b.is_ascii_digit()) {
                into.update(tok.as_bytes());
                into.update(b" ");
            }
        }
        into.update(b"\n");
    }
}

/// One page as block statistics see it: its distinct block keys and its identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageBlocks {
    /// The page's distinct blocks (the low 64 bits of their keys), sorted.
    pub blocks: Vec<u64>,
    /// What makes two pages the same page: the hash of the normalized text of all its lines,
    /// numbers left out.
    pub identity: u64,
}

impl PageBlocks {
    /// The blocks of the lines of `texts` (one or more texts of the same page, for instance
    /// its main text and its visible text: their lines are counted once each).
    ///
    /// The identity is taken from the first text only.
    pub fn of_texts<'a>(
        hasher: &mut BlockHasher,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut blocks = Vec::new();
        let mut identity = xxhash_rust::xxh3::Xxh3::new();
        for (i, text) in texts.into_iter().enumerate() {
            for line in text.lines() {
                if let Some(k) = hasher.key(line) {
                    blocks.push(k as u64);
                    if i == 0 {
                        hasher.digitless(&mut identity);
                    }
                }
            }
        }
        blocks.sort_unstable();
        blocks.dedup();
        PageBlocks { blocks, identity: identity.digest() }
    }
}

/// Which documents site boilerplate removal cleans.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum BoilerplateMode {
    /// Web pages: HTML files, WARC responses and docreader pages (the default).
    #[default]
    Auto,
    /// Every document, plain text and JSONL/Parquet records too (their lines are the blocks).
    All,
    /// No removal: each page's text as the extractor gives it.
    Off,
}

impl std::str::FromStr for BoilerplateMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        <Self as clap::ValueEnum>::from_str(s, false)
            .map_err(|_| format!("unknown boilerplate mode {s:?}: expected auto, all or off"))
    }
}

impl BoilerplateMode {
    /// `auto`, `all` or `off`.
    pub fn name(self) -> &'static str {
        match self {
            BoilerplateMode::Auto => "auto",
            BoilerplateMode::All => "all",
            BoilerplateMode::Off => "off",
        }
    }
}

/// A template learned from a sample of a collection, with how its pages were read: what a
/// persistent index keeps so that each page it is given alone is cleaned as `lookalike dedup`
/// cleans the collection (the pages of a site the sample did not have are left as they are).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SiteTemplate {
    /// Which documents are cleaned ([`BoilerplateMode::Auto`] or [`BoilerplateMode::All`]).
    pub mode: BoilerplateMode,
    /// The JSONL/Parquet field that named each record's site, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_field: Option<String>,
    /// The template blocks of every site of the sample.
    pub template: Template,
}

impl SiteTemplate {
    /// Sites of the sample, those with a template, and template blocks over all sites.
    pub fn figures(&self) -> (u64, u64, u64) {
        let mut f = (0, 0, 0);
        for (i, (_, _, blocks)) in self.template.sites().enumerate() {
            f.0 += 1;
            f.1 += u64::from(self.template.has_template(i as SiteId));
            f.2 += u64::from(blocks);
        }
        f
    }
}

/// When a block is template on a site (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BoilerplateRule {
    /// A template block appears in at least this many distinct pages of the site (and a site
    /// with fewer distinct pages has no template).
    pub min_pages: u32,
    /// ... and in at least this share of the site's distinct pages (0 to 1).
    pub min_share: f64,
}

impl Default for BoilerplateRule {
    /// `min_pages` 4, `min_share` 0.02: chosen on labelled documentation sites and crawl
    /// records (`bench/boilerplate.sh`, `bench/results/`).
    fn default() -> Self {
        BoilerplateRule { min_pages: 4, min_share: 0.02 }
    }
}

impl BoilerplateRule {
    /// `share` as a [`BoilerplateRule::min_share`]: a number from 0 to 1, or why not.
    pub fn share(share: f64) -> Result<f64, String> {
        if (0.0..=1.0).contains(&share) {
            Ok(share)
        } else {
            Err(format!("{share} is not a share between 0 and 1"))
        }
    }

    /// The number of distinct pages a block needs on a site of `pages` distinct pages.
    pub fn threshold(&self, pages: u32) -> u32 {
        let share = (self.min_share * pages as f64).ceil();
        self.min_pages.max(share as u32).max(1)
    }
}

/// A site's number in the statistics.
pub type SiteId = u32;

/// The key of a (site, block) pair: the block's 64 bits (an xxh3 value) mixed with the site's
/// number; two pairs share a key with probability 2^-64.
fn pair_key(site: SiteId, block: u64) -> u64 {
    block ^ (u64::from(site) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Hashes a key that is already a uniform 64-bit value: the table takes its bits as they are
/// (SipHash over them cost a tenth of the first pass). Also the paragraph table's hasher.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// The first pass: block counts per site, built page by page (see the module's documentation).
#[derive(Debug)]
pub struct BlockCounts {
    sites: HashMap<String, SiteId>,
    names: Vec<String>,
    /// Distinct pages per site.
    pages: Vec<u32>,
    /// Pages seen, by their identity's [`pair_key`].
    seen: KeyMap<()>,
    /// Distinct pages per (site, block), by [`pair_key`], with the site.
    counts: KeyMap<(u32, SiteId)>,
    max_entries: usize,
    pruned: u32,
}

impl Default for BlockCounts {
    fn default() -> Self {
        BlockCounts::with_max_entries(DEFAULT_MAX_ENTRIES)
    }
}

/// [`BlockCounts::default`]'s bound: just under 14 Mi entries, what a hash table of 2^24 slots
/// holds before it grows (at 17 bytes a slot, 285 MB; one more entry would double it). 228,000
/// pages of documentation (5.8 GB of HTML) made about 25 million (site, block) pairs, most of
/// them seen once.
pub const DEFAULT_MAX_ENTRIES: usize = (14 << 20) - 1024;

impl BlockCounts {
    /// Counts with at most about `max_entries` (site, block) entries in memory (16 bytes each
    /// plus the table's overhead).
    pub fn with_max_entries(max_entries: usize) -> Self {
        BlockCounts {
            sites: HashMap::new(),
            names: Vec::new(),
            pages: Vec::new(),
            seen: Default::default(),
            counts: KeyMap::default(),
            max_entries: max_entries.max(1),
            pruned: 0,
        }
    }

    /// The number of `site` (a host, a folder, a field's value), given on first sight.
    pub fn site(&mut self, site: &str) -> SiteId {
        if let Some(&id) = self.sites.get(site) {
            return id;
        }
        let id = self.names.len() as SiteId;
        self.sites.insert(site.to_owned(), id);
        self.names.push(site.to_owned());
        self.pages.push(0);
        id
    }

    /// Counts one page of `site`; returns false when a page with the same identity was already
    /// counted on that site (the page then adds nothing).
    pub fn add(&mut self, site: SiteId, page: &PageBlocks) -> bool {
        if page.blocks.is_empty() || self.seen.insert(pair_key(site, page.identity), ()).is_some() {
            return false;
        }
        self.pages[site as usize] += 1;
        for &b in &page.blocks {
            self.counts.entry(pair_key(site, b)).or_insert((0, site)).0 += 1;
        }
        if self.counts.len() > self.max_entries {
            self.prune();
        }
        true
    }

    /// Drops the entries of the least-seen blocks until the table is at most three quarters of
    /// its bound.
    fn prune(&mut self) {
        let mut floor = 1;
        while self.counts.len() > self.max_entries / 4 * 3 {
            self.counts.retain(|_, (c, _)| *c > floor);
            self.pruned += 1;
            floor += 1;
        }
    }

    /// Freezes the counts into the template of every site under `rule`.
    pub fn finish(self, rule: BoilerplateRule) -> Template {
        let mut template: KeyMap<u32> = KeyMap::default();
        let mut blocks = vec![0u32; self.names.len()];
        for (key, (count, site)) in self.counts {
            let pages = self.pages[site as usize];
            if pages >= rule.min_pages && count >= rule.threshold(pages) {
                template.insert(key, count);
                blocks[site as usize] += 1;
            }
        }
        Template {
            rule,
            sites: self.sites,
            names: self.names,
            pages: self.pages,
            blocks,
            template,
            pruned: self.pruned,
        }
    }
}

/// The template blocks of every site, frozen after the first pass. Serializable, so that a
/// distributed job counts on one process and cleans pages on others (the Python package's Ray
/// reader).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Template {
    rule: BoilerplateRule,
    sites: HashMap<String, SiteId>,
    names: Vec<String>,
    pages: Vec<u32>,
    /// Template blocks per site.
    blocks: Vec<u32>,
    /// Template blocks' counts, by [`pair_key`].
    template: KeyMap<u32>,
    pruned: u32,
}

/// A page's text with the template taken out, and what was taken out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stripped {
    /// The remaining lines, joined with `\n`.
    pub text: String,
    /// Bytes of the lines removed (without their line ends).
    pub removed_bytes: usize,
    /// Lines removed.
    pub removed_lines: usize,
    /// Bytes of the kept lines that say nothing of the page's own: its title, lines whose
    /// words are a run of the title's (its first part before a separator such as ` — ` or
    /// ` | `, the site's name usually after it; a heading that shortens it), and lines
    /// without a letter or a digit.
    pub not_own_bytes: usize,
}

/// A page's title as [`Template::clean_page`] reads its lines: the title itself is kept, and a
/// line whose words are a run of the title's words (its first part before " — " or " | ", a
/// heading "Guessing Game" under the title "Tutorial: Guessing Game") is not the page's own.
#[derive(Debug, Default)]
struct TitleWords {
    /// The key of the whole title.
    key: Option<u128>,
    /// The title's normalized tokens.
    tokens: Vec<String>,
}

impl TitleWords {
    fn of(title: Option<&str>, hasher: &mut BlockHasher) -> Self {
        let Some(title) = title else { return Self::default() };
        let key = hasher.key(title);
        Self { key, tokens: hasher.norm.token_strs().map(str::to_owned).collect() }
    }

    /// Whether the tokens of `line` (normalized, not empty) are a run of the title's tokens.
    fn holds(&self, line: &NormalizedText) -> bool {
        let n = line.tokens.len();
        n > 0
            && n <= self.tokens.len()
            && self.tokens.windows(n).any(|w| w.iter().zip(line.token_strs()).all(|(a, b)| a == b))
    }
}

/// Where a page's main content came from, for [`Template::clean_page`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MainFrom {
    /// No main content: the text is the page's visible text, or a document that is not a web
    /// page.
    Absent,
    /// The extractor chose it by its scores.
    Scored,
    /// The page's `<main>` element: its author marked it as the content.
    Marked,
}

/// Which text [`Template::clean_page`] kept for a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The main content, template lines removed.
    Main,
    /// All the visible text, template lines removed: the main content was mostly the site's
    /// template or much smaller than the page's own text.
    Visible,
    /// The main content as it is, template included: the extractor found a main content, and
    /// besides the page's title every line of the page repeats across its site (a stub, a
    /// moved-page notice), so what the page says is that text.
    Template,
}

impl Source {
    /// `main`, `visible` or `template`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Main => "main",
            Source::Visible => "visible",
            Source::Template => "template",
        }
    }
}

/// A page cleaned by [`Template::clean_page`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    /// The text to compare.
    pub text: String,
    /// Where it came from.
    pub source: Source,
    /// Bytes of template lines removed from that text's source.
    pub removed_bytes: usize,
    /// Bytes of the text before removal (the source's).
    pub before_bytes: usize,
    /// Every line of the page but its title is template and the extractor found no main
    /// content: the page says nothing of its own, its text is empty, and the caller skips it
    /// (compared by its template, such pages, a title above a site's sidebar, made most of the
    /// false pairs on documentation sites). When a main content was found, such a page (a
    /// stub, a moved-page notice) is compared as it is instead ([`Source::Template`]):
    /// stripped to their titles, a book's moved-chapter stubs lost every pair among them.
    pub only_template: bool,
}

impl Template {
    /// The rule the template was built with.
    pub fn rule(&self) -> BoilerplateRule {
        self.rule
    }

    /// The number of `site`, if the first pass saw it.
    pub fn site(&self, site: &str) -> Option<SiteId> {
        self.sites.get(site).copied()
    }

    /// Whether `site` had enough distinct pages to have a template.
    pub fn has_template(&self, site: SiteId) -> bool {
        self.pages.get(site as usize).is_some_and(|&p| p >= self.rule.min_pages)
    }

    /// How many times the table of counts was pruned (0 when the counts were exact).
    pub fn pruned(&self) -> u32 {
        self.pruned
    }

    /// Whether the block `key` ([`BlockHasher::key`]) is template on `site`.
    pub fn is_template(&self, site: SiteId, key: u128) -> bool {
        self.template.contains_key(&pair_key(site, key as u64))
    }

    /// `text` without the lines that are template on any of `sites` (a page may belong to
    /// several: its folder and the folders above it).
    pub fn strip(&self, sites: &[SiteId], text: &str, hasher: &mut BlockHasher) -> Stripped {
        self.strip_except(sites, text, &TitleWords::default(), hasher)
    }

    /// As [`Template::strip`], keeping the lines that are the page's `title` (and counting as
    /// [`Stripped::not_own_bytes`] the bytes of those, of lines whose words are a run of the
    /// title's words, and of lines without a letter or digit).
    fn strip_except(
        &self,
        sites: &[SiteId],
        text: &str,
        title: &TitleWords,
        hasher: &mut BlockHasher,
    ) -> Stripped {
        let mut out = Stripped::default();
        let sites: Vec<SiteId> = sites.iter().copied().filter(|&s| self.has_template(s)).collect();
        if sites.is_empty() {
            out.text = text.to_owned();
            return out;
        }
        for line in text.lines() {
            let template =
                |k: u128| Some(k) != title.key && sites.iter().any(|&s| self.is_template(s, k));
            let key = hasher.key(line);
            if key.is_some_and(template) {
                out.removed_bytes += line.len();
                out.removed_lines += 1;
            } else {
                let wordless = !line.chars().any(char::is_alphanumeric);
                if wordless || (key.is_some() && title.holds(&hasher.norm)) {
                    out.not_own_bytes += line.len();
                }
                if !out.text.is_empty() {
                    out.text.push('\n');
                }
                out.text.push_str(line);
            }
        }
        out
    }

    /// A main content with less than 1/8 of the page's own text is not the page's content.
    ///
    /// Measured on the labelled documentation sites (`bench/boilerplate.sh`): 1/4, or a main
    /// content mostly template and less than half the page's own text, took rustdoc's
    /// per-page sidebar lists for content and lost planted copies (planted-pair recall at J 0.8:
    /// 75% against 79.5% at 1/8 on rustdoc, 97.6% against 100% on pandas; precision the same to
    /// 0.6 points); without the ratio, footers and notices taken for content made false pairs
    /// again (rustdoc 98.7% → 83.2% precision).
    pub const OWN_RATIO: usize = 8;

    /// The text to compare for a page of `sites` whose main content is `main` (`from` says
    /// where the extractor found it; with [`MainFrom::Absent`] `main` is the visible text, or
    /// the text of a document that is not a web page) and whose visible text (one block a
    /// line) is `visible` (`None` for a text that is not a web page).
    ///
    /// The main content without its template lines, unless that is not the page's content: when
    /// nothing of the main content is the page's own, or when its own text is less than an
    /// eighth ([`Template::OWN_RATIO`]) of the page's own visible text, the extractor took the
    /// site's chrome (a footer, a notice, a sidebar) for the content, and the visible text
    /// without its template lines is compared instead. When neither has text of its own
    /// besides the title, a main content the extractor found is compared as it is
    /// ([`Source::Template`]) and a page without one is skipped ([`Cleaned::only_template`]);
    /// a `<main>` the author marked ([`MainFrom::Marked`]) with nothing of the page's own is
    /// compared as it is even when the visible text has a line of its own outside it (a
    /// "printed from" line: the scorer's choice is not trusted so far, on an empty page it is
    /// a sidebar).
    /// A site without a template
    /// keeps its main content as it is. A line that is the page's `title` is never removed: a
    /// site's menu lists its pages by their titles, and a short page's title is much of what
    /// it says (measured: stub pages of one book told apart only by their headings became
    /// exact copies of each other).
    pub fn clean_page(
        &self,
        sites: &[SiteId],
        main: &str,
        from: MainFrom,
        visible: Option<&str>,
        title: Option<&str>,
        hasher: &mut BlockHasher,
    ) -> Cleaned {
        let title = TitleWords::of(title, hasher);
        let stripped = self.strip_except(sites, main, &title, hasher);
        // The page's own text, without its title and punctuation: no content by themselves.
        let own = |s: &Stripped| s.text.lines().map(str::len).sum::<usize>() - s.not_own_bytes;
        let main_own = own(&stripped);
        let main_all = main_own + stripped.not_own_bytes + stripped.removed_bytes;
        let templated = sites.iter().any(|&s| self.has_template(s));
        let as_it_is = || Cleaned {
            text: main.to_owned(),
            source: Source::Template,
            removed_bytes: 0,
            before_bytes: main_all,
            only_template: false,
        };
        let stub = main_own == 0 && stripped.removed_bytes > 0;
        // The author's `<main>` holds nothing of the page's own: a stub, which a banner or a
        // "printed from" line outside it does not make a different page.
        if stub && from == MainFrom::Marked {
            return as_it_is();
        }
        // The page's own text is at most its visible text: when the main content's own text
        // holds an eighth of that, the visible text need not be looked at.
        let may_fall_back = |v: &&str| main_own == 0 || main_own * Self::OWN_RATIO < v.len();
        if let Some(visible) = visible.filter(|_| templated).filter(may_fall_back) {
            let page = self.strip_except(sites, visible, &title, hasher);
            let page_own = own(&page);
            let chrome = main_own == 0 || main_own * Self::OWN_RATIO < page_own;
            if chrome && page_own > 0 {
                return Cleaned {
                    text: page.text,
                    source: Source::Visible,
                    removed_bytes: page.removed_bytes,
                    before_bytes: page_own + page.removed_bytes,
                    only_template: false,
                };
            }
        }
        if stub && from != MainFrom::Absent {
            return as_it_is();
        }
        Cleaned {
            only_template: stub,
            text: stripped.text,
            source: Source::Main,
            removed_bytes: stripped.removed_bytes,
            before_bytes: main_all,
        }
    }

    /// Every site's name, distinct pages and template blocks, in the order they were first seen.
    pub fn sites(&self) -> impl Iterator<Item = (&str, u32, u32)> + '_ {
        self.names.iter().zip(&self.pages).zip(&self.blocks).map(|((n, &p), &b)| (n.as_str(), p, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Rng;

    fn page(h: &mut BlockHasher, lines: &[String]) -> PageBlocks {
        PageBlocks::of_texts(h, [lines.join("\n").as_str()])
    }

    #[test]
    fn counts_equal_a_brute_force_count_on_random_sites() {
        let mut rng = Rng::new(7);
        for round in 0..20 {
            let mut h = BlockHasher::default();
            let mut counts = BlockCounts::default();
            // (site, page lines) in input order.
            let mut pages: Vec<(String, Vec<String>)> = Vec::new();
            for _ in 0..rng.below(60) + 5 {
                let site = format!("s{}", rng.below(3));
                let lines: Vec<String> = (0..rng.below(12) + 1)
                    .map(|_| format!("block b{} words", rng.below(25)))
                    .collect();
                pages.push((site, lines));
            }
            for (site, lines) in &pages {
                let s = counts.site(site);
                counts.add(s, &page(&mut h, lines));
            }
            let rule = BoilerplateRule { min_pages: 3, min_share: 0.1 * (round % 4) as f64 };
            let t = counts.finish(rule);
            // Brute force: distinct pages by their normalized line set and text.
            for site in ["s0", "s1", "s2"] {
                let mut distinct: Vec<Vec<String>> = Vec::new();
                for (s, lines) in &pages {
                    if s == site && !distinct.contains(lines) {
                        distinct.push(lines.clone());
                    }
                }
                let n = distinct.len() as u32;
                let Some(id) = t.site(site) else { continue };
                for b in 0..25 {
                    let line = format!("block b{b} words");
                    let in_pages = distinct.iter().filter(|p| p.contains(&line)).count() as u32;
                    let want = n >= rule.min_pages && in_pages >= rule.threshold(n);
                    let key = h.key(&line).unwrap();
                    assert_eq!(t.is_template(id, key), want, "{site} {line}: {in_pages} of {n}");
                }
            }
        }
    }

    #[test]
    fn copies_and_renumbered_copies_count_once() {
        let mut h = BlockHasher::default();
        let mut counts = BlockCounts::default();
        let s = counts.site("example.org");
        let body = ["A long paragraph of the article itself.", "Its second paragraph."];
        for date in ["2024-01-01", "2024-02-03", "2025-11-12", "2026-01-01", "2026-02-02"] {
            let text = format!("Menu\nPosted {date}\n{}\n{}", body[0], body[1]);
            counts.add(s, &PageBlocks::of_texts(&mut h, [text.as_str()]));
        }
        for i in 0..4 {
            let text = format!(
                "Menu\nOther page {}\nIts own text, number {}.",
                ["a", "b", "c", "d"][i],
                i
            );
            counts.add(s, &PageBlocks::of_texts(&mut h, [text.as_str()]));
        }
        let t = counts.finish(BoilerplateRule::default());
        let s = t.site("example.org").unwrap();
        assert!(t.is_template(s, h.key("Menu").unwrap()));
        // Five copies of one article, dated differently, are one page: its text stays.
        assert!(!t.is_template(s, h.key(body[0]).unwrap()));
        let c =
            t.clean_page(&[s], &format!("Menu\n{}", body[0]), MainFrom::Scored, None, None, &mut h);
        assert_eq!(c.text, body[0]);
        assert_eq!(c.removed_bytes, 4);
    }

    #[test]
    fn small_sites_keep_everything() {
        let mut h = BlockHasher::default();
        let mut counts = BlockCounts::default();
        let s = counts.site("tiny.example");
        for i in 0..3 {
            let text = format!(
                "Shared footer line\nPage {} says something of its own",
                ["a", "b", "c"][i]
            );
            counts.add(s, &PageBlocks::of_texts(&mut h, [text.as_str()]));
        }
        let t = counts.finish(BoilerplateRule::default());
        let s = t.site("tiny.example").unwrap();
        assert!(!t.has_template(s));
        let text = "Shared footer line\nPage a says something of its own";
        assert_eq!(t.clean_page(&[s], text, MainFrom::Scored, Some(text), None, &mut h).text, text);
    }

    /// A short body inside a large template: the extractor's choice was the footer; the
    /// visible text without the template is compared instead.
    #[test]
    fn main_content_that_is_chrome_falls_back_to_the_visible_text() {
        let mut h = BlockHasher::default();
        let mut counts = BlockCounts::default();
        let s = counts.site("dir.example");
        let nav: Vec<String> = (0..30).map(|i| format!("Navigation entry {i}")).collect();
        let footer = "Help build the largest human-edited directory on the web.";
        let visible = |own: &str| format!("{}\n{own}\n{footer}", nav.join("\n"));
        let owns: Vec<String> =
            ["arts", "business", "computers", "games", "health", "home", "news", "science"]
                .iter()
                .map(|t| format!("Category {t} lists sites about {t}, with reviews"))
                .collect();
        for own in &owns {
            counts.add(s, &PageBlocks::of_texts(&mut h, [visible(own).as_str()]));
        }
        let t = counts.finish(BoilerplateRule::default());
        let s = t.site("dir.example").unwrap();
        let c =
            t.clean_page(&[s], footer, MainFrom::Scored, Some(&visible(&owns[3])), None, &mut h);
        assert_eq!((c.text.as_str(), c.source), (owns[3].as_str(), Source::Visible));
        // A real main content is kept, without the template line it contains.
        let main = format!("{}\n{footer}", owns[5]);
        let c = t.clean_page(&[s], &main, MainFrom::Scored, Some(&visible(&owns[5])), None, &mut h);
        assert_eq!((c.text.as_str(), c.source), (owns[5].as_str(), Source::Main));
        // A page made only of template says nothing of its own: without a main content it
        // is skipped; the main content found (a notice, a stub) is compared as it is.
        let c = t.clean_page(&[s], footer, MainFrom::Absent, Some(&nav.join("\n")), None, &mut h);
        assert_eq!((c.text.as_str(), c.only_template), ("", true));
        let c = t.clean_page(&[s], footer, MainFrom::Scored, Some(&nav.join("\n")), None, &mut h);
        assert_eq!((c.text.as_str(), c.source, c.only_template), (footer, Source::Template, false));
        // So is a page whose own text is only its title (a stub under its heading).
        let stub = format!("Category games\n{footer}");
        let c = t.clean_page(
            &[s],
            &stub,
            MainFrom::Scored,
            Some(&nav.join("\n")),
            Some("Category games"),
            &mut h,
        );
        assert_eq!((c.text.as_str(), c.source), (stub.as_str(), Source::Template));
    }

    /// A site's menu lists its pages by title: on a stub page the title is much of what the
    /// page says, and it stays.
    #[test]
    fn the_pages_title_is_never_template() {
        let mut h = BlockHasher::default();
        let mut counts = BlockCounts::default();
        let s = counts.site("book");
        let titles = ["Boot Memory", "Page Cache", "Slab Allocation", "Swap", "Page Tables"];
        let menu = titles.join("\n");
        for t in titles {
            let page =
                format!("{menu}\n{t}\nThe chapter on {t} is still to be written, by someone.");
            counts.add(s, &PageBlocks::of_texts(&mut h, [page.as_str()]));
        }
        let t = counts.finish(BoilerplateRule::default());
        let main = "Swap\nThe chapter on Swap is still to be written, by someone.".to_owned();
        let c = t.clean_page(&[s], &main, MainFrom::Scored, None, Some("Swap"), &mut h);
        assert_eq!(c.text, main);
        let c = t.clean_page(&[s], &main, MainFrom::Scored, None, None, &mut h);
        assert_eq!(c.text, "The chapter on Swap is still to be written, by someone.");
    }

    /// An included fragment (a note that many pages include) published as a page of its own:
    /// besides its note it has only a breadcrumb of its title and separators. Two such
    /// fragments with different notes were exact copies by those leftovers; they are compared
    /// by their notes.
    #[test]
    fn a_breadcrumb_of_the_title_and_punctuation_are_not_the_pages_own() {
        let mut h = BlockHasher::default();
        let mut counts = BlockCounts::default();
        let s = counts.site("docs");
        let menu: Vec<String> = (0..20).map(|i| format!("Module {i} reference")).collect();
        let notes = ["Note: this module is deprecated.", "Availability: not WebAssembly."];
        let page = |i: usize, note: &str| format!("{}\nmod{i} — Docs\n|\n{note}", menu.join("\n"));
        for i in 0..10 {
            counts.add(s, &PageBlocks::of_texts(&mut h, [page(i, notes[i % 2]).as_str()]));
        }
        let t = counts.finish(BoilerplateRule::default());
        for note in notes {
            let visible = format!("{}\n<no title>\n|\n{note}\n<no title>\n|", menu.join("\n"));
            let title = Some("<no title> — Docs");
            let c = t.clean_page(&[s], note, MainFrom::Scored, Some(&visible), title, &mut h);
            assert_eq!((c.text.as_str(), c.source), (note, Source::Template));
        }
    }

    /// A book's moved-chapter stubs: under a heading that shortens the page's title ("Guessing
    /// Game" under "Tutorial: Guessing Game") the author's `<main>` holds only the notice every
    /// stub repeats. A copy of a stub with a "printed from" line outside `<main>` is compared
    /// by the same stub, not by that line alone; a main content the scorer chose (which may be
    /// a sidebar on an empty page) still falls back to the page's own visible text.
    #[test]
    fn a_marked_stub_with_a_banner_outside_it_is_compared_as_it_is() {
        let mut h = BlockHasher::default();
        let mut counts = BlockCounts::default();
        let s = counts.site("book");
        let menu: Vec<String> = (0..20).map(|i| format!("Chapter {i} of the book")).collect();
        let notice = "The first edition of the book is no longer distributed.
You can find a copy \
                      distributed with Rust 1.30.";
        let chapters = ["Guessing Game", "Ownership", "Lifetimes", "Closures", "Iterators", "FFI"];
        let visible = |heading: &str, banner: &str| {
            format!("{banner}\n{}\n{heading}\n{notice}", menu.join("\n"))
        };
        for c in chapters {
            counts.add(s, &PageBlocks::of_texts(&mut h, [visible(c, "").as_str()]));
        }
        let t = counts.finish(BoilerplateRule::default());
        let main = format!("Guessing Game\n{notice}");
        let title = Some("Tutorial: Guessing Game - The Book");
        let banner = "Printed from https://book.example/guessing-game.html on 2024-05-21";
        let page = visible("Guessing Game", banner);
        // The stub itself: its heading is a run of its title's words, not its own text.
        let stub =
            t.clean_page(&[s], &main, MainFrom::Scored, Some(&page[banner.len()..]), title, &mut h);
        assert_eq!((stub.text.as_str(), stub.source), (main.as_str(), Source::Template));
        let copy = t.clean_page(&[s], &main, MainFrom::Marked, Some(&page), title, &mut h);
        assert_eq!((copy.text.as_str(), copy.source), (main.as_str(), Source::Template));
        let scored = t.clean_page(&[s], &main, MainFrom::Scored, Some(&page), title, &mut h);
        let own = format!("{banner}\nGuessing Game");
        assert_eq!((scored.text.as_str(), scored.source), (own.as_str(), Source::Visible));
    }

    #[test]
    fn pruning_keeps_the_frequent_blocks() {
        let mut h = BlockHasher::default();
        let mut counts = BlockCounts::with_max_entries(64);
        let s = counts.site("big.example");
        for i in 0..200 {
            let text = format!("Home\nAbout us\nUnique line {i}\nAnother unique line {i}x");
            counts.add(s, &PageBlocks::of_texts(&mut h, [text.as_str()]));
        }
        let t = counts.finish(BoilerplateRule::default());
        assert!(t.pruned() > 0);
        assert!(t.is_template(s, h.key("Home").unwrap()));
        assert!(t.is_template(s, h.key("About us").unwrap()));
        assert!(!t.is_template(s, h.key("Unique line 7").unwrap()));
    }

    #[test]
    fn the_order_of_pages_does_not_change_the_template() {
        let mut rng = Rng::new(11);
        let pages: Vec<String> = (0..80)
            .map(|_| {
                (0..6).map(|_| format!("line {}", rng.below(20))).collect::<Vec<_>>().join("\n")
            })
            .collect();
        let build = |order: &[usize]| {
            let mut h = BlockHasher::default();
            let mut counts = BlockCounts::default();
            let s = counts.site("x");
            for &i in order {
                counts.add(s, &PageBlocks::of_texts(&mut h, [pages[i].as_str()]));
            }
            let t = counts.finish(BoilerplateRule { min_pages: 4, min_share: 0.2 });
            (0..20)
                .map(|b| t.is_template(0, h.key(&format!("line {b}")).unwrap()))
                .collect::<Vec<_>>()
        };
        let forward: Vec<usize> = (0..pages.len()).collect();
        let backward: Vec<usize> = forward.iter().rev().copied().collect();
        assert_eq!(build(&forward), build(&backward));
    }
}
