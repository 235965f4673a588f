//! A collection in the docreader format (`lookalike-bench homework-gen`): real HTML pages and
//! planted near-duplicates, written as gzip files of docreader records, the format of the
//! near-duplicate assignment of Mail.ru's information-retrieval course (2016, lecture 5).
//!
//! The course's collections are gzip files of records, each a 4-byte little-endian length and a
//! protobuf `document { required string url = 1; optional string body = 2; optional string text
//! = 3; }` message ([`write_record`] is a small encoder of exactly that). This module builds one
//! from real pages (the HTML files of `/usr/share/doc`, given as a list of paths):
//!
//! - **Originals**: every page of the list (up to a size, with at least `min_words` words in its
//!   body), once: its `<body>` is the *article*, put in the
//!   template of a documentation site (a menu and a footer around it), url
//!   `http://docs.example/PATH`.
//! - **Composites**: new articles made of three runs of consecutive blocks (split at `<p`, `<h`,
//!   `<pre`, `<div`, `<li`, `<dt`, `<table`) of three random pages, each run 20–60% of its page,
//!   in the same template, url `http://articles.example/N.html`: the 42,000 pages of a Debian
//!   machine are too few for 200,000 distinct pages, and a composite shares at most a run with
//!   each page it was made from.
//! - **Planted variants** (30% of the records, by default), each of a random earlier original or
//!   composite, with a kind: `mirror` (the same page under another url), `template` (the same
//!   article in another site's template), `print` (the article alone, template stripped),
//!   `truncate` (the template and the first 70–95% of the article, cut at a tag), `edit` (1–5% of
//!   the article's words replaced, in the same template). `planted` lists them as `PARENT<TAB>
//!   VARIANT<TAB>KIND`.
//!
//! Records are spread over `parts` files `part-NNN.gz` in order, each written as gzip members of
//! 1,000 records (a multi-member gzip, like files made by concatenation). The same list, settings
//! and seed give byte-identical files.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use flate2::Compression;
use flate2::write::GzEncoder;

use crate::files::AtomicFile;
use crate::rng::Rng;

