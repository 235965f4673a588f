//! The run summary printed on stderr.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

use lookalike::{Dedup, DedupStats, DocId, DocStatus};
use lookalike_io::{InputError, SkipReason, SkippedPath};

use crate::stats::{RunConfig, RunStats, Stage};

/// How many examples of each kind of problem the summary shows.
const EXAMPLES: usize = 3;

#[derive(Default)]
struct Reason {
    count: u64,
    examples: Vec<String>,
    /// The WARC type of a class of WARC records that are not responses (`request`), which are
    /// expected in every crawl file: counted apart, not listed.
    warc_type: Option<String>,
}

impl Reason {
    fn add(&mut self, example: String) {
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(example);
        }
    }
}

pub struct Summary {
    inputs: usize,
    /// Files found in directories and not read, by reason.
    ignored: BTreeMap<String, u64>,
    pub records: u64,
    pub bytes: u64,
    pub read_time: Duration,
    pub total_time: Duration,
    pub threads: usize,
    skipped: BTreeMap<String, Reason>,
    warnings: BTreeMap<String, Reason>,
    unsigned: BTreeMap<String, Reason>,
    errors: Vec<InputError>,
    pub stats: DedupStats,
    kept: u64,
    /// The phases after reading, with their seconds, in order.
    pub stages: Vec<(String, f64)>,
    /// What site boilerplate removal did, when it ran.
    pub boilerplate: Option<lookalike_io::boilerplate::Removal>,
}

/// The class of a reason: its text up to the first colon ("invalid JSON: ..." → "invalid JSON").
fn class(reason: &str) -> String {
    reason.split(':').next().unwrap_or(reason).trim().to_owned()
}

impl Summary {
    pub fn new(inputs: usize, ignored: &[SkippedPath]) -> Self {
        let mut by_reason = BTreeMap::new();
        for file in ignored {
            *by_reason.entry(file.reason.to_string()).or_default() += 1;
        }
        Summary {
            inputs,
            ignored: by_reason,
            records: 0,
            bytes: 0,
            read_time: Duration::ZERO,
            total_time: Duration::ZERO,
            threads: 1,
            skipped: BTreeMap::new(),
            warnings: BTreeMap::new(),
            unsigned: BTreeMap::new(),
            errors: Vec::new(),
            stats: DedupStats::default(),
            kept: 0,
            stages: Vec::new(),
            boilerplate: None,
        }
    }

    pub fn skip(&mut self, id: &str, reason: &SkipReason) {
        let class = self.skipped.entry(reason.class().to_owned()).or_default();
        if let Some(warc_type) = reason.warc_type() {
            class.warc_type.get_or_insert_with(|| warc_type.to_owned());
        }
        class.add(format!("{id}: {reason}"));
    }

    pub fn warning(&mut self, id: &str, warning: &str) {
        self.warnings.entry(class(warning)).or_default().add(format!("{id}: {warning}"));
    }

    pub fn input_error(&mut self, e: InputError) {
        self.errors.push(e);
    }

    pub fn input_errors(&self) -> usize {
        self.errors.len()
    }

    /// A document's fate, as the run pushes it.
    pub fn document(&mut self, ids: &[String], doc: DocId, status: &DocStatus) {
        match status {
            DocStatus::Skipped { reason } => self.skip(&ids[doc.index()], &(*reason).into()),
            DocStatus::Kept => self.kept += 1,
            DocStatus::Duplicate { .. } => {}
        }
    }

    /// A document the method could not sign.
    pub fn unsigned(&mut self, ids: &[String], doc: DocId, reason: &str) {
        let id = &ids[doc.index()];
        self.unsigned.entry(class(reason)).or_default().add(format!("{id}: {reason}"));
    }

    /// Input errors, or skipped records other than WARC records that are not responses (those
    /// are expected in every crawl file).
    pub fn has_problems(&self) -> bool {
        !self.errors.is_empty() || self.skipped.values().any(|r| r.warc_type.is_none())
    }

    /// Records skipped by the readers or the pipeline, other than WARC records that are not
    /// responses.
    fn skipped_documents(&self) -> u64 {
        self.skipped.values().filter(|r| r.warc_type.is_none()).map(|r| r.count).sum()
    }

