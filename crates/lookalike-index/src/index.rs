//! The index itself. Contract: "give me documents, I tell you for each which documents I already
//! hold it near-duplicates, and what `lookalike dedup` would make of it; on `add` I keep it".
//!
//! A document goes through the pipeline's steps, in arrival order:
//! 1. sketch ([`crate::sketch`]); a document without tokens is skipped, with the pipeline's reason;
//! 2. exact copies: a document whose normalized text an indexed document (its *head*) has is a
//!    copy of it; a copy is not sketched again and shares its head's cluster;
//! 3. candidates: the heads filed under the document's keys, filtered as the batch method
//!    filters them; each is verified by exact Jaccard of the shingle sets against the threshold;
//! 4. matches: the verified heads and their copies;
//! 5. fate, as `center` clusters with `--keep first` decide it: the document joins the earliest
//!    cluster representative it matches (or its head's cluster), else it becomes a representative.
//!
//! So adding a collection in one batch, in ten, or one document at a time gives every document
//! the fate and the pairs `lookalike dedup` gives it over the whole collection (tests assert it),
//! as long as no LSH bucket exceeds dedup's group bound (`--max-pairs-per-group`).
//!
//! Ids are the caller's. **Adding an id the index holds replaces that document**: the old one is
//! removed and the new one is added as the latest document (a crawler re-fetching a page wants
//! the new version checked and kept). `remove` deletes a document; the fates recorded for other
//! documents are not revised (a removed representative's members stay members), while `export`
//! recomputes every pair and cluster from what the index holds. A removed head with exact copies
//! hands its place to its first copy.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lookalike::boilerplate::SiteTemplate;
use lookalike::verify::jaccard;
use lookalike::{Document, MatchKind, RunReport, Sink, SkipReason};
use rayon::prelude::*;

use crate::codec::{
    DocRecord, Group, StoredFate, band_prefix, band_row, copy_row, doc_key, doc_of,
};
use crate::error::{Error, Result};
use crate::settings::{FORMAT_PLAIN, FORMAT_VERSION, IndexSettings};
use crate::sketch::{Sketch, Sketcher};
use crate::storage::{Durability, Overlay, RedbStorage, Snapshot, Storage, Table, Writes};

/// The database file inside an index directory.
pub const DB_FILE: &str = "index.redb";

const META_FORMAT: &[u8] = b"format";
const META_SETTINGS: &[u8] = b"settings";
/// The xxh3-64 of the settings record (little-endian), checked on every open: the settings
/// decide every answer, and a changed character in them (a seed, a threshold) would otherwise
/// give wrong answers with exit 0. Indexes written before it have none.
const META_SETTINGS_SUM: &[u8] = b"settings-xxh3";
const META_NEXT: &[u8] = b"next";
/// The site template pages are cleaned of (format 3): the JSON of a
/// [`lookalike::boilerplate::SiteTemplate`], zstd-compressed, and its xxh3-64.
const META_TEMPLATE: &[u8] = b"template";
const META_TEMPLATE_SUM: &[u8] = b"template-xxh3";

/// The format of an index that holds a site template (see [`FORMAT_VERSION`]).
const FORMAT_WITH_TEMPLATE: u32 = FORMAT_VERSION;

/// In fast durability, the longest a commit stays without fsync.
const FAST_FLUSH_EVERY: Duration = Duration::from_secs(1);

/// StoredFate kinds stored in records.
const KIND_SELF: u8 = 0;
const KIND_NEAR: u8 = 1;
const KIND_BYTES: u8 = 2;
const KIND_TEXT: u8 = 3;

/// A persistent near-duplicate index over one directory.
#[derive(Debug)]
pub struct Index {
    dir: PathBuf,
    storage: Box<dyn Storage>,
    settings: IndexSettings,
    /// Its format version (what its records hold; see [`FORMAT_VERSION`]).
    format: u32,
    sketcher: Sketcher,
    /// The site template pages are cleaned of before they are checked or added, if the index
    /// was created with one.
    template: Option<SiteTemplate>,
    durability: Durability,
    /// One writer at a time; the time of the last durable commit.
    writer: Mutex<WriterState>,
}

#[derive(Debug)]
struct WriterState {
    last_durable: Instant,
    /// Commits since the last durable one (fast durability).
    pending: bool,
}

/// One indexed document that matched.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Match {
    /// Its id.
    pub id: String,
    /// Exact Jaccard similarity of the shingle sets (1.0 for an exact copy).
    pub similarity: f64,
    /// How it matched.
    #[serde(rename = "match")]
    pub kind: MatchKind,
}

/// What became of a document, as `lookalike dedup --report` says it.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// Kept: the representative of its cluster.
    Kept,
    /// A duplicate of representative `of`.
    Duplicate {
        /// The representative's id.
        of: String,
        /// Similarity to it.
        similarity: f64,
        /// How it matched.
        kind: MatchKind,
    },
    /// Not indexed: nothing to compare.
    Skipped(SkipReason),
}

/// The answer for one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The document's id.
    pub id: String,
    /// Its fate.
    pub fate: Fate,
    /// Every indexed document (and earlier document of the batch, on `add`) it near-duplicates,
    /// most similar first (ties: earliest added first).
    pub matches: Vec<Match>,
    /// Whether it was inserted.
    pub inserted: bool,
    /// Whether it replaced a document with the same id.
    pub replaced: bool,
    /// Lexical methods: why the document has no signature.
    pub unsigned: Option<String>,
}

impl Checked {
    /// Whether it near-duplicates anything.
    pub fn duplicate(&self) -> bool {
        !self.matches.is_empty()
    }
}

