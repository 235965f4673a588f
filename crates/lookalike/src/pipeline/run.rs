//! A run in progress. Contract: "give me batches in input order; at the end I verify, cluster
//! and push the results into a sink".

use std::cmp::Reverse;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::Dedup;
use super::outcome::{
    Cluster, ClusterMember, Contained, DedupOutcome, DedupStats, DocStatus, MatchKind, RunReport,
    SAMPLE_BAND, SAMPLE_BANDS_BELOW, SAMPLE_PER_BAND, ScoredPair, SkipReason, VerificationStats,
    list_exact_group,
};
use super::sink::{Collect, Sink};
use crate::candidates::lsh::decode_pair;
use crate::cluster::{Graph, Keep};
use crate::config::{DedupConfig, Measure};
use crate::document::{DocId, Document};
use crate::error::Error;
use crate::method::{Engine, MethodObject, Slot};
use crate::store::{ReadBuffers, ShingleStore};
use crate::verify::{Verify, intersection_size, jaccard};

#[derive(Debug, Clone)]
enum DocKind {
    Skipped(SkipReason),
    /// Head of an exact group; `slot` indexes the method's per-head data and the store.
    Head {
        slot: Slot,
    },
    /// Exact copy of head document `of`.
    Copy {
        of: DocId,
        bytes: bool,
    },
}

/// The earlier document a document is a byte copy of.
#[derive(Debug, Clone, Copy)]
enum Earlier {
    /// A head of an earlier batch.
    Head(DocId),
    /// The document at this index of the same batch.
    InBatch(usize),
}

#[derive(Debug)]
struct DocMeta {
    id: String,
    text_len: u64,
    kind: DocKind,
}

/// A candidate pair of slots (`a < b`, encoded `a << 32 | b`) with the method's estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Candidate {
    pair: u64,
    estimate: f64,
    /// Whether the method itself calls the pair a duplicate (its own decision, used when
    /// verification is `estimate`).
    accepted: bool,
}

/// A run in progress: add batches, then [`finish`](DedupRun::finish) or
/// [`finish_into`](DedupRun::finish_into) a [`Sink`].
#[derive(Debug)]
pub struct DedupRun<'a> {
    dedup: &'a Dedup,
    docs: Vec<DocMeta>,
    /// Text fingerprint → (head document, its raw fingerprint).
    exact: HashMap<u128, (DocId, Option<u128>)>,
    /// Raw fingerprint → head document with those bytes.
    raw_heads: HashMap<u128, DocId>,
    /// Document index of every head, by slot.
    heads: Vec<DocId>,
    /// The method and its per-head data.
    engine: Box<dyn Engine>,
    store: Option<ShingleStore>,
    bytes: u64,
    progress: VerifyProgress,
}

/// How far verification is, readable from another thread while a run finishes: the candidate
/// pairs verified so far and the candidate pairs to verify. Clones share the counts.
#[derive(Debug, Clone, Default)]
pub struct VerifyProgress(Arc<[AtomicU64; 2]>);

impl VerifyProgress {
    /// `(verified, to_verify)`: `(0, 0)` until verification starts, then pairs verified so far of
    /// the run's candidate pairs.
    pub fn get(&self) -> (u64, u64) {
        let to_verify = self.0[1].load(Ordering::Relaxed);
        (self.0[0].load(Ordering::Relaxed).min(to_verify), to_verify)
    }

    fn start(&self, to_verify: u64) {
        self.0[0].store(0, Ordering::Relaxed);
        self.0[1].store(to_verify, Ordering::Relaxed);
    }

    fn add(&self, verified: u64) {
        self.0[0].fetch_add(verified, Ordering::Relaxed);
    }
}

