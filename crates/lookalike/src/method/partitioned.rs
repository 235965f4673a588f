//! [`Partitioned`]: partitioned fingerprints (Pugh, US patent 6,658,423).

use super::keys::{self, Keys};
use super::{CandidateReport, Context, DocView, Head, Method, MethodStats, Slot};
use crate::error::{ConfigError, Error};
use crate::lexical::collection::TermCounts;
use crate::lexical::partitioned::{PartitionConfig, Partitioner};

/// Partitioned fingerprints: the document's terms split into L lists by hash, each list
/// fingerprinted; candidates share at least k fingerprints.
#[derive(Debug)]
pub struct Partitioned {
    config: PartitionConfig,
    partitioner: Partitioner,
    cx: Context,
    keys: Keys,
}

impl Partitioned {
    /// The method with validated settings.
    pub fn new(config: PartitionConfig, cx: Context) -> Result<Partitioned, Error> {
        let partitioner = Partitioner::new(config, cx.seed).map_err(ConfigError::from)?;
        Ok(Partitioned { config, partitioner, cx, keys: Keys::default() })
    }
}

impl Method for Partitioned {
    type Doc = Option<Result<Vec<u64>, String>>;

    fn doc(&self, doc: &DocView<'_>) -> Self::Doc {
        let terms = TermCounts::from_normalized(doc.norm, self.cx.seed);
        Some(self.partitioner.fingerprints(&terms).map_err(|e| e.to_string()))
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, Self::Doc>>) {
        for head in heads {
            self.keys.push(head.doc.unwrap_or_else(|| Err("no signature".to_owned())));
        }
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        self.keys.candidates(self.config.min_shared, emit);
        Ok(CandidateReport {
            method: MethodStats {
                unsigned: self.keys.unsigned().len() as u64,
                ..MethodStats::default()
            },
            ..CandidateReport::default()
        })
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        self.keys.estimate(a, b)
    }

    /// Enough equal lists are the method's own decision.
    fn accepts(&self, _estimate: f64) -> bool {
        true
    }

    fn describe(&self) -> String {
        keys::describe(
            "partitioned",
            &format!(
                "terms in {} lists, at least {} equal list fingerprints",
                self.config.lists, self.config.min_shared
            ),
            &self.cx,
        )
    }

    fn unsigned(&self) -> &[(Slot, String)] {
        self.keys.unsigned()
    }
}
