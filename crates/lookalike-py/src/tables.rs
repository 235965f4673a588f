//! A run's results as Arrow record batches: one row per document, one row per verified pair.
//!
//! Documents (in input order): `id`, `cluster` (the cluster's number, from 0 in the order of the
//! CLI's `--clusters` file; null outside clusters), `status` (`kept`, `duplicate`, `skipped`),
//! `kept_id` (the document kept in its place: itself, or its cluster's representative; null when
//! skipped), `similarity` (a duplicate's similarity to the representative), `match`
//! (`exact-bytes`, `exact-text`, `near`) and `reason` (why a document was skipped).
//! Pairs (sorted by input order): `id1`, `id2` (with containment the contained document first),
//! `similarity`, `match`.

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lookalike::{Cluster, Contained, DocStatus, ScoredPair};

/// The schema of the documents table.
pub fn documents_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("cluster", DataType::Int64, true),
        Field::new("status", DataType::Utf8, false),
        Field::new("kept_id", DataType::Utf8, true),
        Field::new("similarity", DataType::Float64, true),
        Field::new("match", DataType::Utf8, true),
        Field::new("reason", DataType::Utf8, true),
    ]))
}

/// The schema of the pairs table.
pub fn pairs_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id1", DataType::Utf8, false),
        Field::new("id2", DataType::Utf8, false),
        Field::new("similarity", DataType::Float64, false),
        Field::new("match", DataType::Utf8, false),
    ]))
}

/// The documents table of a run.
pub fn documents_batch(
    ids: &[String],
    statuses: &[DocStatus],
    clusters: &[Cluster],
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut cluster_of: Vec<Option<i64>> = vec![None; ids.len()];
    for (n, c) in clusters.iter().enumerate() {
        cluster_of[c.representative.index()] = Some(n as i64);
        for m in &c.members {
            cluster_of[m.doc.index()] = Some(n as i64);
        }
    }
    let n = ids.len();
    let mut id = StringBuilder::with_capacity(n, n * 16);
    let mut cluster = Int64Builder::with_capacity(n);
    let mut status = StringBuilder::with_capacity(n, n * 8);
    let mut kept = StringBuilder::with_capacity(n, n * 16);
    let mut similarity = Float64Builder::with_capacity(n);
    let mut kind = StringBuilder::new();
    let mut reason = StringBuilder::new();
    for (i, s) in statuses.iter().enumerate() {
        id.append_value(&ids[i]);
        cluster.append_option(cluster_of[i]);
        match s {
            DocStatus::Kept => {
                status.append_value("kept");
                kept.append_value(&ids[i]);
                similarity.append_null();
                kind.append_null();
                reason.append_null();
            }
            DocStatus::Duplicate { of, similarity: sim, kind: k } => {
                status.append_value("duplicate");
                kept.append_value(&ids[of.index()]);
                similarity.append_value(*sim);
                kind.append_value(k.as_str());
                reason.append_null();
            }
            DocStatus::Skipped { reason: r } => {
                status.append_value("skipped");
                kept.append_null();
                similarity.append_null();
                kind.append_null();
                reason.append_value(r.as_str());
            }
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(cluster.finish()),
        Arc::new(status.finish()),
        Arc::new(kept.finish()),
        Arc::new(similarity.finish()),
        Arc::new(kind.finish()),
        Arc::new(reason.finish()),
    ];
    RecordBatch::try_new(documents_schema(), columns)
}

/// The pairs table of a run.
pub fn pairs_batch(
    ids: &[String],
    pairs: &[ScoredPair],
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let n = pairs.len();
    let mut id1 = StringBuilder::with_capacity(n, n * 16);
    let mut id2 = StringBuilder::with_capacity(n, n * 16);
    let mut similarity = Float64Builder::with_capacity(n);
    let mut kind = StringBuilder::with_capacity(n, n * 4);
    for p in pairs {
        // With containment the contained document comes first, as in the CLI's pairs file.
        let (a, b) = match p.contained {
            Some(Contained::BInA) => (p.b, p.a),
            _ => (p.a, p.b),
        };
        id1.append_value(&ids[a.index()]);
        id2.append_value(&ids[b.index()]);
        similarity.append_value(p.similarity);
        kind.append_value(p.kind.as_str());
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id1.finish()),
        Arc::new(id2.finish()),
        Arc::new(similarity.finish()),
        Arc::new(kind.finish()),
    ];
    RecordBatch::try_new(pairs_schema(), columns)
}
