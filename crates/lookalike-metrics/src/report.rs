//! The report of `lookalike eval`: every results file scored against a gold standard, as JSON
//! and as plain tables; and the table layout the other reports share.

use serde::Serialize;

use crate::gold::{Found, Gold, GoldInfo};
use crate::scores::{ClusterStats, Overlap, PairScore, pair_score, relation_ari};

/// What `lookalike eval --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// Gold pairs with a similarity are duplicates at or above this.
    pub threshold: f64,
    /// The collection size, when given (its other documents are singletons).
    pub docs: Option<u64>,
    /// The gold standard.
    pub gold: GoldInfo,
    /// One row per results file, in the order given.
    pub results: Vec<EvalRow>,
}

/// One results file scored against the gold standard.
#[derive(Debug, Clone, Serialize)]
pub struct EvalRow {
    /// The name it was given (or its file name).
    pub name: String,
    /// The file.
    pub file: String,
    /// `pairs` or `clusters`.
    pub format: &'static str,
    /// Pair precision, recall and F1.
    #[serde(flatten)]
    pub score: PairScore,
    /// Exact-duplicate groups of its pairs.
    pub exact_groups: u64,
    /// Adjusted Rand index against the gold clustering.
    pub ari: f64,
    /// Items the index is over.
    pub ari_items: u64,
    /// Its clusters.
    pub clusters: ClusterStats,
}

impl EvalRow {
    /// Scores `found` (the file `file`, named `name`) against `gold`, with `docs` documents in
    /// the collection when given.
    pub fn score(
        name: String,
        file: String,
        found: &Found,
        gold: &Gold,
        docs: Option<u64>,
    ) -> Self {
        let ari = relation_ari(&found.relation, &gold.relation, docs);
        EvalRow {
            name,
            file,
            format: found.format,
            score: pair_score(&found.relation, &gold.relation),
            exact_groups: found.relation.exact_groups(),
            ari: ari.value,
            ari_items: ari.items,
            clusters: ClusterStats::of(&found.relation, docs),
        }
    }
}

impl EvalReport {
    /// The report of `rows` against `gold`: the gold's cluster statistics count the other
    /// documents of a `docs`-document collection as singletons, as the rows' do.
    pub fn new(threshold: f64, docs: Option<u64>, gold: &Gold, results: Vec<EvalRow>) -> Self {
        EvalReport {
            threshold,
            docs,
            gold: GoldInfo {
                clusters: ClusterStats::of(&gold.relation, docs),
                ..gold.info.clone()
            },
            results,
        }
    }

    /// The tables `lookalike eval` prints: the scores, then the cluster statistics.
    pub fn render(&self) -> String {
        let r = self;
        let mut out = format!("gold {}: {}\n", r.gold.file, r.gold.describe(r.threshold));
        let rows: Vec<Vec<String>> = r
            .results
            .iter()
            .map(|row| {
                vec![
                    row.name.clone(),
                    row.format.to_owned(),
                    row.score.found.to_string(),
                    row.score.true_positives.to_string(),
                    fmt4(row.score.precision),
                    format!("{}/{}", row.score.reference_found, row.score.reference),
                    fmt4(row.score.recall),
                    fmt4(row.score.f1),
                    format!("{:.4}", row.ari),
                    row.ari_items.to_string(),
                ]
            })
            .collect();
        out.push_str(&text_table(
            &[
                "results",
                "format",
                "found",
                "TP",
                "precision",
                "gold found",
                "recall",
                "F1",
                "ARI",
                "items",
            ],
            &rows,
        ));
        out.push('\n');
        let mut stats = vec![stats_row("gold", &r.gold.clusters)];
        stats.extend(r.results.iter().map(|row| stats_row(&row.name, &row.clusters)));
        out.push_str(&text_table(&STATS_HEADER, &stats));
        out
    }
}

/// The overlap of two runs, by name, as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapJson<'a> {
    a: &'a str,
    b: &'a str,
    shared: u64,
    union: u64,
    jaccard: Option<f64>,
}

/// The overlaps with the runs' `names` in place of their numbers.
pub fn overlaps_json<'a>(overlaps: &[Overlap], names: &'a [String]) -> Vec<OverlapJson<'a>> {
    overlaps
        .iter()
        .map(|o| OverlapJson {
            a: &names[o.a],
            b: &names[o.b],
            shared: o.shared,
            union: o.union,
            jaccard: o.jaccard,
        })
        .collect()
}

/// `x` with 4 decimals, or `n/a`.
pub fn fmt4(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.4}"))
}

/// A plain table: columns padded to their widest cell, numbers (all but the first column)
/// right-aligned.
pub fn text_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w - c.chars().count();
            if i == 0 {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(&header.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>());
    for r in rows {
        out.push_str(&line(r));
    }
    out
}

fn stats_row(name: &str, s: &ClusterStats) -> Vec<String> {
    let opt = |x: Option<u64>| x.map_or("-".to_owned(), |v| v.to_string());
    let optf = |x: Option<f64>| x.map_or("-".to_owned(), |v| format!("{v:.1}"));
    vec![
        name.to_owned(),
        s.clusters.to_string(),
        s.clustered_docs.to_string(),
        s.singletons.to_string(),
        opt(s.min),
        optf(s.median),
        optf(s.mean),
        opt(s.max),
        s.histogram_text(),
    ]
}

const STATS_HEADER: [&str; 9] =
    ["clusters", "count", "docs", "singletons", "min", "median", "mean", "max", "sizes"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_and_right_align_numbers() {
        let t = text_table(
            &["name", "n"],
            &[vec!["a".into(), "10".into()], vec!["long name".into(), "2".into()]],
        );
        assert_eq!(t, "name        n\na          10\nlong name   2\n");
        assert_eq!((fmt4(Some(0.5)), fmt4(None)), ("0.5000".to_owned(), "n/a".to_owned()));
    }
}
