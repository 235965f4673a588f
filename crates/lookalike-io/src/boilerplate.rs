//! Site boilerplate removal around the reader: contract: "give me every decoded record of the
//! input, I count each site's blocks while holding the texts in a temporary file; then I give the
//! records back, in the same order and batches, each page's text without its site's template".
//!
//! The first pass ([`SitePass`]) runs where the reading runs: the workers cut each page into
//! blocks ([`first`], [`page_of`]), the caller's thread counts them per site and moves the texts
//! to a temporary file, keeping only the small parts of each record in memory.
//! [`SitePass::finish`] freezes the template ([`lookalike::boilerplate::Template`]); the second
//! pass ([`Cleaned`]) reads the texts back in input order and cleans them on the workers. The
//! statistics are in `lookalike::boilerplate`; this module only moves records. The CLI's `dedup`
//! and `extract` and the Python package's `read` drive the two passes the same way, so they
//! compare the same texts.
//!
//! ```
//! use lookalike_io::boilerplate::{BoilerplateOptions, SitePass, first};
//! use lookalike_io::{BatchLimits, Decoded, DecodedBatches, ReadOptions, expand_inputs};
//!
//! let dir = tempfile::tempdir()?;
//! let nav = "Home | Guide | API | Blog | About us and our team";
//! for (name, body) in [("a", "Apples grow on trees"), ("b", "Bees make honey"),
//!                      ("c", "Cats sleep all day"), ("d", "Dogs dig holes")] {
//!     let page = format!("<html><body><nav>{nav}</nav><p>{body}</p></body></html>");
//!     std::fs::write(dir.path().join(format!("{name}.html")), page)?;
//! }
//! let inputs = expand_inputs(&[dir.path().display().to_string()])?.inputs;
//! let options = BoilerplateOptions::default();
//! let opts = options.read_options(ReadOptions { extract: lookalike_io::Extract::Text, ..ReadOptions::default() });
//! let mode = options.mode;
//! let mut pass = SitePass::new(&options, dir.path())?;
//! for batch in DecodedBatches::spawn(inputs, opts, BatchLimits::default(), move |rec, d| {
//!     first(mode, rec, d, None)
//! })? {
//!     for item in batch {
//!         pass.hold(item)?;
//!     }
//! }
//! let mut cleaned = pass.finish(64)?;
//! let mut texts = Vec::new();
//! while let Some(batch) = cleaned.next_batch()? {
//!     for second in batch {
//!         if let Decoded::Doc { doc, .. } = second?.decoded {
//!             texts.push(doc.text);
//!         }
//!     }
//! }
//! assert_eq!(texts, ["Apples grow on trees", "Bees make honey", "Cats sleep all day", "Dogs dig holes"]);
//! let removal = cleaned.removal();
//! // Each page's site is its folder, and the folders above it (up to three).
//! let folder = dir.path().display().to_string();
//! let site = removal.by_site.iter().find(|s| s.site == folder).expect("the folder is a site");
//! assert_eq!((removal.pages, site.pages, site.template_blocks), (4, 4, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use lookalike::boilerplate::{
    BlockCounts, BlockHasher, BoilerplateRule, MainFrom, PageBlocks, SiteId, SiteTemplate, Source,
    Template,
};
use rayon::prelude::*;

use crate::{
    BatchLimits, BoilerplateRemoved, Decoded, DecodedBatches, ExtractMethod, Format, Input,
    InputError, Origin, RawRecord, ReadOptions, SkipReason,
};

pub use lookalike::boilerplate::BoilerplateMode;

/// What site boilerplate removal does: which documents, the statistical rule, and where a
/// record's site comes from besides its URL or folder.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoilerplateOptions {
    /// Which documents are cleaned.
    pub mode: BoilerplateMode,
    /// When a block is template.
    pub rule: BoilerplateRule,
    /// The JSONL/Parquet field naming each record's site.
    pub site_field: Option<String>,
}

