//! Ray stage 5: the one clustering task. Contract: "stream me the edges, the ids (and, with the
//! distributed components, each head's component); I cluster as the library does, ask for the
//! similarities my clusters need, and give you the documents table, the pairs and the counts".

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt8Type};
use arrow_array::{Array, RecordBatch};
use arrow_pyarrow::{PyArrowType, Table};
use arrow_schema::{DataType, Field, Schema};
use lookalike::pipeline::tail::{
    ExactGroups, Group, NearPair, PairListing, SimilarityOracle, assemble_clusters,
    choose_representatives, cluster_labels, clusters_of_labels, exact_match, fates, list_pairs,
    oracle_pairs,
};
use lookalike::{Contained, DedupConfig, DocId, Keep, ScoredPair, SkipReason, Slot};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{
    CANDIDATE, FREQUENT, FREQUENT_SHORT, LIST, LIST_SHORT, MEMBER, NEAR, SAMPLE, SHARED,
    SHARED_SHORT, SKIP, column, contained_of, int64s, ray_config,
};
use crate::errors::{arrow_err, value_err};
use crate::tables::{documents_batch, documents_schema, pairs_batch, pairs_schema};

/// Marks a document not seen yet, or skipped.
const NONE: u32 = u32::MAX;

/// Ray stage 5: the streamed edges, clustered as the library clusters them.
///
/// Components(n, threshold=0.8, keep=None, cluster=None, **options)
#[pyclass(module = "lookalike._lookalike")]
#[derive(Debug)]
pub struct Components {
    config: DedupConfig,
    /// Head of each document's exact group (`u32::MAX`: not seen, or skipped).
    head: Vec<u32>,
    /// Whether a document's raw bytes equal its head's.
    bytes: Vec<bool>,
    /// Text length (only with `keep="longest"`).
    len: Vec<u32>,
    skipped: HashMap<u32, SkipReason>,
    /// Near edges `(a, b, similarity, containment's direction)`.
    near: Vec<(u32, u32, f64, Option<Contained>)>,
    ids: Vec<Option<String>>,
    /// Similarities of pairs of heads asked for by [`Components::cluster`]: by `(smaller,
    /// larger)` head with Jaccard, by `(representative, member)` head with containment (the
    /// member's containment in the representative).
    asked: HashMap<(u32, u32), f64>,
    /// Component of each head (its smallest head), from the distributed connected components;
    /// with `cluster="connected"` these replace the union-find.
    components: Option<HashMap<u32, u32>>,
    state: Option<Clustered>,
}

/// What [`Components`] knows once it has clustered the graph.
#[derive(Debug)]
struct Clustered {
    ids: Vec<String>,
    /// The exact groups (slots: the heads in input order).
    groups: ExactGroups,
    /// Every listed pair, sorted.
    pairs: Vec<ScoredPair>,
    listing: PairListing,
    /// Distinct near edges between slots, with their similarities.
    edge_sim: HashMap<(u32, u32), f64>,
    /// The clusters of at least two documents, ordered by their first document, each with its
    /// representative.
    clusters: Vec<Group>,
}

/// The skip reason of its code in the edges table: a `ValueError` naming an unknown code.
fn skip_reason(code: Option<u8>) -> PyResult<SkipReason> {
    let code = code.ok_or_else(|| value_err("a skipped document without a reason code"))?;
    SkipReason::try_from(code).map_err(|e| value_err(e.to_string()))
}

