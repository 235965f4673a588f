//! The report of `lookalike compare`: several methods run on one corpus, each scored against
//! the same reference (a gold standard or the judged pool), with its speed and memory, as
//! markdown and JSON.

use serde::Serialize;

use crate::gold::GoldInfo;
use crate::pool::PoolJson;
use crate::report::{OverlapJson, fmt4, overlaps_json};
use crate::scores::{Overlap, PairScore};

/// One method's run and scores.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodResult {
    /// Its name in tables.
    pub label: String,
    /// The `lookalike dedup` arguments that select it.
    pub args: Vec<String>,
    /// Its pairs against the reference.
    pub score: PairScore,
    /// Adjusted Rand index against a gold standard (none against a pool).
    pub ari: Option<f64>,
    /// Exact-duplicate groups of its pairs.
    pub exact_groups: u64,
    /// Distinct pairs it wrote.
    pub pairs: u64,
    /// Documents per second, as the method reports it.
    pub docs_per_second: f64,
    /// MB (10^6 bytes) of input per second, as the method reports it.
    pub mb_per_second: f64,
    /// Peak resident memory, when known.
    pub peak_rss_bytes: Option<u64>,
    /// Seconds, as the method reports them.
    pub seconds: f64,
    /// Wall seconds of its process.
    pub wall_seconds: f64,
    /// Its clusters against a gold standard (none against a pool).
    pub clusters: Option<ClusterScore>,
}

/// A method's clusters scored as the pairs they imply: every two documents of one cluster are
/// called duplicates, as a user who keeps one document per cluster assumes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterScore {
    /// Cluster-implied pair precision, recall and F1.
    pub score: PairScore,
    /// Adjusted Rand index of the clustering.
    pub ari: f64,
    /// Documents in the largest cluster.
    pub largest: u64,
}

/// What the methods were measured against.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Reference<'a> {
    /// A gold standard.
    Gold(GoldReference<'a>),
    /// The judged pool of all methods' pairs.
    Pool(PoolJson<'a>),
}

/// A gold standard as the reference of a comparison.
#[derive(Debug, Clone, Serialize)]
pub struct GoldReference<'a> {
    kind: &'static str,
    file: &'a str,
    format: &'static str,
    values: Option<&'static str>,
    duplicate_pairs: u64,
}

impl<'a> Reference<'a> {
    /// The gold standard `info`.
    pub fn gold(info: &'a GoldInfo) -> Self {
        Reference::Gold(GoldReference {
            kind: "gold",
            file: &info.file,
            format: info.format,
            values: info.values,
            duplicate_pairs: info.duplicate_pairs,
        })
    }

    /// The judged pool (its report as [`PoolJson`]).
    pub fn pool(pool: PoolJson<'a>) -> Self {
        Reference::Pool(pool.with_kind("pool"))
    }
}

/// The settings every method ran with.
#[derive(Debug, Clone, Serialize)]
pub struct CompareSettings {
    /// Similarity threshold.
    pub threshold: f64,
    /// Shingles, as `words:5`.
    pub shingle: String,
    /// MinHash values per document.
    pub num_perm: usize,
    /// Seed of all hashes.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
}

/// What `lookalike compare --json` writes.
#[derive(Debug, Clone, Serialize)]
pub struct CompareReport<'a> {
    /// The corpus arguments.
    pub corpus: &'a [String],
    /// Documents read (by the first method).
    pub documents: u64,
    /// Bytes read (by the first method).
    pub bytes: u64,
    /// The settings.
    pub settings: CompareSettings,
    /// What quality is measured against.
    pub reference: Reference<'a>,
    /// Every method, in the order run.
    pub methods: Vec<MethodJson<'a>>,
    /// Overlap of every two methods' pairs.
    pub overlaps: Vec<OverlapJson<'a>>,
}

