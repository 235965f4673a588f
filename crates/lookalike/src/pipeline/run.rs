//! A run in progress. Contract: "give me batches in input order; at the end I verify, cluster
//! and push the results into a sink".

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use rayon::prelude::*;

use super::Dedup;
use super::outcome::{
    Cluster, DedupOutcome, DedupStats, DocStatus, MatchKind, RunReport, ScoredPair, SkipReason,
    VerificationStats,
};
use super::sink::{Collect, Sink};
use super::tail::{
    ExactGroups, NearPair, PairListing, assemble_clusters, choose_representatives, cluster_labels,
    clusters_of_labels, exact_match, fates, list_pairs,
};
use super::verification::{Candidate, Similarity, VerifyProgress};
use crate::candidates::lsh::decode_pair;
use crate::document::{DocId, Document};
use crate::error::Error;
use crate::method::{CandidateReport, Engine, Slot};
use crate::store::ShingleStore;
use crate::verify::Verify;

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
        if let Some(store) = &mut self.store {
            store.seal().map_err(Error::from)?;
        }
        phase(self.engine.method().phase());
        self.engine.method_mut().prepare()?;
        let (candidates, report) = self.candidates()?;

        // Counted before the phase is announced, so that its callback can read what is to come.
        self.progress.start(candidates.len() as u64);
        phase("verifying candidate pairs");
        self.sort_sets(&candidates)?;
        let (near, verification) = self.verify(&candidates)?;

        phase("clustering");
        let groups = self.exact_groups();
        let method = self.engine.method();
        let bound = self.dedup.config.max_pairs_per_group;
        let hamming = |a, b| method.hamming(a, b);
        let (pairs, listing) = list_pairs(&groups, &near, bound, self.exact_kind(), hamming);
        let clusters = self.clusters(&groups, &near)?;
        let docs = &self.docs;
        let skipped = |d: DocId| match docs[d.index()].kind {
            DocKind::Skipped(reason) => Some(reason),
            DocKind::Head { .. } | DocKind::Copy { .. } => None,
        };
        let (statuses, duplicates) = fates(docs.len(), skipped, &clusters);

        let decided =
            Decided { near: near.len(), pairs: &pairs, listing, clusters: &clusters, duplicates };
        let stats = self.stats(report, verification, &decided);
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

/// What the last steps decided, for the counts.
struct Decided<'a> {
    /// Verified pairs of heads.
    near: usize,
    pairs: &'a [ScoredPair],
    listing: PairListing,
    clusters: &'a [Cluster],
    duplicates: u64,
}

