//! Broder's collection algorithm in bounded memory. Contract: "give me every document's sketch
//! (a sorted set of sampled shingle hashes), I give you, sorted by (a, b), the document pairs
//! whose shared sketch elements reach the threshold, without ever holding more than a memory cap
//! of records or pairs".
//!
//! Source: A. Broder, S. Glassman, M. Manasse, G. Zweig, "Syntactic clustering of the Web" (1997),
//! §3, in the steps of lecture 5 ("Finding duplicates on the Web") of Mail.ru's 2016
//! information-retrieval course ("sort ⟨shingle, docid⟩; emit ⟨ID, ID, 1⟩ ordered by ID; sum to
//! ⟨ID, ID, count⟩; count > threshold?"):
//!
//! 1. every sketch element becomes a ⟨shingle, doc⟩ record; the records are sorted by shingle,
//!    then doc;
//! 2. for every shingle, all pairs ⟨a, b⟩ (a < b) of the documents sharing it are emitted. A
//!    shingle shared by more than L documents (`max_docs_per_shingle`) would emit L² pairs that
//!    say nothing (boilerplate): it emits no pairs and is counted, as the lecture suggests;
//! 3. the pairs are sorted and counted: the count is the number of shared sketch elements
//!    |S(A) ∩ S(B)| (ignoring frequent shingles).
//!
//! What a frequent shingle means for the estimate is [`FrequentShingles`]. The lecture's rule
//! ([`FrequentShingles::Skip`]) leaves it in the sketch sizes, so it counts as *not shared*: as a
//! collection grows, more of every sketch is frequent, and near-duplicates fall below the
//! threshold (at 320,000 documents of the benchmark corpus, recall falls to about half, against
//! 0.99 with the default: bench/results/sampled-scale-2026-11-24.md).
//! The default, [`FrequentShingles::Discount`], leaves frequent shingles out of both the count and
//! the sizes: the estimate is `shared / min(|S(A)| − f(A), |S(B)| − f(B))`, f counting a
//! document's frequent sketch elements, i.e. the same estimate over the informative part of each
//! sketch. It costs one more `u32` per document and no pairs.
//!
//! **Frequent-shingle groups.** Neither rule finds a large group of near-identical documents
//! (hundreds of API pages that differ in a name): every element of their sketches is in more
//! than L documents, so nothing is counted, and discounting leaves nothing to count over. With
//! `max_pairs_per_group` set, as the LSH path does with its large buckets
//! ([`crate::candidates::lsh`]), the documents of each frequent shingle that are *saturated*
//! (half or more of their sketch frequent: what counting cannot judge) form a group; each
//! distinct group is expanded once to all its pairs up to the bound, or past it to each member
//! with the group's first members and its predecessor, and its pairs are reported whatever
//! their count ([`BroderPair::grouped`]) for verification to decide. The frequent shingles'
//! document lists are kept until the sizes are known (in memory up to a quarter of the cap,
//! then in a file of the run's temporary folder). On documentation pages this finds nearly every
//! pair at J ≥ 0.85 that counting missed (MOD-m with its short documents' second sort, see
//! [`crate::method::SampleParts`]); on plain texts it changes neither the pairs nor the CPU
//! time (`bench/results/sorted-groups-2026-11-28.md`, `sorted-groups-2026-11-29.md`).
//!
//! Both sorts are external sorts: records or pairs are buffered up to `memory_bytes`, sorted, and
//! written as a sorted run to a temporary directory ([`tempfile::TempDir`], removed when dropped,
//! so also on error or panic); the runs are then merged k-way with a binary heap while streaming,
//! at most [`MAX_FAN_IN`] at a time (more runs are first merged in passes). Pair runs are
//! pre-counted (each distinct pair once with its count), and counting finishes during the final
//! merge. When everything fits in the cap no file is written at all.
//!
//! The estimate reported is `shared / min(|S(A)|, |S(B)|)`: for bottom-s (MIN-s) sketches of
//! documents with at least s shingles both sizes are s, so this is Broder's "count over the sketch
//! size"; for the variable-size MOD-m samples it is the estimated containment of the smaller
//! document in the larger one, an upper bound of the resemblance. Callers that want another
//! measure get `shared` and compute it: see [`BroderPair::resemblance`] and
//! [`BroderPair::containment`].
//!
//! Memory beyond the cap: when the records fit in memory they stay there while the pairs are
//! sorted, and the pair buffer still gets at least a quarter of the cap (so up to 1.25× the cap
//! at worst); one `u32` per document id (the sketch sizes), the documents of the
//! current shingle (at most L), and one read buffer per merged run (the cap divided among
//! them, between 4 KiB and 1 MiB each).
//!
//! ```
//! use lookalike::candidates::sorted_pairs::{collect_pairs, BroderConfig};
//!
//! let sketches = vec![vec![1, 2, 3, 4], vec![1, 2, 3, 5], vec![6, 7, 8, 9]];
//! let config = BroderConfig { threshold: 0.5, ..BroderConfig::default() };
//! let (pairs, stats) = collect_pairs(&sketches, &config)?;
//! assert_eq!(pairs.len(), 1);
//! assert_eq!((pairs[0].a, pairs[0].b, pairs[0].shared), (0, 1, 3));
//! assert_eq!(pairs[0].estimate, 0.75);
//! assert_eq!(stats.runs_written, 0);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

use tempfile::TempDir;

/// Default memory cap of each external sort.
pub const DEFAULT_MEMORY_BYTES: usize = 256 << 20;

/// Default L: shingles shared by more documents are skipped. Pair emission costs Σ min(df, L)²/2,
/// so L bounds the work per shingle; on the benchmark corpus 100 halves the pairs and the time of
/// 1000 for a small loss of recall, where 50 loses much more.
pub const DEFAULT_MAX_DOCS_PER_SHINGLE: usize = 100;

/// Most runs merged at once; more are merged in passes first (bounds open files and buffers).
pub const MAX_FAN_IN: usize = 64;