#[pymethods]
impl Components {
    #[new]
    #[pyo3(signature = (n, threshold=0.8, keep=None, cluster=None, **options))]
    fn new(
        n: usize,
        threshold: f64,
        keep: Option<&str>,
        cluster: Option<&str>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Components> {
        if n >= NONE as usize {
            return Err(value_err(format!("{n} documents: at most {} in one run", NONE - 1)));
        }
        Components::with_config(n, ray_config(threshold, keep, cluster, options)?)
    }

    /// Adds a batch of [`super::bucket_edges`]' or [`super::verify_pairs`]' output.
    fn add_edges(&mut self, py: Python<'_>, batch: PyArrowType<RecordBatch>) -> PyResult<()> {
        let batch = batch.0;
        py.detach(|| self.add_edge_batch(&batch))
    }

    /// Adds the ids of a batch: an int64 index column and a string id column.
    #[pyo3(signature = (batch, id="id", index="__lookalike_index"))]
    fn add_ids(&mut self, batch: PyArrowType<RecordBatch>, id: &str, index: &str) -> PyResult<()> {
        self.add_id_batch(&batch.0, id, index)
    }

    /// Adds connected components computed elsewhere (`lookalike.ray.connected_components` over
    /// the near edges): int64 `node` and `component`, heads both. Only with `cluster="connected"`,
    /// whose clusters they then are (heads without a row are alone).
    fn add_components(&mut self, batch: PyArrowType<RecordBatch>) -> PyResult<()> {
        self.add_component_batch(&batch.0)
    }

    /// Clusters the graph (once) and returns the pairs whose similarity the clusters need but no
    /// verified edge gives: `(a, b)` int64 columns, the heads of a member's and of its
    /// representative's exact groups (smaller first). Empty with `center` and `clique`, whose
    /// members all have a verified pair with their representative; the similarities of these
    /// pairs go to [`add_similarities`](Components::add_similarities) before
    /// [`finish`](Components::finish).
    fn cluster(&mut self, py: Python<'_>) -> PyResult<PyArrowType<RecordBatch>> {
        py.detach(|| self.wanted_batch()).map(PyArrowType)
    }

    /// Adds similarities of pairs of heads ([`super::verify_pairs`] with `all=True` over the
    /// pairs [`cluster`](Components::cluster) asked for): int64 `a`, `b` and float64
    /// `similarity`.
    fn add_similarities(&mut self, batch: PyArrowType<RecordBatch>) -> PyResult<()> {
        self.add_similarity_batch(&batch.0)
    }

    /// Clusters, lists the pairs and the fates; returns (documents table, pairs table, stats
    /// JSON) as `lookalike.dedup` does.
    fn finish(
        &mut self,
        py: Python<'_>,
    ) -> PyResult<(PyArrowType<Table>, PyArrowType<Table>, String)> {
        let (documents, pairs, stats) = py.detach(|| self.finished())?;
        let documents = Table::try_new(vec![documents], documents_schema()).map_err(arrow_err)?;
        let pairs = Table::try_new(vec![pairs], pairs_schema()).map_err(arrow_err)?;
        Ok((PyArrowType(documents), PyArrowType(pairs), stats))
    }
}

/// The methods of [`Components`] without Python, in the order the Ray job calls them.
impl Components {
    /// The clustering task of `n` documents under a checked configuration.
    pub fn with_config(n: usize, config: DedupConfig) -> PyResult<Components> {
        let longest = config.keep == Keep::Longest;
        Ok(Components {
            config,
            head: vec![NONE; n],
            bytes: vec![false; n],
            len: if longest { vec![0; n] } else { Vec::new() },
            skipped: HashMap::new(),
            near: Vec::new(),
            ids: vec![None; n],
            asked: HashMap::new(),
            components: None,
            state: None,
        })
    }