impl DedupRun<'_> {
    /// The method's candidate pairs of slots (sorted, as the method emits them) with its own
    /// estimates and decisions, and its report (the pairs counted).
    fn candidates(&self) -> Result<(Vec<Candidate>, CandidateReport), Error> {
        let method = self.engine.method();
        let mut pairs = Vec::new();
        let mut report =
            method.candidates(&mut |a, b| pairs.push((u64::from(a.0) << 32) | u64::from(b.0)))?;
        report.candidates.pairs = pairs.len() as u64;
        let candidates = pairs
            .par_iter()
            .map(|&pair| {
                let (a, b) = decode_pair(pair);
                let estimate = method.estimate(Slot(a), Slot(b));
                Candidate { pair, estimate, accepted: method.accepts(estimate) }
            })
            .collect();
        Ok((candidates, report))
    }

    /// Sorts, once, the shingle sets verification will read (exact verification only).
    fn sort_sets(&mut self, candidates: &[Candidate]) -> Result<(), Error> {
        if let Some(store) = &mut self.store {
            // Each set verification reads, sorted once (clusters compare only such documents).
            // A document is read about once per candidate pair it is in, by verification and
            // then by clustering: what decides which sets a spilled store keeps in memory.
            let mut reads = vec![0u32; self.heads.len()];
            for cand in candidates {
                let (a, b) = decode_pair(cand.pair);
                reads[a as usize] = reads[a as usize].saturating_add(1);
                reads[b as usize] = reads[b as usize].saturating_add(1);
            }
            store.sort_sets(&reads)?;
        }
        Ok(())
    }

    /// The similarity of two heads: exact from the store, or the method's estimate.
    fn similarity(&self) -> Similarity<'_> {
        Similarity {
            method: self.engine.method(),
            config: &self.dedup.config,
            store: self.store.as_ref(),
        }
    }

    /// The verified pairs of heads and what verification saw (its sample's pairs as documents).
    fn verify(
        &self,
        candidates: &[Candidate],
    ) -> Result<(Vec<NearPair>, VerificationStats), Error> {
        let (near, mut verification) =
            self.similarity().verify_pairs(candidates, &self.progress)?;
        for (a, b, _) in &mut verification.rejected_sample {
            (*a, *b) = (self.heads[a.index()], self.heads[b.index()]);
        }
        Ok((near, verification))
    }

    /// How two exact copies matched (the same bytes, or the same text).
    fn exact_kind(&self) -> impl Fn(DocId, DocId) -> MatchKind + Sync + '_ {
        let docs = &self.docs;
        move |a, b| exact_match(copied_bytes(docs, a), copied_bytes(docs, b))
    }

    /// The exact group (slot) of every document.
    fn exact_groups(&self) -> ExactGroups {
        let docs = &self.docs;
        ExactGroups::new(self.heads.len(), (0..docs.len()).map(|d| head_slot(docs, d)))
    }

    /// The clusters of at least two documents, ordered by their first, with their
    /// representatives and their members' similarities to them.
    fn clusters(&self, groups: &ExactGroups, near: &[NearPair]) -> Result<Vec<Cluster>, Error> {
        let c = &self.dedup.config;
        let docs = &self.docs;
        let text_len = |d: DocId| docs[d.index()].text_len;
        let edges: Vec<(u32, u32)> = near.iter().map(|p| (p.a.0, p.b.0)).collect();
        let labels = cluster_labels(c.cluster, c.keep, groups, &edges, text_len);
        let clusters =
            choose_representatives(clusters_of_labels(groups, &labels), c.keep, text_len);
        assemble_clusters(&clusters, groups, self.exact_kind(), &self.similarity())
    }

    /// The run's counts.
    fn stats(
        &self,
        report: CandidateReport,
        verification: VerificationStats,
        decided: &Decided<'_>,
    ) -> DedupStats {
        let count =
            |kind: fn(&DocKind) -> bool| self.docs.iter().filter(|m| kind(&m.kind)).count() as u64;
        DedupStats {
            documents: self.docs.len() as u64,
            skipped: count(|k| matches!(k, DocKind::Skipped(_))),
            exact_duplicates: count(|k| matches!(k, DocKind::Copy { .. })),
            sketched: self.heads.len() as u64,
            candidates: report.candidates,
            near_pairs: decided.near as u64,
            pairs: decided.pairs.len() as u64,
            pair_groups_over_bound: decided.listing.groups_over_bound,
            pairs_not_listed: decided.listing.pairs_not_listed,
            clusters: decided.clusters.len() as u64,
            duplicates: decided.duplicates,
            bytes: self.bytes,
            spill_bytes: self.store.as_ref().map_or(0, ShingleStore::disk_bytes),
            lsh: report.lsh,
            method: report.method,
            verification,
        }
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

/// The exact group of document `d`: its own slot for a head, its head's for a copy.
fn head_slot(docs: &[DocMeta], d: usize) -> Option<Slot> {
    match docs[d].kind {
        DocKind::Head { slot } => Some(slot),
        DocKind::Copy { of, .. } => match docs[of.index()].kind {
            DocKind::Head { slot } => Some(slot),
            DocKind::Copy { .. } | DocKind::Skipped(_) => None,
        },
        DocKind::Skipped(_) => None,
    }
}

/// Whether a document has its exact group head's bytes (a head has its own).
fn copied_bytes(docs: &[DocMeta], d: DocId) -> bool {
    match docs[d.index()].kind {
        DocKind::Copy { bytes, .. } => bytes,
        DocKind::Head { .. } | DocKind::Skipped(_) => true,
    }
}
