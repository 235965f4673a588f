//! The distributed connected components' step. Contract: "give me a partition of an edge list
//! in which every node's edges are together, I give you the edges of one large-star or
//! small-star step, or each node's label".

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_pyarrow::PyArrowType;
use arrow_schema::{DataType, Field, Schema};
use pyo3::prelude::*;
use rayon::prelude::*;

use super::int64s;
use crate::errors::{arrow_err, value_err};
use crate::input::Batch;

/// The steps of the distributed connected components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StarStep {
    /// Every neighbour above a node linked to the node's smallest neighbour (or itself).
    Large,
    /// Every neighbour below a node, and the node, linked to that smallest.
    Small,
    /// Every node with the smallest node of its star.
    Label,
}

impl StarStep {
    /// The step named `name` (`large`, `small`, `label`).
    pub fn parse(name: &str) -> PyResult<StarStep> {
        match name {
            "large" => Ok(StarStep::Large),
            "small" => Ok(StarStep::Small),
            "label" => Ok(StarStep::Label),
            other => Err(value_err(format!(
                "step {other:?}: expected \"large\", \"small\" or \"label\""
            ))),
        }
    }
}

/// connected_step(batch, step)
/// --
///
/// The per-partition step of the distributed connected components (alternating large-star and
/// small-star rounds, Kiveris et al. 2014), over a block in which every node's edges are
/// together: int64 columns `u` and `v`, each undirected edge present in both orientations, the
/// block repartitioned by `u`. Per node `u` with neighbours `N` (self-loops and repeats ignored)
/// and `m` the smallest of `N` and `u`:
///
/// - `step="large"`: every neighbour `v > u` is linked to `m`;
/// - `step="small"`: every neighbour `v < u`, and `u`, are linked to `m`;
///
/// returning the new edges (`a` < `b`) with `changed` (false for an edge the step kept), so that
/// a round that changes nothing ends the iteration: the graph is then a star per component
/// centred on its smallest node. `step="label"` (after that) returns `node` and `component`
/// (the smallest node of its component) for every node.
#[pyfunction]
pub fn connected_step(
    py: Python<'_>,
    batch: Batch,
    step: &str,
) -> PyResult<PyArrowType<RecordBatch>> {
    let step = StarStep::parse(step)?;
    let batch = batch.0;
    py.detach(|| star_step(&batch, step)).map(PyArrowType)
}

/// [`connected_step`] without Python.
pub fn star_step(batch: &RecordBatch, step: StarStep) -> PyResult<RecordBatch> {
    let (u, v) = (int64s(batch, "u")?, int64s(batch, "v")?);
    let rows: Vec<(i64, i64)> = (0..batch.num_rows()).map(|i| (u.value(i), v.value(i))).collect();
    let out = star_edges(rows, step);
    let int64s = |f: fn(&(i64, i64, bool)) -> i64| {
        Arc::new(arrow_array::Int64Array::from_iter_values(out.iter().map(f)))
    };
    if step == StarStep::Label {
        let schema = Arc::new(Schema::new(vec![
            Field::new("node", DataType::Int64, false),
            Field::new("component", DataType::Int64, false),
        ]));
        return RecordBatch::try_new(schema, vec![int64s(|r| r.0), int64s(|r| r.1)])
            .map_err(arrow_err);
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
        Field::new("changed", DataType::Boolean, false),
    ]));
    let changed = arrow_array::BooleanArray::from(out.iter().map(|r| r.2).collect::<Vec<_>>());
    RecordBatch::try_new(schema, vec![int64s(|r| r.0), int64s(|r| r.1), Arc::new(changed)])
        .map_err(arrow_err)
}

/// The step's output over oriented edges `(u, v)`: `(a, b, changed)` edges, or with
/// [`StarStep::Label`] `(node, component, false)`.
fn star_edges(mut rows: Vec<(i64, i64)>, step: StarStep) -> Vec<(i64, i64, bool)> {
    rows.retain(|(x, y)| x != y);
    rows.par_sort_unstable();
    rows.dedup();
    let groups: Vec<&[(i64, i64)]> = rows.chunk_by(|x, y| x.0 == y.0).collect();
    groups
        .par_iter()
        .flat_map_iter(|group| {
            let u = group[0].0;
            // Neighbours are sorted: the first is the smallest.
            let m = group[0].1.min(u);
            let mut out = Vec::new();
            match step {
                StarStep::Large => {
                    out.extend(group.iter().filter(|r| r.1 > u).map(|r| (m, r.1, m != u)))
                }
                StarStep::Small => {
                    for r in group.iter().filter(|r| r.1 < u) {
                        if r.1 != m {
                            out.push((m, r.1, true));
                        }
                    }
                    if m != u {
                        out.push((m, u, false));
                    }
                }
                StarStep::Label => out.push((u, m, false)),
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use lookalike::cluster::UnionFind;

    use super::super::testutil::Rng;
    use super::*;

    /// One step over the whole edge list: every node's edges in one block, as after the
    /// repartition by `u`.
    fn step(edges: &[(i64, i64)], step: StarStep) -> Vec<(i64, i64, bool)> {
        let oriented: Vec<(i64, i64)> = edges.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let mut out = star_edges(oriented, step);
        out.sort_unstable();
        out
    }

    /// Large-star and small-star rounds until nothing changes label every node with the smallest
    /// node of its component, as union-find does, on random graphs.
    #[test]
    fn rounds_reach_the_components_of_union_find() {
        let mut rng = Rng::new(3);
        for _ in 0..30 {
            let n = 2 + rng.below(60);
            let edges: Vec<(i64, i64)> =
                (0..rng.below(2 * n)).map(|_| (rng.below(n) as i64, rng.below(n) as i64)).collect();
            let mut current = edges.clone();
            let mut rounds = 0;
            loop {
                let large = step(&current, StarStep::Large);
                let small =
                    step(&large.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(), StarStep::Small);
                let changed = large.iter().chain(&small).any(|e| e.2);
                current = small.iter().map(|e| (e.0, e.1)).collect();
                rounds += 1;
                if !changed {
                    break;
                }
                assert!(rounds < 50, "no fixpoint");
            }
            let mut uf = UnionFind::new(n);
            for &(a, b) in &edges {
                uf.union(a as u32, b as u32);
            }
            let labels = step(&current, StarStep::Label);
            for (node, component, _) in labels {
                let members: Vec<u32> = uf
                    .groups()
                    .into_iter()
                    .find(|g| g.contains(&(node as u32)))
                    .unwrap_or_default();
                assert_eq!(component, i64::from(*members.iter().min().unwrap()));
            }
        }
    }

    #[test]
    fn a_batch_steps_as_its_rows_do_and_a_bad_step_is_refused() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("u", DataType::Int64, false),
            Field::new("v", DataType::Int64, false),
        ]));
        let u = arrow_array::Int64Array::from(vec![3, 1, 1, 3, 2]);
        let v = arrow_array::Int64Array::from(vec![1, 3, 1, 2, 3]);
        let batch = RecordBatch::try_new(schema, vec![Arc::new(u), Arc::new(v)]).unwrap();
        let out = star_step(&batch, StarStep::Large).unwrap();
        assert_eq!(
            out.num_rows(),
            star_edges(vec![(3, 1), (1, 3), (3, 2), (2, 3)], StarStep::Large).len()
        );
        let labels = star_step(&batch, StarStep::Label).unwrap();
        assert_eq!(labels.schema().field(1).name(), "component");
        assert!(StarStep::parse("medium").is_err());
    }
}