/// A record as the first pass hands it over: decoded, with where it is, and the blocks of a page
/// that boilerplate removal cleans.
#[derive(Debug)]
pub struct First {
    /// The decoded record (its texts are moved to the temporary file while it is held).
    pub decoded: Decoded,
    /// Where the record is.
    pub origin: Origin,
    /// Its format.
    pub format: Format,
    /// What `--output` writes for it when that does not depend on its cleaned text (the original
    /// JSONL/Parquet record, a skipped record's line); held in the temporary file too.
    pub payload: Option<(Vec<u8>, bool)>,
    /// Its sites (nearest first) and blocks, when it is cleaned.
    pub page: Option<(Vec<String>, PageBlocks)>,
}

/// A record given back by the second pass.
#[derive(Debug)]
pub struct Second {
    /// The decoded record; a page's text is its cleaned text. A page with nothing but template
    /// is a [`Decoded::Skip`] with the reason.
    pub decoded: Decoded,
    /// Where the record is.
    pub origin: Origin,
    /// Its format.
    pub format: Format,
    /// As [`First::payload`].
    pub payload: Option<(Vec<u8>, bool)>,
    /// What the removal did, for pages.
    pub removed: Option<BoilerplateRemoved>,
    /// The page's (nearest) site.
    site: Option<SiteId>,
    /// Every line of the page was template (it is skipped).
    only_template: bool,
}

/// What boilerplate removal did over the run (`--stats`' `boilerplate`, the summary's line).
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Removal {
    /// The rule.
    pub min_pages: u32,
    /// The rule.
    pub min_share: f64,
    /// Pages looked at.
    pub pages: u64,
    /// Distinct pages counted (copies, and texts that differ only in numbers, count once).
    pub distinct_pages: u64,
    /// Sites seen.
    pub sites: u64,
    /// Sites with enough distinct pages for a template.
    pub sites_with_template: u64,
    /// Template blocks over all sites.
    pub template_blocks: u64,
    /// Bytes of template lines removed from the compared texts.
    pub removed_bytes: u64,
    /// Bytes of those texts before removal.
    pub before_bytes: u64,
    /// Pages whose main content was the site's template, compared by their visible text.
    pub visible_fallbacks: u64,
    /// Pages made of nothing but template lines (skipped: they say nothing of their own).
    pub only_template: u64,
    /// Pages whose main content has nothing but template lines (stubs, notices), compared as
    /// they are.
    pub template_pages: u64,
    /// Rounds of pruning of the block counts (0: the counts were exact).
    pub pruned_rounds: u32,
    /// The sites with the most pages (at most 1,000), with their figures.
    pub by_site: Vec<SiteRemoval>,
}

/// One site's figures.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct SiteRemoval {
    /// The host, folder or field value.
    pub site: String,
    /// Distinct pages.
    pub pages: u32,
    /// Template blocks.
    pub template_blocks: u32,
    /// Bytes removed from its pages' compared texts.
    pub removed_bytes: u64,
    /// Those texts' bytes before removal.
    pub before_bytes: u64,
    /// Its pages compared by their visible text.
    pub visible_fallbacks: u64,
}

thread_local! {
    /// Each worker's block hasher for [`first`] and [`clean_learned`].
    static HASHER: std::cell::RefCell<BlockHasher> = std::cell::RefCell::default();
}

impl BoilerplateOptions {
    /// Whether removal runs on `inputs` read with `opts` at all.
    pub fn enabled(&self, opts: &ReadOptions, inputs: &[Input]) -> bool {
        enabled(self.mode, opts, inputs)
    }

    /// The reading options the first pass needs: the visible text of pages, the site field.
    pub fn read_options(&self, mut opts: ReadOptions) -> ReadOptions {
        opts.visible_text = true;
        opts.site_field = self.site_field.clone();
        opts
    }
}

fn enabled(mode: BoilerplateMode, opts: &ReadOptions, inputs: &[Input]) -> bool {
    let no_pages = |f: Option<Format>| matches!(f, Some(Format::Jsonl | Format::Parquet));
    match mode {
        BoilerplateMode::Off => false,
        BoilerplateMode::All => true,
        // A forced format without pages, or inputs that are all JSONL or Parquet by name, have
        // nothing to clean: no second pass for them.
        BoilerplateMode::Auto => match opts.format {
            Some(f) => !matches!(f, Format::Text | Format::Jsonl | Format::Parquet),
            None => !inputs.iter().all(|i| match i {
                Input::Path(p) => no_pages(Format::from_path(p)),
                Input::Stdin => false,
            }),
        },
    }
}

