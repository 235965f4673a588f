//! [`Broder`]: Broder's collection algorithm (Broder, Glassman, Manasse & Zweig 1997).

use super::samples::{Estimator, Sampled, Samples};
use super::{Context, MethodKind, Slot};
use crate::config::{Sample, SampleConfig};
use crate::error::Error;

/// Broder's algorithm: ⟨shingle, doc⟩ records of each head's sample sorted by shingle, pairs
/// emitted per shingle and counted in bounded memory; estimate = shared sample elements over the
/// smaller sample (the count over the sketch size).
pub type Broder = Sampled<BroderEstimate>;

/// Broder's estimator.
#[derive(Debug, Clone, Copy)]
pub struct BroderEstimate;

impl Estimator for BroderEstimate {
    const NAME: &'static str = MethodKind::Broder.name();

    fn estimate(&self, samples: &Samples, a: Slot, b: Slot) -> f64 {
        samples.shared_over_smaller(a, b)
    }

    fn reaches_containment(&self, samples: &Samples) -> bool {
        matches!(samples.sample(), Sample::Mod(_))
    }
}

impl Broder {
    /// The method with validated settings (any sample; MIN-128 by default, MOD-8 with
    /// containment).
    pub fn new(config: SampleConfig, cx: Context) -> Result<Broder, Error> {
        let sample = config.effective(false, cx.measure);
        Ok(Sampled::with(Samples::new(config, sample, cx)?, BroderEstimate))
    }
}

/// Broder's algorithm in the registry.
pub(super) static SPEC: super::options::MethodSpec = super::options::MethodSpec {
    kind: super::MethodKind::Broder,
    options: super::samples::OPTIONS,
    config: |v| Ok(crate::config::MethodConfig::Broder(super::samples::config_of(v))),
    index: super::options::InIndex::NotYet,
    document_keys: super::samples::no_document_keys,
};