/// What a shingle shared by more than L documents does to the estimate (see the module
/// documentation).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(clap::ValueEnum)]
pub enum FrequentShingles {
    /// Left out of the count and of both sketch sizes: the estimate is over the rest of the
    /// sketches (default; keeps recall as the collection grows).
    #[default]
    Discount,
    /// Left out of the count only, as Mail.ru's 2016 course lecture on duplicates has it ("we can
    /// neglect such cases"): a
    /// frequent shingle counts as not shared.
    Skip,
}

/// Settings of one run of the collection algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct BroderConfig {
    /// Cap on the bytes of records or pairs buffered in memory by each sort; past it sorted runs
    /// are written to disk.
    pub memory_bytes: usize,
    /// L: a shingle shared by more than this many documents contributes no pairs.
    pub max_docs_per_shingle: usize,
    /// Whether such shingles stay in the sketch sizes.
    pub frequent: FrequentShingles,
    /// Report pairs whose estimate `shared / min(|S(A)|, |S(B)|)` is at least this (in [0, 1]).
    pub threshold: f64,
    /// Where the temporary directory of runs is created (the system default when `None`).
    pub tmp_dir: Option<PathBuf>,
    /// Frequent-shingle groups (see the module documentation): `Some(bound)` makes the
    /// saturated documents sharing a frequent shingle candidates of each other, all pairs of a
    /// group up to `bound` pairs (anchors past it); `None` leaves frequent shingles out, as
    /// Broder's algorithm does.
    pub max_pairs_per_group: Option<u64>,
}

impl Default for BroderConfig {
    fn default() -> Self {
        BroderConfig {
            memory_bytes: DEFAULT_MEMORY_BYTES,
            max_docs_per_shingle: DEFAULT_MAX_DOCS_PER_SHINGLE,
            frequent: FrequentShingles::default(),
            threshold: 0.5,
            tmp_dir: None,
            max_pairs_per_group: Some(crate::candidates::lsh::DEFAULT_MAX_PAIRS_PER_GROUP),
        }
    }
}

/// A reported pair of documents.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BroderPair {
    /// The smaller document id.
    pub a: u32,
    /// The larger document id.
    pub b: u32,
    /// Number of sketch elements the two documents share (shingles shared by more than L
    /// documents not counted).
    pub shared: u32,
    /// `shared / min(|S(a)|, |S(b)|)`, the sizes without their frequent shingles with
    /// [`FrequentShingles::Discount`].
    pub estimate: f64,
    /// The two documents are saturated and share a frequent shingle: reported whatever the
    /// estimate (see the module documentation).
    pub grouped: bool,
}

impl BroderPair {
    /// Estimated resemblance `shared / (|S(a)| + |S(b)| − shared)` given the two sketch sizes.
    pub fn resemblance(&self, size_a: usize, size_b: usize) -> f64 {
        let union = (size_a + size_b).saturating_sub(self.shared as usize);
        if union == 0 { 0.0 } else { f64::from(self.shared) / union as f64 }
    }