/// Figures of an index.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct IndexStats {
    /// Format version.
    pub format: u32,
    /// Documents held.
    pub documents: u64,
    /// Heads (documents with their own signature).
    pub heads: u64,
    /// Exact copies of heads.
    pub copies: u64,
    /// Cluster representatives among the documents (fates at add time); [`Index::stats`] only
    /// (it reads every record).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub representatives: Option<u64>,
    /// Rows of the keys table.
    pub keys: u64,
    /// Bytes of the database file.
    pub disk_bytes: u64,
    /// Bytes of the documents' texts; [`Index::stats`] only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_bytes: Option<u64>,
    /// Bytes of keys and values each table holds (what the records cost, before the store's
    /// own pages and free space); [`Index::stats`] only (it reads every table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_bytes: Option<std::collections::BTreeMap<&'static str, u64>>,
    /// The frozen settings.
    pub settings: IndexSettings,
    /// The site template pages are cleaned of, if the index has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<TemplateFigures>,
}

/// What an index's site template holds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TemplateFigures {
    /// Which documents it cleans (`auto`: web pages; `all`: every document).
    pub mode: &'static str,
    /// The JSONL/Parquet field that names a record's site, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_field: Option<String>,
    /// The rule: a line is template in at least this many distinct pages of its site ...
    pub min_pages: u32,
    /// ... and this share of them.
    pub min_share: f64,
    /// Sites of the sample.
    pub sites: u64,
    /// Sites with enough distinct pages for a template.
    pub sites_with_template: u64,
    /// Template lines over all sites.
    pub template_blocks: u64,
}

impl TemplateFigures {
    fn of(t: &SiteTemplate) -> Self {
        let (sites, sites_with_template, template_blocks) = t.figures();
        let rule = t.template.rule();
        TemplateFigures {
            mode: t.mode.name(),
            site_field: t.site_field.clone(),
            min_pages: rule.min_pages,
            min_share: rule.min_share,
            sites,
            sites_with_template,
            template_blocks,
        }
    }
}

/// What `verify` found.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct VerifyReport {
    /// Documents checked.
    pub documents: u64,
    /// Every problem, one line each (empty: the index is sound).
    pub problems: Vec<String>,
}

/// An error of [`Index::export_into`]: reading the index, or the sink.
#[derive(Debug, thiserror::Error)]
pub enum ExportError<E: std::fmt::Display + std::fmt::Debug> {
    /// Reading the index failed.
    #[error(transparent)]
    Index(#[from] Error),
    /// The sink (or the run) failed.
    #[error("{0}")]
    Sink(E),
}

impl Index {
    /// Creates an index in `dir` (created if missing) with `settings` frozen.
    pub fn create(dir: &Path, settings: &IndexSettings) -> Result<Index> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
        let path = dir.join(DB_FILE);
        if path.exists() {
            return Err(Error::Exists { path: dir.into() });
        }
        Index::create_with_storage(dir, Box::new(RedbStorage::open(&path)?), settings)
    }

