//! [`MinS`]: MIN-s sampling (Broder 1997).

use super::samples::{PHASE, Samples};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, Slot};
use crate::config::{Measure, Sample, SampleConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::sample::MinSketch;

/// MIN-s: the s smallest shingle hashes; candidates share a sampled shingle (Broder's sort);
/// resemblance estimated as |MIN_s(A ∪ B) ∩ MIN_s(A) ∩ MIN_s(B)| / s.
#[derive(Debug)]
pub struct MinS {
    samples: Samples,
    sketch: MinSketch,
}

impl MinS {
    /// The method with validated settings (the sample must be `min:S`).
    pub fn new(config: SampleConfig, cx: Context) -> Result<MinS, Error> {
        let sample = config.effective(false, cx.measure);
        let Sample::Min(s) = sample else {
            return Err(ConfigError::SampleMismatch { method: MethodKind::MinS, sample }.into());
        };
        let sketch = MinSketch::new(s, cx.seed);
        Ok(MinS { samples: Samples::new(config, sample, cx)?, sketch })
    }
}

impl Method for MinS {
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
            Measure::Jaccard => self.sketch.resemblance(self.samples.of(a), self.samples.of(b)),
            Measure::Containment => self.samples.shared_over_smaller(a, b),
        }
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= self.samples.cx.threshold
    }

    fn describe(&self) -> String {
        self.samples.describe("min-s")
    }

    fn phase(&self) -> &'static str {
        PHASE
    }

    fn sample_len(&self, slot: Slot) -> usize {
        self.samples.of(slot).len()
    }
}
