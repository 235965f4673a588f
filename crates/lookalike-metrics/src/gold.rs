//! Gold standards and results files read into [`Relation`]s: contract: "give me a file of pairs
//! or clusters, I give you the pairs it says are duplicates, and what it held".

use std::path::Path;

use serde::Serialize;

use crate::relation::{DupFile, EPS, Ids, PairFile, PairValue, Relation, read_dup_file};
use crate::{ClusterStats, Error};

/// What a gold standard holds, as reported by `lookalike eval`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoldInfo {
    /// The file, as given.
    pub file: String,
    /// `pairs` or `clusters`.
    pub format: &'static str,
    /// For pairs: `labels` or `similarities`.
    pub values: Option<&'static str>,
    /// The `# ... threshold=T` setting of a pairs file.
    pub header_threshold: Option<f64>,
    /// Duplicate pairs.
    pub duplicate_pairs: u64,
    /// Ids the file names.
    pub ids: u64,
    /// Its clusters (connected components of its duplicate pairs).
    pub clusters: ClusterStats,
}

impl GoldInfo {
    /// One line saying what the gold standard holds, duplicates at `threshold`.
    pub fn describe(&self, threshold: f64) -> String {
        let i = self;
        match (i.format, i.values) {
            ("clusters", _) => format!(
                "clusters JSONL: {} clusters of 2 or more, {} duplicate pairs, {} ids",
                i.clusters.clusters, i.duplicate_pairs, i.ids
            ),
            (_, Some("labels")) => {
                format!("labelled pairs: {} duplicate pairs, {} ids", i.duplicate_pairs, i.ids)
            }
            _ => format!(
                "pairs with similarities, duplicates at >= {threshold}: {} pairs{}",
                i.duplicate_pairs,
                i.header_threshold.map_or(String::new(), |t| format!("; file threshold {t}"))
            ),
        }
    }
}

/// A gold standard read into a relation.
#[derive(Debug, Clone)]
pub struct Gold {
    /// Its duplicate pairs.
    pub relation: Relation,
    /// What it holds.
    pub info: GoldInfo,
}

/// Reads a gold standard: pairs whose third column is a label or a similarity (a duplicate when
/// at least `threshold`), or clusters. A pairs file of similarities whose `# ... threshold=T`
/// line says it lists only the pairs at `T` or above, with `T > threshold`, is an error
/// ([`Error::GoldAboveThreshold`]): it cannot tell the duplicates between the two.
pub fn read_gold(path: &Path, threshold: f64, ids: &mut Ids) -> Result<Gold, Error> {
    let (relation, values, header_threshold) = match read_dup_file(path, ids)? {
        DupFile::Clusters(c) => (Relation::from_clusters(&c), None, None),
        DupFile::Pairs(file) => {
            let header = file.header_threshold(path)?;
            let labels = file.lines.iter().all(|l| l.value.is_label_like());
            if !labels
                && let Some(t) = header
                && t > threshold + EPS
            {
                return Err(Error::GoldAboveThreshold {
                    path: path.to_owned(),
                    file_threshold: t,
                    threshold,
                });
            }
            let positives =
                file.lines.iter().filter(|l| l.value.is_duplicate(threshold)).map(|l| (l.a, l.b));
            let all = file.lines.iter().flat_map(|l| [l.a, l.b]);
            let values = if labels { "labels" } else { "similarities" };
            (Relation::from_pairs(positives, all), Some(values), header)
        }
    };
    let info = GoldInfo {
        file: path.display().to_string(),
        format: if relation.is_clustering() { "clusters" } else { "pairs" },
        values,
        header_threshold,
        duplicate_pairs: relation.asserted_len(),
        ids: relation.mentioned().len() as u64,
        clusters: ClusterStats::of(&relation, None),
    };
    Ok(Gold { relation, info })
}

/// A results file read into a relation.
#[derive(Debug, Clone)]
pub struct Found {
    /// The pairs it found (canonicalized, see [`Relation::from_found_pairs`]).
    pub relation: Relation,
    /// `pairs` or `clusters`.
    pub format: &'static str,
}

/// Reads results: found pairs (canonicalized; lines labelled false are not found pairs) or
/// clusters.
pub fn read_results(path: &Path, ids: &mut Ids) -> Result<Found, Error> {
    Ok(match read_dup_file(path, ids)? {
        DupFile::Clusters(c) => Found { relation: Relation::from_clusters(&c), format: "clusters" },
        DupFile::Pairs(file) => Found { relation: found_pairs(&file), format: "pairs" },
    })
}

/// Reads a run's pairs for the pool method; a clusters file is [`Error::ClustersNotPairs`].
pub fn read_run_pairs(path: &Path, ids: &mut Ids) -> Result<Relation, Error> {
    match read_dup_file(path, ids)? {
        DupFile::Pairs(file) => Ok(found_pairs(&file)),
        DupFile::Clusters(_) => Err(Error::ClustersNotPairs { path: path.to_owned() }),
    }
}

/// The found pairs of a pairs file: every line but those labelled false.
pub fn found_pairs(file: &PairFile) -> Relation {
    Relation::from_found_pairs(file.lines.iter().filter_map(|l| match l.value {
        PairValue::Number(s) => Some((l.a, l.b, s)),
        PairValue::Label(true) => Some((l.a, l.b, 0.0)),
        PairValue::Label(false) => None,
    }))
}
