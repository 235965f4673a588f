//! Collection statistics. Contract: "give me every document's term counts in a first pass, I give
//! you document frequencies, IDF and RIDF, and a lexicon file that signs a later batch the same
//! way".
//!
//! The lexical methods (I-Match, TF*RIDF, reference words) weigh a document's terms by how the
//! whole collection uses them, so they need a fitting pass before signing:
//!
//! 1. every document's [`TermCounts`] go into a [`CollectionStatsBuilder`] (one per thread, then
//!    [`CollectionStatsBuilder::merge`]: sums, so the result does not depend on the order);
//! 2. [`CollectionStatsBuilder::build`] freezes them into a [`CollectionStats`]: three flat arrays
//!    sorted by term hash (20 bytes a term) under a small radix index on the top bits of the hash,
//!    so that a lookup, which runs once per token, is one index read and a binary search over a
//!    handful of neighbouring hashes;
//! 3. [`Lexicon`] writes them to a file (with the term-hash seed and the normalization settings
//!    they were computed under) so that a later batch is signed with the same statistics.
//!
//! Weights, with N documents, a term's document frequency df and collection frequency cf (total
//! occurrences), logarithms base 2:
//!
//! - `idf = log2(N / df)`;
//! - `ridf = idf + log2(1 − e^(−cf/N))`: residual IDF (Church & Gale 1995), the observed IDF minus
//!   the IDF a Poisson model with the same mean λ = cf/N predicts. Content words cluster in few
//!   documents (high RIDF); function words and hapaxes are spread as chance predicts (≈ 0);
//! - `nidf = idf / log2(N)`: IDF normalized to [0, 1] as Chowdhury et al. (2002) use it to choose
//!   the I-Match lexicon. log2 N is the largest IDF a term can have (df = 1), so a band of NIDF
//!   means the same thing in a collection of a thousand documents and of a billion.
//!
//! A term the statistics do not know (df = 0: it occurs only in documents signed after the
//! fitting pass) is treated as a term seen once: idf = log2 N and nidf = 1 (the rarest possible),
//! ridf = 0 (one occurrence carries no evidence of burstiness).

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::{Xxh3Default, xxh3_64_with_seed};

use crate::text::normalize::NormalizedText;

/// The hash of one term (a normalized token): seeded xxh3, the same hash
/// [`crate::shingles::Shingler`] gives a token before forming word shingles.
pub fn term_hash(token: &str, seed: u64) -> u64 {
    xxh3_64_with_seed(token.as_bytes(), seed)
}

/// The settings string a lexicon built by the pipeline carries: what decides its term hashes
/// besides the seed (the normalization and the segmentation of space-less scripts). A lexicon is
/// used only by a run whose settings string is equal.
pub fn lexicon_settings(seed: u64, segmentation: crate::text::normalize::Segmentation) -> String {
    let seg = match segmentation {
        crate::text::normalize::Segmentation::Chars => "chars",
        crate::text::normalize::Segmentation::Dictionary => "dictionary",
    };
    format!("terms: lookalike normalize v1 (NFKC, case folded); cjk: {seg}; seed {seed}")
}

/// One document's bag of words: distinct term hashes with their counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermCounts {
    /// `(term hash, occurrences)`, sorted by hash, one entry per distinct term.
    pub terms: Vec<(u64, u32)>,
    /// Number of tokens in the document.
    pub len: u32,
}

impl TermCounts {
    /// The term counts of a normalized text, terms hashed with [`term_hash`].
    pub fn from_normalized(norm: &NormalizedText, seed: u64) -> TermCounts {
        let mut hashes: Vec<u64> = norm.token_strs().map(|t| term_hash(t, seed)).collect();
        let len = hashes.len() as u32;
        hashes.sort_unstable();
        let terms = hashes.chunk_by(|a, b| a == b).map(|run| (run[0], run.len() as u32)).collect();
        TermCounts { terms, len }
    }

    /// The largest count of any term (0 for an empty document).
    pub fn max_tf(&self) -> u32 {
        self.terms.iter().map(|&(_, c)| c).max().unwrap_or(0)
    }
}

/// The collection statistics of one term.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TermStats {
    /// Document frequency: the number of documents containing the term (saturates at
    /// `u32::MAX`).
    pub df: u32,
    /// Collection frequency: the term's occurrences in all documents.
    pub cf: u64,
}

impl TermStats {
    /// `log2(N / df)` in a collection of `n` documents; df is clamped to `1..=n` (an unknown
    /// term counts as seen once), 0 for an empty collection.
    pub fn idf(self, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        let df = u64::from(self.df).clamp(1, n);
        (n as f64 / df as f64).log2()
    }

    /// Residual IDF, `idf + log2(1 − e^(−cf/N))` (Church & Gale): the IDF minus the IDF a
    /// Poisson model of mean λ = cf/N predicts. 0 for an unknown term (df = 0) or an empty
    /// collection.
    pub fn ridf(self, n: u64) -> f64 {
        if n == 0 || self.df == 0 {
            return 0.0;
        }
        // cf ≥ df ≥ 1 in built statistics; the max keeps λ > 0 whatever the input.
        let lambda = self.cf.max(u64::from(self.df)) as f64 / n as f64;
        // 1 − e^(−λ) computed as −expm1(−λ): exact for the tiny λ of rare terms.
        self.idf(n) + (-(-lambda).exp_m1()).log2()
    }

