//! A judged pool and its outputs: contract: "give me the runs' pairs and the texts, I give you
//! every pooled pair judged, every run scored, as a table, TSV and JSON".

use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;

use crate::Error;
use crate::judge::{Judge, Judgement, PairPool, PoolReport, PoolRunScore};
use crate::relation::{Ids, Relation};
use crate::report::{OverlapJson, fmt4, overlaps_json, text_table};

/// A pool whose pairs are judged, with every run's score.
#[derive(Debug, Clone)]
pub struct JudgedPool {
    /// The pooled pairs and which runs found them.
    pub pool: PairPool,
    /// The judgement of each pooled pair, in the order of [`PairPool::pairs`].
    pub judged: Vec<Judgement>,
    /// Every run's score against the pool.
    pub report: PoolReport,
}

impl JudgedPool {
    /// Judges every pair of `pool` (built from `runs`, in this order) with the `texts` of its
    /// documents and scores the runs. A document without a text is [`Error::MissingText`].
    pub fn judge(
        pool: PairPool,
        runs: &[&Relation],
        judge: &Judge,
        texts: &HashMap<u32, String>,
        ids: &Ids,
    ) -> Result<JudgedPool, Error> {
        let judged = pool
            .judge_all(judge, texts)
            .map_err(|missing| Error::MissingText { id: ids.name(missing).to_owned() })?;
        let report = pool.report(runs, judge, &judged);
        Ok(JudgedPool { pool, judged, report })
    }

    /// Writes `id1 id2 shingle_jaccard char_resemblance duplicate found_by`, one line per pooled
    /// pair after a `#` header line; `found_by` lists the `names` of the runs, comma-separated.
    /// Ids are escaped as `lookalike dedup --pairs` escapes them.
    pub fn write_tsv(
        &self,
        out: &mut impl Write,
        names: &[String],
        ids: &Ids,
    ) -> std::io::Result<()> {
        writeln!(out, "# id1\tid2\tshingle_jaccard\tchar_resemblance\tduplicate\tfound_by")?;
        let pool = &self.pool;
        for (k, (&(a, b), j)) in pool.pairs.iter().zip(&self.judged).enumerate() {
            let by: Vec<&str> = names
                .iter()
                .enumerate()
                .filter(|(i, _)| pool.found_by[k] & (1 << i) != 0)
                .map(|(_, n)| n.as_str())
                .collect();
            writeln!(
                out,
                "{}\t{}\t{:.6}\t{:.6}\t{}\t{}",
                escape(ids.name(a)),
                escape(ids.name(b)),
                j.jaccard,
                j.chars,
                u8::from(j.duplicate),
                by.join(",")
            )?;
        }
        Ok(())
    }
}

fn escape(id: &str) -> String {
    id.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

/// The JSON of a pool report, runs by name: what `lookalike eval pool --json` prints, and the
/// reference of `lookalike compare --json` without a gold standard.
#[derive(Debug, Clone, Serialize)]
pub struct PoolJson<'a> {
    threshold: f64,
    shingle: &'a str,
    judged_by: &'static str,
    pool: PoolCounts,
    runs: Vec<PoolRunJson<'a>>,
    overlaps: Vec<OverlapJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
struct PoolCounts {
    pairs: u64,
    duplicates: u64,
    by_shingles: u64,
    by_chars: u64,
}

#[derive(Debug, Clone, Serialize)]
struct PoolRunJson<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(flatten)]
    score: &'a PoolRunScore,
}

impl<'a> PoolJson<'a> {
    /// The report with the runs' `names` and, when given, their `files`.
    pub fn new(r: &'a PoolReport, names: &'a [String], files: Option<&'a [String]>) -> Self {
        PoolJson {
            threshold: r.threshold,
            shingle: &r.shingle,
            judged_by: "shingle Jaccard or char resemblance (LCS/(|a|+|b|-LCS)) >= threshold",
            pool: PoolCounts {
                pairs: r.pairs,
                duplicates: r.duplicates,
                by_shingles: r.by_shingles,
                by_chars: r.by_chars,
            },
            runs: r
                .runs
                .iter()
                .enumerate()
                .map(|(i, score)| PoolRunJson {
                    name: &names[i],
                    file: files.map(|f| f[i].as_str()),
                    score,
                })
                .collect(),
            overlaps: overlaps_json(&r.overlaps, names),
            kind: None,
        }
    }

    /// The same with a last field `"kind": kind` (as `compare` tells its reference).
    pub fn with_kind(self, kind: &'static str) -> Self {
        PoolJson { kind: Some(kind), ..self }
    }
}

/// The table `lookalike eval pool` prints: the pool, each run's scores, the runs' overlaps.
pub fn render_pool(r: &PoolReport, names: &[String]) -> String {
    let mut out = format!(
        "pool: {} pairs from {} runs, {} judged duplicates (shingle Jaccard >= {t}: {}, char \
         resemblance >= {t}: {}; {} shingles)\n",
        r.pairs,
        names.len(),
        r.duplicates,
        r.by_shingles,
        r.by_chars,
        r.shingle,
        t = r.threshold
    );
    let rows: Vec<Vec<String>> = r
        .runs
        .iter()
        .zip(names)
        .map(|(s, n)| {
            vec![
                n.clone(),
                s.score.found.to_string(),
                s.score.true_positives.to_string(),
                fmt4(s.score.precision),
                format!("{}/{}", s.score.reference_found, s.score.reference),
                fmt4(s.score.recall),
                fmt4(s.score.f1),
                format!("{} ({})", s.only_this, s.only_this_duplicates),
            ]
        })
        .collect();
    out.push_str(&text_table(
        &[
            "run",
            "found",
            "duplicates",
            "precision",
            "pool found",
            "recall",
            "F1",
            "only this run (duplicates)",
        ],
        &rows,
    ));
    if !r.overlaps.is_empty() {
        out.push('\n');
        let rows: Vec<Vec<String>> = r
            .overlaps
            .iter()
            .map(|o| {
                vec![
                    format!("{} / {}", names[o.a], names[o.b]),
                    o.shared.to_string(),
                    o.union.to_string(),
                    fmt4(o.jaccard),
                ]
            })
            .collect();
        out.push_str(&text_table(&["overlap", "shared", "union", "Jaccard"], &rows));
    }
    out
}