impl<'a> DedupRun<'a> {
    pub(super) fn new(dedup: &'a Dedup) -> Result<DedupRun<'a>, Error> {
        let c = &dedup.config;
        let engine = c.method.build(c)?;
        let store = match (engine.method().compares(), c.verify) {
            (true, Verify::Exact) => Some(ShingleStore::new(c.spill_dir.as_deref(), c.memory)?),
            _ => None,
        };
        Ok(DedupRun {
            dedup,
            docs: Vec::new(),
            exact: HashMap::new(),
            raw_heads: HashMap::new(),
            heads: Vec::new(),
            engine,
            store,
            bytes: 0,
            progress: VerifyProgress::default(),
        })
    }

    /// A handle on verification's progress, to read from another thread while
    /// [`finish_into_with`](Self::finish_into_with) runs.
    pub fn verify_progress(&self) -> VerifyProgress {
        self.progress.clone()
    }

    /// Documents added so far.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True before the first document.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Adds a batch of documents (in input order); they get the next input indices. Documents are
    /// processed in parallel on the current rayon pool, except byte copies (a document whose raw
    /// bytes equal an earlier head's or an earlier document's of the batch), whose fate is that
    /// of the document they copy without being normalized or shingled.
    pub fn add(&mut self, batch: Vec<Document>) -> Result<(), Error> {
        let earlier = self.earlier_bytes(&batch);
        let todo: Vec<&Document> =
            batch.iter().zip(&earlier).filter(|(_, e)| e.is_none()).map(|(d, _)| d).collect();
        let processed = self.engine.process(&self.dedup.shingler, &todo);
        drop(todo);
        let mut next = 0..processed.len();
        // Only the documents that will be heads go to the method: find them first (sequential,
        // cheap).
        let mut kinds: Vec<DocKind> = Vec::with_capacity(batch.len());
        // Heads: their index in the batch and in `processed`.
        let (mut new_heads, mut heads_processed) = (Vec::new(), Vec::new());
        for (doc, earlier) in batch.iter().zip(earlier) {
            let index = DocId((self.docs.len() + kinds.len()) as u32);
            let kind = match earlier {
                Some(Earlier::Head(of)) => DocKind::Copy { of, bytes: true },
                Some(Earlier::InBatch(i)) => match &kinds[i] {
                    DocKind::Head { .. } => {
                        DocKind::Copy { of: DocId((self.docs.len() + i) as u32), bytes: true }
                    }
                    other => other.clone(),
                },
                None => {
                    let k = next.next().expect("one processed document per document to do");
                    let p = &processed[k];
                    if p.shingles.is_empty() {
                        DocKind::Skipped(if p.empty_text {
                            SkipReason::EmptyText
                        } else {
                            SkipReason::NoTokens
                        })
                    } else if let Some(&(of, raw)) = self.exact.get(&p.fingerprint) {
                        let bytes = raw.is_some() && raw == doc.raw_fingerprint;
                        DocKind::Copy { of, bytes }
                    } else {
                        self.exact.insert(p.fingerprint, (index, doc.raw_fingerprint));
                        if let Some(raw) = doc.raw_fingerprint {
                            self.raw_heads.insert(raw, index);
                        }
                        let slot = Slot((self.heads.len() + new_heads.len()) as u32);
                        new_heads.push(kinds.len());
                        heads_processed.push(k);
                        DocKind::Head { slot }
                    }
                }
            };
            kinds.push(kind);
        }
        self.engine.push_heads(&heads_processed, &processed);
        for (&i, &k) in new_heads.iter().zip(&heads_processed) {
            self.heads.push(DocId((self.docs.len() + i) as u32));
            if let Some(store) = &mut self.store {
                store.push(&processed[k].shingles)?;
            }
        }
        self.engine.recycle(processed);
        for (doc, kind) in batch.into_iter().zip(kinds) {
            self.bytes += doc.raw_len;
            self.docs.push(DocMeta { id: doc.id, text_len: doc.text.len() as u64, kind });
        }
        Ok(())
    }

    /// For each document of `batch`, the earlier document with the same raw fingerprint (the same
    /// bytes, so the same text; the text's length is compared too): a head of an earlier batch,
    /// or the first such document of this batch. Such documents are not normalized nor shingled
    /// again: crawls fetch the same page many times.
    fn earlier_bytes(&self, batch: &[Document]) -> Vec<Option<Earlier>> {
        let mut first_here: HashMap<u128, usize> = HashMap::new();
        batch
            .iter()
            .enumerate()
            .map(|(i, doc)| {
                let raw = doc.raw_fingerprint?;
                if let Some(&head) = self.raw_heads.get(&raw) {
                    let same_len = self.docs[head.index()].text_len == doc.text.len() as u64;
                    return same_len.then_some(Earlier::Head(head));
                }
                match first_here.entry(raw) {
                    Entry::Occupied(e) => {
                        let j = *e.get();
                        (batch[j].text.len() == doc.text.len()).then_some(Earlier::InBatch(j))
                    }
                    Entry::Vacant(e) => {
                        e.insert(i);
                        None
                    }
                }
            })
            .collect()
    }

    /// Runs candidates, verification and clustering; collects the results in memory.
    pub fn finish(self) -> Result<DedupOutcome, Error> {
        self.finish_with(&mut |_| {})
    }

    /// Like [`finish`](Self::finish), calling `phase` with a short description before each phase.
    pub fn finish_with(self, phase: &mut dyn FnMut(&str)) -> Result<DedupOutcome, Error> {
        let mut collect = Collect::default();
        let report = self.finish_into_with(&mut collect, phase)?;
        Ok(DedupOutcome {
            ids: report.ids,
            statuses: collect.statuses,
            pairs: collect.pairs,
            clusters: collect.clusters,
            stats: report.stats,
            unsigned: report.unsigned,
        })
    }

    /// Runs candidates, verification and clustering, pushing every verified pair, cluster and
    /// document fate into `sink` as they are decided (see [`Sink`] for the order); returns the
    /// ids, the counts and the unsigned documents.
    pub fn finish_into<S: Sink>(self, sink: &mut S) -> Result<RunReport, S::Error> {
        self.finish_into_with(sink, &mut |_| {})
    }

    /// Like [`finish_into`](Self::finish_into), calling `phase` with a short description before
    /// each phase.
    pub fn finish_into_with<S: Sink>(
        mut self,
        sink: &mut S,
        phase: &mut dyn FnMut(&str),
    ) -> Result<RunReport, S::Error> {
        let d = self.dedup;
        let c = &d.config;
        if let Some(store) = &mut self.store {
            store.seal().map_err(Error::from)?;
        }

        phase(self.engine.method().phase());
        self.engine.method_mut().prepare()?;
        let method = self.engine.method();
        let mut pairs = Vec::new();
        let report =
            method.candidates(&mut |a, b| pairs.push((u64::from(a.0) << 32) | u64::from(b.0)))?;
        let mut cand_stats = report.candidates;
        cand_stats.pairs = pairs.len() as u64;
        let candidates: Vec<Candidate> = pairs
            .par_iter()
            .map(|&pair| {
                let (a, b) = decode_pair(pair);
                let estimate = method.estimate(Slot(a), Slot(b));
                Candidate { pair, estimate, accepted: method.accepts(estimate) }
            })
            .collect();

        // Counted before the phase is announced, so that its callback can read what is to come.
        self.progress.start(candidates.len() as u64);
        phase("verifying candidate pairs");
        if let Some(store) = &mut self.store {
            // Each set verification reads, sorted once (clusters compare only such documents).
            // A document is read about once per candidate pair it is in, by verification and
            // then by clustering: what decides which sets a spilled store keeps in memory.
            let mut reads = vec![0u32; self.heads.len()];
            for cand in &candidates {
                let (a, b) = decode_pair(cand.pair);
                reads[a as usize] = reads[a as usize].saturating_add(1);
                reads[b as usize] = reads[b as usize].saturating_add(1);
            }
            store.sort_sets(&reads).map_err(Error::from)?;
        }
        let similarity = Similarity { method, config: c, store: self.store.as_ref() };
        let (near, mut verification) = similarity.verify_pairs(&candidates, &self.progress)?;
        for (a, b, _) in &mut verification.rejected_sample {
            (*a, *b) = (self.heads[a.index()], self.heads[b.index()]);
        }

        phase("clustering");
        let n = self.docs.len();
        let bound = c.max_pairs_per_group;
        let members = ExactGroups::new(&self.docs, &self.heads);
        let mut listing = PairListing::default();
        let mut pairs = Vec::new();
        for group in (0..self.heads.len()).map(|s| members.of(s)).filter(|g| g.len() > 1) {
            let kind = |a, b| exact_kind(&self.docs, a, b);
            if let Some(left_out) = list_exact_group(group, bound, kind, &mut pairs) {
                listing.groups_over_bound += 1;
                listing.pairs_not_listed += left_out;
            }
        }
        let mut edges = Vec::with_capacity(near.len());
        for &(sa, sb, sim, contained) in &near {
            edges.push((sa.0, sb.0));
            let hamming = method.hamming(sa, sb);
            let (ga, gb) = (members.of(sa.index()), members.of(sb.index()));
            let all = ga.len() as u64 * gb.len() as u64;
            let near_pair = |a: DocId, b: DocId| {
                // Heads are in input order, but a copy of the first may follow the second head.
                let (a, b, contained) = if a < b {
                    (a, b, contained)
                } else {
                    (b, a, contained.map(Contained::flipped))
                };
                ScoredPair { a, b, similarity: sim, kind: MatchKind::Near, contained, hamming }
            };
            if all <= bound {
                for &a in ga {
                    pairs.extend(gb.iter().map(|&b| near_pair(a, b)));
                }
            } else {
                pairs.push(near_pair(ga[0], gb[0]));
                listing.groups_over_bound += 1;
                listing.pairs_not_listed += all - 1;
            }
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));

        let docs = &self.docs;
        let head_slot = |doc: DocId| -> Option<Slot> {
            match docs[doc.index()].kind {
                DocKind::Head { slot } => Some(slot),
                DocKind::Copy { of, .. } => match docs[of.index()].kind {
                    DocKind::Head { slot } => Some(slot),
                    DocKind::Copy { .. } | DocKind::Skipped(_) => None,
                },
                DocKind::Skipped(_) => None,
            }
        };
        let groups = self.groups(&edges, c, &members, &head_slot);
        let head_slot = |doc: DocId| -> Slot {
            head_slot(doc).unwrap_or_else(|| unreachable!("clustered documents have a head"))
        };
        let clusters: Vec<Cluster> = groups
            .par_iter()
            .map_init(SetBuffers::default, |buf, group| -> Result<Cluster, Error> {
                // Union-find works on bare input indices.
                let rep = DocId(match c.keep {
                    Keep::First => group[0],
                    Keep::Longest => *group
                        .iter()
                        .max_by_key(|&&m| (docs[m as usize].text_len, Reverse(m)))
                        .unwrap_or(&group[0]),
                });
                let rep_slot = head_slot(rep);
                let mut members = Vec::with_capacity(group.len() - 1);
                for m in group.iter().map(|&m| DocId(m)).filter(|&m| m != rep) {
                    let slot = head_slot(m);
                    let (similarity, kind) = if slot == rep_slot {
                        (1.0, exact_kind(docs, rep, m))
                    } else {
                        (similarity.to_representative(rep_slot, slot, buf)?, MatchKind::Near)
                    };
                    members.push(ClusterMember { doc: m, similarity, kind });
                }
                Ok(Cluster { representative: rep, members })
            })
            .collect::<Result<_, _>>()?;

        let mut statuses: Vec<DocStatus> = self
            .docs
            .iter()
            .map(|m| match m.kind {
                DocKind::Skipped(reason) => DocStatus::Skipped { reason },
                DocKind::Head { .. } | DocKind::Copy { .. } => DocStatus::Kept,
            })
            .collect();
        let mut duplicates = 0;
        for c in &clusters {
            for m in &c.members {
                duplicates += 1;
                statuses[m.doc.index()] = DocStatus::Duplicate {
                    of: c.representative,
                    similarity: m.similarity,
                    kind: m.kind,
                };
            }
        }

        let stats = DedupStats {
            documents: n as u64,
            skipped: self.docs.iter().filter(|m| matches!(m.kind, DocKind::Skipped(_))).count()
                as u64,
            exact_duplicates: self
                .docs
                .iter()
                .filter(|m| matches!(m.kind, DocKind::Copy { .. }))
                .count() as u64,
            sketched: self.heads.len() as u64,
            candidates: cand_stats,
            near_pairs: near.len() as u64,
            pairs: pairs.len() as u64,
            pair_groups_over_bound: listing.groups_over_bound,
            pairs_not_listed: listing.pairs_not_listed,
            clusters: clusters.len() as u64,
            duplicates,
            bytes: self.bytes,
            spill_bytes: self.store.as_ref().map_or(0, ShingleStore::disk_bytes),
            lsh: report.lsh,
            method: report.method,
            verification,
        };
        let unsigned: Vec<(DocId, String)> = method
            .unsigned()
            .iter()
            .map(|(slot, reason)| (self.heads[slot.index()], reason.clone()))
            .collect();
        let ids: Vec<String> = self.docs.into_iter().map(|m| m.id).collect();
        let stopped = !deliver(sink, &ids, &pairs, &clusters, &unsigned, &statuses)?;
        Ok(RunReport { ids, stats, unsigned, stopped })
    }
}