    /// IDF normalized to [0, 1]: `idf / log2(N)` (Chowdhury et al. 2002). log2 N is the IDF of a
    /// term in a single document, so 1 is the rarest term and 0 a term in every document. 0 when
    /// N ≤ 1 (every term is in every document).
    pub fn nidf(self, n: u64) -> f64 {
        if n <= 1 {
            return 0.0;
        }
        (self.idf(n) / (n as f64).log2()).clamp(0.0, 1.0)
    }
}

/// A hasher for keys that already are uniform 64-bit hashes: passes them through, mixed once so
/// that the map's bucket and control bits both see well-spread bits.
#[derive(Default)]
struct TermHasher(u64);

impl Hasher for TermHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used by `u64` keys; kept correct for any other key.
        for &b in bytes {
            self.0 = crate::sketch::minhash::mix64(self.0 ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = crate::sketch::minhash::mix64(x);
    }
}

type TermMap = HashMap<u64, (u32, u64), BuildHasherDefault<TermHasher>>;

/// Collects document and collection frequencies, one document at a time. Build one per thread
/// and [`merge`](Self::merge) them: every statistic is a sum, so the merged result is the same
/// whatever the order of documents and merges.
#[derive(Debug, Clone, Default)]
pub struct CollectionStatsBuilder {
    docs: u64,
    terms: TermMap,
}

impl CollectionStatsBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one document. `doc.terms` should hold distinct hashes (as [`TermCounts`]
    /// guarantees); a repeated adjacent hash is counted once toward df. Terms with a count of 0
    /// are ignored.
    pub fn add_document(&mut self, doc: &TermCounts) {
        self.docs = self.docs.saturating_add(1);
        let mut prev = None;
        for &(h, count) in &doc.terms {
            if count == 0 {
                continue;
            }
            let e = self.terms.entry(h).or_insert((0, 0));
            if prev != Some(h) {
                e.0 = e.0.saturating_add(1);
            }
            e.1 = e.1.saturating_add(u64::from(count));
            prev = Some(h);
        }
    }

    /// Adds another builder's counts to this one (for building in parallel).
    pub fn merge(&mut self, mut other: CollectionStatsBuilder) {
        if other.terms.len() > self.terms.len() {
            std::mem::swap(self, &mut other);
        }
        self.docs = self.docs.saturating_add(other.docs);
        for (h, (df, cf)) in other.terms {
            let e = self.terms.entry(h).or_insert((0, 0));
            e.0 = e.0.saturating_add(df);
            e.1 = e.1.saturating_add(cf);
        }
    }

    /// Removes counts added earlier (the counts of documents that were added twice, as
    /// [`merge`](Self::merge) adds them): the inverse of `merge` for counts that did not
    /// saturate. A term whose counts fall to zero is dropped, so that `a.merge(b)` then
    /// `a.subtract(&b)` gives back `a`'s terms.
    pub fn subtract(&mut self, other: &CollectionStatsBuilder) {
        self.docs = self.docs.saturating_sub(other.docs);
        for (h, &(df, cf)) in &other.terms {
            if let Some(e) = self.terms.get_mut(h) {
                e.0 = e.0.saturating_sub(df);
                e.1 = e.1.saturating_sub(cf);
                if *e == (0, 0) {
                    self.terms.remove(h);
                }
            }
        }
    }

    /// Every term's `(hash, df, cf)`, sorted by hash (for serializing the counts).
    pub fn entries(&self) -> Vec<(u64, u32, u64)> {
        let mut entries: Vec<(u64, u32, u64)> =
            self.terms.iter().map(|(&h, &(df, cf))| (h, df, cf)).collect();
        entries.sort_unstable_by_key(|e| e.0);
        entries
    }

    /// A builder holding `docs` documents and these `(hash, df, cf)` counts (as
    /// [`entries`](Self::entries) gives them; a repeated hash adds up).
    pub fn from_entries(docs: u64, entries: impl IntoIterator<Item = (u64, u32, u64)>) -> Self {
        let mut b = CollectionStatsBuilder { docs, terms: TermMap::default() };
        for (h, df, cf) in entries {
            let e = b.terms.entry(h).or_insert((0, 0));
            e.0 = e.0.saturating_add(df);
            e.1 = e.1.saturating_add(cf);
        }
        b
    }

    /// Documents counted so far.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Distinct terms seen so far.
    pub fn distinct_terms(&self) -> usize {
        self.terms.len()
    }

    /// Freezes the counts into sorted arrays for fast lookups.
    pub fn build(self) -> CollectionStats {
        let mut entries: Vec<(u64, u32, u64)> =
            self.terms.into_iter().map(|(h, (df, cf))| (h, df, cf)).collect();
        entries.sort_unstable_by_key(|e| e.0);
        let mut hashes = Vec::with_capacity(entries.len());
        let mut df = Vec::with_capacity(entries.len());
        let mut cf = Vec::with_capacity(entries.len());
        for (h, d, c) in entries {
            hashes.push(h);
            df.push(d);
            cf.push(c);
        }
        CollectionStats { docs: self.docs, set: HashIndex::from_sorted(hashes), df, cf }
    }
}

impl<'a> Extend<&'a TermCounts> for CollectionStatsBuilder {
    fn extend<I: IntoIterator<Item = &'a TermCounts>>(&mut self, iter: I) {
        for doc in iter {
            self.add_document(doc);
        }
    }
}

/// A sorted set of distinct 64-bit hashes with a radix index on their top bits: the hashes are
/// uniform, so bucket `b` (the hashes whose top `bits` bits equal b) holds a few entries and a
/// lookup is one index read plus a binary search within one or two cache lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HashIndex {
    hashes: Vec<u64>,
    /// `starts[b]..starts[b + 1]` is bucket b; `2^bits + 1` entries.
    starts: Vec<usize>,
    bits: u32,
}

