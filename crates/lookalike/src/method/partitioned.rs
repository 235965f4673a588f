//! [`Partitioned`]: partitioned fingerprints (Pugh, US patent 6,658,423).

use super::Context;
use super::DocView;
use super::keys::{self, DocSigned, DocSigner};
use crate::error::{ConfigError, Error};
use crate::lexical::collection::TermCounts;
use crate::lexical::partitioned::{PartitionConfig, Partitioner};

/// Partitioned fingerprints: the document's terms split into L lists by hash, each list
/// fingerprinted; candidates share at least k fingerprints.
pub type Partitioned = DocSigned<PartitionSigner>;

/// Signs a document with its list fingerprints.
#[derive(Debug)]
pub struct PartitionSigner {
    config: PartitionConfig,
    partitioner: Partitioner,
    seed: u64,
}

impl DocSigner for PartitionSigner {
    fn sign(&self, doc: &DocView<'_>) -> Result<Vec<u64>, String> {
        let terms = TermCounts::from_normalized(doc.norm, self.seed);
        self.partitioner.fingerprints(&terms).map_err(|e| e.to_string())
    }

    fn min_shared(&self) -> usize {
        self.config.min_shared
    }

    fn describe(&self, cx: &Context) -> String {
        keys::describe(
            "partitioned",
            &format!(
                "terms in {} lists, at least {} equal list fingerprints",
                self.config.lists, self.config.min_shared
            ),
            cx,
        )
    }
}

impl Partitioned {
    /// The method with validated settings.
    pub fn new(config: PartitionConfig, cx: Context) -> Result<Partitioned, Error> {
        let partitioner = Partitioner::new(config, cx.seed).map_err(ConfigError::from)?;
        Ok(DocSigned::with(PartitionSigner { config, partitioner, seed: cx.seed }, cx))
    }
}
