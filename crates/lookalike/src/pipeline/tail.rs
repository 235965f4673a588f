//! The pipeline's last steps, once verified pairs of heads are known. Contract: "give me each
//! document's exact group and the verified pairs of groups, I list the pairs, cluster the groups,
//! choose the representatives, score the members through your similarity oracle and give every
//! document its fate".
//!
//! [`DedupRun`](super::DedupRun) runs these steps over its store; the Ray job's clustering task
//! runs them over the edges it was streamed, so both decide the same way:
//!
//! ```text
//! ExactGroups ─► list_pairs ─► cluster_groups ─► choose_representatives ─► assemble_clusters ─► fates
//!                 (pairs)        (nodes: exact     (Keep)                    (SimilarityOracle)
//!                                 groups, in the
//!                                 order Keep implies)
//! ```

use std::cmp::Reverse;

use rayon::prelude::*;

use super::outcome::{
    Cluster, ClusterMember, Contained, DocStatus, MatchKind, ScoredPair, SkipReason,
    list_exact_group,
};
use crate::cluster::{ClusterMode, Graph, Keep};
use crate::document::DocId;
use crate::method::Slot;

/// Marks a document that is in no exact group (skipped).
const NONE: u32 = u32::MAX;

/// The documents of every exact group (a head and its copies), by slot: the head first, then its
/// copies in input order; and the slot of every document.
#[derive(Debug, Clone, Default)]
pub struct ExactGroups {
    /// Slot of each document, [`NONE`] when skipped.
    slot: Vec<u32>,
    /// Where each slot's documents start in `docs` (one more entry than slots).
    starts: Vec<usize>,
    docs: Vec<DocId>,
}

impl ExactGroups {
    /// The groups of `heads` slots, given the slot of every document in input order (`None`: a
    /// skipped document). A slot's head must be its first document in input order.
    pub fn new(heads: usize, slots: impl IntoIterator<Item = Option<Slot>>) -> ExactGroups {
        let slot: Vec<u32> = slots.into_iter().map(|s| s.map_or(NONE, |s| s.0)).collect();
        let mut starts = vec![0usize; heads + 1];
        for &s in slot.iter().filter(|&&s| s != NONE) {
            starts[s as usize + 1] += 1;
        }
        for s in 0..heads {
            starts[s + 1] += starts[s];
        }
        let mut next = starts.clone();
        let mut docs = vec![DocId(0); starts[heads]];
        // In input order, so a head (which precedes its copies) comes first in its group.
        for (d, &s) in slot.iter().enumerate().filter(|(_, s)| **s != NONE) {
            docs[next[s as usize]] = DocId(d as u32);
            next[s as usize] += 1;
        }
        ExactGroups { slot, starts, docs }
    }

    /// Number of groups (slots).
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// True when no document is in a group.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of documents, skipped ones included.
    pub fn documents(&self) -> usize {
        self.slot.len()
    }

    /// The documents of group `slot`: its head, then its copies in input order.
    pub fn of(&self, slot: Slot) -> &[DocId] {
        &self.docs[self.starts[slot.index()]..self.starts[slot.index() + 1]]
    }

    /// The head (first document) of group `slot`.
    pub fn head(&self, slot: Slot) -> DocId {
        self.of(slot)[0]
    }

    /// The group of `doc`, `None` when it was skipped.
    pub fn slot(&self, doc: DocId) -> Option<Slot> {
        let s = self.slot[doc.index()];
        (s != NONE).then_some(Slot(s))
    }

    /// The slots, in order.
    fn slots(&self) -> impl Iterator<Item = Slot> + use<> {
        (0..self.len() as u32).map(Slot)
    }
}

/// How two exact copies matched: the same bytes when both documents have their head's raw bytes
/// (`bytes_a`, `bytes_b`; a head has its own), else the same normalized text.
pub fn exact_match(bytes_a: bool, bytes_b: bool) -> MatchKind {
    if bytes_a && bytes_b { MatchKind::ExactBytes } else { MatchKind::ExactText }
}

