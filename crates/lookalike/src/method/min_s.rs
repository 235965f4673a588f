//! [`MinS`]: MIN-s sampling (Broder 1997).

use super::samples::{Estimator, Sampled, Samples};
use super::{Context, MethodKind, Slot};
use crate::config::{Measure, Sample, SampleConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::sample::MinSketch;

/// MIN-s: the s smallest shingle hashes; candidates share a sampled shingle (Broder's sort);
/// resemblance estimated as |MIN_s(A ∪ B) ∩ MIN_s(A) ∩ MIN_s(B)| / s.
pub type MinS = Sampled<MinSEstimate>;

/// MIN-s's estimator.
#[derive(Debug, Clone, Copy)]
pub struct MinSEstimate {
    sketch: MinSketch,
}

impl Estimator for MinSEstimate {
    const NAME: &'static str = MethodKind::MinS.name();

    fn estimate(&self, samples: &Samples, a: Slot, b: Slot) -> f64 {
        match samples.context().measure {
            Measure::Jaccard => self.sketch.resemblance(samples.of(a), samples.of(b)),
            Measure::Containment => samples.shared_over_smaller(a, b),
        }
    }
}

impl MinS {
    /// The method with validated settings (the sample must be `min:S`).
    pub fn new(config: SampleConfig, cx: Context) -> Result<MinS, Error> {
        let sample = config.effective(false, cx.measure);
        let Sample::Min(s) = sample else {
            return Err(ConfigError::SampleMismatch { method: MethodKind::MinS, sample }.into());
        };
        let sketch = MinSketch::new(s, cx.seed);
        Ok(Sampled::with(Samples::new(config, sample, cx)?, MinSEstimate { sketch }))
    }
}

/// MIN-s in the registry.
pub(super) static SPEC: super::options::MethodSpec = super::options::MethodSpec {
    kind: super::MethodKind::MinS,
    options: super::samples::OPTIONS,
    config: |v| Ok(crate::config::MethodConfig::MinS(super::samples::config_of(v))),
    index: super::options::InIndex::NotYet,
    document_keys: super::samples::no_document_keys,
};