    /// Creates an index in `dir` (created if missing) with `settings` frozen, and the site
    /// template learned from a sample of the collection: every page given to [`Index::add`] or
    /// [`Index::query`] is to be cleaned of it first (the callers that decode pages do so:
    /// `lookalike index add`, `lookalike serve`, `lookalike.Index`), as `lookalike dedup`
    /// cleans a collection. Such an index is written in format 3, which lookalike builds before
    /// it refuse instead of comparing pages with their template.
    pub fn create_with_template(
        dir: &Path,
        settings: &IndexSettings,
        template: &SiteTemplate,
    ) -> Result<Index> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
        let path = dir.join(DB_FILE);
        if path.exists() {
            return Err(Error::Exists { path: dir.into() });
        }
        let storage = Box::new(RedbStorage::open(&path)?);
        Index::create_on(dir, storage, settings, Some(template))
    }

    /// Creates an index on an empty store (the crash tests' simulated disks).
    pub fn create_with_storage(
        dir: &Path,
        storage: Box<dyn Storage>,
        settings: &IndexSettings,
    ) -> Result<Index> {
        Index::create_on(dir, storage, settings, None)
    }

    fn create_on(
        dir: &Path,
        storage: Box<dyn Storage>,
        settings: &IndexSettings,
        template: Option<&SiteTemplate>,
    ) -> Result<Index> {
        if storage.snapshot()?.get(Table::Meta, META_FORMAT)?.is_some() {
            return Err(Error::Exists { path: dir.into() });
        }
        let mut w = Writes::new();
        let format = if template.is_some() { FORMAT_WITH_TEMPLATE } else { FORMAT_PLAIN };
        w.insert((Table::Meta, META_FORMAT.to_vec()), Some(format.to_le_bytes().to_vec()));
        let json = serde_json::to_vec(settings).expect("settings serialize");
        let sum = xxhash_rust::xxh3::xxh3_64(&json).to_le_bytes().to_vec();
        w.insert((Table::Meta, META_SETTINGS.to_vec()), Some(json));
        w.insert((Table::Meta, META_SETTINGS_SUM.to_vec()), Some(sum));
        w.insert((Table::Meta, META_NEXT.to_vec()), Some(0u64.to_le_bytes().to_vec()));
        if let Some(t) = template {
            let json = serde_json::to_vec(t).expect("a template serializes");
            let packed = zstd::bulk::compress(&json, 3)
                .map_err(|source| Error::Io { path: dir.into(), source })?;
            let sum = xxhash_rust::xxh3::xxh3_64(&packed).to_le_bytes().to_vec();
            w.insert((Table::Meta, META_TEMPLATE.to_vec()), Some(packed));
            w.insert((Table::Meta, META_TEMPLATE_SUM.to_vec()), Some(sum));
        }
        storage.commit(&w, Durability::Immediate)?;
        Index::with_storage(dir, storage)
    }

    /// Opens the index in `dir` with the settings it was created with, for reading and writing.
    /// Every open checks the whole file first (see [`RedbStorage`]): a damaged index is refused
    /// with [`Error::Damaged`].
    pub fn open(dir: &Path) -> Result<Index> {
        Index::with_storage(dir, Box::new(RedbStorage::open(&db_file(dir)?)?))
    }

    /// Opens the index in `dir` for reading only (queries, figures, export, verify): its file is
    /// never written, and other read-only opens may share it. Writes are refused.
    pub fn open_read_only(dir: &Path) -> Result<Index> {
        Index::with_storage(dir, Box::new(RedbStorage::open_read_only(&db_file(dir)?)?))
    }

    /// Opens the index in `dir`, refusing it when its settings differ from `expected` (the
    /// message names every difference).
    pub fn open_expecting(dir: &Path, expected: &IndexSettings) -> Result<Index> {
        let index = Index::open(dir)?;
        index.expect_settings(expected)?;
        Ok(index)
    }

    /// Refuses the index when its settings differ from `expected`, naming every difference.
    pub fn expect_settings(&self, expected: &IndexSettings) -> Result<()> {
        let diff = self.settings.differences(expected);
        if !diff.is_empty() {
            let differences = diff.join("; ");
            return Err(Error::SettingsDiffer { path: self.dir.clone(), differences });
        }
        Ok(())
    }

    /// An index on any store that holds one (the crash tests' simulated disks).
    pub fn with_storage(dir: &Path, storage: Box<dyn Storage>) -> Result<Index> {
        let snap = storage.snapshot()?;
        let path = dir.join(DB_FILE);
        let Some(format) = snap.get(Table::Meta, META_FORMAT)? else {
            return Err(Error::NotAnIndex { path: dir.into() });
        };
        let found = u32::from_le_bytes(format.as_slice().try_into().map_err(|_| {
            Error::Corrupt { table: "meta", message: "format is not 4 bytes".into() }
        })?);
        if !(1..=FORMAT_VERSION).contains(&found) {
            return Err(Error::Version { path, found, supported: FORMAT_VERSION });
        }
        let json =
            checked_meta(snap.as_ref(), &path, META_SETTINGS, META_SETTINGS_SUM, "settings")?
                .ok_or_else(|| Error::Corrupt { table: "meta", message: "no settings".into() })?;
        let settings: IndexSettings = serde_json::from_slice(&json)
            .map_err(|e| Error::Corrupt { table: "meta", message: format!("settings: {e}") })?;
        let current = crate::settings::normalizer_fingerprint(settings.segmentation);
        if settings.normalizer != current {
            return Err(Error::SettingsDiffer {
                path: dir.into(),
                differences: format!(
                    "normalizer: index {}, this lookalike {current} (its text normalization \
                     changed: rebuild the index)",
                    settings.normalizer
                ),
            });
        }
        let sketcher = Sketcher::new(&settings)?;
        let template = match checked_meta(
            snap.as_ref(),
            &path,
            META_TEMPLATE,
            META_TEMPLATE_SUM,
            "site template",
        )? {
            None if found == FORMAT_WITH_TEMPLATE => {
                return Err(Error::Corrupt {
                    table: "meta",
                    message: format!("{}: format 3 without its site template", path.display()),
                });
            }
            None => None,
            Some(packed) => Some(unpack_template(&packed)?),
        };
        Ok(Index {
            dir: dir.into(),
            storage,
            settings,
            format: found,
            sketcher,
            template,
            durability: Durability::Immediate,
            writer: Mutex::new(WriterState { last_durable: Instant::now(), pending: false }),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The frozen settings.
    pub fn settings(&self) -> &IndexSettings {
        &self.settings
    }

    /// The site template pages are cleaned of before they are checked or added (see
    /// [`Index::create_with_template`]), if the index has one.
    pub fn template(&self) -> Option<&SiteTemplate> {
        self.template.as_ref()
    }

    /// One line describing the method and its settings (`lookalike dedup`'s summary line).
    pub fn describe(&self) -> String {
        self.sketcher.dedup().describe()
    }

    /// Documents held (a cheap count).
    pub fn len(&self) -> Result<u64> {
        self.storage.snapshot()?.len(Table::Docs)
    }

    /// True when the index holds no document.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Sets how commits reach the disk (default [`Durability::Immediate`]).
    pub fn set_durability(&mut self, durability: Durability) {
        self.durability = durability;
    }

    /// Checks documents against the index without inserting them; each is checked against the
    /// index alone (not against the others).
    pub fn query(&self, docs: &[Document]) -> Result<Vec<Checked>> {
        let sketches = self.sketch_all(docs);
        let snap = self.storage.snapshot()?;
        let mut out = Vec::with_capacity(docs.len());
        for (doc, sketch) in docs.iter().zip(sketches) {
            // A fresh overlay each: the document is filed there, never committed, and never seen
            // by the next one.
            let mut scratch = Overlay { base: snap.as_ref(), writes: Writes::new() };
            let mut next = self.next(&scratch)?;
            out.push(self.apply(&mut scratch, &mut next, doc, sketch, false)?);
        }
        Ok(out)
    }

    /// Checks and inserts a batch of documents in order (each is checked against the index and
    /// the batch's earlier documents) in one commit: when this returns, the whole batch is in the
    /// index (durably, unless the durability is [`Durability::Fast`]); after a crash, all of it
    /// or none.
    pub fn add(&self, docs: &[Document]) -> Result<Vec<Checked>> {
        let sketches = self.sketch_all(docs);
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let snap = self.storage.snapshot()?;
        let mut ov = Overlay { base: snap.as_ref(), writes: Writes::new() };
        let mut next = self.next(&ov)?;
        let mut out = Vec::with_capacity(docs.len());
        for (doc, sketch) in docs.iter().zip(sketches) {
            out.push(self.apply(&mut ov, &mut next, doc, sketch, true)?);
        }
        ov.put(Table::Meta, META_NEXT.to_vec(), next.to_le_bytes().to_vec());
        self.commit(&mut writer, &ov.writes)?;
        Ok(out)
    }

    /// Removes documents by id, in one commit; returns which were there.
    pub fn remove(&self, ids: &[String]) -> Result<Vec<bool>> {
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let snap = self.storage.snapshot()?;
        let mut ov = Overlay { base: snap.as_ref(), writes: Writes::new() };
        let mut found = Vec::with_capacity(ids.len());
        for id in ids {
            match ov.get(Table::Ids, id.as_bytes())? {
                Some(k) => {
                    self.remove_doc(&mut ov, doc_of(&k)?)?;
                    found.push(true);
                }
                None => found.push(false),
            }
        }
        if found.iter().any(|&f| f) {
            self.commit(&mut writer, &ov.writes)?;
        }
        Ok(found)
    }

    /// Makes every commit so far durable (fast durability; a no-op otherwise).
    pub fn flush(&self) -> Result<()> {
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if writer.pending {
            self.storage.commit(&Writes::new(), Durability::Immediate)?;
            writer.pending = false;
            writer.last_durable = Instant::now();
        }
        Ok(())
    }

    fn commit(&self, writer: &mut WriterState, writes: &Writes) -> Result<()> {
        let durable = self.durability == Durability::Immediate
            || writer.last_durable.elapsed() >= FAST_FLUSH_EVERY;
        if durable {
            self.storage.commit(writes, Durability::Immediate)?;
            writer.pending = false;
            writer.last_durable = Instant::now();
        } else {
            self.storage.commit(writes, Durability::Fast)?;
            writer.pending = true;
        }
        Ok(())
    }

    fn sketch_all(&self, docs: &[Document]) -> Vec<Sketch> {
        docs.par_iter().map(|d| self.sketcher.sketch(d)).collect()
    }

    fn next(&self, ov: &Overlay<'_>) -> Result<u64> {
        let v = ov.get(Table::Meta, META_NEXT)?.unwrap_or_else(|| vec![0; 8]);
        let b: [u8; 8] = v
            .as_slice()
            .try_into()
            .map_err(|_| Error::Corrupt { table: "meta", message: "next is not 8 bytes".into() })?;
        Ok(u64::from_le_bytes(b))
    }

    fn load(&self, ov: &Overlay<'_>, doc: u64) -> Result<DocRecord> {
        let bytes = ov.get(Table::Docs, &doc_key(doc))?.ok_or_else(|| Error::Corrupt {
            table: "docs",
            message: format!("document {doc} is referenced but missing"),
        })?;
        DocRecord::decode(&bytes)
    }

    /// The sorted shingle set of head `doc`: stored in its record (format 1), else made again
    /// from its stored text.
    fn shingles_of<'r>(
        &self,
        ov: &Overlay<'_>,
        doc: u64,
        rec: &'r DocRecord,
    ) -> Result<std::borrow::Cow<'r, [u64]>> {
        if !rec.shingles.is_empty() {
            return Ok(std::borrow::Cow::Borrowed(&rec.shingles));
        }
        let text = decode_text(doc, ov.get(Table::Texts, &doc_key(doc))?)?;
        Ok(std::borrow::Cow::Owned(self.sketcher.shingles(&text)))
    }

    fn copies_of(&self, ov: &Overlay<'_>, head: u64) -> Result<Vec<u64>> {
        ov.scan(Table::Copies, &doc_key(head))?.iter().map(|(k, _)| doc_of(&k[8..])).collect()
    }

    /// Heads verified ≥ threshold against a head-to-be with this sketch, by document number.
    fn near_heads(
        &self,
        ov: &Overlay<'_>,
        keys: &[(u16, u64)],
        signature: &[u8],
        shingles: &[u64],
        exclude: Option<u64>,
    ) -> Result<Vec<(u64, f64, DocRecord)>> {
        let mut shared: HashMap<u64, usize> = HashMap::new();
        for &(t, k) in keys {
            for (row, _) in ov.scan(Table::Keys, &band_prefix(t, k))? {
                *shared.entry(doc_of(&row[10..])?).or_default() += 1;
            }
        }
        let mut cands: Vec<(u64, usize)> = shared.into_iter().collect();
        cands.sort_unstable();
        let mut out = Vec::new();
        for (doc, n) in cands {
            if Some(doc) == exclude {
                continue;
            }
            let rec = self.load(ov, doc)?;
            if !self.sketcher.is_candidate(n, signature, &rec.signature) {
                continue;
            }
            let sim = jaccard(shingles, &self.shingles_of(ov, doc, &rec)?);
            if sim >= self.settings.threshold {
                out.push((doc, sim, rec));
            }
        }
        Ok(out)
    }

    /// The matches, fate and (on insert) the writes of one document.
    fn apply(
        &self,
        ov: &mut Overlay<'_>,
        next: &mut u64,
        doc: &Document,
        sketch: Sketch,
        insert: bool,
    ) -> Result<Checked> {
        let mut checked = Checked {
            id: doc.id.clone(),
            fate: Fate::Kept,
            matches: Vec::new(),
            inserted: false,
            replaced: false,
            unsigned: None,
        };
        if let Some(reason) = sketch.skipped {
            checked.fate = Fate::Skipped(reason);
            return Ok(checked);
        }
        if insert && let Some(old) = ov.get(Table::Ids, doc.id.as_bytes())? {
            self.remove_doc(ov, doc_of(&old)?)?;
            checked.replaced = true;
        }
        let me = *next;
        let mut found: Vec<(u64, f64, MatchKind)> = Vec::new();
        let head = ov.get(Table::Exact, &sketch.fingerprint.to_be_bytes())?;
        let (group, fate, unsigned) = match head {
            Some(h) => {
                let h = doc_of(&h)?;
                let hrec = self.load(ov, h)?;
                let bytes =
                    doc.raw_fingerprint.is_some() && doc.raw_fingerprint == hrec.raw_fingerprint;
                found.push((h, 1.0, exact_kind(bytes)));
                for c in self.copies_of(ov, h)? {
                    let crec = self.load(ov, c)?;
                    let cbytes = matches!(crec.group, Group::Copy { bytes: true, .. });
                    found.push((c, 1.0, exact_kind(bytes && cbytes)));
                }
                // The head's shingles are this document's: both are a function of the same
                // normalized text.
                let near = self.near_heads(
                    ov,
                    &self.sketcher.keys_of(&hrec.signature),
                    &hrec.signature,
                    &sketch.shingles,
                    Some(h),
                )?;
                for (n, sim, _) in near {
                    found.push((n, sim, MatchKind::Near));
                    for c in self.copies_of(ov, n)? {
                        found.push((c, sim, MatchKind::Near));
                    }
                }
                let rep_alive =
                    hrec.fate.rep == h || ov.get(Table::Docs, &doc_key(hrec.fate.rep))?.is_some();
                let fate = if hrec.fate.rep == h || !rep_alive {
                    StoredFate {
                        rep: h,
                        similarity: 1.0,
                        kind: if bytes { KIND_BYTES } else { KIND_TEXT },
                    }
                } else {
                    StoredFate {
                        rep: hrec.fate.rep,
                        similarity: hrec.fate.similarity,
                        kind: KIND_NEAR,
                    }
                };
                (Group::Copy { of: h, bytes }, fate, hrec.unsigned.clone())
            }
            None => {
                let near =
                    self.near_heads(ov, &sketch.keys, &sketch.signature, &sketch.shingles, None)?;
                let mut fate = StoredFate { rep: me, similarity: 1.0, kind: KIND_SELF };
                for (n, sim, rec) in &near {
                    if rec.fate.rep == *n && fate.rep == me {
                        fate = StoredFate { rep: *n, similarity: *sim, kind: KIND_NEAR };
                    }
                }
                for (n, sim, _) in near {
                    found.push((n, sim, MatchKind::Near));
                    for c in self.copies_of(ov, n)? {
                        found.push((c, sim, MatchKind::Near));
                    }
                }
                (Group::Head, fate, sketch.unsigned.clone())
            }
        };
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (d, sim, kind) in &found {
            let rec = self.load(ov, *d)?;
            checked.matches.push(Match { id: rec.id, similarity: *sim, kind: *kind });
        }
        checked.fate = if fate.rep == me {
            Fate::Kept
        } else {
            Fate::Duplicate {
                of: self.load(ov, fate.rep)?.id,
                similarity: fate.similarity,
                kind: match fate.kind {
                    KIND_BYTES => MatchKind::ExactBytes,
                    KIND_TEXT => MatchKind::ExactText,
                    _ => MatchKind::Near,
                },
            }
        };
        checked.unsigned = unsigned.clone();
        let is_head = group == Group::Head;
        let record = DocRecord {
            id: doc.id.clone(),
            group,
            fate,
            fingerprint: sketch.fingerprint,
            raw_fingerprint: doc.raw_fingerprint,
            raw_len: doc.raw_len,
            text_len: doc.text.len() as u64,
            signature: if is_head { sketch.signature } else { Vec::new() },
            unsigned: if is_head { unsigned } else { None },
            shingles: if is_head && self.format == 1 { sketch.shingles } else { Vec::new() },
        };
        // Queries file the document too (in their scratch overlay, never committed) so that the
        // code path is the same; only `add` commits.
        *next += 1;
        ov.put(Table::Ids, doc.id.as_bytes().to_vec(), doc_key(me).to_vec());
        ov.put(Table::Docs, doc_key(me).to_vec(), record.encode());
        if insert {
            let text = zstd::bulk::compress(doc.text.as_bytes(), 3)
                .map_err(|source| Error::Io { path: self.dir.clone(), source })?;
            ov.put(Table::Texts, doc_key(me).to_vec(), text);
        }
        match group {
            Group::Head => {
                for &(t, k) in &sketch.keys {
                    ov.put(Table::Keys, band_row(t, k, me), Vec::new());
                }
                ov.put(
                    Table::Exact,
                    sketch.fingerprint.to_be_bytes().to_vec(),
                    doc_key(me).to_vec(),
                );
            }
            Group::Copy { of, .. } => ov.put(Table::Copies, copy_row(of, me), Vec::new()),
        }
        checked.inserted = insert;
        Ok(checked)
    }

    /// Deletes a document and what files it; a head with copies hands its place to the first.
    fn remove_doc(&self, ov: &mut Overlay<'_>, doc: u64) -> Result<()> {
        let rec = self.load(ov, doc)?;
        ov.delete(Table::Ids, rec.id.as_bytes().to_vec());
        ov.delete(Table::Docs, doc_key(doc).to_vec());
        ov.delete(Table::Texts, doc_key(doc).to_vec());
        let of = match rec.group {
            Group::Copy { of, .. } => {
                ov.delete(Table::Copies, copy_row(of, doc));
                return Ok(());
            }
            Group::Head => doc,
        };
        for (t, k) in self.sketcher.keys_of(&rec.signature) {
            ov.delete(Table::Keys, band_row(t, k, of));
        }
        let copies = self.copies_of(ov, doc)?;
        let fp_key = rec.fingerprint.to_be_bytes().to_vec();
        let Some((&first, rest)) = copies.split_first() else {
            ov.delete(Table::Exact, fp_key);
            return Ok(());
        };
        for &c in &copies {
            ov.delete(Table::Copies, copy_row(doc, c));
        }
        let old = self.load(ov, first)?;
        let promoted = DocRecord {
            group: Group::Head,
            fate: if rec.fate.rep == doc {
                StoredFate { rep: first, similarity: 1.0, kind: KIND_SELF }
            } else {
                rec.fate
            },
            signature: rec.signature.clone(),
            unsigned: rec.unsigned.clone(),
            shingles: rec.shingles.clone(),
            ..old
        };
        for (t, k) in self.sketcher.keys_of(&promoted.signature) {
            ov.put(Table::Keys, band_row(t, k, first), Vec::new());
        }
        ov.put(Table::Exact, fp_key, doc_key(first).to_vec());
        for &c in rest {
            let mut crec = self.load(ov, c)?;
            let bytes =
                crec.raw_fingerprint.is_some() && crec.raw_fingerprint == promoted.raw_fingerprint;
            crec.group = Group::Copy { of: first, bytes };
            if crec.fate.rep == doc {
                crec.fate.rep = first;
            }
            ov.put(Table::Docs, doc_key(c).to_vec(), crec.encode());
            ov.put(Table::Copies, copy_row(first, c), Vec::new());
        }
        ov.put(Table::Docs, doc_key(first).to_vec(), promoted.encode());
        Ok(())
    }

    /// The index's figures, reading every record (representatives, text bytes).
    pub fn stats(&self) -> Result<IndexStats> {
        let mut stats = self.counts()?;
        let snap = self.storage.snapshot()?;
        let (mut representatives, mut text_bytes) = (0, 0);
        snap.scan(Table::Docs, &[], &mut |k, v| {
            let rec = DocRecord::decode(v)?;
            if rec.fate.rep == doc_of(k)? {
                representatives += 1;
            }
            text_bytes += rec.text_len;
            Ok(true)
        })?;
        stats.representatives = Some(representatives);
        stats.text_bytes = Some(text_bytes);
        let mut table_bytes = std::collections::BTreeMap::new();
        for t in Table::ALL {
            let mut n = 0u64;
            snap.scan(t, &[], &mut |k, v| {
                n += (k.len() + v.len()) as u64;
                Ok(true)
            })?;
            table_bytes.insert(t.name(), n);
        }
        stats.table_bytes = Some(table_bytes);
        Ok(stats)
    }

    /// The index's figures from table sizes alone (cheap at any size).
    pub fn counts(&self) -> Result<IndexStats> {
        let snap = self.storage.snapshot()?;
        let documents = snap.len(Table::Docs)?;
        let copies = snap.len(Table::Copies)?;
        Ok(IndexStats {
            format: self.format,
            documents,
            heads: documents - copies.min(documents),
            copies,
            representatives: None,
            keys: snap.len(Table::Keys)?,
            disk_bytes: self.storage.disk_bytes(),
            text_bytes: None,
            table_bytes: None,
            settings: self.settings.clone(),
            template: self.template.as_ref().map(TemplateFigures::of),
        })
    }

    /// The document held under `id` (its id, text and raw figures, as
    /// [`Index::for_each_document`] gives it), or `None` when the index holds no such id.
    pub fn get(&self, id: &str) -> Result<Option<Document>> {
        let snap = self.storage.snapshot()?;
        let Some(key) = snap.get(Table::Ids, id.as_bytes())? else { return Ok(None) };
        let doc = doc_of(&key)?;
        let bytes = snap.get(Table::Docs, &doc_key(doc))?.ok_or_else(|| Error::Corrupt {
            table: "ids",
            message: format!("id {id:?} points at document {doc}, which is missing"),
        })?;
        let rec = DocRecord::decode(&bytes)?;
        Ok(Some(Document {
            text: read_text(snap.as_ref(), doc)?,
            id: rec.id,
            raw_fingerprint: rec.raw_fingerprint,
            raw_len: rec.raw_len,
        }))
    }

    /// Every document in insertion order, rebuilt from the stored text, to `f`.
    pub fn for_each_document(&self, f: &mut dyn FnMut(Document) -> Result<()>) -> Result<()> {
        let snap = self.storage.snapshot()?;
        let mut docs: Vec<(u64, DocRecord)> = Vec::new();
        snap.scan(Table::Docs, &[], &mut |k, v| {
            let mut rec = DocRecord::decode(v)?;
            // Only the id and raw figures are needed here (format 1 records hold shingles too).
            rec.shingles = Vec::new();
            rec.signature = Vec::new();
            docs.push((doc_of(k)?, rec));
            Ok(true)
        })?;
        for (doc, rec) in docs {
            let text = read_text(snap.as_ref(), doc)?;
            f(Document {
                id: rec.id,
                text,
                raw_fingerprint: rec.raw_fingerprint,
                raw_len: rec.raw_len,
            })?;
        }
        Ok(())
    }

    /// Runs `lookalike dedup`'s pipeline, with the frozen settings, over every document held (in
    /// insertion order) and pushes its pairs, clusters and fates into `sink`: the batch answer
    /// for what the index holds now.
    pub fn export_into<S: Sink>(&self, sink: &mut S) -> Result<RunReport, ExportError<S::Error>>
    where
        S::Error: std::fmt::Display + std::fmt::Debug,
    {
        let dedup = self.sketcher.dedup();
        let mut run = dedup.start().map_err(|e| ExportError::Sink(S::Error::from(e)))?;
        let mut batch = Vec::new();
        let mut failed: Option<lookalike::Error> = None;
        self.for_each_document(&mut |d| {
            batch.push(d);
            if batch.len() >= 4096
                && let Err(e) = run.add(std::mem::take(&mut batch))
            {
                failed = Some(e);
            }
            Ok(())
        })?;
        if let Some(e) = failed {
            return Err(ExportError::Sink(S::Error::from(e)));
        }
        run.add(batch).map_err(|e| ExportError::Sink(S::Error::from(e)))?;
        run.finish_into(sink).map_err(ExportError::Sink)
    }

    /// Checks the store's own checksums, then every record and invariant: records decode (their
    /// checksums hold), ids and documents point at each other, each document's representative
    /// was added no later than it, each head's text sketches again to its stored shingles,
    /// fingerprint, signature and keys, every key row and exact entry points at a head filed
    /// under it (an exact entry under that head's own fingerprint), every copy at a head with its
    /// text, the document counter is past every document.
    ///
    /// It streams: documents are read and re-sketched [`VERIFY_CHUNK`] at a time, and every
    /// cross-reference is a point read, so its memory does not grow with the index.
    pub fn verify(&mut self) -> Result<VerifyReport> {
        let mut report = VerifyReport::default();
        if !self.storage.check()? {
            report.problems.push("the store's own integrity check failed".into());
        }
        let this = &*self;
        let snap = this.storage.snapshot()?;
        let snap = snap.as_ref();
        let next = this.next(&Overlay { base: snap, writes: Writes::new() })?;
        let mut tally = VerifyTally { next, problems: report.problems, good: 0, keys_expected: 0 };
        let mut chunk: Vec<(u64, Result<DocRecord>)> = Vec::with_capacity(VERIFY_CHUNK);
        snap.scan(Table::Docs, &[], &mut |k, v| {
            chunk.push((doc_of(k)?, DocRecord::decode(v)));
            if chunk.len() == VERIFY_CHUNK {
                this.verify_chunk(snap, &mut chunk, &mut tally)?;
            }
            Ok(true)
        })?;
        this.verify_chunk(snap, &mut chunk, &mut tally)?;
        let VerifyTally { problems, good, keys_expected, .. } = &mut tally;
        let mut p = |s: String| problems.push(s);
        if snap.len(Table::Keys)? != *keys_expected {
            p(format!(
                "the keys table has {} rows, the heads file {keys_expected}",
                snap.len(Table::Keys)?
            ));
        }
        snap.scan(Table::Exact, &[], &mut |k, v| {
            let h = doc_of(v)?;
            match head_record(snap, h)? {
                Some(r) if r.fingerprint.to_be_bytes().as_slice() == k => {}
                Some(_) => {
                    p(format!("an exact entry points at head {h} under another text's fingerprint"))
                }
                None => p(format!("an exact entry points at {h}, which is not a head")),
            }
            Ok(true)
        })?;
        snap.scan(Table::Copies, &[], &mut |k, _| {
            let (h, c) = (doc_of(&k[..8])?, doc_of(&k[8..])?);
            let rec = snap.get(Table::Docs, &doc_key(c))?.and_then(|v| DocRecord::decode(&v).ok());
            if !matches!(rec, Some(r) if matches!(r.group, Group::Copy { of, .. } if of == h)) {
                p(format!("copies row {h} → {c} has no such copy"));
            }
            Ok(true)
        })?;
        let ids = snap.len(Table::Ids)?;
        if ids != *good {
            p(format!("{ids} ids for {good} documents"));
        }
        if snap.len(Table::Texts)? != *good {
            p(format!("{} texts for {good} documents", snap.len(Table::Texts)?));
        }
        report.documents = *good;
        report.problems = tally.problems;
        Ok(report)
    }

    /// Verifies one chunk of documents (emptied): their texts are read in order, sketched in
    /// parallel, then checked against their records and the other tables.
    fn verify_chunk(
        &self,
        snap: &dyn Snapshot,
        chunk: &mut Vec<(u64, Result<DocRecord>)>,
        tally: &mut VerifyTally,
    ) -> Result<()> {
        let mut docs = Vec::with_capacity(chunk.len());
        for (doc, rec) in chunk.drain(..) {
            match rec {
                Ok(r) => {
                    let text = read_text(snap, doc);
                    docs.push((doc, r, text));
                }
                Err(e) => tally.problems.push(format!("document {doc}: {e}")),
            }
        }
        let docs: Vec<(u64, DocRecord, Result<TextSketch>)> = docs
            .into_par_iter()
            .map(|(doc, r, text)| {
                let sketched = text.map(|text| {
                    let len = text.len();
                    let d = Document { id: r.id.clone(), text, raw_fingerprint: None, raw_len: 0 };
                    (len, self.sketcher.sketch(&d))
                });
                (doc, r, sketched)
            })
            .collect();
        let next = tally.next;
        let mut p = |s: String| tally.problems.push(s);
        for (doc, rec, sketched) in docs {
            tally.good += 1;
            if doc >= next {
                p(format!("document {doc} ({}): at or past the counter {next}", rec.id));
            }
            if rec.fate.rep > doc {
                p(format!(
                    "document {doc} ({}): its representative {} was added after it",
                    rec.id, rec.fate.rep
                ));
            }
            match snap.get(Table::Ids, rec.id.as_bytes())? {
                Some(k) if doc_of(&k)? == doc => {}
                _ => p(format!("document {doc} ({}): its id does not point back to it", rec.id)),
            }
            let (text_len, s) = match sketched {
                Ok(x) => x,
                Err(e) => {
                    p(format!("document {doc} ({}): text: {e}", rec.id));
                    continue;
                }
            };
            if text_len as u64 != rec.text_len {
                p(format!("document {doc} ({}): text length differs from the record", rec.id));
            }
            if s.fingerprint != rec.fingerprint {
                p(format!("document {doc} ({}): text fingerprint differs", rec.id));
            }
            match rec.group {
                Group::Head => {
                    // Format 1 stores the shingle set; later formats store none.
                    let stored_ok = if self.format == 1 {
                        s.shingles == rec.shingles
                    } else {
                        rec.shingles.is_empty()
                    };
                    if !stored_ok || s.signature != rec.signature {
                        p(format!(
                            "document {doc} ({}): shingles or signature differ from its text",
                            rec.id
                        ));
                    }
                    for (t, k) in self.sketcher.keys_of(&rec.signature) {
                        tally.keys_expected += 1;
                        if snap.get(Table::Keys, &band_row(t, k, doc))?.is_none() {
                            p(format!("document {doc} ({}): key row {t}:{k:016x} missing", rec.id));
                        }
                    }
                    match snap.get(Table::Exact, &rec.fingerprint.to_be_bytes())? {
                        Some(h) if doc_of(&h)? == doc => {}
                        _ => p(format!("head {doc} ({}): no exact entry points at it", rec.id)),
                    }
                }
                Group::Copy { of, .. } => match head_record(snap, of)? {
                    Some(h) if h.fingerprint == rec.fingerprint => {
                        if snap.get(Table::Copies, &copy_row(of, doc))?.is_none() {
                            p(format!("copy {doc} ({}): copies row missing", rec.id));
                        }
                    }
                    _ => p(format!(
                        "copy {doc} ({}): its head {of} is not a head of its text",
                        rec.id
                    )),
                },
            }
        }
        Ok(())
    }
}

