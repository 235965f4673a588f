//! [`Partitioned`]: partitioned fingerprints (Pugh, US patent 6,658,423).

use super::doc_keyer::{
    DocKeys, DocumentKeys, KeyerError, Keying, KeyingInput, MAX_SUBSET_KEYS, signed,
};
use super::keys::{self, DocSigned, DocSigner};
use super::options::{InIndex, MethodOption, MethodSpec};
use super::{Context, DocView, Method, MethodKind};
use crate::candidates::hamming::binomial;
use crate::config::MethodConfig;
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
            MethodKind::Partitioned.name(),
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

/// `lists`: L, the term lists.
pub(super) static LISTS: MethodOption = MethodOption::count(
    "lists",
    "L",
    "Partitioned fingerprints: number of term lists L (a change of fewer than L terms leaves \
           at least one list intact)",
)
.with_default(|| PartitionConfig::default().lists.to_string());

/// `min_shared`: k, the shared fingerprints of a candidate.
pub(super) static MIN_SHARED: MethodOption = MethodOption::count(
    "min_shared",
    "K",
    "Partitioned fingerprints: equal list fingerprints that make two documents candidates",
)
.with_default(|| PartitionConfig::default().min_shared.to_string());

/// Partitioned fingerprints in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::Partitioned,
    options: &[&LISTS, &MIN_SHARED],
    config: |v| {
        let d = PartitionConfig::default();
        Ok(MethodConfig::Partitioned(PartitionConfig {
            lists: v.get("lists").unwrap_or(d.lists),
            min_shared: v.get("min_shared").unwrap_or(d.min_shared),
            ..d
        }))
    },
    index: InIndex::Yes,
    document_keys: keys_of,
};

/// Partitioned fingerprints' keys of a document: its list fingerprints (k = 1), or one key per
/// k-subset of them.
#[derive(Debug)]
struct PartitionedKeys {
    method: Partitioned,
    min_shared: usize,
}

impl DocumentKeys for PartitionedKeys {
    fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        signed(self.method.doc(doc), self.min_shared)
    }
}

/// Partitioned fingerprints' per-document keys ([`DocumentKeys`]): refused when a document
/// would have more than [`MAX_SUBSET_KEYS`] subset keys.
fn keys_of(input: KeyingInput<'_>) -> Keying {
    let MethodConfig::Partitioned(m) = &input.config.method else {
        unreachable!("the partitioned spec keys a partitioned configuration")
    };
    let subsets = binomial(m.lists, m.min_shared.max(1));
    if subsets.is_none_or(|s| s as u64 > MAX_SUBSET_KEYS) {
        let count = subsets.map_or_else(|| "more than 2^64".to_owned(), |s| s.to_string());
        return Err(KeyerError::NoDocumentKeys(format!(
            "partitioned with {} lists and k = {} needs C({}, {}) = {count} keys per document (at most {MAX_SUBSET_KEYS})",
            m.lists, m.min_shared, m.lists, m.min_shared
        )));
    }
    Ok(Box::new(PartitionedKeys {
        method: Partitioned::new(*m, input.context())?,
        min_shared: m.min_shared.max(1),
    }))
}