impl DedupRun<'_> {
    /// The clusters of documents (input indices) of at least two members, each in input order,
    /// ordered by their smallest member. The nodes clustered are the exact-copy groups (a head and
    /// its copies always share a cluster), visited in the order `keep` implies, so that the
    /// representative `keep` picks in a cluster is its first node in that order.
    fn groups(
        &self,
        edges: &[(u32, u32)],
        c: &DedupConfig,
        members: &ExactGroups,
        head_slot: &dyn Fn(DocId) -> Option<Slot>,
    ) -> Vec<Vec<u32>> {
        let h = self.heads.len();
        let graph = Graph::new(h, edges);
        // Per node (exact group): documents in it, and its longest member (ties: the first), as
        // `Keep::Longest` picks it.
        let weight: Vec<u32> = (0..h).map(|s| members.of(s).len() as u32).collect();
        let best: Vec<(u64, Reverse<u32>)> = (0..h)
            .map(|s| {
                let longest =
                    members.of(s).iter().map(|&d| (self.docs[d.index()].text_len, Reverse(d.0)));
                longest.max().unwrap_or((0, Reverse(0)))
            })
            .collect();
        let mut order: Vec<u32> = (0..h as u32).collect();
        match c.keep {
            // Heads are numbered in input order, and a head precedes its copies.
            Keep::First => {}
            Keep::Longest => order.sort_unstable_by_key(|&s| Reverse(best[s as usize])),
        }
        let label = c.cluster.cluster(&graph, &order, &weight);
        let k = label.iter().copied().max().map_or(0, |m| m as usize + 1);
        let mut by_label: Vec<Vec<u32>> = vec![Vec::new(); k];
        for i in 0..self.docs.len() {
            if let Some(slot) = head_slot(DocId(i as u32)) {
                by_label[label[slot.index()] as usize].push(i as u32);
            }
        }
        let mut groups: Vec<Vec<u32>> = by_label.into_iter().filter(|g| g.len() > 1).collect();
        groups.sort_unstable_by_key(|g| g[0]);
        groups
    }
}