impl HashIndex {
    /// Indexes `hashes`, which must be sorted and distinct.
    pub(crate) fn from_sorted(hashes: Vec<u64>) -> HashIndex {
        debug_assert!(hashes.windows(2).all(|w| w[0] < w[1]));
        // About 4 to 8 hashes a bucket: the index costs at most 2 bytes a term.
        let bits = (hashes.len() / 4).checked_ilog2().unwrap_or(0).min(32);
        let buckets = 1usize << bits;
        let mut starts = vec![0usize; buckets + 1];
        for &h in &hashes {
            starts[bucket(h, bits) + 1] += 1;
        }
        for b in 0..buckets {
            starts[b + 1] += starts[b];
        }
        HashIndex { hashes, starts, bits }
    }

    /// The position of `h` in the sorted hashes.
    #[inline]
    pub(crate) fn position(&self, h: u64) -> Option<usize> {
        let b = bucket(h, self.bits);
        let (&lo, &hi) = (self.starts.get(b)?, self.starts.get(b + 1)?);
        let run = self.hashes.get(lo..hi)?;
        run.binary_search(&h).ok().map(|i| lo + i)
    }

    /// Whether `h` is in the set.
    #[inline]
    pub(crate) fn contains(&self, h: u64) -> bool {
        self.position(h).is_some()
    }

    /// The hashes, sorted.
    pub(crate) fn as_slice(&self) -> &[u64] {
        &self.hashes
    }
}

#[inline]
fn bucket(h: u64, bits: u32) -> usize {
    if bits == 0 { 0 } else { (h >> (64 - bits)) as usize }
}

/// Frozen collection statistics: N, and df and cf of every term, looked up by term hash.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CollectionStats {
    docs: u64,
    set: HashIndex,
    df: Vec<u32>,
    cf: Vec<u64>,
}

impl CollectionStats {
    /// A builder to count documents into.
    pub fn builder() -> CollectionStatsBuilder {
        CollectionStatsBuilder::new()
    }

    /// N, the number of documents counted.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Number of distinct terms.
    pub fn len(&self) -> usize {
        self.df.len()
    }

    /// True when no term was seen.
    pub fn is_empty(&self) -> bool {
        self.df.is_empty()
    }

    /// The statistics of a term, `None` for a term not seen.
    #[inline]
    pub fn get(&self, term: u64) -> Option<TermStats> {
        let i = self.set.position(term)?;
        Some(TermStats { df: *self.df.get(i)?, cf: *self.cf.get(i)? })
    }

    /// The statistics of a term; df = cf = 0 for a term not seen.
    #[inline]
    pub fn stats(&self, term: u64) -> TermStats {
        self.get(term).unwrap_or_default()
    }

    /// Document frequency (0 for a term not seen).
    pub fn df(&self, term: u64) -> u32 {
        self.stats(term).df
    }

    /// Collection frequency (0 for a term not seen).
    pub fn cf(&self, term: u64) -> u64 {
        self.stats(term).cf
    }

    /// `log2(N / df)`; a term not seen counts as df = 1. See [`TermStats::idf`].
    pub fn idf(&self, term: u64) -> f64 {
        self.stats(term).idf(self.docs)
    }

    /// Residual IDF; 0 for a term not seen. See [`TermStats::ridf`].
    pub fn ridf(&self, term: u64) -> f64 {
        self.stats(term).ridf(self.docs)
    }

    /// IDF normalized to [0, 1]; 1 for a term not seen. See [`TermStats::nidf`].
    pub fn nidf(&self, term: u64) -> f64 {
        self.stats(term).nidf(self.docs)
    }

    /// Every term with its statistics, in increasing order of hash.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (u64, TermStats)> + '_ {
        self.set
            .as_slice()
            .iter()
            .zip(self.df.iter().zip(&self.cf))
            .map(|(&h, (&df, &cf))| (h, TermStats { df, cf }))
    }

    /// The term hashes, sorted.
    pub fn terms(&self) -> &[u64] {
        self.set.as_slice()
    }
}

/// A collection's statistics as a file: what a fitting pass leaves for signing later batches the
/// same way.
///
/// The file (all integers little-endian):
///
/// ```text
/// magic         8 bytes   89 'L' 'K' 'L' 'X' \r \n 1A
/// version       u32       1
/// flags         u32       bit 0: reference words present; other bits 0
/// seed          u64       the term-hash seed
/// docs          u64       N
/// terms         u64       number of term entries
/// ref_words     u64       number of reference words (0 without them)
/// settings_len  u32
/// settings      settings_len bytes of UTF-8
/// terms × (hash u64, df u32, cf u64), strictly increasing hash
/// ref_words × (term u64, threshold f32)
/// checksum      u64       xxh3-64 of every byte before it
/// ```
///
/// The counts come first so that a reader knows the file's size before reading the body: a
/// truncated file is reported as such at once, and a corrupted count cannot make it allocate
/// more than the file holds. The magic number's first byte is not ASCII and its `\r\n` catches
/// text-mode transfers, as PNG's does.
#[derive(Debug, Clone, PartialEq)]
pub struct Lexicon {
    /// The seed the term hashes were computed with ([`term_hash`]).
    pub seed: u64,
    /// Free-form settings the statistics depend on (normalization, segmentation, ...), written
    /// by the caller and compared on loading ([`Lexicon::check`]).
    pub settings: String,
    /// The statistics.
    pub stats: CollectionStats,
    /// Reference words with their relative-frequency thresholds, when a selection was stored.
    pub reference_words: Option<Vec<(u64, f32)>>,
}

