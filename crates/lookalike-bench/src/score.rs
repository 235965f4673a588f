//! The `score` command: precision and recall of found pairs against the exact truth.
//!
//! **Canonicalization.** `lookalike dedup` reports an exact-duplicate group (identical normalized
//! texts) as pairs (representative, copy, 1.0) only, not as all pairs inside the group. So pairs
//! found with similarity exactly 1.0 are merged with union-find into groups, and a truth pair
//! (x, y) counts as found when x and y are in the same group, or when some found pair joins x's
//! group to y's group ([`Relation::from_found_pairs`], shared with `lookalike eval`).
//!
//! **Precision** is over the found pairs themselves: the fraction whose true Jaccard (looked up in
//! the truth file) is at least the threshold. A found pair missing from the truth file has a
//! Jaccard below the truth file's threshold, so that threshold must not exceed the one scored.
//! **Recall@t** is the fraction of truth pairs with Jaccard ≥ t that were found; recall@t+margin
//! the same for Jaccard ≥ t + margin (pairs just above the threshold are the hard ones for any
//! estimate, so the second number shows whether misses are only borderline).

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Result, bail};
use serde::Serialize;

pub use lookalike_metrics::relation::UnionFind;
use lookalike_metrics::relation::{EPS, Ids, PairLine, Relation, ordered, read_pairs};

/// Settings of [`score`].
#[derive(Debug, Clone)]
pub struct ScoreOptions {
    /// The similarity threshold the run was asked for.
    pub threshold: f64,
    /// Recall is also reported for pairs at least this far above the threshold.
    pub margin: f64,
    /// The truth file's threshold when its header does not say.
    pub truth_threshold: Option<f64>,
    /// How many of the most similar missed pairs to list.
    pub worst: usize,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions { threshold: 0.8, margin: 0.05, truth_threshold: None, worst: 10 }
    }
}

/// A missed truth pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    /// First document.
    pub id1: String,
    /// Second document.
    pub id2: String,
    /// Its true Jaccard.
    pub jaccard: f64,
}

/// Recall on planted pairs of one edit kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindRecall {
    /// The edit kind (or `chain`).
    pub kind: String,
    /// Planted pairs of this kind.
    pub planted: u64,
    /// Of those, pairs with Jaccard ≥ the threshold.
    pub at_threshold: u64,
    /// Of those, pairs found.
    pub found: u64,
    /// Pairs below the threshold that were reported anyway.
    pub found_below: u64,
}

/// The scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    /// Threshold scored.
    pub threshold: f64,
    /// Margin of the second recall.
    pub margin: f64,
    /// Threshold of the truth file.
    pub truth_threshold: f64,
    /// Distinct found pairs.
    pub found: u64,
    /// Found pairs with true Jaccard ≥ threshold.
    pub true_positives: u64,
    /// Found pairs below the threshold.
    pub false_positives: u64,
    /// Truth pairs with Jaccard ≥ threshold.
    pub truth: u64,
    /// Of those, found.
    pub truth_found: u64,
    /// Of those, missed.
    pub false_negatives: u64,
    /// Truth pairs with Jaccard ≥ threshold + margin.
    pub truth_margin: u64,
    /// Of those, found.
    pub truth_margin_found: u64,
    /// Exact-duplicate groups (similarity 1.0) with at least two documents.
    pub exact_groups: u64,
    /// true_positives / found (none when nothing was found).
    pub precision: Option<f64>,
    /// truth_found / truth (none when the truth is empty).
    pub recall: Option<f64>,
    /// truth_margin_found / truth_margin.
    pub recall_margin: Option<f64>,
    /// Harmonic mean of precision and recall.
    pub f1: Option<f64>,
    /// The most similar missed pairs.
    pub worst_misses: Vec<Miss>,
    /// Recall per planted edit kind, when a planted-pairs file was given.
    pub planted: Option<Vec<KindRecall>>,
}

/// `(id1, id2, value, rest of the line)` of every line of a pairs file that must hold numbers.
type PairLines = Vec<(u32, u32, f64, String)>;