/// Settings of [`generate`].
#[derive(Debug, Clone)]
pub struct HomeworkOptions {
    /// Records to write, in all.
    pub docs: u64,
    /// Files to spread them over.
    pub parts: usize,
    /// Fraction of the records that are planted variants.
    pub variant_fraction: f64,
    /// Pages larger than this are left out.
    pub max_page_bytes: u64,
    /// Pages whose article has fewer words (outside tags) are left out: a stub page is all
    /// template once its text is extracted, and every two stubs would be near-duplicates.
    pub min_words: usize,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for HomeworkOptions {
    fn default() -> Self {
        HomeworkOptions {
            docs: 200_000,
            parts: 8,
            variant_fraction: 0.3,
            max_page_bytes: 64 << 10,
            min_words: 100,
            seed: 1,
        }
    }
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HomeworkStats {
    /// Pages read from the list (within the size limit, with a body of enough words).
    pub pages: u64,
    /// Records written: originals, composites and variants.
    pub records: u64,
    /// Originals written.
    pub originals: u64,
    /// Composites written.
    pub composites: u64,
    /// Variants written, per kind.
    pub variants: Vec<(&'static str, u64)>,
    /// Bytes of HTML written (the bodies, before compression).
    pub html_bytes: u64,
    /// The files written.
    pub files: Vec<PathBuf>,
}

/// Appends one docreader record to `out`: the message's length (4 bytes, little-endian), then
/// the message: field 1 (url), and field 2 (body) and field 3 (text) when given.
pub fn write_record(out: &mut Vec<u8>, url: &str, body: Option<&[u8]>, text: Option<&str>) {
    let mut message = Vec::with_capacity(url.len() + body.map_or(0, <[u8]>::len) + 16);
    put_string(&mut message, 1, url.as_bytes());
    if let Some(body) = body {
        put_string(&mut message, 2, body);
    }
    if let Some(text) = text {
        put_string(&mut message, 3, text.as_bytes());
    }
    let len = u32::try_from(message.len()).expect("a docreader message is under 4 GiB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&message);
}

fn put_string(out: &mut Vec<u8>, field: u64, value: &[u8]) {
    put_varint(out, field << 3 | 2);
    put_varint(out, value.len() as u64);
    out.extend_from_slice(value);
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A page read from the list: its path (for the url), title and article (the inner HTML of its
/// `<body>`), with the offsets where the article's blocks start.
struct Page {
    path: String,
    title: String,
    article: String,
    blocks: Vec<usize>,
}

/// How a base record's article is made.
#[derive(Clone)]
enum Recipe {
    Original(usize),
    /// Runs `(page, first block, end block)`.
    Composite(Vec<(usize, usize, usize)>),
}

const KINDS: [(&str, f64); 5] =
    [("mirror", 0.15), ("template", 0.2), ("print", 0.15), ("truncate", 0.25), ("edit", 0.25)];

/// Builds the collection in `dir` from the HTML files listed in `list` (one path a line); writes
/// the planted pairs to `planted`.
pub fn generate(
    list: &Path,
    dir: &Path,
    planted: &Path,
    opts: &HomeworkOptions,
) -> Result<HomeworkStats> {
    if opts.parts == 0 || opts.docs == 0 {
        bail!("need at least one record and one part");
    }
    if !(0.0..1.0).contains(&opts.variant_fraction) {
        bail!("the variant fraction must be in [0, 1)");
    }
    let paths = fs_err::read_to_string(list)?;
    let mut pages = Vec::new();
    for path in paths.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(meta) = std::fs::metadata(path) else { continue };
        if meta.len() > opts.max_page_bytes || !meta.is_file() {
            continue;
        }
        let bytes = fs_err::read(path)?;
        // Pages in other charsets are read as UTF-8 with replacements: the records must be
        // UTF-8, as protobuf strings are.
        let html = String::from_utf8_lossy(&bytes);
        if let Some(page) = Page::parse(path, &html)
            && text_words(&page.article).len() >= opts.min_words
        {
            pages.push(page);
        }
    }
    if pages.is_empty() {
        bail!("no HTML page with a body in {}", list.display());
    }
    let mut stats = HomeworkStats { pages: pages.len() as u64, ..HomeworkStats::default() };
    let mut rng = Rng::new(opts.seed);
    let vocabulary = vocabulary(&pages);

    // The base records: every page, then composites up to the target, in a random order.
    let bases = ((opts.docs as f64) * (1.0 - opts.variant_fraction)).round().max(1.0) as usize;
    let mut recipes: Vec<Recipe> = (0..pages.len().min(bases)).map(Recipe::Original).collect();
    while recipes.len() < bases {
        let runs = (0..3)
            .map(|_| {
                let p = rng.index(pages.len());
                let n = pages[p].blocks.len();
                let len = ((n as f64) * rng.range_f64(0.2, 0.6)).ceil().max(1.0) as usize;
                let len = len.min(n);
                let start = rng.index(n - len + 1);
                (p, start, start + len)
            })
            .collect();
        recipes.push(Recipe::Composite(runs));
    }
    for i in (1..recipes.len()).rev() {
        let j = rng.index(i + 1);
        recipes.swap(i, j);
    }

    fs_err::create_dir_all(dir)?;
    let mut planted_out = AtomicFile::create(planted)?;
    writeln!(planted_out, "# parent\tvariant\tkind")?;
    let mut writer = PartWriter::new(dir, opts.parts, opts.docs);
    let mut variants = [0u64; KINDS.len()];
    // (url, recipe) of the base records written so far.
    let mut written: Vec<(String, usize)> = Vec::new();
    let mut composites = 0u64;
    let mut next_base = 0usize;
    let p_variant = opts.variant_fraction;
    while writer.records < opts.docs {
        let variant = !written.is_empty() && (next_base >= recipes.len() || rng.chance(p_variant));
        let n = writer.records;
        if !variant {
            let recipe = &recipes[next_base];
            let (url, title) = match recipe {
                Recipe::Original(p) => {
                    stats.originals += 1;
                    (
                        format!("http://docs.example/{}", pages[*p].path.trim_start_matches('/')),
                        &pages[*p].title,
                    )
                }
                Recipe::Composite(runs) => {
                    composites += 1;
                    (format!("http://articles.example/{n}.html"), &pages[runs[0].0].title)
                }
            };
            let article = article(&pages, recipe);
            let html = site_page(title, &article);
            writer.write(&url, html.as_bytes(), &mut stats)?;
            written.push((url, next_base));
            next_base += 1;
            continue;
        }
        let (parent_url, recipe) = &written[rng.index(written.len())];
        let recipe = &recipes[*recipe];
        let title = match recipe {
            Recipe::Original(p) => &pages[*p].title,
            Recipe::Composite(runs) => &pages[runs[0].0].title,
        };
        let article = article(&pages, recipe);
        let mut pick = rng.f64();
        let kind = KINDS
            .iter()
            .position(|&(_, w)| {
                pick -= w;
                pick < 0.0
            })
            .unwrap_or(KINDS.len() - 1);
        let (url, html) = match KINDS[kind].0 {
            "mirror" => (
                format!("http://mirror{}.example/{n}/{}", n % 7, tail(parent_url)),
                site_page(title, &article),
            ),
            "template" => {
                (format!("http://other-site.example/{n}.html"), other_page(title, &article))
            }
            "print" => (format!("{parent_url}?print={n}"), print_page(title, &article)),
            "truncate" => {
                let keep = rng.range_f64(0.7, 0.95);
                (
                    format!("http://excerpts.example/{n}.html"),
                    site_page(title, truncate(&article, keep)),
                )
            }
            _ => {
                let rate = rng.range_f64(0.01, 0.05);
                let edited = edit_words(&article, rate, &vocabulary, &mut rng);
                (format!("http://copies.example/{n}.html"), site_page(title, &edited))
            }
        };
        writer.write(&url, html.as_bytes(), &mut stats)?;
        writeln!(planted_out, "{parent_url}\t{url}\t{}", KINDS[kind].0)?;
        variants[kind] += 1;
    }
    stats.files = writer.finish()?;
    planted_out.commit()?;
    stats.composites = composites;
    stats.variants = KINDS.iter().zip(variants).map(|(&(k, _), n)| (k, n)).collect();
    Ok(stats)
}

/// The path part of a url.
fn tail(url: &str) -> &str {
    url.split_once("://").map_or(url, |(_, rest)| rest.split_once('/').map_or("", |(_, p)| p))
}

impl Page {
    fn parse(path: &str, html: &str) -> Option<Page> {
        let lower = html.to_ascii_lowercase();
        let title = find_between(&lower, html, "<title", "</title>")
            .map(|t| t.split_once('>').map_or(t, |(_, t)| t).trim().to_owned())
            .unwrap_or_default();
        let start = lower.find("<body").and_then(|b| lower[b..].find('>').map(|e| b + e + 1))?;
        let end = lower.rfind("</body>").filter(|&e| e >= start).unwrap_or(html.len());
        let article = html[start..end].to_owned();
        if article.trim().is_empty() {
            return None;
        }
        let blocks = block_starts(&article);
        Some(Page { path: path.to_owned(), title, article, blocks })
    }
}

fn find_between<'a>(lower: &str, html: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let s = lower.find(open)?;
    let e = lower[s..].find(close)? + s;
    Some(&html[s + open.len()..e])
}

/// Where the blocks of an article start (0 first): at every `<p`, `<h1`-`<h6`, `<pre`, `<div`,
/// `<li`, `<dt`, `<table` tag.
fn block_starts(article: &str) -> Vec<usize> {
    const TAGS: [&str; 7] = ["p", "h", "pre", "div", "li", "dt", "table"];
    let bytes = article.as_bytes();
    let mut starts = vec![0];
    for (i, _) in article.match_indices('<') {
        let rest = &bytes[i + 1..];
        let name_len = rest.iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        let name = article[i + 1..i + 1 + name_len].to_ascii_lowercase();
        let is_block = TAGS.iter().any(|t| {
            name == *t || (*t == "h" && name.len() == 2 && name.as_bytes()[1].is_ascii_digit())
        });
        if is_block && i > 0 {
            starts.push(i);
        }
    }
    starts.dedup();
    starts
}

fn article(pages: &[Page], recipe: &Recipe) -> String {
    match recipe {
        Recipe::Original(p) => pages[*p].article.clone(),
        Recipe::Composite(runs) => {
            let mut out = String::new();
            for &(p, first, end) in runs {
                let page = &pages[p];
                let from = page.blocks[first];
                let to = page.blocks.get(end).copied().unwrap_or(page.article.len());
                out.push_str(&page.article[from..to]);
                out.push('\n');
            }
            out
        }
    }
}

const DOCS_MENU: &str = "Home Documentation Packages Manuals Reference Tutorials Release notes \
    Installation guide Frequently asked questions Mailing lists Bug tracker Security advisories \
    Developers corner News archive Search this site Contact us About the project";
const DOCS_FOOTER: &str = "Copyright the documentation project and its contributors. This page \
    is part of the documentation collection. Content is available under the licences of the \
    packages it comes from. Last built from the installed packages.";
const OTHER_MENU: &str = "Start page Latest articles Popular topics Categories Programming \
    Systems Networking Databases Archives Subscribe to the newsletter Write for us Advertising";
const OTHER_FOOTER: &str = "All rights reserved by the site owners. Articles are republished \
    from their original sources. Privacy policy. Terms of use. Cookie settings. Sitemap.";

/// The article in the documentation site's template.
fn site_page(title: &str, article: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title}</title></head><body>\
         <div class=\"header\"><nav><ul><li>{DOCS_MENU}</li></ul></nav></div>\
         <div class=\"content\">{article}</div><footer><p>{DOCS_FOOTER}</p></footer></body></html>"
    )
}

/// The article in another site's template.
fn other_page(title: &str, article: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title} | Tech articles</title>\
         </head><body><header><h2>Tech articles</h2><nav>{OTHER_MENU}</nav></header><main>\
         <article>{article}</article></main><aside><p>Related: {OTHER_MENU}</p></aside>\
         <footer>{OTHER_FOOTER}</footer></body></html>"
    )
}

