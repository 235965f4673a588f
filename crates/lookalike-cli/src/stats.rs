//! The run's figures: [`RunStats`] is what `dedup --stats` writes (and the run file of `--run`
//! holds), what `lookalike report` and `compare` read back, and what the report page shows. One
//! type on both sides, so that a field renamed in the writer is a parse error naming the field,
//! not a figure the page shows as 0.

use std::collections::BTreeMap;
use std::path::Path;

use lookalike::sketch::supershingles::SuperShingleConfig;
use lookalike::{DedupConfig, DedupStats, LshParams, MethodKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use lookalike_io::boilerplate::Removal;

/// The `--stats` JSON of a run. Every field is required when read, but two that run files written
/// before them lack (the page reads those files): `files_ignored` and `boilerplate` (both added
/// on 2026-11-28, after `--run` on 2026-11-24).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunStats {
    pub config: RunConfig,
    /// The LSH bands and rows (MinHash, combined); null for the other methods.
    #[serde(deserialize_with = "Option::deserialize")]
    pub lsh: Option<LshParams>,
    /// Records read: those given to the pipeline and those the readers skipped.
    pub documents: u64,
    pub bytes: u64,
    pub kept: u64,
    pub skipped: u64,
    pub skipped_by_reason: BTreeMap<String, u64>,
    pub input_errors: usize,
    /// Files found in folders and not read, by reason (absent in older run files: none).
    #[serde(default)]
    pub files_ignored: BTreeMap<String, u64>,
    pub pipeline: DedupStats,
    pub seconds: f64,
    pub read_seconds: f64,
    pub threads: usize,
    pub docs_per_second: f64,
    pub mb_per_second: f64,
    /// Where the OS tells it (Linux); null elsewhere.
    #[serde(deserialize_with = "Option::deserialize")]
    pub peak_rss_bytes: Option<u64>,
    /// The phases after reading, in order.
    pub stages: Vec<Stage>,
    pub method_description: String,
    /// What site boilerplate removal did; null when it did not run (absent in older run files).
    #[serde(default)]
    pub boilerplate: Option<Removal>,
}

/// A phase of the run after reading, with its seconds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stage {
    pub stage: String,
    pub seconds: f64,
}

/// The run's settings: the library's [`DedupConfig`] as it serializes itself (its shape is the
/// library's, written as it is), with `spill_dir` the folder the user named; and the settings the
/// page shows, read from it when it is made or read, so that a setting the library renames fails
/// there.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(into = "Value", try_from = "Value")]
pub struct RunConfig {
    json: Value,
    pub shown: Shown,
}

/// The settings the report page shows.
#[derive(Debug, Clone, Deserialize)]
pub struct Shown {
    #[serde(deserialize_with = "method_shown")]
    pub method: MethodShown,
    pub shingle: String,
    pub seed: u64,
    pub threshold: f64,
    pub verify: String,
    pub keep: String,
    pub cluster: String,
    pub measure: String,
}

/// The method: its name, and what its candidate curve needs.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodShown {
    pub name: String,
    pub curve: Curve,
}

/// What the candidate curve of a method without LSH bands is drawn from.
#[derive(Debug, Clone, PartialEq)]
pub enum Curve {
    SuperShingles(SuperShingleConfig),
    /// SimHash's Hamming distance (null: the one expected at the threshold).
    SimHash(Option<u32>),
    /// No curve of its own (or the LSH S-curve, from [`RunStats::lsh`]).
    None,
}

impl RunConfig {
    /// The settings of `config`, with `spill_dir` (the folder the user named, not the run's own
    /// folder inside it).
    pub fn new(config: &DedupConfig, spill_dir: Option<&Path>) -> anyhow::Result<RunConfig> {
        let mut json = serde_json::to_value(config)?;
        json["spill_dir"] = serde_json::json!(spill_dir);
        RunConfig::try_from(json)
            .map_err(|e| anyhow::anyhow!("the run's settings do not read back: config.{e}"))
    }
}

impl TryFrom<Value> for RunConfig {
    type Error = String;

    fn try_from(json: Value) -> Result<RunConfig, String> {
        let shown = serde_path_to_error::deserialize(&json).map_err(|e| error_at(&e))?;
        Ok(RunConfig { json, shown })
    }
}

impl From<RunConfig> for Value {
    fn from(config: RunConfig) -> Value {
        config.json
    }
}