/// A verified pair of exact groups (slots `a` < `b`) with its similarity, and with containment
/// the direction of the pair of their heads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NearPair {
    /// The earlier group.
    pub a: Slot,
    /// The later group.
    pub b: Slot,
    /// Their similarity.
    pub similarity: f64,
    /// With containment: which head is contained in the other.
    pub contained: Option<Contained>,
}

/// What the bound on pairs per group left out of the pairs list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairListing {
    /// Groups over the bound: an exact group listed as its head with each copy, or a verified
    /// pair of groups listed as the pair of their heads.
    pub groups_over_bound: u64,
    /// Pairs of those groups not listed.
    pub pairs_not_listed: u64,
}

/// The pairs `dedup --pairs` lists, sorted by (a, b): every pair of documents of an exact group
/// (of the match kind `exact_kind` gives), and every pair of documents of two verified groups
/// (with the Hamming distance `hamming` gives for their heads' slots); a group of more than
/// `bound` pairs is listed by its heads only (see [`list_exact_group`]).
pub fn list_pairs(
    groups: &ExactGroups,
    near: &[NearPair],
    bound: u64,
    exact_kind: impl Fn(DocId, DocId) -> MatchKind,
    hamming: impl Fn(Slot, Slot) -> Option<u32>,
) -> (Vec<ScoredPair>, PairListing) {
    let mut listing = PairListing::default();
    let mut pairs = Vec::new();
    for group in groups.slots().map(|s| groups.of(s)).filter(|g| g.len() > 1) {
        if let Some(left_out) = list_exact_group(group, bound, &exact_kind, &mut pairs) {
            listing.groups_over_bound += 1;
            listing.pairs_not_listed += left_out;
        }
    }
    for p in near {
        let hamming = hamming(p.a, p.b);
        let (ga, gb) = (groups.of(p.a), groups.of(p.b));
        let all = ga.len() as u64 * gb.len() as u64;
        let near_pair = |a: DocId, b: DocId| {
            // Heads are in input order, but a copy of the first may follow the second head.
            let (a, b, contained) = if a < b {
                (a, b, p.contained)
            } else {
                (b, a, p.contained.map(Contained::flipped))
            };
            ScoredPair { a, b, similarity: p.similarity, kind: MatchKind::Near, contained, hamming }
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
    (pairs, listing)
}

/// The order in which the greedy cluster modes visit the groups, the order `keep` implies: input
/// order of the heads (`first`), or each group's longest document (ties: the first), longest
/// first (`longest`); `text_len` gives a document's text length.
pub fn visiting_order(
    keep: Keep,
    groups: &ExactGroups,
    text_len: impl Fn(DocId) -> u64,
) -> Vec<u32> {
    let mut order: Vec<u32> = (0..groups.len() as u32).collect();
    match keep {
        // Heads are numbered in input order, and a head precedes its copies.
        Keep::First => {}
        Keep::Longest => {
            let best: Vec<(u64, Reverse<u32>)> = groups
                .slots()
                .map(|s| {
                    let longest = groups.of(s).iter().map(|&d| (text_len(d), Reverse(d.0)));
                    longest.max().unwrap_or((0, Reverse(0)))
                })
                .collect();
            order.sort_unstable_by_key(|&s| Reverse(best[s as usize]));
        }
    }
    order
}

/// The cluster label of every group (numbered from 0): `mode` over the graph of the groups whose
/// edges are the verified pairs `edges` (slots), visited in the order `keep` implies, each group
/// weighing its documents.
pub fn cluster_labels(
    mode: ClusterMode,
    keep: Keep,
    groups: &ExactGroups,
    edges: &[(u32, u32)],
    text_len: impl Fn(DocId) -> u64,
) -> Vec<u32> {
    let graph = Graph::new(groups.len(), edges);
    let weight: Vec<u32> = groups.slots().map(|s| groups.of(s).len() as u32).collect();
    let order = visiting_order(keep, groups, text_len);
    mode.cluster(&graph, &order, &weight)
}

/// The clusters of at least two documents given each group's label, each in input order, ordered
/// by their first document.
pub fn clusters_of_labels(groups: &ExactGroups, labels: &[u32]) -> Vec<Vec<DocId>> {
    let k = labels.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut by_label: Vec<Vec<DocId>> = vec![Vec::new(); k];
    for d in 0..groups.documents() as u32 {
        if let Some(slot) = groups.slot(DocId(d)) {
            by_label[labels[slot.index()] as usize].push(DocId(d));
        }
    }
    let mut clusters: Vec<Vec<DocId>> = by_label.into_iter().filter(|g| g.len() > 1).collect();
    clusters.sort_unstable_by_key(|g| g[0]);
    clusters
}

/// A cluster whose representative is chosen and whose members' similarities are not yet known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Every document of the cluster, representative included, in input order.
    pub documents: Vec<DocId>,
    /// The document kept.
    pub representative: DocId,
}

/// The document `keep` keeps among `documents` (in input order): the first, or the longest (ties:
/// the first of them).
pub fn representative(keep: Keep, documents: &[DocId], text_len: impl Fn(DocId) -> u64) -> DocId {
    match keep {
        Keep::First => documents[0],
        Keep::Longest => {
            *documents.iter().max_by_key(|&&m| (text_len(m), Reverse(m))).unwrap_or(&documents[0])
        }
    }
}

/// Each cluster with the representative `keep` chooses.
pub fn choose_representatives(
    clusters: Vec<Vec<DocId>>,
    keep: Keep,
    text_len: impl Fn(DocId) -> u64,
) -> Vec<Group> {
    clusters
        .into_iter()
        .map(|documents| {
            let representative = representative(keep, &documents, &text_len);
            Group { documents, representative }
        })
        .collect()
}

/// The similarity of a cluster member to its representative, when they are not exact copies.
pub trait SimilarityOracle: Sync {
    /// Per-thread working memory.
    type Scratch: Default + Send;
    /// Why a similarity could not be computed.
    type Error: Send;

    /// The similarity of the head of group `member` to the head of group `representative`
    /// (with containment: the member's containment in the representative).
    fn similarity(
        &self,
        representative: Slot,
        member: Slot,
        scratch: &mut Self::Scratch,
    ) -> Result<f64, Self::Error>;
}

/// The (representative, member) pairs of groups whose similarity [`assemble_clusters`] asks the
/// oracle for: every member of a cluster that is not an exact copy of its representative, in
/// cluster order.
pub fn oracle_pairs<'a>(
    clusters: &'a [Group],
    groups: &'a ExactGroups,
) -> impl Iterator<Item = (Slot, Slot)> + 'a {
    let slot = |d: DocId| groups.slot(d).expect("clustered documents are in an exact group");
    clusters.iter().flat_map(move |g| {
        let rep = slot(g.representative);
        g.documents.iter().map(move |&m| slot(m)).filter(move |&m| m != rep).map(move |m| (rep, m))
    })
}