/// The database file of the index in `dir`: refused when there is none, or when it is empty
/// (a store would make a new database of it).
fn db_file(dir: &Path) -> Result<PathBuf> {
    let path = dir.join(DB_FILE);
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() && m.len() == 0 => {
            Err(Error::Damaged { path, message: "the file is empty".into() })
        }
        Ok(m) if m.is_file() => Ok(path),
        _ => Err(Error::NotAnIndex { path: dir.into() }),
    }
}

/// A document's text length and sketch, as [`Index::verify`] recomputes them.
type TextSketch = (usize, Sketch);

/// Documents [`Index::verify`] reads and re-sketches at a time.
pub const VERIFY_CHUNK: usize = 1024;

/// What [`Index::verify`] carries from chunk to chunk.
struct VerifyTally {
    next: u64,
    problems: Vec<String>,
    /// Records that decode.
    good: u64,
    /// Key rows the heads so far file.
    keys_expected: u64,
}

/// The record of `doc` when it decodes and is a head.
fn head_record(snap: &dyn Snapshot, doc: u64) -> Result<Option<DocRecord>> {
    let Some(bytes) = snap.get(Table::Docs, &doc_key(doc))? else { return Ok(None) };
    Ok(DocRecord::decode(&bytes).ok().filter(|r| r.group == Group::Head))
}