    /// Estimated containment of a document of sketch size `size` in the other: `shared / size`.
    pub fn containment(&self, size: usize) -> f64 {
        if size == 0 { 0.0 } else { f64::from(self.shared) / size as f64 }
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct BroderStats {
    /// Documents seen (including those with empty sketches).
    pub documents: u64,
    /// ⟨shingle, doc⟩ records written in phase 1.
    pub records: u64,
    /// Distinct shingles.
    pub shingles: u64,
    /// Shingles shared by more than L documents, skipped.
    pub shingles_skipped: u64,
    /// ⟨a, b⟩ pairs emitted in phase 2 (one per shared shingle).
    pub pairs_emitted: u64,
    /// Distinct pairs counted in phase 3.
    pub distinct_pairs: u64,
    /// Pairs reaching the threshold (handed to the sink, up to an early stop).
    pub pairs_reported: u64,
    /// Sorted runs of records written.
    pub record_runs: u64,
    /// Sorted runs of pairs written.
    pub pair_runs: u64,
    /// All runs written, including intermediate merge passes.
    pub runs_written: u64,
    /// Bytes written to temporary files.
    pub bytes_spilled: u64,
    /// Saturated documents: half or more of their sketch is frequent shingles.
    pub saturated: u64,
    /// Distinct groups of saturated documents sharing a frequent shingle.
    pub groups: u64,
    /// Pairs emitted by the groups.
    pub group_pairs: u64,
    /// Groups of more than the bound's pairs, paired with anchors only.
    pub groups_over_bound: u64,
    /// Pairs of those groups that were not emitted.
    pub group_pairs_skipped: u64,
}

/// The count bit of a pair record that says it came from a group.
const GROUPED: u32 = 1 << 31;

/// Runs the collection algorithm over `(doc, sketch)` items and pushes every pair reaching the
/// threshold into `sink`, in (a, b) order; the sink returns `false` to stop early.
///
/// Each sketch must be strictly increasing (sorted, deduplicated) and each doc id must occur
/// once; otherwise an `InvalidInput` error is returned. Doc ids need not be dense, but one `u32`
/// is kept per id up to the largest.
pub fn collect<'a, I, F>(sketches: I, config: &BroderConfig, mut sink: F) -> io::Result<BroderStats>
where
    I: IntoIterator<Item = (u32, &'a [u64])>,
    F: FnMut(BroderPair) -> bool,
{
    if !(0.0..=1.0).contains(&config.threshold) {
        return Err(invalid("threshold must be in [0, 1]"));
    }
    let mut stats = BroderStats::default();
    let mut spill = Spill::new(config.tmp_dir.clone(), config.memory_bytes);
    const ABSENT: u32 = u32::MAX;
    let mut sizes: Vec<u32> = Vec::new();

    // Phase 1: ⟨shingle, doc⟩ records, sorted.
    let mut records = Sorter::<u128>::new(config.memory_bytes);
    for (doc, sketch) in sketches {
        stats.documents += 1;
        let d = doc as usize;
        if d >= sizes.len() {
            sizes.resize(d + 1, ABSENT);
        }
        if sizes[d] != ABSENT {
            return Err(invalid(format!("document {doc} given twice")));
        }
        if sketch.len() >= ABSENT as usize {
            return Err(invalid(format!("sketch of document {doc} is too large")));
        }
        if sketch.windows(2).any(|w| w[0] >= w[1]) {
            return Err(invalid(format!("sketch of document {doc} is not strictly increasing")));
        }
        sizes[d] = sketch.len() as u32;
        for &s in sketch {
            records.push((u128::from(s) << 32) | u128::from(doc), &mut spill)?;
        }
        stats.records += sketch.len() as u64;
    }
    let mut records = records.finish(&mut spill)?;
    stats.record_runs = records.runs;

    // Phase 2: pairs of documents sharing a shingle. The pair sorter gets what the in-memory
    // records leave of the cap, but at least a quarter of it (so records that just fit do not
    // turn every pair into a run of its own).
    let pair_cap =
        config.memory_bytes.saturating_sub(records.resident_bytes()).max(config.memory_bytes / 4);
    let mut pairs = Sorter::<(u64, u32)>::new(pair_cap);
    let limit = config.max_docs_per_shingle;
    let discount = config.frequent == FrequentShingles::Discount;
    let mut group: Vec<u32> = Vec::new();
    let mut current: Option<u64> = None;
    let mut overflow = false;
    // The documents of every frequent shingle, for the groups; frequent elements per document.
    let mut lists = config.max_pairs_per_group.map(|_| Lists::new(config.memory_bytes / 4));
    let mut frequent: Vec<u32> = if lists.is_some() { vec![0; sizes.len()] } else { Vec::new() };
    loop {
        let next = records.next()?;
        let next = next.map(|r| ((r >> 32) as u64, r as u32));
        if current.is_some() && next.map(|r| r.0) != current {
            stats.shingles += 1;
            if overflow {
                stats.shingles_skipped += 1;
                if let Some(lists) = &mut lists {
                    for &d in &group {
                        frequent[d as usize] += 1;
                    }
                    lists.push(&group, &mut spill)?;
                }
            } else {
                for (i, &a) in group.iter().enumerate() {
                    for &b in &group[i + 1..] {
                        pairs.push(((u64::from(a) << 32) | u64::from(b), 1), &mut spill)?;
                        stats.pairs_emitted += 1;
                    }
                }
            }
            group.clear();
            overflow = false;
        }
        let Some((shingle, doc)) = next else { break };
        current = Some(shingle);
        if group.len() < limit {
            group.push(doc);
        } else {
            if discount {
                // The shingle is frequent: take it out of its documents' sizes (the first L
                // when it overflows, then each further one).
                if !overflow {
                    for &d in &group {
                        sizes[d as usize] -= 1;
                    }
                }
                sizes[doc as usize] -= 1;
            }
            overflow = true;
            // The groups need every document of the shingle; the pairs only the first L.
            if lists.is_some() {
                group.push(doc);
            }
        }
    }
    drop(records);
    if let (Some(lists), Some(bound)) = (lists, config.max_pairs_per_group) {
        // Saturated: half or more of the sketch frequent (the discounted size is at most the
        // frequent part).
        let full = |d: usize| match config.frequent {
            FrequentShingles::Discount => sizes[d] + frequent[d],
            FrequentShingles::Skip => sizes[d],
        };
        let saturated: Vec<bool> = (0..frequent.len())
            .map(|d| frequent[d] > 0 && sizes[d] != ABSENT && 2 * frequent[d] >= full(d))
            .collect();
        stats.saturated = saturated.iter().filter(|&&x| x).count() as u64;
        let mut seen = std::collections::HashSet::new();
        let mut members: Vec<u32> = Vec::new();
        lists.for_each(|list| {
            members.clear();
            members.extend(list.iter().copied().filter(|&d| saturated[d as usize]));
            if members.len() < 2 || !seen.insert(crate::candidates::lsh::members_key(&members)) {
                return Ok(());
            }
            stats.groups += 1;
            let (emitted, over) = crate::candidates::lsh::group_pairs(&members, bound, |a, b| {
                pairs.push(((u64::from(a) << 32) | u64::from(b), GROUPED), &mut spill)
            })?;
            stats.group_pairs += emitted;
            if let Some(skipped) = over {
                stats.groups_over_bound += 1;
                stats.group_pairs_skipped += skipped;
            }
            Ok(())
        })?;
    }
    let mut pairs = pairs.finish(&mut spill)?;
    stats.pair_runs = pairs.runs;

    // Phase 3: counts, estimates, threshold.
    while let Some((key, count)) = pairs.next()? {
        stats.distinct_pairs += 1;
        let (a, b) = ((key >> 32) as u32, key as u32);
        let (shared, grouped) = (count & !GROUPED, count & GROUPED != 0);
        let smaller = sizes[a as usize].min(sizes[b as usize]);
        let estimate = if smaller == 0 { 0.0 } else { f64::from(shared) / f64::from(smaller) };
        if grouped || (shared > 0 && estimate >= config.threshold) {
            stats.pairs_reported += 1;
            if !sink(BroderPair { a, b, shared, estimate, grouped }) {
                break;
            }
        }
    }
    stats.runs_written = spill.runs_written;
    stats.bytes_spilled = spill.bytes;
    Ok(stats)
}

/// [`collect`] over a slice of sketches (document i is `sketches[i]`), collecting the pairs.
pub fn collect_pairs(
    sketches: &[Vec<u64>],
    config: &BroderConfig,
) -> io::Result<(Vec<BroderPair>, BroderStats)> {
    if sketches.len() > u32::MAX as usize {
        return Err(invalid("too many documents for 32-bit ids"));
    }
    let mut out = Vec::new();
    let stats =
        collect(sketches.iter().enumerate().map(|(i, s)| (i as u32, s.as_slice())), config, |p| {
            out.push(p);
            true
        })?;
    Ok((out, stats))
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg.into())
}

/// A fixed-size record of an external sort. Pair records with equal keys are folded into one
/// (their counts add up).
trait Record: Copy + Ord {
    const BYTES: usize;
    fn encode(&self, out: &mut Vec<u8>);
    fn decode(b: &[u8]) -> Self;
    /// Folds `next` into `self` when both have the same key.
    fn absorb(&mut self, next: &Self) -> bool;
}

/// A ⟨shingle, doc⟩ record packed as `shingle << 32 | doc`: sorts by shingle, then doc. Records
/// are unique (sketches are sets, doc ids unique), so nothing is ever folded.
impl Record for u128 {
    const BYTES: usize = 12;
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&((*self >> 32) as u64).to_le_bytes());
        out.extend_from_slice(&(*self as u32).to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        let (k, v) = <(u64, u32)>::decode(b);
        (u128::from(k) << 32) | u128::from(v)
    }
    fn absorb(&mut self, _next: &Self) -> bool {
        false
    }
}

/// A ⟨pair key, count⟩ record, pair key `a << 32 | b`.
impl Record for (u64, u32) {
    const BYTES: usize = 12;
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        let mut k = [0u8; 8];
        k.copy_from_slice(&b[..8]);
        let mut v = [0u8; 4];
        v.copy_from_slice(&b[8..12]);
        (u64::from_le_bytes(k), u32::from_le_bytes(v))
    }
    /// Counts add up (saturating below [`GROUPED`]); the group bit of either is kept.
    fn absorb(&mut self, next: &Self) -> bool {
        if self.0 == next.0 {
            let count = (self.1 & !GROUPED).saturating_add(next.1 & !GROUPED).min(!GROUPED);
            self.1 = count | ((self.1 | next.1) & GROUPED);
            true
        } else {
            false
        }
    }
}