    /// Documents the pipeline compared: those read, less those it skipped (no tokens).
    fn compared(&self) -> u64 {
        self.records.saturating_sub(self.stats.skipped)
    }

    /// No document could be compared, and something failed: every input was unreadable or every
    /// record skipped. (An input that holds no record at all is not a failure.)
    pub fn nothing_read(&self) -> bool {
        self.compared() == 0 && (!self.errors.is_empty() || self.skipped_documents() > 0)
    }

    /// `N input errors, M records skipped`, the counts that explain an empty run.
    pub fn failures_line(&self) -> String {
        let (e, k) = (self.errors.len(), self.skipped_documents());
        format!(
            "{e} input error{}, {k} record{} skipped",
            if e == 1 { "" } else { "s" },
            if k == 1 { "" } else { "s" }
        )
    }

    pub fn render(&self, dedup: &Dedup) -> String {
        let mut s = String::new();
        self.render_counts(&mut s);
        self.render_boilerplate(&mut s);
        let _ = writeln!(s, "  {}", dedup.describe());
        render_method(&mut s, &self.stats.method);
        self.render_groups_and_time(&mut s);
        self.render_examples(&mut s);
        s
    }

    /// The documents read, kept, removed and skipped, and the pairs found.
    fn render_counts(&self, s: &mut String) {
        let st = &self.stats;
        let secs = self.total_time.as_secs_f64().max(1e-9);
        let mb = self.bytes as f64 / 1e6;
        // WARC records that are not responses (requests, metadata, ...) are records, not
        // documents: counted apart.
        let warc_other: u64 =
            self.skipped.values().filter(|r| r.warc_type.is_some()).map(|r| r.count).sum();
        let skipped: u64 = self.skipped.values().map(|r| r.count).sum::<u64>() - warc_other;
        if self.compared() == 0 {
            // Rates of nothing say nothing: say what happened instead.
            let _ = writeln!(
                s,
                "lookalike: no document to compare from {} input{} in {secs:.2} s ({})",
                self.inputs,
                if self.inputs == 1 { "" } else { "s" },
                self.failures_line(),
            );
        } else {
            let _ = writeln!(
                s,
                "lookalike: {} documents ({mb:.1} MB) from {} input{} in {secs:.2} s: {:.1} MB/s, {:.0} docs/s, {} thread{}",
                self.records + self.skipped_by_reader() - warc_other,
                self.inputs,
                if self.inputs == 1 { "" } else { "s" },
                mb / secs,
                self.records as f64 / secs,
                self.threads,
                if self.threads == 1 { "" } else { "s" },
            );
        }
        if !self.ignored.is_empty() {
            let _ = writeln!(s, "  {}", ignored_line(&self.ignored));
        }
        if warc_other > 0 {
            let kinds: Vec<String> = self
                .skipped
                .values()
                .filter_map(|r| r.warc_type.as_ref().map(|kind| format!("{} {kind}", r.count)))
                .collect();
            let _ = writeln!(
                s,
                "  WARC records other than responses: {warc_other} ({})",
                kinds.join(", ")
            );
        }
        let _ = writeln!(
            s,
            "  kept {}   duplicates removed {} ({} exact copies, {} near)   skipped {skipped}",
            self.kept,
            st.duplicates,
            st.exact_duplicates,
            st.duplicates.saturating_sub(st.exact_duplicates),
        );
        let _ = writeln!(
            s,
            "  near-duplicate pairs {}   pairs listed {}   clusters {}   candidates {}",
            st.near_pairs, st.pairs, st.clusters, st.candidates.pairs
        );
    }

    /// What site boilerplate removal took out.
    fn render_boilerplate(&self, s: &mut String) {
        if let Some(b) = self.boilerplate.as_ref().filter(|b| b.pages > 0) {
            let share = b.removed_bytes as f64 / (b.before_bytes as f64).max(1.0);
            let _ = writeln!(
                s,
                "  site boilerplate: {} of {} sites have a template ({} template lines); {:.1}% of \
                 the pages' text removed; {} pages compared by their visible text (main content \
                 was template), {} stubs compared as they are (nothing but template in their main \
                 content), {} skipped as nothing but template",
                b.sites_with_template,
                b.sites,
                b.template_blocks,
                100.0 * share,
                b.visible_fallbacks,
                b.template_pages,
                b.only_template,
            );
        }
    }