/// `path: what` of a parse error (the path dotted, `.` for the top).
fn error_at<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>) -> String {
    format!("{}: {}", e.path(), e.inner())
}

/// `config.method`: `"exact"`, or `{"minhash": {…}}`.
fn method_shown<'de, D: serde::Deserializer<'de>>(d: D) -> Result<MethodShown, D::Error> {
    use serde::de::Error;
    #[derive(Deserialize)]
    struct SuperShingles {
        shape: SuperShingleConfig,
    }
    #[derive(Deserialize)]
    struct SimHash {
        #[serde(deserialize_with = "Option::deserialize")]
        max_distance: Option<u32>,
    }
    let value = Value::deserialize(d)?;
    let (name, settings) = match &value {
        Value::String(name) => (name.clone(), &Value::Null),
        Value::Object(m) if m.len() == 1 => {
            let (name, settings) = m.iter().next().expect("one key");
            (name.clone(), settings)
        }
        _ => return Err(D::Error::custom("neither a method's name nor {name: settings}")),
    };
    let at = |e: serde_json::Error| D::Error::custom(format!("{name}: {e}"));
    let kind = MethodKind::deserialize(Value::String(name.clone())).ok();
    let curve = match kind {
        Some(MethodKind::SuperShingles) => {
            Curve::SuperShingles(SuperShingles::deserialize(settings).map_err(at)?.shape)
        }
        Some(MethodKind::SimHash) => {
            Curve::SimHash(SimHash::deserialize(settings).map_err(at)?.max_distance)
        }
        _ => Curve::None,
    };
    Ok(MethodShown { name, curve })
}

impl RunStats {
    /// The statistics of a run file or a `--stats` file named `file`, or an error naming the
    /// file and the field that does not parse.
    pub fn from_value(value: &Value, file: &str) -> anyhow::Result<RunStats> {
        serde_path_to_error::deserialize(value).map_err(|e| {
            anyhow::anyhow!(
                "{file}: the run's statistics do not read at {} (written by another version?)",
                error_at(&e)
            )
        })
    }

