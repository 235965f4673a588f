//! [`LongSentences`]: long-sentence signatures (Zelenkov & Segalovich 2007).

use super::keys::{self, Keys};
use super::{CandidateReport, Context, DocView, Head, Method, MethodStats, Slot};
use crate::error::Error;
use crate::lexical::lexsig::{self, LongSentenceConfig};
use crate::text::normalize::NormalizedText;

/// Long sentences: a hash of the document's longest sentences; candidates have an equal
/// signature.
#[derive(Debug)]
pub struct LongSentences {
    config: LongSentenceConfig,
    cx: Context,
    keys: Keys,
}

impl LongSentences {
    /// The method.
    pub fn new(config: LongSentenceConfig, cx: Context) -> LongSentences {
        LongSentences { config, cx, keys: Keys::default() }
    }
}

impl Method for LongSentences {
    type Doc = Option<Result<Vec<u64>, String>>;

    fn doc(&self, doc: &DocView<'_>) -> Self::Doc {
        let mut scratch = NormalizedText::default();
        Some(
            lexsig::long_sentence_signature(doc.text, &self.config, self.cx.seed, &mut scratch)
                .map(|k| vec![k])
                .map_err(|e| e.to_string()),
        )
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, Self::Doc>>) {
        for head in heads {
            self.keys.push(head.doc.unwrap_or_else(|| Err("no signature".to_owned())));
        }
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        self.keys.candidates(1, emit);
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

    /// Equal signatures are the method's own decision.
    fn accepts(&self, _estimate: f64) -> bool {
        true
    }

    fn describe(&self) -> String {
        keys::describe(
            "long-sentences",
            &format!("the {} longest sentences", self.config.sentences),
            &self.cx,
        )
    }

    fn unsigned(&self) -> &[(Slot, String)] {
        self.keys.unsigned()
    }
}