/// The document lists of the frequent shingles, one after the other (each a length, then its
/// documents), in memory up to a cap and then in a temporary file of the run's folder.
struct Lists {
    cap: usize,
    buf: Vec<u32>,
    file: Option<(BufWriter<File>, PathBuf)>,
}

impl Lists {
    fn new(cap_bytes: usize) -> Lists {
        Lists { cap: (cap_bytes / 4).max(1 << 10), buf: Vec::new(), file: None }
    }

    fn push(&mut self, list: &[u32], spill: &mut Spill) -> io::Result<()> {
        self.buf.push(list.len() as u32);
        self.buf.extend_from_slice(list);
        if self.buf.len() > self.cap {
            if self.file.is_none() {
                let path = spill.dir()?.join("frequent-lists");
                self.file = Some((BufWriter::new(File::create(&path)?), path));
            }
            let (w, _) = self.file.as_mut().expect("opened above");
            spill.bytes += 4 * self.buf.len() as u64;
            for x in self.buf.drain(..) {
                w.write_all(&x.to_le_bytes())?;
            }
        }
        Ok(())
    }

    /// Every list in the order pushed.
    fn for_each(self, mut f: impl FnMut(&[u32]) -> io::Result<()>) -> io::Result<()> {
        let mut list = Vec::new();
        if let Some((w, path)) = self.file {
            let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
            drop(file);
            let mut r = BufReader::new(File::open(&path)?);
            let mut word = [0u8; 4];
            let mut read = |r: &mut BufReader<File>| -> io::Result<Option<u32>> {
                match r.read_exact(&mut word) {
                    Ok(()) => Ok(Some(u32::from_le_bytes(word))),
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
                    Err(e) => Err(e),
                }
            };
            while let Some(n) = read(&mut r)? {
                list.clear();
                for _ in 0..n {
                    list.push(read(&mut r)?.ok_or_else(|| invalid("truncated list file"))?);
                }
                f(&list)?;
            }
        }
        let mut at = 0;
        while at < self.buf.len() {
            let n = self.buf[at] as usize;
            f(&self.buf[at + 1..at + 1 + n])?;
            at += 1 + n;
        }
        Ok(())
    }
}

/// The temporary directory (created on the first run) and what was written to it.
struct Spill {
    parent: Option<PathBuf>,
    dir: Option<TempDir>,
    memory_bytes: usize,
    next_id: u64,
    runs_written: u64,
    bytes: u64,
}

/// A sorted run on disk.
struct Run {
    path: PathBuf,
    len: u64,
}

impl Spill {
    fn new(parent: Option<PathBuf>, memory_bytes: usize) -> Self {
        Spill { parent, dir: None, memory_bytes, next_id: 0, runs_written: 0, bytes: 0 }
    }

    /// The run's temporary folder, created on first use.
    fn dir(&mut self) -> io::Result<PathBuf> {
        if self.dir.is_none() {
            self.dir = Some(match &self.parent {
                Some(p) => tempfile::Builder::new().prefix("broder-").tempdir_in(p)?,
                None => tempfile::Builder::new().prefix("broder-").tempdir()?,
            });
        }
        self.dir.as_ref().map(|d| d.path().to_owned()).ok_or_else(|| io::Error::other("no dir"))
    }

    /// Writes sorted, folded records as a new run.
    fn write_run<T: Record>(
        &mut self,
        items: impl IntoIterator<Item = io::Result<T>>,
    ) -> io::Result<Run> {
        let path = self.dir()?.join(format!("run-{}", self.next_id));
        self.next_id += 1;
        let mut w = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        let mut buf = Vec::with_capacity(T::BYTES);
        let mut len = 0u64;
        for item in items {
            buf.clear();
            item?.encode(&mut buf);
            w.write_all(&buf)?;
            len += 1;
        }
        w.flush()?;
        self.runs_written += 1;
        self.bytes += len * T::BYTES as u64;
        Ok(Run { path, len })
    }
}

/// Buffers records up to a cap, writing sorted runs past it.
struct Sorter<T> {
    buf: Vec<T>,
    cap_items: usize,
    runs: Vec<Run>,
}

impl<T: Record> Sorter<T> {
    fn new(memory_bytes: usize) -> Self {
        let cap_items = (memory_bytes / std::mem::size_of::<T>()).max(1);
        Sorter { buf: Vec::new(), cap_items, runs: Vec::new() }
    }

