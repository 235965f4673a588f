//! [`ModM`]: MOD-m sampling (Broder 1997).

use super::samples::{Estimator, Sampled, Samples};
use super::{Context, MethodKind, Slot};
use crate::config::{Measure, Sample, SampleConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::sample::ModSketch;

/// MOD-m: the shingle hashes ≡ 0 mod m; candidates share a sampled shingle (Broder's sort);
/// resemblance estimated as |MOD(A ∪ B) ∩ MOD(A) ∩ MOD(B)| / |MOD(A ∪ B)|, containment as
/// shared over the smaller sample.
pub type ModM = Sampled<ModMEstimate>;

/// MOD-m's estimator.
#[derive(Debug, Clone, Copy)]
pub struct ModMEstimate;

impl Estimator for ModMEstimate {
    const NAME: &'static str = MethodKind::ModM.name();

    fn estimate(&self, samples: &Samples, a: Slot, b: Slot) -> f64 {
        match samples.context().measure {
            Measure::Jaccard => ModSketch::resemblance(samples.of(a), samples.of(b)),
            Measure::Containment => samples.shared_over_smaller(a, b),
        }
    }

    fn reaches_containment(&self, _samples: &Samples) -> bool {
        true
    }
}

impl ModM {
    /// The method with validated settings (the sample must be `mod:M`).
    pub fn new(config: SampleConfig, cx: Context) -> Result<ModM, Error> {
        let sample = config.effective(true, cx.measure);
        if let Sample::Min(_) = sample {
            return Err(ConfigError::SampleMismatch { method: MethodKind::ModM, sample }.into());
        }
        Ok(Sampled::with(Samples::new(config, sample, cx)?, ModMEstimate))
    }
}

/// MOD-m in the registry.
pub(super) static SPEC: super::options::MethodSpec = super::options::MethodSpec {
    kind: super::MethodKind::ModM,
    options: super::samples::OPTIONS,
    config: |v| Ok(crate::config::MethodConfig::ModM(super::samples::config_of(v))),
    index: super::options::InIndex::NotYet,
    document_keys: super::samples::no_document_keys,
};