/// The clusters with their members' similarities (in parallel): 1 and the kind `exact_kind`
/// gives for an exact copy of the representative, the oracle's similarity for the others.
pub fn assemble_clusters<O: SimilarityOracle>(
    clusters: &[Group],
    groups: &ExactGroups,
    exact_kind: impl Fn(DocId, DocId) -> MatchKind + Sync,
    oracle: &O,
) -> Result<Vec<Cluster>, O::Error> {
    let slot = |d: DocId| groups.slot(d).expect("clustered documents are in an exact group");
    clusters
        .par_iter()
        .map_init(O::Scratch::default, |scratch, g| {
            let rep = g.representative;
            let rep_slot = slot(rep);
            let mut members = Vec::with_capacity(g.documents.len() - 1);
            for m in g.documents.iter().copied().filter(|&m| m != rep) {
                let member_slot = slot(m);
                let (similarity, kind) = if member_slot == rep_slot {
                    (1.0, exact_kind(rep, m))
                } else {
                    (oracle.similarity(rep_slot, member_slot, scratch)?, MatchKind::Near)
                };
                members.push(ClusterMember { doc: m, similarity, kind });
            }
            Ok(Cluster { representative: rep, members })
        })
        .collect()
}

/// Every document's fate, in input order (skipped with the reason `skipped` gives, a duplicate of
/// its cluster's representative, else kept), and the number of duplicates.
pub fn fates(
    documents: usize,
    skipped: impl Fn(DocId) -> Option<SkipReason>,
    clusters: &[Cluster],
) -> (Vec<DocStatus>, u64) {
    let mut statuses: Vec<DocStatus> = (0..documents as u32)
        .map(|d| match skipped(DocId(d)) {
            Some(reason) => DocStatus::Skipped { reason },
            None => DocStatus::Kept,
        })
        .collect();
    let mut duplicates = 0;
    for c in clusters {
        for m in &c.members {
            duplicates += 1;
            statuses[m.doc.index()] = DocStatus::Duplicate {
                of: c.representative,
                similarity: m.similarity,
                kind: m.kind,
            };
        }
    }
    (statuses, duplicates)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Documents 0..7: 0 and 3 skipped; groups {1, 4, 6}, {2}, {5}.
    fn groups() -> ExactGroups {
        let slots = [None, Some(0), Some(1), None, Some(0), Some(2), Some(0)];
        ExactGroups::new(3, slots.map(|s| s.map(Slot)))
    }

    fn docs(ids: &[u32]) -> Vec<DocId> {
        ids.iter().map(|&d| DocId(d)).collect()
    }

    #[test]
    fn exact_groups_list_the_head_then_the_copies_in_input_order() {
        let g = groups();
        assert_eq!((g.len(), g.documents()), (3, 7));
        assert_eq!(g.of(Slot(0)), docs(&[1, 4, 6]));
        assert_eq!(g.of(Slot(1)), docs(&[2]));
        assert_eq!(g.head(Slot(2)), DocId(5));
        assert_eq!((g.slot(DocId(0)), g.slot(DocId(6))), (None, Some(Slot(0))));
    }

    #[test]
    fn pairs_expand_groups_up_to_the_bound_and_count_what_they_leave_out() {
        let g = groups();
        let near = [NearPair { a: Slot(0), b: Slot(1), similarity: 0.9, contained: None }];
        let kind = |_: DocId, _: DocId| MatchKind::ExactText;
        let (pairs, listing) = list_pairs(&g, &near, 3, kind, |_, _| Some(4));
        let listed: Vec<(u32, u32, MatchKind)> =
            pairs.iter().map(|p| (p.a.0, p.b.0, p.kind)).collect();
        let (exact, near_kind) = (MatchKind::ExactText, MatchKind::Near);
        assert_eq!(
            listed,
            [
                (1, 2, near_kind),
                (1, 4, exact),
                (1, 6, exact),
                (2, 4, near_kind),
                (2, 6, near_kind),
                (4, 6, exact)
            ]
        );
        // A copy of the first group after the second head: the pair is turned around.
        assert!(
            pairs.iter().all(|p| p.a < p.b && (p.kind != MatchKind::Near || p.hamming == Some(4)))
        );
        assert_eq!(listing, PairListing::default());

        let (pairs, listing) = list_pairs(&g, &near, 2, kind, |_, _| None);
        assert_eq!(
            pairs.iter().map(|p| (p.a.0, p.b.0)).collect::<Vec<_>>(),
            [(1, 2), (1, 4), (1, 6)]
        );
        assert_eq!(listing, PairListing { groups_over_bound: 2, pairs_not_listed: 1 + 2 });
    }

    #[test]
    fn containment_directions_follow_the_documents_order() {
        let slots = [Some(0), Some(1), Some(0)];
        let g = ExactGroups::new(2, slots.map(|s| s.map(Slot)));
        let near = [NearPair {
            a: Slot(0),
            b: Slot(1),
            similarity: 0.9,
            contained: Some(Contained::AInB),
        }];
        let (pairs, _) = list_pairs(&g, &near, 10, |_, _| MatchKind::ExactBytes, |_, _| None);
        let dirs: Vec<_> = pairs
            .iter()
            .filter(|p| p.kind == MatchKind::Near)
            .map(|p| (p.a.0, p.b.0, p.contained))
            .collect();
        assert_eq!(dirs, [(0, 1, Some(Contained::AInB)), (1, 2, Some(Contained::BInA))]);
    }

    #[test]
    fn longest_visits_groups_by_their_longest_document_then_input_order() {
        let g = groups();
        let len = |d: DocId| [0, 5, 9, 0, 7, 9, 2][d.index()];
        assert_eq!(visiting_order(Keep::First, &g, len), [0, 1, 2]);
        assert_eq!(visiting_order(Keep::Longest, &g, len), [1, 2, 0]);
        assert_eq!(representative(Keep::Longest, &docs(&[1, 4, 6]), len), DocId(4));
        assert_eq!(representative(Keep::Longest, &docs(&[2, 5]), len), DocId(2));
        assert_eq!(representative(Keep::First, &docs(&[4, 6]), len), DocId(4));
    }

    #[test]
    fn clusters_hold_whole_groups_in_input_order() {
        let g = groups();
        let labels = cluster_labels(ClusterMode::Connected, Keep::First, &g, &[(1, 2)], |_| 0);
        let clusters = clusters_of_labels(&g, &labels);
        assert_eq!(clusters, [docs(&[1, 4, 6]), docs(&[2, 5])]);
    }

    /// An oracle that records what it was asked for.
    struct Recorded(std::sync::Mutex<Vec<(Slot, Slot)>>);

    impl SimilarityOracle for Recorded {
        type Scratch = ();
        type Error = ();
        fn similarity(&self, rep: Slot, member: Slot, _: &mut ()) -> Result<f64, ()> {
            self.0.lock().unwrap().push((rep, member));
            Ok(0.5)
        }
    }

    #[test]
    fn members_are_scored_by_the_oracle_unless_exact_copies_and_fates_follow() {
        let g = groups();
        let clusters = choose_representatives(vec![docs(&[1, 2, 4, 5, 6])], Keep::First, |_| 0);
        let asked: Vec<_> = oracle_pairs(&clusters, &g).collect();
        assert_eq!(asked, [(Slot(0), Slot(1)), (Slot(0), Slot(2))]);
        let oracle = Recorded(Default::default());
        let kind = |_: DocId, b: DocId| exact_match(true, b != DocId(6));
        let out = assemble_clusters(&clusters, &g, kind, &oracle).unwrap();
        assert_eq!(oracle.0.into_inner().unwrap(), asked);
        let members: Vec<_> =
            out[0].members.iter().map(|m| (m.doc.0, m.similarity, m.kind)).collect();
        assert_eq!(
            members,
            [
                (2, 0.5, MatchKind::Near),
                (4, 1.0, MatchKind::ExactBytes),
                (5, 0.5, MatchKind::Near),
                (6, 1.0, MatchKind::ExactText)
            ]
        );
        let skipped = |d: DocId| (d.0 == 0 || d.0 == 3).then_some(SkipReason::NoTokens);
        let (statuses, duplicates) = fates(7, skipped, &out);
        assert_eq!(duplicates, 4);
        assert_eq!(statuses[0], DocStatus::Skipped { reason: SkipReason::NoTokens });
        assert_eq!(statuses[1], DocStatus::Kept);
        assert_eq!(
            statuses[6],
            DocStatus::Duplicate { of: DocId(1), similarity: 1.0, kind: MatchKind::ExactText }
        );
    }
}
