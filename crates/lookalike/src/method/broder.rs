//! [`Broder`]: Broder's collection algorithm (Broder, Glassman, Manasse & Zweig 1997).

use super::samples::{PHASE, Samples};
use super::{CandidateReport, Context, DocView, Head, Method, Slot};
use crate::config::{Sample, SampleConfig};
use crate::error::Error;

/// Broder's algorithm: ⟨shingle, doc⟩ records of each head's sample sorted by shingle, pairs
/// emitted per shingle and counted in bounded memory; estimate = shared sample elements over the
/// smaller sample (the count over the sketch size).
#[derive(Debug)]
pub struct Broder {
    samples: Samples,
}

impl Broder {
    /// The method with validated settings (any sample; MIN-128 by default, MOD-8 with
    /// containment).
    pub fn new(config: SampleConfig, cx: Context) -> Result<Broder, Error> {
        let sample = config.effective(false, cx.measure);
        Ok(Broder { samples: Samples::new(config, sample, cx)? })
    }
}

impl Method for Broder {
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
        self.samples.shared_over_smaller(a, b)
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= self.samples.cx.threshold
    }

    fn describe(&self) -> String {
        self.samples.describe("broder")
    }

    fn phase(&self) -> &'static str {
        PHASE
    }

    fn sample_len(&self, slot: Slot) -> usize {
        self.samples.of(slot).len()
    }

    fn reaches_containment(&self) -> bool {
        matches!(self.samples.sample, Sample::Mod(_))
    }
}