/// A meta record checked against its checksum (records written before their checksum have
/// none, and are taken as they are).
fn checked_meta(
    snap: &dyn Snapshot,
    path: &Path,
    key: &[u8],
    sum_key: &[u8],
    what: &str,
) -> Result<Option<Vec<u8>>> {
    let Some(value) = snap.get(Table::Meta, key)? else { return Ok(None) };
    if let Some(sum) = snap.get(Table::Meta, sum_key)? {
        let want = xxhash_rust::xxh3::xxh3_64(&value).to_le_bytes();
        if sum.as_slice() != want {
            return Err(Error::Corrupt {
                table: "meta",
                message: format!(
                    "the {what} record of {} does not match its checksum: the index is \
                     damaged (rebuild it from its documents, `lookalike index export` of a \
                     backup, or recreate it)",
                    path.display()
                ),
            });
        }
    }
    Ok(Some(value))
}

/// The site template of a meta record.
fn unpack_template(packed: &[u8]) -> Result<SiteTemplate> {
    let corrupt =
        |e: String| Error::Corrupt { table: "meta", message: format!("site template: {e}") };
    let mut json = Vec::new();
    zstd::stream::copy_decode(packed, &mut json).map_err(|e| corrupt(e.to_string()))?;
    serde_json::from_slice(&json).map_err(|e| corrupt(e.to_string()))
}

impl Drop for Index {
    /// Fast durability: the last commits are made durable when the index is closed.
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

fn exact_kind(bytes: bool) -> MatchKind {
    if bytes { MatchKind::ExactBytes } else { MatchKind::ExactText }
}

fn read_text(snap: &dyn Snapshot, doc: u64) -> Result<String> {
    decode_text(doc, snap.get(Table::Texts, &doc_key(doc))?)
}

/// The text of `doc` from its row of the texts table.
fn decode_text(doc: u64, row: Option<Vec<u8>>) -> Result<String> {
    let corrupt = |m: String| Error::Corrupt { table: "texts", message: m };
    let bytes = row.ok_or_else(|| corrupt(format!("document {doc} has no text")))?;
    let raw = zstd::stream::decode_all(bytes.as_slice())
        .map_err(|e| corrupt(format!("document {doc}: {e}")))?;
    String::from_utf8(raw).map_err(|_| corrupt(format!("document {doc}: text is not UTF-8")))
}