    /// The `--stats` file's text: pretty JSON and a line break.
    pub fn to_pretty(&self) -> serde_json::Result<Vec<u8>> {
        let mut text = serde_json::to_vec_pretty(self)?;
        text.push(b'\n');
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use lookalike::{Dedup, DedupConfig, DocId, Document};
    use lookalike_io::SkippedPath;

    use super::*;
    use crate::summary::Summary;

    /// `n` words of a text drawn from `seed`.
    fn words(seed: u64, n: usize) -> String {
        (0..n as u64)
            .map(|i| format!("w{}", (seed * 7919 + i * 104_729) % 1000))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The statistics of a real small run: near and exact duplicates, a skipped record, a file
    /// ignored, a boilerplate figure, so that no field the page shows is at its default.
    fn written() -> RunStats {
        let config = DedupConfig { threshold: 0.6, ..DedupConfig::default() };
        let dedup = Dedup::new(config).unwrap();
        let mut docs = Vec::new();
        for i in 0..6u64 {
            let text = words(i, 80);
            let edited = text.replacen("w", "x", 6);
            docs.push(Document::from_text(format!("base{i}"), &text));
            docs.push(Document::from_text(format!("edit{i}"), &edited));
            docs.push(Document::from_text(format!("copy{i}"), &text));
        }
        let mut run = dedup.start().unwrap();
        run.add(docs).unwrap();
        let outcome = run.finish().unwrap();
        let reason = lookalike_io::SkipReason::not_a_document("binary: image/png");
        let ignored = [SkippedPath { path: "d/a.png".into(), reason }];
        let mut summary = Summary::new(1, &ignored);
        for (i, status) in outcome.statuses.iter().enumerate() {
            summary.document(&outcome.ids, DocId(i as u32), status);
        }
        summary.skip("empty (line 19)", &lookalike::SkipReason::EmptyText.into());
        summary.records = outcome.ids.len() as u64;
        summary.bytes = 12_345;
        summary.stats = outcome.stats;
        summary.read_time = std::time::Duration::from_millis(250);
        summary.total_time = std::time::Duration::from_millis(750);
        summary.threads = 3;
        summary.stages = vec![("clustering".into(), 0.125)];
        summary.boilerplate = Some(Removal { pages: 7, ..Removal::default() });
        let config = RunConfig::new(dedup.config(), Some(Path::new("/spill"))).unwrap();
        summary.run_stats(config, &dedup)
    }

    /// Regression: the page read the figures through JSON paths, 0 where one
    /// was missing. Read back as `report` reads them, the figures are the ones written, byte for
    /// byte, and none of those the page shows is at its default (a field skipped or defaulted
    /// when read would show here).
    #[test]
    fn the_stats_read_back_are_the_stats_written() {
        let stats = written();
        let text = stats.to_pretty().unwrap();
        let json: Value = serde_json::from_slice(&text).unwrap();
        let read = RunStats::from_value(&json, "s.json").unwrap();
        assert_eq!(
            String::from_utf8(read.to_pretty().unwrap()).unwrap(),
            String::from_utf8(text).unwrap()
        );
        let p = &read.pipeline;
        let shown = [
            read.documents,
            read.kept,
            read.skipped,
            read.skipped_by_reason.len() as u64,
            read.files_ignored.len() as u64,
            p.duplicates,
            p.exact_duplicates,
            p.near_pairs,
            p.pairs,
            p.clusters,
            p.candidates.pairs,
            p.verification.verified,
            p.verification.histogram.len() as u64,
            read.threads as u64,
            read.stages.len() as u64,
            read.boilerplate.map_or(0, |b| b.pages),
        ];
        assert!(shown.iter().all(|&n| n > 0), "{shown:?}");
        assert!(read.read_seconds > 0.0 && read.seconds > 0.0 && read.mb_per_second > 0.0);
        assert!(read.lsh.is_some() && !read.method_description.is_empty());
        let c = &read.config.shown;
        assert_eq!((c.threshold, c.seed, c.shingle.as_str()), (0.6, 1, "words:5"));
        assert_eq!((c.verify.as_str(), c.keep.as_str()), ("exact", "first"));
        assert_eq!((c.cluster.as_str(), c.measure.as_str()), ("center", "jaccard"));
        assert_eq!(c.method, MethodShown { name: "minhash".into(), curve: Curve::None });
        assert_eq!(json["config"]["spill_dir"], "/spill");
    }

    #[test]
    fn a_renamed_or_mistyped_field_is_named_with_the_file() {
        let mut json = serde_json::to_value(written()).unwrap();
        let verification = json["pipeline"]["verification"].as_object_mut().unwrap();
        let verified = verification.shift_remove("verified").unwrap();
        verification.insert("verified_pairs".into(), verified);
        let e = RunStats::from_value(&json, "run.json").unwrap_err().to_string();
        assert!(e.starts_with("run.json: "), "{e}");
        assert!(e.contains("pipeline.verification: missing field `verified`"), "{e}");
        let mut json = serde_json::to_value(written()).unwrap();
        json["config"]["threshold"] = "high".into();
        let e = RunStats::from_value(&json, "run.json").unwrap_err().to_string();
        assert!(e.contains("config: threshold: invalid type: string \"high\""), "{e}");
    }

    #[test]
    fn the_curve_settings_are_read_from_the_method() {
        let json = |method: Value| {
            serde_json::json!({"method": method, "shingle": "words:5",
            "seed": 1, "threshold": 0.8, "verify": "exact", "keep": "first", "cluster": "center",
            "measure": "jaccard"})
        };
        let shape =
            serde_json::json!({"minhashes": 84, "groups": 6, "per_group": 14, "mode": "single"});
        let c = RunConfig::try_from(json(serde_json::json!({"supershingles": {"shape": shape}})))
            .unwrap();
        let Curve::SuperShingles(cfg) = c.shown.method.curve else { panic!("{c:?}") };
        assert_eq!(
            (cfg.groups, cfg.mode),
            (6, lookalike::sketch::supershingles::SuperShingleMode::Single)
        );
        let c = RunConfig::try_from(json(serde_json::json!({"simhash": {"max_distance": null}})))
            .unwrap();
        assert_eq!(c.shown.method.curve, Curve::SimHash(None));
        let e =
            RunConfig::try_from(json(serde_json::json!({"simhash": {"distance": 3}}))).unwrap_err();
        assert!(e.contains("simhash: missing field `max_distance`"), "{e}");
        let c = RunConfig::try_from(json("exact".into())).unwrap();
        assert_eq!(c.shown.method, MethodShown { name: "exact".into(), curve: Curve::None });
    }
}
