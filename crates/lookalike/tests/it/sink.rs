//! Results pushed into a sink: the same results as collected in memory, in the documented order,
//! and a sink that returns `false` stops the delivery.

use lookalike::{
    Cluster, Collect, Dedup, DedupOutcome, DocId, DocStatus, MethodKind, RunReport, ScoredPair,
    Sink, Verify,
};

use crate::corpus::prose_collection;

/// Records every call, in order.
#[derive(Default)]
struct Recorder {
    calls: Vec<String>,
    /// Stop (return `false`) after this many calls.
    stop_after: Option<usize>,
}

impl Recorder {
    fn record(&mut self, call: String) -> Result<bool, lookalike::Error> {
        self.calls.push(call);
        Ok(self.stop_after.is_none_or(|n| self.calls.len() < n))
    }
}

impl Sink for Recorder {
    type Error = lookalike::Error;

    fn pair(&mut self, ids: &[String], p: &ScoredPair) -> Result<bool, Self::Error> {
        self.record(format!("pair {} {} {:?}", ids[p.a.index()], ids[p.b.index()], p))
    }

    fn cluster(&mut self, ids: &[String], c: &Cluster) -> Result<bool, Self::Error> {
        self.record(format!("cluster {} {:?}", ids[c.representative.index()], c))
    }

    fn unsigned(&mut self, _ids: &[String], doc: DocId, reason: &str) -> Result<bool, Self::Error> {
        self.record(format!("unsigned {} {reason}", doc.0))
    }

    fn document(
        &mut self,
        _ids: &[String],
        doc: DocId,
        s: &DocStatus,
    ) -> Result<bool, Self::Error> {
        self.record(format!("document {} {s:?}", doc.0))
    }

    fn finish(&mut self) -> Result<(), Self::Error> {
        self.calls.push("finish".into());
        Ok(())
    }
}

/// What a recorder must see for a collected outcome: pairs, clusters, unsigned documents, fates.
fn expected_calls(o: &DedupOutcome) -> Vec<String> {
    let mut calls = Vec::new();
    for p in &o.pairs {
        calls.push(format!("pair {} {} {:?}", o.ids[p.a.index()], o.ids[p.b.index()], p));
    }
    for c in &o.clusters {
        calls.push(format!("cluster {} {:?}", o.ids[c.representative.index()], c));
    }
    for (doc, reason) in &o.unsigned {
        calls.push(format!("unsigned {} {reason}", doc.0));
    }
    for (doc, s) in o.statuses.iter().enumerate() {
        calls.push(format!("document {doc} {s:?}"));
    }
    calls.push("finish".into());
    calls
}

fn run_into(dedup: &Dedup, docs: &[lookalike::Document], sink: &mut Recorder) -> RunReport {
    let mut run = dedup.start().unwrap();
    for chunk in docs.chunks(41) {
        run.add(chunk.to_vec()).unwrap();
    }
    run.finish_into(sink).unwrap()
}

#[test]
fn every_method_pushes_what_finish_collects_in_order() {
    let docs = prose_collection(12, 120, 160);
    for &method in MethodKind::ALL {
        for verify in [Verify::Exact, Verify::Estimate] {
            let dedup =
                Dedup::builder().method(method).threshold(0.7).verify(verify).build().unwrap();
            let mut run = dedup.start().unwrap();
            for chunk in docs.chunks(41) {
                run.add(chunk.to_vec()).unwrap();
            }
            let collected = run.finish().unwrap();
            let mut recorder = Recorder::default();
            let report = run_into(&dedup, &docs, &mut recorder);
            assert!(!report.stopped);
            assert_eq!(recorder.calls, expected_calls(&collected), "{method} {verify:?}");
            assert_eq!(report.ids, collected.ids);
            assert_eq!(report.unsigned, collected.unsigned);
            assert_eq!(format!("{:?}", report.stats), format!("{:?}", collected.stats));
        }
    }
}

#[test]
fn a_sink_that_returns_false_gets_nothing_more() {
    let docs = prose_collection(13, 100, 140);
    let dedup = Dedup::builder().threshold(0.7).build().unwrap();
    let mut all = Recorder::default();
    run_into(&dedup, &docs, &mut all);
    let pairs = all.calls.iter().filter(|c| c.starts_with("pair")).count();
    assert!(pairs > 5, "the collection must have pairs ({pairs})");
    for stop in [1, 3, pairs + 2, all.calls.len() - 1] {
        let mut some = Recorder { stop_after: Some(stop), ..Recorder::default() };
        let report = run_into(&dedup, &docs, &mut some);
        assert!(report.stopped, "stop after {stop}");
        assert_eq!(some.calls, all.calls[..stop], "stop after {stop}");
        assert!(!some.calls.contains(&"finish".to_owned()));
    }
}

/// Verification's progress, read as a run finishes (the progress line said
/// "eta 0s" through verification): nothing to verify before it, every candidate pair to verify
/// when its phase is announced, every one verified when clustering starts.
#[test]
fn verify_progress_counts_the_candidate_pairs() {
    let docs = prose_collection(12, 120, 160);
    for verify in [Verify::Exact, Verify::Estimate] {
        let dedup = Dedup::builder().threshold(0.7).verify(verify).build().unwrap();
        let mut run = dedup.start().unwrap();
        run.add(docs.clone()).unwrap();
        let progress = run.verify_progress();
        assert_eq!(progress.get(), (0, 0));
        let mut seen = Vec::new();
        let report = run
            .finish_into_with(&mut Collect::default(), &mut |phase| {
                seen.push((phase.to_owned(), progress.get()));
            })
            .unwrap();
        let candidates = report.stats.candidates.pairs;
        assert!(candidates > 5, "{verify:?}: {candidates} candidates");
        let at = |name: &str| seen.iter().find(|(p, _)| p == name).map(|(_, counts)| *counts);
        assert_eq!(at("verifying candidate pairs"), Some((0, candidates)), "{seen:?}");
        assert_eq!(at("clustering"), Some((candidates, candidates)), "{seen:?}");
        assert_eq!(progress.get(), (candidates, candidates));
    }
}