    /// Large LSH buckets, pairs over the bound, and the time of each part.
    fn render_groups_and_time(&self, s: &mut String) {
        let st = &self.stats;
        if st.candidates.capped_buckets > 0 {
            let _ = writeln!(
                s,
                "  large LSH buckets: {} (largest {} documents), {} distinct groups compared all-pairs{}",
                st.candidates.capped_buckets,
                st.candidates.largest_bucket,
                st.candidates.groups - st.candidates.groups_over_bound,
                if st.candidates.groups_over_bound > 0 {
                    format!(
                        "; {} over --max-pairs-per-group compared with anchors ({} pairs not compared)",
                        st.candidates.groups_over_bound, st.candidates.capped_pairs_skipped
                    )
                } else {
                    String::new()
                }
            );
        }
        if st.pair_groups_over_bound > 0 {
            let _ = writeln!(
                s,
                "  pairs not listed: {} in {} groups over --max-pairs-per-group (listed by their first document)",
                st.pairs_not_listed, st.pair_groups_over_bound
            );
        }
        let _ = writeln!(
            s,
            "  time: reading+sketching {:.2} s, candidates+verification+output {:.2} s",
            self.read_time.as_secs_f64(),
            (self.total_time - self.read_time).as_secs_f64()
        );
    }

    /// Skipped records, warnings and unsigned documents by class, with examples, and the input
    /// errors.
    fn render_examples(&self, s: &mut String) {
        for (title, map) in [
            ("skipped", &self.skipped),
            ("warning", &self.warnings),
            ("no signature (kept, compared by the exact stage only)", &self.unsigned),
        ] {
            for (class, r) in map {
                if title == "skipped" && r.warc_type.is_some() {
                    continue;
                }
                let _ = writeln!(s, "  {title}: {class}: {}", r.count);
                for e in &r.examples {
                    let _ = writeln!(s, "    e.g. {e}");
                }
            }
        }
        if !self.errors.is_empty() {
            let _ = writeln!(s, "  input errors: {}", self.errors.len());
            for e in self.errors.iter().take(EXAMPLES) {
                let _ = writeln!(s, "    {e}");
            }
        }
    }

    /// The figures `--stats` writes (and `lookalike compare` reads), with the run's settings.
    pub fn run_stats(&self, config: RunConfig, dedup: &Dedup) -> RunStats {
        let secs = self.total_time.as_secs_f64().max(1e-9);
        let skipped: u64 = self.skipped.values().map(|r| r.count).sum();
        RunStats {
            config,
            lsh: self.stats.lsh,
            documents: self.records + self.skipped_by_reader(),
            bytes: self.bytes,
            kept: self.kept,
            skipped,
            skipped_by_reason: self.skipped.iter().map(|(k, r)| (k.clone(), r.count)).collect(),
            input_errors: self.errors.len(),
            files_ignored: self.ignored.clone(),
            pipeline: self.stats.clone(),
            seconds: secs,
            read_seconds: self.read_time.as_secs_f64(),
            threads: self.threads,
            docs_per_second: self.records as f64 / secs,
            mb_per_second: self.bytes as f64 / 1e6 / secs,
            peak_rss_bytes: peak_rss_bytes(),
            stages: self
                .stages
                .iter()
                .map(|(stage, seconds)| Stage { stage: stage.clone(), seconds: *seconds })
                .collect(),
            method_description: dedup.describe(),
            boilerplate: self.boilerplate.clone(),
        }
    }

    fn skipped_by_reader(&self) -> u64 {
        // Records skipped by the reader never reached the pipeline; pipeline skips are in records.
        let pipeline: u64 = self.stats.skipped;
        let all: u64 = self.skipped.values().map(|r| r.count).sum();
        all.saturating_sub(pipeline)
    }
}