/// Pushes the results into the sink in its order; `false` when it stopped the delivery.
fn deliver<S: Sink>(
    sink: &mut S,
    ids: &[String],
    pairs: &[ScoredPair],
    clusters: &[Cluster],
    unsigned: &[(DocId, String)],
    statuses: &[DocStatus],
) -> Result<bool, S::Error> {
    for pair in pairs {
        if !sink.pair(ids, pair)? {
            return Ok(false);
        }
    }
    for cluster in clusters {
        if !sink.cluster(ids, cluster)? {
            return Ok(false);
        }
    }
    for (doc, reason) in unsigned {
        if !sink.unsigned(ids, *doc, reason)? {
            return Ok(false);
        }
    }
    for (doc, status) in statuses.iter().enumerate() {
        if !sink.document(ids, DocId(doc as u32), status)? {
            return Ok(false);
        }
    }
    sink.finish()?;
    Ok(true)
}

fn exact_kind(docs: &[DocMeta], rep: DocId, member: DocId) -> MatchKind {
    let bytes_of = |d: DocId| match docs[d.index()].kind {
        DocKind::Copy { bytes, .. } => bytes,
        DocKind::Head { .. } | DocKind::Skipped(_) => true,
    };
    if bytes_of(rep) && bytes_of(member) { MatchKind::ExactBytes } else { MatchKind::ExactText }
}