/// A decoded record as the first pass holds it (run on the workers, where the record is
/// decoded): its page's sites and blocks when `mode` cleans it, and `payload`, what the caller
/// writes for it later that does not depend on its cleaned text.
pub fn first(
    mode: BoilerplateMode,
    rec: &RawRecord,
    decoded: Decoded,
    payload: Option<(Vec<u8>, bool)>,
) -> First {
    let page = HASHER.with_borrow_mut(|h| page_of(mode, rec, &decoded, h));
    First { decoded, origin: rec.origin(), format: rec.format, payload, page }
}

/// The site and blocks of a decoded record that `mode` cleans (run on the workers).
pub fn page_of(
    mode: BoilerplateMode,
    rec: &RawRecord,
    decoded: &Decoded,
    hasher: &mut BlockHasher,
) -> Option<(Vec<String>, PageBlocks)> {
    let sites = sites_of(mode, rec, decoded)?;
    let Decoded::Doc { doc, visible, .. } = decoded else { return None };
    // A page's blocks are the lines of its visible text, which holds those of its main content
    // (cut by the same writer); other texts are their own blocks.
    let text = visible.as_deref().unwrap_or(&doc.text);
    Some((sites, PageBlocks::of_texts(hasher, [text])))
}

/// The sites of a decoded record that `mode` cleans, nearest first (`None`: it is not cleaned):
/// its site field's value; else the host of its id when that is an http(s) URL; else, for a
/// record of a crawl or a table, its file; for a file, its folder and up to three folders
/// above it.
pub fn sites_of(mode: BoilerplateMode, rec: &RawRecord, decoded: &Decoded) -> Option<Vec<String>> {
    let Decoded::Doc { doc, extraction, site, .. } = decoded else { return None };
    let cleaned = match *extraction {
        "main" | "main-element" | "text" => mode != BoilerplateMode::Off,
        "plain" => mode == BoilerplateMode::All,
        _ => false,
    };
    if !cleaned {
        return None;
    }
    Some(match (rec.format, site, host(&doc.id)) {
        (_, Some(s), _) => vec![s.clone()],
        (_, None, Some(host)) => vec![host],
        (Format::Warc | Format::Docreader | Format::Jsonl | Format::Parquet, None, None) => {
            vec![rec.source.to_string()]
        }
        (Format::Text | Format::Html, None, None) => folders(&rec.source),
    })
}

/// The host of a URL id (lower case, as the URL parser gives it), or `None` when `id` is not an
/// http(s) URL.
pub fn url_host(id: &str) -> Option<String> {
    let lower = id.get(..8).map(str::to_ascii_lowercase)?;
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return None;
    }
    let url = url::Url::parse(id).ok()?;
    url.host_str().map(str::to_owned)
}

/// The site of a URL id: its host without `www.`, or `None` when `id` is not an http(s) URL.
fn host(id: &str) -> Option<String> {
    let host = url_host(id)?;
    Some(host.strip_prefix("www.").map_or_else(|| host.clone(), str::to_owned))
}

/// How many folders above a file are its sites.
const FOLDER_LEVELS: usize = 4;