    fn push(&mut self, item: T, spill: &mut Spill) -> io::Result<()> {
        if self.buf.len() >= self.cap_items {
            self.flush(spill)?;
        } else if self.buf.len() == self.buf.capacity() {
            // Grow by doubling, but never past the cap.
            let want = (self.buf.capacity() * 2).clamp(16, self.cap_items);
            self.buf.reserve_exact(want - self.buf.len());
        }
        self.buf.push(item);
        Ok(())
    }

    fn sort_and_fold(buf: &mut Vec<T>) {
        buf.sort_unstable();
        buf.dedup_by(|next, prev| prev.absorb(next));
    }

    fn flush(&mut self, spill: &mut Spill) -> io::Result<()> {
        Self::sort_and_fold(&mut self.buf);
        let run = spill.write_run(self.buf.drain(..).map(Ok))?;
        self.runs.push(run);
        Ok(())
    }

    /// The records in sorted order, equal keys folded.
    fn finish(mut self, spill: &mut Spill) -> io::Result<Sorted<T>> {
        if self.runs.is_empty() {
            Self::sort_and_fold(&mut self.buf);
            let resident = self.buf.capacity() * std::mem::size_of::<T>();
            return Ok(Sorted {
                source: Source::Memory(self.buf.into_iter()),
                pending: None,
                resident,
                runs: 0,
            });
        }
        if !self.buf.is_empty() {
            self.flush(spill)?;
        }
        self.buf = Vec::new();
        let runs_total = self.runs.len() as u64;
        let mut runs = std::mem::take(&mut self.runs);
        // Merge passes until one merge suffices.
        while runs.len() > MAX_FAN_IN {
            let rest = runs.split_off(MAX_FAN_IN);
            let merge = Merge::<T>::open(runs, spill.memory_bytes)?;
            let merged = spill.write_run(Folded::new(merge))?;
            runs = rest;
            runs.push(merged);
        }
        let merge = Merge::open(runs, spill.memory_bytes)?;
        Ok(Sorted { source: Source::Merge(merge), pending: None, resident: 0, runs: runs_total })
    }
}

/// A k-way merge of sorted runs; run files are deleted as soon as they are open (the open handle
/// keeps the data readable on Unix; the directory removes any leftovers).
struct Merge<T> {
    readers: Vec<(BufReader<File>, u64)>,
    heap: BinaryHeap<Reverse<(T, usize)>>,
    bytes: Vec<u8>,
}

impl<T: Record> Merge<T> {
    fn open(runs: Vec<Run>, memory_bytes: usize) -> io::Result<Self> {
        let per_run = (memory_bytes / runs.len().max(1)).clamp(4 << 10, 1 << 20);
        let mut m = Merge {
            readers: Vec::with_capacity(runs.len()),
            heap: BinaryHeap::with_capacity(runs.len()),
            bytes: vec![0; T::BYTES],
        };
        for (i, run) in runs.into_iter().enumerate() {
            let file = File::open(&run.path)?;
            std::fs::remove_file(&run.path)?;
            m.readers.push((BufReader::with_capacity(per_run, file), run.len));
            m.refill(i)?;
        }
        Ok(m)
    }

    fn refill(&mut self, i: usize) -> io::Result<()> {
        let (reader, left) = &mut self.readers[i];
        if *left > 0 {
            reader.read_exact(&mut self.bytes)?;
            *left -= 1;
            self.heap.push(Reverse((T::decode(&self.bytes), i)));
        }
        Ok(())
    }

    fn next(&mut self) -> io::Result<Option<T>> {
        let Some(Reverse((item, i))) = self.heap.pop() else { return Ok(None) };
        self.refill(i)?;
        Ok(Some(item))
    }
}

/// Folds `x` into `pending` when the keys are equal; otherwise `x` becomes pending and the
/// finished previous record is returned.
fn fold<T: Record>(pending: &mut Option<T>, x: T) -> Option<T> {
    match pending {
        Some(p) => {
            if p.absorb(&x) {
                None
            } else {
                Some(std::mem::replace(p, x))
            }
        }
        None => {
            *pending = Some(x);
            None
        }
    }
}

/// A merge with equal keys folded, as an iterator (for writing merge passes).
struct Folded<T> {
    merge: Merge<T>,
    pending: Option<T>,
}

impl<T: Record> Folded<T> {
    fn new(merge: Merge<T>) -> Self {
        Folded { merge, pending: None }
    }
}

impl<T: Record> Iterator for Folded<T> {
    type Item = io::Result<T>;
    fn next(&mut self) -> Option<io::Result<T>> {
        loop {
            match self.merge.next() {
                Err(e) => return Some(Err(e)),
                Ok(None) => return self.pending.take().map(Ok),
                Ok(Some(x)) => {
                    if let Some(done) = fold(&mut self.pending, x) {
                        return Some(Ok(done));
                    }
                }
            }
        }
    }
}

enum Source<T> {
    Memory(std::vec::IntoIter<T>),
    Merge(Merge<T>),
}

/// The output of a [`Sorter`]: sorted records, equal keys folded.
struct Sorted<T> {
    source: Source<T>,
    pending: Option<T>,
    /// Bytes held in memory by an in-memory result.
    resident: usize,
    /// Runs this sort wrote before its final merge.
    runs: u64,
}

impl<T: Record> Sorted<T> {
    fn resident_bytes(&self) -> usize {
        self.resident
    }

    fn raw_next(&mut self) -> io::Result<Option<T>> {
        match &mut self.source {
            Source::Memory(it) => Ok(it.next()),
            Source::Merge(m) => m.next(),
        }
    }

