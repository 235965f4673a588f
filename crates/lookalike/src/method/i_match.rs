//! [`IMatch`]: I-Match (Chowdhury, Frieder, Grossman & McCabe 2002) and I-Match with randomized
//! lexicons (Kołcz, Chowdhury & Alspector 2004).

use super::doc_keyer::{Keying, KeyingInput};
use super::keys::{self, Signer, StatSigned};
use super::options::{InIndex, MethodOption, MethodSpec, OptionValues};
use super::{Context, MethodKind};
use crate::config::{IMatchSettings, MethodConfig};
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
                MethodKind::IMatchRand.name(),
                &format!(
                    "mid-IDF terms (NIDF in [{}, {}]) from the {source}, {} extra lexicons dropping {} of them",
                    c.nidf_low, c.nidf_high, c.extra_lexicons, c.drop_fraction
                ),
                cx,
            )
        } else {
            keys::describe(
                MethodKind::IMatch.name(),
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

/// `nidf_low`: the lowest normalized IDF of a lexicon term.
pub(super) static NIDF_LOW: MethodOption = MethodOption::number(
    "nidf_low",
    "X",
    "I-Match: lowest normalized IDF (idf / log2 N) of a lexicon term; drops the commonest terms",
)
.with_default(|| IMatchConfig::default().nidf_low.to_string());

/// `nidf_high`: the highest normalized IDF of a lexicon term.
pub(super) static NIDF_HIGH: MethodOption = MethodOption::number(
    "nidf_high",
    "X",
    "I-Match: highest normalized IDF of a lexicon term; drops the rarest terms",
)
.with_default(|| IMatchConfig::default().nidf_high.to_string());

/// `min_terms`: the fewest lexicon terms of a signed document.
pub(super) static MIN_TERMS: MethodOption = MethodOption::count(
    "min_terms",
    "N",
    "I-Match: fewest distinct lexicon terms a document needs for a signature (documents with \
     fewer are reported as unsigned, and kept)",
)
.with_default(|| IMatchConfig::default().min_terms.to_string());

/// `extra_lexicons`: K of I-Match with randomized lexicons.
pub(super) static EXTRA_LEXICONS: MethodOption = MethodOption::count(
    "extra_lexicons",
    "K",
    "i-match-rand: K extra lexicons, each dropping a random fraction of the base lexicon (Kołcz \
     et al.: 10)",
)
.with_default(|| IMatchConfig::default().extra_lexicons.to_string());

/// `drop_fraction`: p of I-Match with randomized lexicons.
pub(super) static DROP_FRACTION: MethodOption = MethodOption::number(
    "drop_fraction",
    "P",
    "i-match-rand: the fraction p of the base lexicon each extra lexicon drops (Kołcz et al.: \
     0.33)",
)
.with_default(|| IMatchConfig::default().drop_fraction.to_string());

/// I-Match in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::IMatch,
    options: &[&keys::LEXICON, &NIDF_LOW, &NIDF_HIGH, &MIN_TERMS],
    config: |v| Ok(MethodConfig::IMatch(settings_of(v))),
    index: InIndex::CollectionStatistics,
    document_keys: keys_of,
};

/// I-Match with randomized lexicons in the registry.
pub(super) static SPEC_RAND: MethodSpec = MethodSpec {
    kind: MethodKind::IMatchRand,
    options: &[&keys::LEXICON, &NIDF_LOW, &NIDF_HIGH, &MIN_TERMS, &EXTRA_LEXICONS, &DROP_FRACTION],
    config: |v| Ok(MethodConfig::IMatchRand(settings_of(v))),
    index: InIndex::CollectionStatistics,
    document_keys: keys_of,
};

/// The I-Match settings from the option values.
fn settings_of(v: &OptionValues) -> IMatchSettings {
    let d = IMatchConfig::default();
    IMatchSettings {
        imatch: IMatchConfig {
            nidf_low: v.get("nidf_low").unwrap_or(d.nidf_low),
            nidf_high: v.get("nidf_high").unwrap_or(d.nidf_high),
            min_terms: v.get("min_terms").unwrap_or(d.min_terms),
            extra_lexicons: v.get("extra_lexicons").unwrap_or(d.extra_lexicons),
            drop_fraction: v.get("drop_fraction").unwrap_or(d.drop_fraction),
        },
        lexicon: v.lexicon(),
    }
}

/// I-Match's and I-Match-rand's per-document keys ([`DocumentKeys`]).
fn keys_of(input: KeyingInput<'_>) -> Keying {
    let (MethodConfig::IMatch(m) | MethodConfig::IMatchRand(m)) = &input.config.method else {
        unreachable!("I-Match's specs key I-Match configurations")
    };
    let randomized = matches!(input.config.method, MethodConfig::IMatchRand(_));
    keys::stat_signed_keys(
        input,
        m.lexicon.as_ref(),
        "a lexicon from the document frequencies (a lexicon file, `lexicon=`, signs each document alone)",
        |lexicon| {
            IMatch::new(&IMatchSettings { lexicon, ..m.clone() }, randomized, input.context())
        },
    )
}