/// The lines of a method's own figures (Broder's algorithm, samples, SimHash tables, the
/// combined method's filter), when it has them.
fn render_method(s: &mut String, m: &lookalike::MethodStats) {
    if let Some(b) = &m.broder {
        let _ = writeln!(
            s,
            "  Broder's algorithm: {} records, {} shingles ({} shared by more than L documents, skipped), {} pairs emitted, {} distinct, {} sorted runs spilled ({:.1} MB)",
            b.records,
            b.shingles,
            b.shingles_skipped,
            b.pairs_emitted,
            b.distinct_pairs,
            b.runs_written,
            b.bytes_spilled as f64 / 1e6
        );
        if b.groups > 0 {
            let _ = writeln!(
                s,
                "  frequent-shingle groups: {} documents mostly made of frequent shingles, {} distinct groups, {} candidate pairs{}",
                b.saturated,
                b.groups,
                b.group_pairs,
                if b.groups_over_bound > 0 {
                    format!(
                        " ({} groups over --max-pairs-per-group compared with anchors, {} pairs not compared)",
                        b.groups_over_bound, b.group_pairs_skipped
                    )
                } else {
                    String::new()
                }
            );
        }
    }
    if m.short_samples > 0 {
        let _ = writeln!(
            s,
            "  documents too short for a MOD-m sample, sampled by their {} smallest shingle hashes (they meet other short documents only): {}",
            lookalike::method::SHORT_SAMPLE,
            m.short_samples
        );
    }
    if let Some(b) = &m.short_parts {
        let _ = writeln!(
            s,
            "  short documents (MOD-m sample under {} elements) also sampled by their {} smallest other shingle hashes, counted apart: {} documents, {} pairs emitted, {} distinct, {} candidates",
            lookalike::method::SHORT_PART_BELOW,
            lookalike::method::SHORT_PART,
            b.documents,
            b.pairs_emitted + b.group_pairs,
            b.distinct_pairs,
            b.pairs_reported
        );
    }
    if m.empty_samples > 0 {
        let _ = writeln!(
            s,
            "  documents with an empty sample (too short for the sample; they meet no other document): {}",
            m.empty_samples
        );
    }
    if let Some((blocks, tables)) = m.simhash_tables {
        let _ = writeln!(s, "  SimHash tables: {blocks} blocks, {tables} tables");
    }
    if let Some(c) = m.combined {
        let _ = writeln!(
            s,
            "  SimHash filter: {} LSH candidates, {} dropped (fingerprints too far apart), {} kept",
            c.lsh_pairs,
            c.simhash_rejected,
            c.lsh_pairs - c.simhash_rejected
        );
    }
}

/// `files ignored (found in folders, not read): N (reason: n; ...)`, the most frequent reasons
/// first, at most [`IGNORED_REASONS`] of them (`--report` lists every file with its reason).
pub fn ignored_line(by_reason: &BTreeMap<String, u64>) -> String {
    let total: u64 = by_reason.values().sum();
    let mut reasons: Vec<(&String, &u64)> = by_reason.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let more = reasons.len().saturating_sub(IGNORED_REASONS);
    let mut shown: Vec<String> =
        reasons.iter().take(IGNORED_REASONS).map(|(r, n)| format!("{r}: {n}")).collect();
    if more > 0 {
        shown.push(format!("{more} more reasons in --report"));
    }
    format!("files ignored (found in folders, not read): {total} ({})", shown.join("; "))
}

/// How many reasons [`ignored_line`] shows.
const IGNORED_REASONS: usize = 6;

/// Peak resident set size of this process (VmHWM), where the OS tells it (Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ignored_line_shows_the_most_frequent_reasons() {
        let by_reason: BTreeMap<String, u64> =
            (1..=8u64).map(|i| (format!("reason {i}"), i * 10)).collect();
        assert_eq!(
            ignored_line(&by_reason),
            "files ignored (found in folders, not read): 360 (reason 8: 80; reason 7: 70; \
             reason 6: 60; reason 5: 50; reason 4: 40; reason 3: 30; 2 more reasons in --report)"
        );
        let two: BTreeMap<String, u64> = [("b".to_owned(), 1), ("a".to_owned(), 1)].into();
        assert_eq!(
            ignored_line(&two),
            "files ignored (found in folders, not read): 2 (a: 1; b: 1)"
        );
    }
}
