//! [`IMatch`]: I-Match (Chowdhury, Frieder, Grossman & McCabe 2002) and I-Match with randomized
//! lexicons (Kołcz, Chowdhury & Alspector 2004).

use super::Context;
use super::keys::{self, Signer, StatSigned};
use crate::config::IMatchSettings;
use crate::error::{ConfigError, Error};
use crate::lexical::collection::{CollectionStats, TermCounts};
use crate::lexical::imatch::{self, IMatchConfig};

/// I-Match: a hash of the document's distinct terms of mid IDF (the lexicon, from the
/// collection's statistics or a lexicon file); with randomized lexicons K + 1 signatures, a match
/// on any. Candidates have an equal signature.
pub type IMatch = StatSigned<imatch::IMatch>;

/// I-Match's settings as the method uses them.
#[derive(Debug, Clone, Copy)]
pub struct IMatchSigning {
    config: IMatchConfig,
    randomized: bool,
}

impl Signer for imatch::IMatch {
    type Config = IMatchSigning;

    fn from_stats(stats: CollectionStats, c: &IMatchSigning, seed: u64) -> Result<Self, Error> {
        Ok(imatch::IMatch::new(&stats, c.config, seed).map_err(ConfigError::from)?)
    }

    fn sign(&self, doc: &TermCounts) -> Result<Vec<u64>, String> {
        self.signatures(doc).map_err(|e| e.to_string())
    }

    fn terms(&self) -> u64 {
        self.lexicon().len() as u64
    }

    fn describe(s: &IMatchSigning, source: &str, cx: &Context) -> String {
        let c = &s.config;
        if s.randomized {
            keys::describe(
                "i-match-rand",
                &format!(
                    "mid-IDF terms (NIDF in [{}, {}]) from the {source}, {} extra lexicons dropping {} of them",
                    c.nidf_low, c.nidf_high, c.extra_lexicons, c.drop_fraction
                ),
                cx,
            )
        } else {
            keys::describe(
                "i-match",
                &format!(
                    "mid-IDF terms (NIDF in [{}, {}]) from the {source}, at least {} per document",
                    c.nidf_low, c.nidf_high, c.min_terms
                ),
                cx,
            )
        }
    }
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
        StatSigned::with(IMatchSigning { config, randomized }, settings.lexicon.as_deref(), cx)
    }
}
