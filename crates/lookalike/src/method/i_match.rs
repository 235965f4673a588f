//! [`IMatch`]: I-Match (Chowdhury, Frieder, Grossman & McCabe 2002) and I-Match with randomized
//! lexicons (Kołcz, Chowdhury & Alspector 2004).

use super::keys::{self, LexDoc, Signer, StatSigned};
use super::{CandidateReport, Context, DocView, Head, Method, Slot};
use crate::config::IMatchSettings;
use crate::error::{ConfigError, Error};
use crate::lexical::collection::TermCounts;
use crate::lexical::imatch::{self, IMatchConfig};

impl Signer for imatch::IMatch {
    fn sign(&self, doc: &TermCounts) -> Result<Vec<u64>, String> {
        self.signatures(doc).map_err(|e| e.to_string())
    }

    fn terms(&self) -> u64 {
        self.lexicon().len() as u64
    }
}

/// I-Match: a hash of the document's distinct terms of mid IDF (the lexicon, from the
/// collection's statistics or a lexicon file); with randomized lexicons K + 1 signatures, a match
/// on any. Candidates have an equal signature.
#[derive(Debug)]
pub struct IMatch {
    config: IMatchConfig,
    randomized: bool,
    source: String,
    cx: Context,
    signed: StatSigned<imatch::IMatch>,
}

impl IMatch {
    /// The method with validated settings; `randomized`: the extra lexicons of `settings` are
    /// used (`i-match-rand`), else none (`i-match`).
    pub fn new(settings: &IMatchSettings, randomized: bool, cx: Context) -> Result<IMatch, Error> {
        let mut config = settings.imatch;
        if !randomized {
            config.extra_lexicons = 0;
        }
        config.validate().map_err(ConfigError::from)?;
        let signer = match &settings.lexicon {
            Some(lex) => {
                Some(imatch::IMatch::new(&lex.stats, config, cx.seed).map_err(ConfigError::from)?)
            }
            None => None,
        };
        Ok(IMatch {
            config,
            randomized,
            source: keys::source(settings.lexicon.as_deref()),
            signed: StatSigned::new(signer, cx.seed),
            cx,
        })
    }
}

impl Method for IMatch {
    type Doc = LexDoc;

    fn doc(&self, doc: &DocView<'_>) -> LexDoc {
        self.signed.doc(doc.norm)
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, LexDoc>>) {
        self.signed.push_heads(heads);
    }

    fn prepare(&mut self) -> Result<(), Error> {
        let (config, seed) = (self.config, self.cx.seed);
        self.signed.prepare(|stats| {
            Ok(imatch::IMatch::new(&stats, config, seed).map_err(ConfigError::from)?)
        })
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
        let c = &self.config;
        if self.randomized {
            keys::describe(
                "i-match-rand",
                &format!(
                    "mid-IDF terms (NIDF in [{}, {}]) from the {}, {} extra lexicons dropping {} of them",
                    c.nidf_low, c.nidf_high, self.source, c.extra_lexicons, c.drop_fraction
                ),
                &self.cx,
            )
        } else {
            keys::describe(
                "i-match",
                &format!(
                    "mid-IDF terms (NIDF in [{}, {}]) from the {}, at least {} per document",
                    c.nidf_low, c.nidf_high, self.source, c.min_terms
                ),
                &self.cx,
            )
        }
    }

    fn unsigned(&self) -> &[(Slot, String)] {
        self.signed.keys().unsigned()
    }
}