/// The documents of every exact group, by slot: its head, then its copies in input order (one
/// flat array with offsets).
struct ExactGroups {
    starts: Vec<usize>,
    docs: Vec<DocId>,
}

impl ExactGroups {
    fn new(docs: &[DocMeta], heads: &[DocId]) -> ExactGroups {
        let slot_of = |i: usize| match docs[i].kind {
            DocKind::Head { slot } => Some(slot),
            DocKind::Copy { of, .. } => match docs[of.index()].kind {
                DocKind::Head { slot } => Some(slot),
                DocKind::Copy { .. } | DocKind::Skipped(_) => None,
            },
            DocKind::Skipped(_) => None,
        };
        let mut starts = vec![0usize; heads.len() + 1];
        for i in 0..docs.len() {
            if let Some(slot) = slot_of(i) {
                starts[slot.index() + 1] += 1;
            }
        }
        for s in 0..heads.len() {
            starts[s + 1] += starts[s];
        }
        let mut next = starts.clone();
        let mut out = vec![DocId(0); starts[heads.len()]];
        // In input order, so a head (which precedes its copies) comes first in its group.
        for i in 0..docs.len() {
            if let Some(slot) = slot_of(i) {
                out[next[slot.index()]] = DocId(i as u32);
                next[slot.index()] += 1;
            }
        }
        ExactGroups { starts, docs: out }
    }