/// The print version: the article alone.
fn print_page(title: &str, article: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body>{article}</body></html>"
    )
}

/// The first `keep` of the article, cut before a tag when one starts in the last 200 bytes.
fn truncate(article: &str, keep: f64) -> &str {
    let mut at = ((article.len() as f64) * keep) as usize;
    while !article.is_char_boundary(at) {
        at -= 1;
    }
    let window = at.saturating_sub(200);
    let window = (window..=at).find(|&i| article.is_char_boundary(i)).unwrap_or(at);
    match article[window..at].rfind('<') {
        Some(lt) => &article[..window + lt],
        None => &article[..at],
    }
}

/// Words to put in place of others: the alphabetic words of the first pages.
fn vocabulary(pages: &[Page]) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for page in pages.iter().take(200) {
        for w in text_words(&page.article) {
            if w.len() >= 3 && w.chars().all(char::is_alphabetic) {
                words.push(w.to_lowercase());
            }
        }
        if words.len() >= 5000 {
            break;
        }
    }
    words.sort();
    words.dedup();
    if words.is_empty() {
        words.push("changed".to_owned());
    }
    words
}

/// The words outside tags.
fn text_words(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_tag = false;
    let mut start = None;
    for (i, c) in html.char_indices() {
        let word_char = !in_tag && !c.is_whitespace() && c != '<';
        match (word_char, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&html[s..i]);
                start = None;
            }
            _ => {}
        }
        if c == '<' {
            in_tag = true;
        } else if c == '>' {
            in_tag = false;
        }
    }
    if let Some(s) = start {
        out.push(&html[s..]);
    }
    out
}