/// Magic bytes at the start of a lexicon file.
pub const LEXICON_MAGIC: [u8; 8] = *b"\x89LKLX\r\n\x1a";
/// The lexicon format version this build writes and reads.
pub const LEXICON_VERSION: u32 = 1;

/// Bytes before the settings string: magic, version, flags, seed, docs, terms, ref_words,
/// settings_len.
const HEADER_LEN: u64 = 8 + 4 + 4 + 8 + 8 + 8 + 8 + 4;
const TERM_LEN: usize = 20;
const REF_LEN: usize = 12;
const FLAG_REF_WORDS: u32 = 1;
/// Term entries parsed per read.
const CHUNK_TERMS: usize = 16 * 1024;

/// An error reading or writing a lexicon file: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("lexicon file {}: {kind}", path.display())]
pub struct LexiconError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub kind: LexiconErrorKind,
}

/// What is wrong with a lexicon file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LexiconErrorKind {
    /// Opening, reading or writing failed.
    #[error("{0}")]
    Io(io::Error),
    /// The file does not start with [`LEXICON_MAGIC`].
    #[error("not a lookalike lexicon (bad magic bytes)")]
    BadMagic,
    /// The file has a format version this build cannot read.
    #[error("format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// The version in the file.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The file is shorter than its header says.
    #[error("truncated: the header describes {expected} bytes, the file has {actual}")]
    Truncated {
        /// Size the header describes (or the smallest possible size when the header itself is
        /// cut).
        expected: u64,
        /// Actual size.
        actual: u64,
    },
    /// The file is longer than its header says.
    #[error("{extra} unexpected bytes after the end of the lexicon")]
    TrailingData {
        /// Bytes after the checksum.
        extra: u64,
    },
    /// The stored checksum does not match the content.
    #[error(
        "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupted"
    )]
    ChecksumMismatch {
        /// Checksum in the file.
        stored: u64,
        /// Checksum of the content.
        computed: u64,
    },
    /// The checksum matches but the content breaks a rule of the format (written by a faulty
    /// writer).
    #[error("invalid content: {0}")]
    Invalid(String),
    /// The lexicon was built with another term-hash seed than the caller uses.
    #[error("built with term-hash seed {found}, this run uses {expected}")]
    SeedMismatch {
        /// The caller's seed.
        expected: u64,
        /// The file's seed.
        found: u64,
    },
    /// The lexicon was built with other settings than the caller uses.
    #[error("built with settings {found:?}, this run uses {expected:?}")]
    SettingsMismatch {
        /// The caller's settings.
        expected: String,
        /// The file's settings.
        found: String,
    },
}

impl Lexicon {
    /// A lexicon of `stats` computed with term-hash `seed` under `settings`, without reference
    /// words.
    pub fn new(stats: CollectionStats, seed: u64, settings: impl Into<String>) -> Lexicon {
        Lexicon { seed, settings: settings.into(), stats, reference_words: None }
    }

    /// The statistics, dropping the rest.
    pub fn into_stats(self) -> CollectionStats {
        self.stats
    }

    /// Checks that the lexicon was built with the caller's term-hash seed and settings: signing
    /// with statistics of differently normalized or hashed terms gives silently wrong results.
    pub fn check(&self, seed: u64, settings: &str) -> Result<(), LexiconErrorKind> {
        if self.seed != seed {
            return Err(LexiconErrorKind::SeedMismatch { expected: seed, found: self.seed });
        }
        if self.settings != settings {
            return Err(LexiconErrorKind::SettingsMismatch {
                expected: settings.to_owned(),
                found: self.settings.clone(),
            });
        }
        Ok(())
    }

    /// Writes the lexicon to `path` atomically: into a temporary file in the same directory,
    /// synced, then renamed over `path`.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), LexiconError> {
        let path = path.as_ref();
        let err = |kind| LexiconError { path: path.to_owned(), kind };
        let io_err = |e| err(LexiconErrorKind::Io(e));
        let settings_len = u32::try_from(self.settings.len()).map_err(|_| {
            err(LexiconErrorKind::Invalid(format!(
                "settings string of {} bytes is longer than 4 GiB",
                self.settings.len()
            )))
        })?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io_err)?;
        {
            let mut w = HashingWriter {
                inner: BufWriter::with_capacity(1 << 20, tmp.as_file_mut()),
                hasher: Xxh3Default::new(),
            };
            let refs = self.reference_words.as_deref();
            let flags = if refs.is_some() { FLAG_REF_WORDS } else { 0 };
            let mut header = Vec::with_capacity(HEADER_LEN as usize + self.settings.len());
            header.extend_from_slice(&LEXICON_MAGIC);
            header.extend_from_slice(&LEXICON_VERSION.to_le_bytes());
            header.extend_from_slice(&flags.to_le_bytes());
            header.extend_from_slice(&self.seed.to_le_bytes());
            header.extend_from_slice(&self.stats.docs.to_le_bytes());
            header.extend_from_slice(&(self.stats.len() as u64).to_le_bytes());
            header.extend_from_slice(&(refs.map_or(0, <[_]>::len) as u64).to_le_bytes());
            header.extend_from_slice(&settings_len.to_le_bytes());
            header.extend_from_slice(self.settings.as_bytes());
            w.write_all(&header).map_err(io_err)?;
            let mut buf = Vec::with_capacity(CHUNK_TERMS * TERM_LEN);
            for (h, s) in self.stats.iter() {
                buf.extend_from_slice(&h.to_le_bytes());
                buf.extend_from_slice(&s.df.to_le_bytes());
                buf.extend_from_slice(&s.cf.to_le_bytes());
                if buf.len() >= CHUNK_TERMS * TERM_LEN {
                    w.write_all(&buf).map_err(io_err)?;
                    buf.clear();
                }
            }
            for &(term, threshold) in refs.unwrap_or(&[]) {
                buf.extend_from_slice(&term.to_le_bytes());
                buf.extend_from_slice(&threshold.to_le_bytes());
            }
            w.write_all(&buf).map_err(io_err)?;
            let checksum = w.hasher.digest();
            w.inner.write_all(&checksum.to_le_bytes()).map_err(io_err)?;
            w.inner.flush().map_err(io_err)?;
        }
        tmp.as_file().sync_all().map_err(io_err)?;
        tmp.persist(path).map_err(|e| io_err(e.error))?;
        Ok(())
    }

    /// Reads a lexicon written by [`Lexicon::save`]. Every way a file can be wrong (not a
    /// lexicon, another format version, truncated, corrupted, inconsistent) is an error naming
    /// the file; nothing is trusted before the checksum is verified.
    pub fn load(path: impl AsRef<Path>) -> Result<Lexicon, LexiconError> {
        let path = path.as_ref();
        read_lexicon(path).map_err(|kind| LexiconError { path: path.to_owned(), kind })
    }

    /// [`Lexicon::load`], then [`Lexicon::check`] against the caller's seed and settings.
    pub fn load_matching(
        path: impl AsRef<Path>,
        seed: u64,
        settings: &str,
    ) -> Result<Lexicon, LexiconError> {
        let path = path.as_ref();
        let lexicon = Lexicon::load(path)?;
        lexicon
            .check(seed, settings)
            .map_err(|kind| LexiconError { path: path.to_owned(), kind })?;
        Ok(lexicon)
    }
}

