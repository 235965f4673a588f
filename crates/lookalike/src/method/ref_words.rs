//! [`RefWords`]: reference words (Ilyinsky, Kuzmin, Melkov & Segalovich 2002,
//! as Zelenkov & Segalovich 2007 describe it).

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::doc_keyer::{DocKeys, DocumentKeys, KeyerError, Keying, KeyingInput};
use super::keys;
use super::options::{InIndex, MethodOption, MethodSpec};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, MethodStats, Slot};
use crate::config::{MethodConfig, RefWordsSettings};
use crate::error::{ConfigError, Error};
use crate::lexical::collection::TermCounts;
use crate::lexical::refwords::{self, DocSignature, RefWord};

/// Reference words: N words chosen from the collection (or a lexicon file), each with a
/// relative-frequency threshold; a document's signature is which words exceed theirs; candidates
/// have equal signatures (or within a Hamming distance).
#[derive(Debug)]
pub struct RefWords {
    settings: RefWordsSettings,
    cx: Context,
    /// Term counts of the heads until [`Method::prepare`].
    terms: Vec<TermCounts>,
    sigs: Vec<DocSignature>,
    words: usize,
    unsigned: Vec<(Slot, String)>,
}

impl RefWords {
    /// The method; an error when no reference word is to be chosen.
    pub fn new(settings: &RefWordsSettings, cx: Context) -> Result<RefWords, ConfigError> {
        if settings.selection.words == 0 {
            return Err(ConfigError::RefWords(0));
        }
        Ok(RefWords {
            settings: settings.clone(),
            cx,
            terms: Vec::new(),
            sigs: Vec::new(),
            words: 0,
            unsigned: Vec::new(),
        })
    }
}

impl Method for RefWords {
    type Doc = TermCounts;

    fn doc(&self, doc: &DocView<'_>) -> TermCounts {
        TermCounts::from_normalized(doc.norm, self.cx.seed)
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, TermCounts>>) {
        self.terms.extend(heads.into_iter().map(|h| h.doc));
    }

    /// Chooses the reference words (or takes the lexicon file's) and signs every head.
    fn prepare(&mut self) -> Result<(), Error> {
        let terms = std::mem::take(&mut self.terms);
        let chosen = match file_words(&self.settings) {
            Some(words) => words,
            None => refwords::RefWords::select(&terms, &self.settings.selection).0,
        };
        let min_bits = self.settings.min_bits;
        let mut sigs = chosen.sign_all(&terms);
        let mut unsigned = Vec::new();
        for (i, s) in sigs.iter_mut().enumerate() {
            let bits = s.signature().map_or(0, |x| x.count_ones());
            if bits < min_bits {
                // Too few bits identify too little: thousands of unrelated documents share a
                // one-bit signature.
                unsigned.push((
                    Slot(i as u32),
                    format!("{bits} reference words above their thresholds, {min_bits} needed"),
                ));
                *s = DocSignature::Unsignable;
            }
        }
        self.words = chosen.len();
        self.sigs = sigs;
        self.unsigned = unsigned;
        Ok(())
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        for (a, b, _) in refwords::signature_candidates(&self.sigs, self.settings.distance) {
            emit(Slot(a), Slot(b));
        }
        Ok(CandidateReport {
            method: MethodStats {
                unsigned: self.unsigned.len() as u64,
                lexicon_terms: Some(self.words as u64),
                ..MethodStats::default()
            },
            ..CandidateReport::default()
        })
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        match (self.sigs[a.index()].signature(), self.sigs[b.index()].signature()) {
            (Some(x), Some(y)) if self.words > 0 => {
                1.0 - f64::from(x.hamming(y)) / self.words as f64
            }
            _ => 0.0,
        }
    }

    /// Equal (or close) signatures are the method's own decision.
    fn accepts(&self, _estimate: f64) -> bool {
        true
    }

    fn describe(&self) -> String {
        let s = &self.settings;
        keys::describe(
            MethodKind::RefWords.name(),
            &format!(
                "up to {} reference words chosen from the {}, Hamming distance ≤ {}",
                s.selection.words,
                match s.lexicon.as_ref().and_then(|x| x.reference_words.as_ref()) {
                    Some(_) => "lexicon file",
                    None => "input",
                },
                s.distance
            ),
            &self.cx,
        )
    }

    fn unsigned(&self) -> &[(Slot, String)] {
        &self.unsigned
    }
}

/// `refwords`: how many reference words to choose.
pub(super) static REFWORDS: MethodOption = MethodOption::count(
    "refwords",
    "N",
    "Reference words: how many words to choose from the collection (Zelenkov & Segalovich's \
           study: 3-5 thousand); `--lexicon` files built by `lexicon build` carry a selection",
)
.with_default(|| refwords::RefWordsConfig::default().words.to_string());