/// One method in [`CompareReport`].
#[derive(Debug, Clone, Serialize)]
pub struct MethodJson<'a> {
    method: &'a str,
    args: &'a [String],
    precision: Option<f64>,
    recall: Option<f64>,
    f1: Option<f64>,
    ari: Option<f64>,
    found: u64,
    true_positives: u64,
    reference: u64,
    reference_found: u64,
    exact_groups: u64,
    docs_per_second: f64,
    mb_per_second: f64,
    peak_rss_bytes: Option<u64>,
    peak_memory_mb: Option<f64>,
    pairs: u64,
    seconds: f64,
    wall_seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    clusters: Option<&'a ClusterScore>,
}

impl<'a> MethodJson<'a> {
    /// The JSON of one method's result.
    pub fn new(r: &'a MethodResult) -> Self {
        MethodJson {
            method: &r.label,
            args: &r.args,
            precision: r.score.precision,
            recall: r.score.recall,
            f1: r.score.f1,
            ari: r.ari,
            found: r.score.found,
            true_positives: r.score.true_positives,
            reference: r.score.reference,
            reference_found: r.score.reference_found,
            exact_groups: r.exact_groups,
            docs_per_second: r.docs_per_second,
            mb_per_second: r.mb_per_second,
            peak_rss_bytes: r.peak_rss_bytes,
            peak_memory_mb: r.peak_rss_bytes.map(|b| b as f64 / 1e6),
            pairs: r.pairs,
            seconds: r.seconds,
            wall_seconds: r.wall_seconds,
            clusters: r.clusters.as_ref(),
        }
    }
}

impl<'a> CompareReport<'a> {
    /// The report of `methods`, whose pairs overlap as `overlap` (by position in `names`).
    pub fn new(
        corpus: &'a [String],
        (documents, bytes): (u64, u64),
        settings: CompareSettings,
        reference: Reference<'a>,
        methods: &'a [MethodResult],
        overlap: &[Overlap],
        names: &'a [String],
    ) -> Self {
        CompareReport {
            corpus,
            documents,
            bytes,
            settings,
            reference,
            methods: methods.iter().map(MethodJson::new).collect(),
            overlaps: overlaps_json(overlap, names),
        }
    }
}

/// The markdown `lookalike compare` writes: the `settings` and `reference` sentences, a table
/// of the methods, and the overlap of their pairs.
pub fn render_markdown(
    settings: &str,
    reference: &str,
    rows: &[MethodResult],
    overlap: &[Overlap],
    names: &[String],
) -> String {
    let mut out = format!("{settings}\n\n{reference}\n\n");
    out.push_str(
        "| method | precision | recall | F1 | docs/s | MB/s | peak memory (MB) | pairs found | wall seconds |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} | {:.1} | {} | {} | {:.2} |\n",
            r.label,
            fmt4(r.score.precision),
            fmt4(r.score.recall),
            fmt4(r.score.f1),
            r.docs_per_second,
            r.mb_per_second,
            r.peak_rss_bytes.map_or("n/a".to_owned(), |b| format!("{:.1}", b as f64 / 1e6)),
            r.pairs,
            r.wall_seconds,
        ));
    }
    if rows.iter().any(|r| r.clusters.is_some()) {
        out.push_str(
            "\nClusters, scored by the pairs they imply (every two documents of one cluster):\n\n\
             | method | precision | recall | F1 | ARI | largest cluster |\n\
             |---|---:|---:|---:|---:|---:|\n",
        );
        for r in rows {
            if let Some(c) = &r.clusters {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} |\n",
                    r.label,
                    fmt4(c.score.precision),
                    fmt4(c.score.recall),
                    fmt4(c.score.f1),
                    fmt4(Some(c.ari)),
                    c.largest,
                ));
            }
        }
    }
    if !overlap.is_empty() {
        out.push_str("\nOverlap of the pairs found:\n\n| methods | shared pairs | Jaccard |\n|---|---:|---:|\n");
        for o in overlap {
            out.push_str(&format!(
                "| {} / {} | {} | {} |\n",
                names[o.a],
                names[o.b],
                o.shared,
                fmt4(o.jaccard)
            ));
        }
    }
    out
}
