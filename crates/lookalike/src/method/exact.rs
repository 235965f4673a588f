//! [`Exact`]: exact copies only.

use super::options::{InIndex, MethodSpec};
use super::{CandidateReport, DocView, Head, Method, MethodKind, Slot};
use crate::config::MethodConfig;
use crate::error::Error;

/// Exact copies only: equal raw bytes or equal normalized text, found by the pipeline's exact
/// stage (128-bit fingerprints); no candidates, no verification.
#[derive(Debug, Clone, Copy, Default)]
pub struct Exact;

impl Method for Exact {
    type Doc = ();

    fn doc(&self, _doc: &DocView<'_>) {}

    fn push_heads(&mut self, _heads: Vec<Head<'_, ()>>) {}

    fn candidates(&self, _emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        Ok(CandidateReport::default())
    }

    fn estimate(&self, _a: Slot, _b: Slot) -> f64 {
        0.0
    }

    fn accepts(&self, _estimate: f64) -> bool {
        false
    }

    fn describe(&self) -> String {
        "method exact: same raw bytes or same normalized text".into()
    }

    fn reaches_containment(&self) -> bool {
        true
    }

    fn compares(&self) -> bool {
        false
    }
}

/// Exact copies in the registry: no options.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::Exact,
    options: &[],
    config: |_| Ok(MethodConfig::Exact),
    index: InIndex::NotYet,
    document_keys: super::doc_keyer::own_keys,
};
