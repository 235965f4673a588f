//! Where results go. Contract: "push me pairs, clusters and document fates as they are decided;
//! I return `false` when I have enough".
//!
//! The ripgrep habit (`grep_searcher::Sink`): every output — a TSV or JSONL file, an index, a
//! Python caller's table — is a [`Sink`], and a run pushes into it instead of returning one large
//! value. [`Collect`] gathers everything in memory ([`crate::DedupRun::finish`] uses it).

use crate::document::DocId;
use crate::error::Error;
use crate::pipeline::outcome::{Cluster, DocStatus, ScoredPair};

/// Receives a run's results, in this order: every verified pair (exact copies and near
/// duplicates, sorted by `(a, b)`), then every cluster (ordered by its smallest member), then the
/// documents the method could not sign (in input order), then every document's fate (in input
/// order), then [`finish`](Sink::finish). Documents are input indices ([`DocId`]);
/// `ids[doc.index()]` is document `doc`'s id. Returning `Ok(false)` stops the delivery: nothing
/// more is pushed, `finish` included.
pub trait Sink {
    /// The sink's error; the run's own errors convert into it.
    type Error: From<Error>;

    /// A verified pair.
    fn pair(&mut self, ids: &[String], pair: &ScoredPair) -> Result<bool, Self::Error> {
        let _ = (ids, pair);
        Ok(true)
    }

    /// A cluster of two or more documents.
    fn cluster(&mut self, ids: &[String], cluster: &Cluster) -> Result<bool, Self::Error> {
        let _ = (ids, cluster);
        Ok(true)
    }

    /// A document the method could not sign (lexical methods: too few lexicon terms, too
    /// short), with the reason; it is kept and compared by nothing but the exact stage.
    fn unsigned(&mut self, ids: &[String], doc: DocId, reason: &str) -> Result<bool, Self::Error> {
        let _ = (ids, doc, reason);
        Ok(true)
    }

    /// The fate of document `doc`.
    fn document(
        &mut self,
        ids: &[String],
        doc: DocId,
        status: &DocStatus,
    ) -> Result<bool, Self::Error> {
        let _ = (ids, doc, status);
        Ok(true)
    }

    /// The end of the delivery (flush buffers here).
    fn finish(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    type Error = S::Error;

    fn pair(&mut self, ids: &[String], pair: &ScoredPair) -> Result<bool, Self::Error> {
        (**self).pair(ids, pair)
    }

    fn cluster(&mut self, ids: &[String], cluster: &Cluster) -> Result<bool, Self::Error> {
        (**self).cluster(ids, cluster)
    }

    fn unsigned(&mut self, ids: &[String], doc: DocId, reason: &str) -> Result<bool, Self::Error> {
        (**self).unsigned(ids, doc, reason)
    }

    fn document(
        &mut self,
        ids: &[String],
        doc: DocId,
        status: &DocStatus,
    ) -> Result<bool, Self::Error> {
        (**self).document(ids, doc, status)
    }

    fn finish(&mut self) -> Result<(), Self::Error> {
        (**self).finish()
    }
}

/// Collects everything in memory.
#[derive(Debug, Default)]
pub struct Collect {
    /// The pairs, in the order pushed.
    pub pairs: Vec<ScoredPair>,
    /// The clusters, in the order pushed.
    pub clusters: Vec<Cluster>,
    /// Every document's fate, by input index.
    pub statuses: Vec<DocStatus>,
}

impl Sink for Collect {
    type Error = Error;

    fn pair(&mut self, _ids: &[String], pair: &ScoredPair) -> Result<bool, Error> {
        self.pairs.push(*pair);
        Ok(true)
    }

    fn cluster(&mut self, _ids: &[String], cluster: &Cluster) -> Result<bool, Error> {
        self.clusters.push(cluster.clone());
        Ok(true)
    }

    fn document(
        &mut self,
        _ids: &[String],
        _doc: DocId,
        status: &DocStatus,
    ) -> Result<bool, Error> {
        self.statuses.push(status.clone());
        Ok(true)
    }
}
