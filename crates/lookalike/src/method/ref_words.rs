//! [`RefWords`]: reference words (Ilyinsky, Kuzmin, Melkov & Segalovich 2002; seed 002).

use super::keys;
use super::{CandidateReport, Context, DocView, Head, Method, MethodStats, Slot};
use crate::config::RefWordsSettings;
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
        let chosen = match self.settings.lexicon.as_ref().and_then(|l| l.reference_words.as_ref()) {
            Some(words) => refwords::RefWords::from_words(
                words.iter().map(|&(term, threshold)| RefWord { term, threshold }),
            ),
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
            "refwords",
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
