//! [`ModM`]: MOD-m sampling (Broder 1997).

use super::samples::{PHASE, Samples};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, Slot};
use crate::config::{Measure, Sample, SampleConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::sample::ModSketch;

/// MOD-m: the shingle hashes ≡ 0 mod m; candidates share a sampled shingle (Broder's sort);
/// resemblance estimated as |MOD(A ∪ B) ∩ MOD(A) ∩ MOD(B)| / |MOD(A ∪ B)|, containment as
/// shared over the smaller sample.
#[derive(Debug)]
pub struct ModM {
    samples: Samples,
}

impl ModM {
    /// The method with validated settings (the sample must be `mod:M`).
    pub fn new(config: SampleConfig, cx: Context) -> Result<ModM, Error> {
        let sample = config.effective(true, cx.measure);
        if let Sample::Min(_) = sample {
            return Err(ConfigError::SampleMismatch { method: MethodKind::ModM, sample }.into());
        }
        Ok(ModM { samples: Samples::new(config, sample, cx)? })
    }
}

impl Method for ModM {
    type Doc = Vec<u64>;

    fn doc(&self, doc: &DocView<'_>) -> Vec<u64> {
        self.samples.doc(doc)
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, Vec<u64>>>) {
        self.samples.push_heads(heads);
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        self.samples.candidates(emit)
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        match self.samples.cx.measure {
            Measure::Jaccard => ModSketch::resemblance(self.samples.of(a), self.samples.of(b)),
            Measure::Containment => self.samples.shared_over_smaller(a, b),
        }
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= self.samples.cx.threshold
    }

    fn describe(&self) -> String {
        self.samples.describe("mod-m")
    }

    fn phase(&self) -> &'static str {
        PHASE
    }

    fn sample_len(&self, slot: Slot) -> usize {
        self.samples.of(slot).len()
    }

    fn reaches_containment(&self) -> bool {
        true
    }
}