/// The sites of a file: its folder and up to three folders above it, as given (a documentation
/// set's template spans its folders: rustdoc's trait lists repeat across a crate, a small
/// folder of three pages has no template of its own).
fn folders(source: &str) -> Vec<String> {
    Path::new(source)
        .ancestors()
        .skip(1)
        .take(FOLDER_LEVELS)
        .map(|p| p.display().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Lengths of the texts a held record has in the temporary file (`u64::MAX`: none).
#[derive(Debug, Clone, Copy)]
struct Lens {
    text: u64,
    visible: u64,
    payload: u64,
}

/// A record held between the passes: its small parts, its site, its texts' lengths.
#[derive(Debug)]
struct Held {
    first: First,
    sites: Vec<SiteId>,
    lens: Lens,
}

/// Block counts per site, page by page: the counting of the first pass, also run alone to learn
/// a template from a sample ([`Learner::finish`]) without holding the sample's texts.
#[derive(Debug)]
pub struct Learner {
    mode: BoilerplateMode,
    rule: BoilerplateRule,
    site_field: Option<String>,
    counts: BlockCounts,
    /// Pages counted.
    pub pages: u64,
    /// Distinct pages counted (on their nearest site).
    pub distinct: u64,
}

impl Learner {
    /// Counts under `options`.
    pub fn new(options: &BoilerplateOptions) -> Self {
        Learner {
            mode: options.mode,
            rule: options.rule,
            site_field: options.site_field.clone(),
            counts: BlockCounts::default(),
            pages: 0,
            distinct: 0,
        }
    }

    /// The mode, for [`first`] on the workers.
    pub fn mode(&self) -> BoilerplateMode {
        self.mode
    }

    /// Counts one page's blocks on each of its `sites` (nearest first); gives the sites'
    /// numbers.
    pub fn count(&mut self, sites: &[String], blocks: &PageBlocks) -> Vec<SiteId> {
        self.pages += 1;
        let mut ids = Vec::with_capacity(sites.len());
        for (i, name) in sites.iter().enumerate() {
            let id = self.counts.site(name);
            if self.counts.add(id, blocks) && i == 0 {
                self.distinct += 1;
            }
            ids.push(id);
        }
        ids
    }

    /// Counts the page of a record the workers handed over with [`first`] (nothing for a
    /// record that is not cleaned).
    pub fn count_first(&mut self, first: &First) {
        if let Some((names, blocks)) = &first.page {
            self.count(names, blocks);
        }
    }

    /// Freezes the counts into the template of every site.
    pub fn finish(self) -> SiteTemplate {
        SiteTemplate {
            mode: self.mode,
            site_field: self.site_field,
            template: self.counts.finish(self.rule),
        }
    }
}

/// What [`learn`] read and learned.
#[derive(Debug)]
pub struct Learned {
    /// The template.
    pub template: SiteTemplate,
    /// Records read (pages and others; input errors not counted).
    pub records: u64,
    /// Pages counted, and of them distinct on their nearest site.
    pub pages: u64,
    /// Distinct pages.
    pub distinct: u64,
    /// Input errors (each handed to the caller's `warn`).
    pub errors: u64,
}

/// Learns the site template of the pages of `inputs` (a sample of a collection, or the
/// collection), counted as the first pass counts a collection, without keeping their texts.
/// `warn` hears of each input error; the reading goes on.
pub fn learn(
    inputs: Vec<Input>,
    opts: ReadOptions,
    options: &BoilerplateOptions,
    limits: BatchLimits,
    mut warn: impl FnMut(InputError),
) -> io::Result<Learned> {
    let mut learner = Learner::new(options);
    let mode = learner.mode();
    let per_record = |rec: &RawRecord, decoded: Decoded| first(mode, rec, decoded, None);
    let (mut records, mut errors) = (0, 0);
    for batch in DecodedBatches::spawn(inputs, options.read_options(opts), limits, per_record)? {
        for item in batch {
            match item {
                Ok(f) => {
                    records += 1;
                    learner.count_first(&f);
                }
                Err(e) => {
                    errors += 1;
                    warn(e);
                }
            }
        }
    }
    let (pages, distinct) = (learner.pages, learner.distinct);
    Ok(Learned { template: learner.finish(), records, pages, distinct, errors })
}

/// The first pass: block counts per site, and every record held in input order.
#[derive(Debug)]
pub struct SitePass {
    learner: Learner,
    held: Vec<Result<Held, InputError>>,
    spill: BufWriter<File>,
}

const NONE: u64 = u64::MAX;

impl SitePass {
    /// A pass holding the texts in a temporary file in `dir` (removed when the pass ends,
    /// also when the process is killed: the file has no name).
    pub fn new(options: &BoilerplateOptions, dir: &Path) -> io::Result<Self> {
        let file = tempfile::tempfile_in(dir)?;
        Ok(SitePass {
            learner: Learner::new(options),
            held: Vec::new(),
            spill: BufWriter::with_capacity(1 << 20, file),
        })
    }

    /// The mode, for [`first`] on the workers.
    pub fn mode(&self) -> BoilerplateMode {
        self.learner.mode
    }

    /// Pages counted so far.
    pub fn pages(&self) -> u64 {
        self.learner.pages
    }

    /// Counts and holds one record (or keeps an input error in its place).
    pub fn hold(&mut self, item: Result<First, InputError>) -> io::Result<()> {
        let mut first = match item {
            Ok(first) => first,
            Err(e) => {
                self.held.push(Err(e));
                return Ok(());
            }
        };
        let sites = match first.page.take() {
            Some((names, blocks)) => self.learner.count(&names, &blocks),
            None => Vec::new(),
        };
        let mut put = |bytes: Option<&[u8]>| -> io::Result<u64> {
            match bytes {
                Some(b) => {
                    self.spill.write_all(b)?;
                    Ok(b.len() as u64)
                }
                None => Ok(NONE),
            }
        };
        let lens = match &mut first.decoded {
            Decoded::Doc { doc, visible, .. } => Lens {
                text: put(Some(std::mem::take(&mut doc.text).as_bytes()))?,
                visible: put(visible.take().as_deref().map(str::as_bytes))?,
                payload: NONE,
            },
            Decoded::Skip { .. } => Lens { text: NONE, visible: NONE, payload: NONE },
        };
        let payload = first.payload.as_mut().map(|(p, _)| std::mem::take(p));
        let lens = Lens { payload: put(payload.as_deref())?, ..lens };
        self.held.push(Ok(Held { first, sites, lens }));
        Ok(())
    }

    /// Freezes the template and starts the second pass, in batches of about `batch` records.
    pub fn finish(self, batch: usize) -> io::Result<Cleaned> {
        let (pages, distinct) = (self.learner.pages, self.learner.distinct);
        let template = self.learner.finish().template;
        let mut file = self.spill.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        Ok(Cleaned {
            per_site: vec![[0; 5]; template.sites().count()],
            pages,
            distinct,
            template,
            held: self.held.into_iter(),
            spill: BufReader::with_capacity(1 << 20, file),
            batch: batch.max(1),
        })
    }
}

/// The second pass: the held records in input order, pages cleaned, in batches.
#[derive(Debug)]
pub struct Cleaned {
    template: Template,
    /// Per site: removed bytes, bytes before, visible fallbacks, pages with only template,
    /// pages compared as they are.
    per_site: Vec<[u64; 5]>,
    pages: u64,
    distinct: u64,
    held: std::vec::IntoIter<Result<Held, InputError>>,
    spill: BufReader<File>,
    batch: usize,
}

impl Cleaned {
    /// What the removal did, once every batch was taken.
    pub fn removal(&self) -> Removal {
        let rule = self.template.rule();
        let mut r = Removal {
            min_pages: rule.min_pages,
            min_share: rule.min_share,
            pages: self.pages,
            distinct_pages: self.distinct,
            pruned_rounds: self.template.pruned(),
            ..Removal::default()
        };
        let mut rows = Vec::new();
        for (i, (site, pages, blocks)) in self.template.sites().enumerate() {
            let [removed, before, fallbacks, only, as_they_are] = self.per_site[i];
            r.sites += 1;
            r.sites_with_template += u64::from(self.template.has_template(i as SiteId));
            r.template_blocks += u64::from(blocks);
            r.removed_bytes += removed;
            r.before_bytes += before;
            r.visible_fallbacks += fallbacks;
            r.only_template += only;
            r.template_pages += as_they_are;
            rows.push(SiteRemoval {
                site: site.to_owned(),
                pages,
                template_blocks: blocks,
                removed_bytes: removed,
                before_bytes: before,
                visible_fallbacks: fallbacks,
            });
        }
        // The largest sites first, then by name: the same order whatever the input order.
        rows.sort_by(|a, b| b.pages.cmp(&a.pages).then_with(|| a.site.cmp(&b.site)));
        rows.truncate(1000);
        r.by_site = rows;
        r
    }

    fn take(&mut self, len: u64) -> io::Result<Option<Vec<u8>>> {
        if len == NONE {
            return Ok(None);
        }
        let mut buf = vec![0; len as usize];
        self.spill.read_exact(&mut buf)?;
        Ok(Some(buf))
    }

    fn text(&mut self, len: u64) -> io::Result<Option<String>> {
        Ok(self.take(len)?.map(|b| {
            // Written from a String: always UTF-8.
            String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
        }))
    }

    /// The next batch, cleaned on the workers; `None` at the end.
    pub fn next_batch(&mut self) -> io::Result<Option<Vec<Result<Second, InputError>>>> {
        let mut raw: Vec<Result<(Held, Option<String>), InputError>> = Vec::new();
        while let Some(item) = self.held.next() {
            match item {
                Err(e) => raw.push(Err(e)),
                Ok(mut held) => {
                    let text = self.text(held.lens.text)?;
                    let visible = self.text(held.lens.visible)?;
                    let payload = self.take(held.lens.payload)?;
                    if let Decoded::Doc { doc, .. } = &mut held.first.decoded {
                        doc.text = text.unwrap_or_default();
                    }
                    if let (Some(p), Some((slot, _))) = (payload, held.first.payload.as_mut()) {
                        *slot = p;
                    }
                    raw.push(Ok((held, visible)));
                }
            }
            if raw.len() >= self.batch {
                break;
            }
        }
        if raw.is_empty() {
            return Ok(None);
        }
        let template = &self.template;
        let out: Vec<Result<Second, InputError>> = raw
            .into_par_iter()
            .map_init(BlockHasher::default, |hasher, item| {
                item.map(|(held, visible)| clean(template, held, visible, hasher))
            })
            .collect();
        for second in out.iter().flatten() {
            if let (Some(site), Some(r)) = (second.site, second.removed) {
                let s = &mut self.per_site[site as usize];
                s[0] += r.removed_bytes;
                s[1] += r.before_bytes;
                s[2] += u64::from(r.source == Source::Visible.as_str());
                s[3] += u64::from(second.only_template);
                s[4] += u64::from(r.source == Source::Template.as_str());
            }
        }
        Ok(Some(out))
    }
}

/// A held record given back, its page cleaned.
fn clean(
    template: &Template,
    held: Held,
    visible: Option<String>,
    hasher: &mut BlockHasher,
) -> Second {
    let Held { first, sites, .. } = held;
    let First { mut decoded, origin, format, payload, .. } = first;
    let page = clean_decoded(template, &sites, &mut decoded, visible.as_deref(), hasher);
    Second {
        decoded,
        origin,
        format,
        payload,
        removed: page.map(|p| p.removed),
        site: sites.first().copied(),
        only_template: page.is_some_and(|p| p.only_template),
    }
}

/// What [`clean_decoded`] did to a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageCleaned {
    /// The text kept, and the bytes removed.
    pub removed: BoilerplateRemoved,
    /// Every line of the page was template: the record became a [`Decoded::Skip`].
    pub only_template: bool,
}

/// The reason a page with nothing of its own is skipped for.
pub const ONLY_TEMPLATE: &str = "nothing of its own: every line repeats across its site's pages \
                                 (site boilerplate; --boilerplate off compares it)";

/// Cleans one decoded page of its sites' template, in place (a page with nothing of its own
/// becomes a [`Decoded::Skip`] with the reason [`ONLY_TEMPLATE`]): what the second pass does to
/// each record. `sites` are the page's sites' numbers in `template` (nearest first; empty: the
/// record is not cleaned), `visible` its visible text when it was decoded with
/// [`BoilerplateOptions::read_options`].
pub fn clean_decoded(
    template: &Template,
    sites: &[SiteId],
    decoded: &mut Decoded,
    visible: Option<&str>,
    hasher: &mut BlockHasher,
) -> Option<PageCleaned> {
    let (false, Decoded::Doc { doc, title, extraction, .. }) = (sites.is_empty(), &mut *decoded)
    else {
        return None;
    };
    let (text, cleaned) =
        clean_text(template, sites, &doc.text, extraction, visible, title.as_deref(), hasher);
    match text {
        Some(text) => doc.text = text,
        None => {
            let id = std::mem::take(&mut doc.id);
            *decoded = Decoded::Skip { id, reason: SkipReason::boilerplate(ONLY_TEMPLATE) };
        }
    }
    Some(cleaned)
}

/// Cleans one decoded record of the template `learned` from a sample, in place, as the second
/// pass cleans it when the sample is the collection: the record's sites that the sample had
/// (the others have no template), its visible text taken from the record (decode it with
/// [`BoilerplateOptions::read_options`]). `None`: the record is not cleaned (not a page under
/// the template's mode, or none of its sites in the sample).
pub fn clean_learned(
    learned: &SiteTemplate,
    rec: &RawRecord,
    decoded: &mut Decoded,
) -> Option<PageCleaned> {
    let names = sites_of(learned.mode, rec, decoded)?;
    let sites: Vec<SiteId> = names.iter().filter_map(|n| learned.template.site(n)).collect();
    let visible = match decoded {
        Decoded::Doc { visible, .. } => visible.take(),
        Decoded::Skip { .. } => None,
    };
    HASHER.with_borrow_mut(|h| {
        clean_decoded(&learned.template, &sites, decoded, visible.as_deref(), h)
    })
}

/// One document given alone (a request to `lookalike serve`, `lookalike.Index`), decoded as
/// `lookalike index add` decodes a text or HTML file, with `id` as its id, and cleaned of the
/// template `learned` from a sample when there is one. The id names the page's site as a
/// file's path or a record's URL would: the host of an http(s) URL, else the folders of a
/// path. `source` names the document in skip reasons.
pub fn decode_alone(
    source: &str,
    id: String,
    format: Format,
    bytes: Vec<u8>,
    learned: Option<&SiteTemplate>,
) -> Decoded {
    let opts = ReadOptions { visible_text: learned.is_some(), ..ReadOptions::default() };
    let rec = RawRecord { source: source.into(), line: None, format, bytes, warc: None };
    let mut decoded = crate::decode(&rec, &opts);
    if let Decoded::Doc { doc, .. } = &mut decoded {
        doc.id.clone_from(&id);
    }
    if let Some(learned) = learned {
        let named =
            RawRecord { source: id.into(), line: None, format, bytes: Vec::new(), warc: None };
        clean_learned(learned, &named, &mut decoded);
    }
    decoded
}

/// [`clean_decoded`] on the parts of a page held apart (a table's columns): its text, how it
/// was extracted ([`ExtractMethod::as_str`]), its visible text and title. Gives the text to
/// compare, or `None` when the page has nothing of its own and is skipped.
pub fn clean_text(
    template: &Template,
    sites: &[SiteId],
    text: &str,
    extraction: &str,
    visible: Option<&str>,
    title: Option<&str>,
    hasher: &mut BlockHasher,
) -> (Option<String>, PageCleaned) {
    let from = match extraction {
        e if e == ExtractMethod::Main.as_str() => MainFrom::Scored,
        e if e == ExtractMethod::MainElement.as_str() => MainFrom::Marked,
        _ => MainFrom::Absent,
    };
    let c = template.clean_page(sites, text, from, visible, title, hasher);
    let removed = BoilerplateRemoved {
        source: c.source.as_str(),
        removed_bytes: c.removed_bytes as u64,
        before_bytes: c.before_bytes as u64,
    };
    let cleaned = PageCleaned { removed, only_template: c.only_template };
    ((!c.only_template).then_some(c.text), cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_urls() {
        let host = |s| super::host(s);
        assert_eq!(host("http://www.Example.org:8080/a?b").as_deref(), Some("example.org"));
        let docs = host("https://user@docs.python.org/3/library/os.html");
        assert_eq!(docs.as_deref(), Some("docs.python.org"));
        assert_eq!(host("http://[::1]/x").as_deref(), Some("[::1]"));
        assert_eq!(host("file.jsonl:3"), None);
        assert_eq!(host("a b://c"), None);
        assert_eq!(
            folders("docs/html/library/os.html"),
            ["docs/html/library", "docs/html", "docs"]
        );
        assert_eq!(folders("/a/b/c/d/e/f.html"), ["/a/b/c/d/e", "/a/b/c/d", "/a/b/c", "/a/b"]);
    }
}
