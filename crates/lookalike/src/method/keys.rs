//! What the signature methods share: each head's sorted signature keys (or why it has none),
//! candidates from shared keys, and for the methods signed with collection statistics the
//! statistics pass.

use rayon::prelude::*;

use super::{CandidateReport, Context, Head, MethodStats, Slot, flat_slice};
use crate::candidates::shared_keys;
use crate::error::Error;
use crate::lexical::collection::{CollectionStats, Lexicon, TermCounts};
use crate::text::normalize::NormalizedText;
use crate::verify::intersection_size;

/// Sorted, deduplicated keys of every head, one list after the other, and the heads without.
#[derive(Debug, Default)]
pub(super) struct Keys {
    values: Vec<u64>,
    ends: Vec<usize>,
    unsigned: Vec<(Slot, String)>,
}

impl Keys {
    /// Appends one head's keys, or records why it has none.
    pub fn push(&mut self, keys: Result<Vec<u64>, String>) {
        match keys {
            Ok(mut keys) => {
                keys.sort_unstable();
                keys.dedup();
                self.values.extend_from_slice(&keys);
            }
            Err(reason) => self.unsigned.push((Slot(self.ends.len() as u32), reason)),
        }
        self.ends.push(self.values.len());
    }

    fn of(&self, slot: Slot) -> &[u64] {
        flat_slice(&self.values, &self.ends, slot)
    }

    /// Heads without keys, with the reason.
    pub fn unsigned(&self) -> &[(Slot, String)] {
        &self.unsigned
    }

    /// Pairs of heads sharing at least `min_shared` keys.
    pub fn candidates(&self, min_shared: usize, emit: &mut dyn FnMut(Slot, Slot)) {
        let keys: Vec<Vec<u64>> =
            (0..self.ends.len() as u32).map(|s| self.of(Slot(s)).to_vec()).collect();
        for (a, b) in shared_keys::candidate_pairs(&keys, min_shared) {
            emit(Slot(a), Slot(b));
        }
    }

    /// The share of keys two heads have in common, over the larger key count (1 or 0 for a
    /// single signature; for partitioned fingerprints the share of equal lists).
    pub fn estimate(&self, a: Slot, b: Slot) -> f64 {
        let (x, y) = (self.of(a), self.of(b));
        let most = x.len().max(y.len());
        if most == 0 { 0.0 } else { intersection_size(x, y) as f64 / most as f64 }
    }
}

/// "signature of WHAT, verify ..." for the signature methods.
pub(super) fn describe(name: &str, what: &str, cx: &Context) -> String {
    format!("method {name}: signature of {what}, {}", cx.verify_text(" (equal signatures)"))
}

/// Where the statistics come from, for descriptions.
pub(super) fn source(lexicon: Option<&Lexicon>) -> String {
    match lexicon {
        Some(lex) => format!("lexicon file ({} documents)", lex.stats.docs()),
        None => "statistics of the input".to_owned(),
    }
}

/// Collection statistics of a set of term counts (in parallel, deterministic).
pub(super) fn collection_stats(terms: &[TermCounts]) -> CollectionStats {
    terms
        .par_chunks(1024)
        .map(|chunk| {
            let mut b = CollectionStats::builder();
            for t in chunk {
                b.add_document(t);
            }
            b
        })
        .reduce(CollectionStats::builder, |mut a, b| {
            a.merge(b);
            a
        })
        .build()
}

/// Signs term counts once the collection statistics are known.
pub(super) trait Signer: std::fmt::Debug + Send + Sync {
    /// The keys of one document, or why it has none.
    fn sign(&self, doc: &TermCounts) -> Result<Vec<u64>, String>;
    /// Terms of the lexicon (or of the statistics), for the summary.
    fn terms(&self) -> u64;
}

/// A document of a statistics-signed method: its term counts until the statistics are known, or
/// its keys at once when a lexicon file gave them.
#[derive(Debug, Default)]
pub enum LexDoc {
    /// Term counts (no lexicon file: signed in [`super::Method::prepare`]).
    Terms(TermCounts),
    /// Signature keys, or why the document has none.
    Keys(Result<Vec<u64>, String>),
    /// Nothing computed.
    #[default]
    Empty,
}

/// A method signed with collection statistics (I-Match, TF*RIDF): the statistics of a lexicon
/// file, or of the heads themselves in a second pass.
#[derive(Debug)]
pub(super) struct StatSigned<S> {
    signer: Option<S>,
    seed: u64,
    terms: Vec<TermCounts>,
    keys: Keys,
}

impl<S: Signer> StatSigned<S> {
    /// With `signer` (from a lexicon file) documents are signed at once.
    pub fn new(signer: Option<S>, seed: u64) -> Self {
        StatSigned { signer, seed, terms: Vec::new(), keys: Keys::default() }
    }

    pub fn doc(&self, norm: &NormalizedText) -> LexDoc {
        let terms = TermCounts::from_normalized(norm, self.seed);
        match &self.signer {
            Some(signer) => LexDoc::Keys(signer.sign(&terms)),
            None => LexDoc::Terms(terms),
        }
    }

    pub fn push_heads(&mut self, heads: Vec<Head<'_, LexDoc>>) {
        for head in heads {
            match (head.doc, self.signer.is_some()) {
                (LexDoc::Keys(keys), _) => self.keys.push(keys),
                (LexDoc::Terms(t), false) => self.terms.push(t),
                (LexDoc::Empty, false) => self.terms.push(TermCounts::default()),
                (LexDoc::Terms(_) | LexDoc::Empty, true) => {
                    self.keys.push(Err("no signature".to_owned()))
                }
            }
        }
    }

    /// Without a lexicon file: the statistics of the heads, then every head signed.
    pub fn prepare(
        &mut self,
        make: impl FnOnce(CollectionStats) -> Result<S, Error>,
    ) -> Result<(), Error> {
        if self.signer.is_some() {
            return Ok(());
        }
        let terms = std::mem::take(&mut self.terms);
        let signer = make(collection_stats(&terms))?;
        let signed: Vec<Result<Vec<u64>, String>> =
            terms.par_iter().map(|t| signer.sign(t)).collect();
        for keys in signed {
            self.keys.push(keys);
        }
        self.signer = Some(signer);
        Ok(())
    }

    pub fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> CandidateReport {
        self.keys.candidates(1, emit);
        CandidateReport {
            method: MethodStats {
                unsigned: self.keys.unsigned().len() as u64,
                lexicon_terms: self.signer.as_ref().map(Signer::terms),
                ..MethodStats::default()
            },
            ..CandidateReport::default()
        }
    }

    pub fn keys(&self) -> &Keys {
        &self.keys
    }
}