/// The article with each word outside tags replaced, with probability `rate`, by a word of the
/// vocabulary.
fn edit_words(article: &str, rate: f64, vocabulary: &[String], rng: &mut Rng) -> String {
    let mut out = String::with_capacity(article.len());
    let mut in_tag = false;
    let mut word_start: Option<usize> = None;
    let flush = |out: &mut String, word: &str, rng: &mut Rng| {
        if word.contains('&') || !rng.chance(rate) {
            out.push_str(word);
        } else {
            out.push_str(&vocabulary[rng.index(vocabulary.len())]);
        }
    };
    for (i, c) in article.char_indices() {
        let word_char = !in_tag && !c.is_whitespace() && c != '<';
        if word_char {
            word_start.get_or_insert(i);
            continue;
        }
        if let Some(s) = word_start.take() {
            flush(&mut out, &article[s..i], rng);
        }
        out.push(c);
        if c == '<' {
            in_tag = true;
        } else if c == '>' {
            in_tag = false;
        }
    }
    if let Some(s) = word_start {
        flush(&mut out, &article[s..], rng);
    }
    out
}

/// Writes records to `part-NNN.gz` files in order, a gzip member every 1,000 records.
struct PartWriter {
    dir: PathBuf,
    parts: usize,
    docs: u64,
    records: u64,
    current: Option<(usize, AtomicFile, GzEncoder<Vec<u8>>, u64)>,
    files: Vec<PathBuf>,
    buf: Vec<u8>,
}