/// Reads a pairs file whose values must be numbers (similarities); returns its threshold
/// setting too.
fn read_numbers(path: &Path, ids: &mut Ids) -> Result<(PairLines, Option<f64>)> {
    let file = read_pairs(path, ids)?;
    let threshold = file.header_threshold(path)?;
    let lines = file
        .lines
        .into_iter()
        .map(|PairLine { a, b, value, rest, line }| match value.number() {
            Some(v) => Ok((a, b, v, rest)),
            None => bail!("{}:{line}: expected a number, not a label", path.display()),
        })
        .collect::<Result<_>>()?;
    Ok((lines, threshold))
}

/// Scores the pairs in `found` against `truth` (and, optionally, recall per planted edit kind).
pub fn score(
    found: &Path,
    truth: &Path,
    planted: Option<&Path>,
    opts: &ScoreOptions,
) -> Result<Score> {
    let mut ids = Ids::default();
    let (truth_lines, header_threshold) = read_numbers(truth, &mut ids)?;
    let truth_threshold = match (header_threshold, opts.truth_threshold) {
        (_, Some(t)) => t,
        (Some(t), None) => t,
        (None, None) => bail!(
            "{} does not say its threshold (no '# ... threshold=T' line): pass --truth-threshold",
            truth.display()
        ),
    };
    if truth_threshold > opts.threshold + EPS {
        bail!(
            "the truth file holds pairs with Jaccard ≥ {truth_threshold} only, so it cannot score \
             threshold {}: compute the truth at a threshold ≤ {}",
            opts.threshold,
            opts.threshold
        );
    }
    let (found_lines, _) = read_numbers(found, &mut ids)?;
    let planted_lines = match planted {
        Some(p) => Some(read_numbers(p, &mut ids)?.0),
        None => None,
    };

    let truth_j: HashMap<(u32, u32), f64> =
        truth_lines.iter().map(|&(a, b, j, _)| (ordered(a, b), j)).collect();
    let found_rel = Relation::from_found_pairs(found_lines.iter().map(|&(a, b, s, _)| (a, b, s)));
    let exact_groups = found_rel.exact_groups();
    let found_raw = found_rel.pairs().unwrap_or_default();
    let is_found = |a: u32, b: u32| found_rel.contains(a, b);

    let t = opts.threshold;
    let tm = opts.threshold + opts.margin;
    let true_positives =
        found_raw.iter().filter(|p| truth_j.get(p).is_some_and(|&j| j >= t - EPS)).count() as u64;
    let (mut truth_n, mut truth_found, mut truth_margin, mut truth_margin_found) = (0, 0, 0, 0);
    let mut misses: Vec<(f64, u32, u32)> = Vec::new();
    for &(a, b, j, _) in &truth_lines {
        if j < t - EPS {
            continue;
        }
        let hit = is_found(a, b);
        truth_n += 1;
        truth_found += u64::from(hit);
        if j >= tm - EPS {
            truth_margin += 1;
            truth_margin_found += u64::from(hit);
        }
        if !hit {
            misses.push((j, a, b));
        }
    }
    misses.sort_by(|x, y| y.0.total_cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    let worst_misses = misses
        .iter()
        .take(opts.worst)
        .map(|&(j, a, b)| Miss {
            id1: ids.name(a).to_owned(),
            id2: ids.name(b).to_owned(),
            jaccard: j,
        })
        .collect();

    let planted = planted_lines.map(|lines| {
        let mut per: Vec<KindRecall> = Vec::new();
        for (a, b, j, kind) in lines {
            let kind = kind.split('\t').next().unwrap_or("").to_owned();
            let k = match per.iter().position(|k| k.kind == kind) {
                Some(k) => k,
                None => {
                    per.push(KindRecall {
                        kind,
                        planted: 0,
                        at_threshold: 0,
                        found: 0,
                        found_below: 0,
                    });
                    per.len() - 1
                }
            };
            let hit = is_found(a, b);
            let r = &mut per[k];
            r.planted += 1;
            if j >= t - EPS {
                r.at_threshold += 1;
                r.found += u64::from(hit);
            } else {
                r.found_below += u64::from(hit);
            }
        }
        per
    });

    let found_n = found_raw.len() as u64;
    let ratio = |num: u64, den: u64| (den > 0).then(|| num as f64 / den as f64);
    let precision = ratio(true_positives, found_n);
    let recall = ratio(truth_found, truth_n);
    let f1 = match (precision, recall) {
        (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
        _ => None,
    };
    Ok(Score {
        threshold: t,
        margin: opts.margin,
        truth_threshold,
        found: found_n,
        true_positives,
        false_positives: found_n - true_positives,
        truth: truth_n,
        truth_found,
        false_negatives: truth_n - truth_found,
        truth_margin,
        truth_margin_found,
        exact_groups,
        precision,
        recall,
        recall_margin: ratio(truth_margin_found, truth_margin),
        f1,
        worst_misses,
        planted,
    })
}

/// A human-readable report of a [`Score`].
pub fn render_text(s: &Score) -> String {
    let pct = |x: Option<f64>| x.map_or("n/a".to_owned(), |v| format!("{:.4}", v));
    let mut out = String::new();
    let tm = s.threshold + s.margin;
    out.push_str(&format!(
        "threshold {} (truth file: ≥ {})\n\
         precision        {}  ({} of {} found pairs have J ≥ {})\n\
         recall@{:<8} {}  ({} of {} truth pairs)\n\
         recall@{:<8} {}  ({} of {} truth pairs)\n\
         f1               {}\n\
         TP {}  FP {}  FN {}  exact-duplicate groups {}\n",
        s.threshold,
        s.truth_threshold,
        pct(s.precision),
        s.true_positives,
        s.found,
        s.threshold,
        s.threshold,
        pct(s.recall),
        s.truth_found,
        s.truth,
        format!("{tm:.2}"),
        pct(s.recall_margin),
        s.truth_margin_found,
        s.truth_margin,
        pct(s.f1),
        s.true_positives,
        s.false_positives,
        s.false_negatives,
        s.exact_groups,
    ));
    if !s.worst_misses.is_empty() {
        out.push_str("most similar missed pairs:\n");
        for m in &s.worst_misses {
            out.push_str(&format!("  {}\t{}\t{:.6}\n", m.id1, m.id2, m.jaccard));
        }
    }
    if let Some(planted) = &s.planted {
        out.push_str("planted pairs by edit kind (recall among those with J ≥ threshold):\n");
        out.push_str("  kind          planted  ≥t      found   recall  found-below-t\n");
        for k in planted {
            let r = (k.at_threshold > 0).then(|| k.found as f64 / k.at_threshold as f64);
            out.push_str(&format!(
                "  {:<13} {:<8} {:<7} {:<7} {:<7} {}\n",
                k.kind,
                k.planted,
                k.at_threshold,
                k.found,
                pct(r),
                k.found_below
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Files {
        dir: std::path::PathBuf,
    }

    impl Files {
        fn new(name: &str) -> Files {
            let dir = std::env::temp_dir()
                .join(format!("lookalike-bench-score-{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Files { dir }
        }
        fn write(&self, name: &str, text: &str) -> std::path::PathBuf {
            let p = self.dir.join(name);
            std::fs::write(&p, text).unwrap();
            p
        }
    }

    impl Drop for Files {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    const TRUTH: &str = "# lookalike-eval truth threshold=0.5 shingle=words:5\n\
        a\tb\t1.000000\n\
        a\tc\t1.000000\n\
        b\tc\t1.000000\n\
        a\td\t0.900000\n\
        b\td\t0.900000\n\
        c\td\t0.900000\n\
        e\tf\t0.820000\n\
        g\th\t0.600000\n\
        i\tj\t0.950000\n";

    #[test]
    fn exact_groups_are_canonicalized() {
        let f = Files::new("canon");
        let truth = f.write("truth.tsv", TRUTH);
        // {a,b,c} is an exact group reported as a star from a; d joined to the group via c;
        // e-f found; g-h (0.6) found = false positive at 0.8; x-y not in truth = false positive;
        // i-j (0.95) missed.
        let found = f.write(
            "found.tsv",
            "id1\tid2\tsimilarity\na\tb\t1\nc\ta\t1.0\nc\td\t0.9\nf\te\t0.83\ng\th\t0.81\nx\ty\t0.8\n",
        );
        let s = score(&found, &truth, None, &ScoreOptions::default()).unwrap();
        assert_eq!(s.found, 6);
        assert_eq!(s.true_positives, 4); // a-b, a-c, c-d, e-f
        assert_eq!(s.false_positives, 2);
        assert_eq!(s.truth, 8); // everything but g-h
        assert_eq!(s.truth_found, 7); // all but i-j: b-c via the group, a-d and b-d via c-d
        assert_eq!(s.false_negatives, 1);
        assert_eq!(s.truth_margin, 7); // J ≥ 0.85: all but e-f and g-h
        assert_eq!(s.truth_margin_found, 6);
        assert_eq!(s.exact_groups, 1);
        assert_eq!(s.precision, Some(4.0 / 6.0));
        assert_eq!(s.recall, Some(7.0 / 8.0));
        assert_eq!(s.recall_margin, Some(6.0 / 7.0));
        assert_eq!(s.worst_misses, vec![Miss { id1: "i".into(), id2: "j".into(), jaccard: 0.95 }]);
    }

    #[test]
    fn without_canonicalization_star_pairs_would_be_missed() {
        let f = Files::new("star");
        let truth = f.write("truth.tsv", "# threshold=0.8\na\tb\t1.0\na\tc\t1.0\nb\tc\t1.0\n");
        let found = f.write("found.tsv", "a\tb\t1.0\na\tc\t1.0\n");
        let s = score(&found, &truth, None, &ScoreOptions::default()).unwrap();
        assert_eq!((s.truth, s.truth_found), (3, 3));
        // Estimated similarities below 1.0 make no exact group: b-c is then missed.
        let found = f.write("found2.tsv", "a\tb\t0.99\na\tc\t0.999\n");
        let s = score(&found, &truth, None, &ScoreOptions::default()).unwrap();
        assert_eq!((s.truth, s.truth_found), (3, 2));
        assert_eq!(s.precision, Some(1.0));
    }

    #[test]
    fn truth_threshold_is_checked() {
        let f = Files::new("thr");
        let truth = f.write("truth.tsv", "# threshold=0.9\na\tb\t0.95\n");
        let found = f.write("found.tsv", "a\tb\t0.95\n");
        assert!(score(&found, &truth, None, &ScoreOptions::default()).is_err());
        let opts = ScoreOptions { threshold: 0.9, ..Default::default() };
        let s = score(&found, &truth, None, &opts).unwrap();
        assert_eq!((s.precision, s.recall), (Some(1.0), Some(1.0)));
        assert_eq!(s.recall_margin, Some(1.0)); // 0.95 is ≥ 0.9 + 0.05
        let bare = f.write("bare.tsv", "a\tb\t0.95\n");
        assert!(score(&found, &bare, None, &ScoreOptions::default()).is_err());
        let opts = ScoreOptions { truth_threshold: Some(0.5), ..Default::default() };
        assert!(score(&found, &bare, None, &opts).is_ok());
    }

    #[test]
    fn planted_breakdown() {
        let f = Files::new("planted");
        let truth = f.write("truth.tsv", TRUTH);
        let found = f.write("found.tsv", "e\tf\t0.82\ng\th\t0.7\n");
        let planted = f.write(
            "planted.tsv",
            "# id1\tid2\tjaccard\tkind\ne\tf\t0.82\tlight\ni\tj\t0.95\tlight\ng\th\t0.6\texcerpt\n",
        );
        let s = score(&found, &truth, Some(&planted), &ScoreOptions::default()).unwrap();
        let p = s.planted.unwrap();
        assert_eq!(
            p,
            vec![
                KindRecall {
                    kind: "light".into(),
                    planted: 2,
                    at_threshold: 2,
                    found: 1,
                    found_below: 0
                },
                KindRecall {
                    kind: "excerpt".into(),
                    planted: 1,
                    at_threshold: 0,
                    found: 0,
                    found_below: 1
                },
            ]
        );
    }
}
