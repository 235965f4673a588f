//! What the signature methods share: each head's sorted signature keys (or why it has none),
//! candidates from shared keys, and for the methods signed with collection statistics the
//! statistics pass.

use std::sync::Arc;

use rayon::prelude::*;

use super::doc_keyer::{DocKeys, DocumentKeys, Keying, KeyingInput, lexicon_signed, signed};
use super::options::MethodOption;
use super::{CandidateReport, Context, DocView, Head, Method, MethodStats, Slot, flat_slice};
use crate::candidates::shared_keys;
use crate::error::Error;
use crate::lexical::collection::{CollectionStats, Lexicon, TermCounts};
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

    /// Pairs of heads sharing at least `min_shared` keys, and the report of a signature method:
    /// the unsigned heads and the lexicon size (when it has one).
    pub fn candidates(
        &self,
        min_shared: usize,
        lexicon_terms: Option<u64>,
        emit: &mut dyn FnMut(Slot, Slot),
    ) -> CandidateReport {
        let keys: Vec<Vec<u64>> =
            (0..self.ends.len() as u32).map(|s| self.of(Slot(s)).to_vec()).collect();
        for (a, b) in shared_keys::candidate_pairs(&keys, min_shared) {
            emit(Slot(a), Slot(b));
        }
        CandidateReport {
            method: MethodStats {
                unsigned: self.unsigned.len() as u64,
                lexicon_terms,
                ..MethodStats::default()
            },
            ..CandidateReport::default()
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

/// Signs term counts once the collection statistics are known: what makes a statistics-signed
/// method (I-Match, TF*RIDF) on top of [`StatSigned`].
pub trait Signer: std::fmt::Debug + Send + Sync + Sized {
    /// The method's settings.
    type Config: std::fmt::Debug + Send + Sync;

    /// The signer of a collection's statistics.
    fn from_stats(stats: CollectionStats, config: &Self::Config, seed: u64) -> Result<Self, Error>;
    /// The keys of one document, or why it has none.
    fn sign(&self, doc: &TermCounts) -> Result<Vec<u64>, String>;
    /// Terms of the lexicon (or of the statistics), for the summary.
    fn terms(&self) -> u64;
    /// The method's summary line; `source` says where the statistics come from.
    fn describe(config: &Self::Config, source: &str, cx: &Context) -> String;
}

/// A document of a statistics-signed method: its term counts until the statistics are known, or
/// its keys at once when a lexicon file gave them.
#[derive(Debug, Default)]
pub enum LexDoc {
    /// Term counts (no lexicon file: signed in [`Method::prepare`]).
    Terms(TermCounts),
    /// Signature keys, or why the document has none.
    Keys(Result<Vec<u64>, String>),
    /// Nothing computed.
    #[default]
    Empty,
}

/// A method signed with collection statistics (I-Match, TF*RIDF): the statistics of a lexicon
/// file, or of the heads themselves in [`Method::prepare`]; candidates have an equal key.
#[derive(Debug)]
pub struct StatSigned<S: Signer> {
    config: S::Config,
    signer: Option<S>,
    source: String,
    cx: Context,
    terms: Vec<TermCounts>,
    keys: Keys,
}

impl<S: Signer> StatSigned<S> {
    /// The method; with a lexicon file its statistics sign documents as they are read.
    pub(super) fn with(
        config: S::Config,
        lexicon: Option<&Lexicon>,
        cx: Context,
    ) -> Result<Self, Error> {
        let signer = match lexicon {
            Some(lex) => Some(S::from_stats(lex.stats.clone(), &config, cx.seed)?),
            None => None,
        };
        Ok(StatSigned {
            config,
            signer,
            source: source(lexicon),
            cx,
            terms: Vec::new(),
            keys: Keys::default(),
        })
    }
}

impl<S: Signer> Method for StatSigned<S> {
    type Doc = LexDoc;

    fn doc(&self, doc: &DocView<'_>) -> LexDoc {
        let terms = TermCounts::from_normalized(doc.norm, self.cx.seed);
        match &self.signer {
            Some(signer) => LexDoc::Keys(signer.sign(&terms)),
            None => LexDoc::Terms(terms),
        }
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, LexDoc>>) {
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
    fn prepare(&mut self) -> Result<(), Error> {
        if self.signer.is_some() {
            return Ok(());
        }
        let terms = std::mem::take(&mut self.terms);
        let signer = S::from_stats(collection_stats(&terms), &self.config, self.cx.seed)?;
        let signed: Vec<Result<Vec<u64>, String>> =
            terms.par_iter().map(|t| signer.sign(t)).collect();
        for keys in signed {
            self.keys.push(keys);
        }
        self.signer = Some(signer);
        Ok(())
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        Ok(self.keys.candidates(1, self.signer.as_ref().map(S::terms), emit))
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        self.keys.estimate(a, b)
    }

    /// Equal signatures are the method's own decision.
    fn accepts(&self, _estimate: f64) -> bool {
        true
    }

    fn describe(&self) -> String {
        S::describe(&self.config, &self.source, &self.cx)
    }

    fn unsigned(&self) -> &[(Slot, String)] {
        self.keys.unsigned()
    }
}

/// Signs one document by itself, with no collection statistics: what makes a per-document
/// signature method (long sentences, partitioned fingerprints) on top of [`DocSigned`].
pub trait DocSigner: std::fmt::Debug + Send + Sync {
    /// The keys of one document, or why it has none.
    fn sign(&self, doc: &DocView<'_>) -> Result<Vec<u64>, String>;
    /// Keys two documents must share to be candidates (default 1).
    fn min_shared(&self) -> usize {
        1
    }
    /// The method's summary line.
    fn describe(&self, cx: &Context) -> String;
}

/// A method whose documents are signed as they are read; candidates share enough keys.
#[derive(Debug)]
pub struct DocSigned<S> {
    signer: S,
    cx: Context,
    keys: Keys,
}

impl<S: DocSigner> DocSigned<S> {
    pub(super) fn with(signer: S, cx: Context) -> Self {
        DocSigned { signer, cx, keys: Keys::default() }
    }
}

impl<S: DocSigner> Method for DocSigned<S> {
    type Doc = Option<Result<Vec<u64>, String>>;

    fn doc(&self, doc: &DocView<'_>) -> Self::Doc {
        Some(self.signer.sign(doc))
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, Self::Doc>>) {
        for head in heads {
            self.keys.push(head.doc.unwrap_or_else(|| Err("no signature".to_owned())));
        }
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        Ok(self.keys.candidates(self.signer.min_shared(), None, emit))
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        self.keys.estimate(a, b)
    }

    /// Equal signatures (enough equal lists) are the method's own decision.
    fn accepts(&self, _estimate: f64) -> bool {
        true
    }

    fn describe(&self) -> String {
        self.signer.describe(&self.cx)
    }

    fn unsigned(&self) -> &[(Slot, String)] {
        self.keys.unsigned()
    }
}

/// `lexicon`: a saved lexicon file the lexical methods sign with (the caller loads it into
/// [`OptionValues::set_lexicon`](super::options::OptionValues::set_lexicon)).
pub(super) static LEXICON: MethodOption = MethodOption::path(
    "lexicon",
    "FILE",
    "Lexical methods (i-match, i-match-rand, tf-ridf, refwords): sign with the collection \
           statistics saved by `lookalike lexicon build` instead of those of the input itself, so \
           that a new batch gets the same signatures as an old one",
);

impl<S: Signer> DocumentKeys for StatSigned<S> {
    /// The key of a document signed with a lexicon (a lexicon file's, or the counted
    /// statistics').
    fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        signed(lexicon_signed(self.doc(doc)), 1)
    }
}

impl<S: DocSigner> DocumentKeys for DocSigned<S> {
    fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        signed(self.doc(doc), 1)
    }
}

/// The per-document keys of a statistics-signed method ([`DocumentKeys`]): signed with its
/// lexicon file, else with the counted statistics as a lexicon (`with_lexicon` builds the method
/// from its settings given that lexicon), else refused: `needs` says what it signs with.
pub(super) fn stat_signed_keys<S: Signer + 'static>(
    input: KeyingInput<'_>,
    lexicon: Option<&Arc<Lexicon>>,
    needs: &str,
    with_lexicon: impl FnOnce(Option<Arc<Lexicon>>) -> Result<StatSigned<S>, Error>,
) -> Keying {
    let lexicon = match (lexicon, input.lexicon()) {
        (Some(file), _) => Some(Arc::clone(file)),
        (None, Some(counted)) => Some(counted),
        (None, None) => return Err(input.needs(needs)),
    };
    Ok(Box::new(with_lexicon(lexicon)?))
}