    /// Adds a batch of edges (the edges schema).
    pub fn add_edge_batch(&mut self, batch: &RecordBatch) -> PyResult<()> {
        if self.state.is_some() {
            return Err(value_err("edges added after Components.cluster"));
        }
        let kind = column(batch, "kind")?
            .as_primitive_opt::<UInt8Type>()
            .ok_or_else(|| value_err("kind is not uint8"))?;
        let (a, b, len) = (int64s(batch, "a")?, int64s(batch, "b")?, int64s(batch, "len")?);
        let sim = column(batch, "similarity")?
            .as_primitive_opt::<Float64Type>()
            .ok_or_else(|| value_err("similarity is not float64"))?;
        let bytes = column(batch, "bytes")?
            .as_boolean_opt()
            .ok_or_else(|| value_err("bytes is not boolean"))?;
        let reason = column(batch, "reason")?
            .as_primitive_opt::<UInt8Type>()
            .ok_or_else(|| value_err("reason is not uint8"))?;
        let n = self.head.len() as i64;
        let in_range = |d: i64| (0..n).contains(&d);
        for i in 0..batch.num_rows() {
            let (x, y) = (a.value(i), b.value(i));
            match kind.value(i) {
                MEMBER if in_range(x) && in_range(y) => {
                    self.head[y as usize] = x as u32;
                    self.bytes[y as usize] = bytes.value(i);
                    if !self.len.is_empty() {
                        self.len[y as usize] = u32::try_from(len.value(i)).unwrap_or(u32::MAX);
                    }
                }
                NEAR if in_range(x) && in_range(y) => {
                    let code = (!reason.is_null(i)).then(|| reason.value(i));
                    self.near.push((x as u32, y as u32, sim.value(i), contained_of(code)?))
                }
                // Candidates reach the clustering through verification, as near edges; the
                // sampled methods' counts through `sampled_candidates`, as candidates.
                CANDIDATE | SHARED | SAMPLE | FREQUENT | LIST | SHARED_SHORT | FREQUENT_SHORT
                | LIST_SHORT => {}
                SKIP if in_range(x) => {
                    let code = (!reason.is_null(i)).then(|| reason.value(i));
                    self.skipped.insert(x as u32, skip_reason(code)?);
                }
                k => {
                    return Err(value_err(format!(
                        "edge {i}: kind {k} with documents {x}, {y} out of 0..{n}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Adds the ids of a batch (a string column `id`, an int64 column `index`).
    pub fn add_id_batch(&mut self, batch: &RecordBatch, id: &str, index: &str) -> PyResult<()> {
        let ids = crate::dedup::id_column(batch, id)?;
        let docs = match batch.column_by_name(index) {
            Some(col) if col.data_type() == &DataType::Int64 => {
                col.as_primitive::<Int64Type>().clone()
            }
            _ => return Err(value_err(format!("no int64 index column {index:?}"))),
        };
        for (i, d) in docs.iter().enumerate() {
            let d = d
                .filter(|&d| (0..self.ids.len() as i64).contains(&d))
                .ok_or_else(|| value_err(format!("row {i}: index out of range")))?;
            let id = ids[i]
                .clone()
                .ok_or_else(|| value_err(format!("document {d}: the id column {id:?} is null")))?;
            self.ids[d as usize] = Some(id);
        }
        Ok(())
    }

    /// Adds a batch of components (`node`, `component`).
    pub fn add_component_batch(&mut self, batch: &RecordBatch) -> PyResult<()> {
        if self.config.cluster != lookalike::ClusterMode::Connected {
            return Err(value_err("components computed elsewhere need cluster=\"connected\""));
        }
        if self.state.is_some() {
            return Err(value_err("components added after Components.cluster"));
        }
        let (node, comp) = (int64s(batch, "node")?, int64s(batch, "component")?);
        let n = self.head.len() as i64;
        let map = self.components.get_or_insert_with(HashMap::new);
        for i in 0..batch.num_rows() {
            let (x, c) = (node.value(i), comp.value(i));
            if !(0..n).contains(&x) || !(0..n).contains(&c) {
                return Err(value_err(format!("component row {i}: {x}, {c} out of 0..{n}")));
            }
            map.insert(x as u32, c as u32);
        }
        Ok(())
    }

    /// Clusters (once); the pairs of heads whose similarity the clusters need, as a batch.
    pub fn wanted_batch(&mut self) -> PyResult<RecordBatch> {
        self.clustered()?;
        let wanted = self.wanted();
        let a = arrow_array::Int64Array::from_iter_values(wanted.iter().map(|p| i64::from(p.0)));
        let b = arrow_array::Int64Array::from_iter_values(wanted.iter().map(|p| i64::from(p.1)));
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Int64, false),
        ]));
        RecordBatch::try_new(schema, vec![Arc::new(a), Arc::new(b)]).map_err(arrow_err)
    }

    /// Adds a batch of similarities of pairs of heads (`a`, `b`, `similarity`).
    pub fn add_similarity_batch(&mut self, batch: &RecordBatch) -> PyResult<()> {
        let (a, b) = (int64s(batch, "a")?, int64s(batch, "b")?);
        let sim = column(batch, "similarity")?
            .as_primitive_opt::<Float64Type>()
            .ok_or_else(|| value_err("similarity is not float64"))?;
        let n = self.head.len() as i64;
        for i in 0..batch.num_rows() {
            let (x, y) = (a.value(i), b.value(i));
            if !(0..n).contains(&x) || !(0..n).contains(&y) {
                return Err(value_err(format!("similarity {i}: documents {x}, {y} out of 0..{n}")));
            }
            let key = if self.containment() { (x, y) } else { (x.min(y), x.max(y)) };
            self.asked.insert((key.0 as u32, key.1 as u32), sim.value(i));
        }
        Ok(())
    }

    /// Clusters (once) and assembles: the documents batch, the pairs batch and the stats JSON.
    pub fn finished(&mut self) -> PyResult<(RecordBatch, RecordBatch, String)> {
        self.clustered()?;
        self.assemble()
    }

    fn text_len(&self, d: DocId) -> u64 {
        self.len.get(d.index()).copied().map_or(0, u64::from)
    }

    /// Whether a document has its head's bytes (a head has its own).
    fn bytes_of(&self, d: DocId) -> bool {
        self.head[d.index()] == d.0 || self.bytes[d.index()]
    }

    /// Every document's id; an error names the first without one.
    fn all_ids(&self) -> PyResult<Vec<String>> {
        self.ids
            .iter()
            .enumerate()
            .map(|(d, id)| id.clone().ok_or_else(|| value_err(format!("document {d} has no id"))))
            .collect()
    }

    /// Whether the run measures containment (directed similarities).
    fn containment(&self) -> bool {
        self.config.measure == lookalike::Measure::Containment
    }

    /// The exact groups: slots are the heads in input order.
    fn exact_groups(&self) -> ExactGroups {
        let n = self.head.len();
        let mut slot_of = vec![NONE; n];
        let mut heads = 0u32;
        for (d, slot) in slot_of.iter_mut().enumerate() {
            if self.head[d] == d as u32 {
                *slot = heads;
                heads += 1;
            }
        }
        // A document whose head is no head (an edge batch is missing) is in no group.
        let slots = self.head.iter().map(|&h| match h {
            NONE => None,
            h => Some(slot_of[h as usize]).filter(|&s| s != NONE).map(Slot),
        });
        ExactGroups::new(heads as usize, slots)
    }

    /// The near edges between distinct slots, sorted and distinct.
    fn near_pairs(&self, groups: &ExactGroups) -> Vec<NearPair> {
        let slot = |d: u32| groups.slot(DocId(d));
        let mut near: Vec<NearPair> = self
            .near
            .iter()
            // Only edges between heads: a key bucket in which a document's exact group head is
            // missing lists the first copy instead, whose keys (made from its own text: long
            // sentences, a language) need not be its head's; the library keys heads only.
            .filter(|&&(a, b, _, _)| self.head[a as usize] == a && self.head[b as usize] == b)
            .filter_map(|&(a, b, similarity, contained)| {
                let (sa, sb) = (slot(a)?, slot(b)?);
                let (a, b, contained) = if sa <= sb {
                    (sa, sb, contained)
                } else {
                    (sb, sa, contained.map(Contained::flipped))
                };
                (a != b).then_some(NearPair { a, b, similarity, contained })
            })
            .collect();
        near.sort_unstable_by_key(|p| (p.a, p.b));
        near.dedup_by_key(|p| (p.a, p.b));
        near
    }

    /// The cluster label of every slot: the distributed components' (each head joins its
    /// component's smallest head: the same partition as the union-find of `connected`), or the
    /// configured cluster mode's.
    fn labels(&self, groups: &ExactGroups, near: &[NearPair]) -> PyResult<Vec<u32>> {
        let Some(components) = &self.components else {
            let edges: Vec<(u32, u32)> = near.iter().map(|p| (p.a.0, p.b.0)).collect();
            let c = &self.config;
            return Ok(cluster_labels(c.cluster, c.keep, groups, &edges, |d| self.text_len(d)));
        };
        (0..groups.len() as u32)
            .map(|s| {
                let d = groups.head(Slot(s)).0;
                let root = components.get(&d).copied().unwrap_or(d);
                let slot = (root < self.head.len() as u32).then(|| groups.slot(DocId(root)));
                match slot.flatten() {
                    Some(s) => Ok(s.0),
                    None => Err(value_err(format!("component {root} of {d} is not a head"))),
                }
            })
            .collect()
    }

    /// The library's last steps (`DedupRun::finish_into`) over the streamed edges, up to the
    /// clusters; kept in `self.state`.
    fn clustered(&mut self) -> PyResult<()> {
        if self.state.is_some() {
            return Ok(());
        }
        let ids = self.all_ids()?;
        for (d, id) in ids.iter().enumerate() {
            if self.head[d] == NONE && !self.skipped.contains_key(&(d as u32)) {
                return Err(value_err(format!(
                    "document {d} ({id}) reached no bucket: an edge batch is missing"
                )));
            }
        }
        let groups = self.exact_groups();
        let near = self.near_pairs(&groups);
        let exact_kind = |a: DocId, b: DocId| exact_match(self.bytes_of(a), self.bytes_of(b));
        let bound = self.config.max_pairs_per_group;
        let (pairs, listing) = list_pairs(&groups, &near, bound, exact_kind, |_, _| None);
        let labels = self.labels(&groups, &near)?;
        let clusters = clusters_of_labels(&groups, &labels);
        let clusters = choose_representatives(clusters, self.config.keep, |d| self.text_len(d));
        let edge_sim = near.iter().map(|p| ((p.a.0, p.b.0), p.similarity)).collect();
        self.state = Some(Clustered { ids, groups, pairs, listing, edge_sim, clusters });
        Ok(())
    }

    /// Pairs of heads (smaller first) whose similarity a member needs to its representative and
    /// that no verified edge gives, distinct, sorted.
    fn wanted(&self) -> Vec<(u32, u32)> {
        let Some(st) = &self.state else { return Vec::new() };
        if self.containment() {
            // A member's containment in its representative is not its verified edge's
            // similarity (the larger containment): every one is asked for, as
            // (representative, member).
            let mut out: Vec<(u32, u32)> = oracle_pairs(&st.clusters, &st.groups)
                .map(|(r, m)| (st.groups.head(r).0, st.groups.head(m).0))
                .collect();
            out.sort_unstable();
            out.dedup();
            return out;
        }
        let mut out: Vec<(u32, u32)> = oracle_pairs(&st.clusters, &st.groups)
            .filter(|&(r, m)| !st.edge_sim.contains_key(&(r.0.min(m.0), r.0.max(m.0))))
            .map(|(r, m)| {
                let (x, y) = (st.groups.head(m).0, st.groups.head(r).0);
                (x.min(y), x.max(y))
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The clusters, fates and stats, from the clustered state and the similarities asked for.
    fn assemble(&self) -> PyResult<(RecordBatch, RecordBatch, String)> {
        let st = self.state.as_ref().ok_or_else(|| value_err("not clustered yet"))?;
        let n = self.head.len();
        let exact_kind = |a: DocId, b: DocId| exact_match(self.bytes_of(a), self.bytes_of(b));
        let oracle =
            Similarities { state: st, asked: &self.asked, containment: self.containment() };
        let clusters = assemble_clusters(&st.clusters, &st.groups, exact_kind, &oracle)?;
        let skipped = |d: DocId| match self.skipped.get(&d.0) {
            Some(&reason) if self.head[d.index()] == NONE => Some(reason),
            _ => None,
        };
        let (statuses, duplicates) = fates(n, skipped, &clusters);
        let h = st.groups.len();
        let stats = serde_json::json!({
            "method": format!("{} (lookalike.ray)", self.config.method.kind().name()),
            "config": self.config,
            "stats": {
                "documents": n,
                "skipped": self.skipped.len(),
                "exact_duplicates": n - self.skipped.len() - h,
                "sketched": h,
                "near_pairs": st.edge_sim.len(),
                "pairs": st.pairs.len(),
                "pair_groups_over_bound": st.listing.groups_over_bound,
                "pairs_not_listed": st.listing.pairs_not_listed,
                "clusters": clusters.len(),
                "duplicates": duplicates,
                "similarities_asked": self.asked.len(),
            },
        });
        let documents = documents_batch(&st.ids, &statuses, &clusters).map_err(arrow_err)?;
        let pairs = pairs_batch(&st.ids, &st.pairs).map_err(arrow_err)?;
        Ok((documents, pairs, stats.to_string()))
    }
}

/// The similarity of two heads from a verified edge, or from those asked for.
struct Similarities<'a> {
    state: &'a Clustered,
    asked: &'a HashMap<(u32, u32), f64>,
    /// Containment: every similarity was asked for, by (representative, member).
    containment: bool,
}

impl SimilarityOracle for Similarities<'_> {
    type Scratch = ();
    type Error = PyErr;

    fn similarity(&self, representative: Slot, member: Slot, _: &mut ()) -> PyResult<f64> {
        let st = self.state;
        let (r, m) = (representative.0, member.0);
        let (hr, hm) = (st.groups.head(representative).0, st.groups.head(member).0);
        let found = if self.containment {
            self.asked.get(&(hr, hm))
        } else {
            st.edge_sim
                .get(&(r.min(m), r.max(m)))
                .or_else(|| self.asked.get(&(hr.min(hm), hr.max(hm))))
        };
        found
            .copied()
            .ok_or_else(|| {
                value_err(format!(
                    "the exact group of {} joined the cluster of {} without a verified pair or a similarity asked for (Components.cluster)",
                    st.ids[hm as usize], st.ids[hr as usize]
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use lookalike::{ClusterMode, Dedup, Keep, MethodKind};

    use super::super::buckets::bucket_batch;
    use super::super::sketch::sketch_batch;
    use super::super::testutil::{
        INDEX, Rng, assert_ray_job_is_library, corpus, input, library, ray_job, verify_join,
    };
    use super::super::{check_ray_config, int64s};
    use super::{Components, skip_reason};

    #[test]
    fn a_skip_reason_code_is_read_back_and_an_unknown_code_refused() {
        for reason in [lookalike::SkipReason::EmptyText, lookalike::SkipReason::NoTokens] {
            assert_eq!(skip_reason(Some(u8::from(reason))).ok(), Some(reason));
        }
        // Not mapped to a reason it is not: a ValueError (`unknown skip reason code 9`).
        assert!(skip_reason(Some(9)).is_err());
        assert!(skip_reason(Some(0)).is_err());
        assert!(skip_reason(None).is_err());
    }

    /// The configuration of `method` with the other settings given, if the Ray job runs it.
    fn config(
        method: MethodKind,
        keep: Keep,
        cluster: ClusterMode,
        bound: u64,
    ) -> Option<lookalike::DedupConfig> {
        let dedup = Dedup::builder()
            .method(method)
            .threshold(0.7)
            .keep(keep)
            .cluster(cluster)
            .max_pairs_per_group(bound)
            .build()
            .ok()?;
        let c = dedup.config().clone();
        check_ray_config(&c).is_ok().then_some(c)
    }

    /// Every method the job runs, every `keep` and cluster mode, small and large pair bounds,
    /// one and several partitions: the documents and pairs tables equal the library's on
    /// random corpora of near duplicates.
    #[test]
    fn the_job_gives_the_librarys_tables_for_every_method_and_mode() {
        let mut rng = Rng::new(7);
        let mut methods_run = Vec::new();
        for &method in MethodKind::ALL {
            for (keep, cluster, bound, partitions) in [
                (Keep::First, ClusterMode::Center, 1_000, 1),
                (Keep::First, ClusterMode::Connected, 2, 3),
                (Keep::Longest, ClusterMode::Clique, 1_000, 4),
                (Keep::Longest, ClusterMode::CenterRefine, 3, 2),
            ] {
                let Some(c) = config(method, keep, cluster, bound) else { continue };
                methods_run.push(method);
                let n = 40 + rng.below(40);
                let texts = corpus(&mut rng, n);
                let what = format!("{method:?} {keep:?} {cluster:?}");
                assert_ray_job_is_library(&c, &texts, 1 + rng.below(9), partitions, &what);
            }
        }
        // With the statistics stage: I-Match and TF*RIDF signed with the input's statistics,
        // reference words chosen from its relative frequencies.
        for method in [
            MethodKind::MinHash,
            MethodKind::SuperShingles,
            MethodKind::Exact,
            MethodKind::IMatch,
            MethodKind::IMatchRand,
            MethodKind::TfRidf,
            MethodKind::RefWords,
            // With the sampled stage: shared samples (spots) counted per pair.
            MethodKind::ModM,
            MethodKind::MinS,
            MethodKind::Broder,
            MethodKind::SpotSigs,
        ] {
            assert!(methods_run.contains(&method), "{method:?} was not run");
        }
    }

    /// Containment (exact verification): near edges carry the direction, every member's
    /// containment in its representative is asked for; MOD-m, Broder with a MOD-m sample and
    /// exact under every cluster mode give the library's tables (pairs: the contained document
    /// first).
    #[test]
    fn containment_gives_the_librarys_tables() {
        use lookalike::config::{Sample, SampleConfig};
        use lookalike::{Measure, MethodConfig};
        let mut rng = Rng::new(31);
        let mod_sample = SampleConfig { sample: Some(Sample::Mod(2)), ..SampleConfig::default() };
        let mut contained = 0;
        for method in [
            MethodConfig::from(MethodKind::ModM),
            MethodConfig::Broder(mod_sample),
            MethodConfig::from(MethodKind::Exact),
        ] {
            for (keep, cluster, partitions) in [
                (Keep::First, ClusterMode::Center, 1),
                (Keep::First, ClusterMode::Connected, 3),
                (Keep::Longest, ClusterMode::Clique, 4),
                (Keep::Longest, ClusterMode::CenterRefine, 2),
            ] {
                let c = Dedup::builder()
                    .method(method.clone())
                    .measure(Measure::Containment)
                    .threshold(0.7)
                    .keep(keep)
                    .cluster(cluster)
                    .build()
                    .unwrap()
                    .config()
                    .clone();
                check_ray_config(&c).unwrap();
                let n = 60 + rng.below(40);
                let mut texts = corpus(&mut rng, n);
                // Contained copies: a text's first part.
                for i in 0..10 {
                    let t = texts[i * 3].clone();
                    let words: Vec<&str> = t.split(' ').collect();
                    texts.push(words[..words.len() * 2 / 3].join(" "));
                }
                let what = format!("{:?} {keep:?} {cluster:?}", method.kind());
                let expected =
                    assert_ray_job_is_library(&c, &texts, 1 + rng.below(9), partitions, &what);
                contained += expected.1.num_rows();
            }
        }
        assert!(contained > 0);
    }

    /// A copy with its head's normalized text but its own keys (long sentences split its own
    /// text: in capitals the last line becomes a sentence of its own) stands in for its head in
    /// a key bucket the head is not in: the job keeps only the pairs between heads, as the
    /// library, which keys heads only.
    #[test]
    fn a_copy_keyed_unlike_its_head_makes_no_pair() {
        let c = Dedup::builder()
            .method(MethodKind::LongSentences)
            .threshold(0.7)
            .build()
            .unwrap()
            .config()
            .clone();
        let words = "lantern silver orbit lantern window market engine paper river silver forest \
                     winter garden harbor lantern garden river signal window stone river market \
                     engine orbit paper engine stone light forest stone harbor";
        let base =
            format!("{words}. Another sentence follows here, much longer than the others were.");
        let longer = format!("{base} and one more line at the end");
        let copy = longer.to_uppercase().replace(' ', "  ");
        let texts = vec![base, longer, copy, "an unrelated short text of its own here".to_owned()];
        let expected = library(&c, &texts);
        assert_eq!(expected.1.num_rows(), 1, "only the copy's exact pair");
        for (chunk, partitions) in [(4, 1), (1, 3)] {
            let got = ray_job(&c, &texts, chunk, partitions);
            assert_eq!(got.0, expected.0, "documents at {chunk}/{partitions}");
            assert_eq!(got.1, expected.1, "pairs at {chunk}/{partitions}");
        }
    }

    /// Estimate verification (the method's own estimates from the pair's texts, with the
    /// statistics stage's counts for the methods that sign with them), Jaccard and containment,
    /// every cluster mode: the library's tables.
    #[test]
    fn estimate_verification_gives_the_librarys_tables() {
        use lookalike::{Measure, Verify};
        let mut rng = Rng::new(41);
        let mut runs = 0;
        for (method, measure) in [
            (MethodKind::MinHash, Measure::Jaccard),
            (MethodKind::SuperShingles, Measure::Jaccard),
            (MethodKind::ModM, Measure::Jaccard),
            (MethodKind::ModM, Measure::Containment),
            (MethodKind::MinS, Measure::Jaccard),
            (MethodKind::Broder, Measure::Jaccard),
            (MethodKind::SimHash, Measure::Jaccard),
            (MethodKind::Combined, Measure::Jaccard),
            (MethodKind::IMatch, Measure::Jaccard),
            (MethodKind::TfRidf, Measure::Jaccard),
            (MethodKind::Partitioned, Measure::Jaccard),
            (MethodKind::LongSentences, Measure::Jaccard),
            (MethodKind::SpotSigs, Measure::Jaccard),
        ] {
            for (keep, cluster, partitions) in [
                (Keep::First, ClusterMode::Center, 1),
                (Keep::First, ClusterMode::Connected, 3),
                (Keep::Longest, ClusterMode::CenterRefine, 4),
            ] {
                let c = Dedup::builder()
                    .method(method)
                    .measure(measure)
                    .verify(Verify::Estimate)
                    .threshold(0.7)
                    .keep(keep)
                    .cluster(cluster)
                    .build()
                    .unwrap()
                    .config()
                    .clone();
                check_ray_config(&c).unwrap();
                let n = 60 + rng.below(30);
                let texts = corpus(&mut rng, n);
                let expected = library(&c, &texts);
                let got = ray_job(&c, &texts, 1 + rng.below(9), partitions);
                assert_eq!(got.0, expected.0, "{method:?} {measure:?} {cluster:?}: documents");
                assert_eq!(got.1, expected.1, "{method:?} {measure:?} {cluster:?}: pairs");
                runs += usize::from(expected.1.num_rows() > 0);
            }
        }
        assert!(runs > 30, "{runs} runs with pairs");
    }

    /// MOD-m, MIN-s and Broder with a small L (frequent shingles: discounted sizes, groups of
    /// saturated heads, anchors past a small bound) and both frequent-shingle rules: the
    /// library's tables at several block sizes and partition counts.
    #[test]
    fn sampled_methods_with_frequent_shingles_give_the_librarys_tables() {
        use lookalike::MethodConfig;
        use lookalike::candidates::sorted_pairs::FrequentShingles;
        use lookalike::config::{Sample, SampleConfig};
        let mut rng = Rng::new(23);
        let sampled = |sample, max_docs_per_shingle, frequent| SampleConfig {
            sample,
            max_docs_per_shingle,
            frequent,
        };
        for (method, bound) in [
            (MethodConfig::ModM(sampled(Some(Sample::Mod(2)), 3, FrequentShingles::Discount)), 4),
            (MethodConfig::MinS(sampled(Some(Sample::Min(16)), 4, FrequentShingles::Skip)), 1_000),
            (MethodConfig::Broder(sampled(None, 2, FrequentShingles::Discount)), 1_000),
            (MethodConfig::Broder(sampled(Some(Sample::Min(8)), 5, FrequentShingles::Skip)), 3),
        ] {
            let kind = method.kind();
            let c = Dedup::builder()
                .method(method)
                .threshold(0.6)
                .max_pairs_per_group(bound)
                .build()
                .unwrap()
                .config()
                .clone();
            check_ray_config(&c).unwrap();
            for (chunk, partitions) in [(200, 1), (7, 4), (1, 3)] {
                let texts = corpus(&mut rng, 90);
                let what = format!("{kind:?}");
                assert_ray_job_is_library(&c, &texts, chunk, partitions, &what);
            }
        }
    }

    /// MOD-m's short parts (stubs: a short text under several names, whose MOD-m samples
    /// often share nothing), counted apart from the samples, with a large and a small L: the
    /// library's tables at several block sizes and partition counts.
    #[test]
    fn mod_m_short_parts_give_the_librarys_tables() {
        use lookalike::MethodConfig;
        use lookalike::config::SampleConfig;
        use lookalike::method::SampleRule;
        let mut rng = Rng::new(41);
        for max_docs_per_shingle in [100, 3] {
            let sample = SampleConfig { max_docs_per_shingle, ..SampleConfig::default() };
            let c = Dedup::builder()
                .method(MethodConfig::ModM(sample))
                .threshold(0.8)
                .build()
                .unwrap()
                .config()
                .clone();
            check_ray_config(&c).unwrap();
            let mut texts = Vec::new();
            for t in 0..30 {
                let stub: Vec<String> =
                    (0..14 + rng.below(16)).map(|_| format!("w{}", rng.below(300))).collect();
                for j in 0..1 + rng.below(5) {
                    texts.push(format!("{} name{t}x{j}", stub.join(" ")));
                }
            }
            let rule = SampleRule::new(&c).unwrap().unwrap();
            let shingler = lookalike::Shingler::new(c.shingle, c.seed);
            let shorts = texts
                .iter()
                .filter(|t| {
                    let mut norm = lookalike::text::normalize::NormalizedText::default();
                    shingler.normalize_into(t, &mut norm);
                    let shingles = shingler.shingle_set(t);
                    let view =
                        lookalike::method::DocView { text: t, norm: &norm, shingles: &shingles };
                    !rule.sample(&view).short.is_empty()
                })
                .count();
            assert!(shorts >= texts.len() / 2, "{shorts} short parts of {}", texts.len());
            for (chunk, partitions) in [(200, 1), (7, 4), (1, 3)] {
                let what = format!("MOD-m short parts, L = {max_docs_per_shingle}");
                assert_ray_job_is_library(&c, &texts, chunk, partitions, &what);
            }
        }
    }

    /// SimHash and combined with tf-idf weights (document frequencies from the statistics
    /// stage): the library's tables, at one and several partitions and block sizes.
    #[test]
    fn tf_idf_weights_give_the_librarys_tables() {
        let mut rng = Rng::new(11);
        use lookalike::MethodConfig;
        use lookalike::config::{CombinedConfig, SimHashConfig};
        use lookalike::sketch::simhash::Weighting;
        let simhash = SimHashConfig {
            weights: Weighting::TfIdf,
            max_distance: Some(12),
            ..SimHashConfig::default()
        };
        let combined = CombinedConfig { weights: Weighting::TfIdf, ..CombinedConfig::default() };
        for (method, config) in [
            (MethodKind::SimHash, MethodConfig::SimHash(simhash)),
            (MethodKind::Combined, MethodConfig::Combined(combined)),
        ] {
            let c =
                Dedup::builder().method(config).threshold(0.7).build().unwrap().config().clone();
            check_ray_config(&c).unwrap();
            for (chunk, partitions) in [(100, 1), (7, 4), (1, 3)] {
                let texts = corpus(&mut rng, 60);
                let what = format!("{method:?}");
                assert_ray_job_is_library(&c, &texts, chunk, partitions, &what);
            }
        }
    }

    /// Clusters that need similarities no verified pair gives (`connected` chains) ask for
    /// them, and a finish without them is an error rather than a made-up similarity.
    #[test]
    fn missing_similarities_are_asked_for_and_required() {
        let c = config(MethodKind::MinHash, Keep::First, ClusterMode::Connected, 1_000).unwrap();
        let words: Vec<String> = (0..60).map(|i| format!("w{i}")).collect();
        // a ~ b and b ~ c, a and c far apart: one connected cluster whose representative a has
        // no verified pair with c.
        let a = words[..40].join(" ");
        let b = words[5..45].join(" ");
        let c_text = words[10..50].join(" ");
        let texts = vec![a, b, c_text];
        let inputs = input(&texts, 3);
        let rows = sketch_batch(&c, 3, None, &inputs[0], "text", INDEX).unwrap();
        let buckets = bucket_batch(&c, &rows).unwrap();
        let near = verify_join(&c, std::slice::from_ref(&buckets), &inputs, 1, false);
        let mut components = Components::with_config(3, c.clone()).unwrap();
        components.add_edge_batch(&buckets).unwrap();
        for batch in &near {
            components.add_edge_batch(batch).unwrap();
        }
        components.add_id_batch(&inputs[0], "id", INDEX).unwrap();
        let asked = components.wanted_batch().unwrap();
        let pairs: Vec<(i64, i64)> = (0..asked.num_rows())
            .map(|i| {
                let col = |n: &str| int64s(&asked, n).unwrap().value(i);
                (col("a"), col("b"))
            })
            .collect();
        assert_eq!(pairs, vec![(0, 2)]);
        assert!(components.finished().is_err());
        let sims = verify_join(&c, &[asked], &inputs, 1, true);
        for batch in &sims {
            components.add_similarity_batch(batch).unwrap();
        }
        let (documents, _, _) = components.finished().unwrap();
        assert_eq!(documents, library(&c, &texts).0);
    }
}