/// `refwords_distance`: the Hamming distance of candidates.
pub(super) static REFWORDS_DISTANCE: MethodOption = MethodOption::small(
    "refwords_distance",
    "D",
    "Reference words: signatures within this Hamming distance are candidates (0: equal \
           signatures only)",
)
.with_default(|| RefWordsSettings::default().distance.to_string());

/// `refwords_min_bits`: the fewest bits of a signature.
pub(super) static REFWORDS_MIN_BITS: MethodOption = MethodOption::small(
    "refwords_min_bits",
    "N",
    "Reference words: fewest words above their thresholds a document needs for a signature \
           (fewer identify too little: on the benchmark corpus thousands of unrelated documents \
           had the same one-bit signature). Documents with fewer are reported as unsigned, and \
           kept",
)
.with_default(|| RefWordsSettings::default().min_bits.to_string());

/// Reference words in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::RefWords,
    options: &[&keys::LEXICON, &REFWORDS, &REFWORDS_DISTANCE, &REFWORDS_MIN_BITS],
    config: |v| {
        let d = RefWordsSettings::default();
        Ok(MethodConfig::RefWords(RefWordsSettings {
            selection: refwords::RefWordsConfig {
                words: v.get("refwords").unwrap_or(d.selection.words),
                ..d.selection
            },
            distance: v.get("refwords_distance").unwrap_or(d.distance),
            min_bits: v.get("refwords_min_bits").unwrap_or(d.min_bits),
            lexicon: v.lexicon(),
        }))
    },
    index: InIndex::CollectionStatistics,
    document_keys: keys_of,
};

/// Reference words' keys of a document (Hamming distance 0): its signature's key, with a second
/// hash of the signature as the fingerprint, so that documents sharing a key are candidates
/// exactly when their signatures are equal; documents with fewer than `min_bits` bits are not
/// signed, as the method does not sign them.
#[derive(Debug)]
struct RefWordsKeys {
    words: refwords::RefWords,
    min_bits: u32,
    seed: u64,
}

impl DocumentKeys for RefWordsKeys {
    fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        let terms = TermCounts::from_normalized(doc.norm, self.seed);
        let signature = self.words.sign(&terms);
        let sig = signature.signature();
        let bits = sig.map_or(0, |x| x.count_ones());
        match sig {
            Some(sig) if bits >= self.min_bits => {
                let bytes: Vec<u8> = sig.words().iter().flat_map(|w| w.to_le_bytes()).collect();
                DocKeys {
                    keys: vec![(0, sig.key())],
                    fingerprint: xxh3_64_with_seed(&bytes, 1),
                    unsigned: None,
                }
            }
            _ => DocKeys {
                unsigned: Some(format!(
                    "{bits} reference words above their thresholds, {} needed",
                    self.min_bits
                )),
                ..DocKeys::default()
            },
        }
    }

    /// Equal signatures: equal second hashes.
    fn close(&self, a: u64, b: u64) -> bool {
        a == b
    }
}

/// The reference words a lexicon file carries, if it does.
fn file_words(settings: &RefWordsSettings) -> Option<refwords::RefWords> {
    let words = settings.lexicon.as_ref()?.reference_words.as_ref()?;
    Some(refwords::RefWords::from_words(
        words.iter().map(|&(term, threshold)| RefWord { term, threshold }),
    ))
}

/// Reference words' per-document keys ([`DocumentKeys`]): the words of a lexicon file, else
/// those chosen from the counted statistics; refused above Hamming distance 0, where each
/// signature is compared with the whole collection's.
fn keys_of(input: KeyingInput<'_>) -> Keying {
    let MethodConfig::RefWords(m) = &input.config.method else {
        unreachable!("the reference words' spec keys their configuration")
    };
    if m.distance > 0 {
        return Err(KeyerError::NoDocumentKeys(format!(
            "refwords with refwords_distance {} compares each signature with those of the whole collection within Hamming distance {} (a prefix filter over the collection's rarest bits); equal signatures (distance 0) are keys",
            m.distance, m.distance
        )));
    }
    // The settings' checks.
    RefWords::new(m, input.context()).map_err(Error::from)?;
    let words = match file_words(m) {
        Some(words) => words,
        None => match input.statistics {
            Some(s) => s.reference_words(&m.selection),
            None => {
                return Err(
                    input.needs("reference words chosen from the relative term frequencies")
                );
            }
        },
    };
    Ok(Box::new(RefWordsKeys { words, min_bits: m.min_bits, seed: input.config.seed }))
}