impl From<Lexicon> for CollectionStats {
    fn from(lexicon: Lexicon) -> CollectionStats {
        lexicon.stats
    }
}

/// Hashes everything written through it.
struct HashingWriter<W> {
    inner: W,
    hasher: Xxh3Default,
}

impl<W: Write> HashingWriter<W> {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hasher.update(bytes);
        self.inner.write_all(bytes)
    }
}

/// Hashes everything read through it; an early end of file is reported as truncation.
struct HashingReader<R> {
    inner: R,
    hasher: Xxh3Default,
    expected: u64,
    actual: u64,
}

impl<R: Read> HashingReader<R> {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), LexiconErrorKind> {
        read_exact_raw(&mut self.inner, buf, self.expected, self.actual)?;
        self.hasher.update(buf);
        Ok(())
    }

    fn u32(&mut self) -> Result<u32, LexiconErrorKind> {
        let mut b = [0u8; 4];
        self.read_exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, LexiconErrorKind> {
        let mut b = [0u8; 8];
        self.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

fn read_exact_raw(
    r: &mut impl Read,
    buf: &mut [u8],
    expected: u64,
    actual: u64,
) -> Result<(), LexiconErrorKind> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        // The file shrank while being read, or the header is cut.
        io::ErrorKind::UnexpectedEof => LexiconErrorKind::Truncated { expected, actual },
        _ => LexiconErrorKind::Io(e),
    })
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

fn le_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u32::from_le_bytes(a)
}

fn read_lexicon(path: &Path) -> Result<Lexicon, LexiconErrorKind> {
    let file = File::open(path).map_err(LexiconErrorKind::Io)?;
    let actual = file.metadata().map_err(LexiconErrorKind::Io)?.len();
    let capacity = actual.clamp(64, 1 << 20) as usize;
    parse_lexicon(BufReader::with_capacity(capacity, file), actual)
}