const MEMBER_RECORDS: u64 = 1000;

impl PartWriter {
    fn new(dir: &Path, parts: usize, docs: u64) -> PartWriter {
        PartWriter {
            dir: dir.to_owned(),
            parts,
            docs,
            records: 0,
            current: None,
            files: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn write(&mut self, url: &str, body: &[u8], stats: &mut HomeworkStats) -> Result<()> {
        let part = (self.records * self.parts as u64 / self.docs) as usize;
        if self.current.as_ref().is_none_or(|c| c.0 != part) {
            self.close()?;
            let path = self.dir.join(format!("part-{part:03}.gz"));
            let file = AtomicFile::create(&path)?;
            self.files.push(path);
            self.current = Some((part, file, GzEncoder::new(Vec::new(), Compression::fast()), 0));
        }
        let (_, file, gz, in_member) = self.current.as_mut().expect("opened above");
        self.buf.clear();
        write_record(&mut self.buf, url, Some(body), None);
        gz.write_all(&self.buf)?;
        *in_member += 1;
        if *in_member == MEMBER_RECORDS {
            let done = std::mem::replace(gz, GzEncoder::new(Vec::new(), Compression::fast()));
            file.write_all(&done.finish()?).context("writing a gzip member")?;
            *in_member = 0;
        }
        self.records += 1;
        stats.records += 1;
        stats.html_bytes += body.len() as u64;
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        if let Some((_, mut file, gz, in_member)) = self.current.take() {
            if in_member > 0 {
                file.write_all(&gz.finish()?)?;
            }
            file.commit()?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<PathBuf>> {
        self.close()?;
        Ok(self.files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_with_lookalike_io() {
        let mut bytes = Vec::new();
        write_record(&mut bytes, "http://a.example/", Some(b"<p>Hello</p>"), None);
        write_record(&mut bytes, "http://b.example/", None, Some("plain"));
        let opts = lookalike_io::ReadOptions {
            format: Some(lookalike_io::Format::Docreader),
            extract: lookalike_io::Extract::Text,
            ..Default::default()
        };
        let got: Vec<String> =
            lookalike_io::Reader::from_stream("x", std::io::Cursor::new(bytes), opts.clone())
                .map(|r| match lookalike_io::decode(&r.unwrap(), &opts) {
                    lookalike_io::Decoded::Doc { doc, .. } => format!("{} {}", doc.id, doc.text),
                    other => panic!("{other:?}"),
                })
                .collect();
        assert_eq!(got, ["http://a.example/ Hello", "http://b.example/ plain"]);
    }

    #[test]
    fn edits_touch_words_only() {
        let mut rng = Rng::new(1);
        let vocab = vec!["zzz".to_owned()];
        let out = edit_words("<p class=\"a b\">one two three</p>", 1.0, &vocab, &mut rng);
        assert_eq!(out, "<p class=\"a b\">zzz zzz zzz</p>");
        assert_eq!(truncate("<p>abc</p><p>defghij</p>", 0.8), "<p>abc</p>");
        assert_eq!(truncate(&"a".repeat(1000), 0.75).len(), 750);
        assert_eq!(block_starts("<p>a</p><div>b</div><h2>c</h2><span>d</span>"), [0, 8, 20]);
        assert_eq!(tail("http://docs.example/usr/share/x.html"), "usr/share/x.html");
    }
}
