//! [`LongSentences`]: long-sentence signatures (Zelenkov & Segalovich 2007).

use super::keys::{self, DocSigned, DocSigner};
use super::options::{InIndex, MethodOption, MethodSpec};
use super::{Context, DocView, MethodKind};
use crate::config::MethodConfig;
use crate::error::{ConfigError, Error};
use crate::lexical::lexsig::{self, LongSentenceConfig};
use crate::text::normalize::NormalizedText;

/// Long sentences: a hash of the document's longest sentences; candidates have an equal
/// signature.
pub type LongSentences = DocSigned<SentenceSigner>;

/// Signs a document with the hash of its longest sentences.
#[derive(Debug)]
pub struct SentenceSigner {
    config: LongSentenceConfig,
    seed: u64,
}

impl DocSigner for SentenceSigner {
    fn sign(&self, doc: &DocView<'_>) -> Result<Vec<u64>, String> {
        let mut scratch = NormalizedText::default();
        lexsig::long_sentence_signature(doc.text, &self.config, self.seed, &mut scratch)
            .map(|k| vec![k])
            .map_err(|e| e.to_string())
    }

    fn describe(&self, cx: &Context) -> String {
        keys::describe(
            MethodKind::LongSentences.name(),
            &format!("the {} longest sentences", self.config.sentences),
            cx,
        )
    }
}

impl LongSentences {
    /// The method; an error when the number of sentences is out of range.
    pub fn new(config: LongSentenceConfig, cx: Context) -> Result<LongSentences, ConfigError> {
        config.validate()?;
        Ok(DocSigned::with(SentenceSigner { config, seed: cx.seed }, cx))
    }
}

/// `sentences`: the sentences of a signature.
pub(super) static SENTENCES: MethodOption = MethodOption::count(
    "sentences",
    "N",
    "Long sentences: sentences in the signature (Zelenkov & Segalovich: 2)",
)
.with_default(|| LongSentenceConfig::default().sentences.to_string());

/// Long sentences in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::LongSentences,
    options: &[&SENTENCES],
    config: |v| {
        let d = LongSentenceConfig::default();
        Ok(MethodConfig::LongSentences(LongSentenceConfig {
            sentences: v.get("sentences").unwrap_or(d.sentences),
            ..d
        }))
    },
    index: InIndex::NotYet,
    document_keys: |input| {
        let MethodConfig::LongSentences(m) = &input.config.method else {
            unreachable!("the long sentences' spec keys their configuration")
        };
        Ok(Box::new(LongSentences::new(*m, input.context()).map_err(Error::from)?))
    },
};