/// Parses a lexicon of `actual` bytes from `input` (buffered by the caller).
fn parse_lexicon(input: impl Read, actual: u64) -> Result<Lexicon, LexiconErrorKind> {
    let mut r = HashingReader {
        inner: input,
        hasher: Xxh3Default::new(),
        expected: HEADER_LEN + 8,
        actual,
    };

    // The magic: a shorter file that starts like one is truncated, anything else is not ours.
    let mut magic = [0u8; 8];
    let mut got = 0;
    while got < magic.len() {
        match r.inner.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(LexiconErrorKind::Io(e)),
        }
    }
    if magic[..got] != LEXICON_MAGIC[..got] {
        return Err(LexiconErrorKind::BadMagic);
    }
    if got < magic.len() {
        return Err(LexiconErrorKind::Truncated { expected: HEADER_LEN + 8, actual });
    }
    r.hasher.update(&magic);
    let version = r.u32()?;
    if version != LEXICON_VERSION {
        return Err(LexiconErrorKind::UnsupportedVersion {
            found: version,
            supported: LEXICON_VERSION,
        });
    }
    let flags = r.u32()?;
    let seed = r.u64()?;
    let docs = r.u64()?;
    let n_terms = r.u64()?;
    let n_refs = r.u64()?;
    let settings_len = r.u32()?;

    // The size the header describes; overflow means a corrupted count.
    let expected = n_terms
        .checked_mul(TERM_LEN as u64)
        .and_then(|t| n_refs.checked_mul(REF_LEN as u64).and_then(|x| x.checked_add(t)))
        .and_then(|body| body.checked_add(HEADER_LEN + u64::from(settings_len) + 8));
    let Some(expected) = expected else {
        return Err(LexiconErrorKind::Truncated { expected: u64::MAX, actual });
    };
    if actual < expected {
        return Err(LexiconErrorKind::Truncated { expected, actual });
    }
    if actual > expected {
        return Err(LexiconErrorKind::TrailingData { extra: actual - expected });
    }
    r.expected = expected;
    // From here on every count is bounded by the file's size, so allocations are too.

    // The first rule the content breaks; reported only if the checksum matches, because a
    // corrupted file is best described as corrupted.
    let mut invalid: Option<String> = None;
    let mut note = |msg: String| {
        if invalid.is_none() {
            invalid = Some(msg);
        }
    };

    let mut settings = vec![0u8; settings_len as usize];
    r.read_exact(&mut settings)?;
    let settings = String::from_utf8(settings).unwrap_or_else(|e| {
        note("settings are not valid UTF-8".to_owned());
        String::from_utf8_lossy(e.as_bytes()).into_owned()
    });
    if flags & !FLAG_REF_WORDS != 0 {
        note(format!("unknown flags {flags:#x}"));
    }
    if flags & FLAG_REF_WORDS == 0 && n_refs != 0 {
        note(format!("{n_refs} reference words but the flag says there are none"));
    }

    let n = n_terms as usize;
    let (mut hashes, mut df, mut cf) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::new());
    cf.reserve_exact(n);
    let mut buf = vec![0u8; CHUNK_TERMS.min(n.max(1)) * TERM_LEN];
    let mut left = n;
    let mut prev: Option<u64> = None;
    while left > 0 {
        let take = left.min(CHUNK_TERMS);
        let chunk = &mut buf[..take * TERM_LEN];
        r.read_exact(chunk)?;
        for e in chunk.chunks_exact(TERM_LEN) {
            let (h, d, c) = (le_u64(&e[0..8]), le_u32(&e[8..12]), le_u64(&e[12..20]));
            if prev.is_some_and(|p| p >= h) {
                note(format!("term hashes not strictly increasing at entry {}", hashes.len()));
            }
            if d == 0 || u64::from(d) > docs || c < u64::from(d) {
                note(format!(
                    "term {h:016x}: df {d}, cf {c} impossible in {docs} documents (need \
                     1 ≤ df ≤ N and cf ≥ df)"
                ));
            }
            prev = Some(h);
            hashes.push(h);
            df.push(d);
            cf.push(c);
        }
        left -= take;
    }

    let mut refs = Vec::with_capacity(n_refs as usize);
    let mut rb = [0u8; REF_LEN];
    for _ in 0..n_refs {
        r.read_exact(&mut rb)?;
        refs.push((le_u64(&rb[0..8]), f32::from_le_bytes([rb[8], rb[9], rb[10], rb[11]])));
    }

    let computed = r.hasher.digest();
    let mut cb = [0u8; 8];
    read_exact_raw(&mut r.inner, &mut cb, expected, actual)?;
    let stored = u64::from_le_bytes(cb);
    if stored != computed {
        return Err(LexiconErrorKind::ChecksumMismatch { stored, computed });
    }
    if let Some(msg) = invalid {
        return Err(LexiconErrorKind::Invalid(msg));
    }
    let stats = CollectionStats { docs, set: HashIndex::from_sorted(hashes), df, cf };
    let reference_words = (flags & FLAG_REF_WORDS != 0).then_some(refs);
    Ok(Lexicon { seed, settings, stats, reference_words })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::minhash::splitmix64;

    /// A random document over a vocabulary of `vocab` terms (hashes 1000 + i).
    fn random_doc(st: &mut u64, vocab: u64, max_len: u64) -> TermCounts {
        let len = splitmix64(st) % (max_len + 1);
        let mut hashes: Vec<u64> = (0..len).map(|_| 1000 + splitmix64(st) % vocab).collect();
        hashes.sort_unstable();
        let terms = hashes.chunk_by(|a, b| a == b).map(|r| (r[0], r.len() as u32)).collect();
        TermCounts { terms, len: len as u32 }
    }

    /// df and cf by the definition: scan every document for every term.
    fn naive(docs: &[TermCounts]) -> Vec<(u64, u32, u64)> {
        let mut all: Vec<u64> = docs.iter().flat_map(|d| d.terms.iter().map(|t| t.0)).collect();
        all.sort_unstable();
        all.dedup();
        all.into_iter()
            .map(|h| {
                let df = docs.iter().filter(|d| d.terms.iter().any(|t| t.0 == h)).count();
                let cf: u64 = docs
                    .iter()
                    .flat_map(|d| d.terms.iter().filter(|t| t.0 == h).map(|t| u64::from(t.1)))
                    .sum();
                (h, df as u32, cf)
            })
            .collect()
    }

    fn as_triples(s: &CollectionStats) -> Vec<(u64, u32, u64)> {
        s.iter().map(|(h, t)| (h, t.df, t.cf)).collect()
    }

    #[test]
    fn df_cf_match_naive_counting() {
        let mut st = 3;
        for (ndocs, vocab) in [(0, 10), (1, 5), (50, 20), (200, 300), (30, 1)] {
            let docs: Vec<TermCounts> =
                (0..ndocs).map(|_| random_doc(&mut st, vocab, 40)).collect();
            let mut b = CollectionStats::builder();
            b.extend(&docs);
            let stats = b.build();
            assert_eq!(stats.docs(), ndocs as u64);
            let expect = naive(&docs);
            assert_eq!(as_triples(&stats), expect);
            // Lookups agree with the iteration, and unseen terms are unknown.
            for &(h, df, cf) in &expect {
                assert_eq!(stats.get(h), Some(TermStats { df, cf }));
            }
            assert_eq!(stats.get(1), None);
            assert_eq!(stats.df(u64::MAX), 0);
        }
    }

    #[test]
    fn merge_order_does_not_matter() {
        let mut st = 11;
        let docs: Vec<TermCounts> = (0..120).map(|_| random_doc(&mut st, 60, 30)).collect();
        let mut whole = CollectionStats::builder();
        whole.extend(&docs);
        let whole = whole.build();
        for parts in [2usize, 3, 7] {
            let builders: Vec<CollectionStatsBuilder> = docs
                .chunks(docs.len().div_ceil(parts))
                .map(|c| {
                    let mut b = CollectionStatsBuilder::new();
                    b.extend(c);
                    b
                })
                .collect();
            // Forward and backward merge orders.
            let mut fwd = CollectionStatsBuilder::new();
            for b in builders.iter().cloned() {
                fwd.merge(b);
            }
            let mut bwd = CollectionStatsBuilder::new();
            for b in builders.iter().rev().cloned() {
                bwd.merge(b);
            }
            assert_eq!(fwd.build(), whole);
            assert_eq!(bwd.build(), whole);
        }
    }

    #[test]
    fn lookups_in_a_large_index() {
        // Enough terms for a many-bucket index; every present hash is found, absent ones not.
        let mut st = 5;
        let mut hashes = crate::testutil::random_set(&mut st, 50_000);
        let absent: Vec<u64> = hashes.split_off(40_000);
        let index = HashIndex::from_sorted(hashes.clone());
        assert!(index.bits > 8);
        for (i, &h) in hashes.iter().enumerate() {
            assert_eq!(index.position(h), Some(i));
        }
        for &h in &absent {
            assert!(!index.contains(h));
        }
        assert!(index.contains(hashes[0]) && !HashIndex::default().contains(0));
        // Extreme hashes land in the first and last buckets.
        let edge = HashIndex::from_sorted((0..64).map(|i| i << 58).chain([u64::MAX]).collect());
        assert!(edge.contains(0) && edge.contains(u64::MAX) && !edge.contains(1));
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn idf_ridf_nidf_by_hand() {
        // N = 4, df = 2, cf = 2: idf = 1; λ = 0.5, 1 − e^−0.5 = 0.3934693403, log2 = −1.3457, so
        // ridf = −0.3457.
        let t = TermStats { df: 2, cf: 2 };
        assert!(close(t.idf(4), 1.0));
        assert!(close(t.ridf(4), 1.0 + (1.0 - (-0.5f64).exp()).log2()));
        assert!((t.ridf(4) - (-0.345_676_9)).abs() < 1e-6);
        assert!(close(t.nidf(4), 0.5));
        // A bursty term: N = 8, in one document 8 times. idf = 3, λ = 1,
        // ridf = 3 + log2(1 − 1/e) = 3 − 0.6617... = 2.3383...
        let t = TermStats { df: 1, cf: 8 };
        assert!((t.ridf(8) - 2.338_271_6).abs() < 1e-6);
        assert!(close(t.nidf(8), 1.0));
        // A term in every document once: idf 0, ridf = log2(1 − 1/e) < 0, nidf 0.
        let t = TermStats { df: 8, cf: 8 };
        assert!(close(t.idf(8), 0.0) && t.ridf(8) < 0.0 && close(t.nidf(8), 0.0));
        // Unknown term and degenerate collections.
        let unknown = TermStats::default();
        assert!(close(unknown.idf(1024), 10.0));
        assert!(close(unknown.nidf(1024), 1.0));
        assert!(close(unknown.ridf(1024), 0.0));
        assert!(close(unknown.idf(0), 0.0) && close(unknown.nidf(1), 0.0));
        // A rare non-bursty term (cf = df = 1) has ridf close to 0 in a large collection.
        assert!(TermStats { df: 1, cf: 1 }.ridf(1_000_000).abs() < 1e-5);
        // Inconsistent input (cf < df, df > N) stays finite.
        let odd = TermStats { df: 9, cf: 0 };
        assert!(odd.idf(4).is_finite() && odd.ridf(4).is_finite() && odd.nidf(4) >= 0.0);
    }

    #[test]
    fn stats_methods_use_the_formulas() {
        let docs = vec![
            TermCounts { terms: vec![(1, 3), (2, 1)], len: 4 },
            TermCounts { terms: vec![(1, 1)], len: 1 },
            TermCounts { terms: vec![(3, 2)], len: 2 },
            TermCounts::default(),
        ];
        let mut b = CollectionStats::builder();
        b.extend(&docs);
        let s = b.build();
        assert_eq!((s.docs(), s.len()), (4, 3));
        assert_eq!((s.df(1), s.cf(1)), (2, 4));
        assert!(close(s.idf(1), 1.0));
        assert!(close(s.ridf(1), 1.0 + (1.0 - (-1.0f64).exp()).log2()));
        assert!(close(s.idf(2), 2.0) && close(s.nidf(2), 1.0));
        assert!(close(s.ridf(99), 0.0) && close(s.nidf(99), 1.0));
    }

    /// Parses a lexicon from memory.
    fn parse(bytes: &[u8]) -> Result<Lexicon, LexiconErrorKind> {
        parse_lexicon(bytes, bytes.len() as u64)
    }

    fn sample_lexicon(st: &mut u64, docs: usize, refs: Option<usize>) -> Lexicon {
        let docs: Vec<TermCounts> = (0..docs).map(|_| random_doc(st, 500, 60)).collect();
        let mut b = CollectionStats::builder();
        b.extend(&docs);
        let mut lex = Lexicon::new(b.build(), 42, "nfkc,lower,chars");
        lex.reference_words = refs
            .map(|n| (0..n).map(|i| (splitmix64(st), i as f32 * 0.125 - 1.5)).collect::<Vec<_>>());
        lex
    }

    #[test]
    fn lexicon_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = 17;
        for (docs, refs) in [(0, None), (1, Some(0)), (80, None), (300, Some(37))] {
            let lex = sample_lexicon(&mut st, docs, refs);
            let path = dir.path().join(format!("lex-{docs}.bin"));
            lex.save(&path).unwrap();
            let back = Lexicon::load(&path).unwrap();
            assert_eq!(back, lex);
            assert_eq!(back.reference_words.is_some(), refs.is_some());
            // Lookups work on the loaded statistics.
            for (h, t) in lex.stats.iter() {
                assert_eq!(back.stats.get(h), Some(t));
            }
            // Saving over an existing file replaces it.
            lex.save(&path).unwrap();
            assert_eq!(Lexicon::load(&path).unwrap(), lex);
        }
        // Only the lexicon files are left: no temporary files.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    #[test]
    fn lexicon_seed_and_settings_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lex.bin");
        let lex = sample_lexicon(&mut 3, 20, None);
        lex.save(&path).unwrap();
        assert!(Lexicon::load_matching(&path, 42, "nfkc,lower,chars").is_ok());
        let e = Lexicon::load_matching(&path, 42, "nfkc,lower,dictionary").unwrap_err();
        assert!(matches!(e.kind, LexiconErrorKind::SettingsMismatch { .. }), "{e}");
        assert!(e.to_string().contains("lex.bin"), "{e}");
        let e = Lexicon::load_matching(&path, 7, "nfkc,lower,chars").unwrap_err();
        assert!(matches!(e.kind, LexiconErrorKind::SeedMismatch { expected: 7, found: 42 }));
    }

    #[test]
    fn truncated_lexicon_is_an_error_at_every_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lex.bin");
        let lex = sample_lexicon(&mut 23, 15, Some(3));
        lex.save(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(parse(&bytes).unwrap(), lex);
        for len in 0..bytes.len() {
            let e = parse(&bytes[..len]).unwrap_err();
            assert!(
                matches!(e, LexiconErrorKind::Truncated { .. }),
                "length {len} of {}: {e}",
                bytes.len()
            );
        }
        // Through a file, the error names it.
        let cut = dir.path().join("cut.bin");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let e = Lexicon::load(&cut).unwrap_err();
        assert!(matches!(e.kind, LexiconErrorKind::Truncated { .. }), "{e}");
        assert!(e.to_string().contains("cut.bin") && e.to_string().contains("truncated"), "{e}");
        // One byte too many.
        let mut long = bytes.clone();
        long.push(0);
        let e = parse(&long).unwrap_err();
        assert!(matches!(e, LexiconErrorKind::TrailingData { extra: 1 }), "{e}");
    }

    #[test]
    fn corrupted_lexicon_is_an_error_at_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lex.bin");
        let lex = sample_lexicon(&mut 29, 12, Some(2));
        lex.save(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                let e = parse(&b).unwrap_err();
                let expected = match i {
                    0..8 => matches!(e, LexiconErrorKind::BadMagic),
                    8..12 => matches!(e, LexiconErrorKind::UnsupportedVersion { .. }),
                    // Counts: the size no longer matches the file.
                    32..52 => matches!(
                        e,
                        LexiconErrorKind::Truncated { .. } | LexiconErrorKind::TrailingData { .. }
                    ),
                    _ => matches!(e, LexiconErrorKind::ChecksumMismatch { .. }),
                };
                assert!(expected, "byte {i} ^ {flip:#x}: {e}");
            }
        }
        // Through a file.
        let mut b = bytes.clone();
        *b.last_mut().unwrap() ^= 1;
        let bad = dir.path().join("bad.bin");
        std::fs::write(&bad, &b).unwrap();
        let e = Lexicon::load(&bad).unwrap_err();
        assert!(matches!(e.kind, LexiconErrorKind::ChecksumMismatch { .. }), "{e}");
        assert!(e.to_string().contains("bad.bin"), "{e}");
    }

    #[test]
    fn invalid_but_checksummed_content_is_reported() {
        // A writer that breaks the sort order: the checksum is right, the content is not.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lex.bin");
        let lex = sample_lexicon(&mut 31, 10, None);
        lex.save(&path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let body = HEADER_LEN as usize + lex.settings.len();
        // Swap the first two term entries.
        let (a, b) = (body..body + TERM_LEN, body + TERM_LEN..body + 2 * TERM_LEN);
        let first = bytes[a.clone()].to_vec();
        bytes.copy_within(b.clone(), a.start);
        bytes[b].copy_from_slice(&first);
        let n = bytes.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let e = Lexicon::load(&path).unwrap_err();
        assert!(matches!(e.kind, LexiconErrorKind::Invalid(_)), "{e}");
        // And a file that is not a lexicon at all, and one that does not exist.
        std::fs::write(&path, b"hello, world\n").unwrap();
        assert!(matches!(Lexicon::load(&path).unwrap_err().kind, LexiconErrorKind::BadMagic));
        let e = Lexicon::load(dir.path().join("missing.bin")).unwrap_err();
        assert!(matches!(e.kind, LexiconErrorKind::Io(_)) && e.to_string().contains("missing"));
    }

    #[test]
    fn from_normalized_counts_tokens() {
        let norm = crate::text::normalize::normalize("the cat and the hat");
        let tc = TermCounts::from_normalized(&norm, 1);
        assert_eq!((tc.len, tc.terms.len(), tc.max_tf()), (5, 4, 2));
        assert!(tc.terms.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
