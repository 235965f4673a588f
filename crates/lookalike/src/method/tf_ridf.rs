//! [`TfRidf`]: TF*RIDF signatures (Zelenkov & Segalovich 2007).

use super::keys::{self, LexDoc, Signer, StatSigned};
use super::{CandidateReport, Context, DocView, Head, Method, Slot};
use crate::config::TfRidfSettings;
use crate::error::Error;
use crate::lexical::collection::{CollectionStats, TermCounts};
use crate::lexical::lexsig::{self, TfRidfConfig};

/// Signs with the collection statistics and the settings.
#[derive(Debug)]
struct RidfSigner {
    stats: CollectionStats,
    config: TfRidfConfig,
    seed: u64,
}

impl Signer for RidfSigner {
    fn sign(&self, doc: &TermCounts) -> Result<Vec<u64>, String> {
        lexsig::tf_ridf_signature(doc, &self.stats, &self.config, self.seed)
            .map(|k| vec![k])
            .map_err(|e| e.to_string())
    }

    fn terms(&self) -> u64 {
        self.stats.len() as u64
    }
}

/// TF*RIDF: a hash of the document's words of highest tf × residual IDF; candidates have an
/// equal signature.
#[derive(Debug)]
pub struct TfRidf {
    config: TfRidfConfig,
    source: String,
    cx: Context,
    signed: StatSigned<RidfSigner>,
}

impl TfRidf {
    /// The method (with a lexicon file, signed with its statistics).
    pub fn new(settings: &TfRidfSettings, cx: Context) -> Result<TfRidf, Error> {
        let config = settings.tf_ridf;
        let signer = settings.lexicon.as_ref().map(|lex| RidfSigner {
            stats: lex.stats.clone(),
            config,
            seed: cx.seed,
        });
        Ok(TfRidf {
            config,
            source: keys::source(settings.lexicon.as_deref()),
            signed: StatSigned::new(signer, cx.seed),
            cx,
        })
    }
}

impl Method for TfRidf {
    type Doc = LexDoc;

    fn doc(&self, doc: &DocView<'_>) -> LexDoc {
        self.signed.doc(doc.norm)
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, LexDoc>>) {
        self.signed.push_heads(heads);
    }

    fn prepare(&mut self) -> Result<(), Error> {
        let (config, seed) = (self.config, self.cx.seed);
        self.signed.prepare(|stats| Ok(RidfSigner { stats, config, seed }))
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        Ok(self.signed.candidates(emit))
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        self.signed.keys().estimate(a, b)
    }

    /// Equal signatures are the method's own decision.
    fn accepts(&self, _estimate: f64) -> bool {
        true
    }

    fn describe(&self) -> String {
        keys::describe(
            "tf-ridf",
            &format!(
                "the {} words of highest tf·RIDF, RIDF from the {}",
                self.config.words, self.source
            ),
            &self.cx,
        )
    }

    fn unsigned(&self) -> &[(Slot, String)] {
        self.signed.keys().unsigned()
    }
}