    fn of(&self, slot: usize) -> &[DocId] {
        &self.docs[self.starts[slot]..self.starts[slot + 1]]
    }
}

/// What the bound on pairs per group left out of the pairs list.
#[derive(Debug, Default)]
struct PairListing {
    groups_over_bound: u64,
    pairs_not_listed: u64,
}

#[derive(Default)]
struct SetBuffers {
    a: Vec<u64>,
    b: Vec<u64>,
    read: ReadBuffers,
}

/// splitmix64's finaliser: a well-spread rank for drawing a sample.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A verified pair of slots: `(a, b, similarity, containment direction)`.
type Verified = (Slot, Slot, f64, Option<Contained>);

/// Similarity between heads: exact from the shingle store, or the method's own estimate.
struct Similarity<'a> {
    method: &'a dyn MethodObject,
    config: &'a DedupConfig,
    store: Option<&'a ShingleStore>,
}

impl Similarity<'_> {
    /// Exact similarity of two sets under the configured measure, with the direction of a
    /// containment.
    fn exact(&self, a: &[u64], b: &[u64]) -> (f64, Option<Contained>) {
        match self.config.measure {
            Measure::Jaccard => (jaccard(a, b), None),
            Measure::Containment => {
                let inter = intersection_size(a, b) as f64;
                let ca = if a.is_empty() { 0.0 } else { inter / a.len() as f64 };
                let cb = if b.is_empty() { 0.0 } else { inter / b.len() as f64 };
                // Ties (equal sizes) read as the earlier document contained in the later one.
                if ca >= cb { (ca, Some(Contained::AInB)) } else { (cb, Some(Contained::BInA)) }
            }
        }
    }

    /// Similarity of a cluster member to its representative: resemblance, or with containment the
    /// containment of the member in the representative.
    fn to_representative(
        &self,
        rep: Slot,
        member: Slot,
        buf: &mut SetBuffers,
    ) -> Result<f64, Error> {
        match self.store {
            None => Ok(self.method.estimate(rep, member)),
            Some(store) => {
                store.read(rep.index(), &mut buf.a, &mut buf.read)?;
                store.read(member.index(), &mut buf.b, &mut buf.read)?;
                Ok(match self.config.measure {
                    Measure::Jaccard => jaccard(&buf.a, &buf.b),
                    Measure::Containment if buf.b.is_empty() => 0.0,
                    Measure::Containment => {
                        intersection_size(&buf.a, &buf.b) as f64 / buf.b.len() as f64
                    }
                })
            }
        }
    }

    /// Verifies sorted candidate pairs of slots; returns those at or above the threshold (exact
    /// verification) or those the method accepts (estimate), with what verification saw (the
    /// sample's pairs are slots here).
    fn verify_pairs(
        &self,
        candidates: &[Candidate],
        progress: &VerifyProgress,
    ) -> Result<(Vec<Verified>, VerificationStats), Error> {
        let threshold = self.config.threshold;
        let Some(store) = self.store else {
            let contained = |a: u32, b: u32| {
                (self.config.measure == Measure::Containment).then(|| {
                    // The estimate is the containment of the smaller sample.
                    if self.method.sample_len(Slot(a)) <= self.method.sample_len(Slot(b)) {
                        Contained::AInB
                    } else {
                        Contained::BInA
                    }
                })
            };
            let seen = candidates.iter().map(|c| (c.pair, c.estimate, c.accepted));
            let stats = self.verification_stats(seen);
            let near = candidates
                .iter()
                .filter(|cand| cand.accepted)
                .map(|cand| {
                    let (a, b) = decode_pair(cand.pair);
                    (Slot(a), Slot(b), cand.estimate, contained(a, b))
                })
                .collect();
            progress.add(candidates.len() as u64);
            return Ok((near, stats));
        };
        // Group by the first slot so each of its sets is read once.
        let groups: Vec<&[Candidate]> =
            candidates.chunk_by(|x, y| decode_pair(x.pair).0 == decode_pair(y.pair).0).collect();
        let verified: Vec<Vec<_>> = groups
            .par_iter()
            .map_init(SetBuffers::default, |buf, group| -> Result<_, Error> {
                let a = decode_pair(group[0].pair).0;
                let mut out = Vec::with_capacity(group.len());
                store.read(a as usize, &mut buf.a, &mut buf.read)?;
                for cand in group.iter() {
                    let b = decode_pair(cand.pair).1;
                    store.read(b as usize, &mut buf.b, &mut buf.read)?;
                    let (sim, contained) = self.exact(&buf.a, &buf.b);
                    out.push((Slot(a), Slot(b), sim, contained));
                }
                progress.add(group.len() as u64);
                Ok(out)
            })
            .collect::<Result<_, _>>()?;
        let all = verified.iter().flatten();
        let seen = all.map(|&(a, b, sim, _)| {
            ((u64::from(a.0) << 32) | u64::from(b.0), sim, sim >= threshold)
        });
        let stats = self.verification_stats(seen);
        let near = verified.into_iter().flatten().filter(|v| v.2 >= threshold).collect();
        Ok((near, stats))
    }

    /// The histogram, the rejected count and the rejected sample of verified candidates, given
    /// as `(pair, similarity, accepted)`.
    fn verification_stats(
        &self,
        seen: impl Iterator<Item = (u64, f64, bool)>,
    ) -> VerificationStats {
        let t = self.config.threshold;
        let mut stats = VerificationStats { histogram: vec![0; 101], ..Default::default() };
        // (band below the threshold, rank, pair, similarity) of rejected pairs near it.
        let mut near_misses: Vec<(usize, u64, u64, f64)> = Vec::new();
        for (pair, sim, accepted) in seen {
            stats.verified += 1;
            stats.histogram[VerificationStats::bin(sim)] += 1;
            if accepted {
                continue;
            }
            stats.rejected += 1;
            // Band 0 is [t − 0.05, t) (a hair of slack for floating point: 0.75 is in it at 0.8).
            let below = ((t - sim) / SAMPLE_BAND - 1e-9).ceil() - 1.0;
            if sim < t && below < SAMPLE_BANDS_BELOW as f64 {
                near_misses.push((
                    below.max(0.0) as usize,
                    mix(pair ^ self.config.seed),
                    pair,
                    sim,
                ));
            }
        }
        if stats.verified == 0 {
            stats.histogram.clear();
        }
        near_misses.sort_unstable_by_key(|x| (x.0, x.1, x.2));
        let mut sample: Vec<(usize, u64, f64)> = Vec::new();
        for band in near_misses.chunk_by(|x, y| x.0 == y.0) {
            sample.extend(band.iter().take(SAMPLE_PER_BAND).map(|&(b, _, p, s)| (b, p, s)));
        }
        sample.sort_unstable_by_key(|&(band, pair, _)| (band, pair));
        stats.rejected_sample = sample
            .into_iter()
            .map(|(_, pair, sim)| {
                let (a, b) = decode_pair(pair);
                (DocId(a), DocId(b), sim)
            })
            .collect();
        stats
    }
}
