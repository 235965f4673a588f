//! [`TfRidf`]: TF*RIDF signatures (Zelenkov & Segalovich 2007).

use super::doc_keyer::{Keying, KeyingInput};
use super::keys::{self, Signer, StatSigned};
use super::options::{InIndex, MethodOption, MethodSpec};
use super::{Context, MethodKind};
use crate::config::{MethodConfig, TfRidfSettings};
use crate::error::{ConfigError, Error};
use crate::lexical::collection::{CollectionStats, TermCounts};
use crate::lexical::lexsig::{self, TfRidfConfig};

/// TF*RIDF: a hash of the document's words of highest tf × residual IDF; candidates have an
/// equal signature.
pub type TfRidf = StatSigned<RidfSigner>;

/// Signs with the collection statistics and the settings.
#[derive(Debug)]
pub struct RidfSigner {
    stats: CollectionStats,
    config: TfRidfConfig,
    seed: u64,
}

impl Signer for RidfSigner {
    type Config = TfRidfConfig;

    fn from_stats(stats: CollectionStats, config: &TfRidfConfig, seed: u64) -> Result<Self, Error> {
        Ok(RidfSigner { stats, config: *config, seed })
    }

    fn sign(&self, doc: &TermCounts) -> Result<Vec<u64>, String> {
        lexsig::tf_ridf_signature(doc, &self.stats, &self.config, self.seed)
            .map(|k| vec![k])
            .map_err(|e| e.to_string())
    }

    fn terms(&self) -> u64 {
        self.stats.len() as u64
    }

    fn describe(config: &TfRidfConfig, source: &str, cx: &Context) -> String {
        keys::describe(
            MethodKind::TfRidf.name(),
            &format!("the {} words of highest tf·RIDF, RIDF from the {source}", config.words),
            cx,
        )
    }
}

impl TfRidf {
    /// The method (with a lexicon file, signed with its statistics).
    pub fn new(settings: &TfRidfSettings, cx: Context) -> Result<TfRidf, Error> {
        settings.tf_ridf.validate().map_err(ConfigError::from)?;
        StatSigned::with(settings.tf_ridf, settings.lexicon.as_deref(), cx)
    }
}

/// `ridf_words`: the words of a TF*RIDF signature.
pub(super) static RIDF_WORDS: MethodOption = MethodOption::count(
    "ridf_words",
    "N",
    "TF*RIDF: words of highest tf·RIDF in the signature (Zelenkov & Segalovich: 6)",
)
.with_default(|| TfRidfConfig::default().words.to_string());

/// TF*RIDF in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::TfRidf,
    options: &[&keys::LEXICON, &RIDF_WORDS],
    config: |v| {
        let d = TfRidfConfig::default();
        Ok(MethodConfig::TfRidf(TfRidfSettings {
            tf_ridf: TfRidfConfig { words: v.get("ridf_words").unwrap_or(d.words), ..d },
            lexicon: v.lexicon(),
        }))
    },
    index: InIndex::CollectionStatistics,
    document_keys: keys_of,
};

/// TF*RIDF's per-document keys ([`DocumentKeys`](super::DocumentKeys)).
fn keys_of(input: KeyingInput<'_>) -> Keying {
    let MethodConfig::TfRidf(m) = &input.config.method else {
        unreachable!("TF*RIDF's spec keys a TF*RIDF configuration")
    };
    keys::stat_signed_keys(
        input,
        m.lexicon.as_ref(),
        "residual IDF (document frequencies; a lexicon file, `lexicon=`, signs each document alone)",
        |lexicon| TfRidf::new(&TfRidfSettings { lexicon, ..m.clone() }, input.context()),
    )
}