    fn next(&mut self) -> io::Result<Option<T>> {
        loop {
            match self.raw_next()? {
                None => return Ok(self.pending.take()),
                Some(x) => {
                    if let Some(done) = fold(&mut self.pending, x) {
                        return Ok(Some(done));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The obviously correct version: every pair of documents, shared elements counted directly,
    /// shingles of document frequency > L not counted.
    fn brute_force(sketches: &[Vec<u64>], limit: usize, threshold: f64) -> Vec<BroderPair> {
        brute_force_with(sketches, limit, threshold, FrequentShingles::Skip)
    }

    /// [`brute_force`] under either rule: with `Discount` the sizes are those of the elements of
    /// document frequency ≤ L.
    fn brute_force_with(
        sketches: &[Vec<u64>],
        limit: usize,
        threshold: f64,
        rule: FrequentShingles,
    ) -> Vec<BroderPair> {
        let df = doc_freq(sketches);
        let mut out = Vec::new();
        for a in 0..sketches.len() {
            for b in a + 1..sketches.len() {
                let (shared, estimate) = counted(sketches, &df, limit, rule, a, b);
                if shared == 0 {
                    continue;
                }
                if estimate >= threshold {
                    out.push(BroderPair {
                        a: a as u32,
                        b: b as u32,
                        shared,
                        estimate,
                        grouped: false,
                    });
                }
            }
        }
        out
    }

    /// Each element's document frequency.
    fn doc_freq(sketches: &[Vec<u64>]) -> HashMap<u64, usize> {
        let mut df: HashMap<u64, usize> = HashMap::new();
        for s in sketches {
            for &x in s {
                *df.entry(x).or_default() += 1;
            }
        }
        df
    }

    /// The elements documents `a` and `b` share, frequent ones left out, and the estimate over
    /// the smaller size (its frequent elements left out too with `Discount`; 0 when empty).
    fn counted(
        sketches: &[Vec<u64>],
        df: &HashMap<u64, usize>,
        limit: usize,
        rule: FrequentShingles,
        a: usize,
        b: usize,
    ) -> (u32, f64) {
        let shared =
            sketches[a].iter().filter(|x| sketches[b].contains(x) && df[x] <= limit).count() as u32;
        let size = |d: usize| match rule {
            FrequentShingles::Skip => sketches[d].len(),
            FrequentShingles::Discount => sketches[d].iter().filter(|x| df[x] <= limit).count(),
        };
        let smaller = size(a).min(size(b));
        (shared, if smaller == 0 { 0.0 } else { f64::from(shared) / smaller as f64 })
    }

    /// splitmix64, so the tests need no RNG crate and are reproducible.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Random sketches with planted near-duplicates (copies of a base with some elements
    /// replaced) and a few popular shingles that many documents share.
    fn collection(seed: u64, docs: usize, size: usize) -> Vec<Vec<u64>> {
        let mut rng = Rng(seed);
        let mut out: Vec<Vec<u64>> = Vec::new();
        for _ in 0..docs {
            let mut s: Vec<u64> = if !out.is_empty() && rng.below(3) == 0 {
                let base = &out[rng.below(out.len() as u64) as usize];
                base.iter().filter(|_| rng.below(4) != 0).copied().collect()
            } else {
                Vec::new()
            };
            while s.len() < size {
                s.push(rng.below(1 << 40));
            }
            for p in 0..3 {
                if rng.below(2) == 0 {
                    s.push(p);
                }
            }
            if rng.below(10) == 0 {
                s.truncate(rng.below(size as u64) as usize);
            }
            s.sort_unstable();
            s.dedup();
            out.push(s);
        }
        out
    }

    fn config(memory_bytes: usize, limit: usize, threshold: f64) -> BroderConfig {
        BroderConfig {
            memory_bytes,
            max_docs_per_shingle: limit,
            threshold,
            tmp_dir: None,
            frequent: FrequentShingles::Skip,
            max_pairs_per_group: None,
        }
    }

    fn is_empty_dir(p: &std::path::Path) -> bool {
        std::fs::read_dir(p).unwrap().next().is_none()
    }

    #[test]
    fn hand_worked_example() {
        // Shingle 9 is in four documents; with L = 3 it counts for nothing.
        let sketches = vec![vec![1, 2, 3, 9], vec![1, 2, 4, 9], vec![5, 9], vec![6, 9], vec![]];
        let (pairs, stats) = collect_pairs(&sketches, &config(1 << 20, 3, 0.0)).unwrap();
        assert_eq!(
            pairs,
            vec![BroderPair { a: 0, b: 1, shared: 2, estimate: 0.5, grouped: false }]
        );
        assert_eq!(stats.documents, 5);
        assert_eq!(stats.records, 12);
        assert_eq!(stats.shingles, 7);
        assert_eq!(stats.shingles_skipped, 1);
        assert_eq!(stats.pairs_emitted, 2);
        assert_eq!(stats.distinct_pairs, 1);
        assert_eq!(stats.runs_written, 0);
        assert_eq!(stats.bytes_spilled, 0);
        // With L = 4 shingle 9 pairs everybody.
        let (pairs, stats) = collect_pairs(&sketches, &config(1 << 20, 4, 0.0)).unwrap();
        assert_eq!(stats.shingles_skipped, 0);
        assert_eq!(stats.pairs_emitted, 2 + 6);
        assert_eq!(pairs.len(), 6);
        assert_eq!(pairs[0], BroderPair { a: 0, b: 1, shared: 3, estimate: 0.75, grouped: false });
        assert_eq!(pairs[1], BroderPair { a: 0, b: 2, shared: 1, estimate: 0.5, grouped: false });
        assert_eq!(pairs[0].resemblance(4, 4), 3.0 / 5.0);
        assert_eq!(pairs[0].containment(4), 0.75);
    }

    #[test]
    fn matches_brute_force() {
        for seed in 0..6 {
            let sketches = collection(seed, 120, 12);
            for limit in [2, 5, 1000] {
                for threshold in [0.0, 0.3, 0.8] {
                    let (pairs, stats) =
                        collect_pairs(&sketches, &config(1 << 20, limit, threshold)).unwrap();
                    assert_eq!(pairs, brute_force(&sketches, limit, threshold), "seed {seed}");
                    assert_eq!(stats.runs_written, 0);
                    assert_eq!(stats.pairs_reported, pairs.len() as u64);
                }
            }
        }
    }

    #[test]
    fn discounting_frequent_shingles_matches_brute_force() {
        for seed in 0..6 {
            let sketches = collection(seed, 120, 12);
            for limit in [2, 5, 1000] {
                for threshold in [0.0, 0.3, 0.8] {
                    for memory in [1 << 20, 256] {
                        let config = BroderConfig {
                            frequent: FrequentShingles::Discount,
                            ..config(memory, limit, threshold)
                        };
                        let (pairs, _) = collect_pairs(&sketches, &config).unwrap();
                        let expect = brute_force_with(
                            &sketches,
                            limit,
                            threshold,
                            FrequentShingles::Discount,
                        );
                        assert_eq!(pairs, expect, "seed {seed} limit {limit} memory {memory}");
                    }
                }
            }
        }
    }

    /// [`brute_force_with`] plus the groups: every pair of saturated documents (half or more
    /// of the sketch frequent) that share a frequent shingle, reported whatever the estimate.
    fn brute_force_groups(
        sketches: &[Vec<u64>],
        limit: usize,
        threshold: f64,
        rule: FrequentShingles,
    ) -> Vec<BroderPair> {
        let df = doc_freq(sketches);
        let frequent: Vec<usize> =
            sketches.iter().map(|s| s.iter().filter(|x| df[x] > limit).count()).collect();
        let saturated = |d: usize| frequent[d] > 0 && 2 * frequent[d] >= sketches[d].len();
        let mut out: Vec<BroderPair> = brute_force_with(sketches, limit, threshold, rule);
        let at: HashMap<(u32, u32), usize> =
            out.iter().enumerate().map(|(i, p)| ((p.a, p.b), i)).collect();
        for a in 0..sketches.len() {
            for b in a + 1..sketches.len() {
                let grouped = saturated(a)
                    && saturated(b)
                    && sketches[a].iter().any(|x| df[x] > limit && sketches[b].contains(x));
                if !grouped {
                    continue;
                }
                match at.get(&(a as u32, b as u32)) {
                    Some(&i) => out[i].grouped = true,
                    None => {
                        let (shared, estimate) = counted(sketches, &df, limit, rule, a, b);
                        out.push(BroderPair {
                            a: a as u32,
                            b: b as u32,
                            shared,
                            estimate,
                            grouped,
                        });
                    }
                }
            }
        }
        out.sort_by_key(|p| (p.a, p.b));
        out
    }

    #[test]
    fn groups_match_brute_force_in_memory_and_spilled() {
        for seed in 0..6 {
            let sketches = collection(seed, 120, 12);
            for limit in [2, 5, 1000] {
                for rule in [FrequentShingles::Skip, FrequentShingles::Discount] {
                    let expect = brute_force_groups(&sketches, limit, 0.8, rule);
                    for memory in [1 << 20, 256] {
                        let config = BroderConfig {
                            frequent: rule,
                            max_pairs_per_group: Some(u64::MAX),
                            ..config(memory, limit, 0.8)
                        };
                        let (pairs, stats) = collect_pairs(&sketches, &config).unwrap();
                        assert_eq!(pairs, expect, "seed {seed} limit {limit} {rule:?} {memory}");
                        let grouped = pairs.iter().filter(|p| p.grouped).count() as u64;
                        assert!(stats.group_pairs >= grouped);
                        assert_eq!(stats.groups_over_bound, 0);
                    }
                }
            }
        }
    }

    /// 300 near-identical pages (36 of their 40 elements shared, 4 of their own) with L = 100:
    /// every shared element is frequent and discounted, and without groups no pair is left; the
    /// group makes every pair a candidate, or, over its bound, each page a candidate of the
    /// group's first pages and of its predecessor.
    #[test]
    fn a_large_group_of_near_identical_documents_is_kept() {
        let sketches: Vec<Vec<u64>> = (0..300u64)
            .map(|d| {
                let mut s: Vec<u64> = (0..36).chain((0..4).map(|i| 1_000 + d * 10 + i)).collect();
                s.sort_unstable();
                s
            })
            .collect();
        let base =
            BroderConfig { frequent: FrequentShingles::Discount, ..config(1 << 20, 100, 0.8) };
        let (pairs, _) = collect_pairs(&sketches, &base).unwrap();
        assert!(pairs.is_empty());
        let grouped = BroderConfig { max_pairs_per_group: Some(1_000_000), ..base.clone() };
        let (pairs, stats) = collect_pairs(&sketches, &grouped).unwrap();
        assert_eq!(pairs.len(), 300 * 299 / 2);
        assert!(pairs.iter().all(|p| p.grouped && p.shared == 0));
        assert_eq!((stats.saturated, stats.groups, stats.group_pairs), (300, 1, 300 * 299 / 2));
        let bounded = BroderConfig { max_pairs_per_group: Some(1_000), ..base };
        let (pairs, stats) = collect_pairs(&sketches, &bounded).unwrap();
        assert_eq!((stats.groups, stats.groups_over_bound), (1, 1));
        assert_eq!(pairs.len() as u64 + stats.group_pairs_skipped, 300 * 299 / 2);
        assert!(pairs.iter().any(|p| (p.a, p.b) == (7, 299)) && pairs.iter().any(|p| p.b == 298));
    }

    /// Near-duplicates whose shingles become common as the collection grows: `Skip` loses them,
    /// `Discount` keeps them.
    #[test]
    fn discounting_keeps_near_duplicates_whose_shingles_are_common() {
        // 40 pairs of near-duplicates (12 of 16 elements shared); 10 of each pair's elements are
        // also in 200 other documents, so with L = 100 they are frequent.
        let mut sketches: Vec<Vec<u64>> = Vec::new();
        for p in 0..40u64 {
            let common: Vec<u64> = (0..10).map(|i| 1_000 + p * 10 + i).collect();
            let own =
                |k: u64| -> Vec<u64> { (0..6).map(|i| 1_000_000 + p * 100 + k * 10 + i).collect() };
            let mut a = common.clone();
            a.extend(own(0).into_iter().take(2));
            a.extend(own(1).into_iter().take(4));
            let mut b = common.clone();
            b.extend(own(0).into_iter().take(2));
            b.extend(own(2).into_iter().take(4));
            for s in [&mut a, &mut b] {
                s.sort_unstable();
                sketches.push(s.clone());
            }
        }
        for f in 0..200u64 {
            let mut s: Vec<u64> = (0..400).map(|e| 1_000 + e).collect();
            s.push(5_000_000 + f);
            s.sort_unstable();
            s.dedup();
            sketches.push(s);
        }
        let found = |rule| {
            let config = BroderConfig { frequent: rule, ..config(1 << 20, 100, 0.3) };
            let (pairs, _) = collect_pairs(&sketches, &config).unwrap();
            pairs.iter().filter(|p| p.a % 2 == 0 && p.b == p.a + 1 && p.b < 80).count()
        };
        // Skip: 2 shared of 16 (0.125 < 0.3); discount: 2 of 6 (0.33).
        assert_eq!(found(FrequentShingles::Skip), 0);
        assert_eq!(found(FrequentShingles::Discount), 40);
    }

    #[test]
    fn tiny_memory_cap_spills_and_agrees_with_memory() {
        for (seed, cap) in [(7, 4 << 10), (8, 1 << 10)] {
            let sketches = collection(seed, 400, 16);
            let records: usize = sketches.iter().map(Vec::len).sum();
            assert!(records * 12 >= 5 * cap, "the test must overflow the cap five times");
            let (in_memory, mem_stats) =
                collect_pairs(&sketches, &config(1 << 24, 50, 0.2)).unwrap();
            assert_eq!(mem_stats.runs_written, 0);
            let dir = tempfile::tempdir().unwrap();
            let mut cfg = config(cap, 50, 0.2);
            cfg.tmp_dir = Some(dir.path().to_path_buf());
            let (spilled, stats) = collect_pairs(&sketches, &cfg).unwrap();
            assert_eq!(spilled, in_memory);
            assert!(!spilled.is_empty());
            assert!(stats.record_runs > 1, "{stats:?}");
            assert!(stats.pair_runs > 1, "{stats:?}");
            assert!(stats.bytes_spilled >= records as u64 * 12);
            assert_eq!(stats.pairs_emitted, mem_stats.pairs_emitted);
            assert_eq!(stats.distinct_pairs, mem_stats.distinct_pairs);
            assert_eq!(stats.shingles_skipped, mem_stats.shingles_skipped);
            assert!(is_empty_dir(dir.path()), "temporary directory left behind");
            assert_eq!(spilled, brute_force(&sketches, 50, 0.2));
        }
    }

    #[test]
    fn many_runs_merge_in_passes() {
        let sketches = collection(11, 600, 20);
        // 1 KiB holds 64 records: far more than MAX_FAN_IN runs.
        let (spilled, stats) = collect_pairs(&sketches, &config(1 << 10, 50, 0.1)).unwrap();
        assert!(stats.record_runs > MAX_FAN_IN as u64, "{stats:?}");
        assert!(stats.runs_written > stats.record_runs + stats.pair_runs, "{stats:?}");
        let (in_memory, _) = collect_pairs(&sketches, &config(1 << 24, 50, 0.1)).unwrap();
        assert_eq!(spilled, in_memory);
    }

    #[test]
    fn deterministic_and_stops_early() {
        let sketches = collection(3, 200, 10);
        let cfg = config(2 << 10, 20, 0.0);
        let first = collect_pairs(&sketches, &cfg).unwrap();
        let second = collect_pairs(&sketches, &cfg).unwrap();
        assert_eq!(first, second);
        assert!(first.0.len() > 3);
        let mut got = Vec::new();
        let items = sketches.iter().enumerate().map(|(i, s)| (i as u32, s.as_slice()));
        let stats = collect(items, &cfg, |p| {
            got.push(p);
            got.len() < 3
        })
        .unwrap();
        assert_eq!(got, first.0[..3]);
        assert_eq!(stats.pairs_reported, 3);
    }

    #[test]
    fn sparse_ids_from_an_iterator() {
        let items: Vec<(u32, Vec<u64>)> = vec![(100, vec![1, 2]), (7, vec![1, 2, 3]), (50, vec![])];
        let mut got = Vec::new();
        collect(items.iter().map(|(d, s)| (*d, s.as_slice())), &config(1 << 20, 10, 0.5), |p| {
            got.push(p);
            true
        })
        .unwrap();
        assert_eq!(
            got,
            vec![BroderPair { a: 7, b: 100, shared: 2, estimate: 1.0, grouped: false }]
        );
    }

    #[test]
    fn invalid_input_is_an_error_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(256, 10, 0.5);
        cfg.tmp_dir = Some(dir.path().to_path_buf());
        // Enough good records to write runs first, then an unsorted sketch.
        let mut sketches = collection(5, 100, 10);
        sketches.push(vec![3, 2]);
        let err = collect_pairs(&sketches, &cfg).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(is_empty_dir(dir.path()));
        // A repeated document id.
        let items = [(1u32, &[1u64, 2][..]), (1, &[3][..])];
        assert!(collect(items, &cfg, |_| true).is_err());
        // A threshold out of range.
        cfg.threshold = 1.5;
        assert!(collect_pairs(&[vec![1]], &cfg).is_err());
    }

    #[test]
    fn panic_in_the_sink_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(512, 50, 0.0);
        cfg.tmp_dir = Some(dir.path().to_path_buf());
        let sketches = collection(9, 200, 12);
        let result = std::panic::catch_unwind(|| {
            let items = sketches.iter().enumerate().map(|(i, s)| (i as u32, s.as_slice()));
            collect(items, &cfg, |_| panic!("sink failed"))
        });
        assert!(result.is_err());
        assert!(is_empty_dir(dir.path()));
    }
}
