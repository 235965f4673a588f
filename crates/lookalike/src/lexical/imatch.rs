//! I-Match and randomized lexicons. Contract: "give me collection statistics once and then a
//! document's term counts, I give you one signature per lexicon; documents sharing any signature
//! are near-duplicate candidates".
//!
//! **I-Match** (Chowdhury, Frieder, Grossman & McCabe, "Collection statistics for fast duplicate
//! document detection", ACM TOIS 2002): the *lexicon* L is the set of terms of mid IDF: the most
//! frequent terms (low IDF: function words) carry no content and the rarest (high IDF: typos,
//! numbers, names seen once) are the first to change between copies, so both are dropped. The
//! band is expressed in normalized IDF ([`crate::lexical::collection::TermStats::nidf`]) so that it does
//! not depend on the collection's size. A document's signature is a hash of its distinct terms
//! that are in L, sorted; two documents with the same signature are duplicates.
//!
//! **Randomized lexicons** (Kołcz, Chowdhury & Alspector, "Improved robustness of
//! signature-based near-replica detection via lexicon randomization", KDD 2004; Kołcz &
//! Chowdhury, J. Supercomputing 2008): one changed lexicon term changes the I-Match signature,
//! so K extra lexicons L₁…L_K are derived from L, each dropping a random fraction p of its terms,
//! and a document gets K + 1 signatures. A change of n lexicon terms leaves signature k unchanged
//! when all n terms are among those L_k dropped (probability pⁿ), so at least one of the K extra
//! signatures survives with probability 1 − (1 − pⁿ)ᴷ (checked in the tests).
//!
//! Whether term t is in L_k is decided by a seeded hash of (t, k): deterministic, independent
//! across terms and lexicons, and nothing to store: only the base lexicon is kept.
//!
//! Signatures: xxh3-64 over the sorted term hashes (8 bytes each, little-endian), seeded per
//! lexicon. The seed differs for every lexicon, so lexicon k's signature can only meet lexicon
//! k's signature of another document (a cross-lexicon equality is a 64-bit hash collision,
//! probability 2⁻⁶⁴ a pair). The papers use SHA-1; a 64-bit hash has, among a billion documents,
//! an expected 0.03 accidental collisions, and a candidate pair is verified anyway.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::lexical::collection::{CollectionStats, HashIndex, TermCounts};
use crate::sketch::minhash::mix64;

/// Settings of I-Match with randomized lexicons.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IMatchConfig {
    /// Lowest normalized IDF of a lexicon term (inclusive). Default 0.2: drops terms in more than
    /// N^0.8 documents (in a million documents, those in more than 1 in 16).
    pub nidf_low: f64,
    /// Highest normalized IDF of a lexicon term (inclusive). Default 0.8: drops terms in fewer
    /// than N^0.2 documents (in a million documents, those in fewer than 16).
    pub nidf_high: f64,
    /// Fewest distinct lexicon terms a signature is computed from. Default 5.
    pub min_terms: usize,
    /// K, the number of extra randomized lexicons (0 for plain I-Match). Default 10 (Kołcz et
    /// al.; the value Zelenkov & Segalovich 2007 report as working well in practice).
    pub extra_lexicons: usize,
    /// p, the fraction of the base lexicon each extra lexicon drops. Default 0.33 (Kołcz et al.,
    /// as Zelenkov & Segalovich 2007 report it: "about 30–35 %", recommended p = 0.33).
    pub drop_fraction: f64,
}

impl Default for IMatchConfig {
    /// The defaults and their sources:
    ///
    /// - NIDF band [0.2, 0.8]: Chowdhury et al. keep the terms of mid normalized IDF and drop
    ///   both tails (the most and the least frequent terms); the cut-offs are
    ///   collection-dependent in the paper, and these symmetric ones are this crate's choice,
    ///   to be tuned on labelled data;
    /// - `min_terms` 5: the papers sign a document only when the intersection "exceeds a minimum
    ///   threshold determined experimentally" (Zelenkov & Segalovich 2007) without a number; 5 is
    ///   this crate's choice (fewer distinct terms identify too little text);
    /// - K = 10, p = 0.33: Kołcz, Chowdhury & Alspector 2004, as Zelenkov & Segalovich 2007 report
    ///   them.
    fn default() -> Self {
        IMatchConfig {
            nidf_low: 0.2,
            nidf_high: 0.8,
            min_terms: 5,
            extra_lexicons: 10,
            drop_fraction: 0.33,
        }
    }
}

/// Most extra lexicons a configuration may ask for.
pub const MAX_EXTRA_LEXICONS: usize = 1024;

/// Why an [`IMatchConfig`] is invalid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum IMatchConfigError {
    /// The NIDF band is not within [0, 1] or is empty.
    #[error("NIDF band [{low}, {high}] must satisfy 0 ≤ low ≤ high ≤ 1")]
    NidfBand {
        /// The configured lower bound.
        low: f64,
        /// The configured upper bound.
        high: f64,
    },
    /// `min_terms` is 0: every empty document would share one signature.
    #[error("the minimum number of lexicon terms must be at least 1")]
    MinTerms,
    /// The drop fraction is not in [0, 1).
    #[error("drop fraction {0} must be at least 0 and less than 1")]
    DropFraction(f64),
    /// More extra lexicons than [`MAX_EXTRA_LEXICONS`].
    #[error("at most {MAX_EXTRA_LEXICONS} extra lexicons, got {0}")]
    TooManyLexicons(usize),
}

impl IMatchConfig {
    /// Checks the ranges: 0 ≤ nidf_low ≤ nidf_high ≤ 1, min_terms ≥ 1, 0 ≤ drop_fraction < 1,
    /// extra_lexicons ≤ [`MAX_EXTRA_LEXICONS`]. NaN is out of every range.
    pub fn validate(&self) -> Result<(), IMatchConfigError> {
        let (low, high) = (self.nidf_low, self.nidf_high);
        if !(0.0 <= low && low <= high && high <= 1.0) {
            return Err(IMatchConfigError::NidfBand { low, high });
        }
        if self.min_terms == 0 {
            return Err(IMatchConfigError::MinTerms);
        }
        if !(0.0..1.0).contains(&self.drop_fraction) {
            return Err(IMatchConfigError::DropFraction(self.drop_fraction));
        }
        if self.extra_lexicons > MAX_EXTRA_LEXICONS {
            return Err(IMatchConfigError::TooManyLexicons(self.extra_lexicons));
        }
        Ok(())
    }
}

/// A document with too few distinct terms for a signature: reported, never silently dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("only {found} distinct signing terms, at least {needed} needed")]
pub struct TooFewTerms {
    /// Distinct terms the document has (for I-Match: in the base lexicon).
    pub found: usize,
    /// The configured minimum.
    pub needed: usize,
}

/// Reusable buffers for [`IMatch::signatures_into`].
#[derive(Debug, Clone, Default)]
pub struct IMatchScratch {
    terms: Vec<u64>,
    bytes: Vec<u8>,
}

/// An I-Match signer: the base lexicon and the randomization.
#[derive(Debug, Clone)]
pub struct IMatch {
    config: IMatchConfig,
    lexicon: HashIndex,
    /// A term is dropped from extra lexicon k when `mix64(term ^ drop_seeds[k-1]) < drop_below`.
    drop_seeds: Vec<u64>,
    drop_below: u64,
    /// Signature seed of lexicon k (0 = base).
    sig_seeds: Vec<u64>,
}

impl IMatch {
    /// The signer whose base lexicon is the terms of `stats` with normalized IDF in
    /// `[nidf_low, nidf_high]`; `seed` seeds the lexicon randomization and the signature hashes.
    pub fn new(
        stats: &CollectionStats,
        config: IMatchConfig,
        seed: u64,
    ) -> Result<IMatch, IMatchConfigError> {
        config.validate()?;
        let n = stats.docs();
        let (low, high) = (config.nidf_low, config.nidf_high);
        let terms = stats
            .iter()
            .filter(|(_, s)| {
                let x = s.nidf(n);
                low <= x && x <= high
            })
            .map(|(h, _)| h)
            .collect();
        IMatch::with_lexicon(terms, config, seed)
    }

    /// The signer of a given base lexicon (term hashes in any order, repeats allowed); the NIDF
    /// band of `config` is not used.
    pub fn with_lexicon(
        mut terms: Vec<u64>,
        config: IMatchConfig,
        seed: u64,
    ) -> Result<IMatch, IMatchConfigError> {
        config.validate()?;
        terms.sort_unstable();
        terms.dedup();
        let k = config.extra_lexicons;
        let drop_seeds = (1..=k as u64).map(|i| lexicon_seed(seed, i, 0xD0)).collect();
        let sig_seeds = (0..=k as u64).map(|i| lexicon_seed(seed, i, 0x51)).collect();
        // p · 2⁶⁴, computed in f64: p < 1, so the value fits (the cast saturates anyway).
        let drop_below = (config.drop_fraction * 18_446_744_073_709_551_616.0) as u64;
        Ok(IMatch {
            config,
            lexicon: HashIndex::from_sorted(terms),
            drop_seeds,
            drop_below,
            sig_seeds,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &IMatchConfig {
        &self.config
    }

    /// The base lexicon, sorted term hashes.
    pub fn lexicon(&self) -> &[u64] {
        self.lexicon.as_slice()
    }

    /// Number of lexicons: K + 1.
    pub fn lexicons(&self) -> usize {
        self.config.extra_lexicons + 1
    }

    /// Whether `term` is in lexicon `k` (0 = base, 1..=K extra); false for k > K.
    pub fn contains(&self, term: u64, k: usize) -> bool {
        k <= self.config.extra_lexicons && self.lexicon.contains(term) && self.kept(term, k)
    }

    /// For a term of the base lexicon: whether lexicon k keeps it.
    #[inline]
    fn kept(&self, term: u64, k: usize) -> bool {
        match k.checked_sub(1).and_then(|i| self.drop_seeds.get(i)) {
            None => true,
            Some(&s) => mix64(term ^ s) >= self.drop_below,
        }
    }

    /// The document's distinct terms in the base lexicon, sorted.
    pub fn lexicon_terms(&self, doc: &TermCounts) -> Vec<u64> {
        let mut out = Vec::new();
        self.collect_terms(doc, &mut out);
        out
    }

    fn collect_terms(&self, doc: &TermCounts, out: &mut Vec<u64>) {
        out.clear();
        out.extend(doc.terms.iter().map(|&(h, _)| h).filter(|&h| self.lexicon.contains(h)));
        // TermCounts are sorted and distinct; make sure of it for hand-made ones.
        if !out.windows(2).all(|w| w[0] < w[1]) {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// The document's signatures: the base lexicon's first, then, in lexicon order, those of the
    /// extra lexicons whose intersection with the document has at least `min_terms` terms.
    ///
    /// The base lexicon decides whether the document is signable at all: with fewer than
    /// `min_terms` distinct base-lexicon terms it gets no signature and the error says how many
    /// it has. An extra lexicon whose intersection falls below the minimum only loses its own
    /// signature (a sub-minimum subset would match too easily), so the vector has between 1 and
    /// K + 1 entries. Each signature is keyed by its lexicon, so all of them can go into one
    /// table of keys (e.g. [`crate::sketch::supershingles::candidate_pairs`]).
    pub fn signatures(&self, doc: &TermCounts) -> Result<Vec<u64>, TooFewTerms> {
        let mut out = Vec::with_capacity(self.lexicons());
        self.signatures_into(doc, &mut IMatchScratch::default(), &mut out)?;
        Ok(out)
    }

    /// [`IMatch::signatures`] into `out` (cleared first), reusing `scratch`.
    pub fn signatures_into(
        &self,
        doc: &TermCounts,
        scratch: &mut IMatchScratch,
        out: &mut Vec<u64>,
    ) -> Result<(), TooFewTerms> {
        out.clear();
        let IMatchScratch { terms, bytes } = scratch;
        self.collect_terms(doc, terms);
        let needed = self.config.min_terms;
        if terms.len() < needed {
            return Err(TooFewTerms { found: terms.len(), needed });
        }
        for k in 0..self.lexicons() {
            bytes.clear();
            let mut count = 0;
            for &t in terms.iter() {
                if self.kept(t, k) {
                    bytes.extend_from_slice(&t.to_le_bytes());
                    count += 1;
                }
            }
            if count >= needed {
                out.push(xxh3_64_with_seed(bytes, self.sig_seeds[k]));
            }
        }
        Ok(())
    }

    /// The signature of lexicon k alone (0 = base), `None` when the document has fewer than
    /// `min_terms` terms in it or k > K.
    pub fn signature(&self, doc: &TermCounts, k: usize) -> Option<u64> {
        let seed = *self.sig_seeds.get(k)?;
        let mut bytes = Vec::new();
        let mut count = 0;
        for t in self.lexicon_terms(doc) {
            if self.kept(t, k) {
                bytes.extend_from_slice(&t.to_le_bytes());
                count += 1;
            }
        }
        (count >= self.config.min_terms).then(|| xxh3_64_with_seed(&bytes, seed))
    }
}

/// A per-lexicon seed, different for each purpose `tag`.
fn lexicon_seed(seed: u64, k: u64, tag: u64) -> u64 {
    mix64(mix64(seed ^ (tag << 56)).wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::minhash::splitmix64;

    fn doc_of(terms: &[u64]) -> TermCounts {
        let mut t: Vec<u64> = terms.to_vec();
        t.sort_unstable();
        t.dedup();
        TermCounts { len: t.len() as u32, terms: t.into_iter().map(|h| (h, 1)).collect() }
    }

    #[test]
    fn validation() {
        let ok = IMatchConfig::default();
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!((ok.extra_lexicons, ok.drop_fraction), (10, 0.33));
        let bad = [
            IMatchConfig { nidf_low: 0.9, nidf_high: 0.1, ..ok },
            IMatchConfig { nidf_low: -0.1, ..ok },
            IMatchConfig { nidf_high: 1.5, ..ok },
            IMatchConfig { nidf_low: f64::NAN, ..ok },
            IMatchConfig { min_terms: 0, ..ok },
            IMatchConfig { drop_fraction: 1.0, ..ok },
            IMatchConfig { drop_fraction: -0.5, ..ok },
            IMatchConfig { drop_fraction: f64::NAN, ..ok },
            IMatchConfig { extra_lexicons: MAX_EXTRA_LEXICONS + 1, ..ok },
        ];
        for c in bad {
            assert!(c.validate().is_err(), "{c:?}");
            assert!(IMatch::with_lexicon(vec![1], c, 1).is_err());
        }
        assert!(
            IMatchConfig { nidf_low: 0.0, nidf_high: 1.0, extra_lexicons: 0, ..ok }
                .validate()
                .is_ok()
        );
    }

    #[test]
    fn lexicon_is_the_nidf_band() {
        // 16 documents: term 1 in all (nidf 0), term 2 in 8 (0.25), term 3 in 4 (0.5),
        // term 4 in 2 (0.75), term 5 in 1 (1.0).
        let mut b = CollectionStats::builder();
        for d in 0..16u64 {
            let mut terms = vec![1];
            for (t, every) in [(2, 2), (3, 4), (4, 8), (5, 16)] {
                if d % every == 0 {
                    terms.push(t);
                }
            }
            b.add_document(&doc_of(&terms));
        }
        let stats = b.build();
        let im = IMatch::new(&stats, IMatchConfig::default(), 1).unwrap();
        assert_eq!(im.lexicon(), &[2, 3, 4]);
        let all = IMatchConfig { nidf_low: 0.0, nidf_high: 1.0, ..Default::default() };
        assert_eq!(IMatch::new(&stats, all, 1).unwrap().lexicon(), &[1, 2, 3, 4, 5]);
        let narrow = IMatchConfig { nidf_low: 0.5, nidf_high: 0.5, ..Default::default() };
        assert_eq!(IMatch::new(&stats, narrow, 1).unwrap().lexicon(), &[3]);
    }

    /// Signatures equal iff the brute-force sets of lexicon terms are equal, lexicon by lexicon;
    /// documents below the minimum are reported with their count.
    #[test]
    fn signatures_match_brute_force_sets() {
        let mut st = 7;
        let vocab: Vec<u64> = (0..30).map(|_| splitmix64(&mut st)).collect();
        let lexicon: Vec<u64> = vocab[..20].to_vec();
        let cfg = IMatchConfig {
            min_terms: 3,
            extra_lexicons: 3,
            drop_fraction: 0.4,
            ..Default::default()
        };
        let im = IMatch::with_lexicon(lexicon.clone(), cfg, 9).unwrap();
        let docs: Vec<TermCounts> = (0..150)
            .map(|_| {
                let n = splitmix64(&mut st) % 12;
                let terms: Vec<u64> =
                    (0..n).map(|_| vocab[(splitmix64(&mut st) % 30) as usize]).collect();
                doc_of(&terms)
            })
            .collect();
        // The brute-force sets: S_k = doc ∩ L ∩ L_k, by scanning the lexicon list.
        let sets = |d: &TermCounts| -> Vec<Vec<u64>> {
            (0..=3)
                .map(|k| {
                    let mut s: Vec<u64> = d
                        .terms
                        .iter()
                        .map(|t| t.0)
                        .filter(|t| lexicon.contains(t) && im.contains(*t, k))
                        .collect();
                    s.sort_unstable();
                    s
                })
                .collect()
        };
        let mut equal_pairs = 0;
        for a in &docs {
            let sa = sets(a);
            let sigs = im.signatures(a);
            if sa[0].len() < 3 {
                assert_eq!(sigs, Err(TooFewTerms { found: sa[0].len(), needed: 3 }));
                continue;
            }
            let sigs = sigs.unwrap();
            let per_k: Vec<Option<u64>> = (0..=3).map(|k| im.signature(a, k)).collect();
            // The vector is the present per-lexicon signatures in order, base first.
            assert_eq!(sigs, per_k.iter().flatten().copied().collect::<Vec<_>>());
            assert!(per_k[0].is_some());
            for k in 0..=3 {
                assert_eq!(per_k[k].is_some(), sa[k].len() >= 3);
            }
            for b in &docs {
                let sb = sets(b);
                for k in 0..=3 {
                    let (x, y) = (per_k[k], im.signature(b, k));
                    if let (Some(x), Some(y)) = (x, y) {
                        assert_eq!(x == y, sa[k] == sb[k], "lexicon {k}");
                        equal_pairs += usize::from(x == y);
                    }
                    // Lexicon k's signature never meets another lexicon's.
                    for j in (0..=3).filter(|&j| j != k) {
                        if let (Some(x), Some(y)) = (x, im.signature(b, j)) {
                            assert_ne!(x, y);
                        }
                    }
                }
            }
        }
        assert!(equal_pairs > 150, "the test should see equal sets beyond a==b: {equal_pairs}");
        assert_eq!(im.signature(&docs[0], 4), None);
    }

    #[test]
    fn terms_outside_the_lexicon_do_not_matter() {
        let lexicon: Vec<u64> = (100..120).collect();
        let im = IMatch::with_lexicon(lexicon, IMatchConfig::default(), 1).unwrap();
        let a = doc_of(&[100, 101, 102, 103, 104, 105, 1, 2, 3]);
        let b = doc_of(&[100, 101, 102, 103, 104, 105, 7, 8]);
        assert_eq!(im.signatures(&a).unwrap()[0], im.signatures(&b).unwrap()[0]);
        // Counts do not matter either: I-Match uses the set of terms.
        let mut c = a.clone();
        c.terms[0].1 = 17;
        assert_eq!(im.signatures(&a), im.signatures(&c));
        // One more lexicon term changes the base signature.
        let d = doc_of(&[100, 101, 102, 103, 104, 105, 106]);
        assert_ne!(im.signatures(&a).unwrap()[0], im.signatures(&d).unwrap()[0]);
        assert_eq!(
            im.signatures(&doc_of(&[100, 101, 1, 2, 3, 4, 5])),
            Err(TooFewTerms { found: 2, needed: 5 })
        );
        assert_eq!(im.signatures(&TermCounts::default()), Err(TooFewTerms { found: 0, needed: 5 }));
    }

    #[test]
    fn deterministic_and_seeded() {
        let lexicon: Vec<u64> = (0..200).map(mix64).collect();
        let doc = doc_of(&lexicon[..40]);
        let a = IMatch::with_lexicon(lexicon.clone(), IMatchConfig::default(), 1).unwrap();
        let b = IMatch::with_lexicon(lexicon.clone(), IMatchConfig::default(), 1).unwrap();
        assert_eq!(a.signatures(&doc), b.signatures(&doc));
        assert_eq!(a.signatures(&doc).unwrap().len(), 11);
        let c = IMatch::with_lexicon(lexicon, IMatchConfig::default(), 2).unwrap();
        assert_ne!(a.signatures(&doc), c.signatures(&doc));
        // Scratch reuse gives the same result.
        let (mut scratch, mut out) = (IMatchScratch::default(), Vec::new());
        for _ in 0..2 {
            a.signatures_into(&doc, &mut scratch, &mut out).unwrap();
            assert_eq!(Ok(out.clone()), a.signatures(&doc));
        }
    }

    #[test]
    fn extra_lexicons_drop_the_configured_fraction() {
        // Each extra lexicon keeps each term independently with probability 1 − p: over 20 000
        // terms the kept count is binomial; 4 standard errors.
        let lexicon: Vec<u64> = (0..20_000u64).map(|i| mix64(i ^ 0xABCD)).collect();
        let p = 0.33;
        let cfg = IMatchConfig { drop_fraction: p, ..Default::default() };
        let im = IMatch::with_lexicon(lexicon.clone(), cfg, 1).unwrap();
        let n = lexicon.len() as f64;
        let sd = (n * p * (1.0 - p)).sqrt();
        let mut overlaps = Vec::new();
        for k in 1..=10 {
            let kept = lexicon.iter().filter(|&&t| im.contains(t, k)).count() as f64;
            assert!((kept - n * (1.0 - p)).abs() < 4.0 * sd, "lexicon {k}: kept {kept}");
            overlaps
                .push(lexicon.iter().filter(|&&t| im.contains(t, k) && im.contains(t, 1)).count());
        }
        // Independence between lexicons: |L_1 ∩ L_k| ≈ n(1 − p)², k ≠ 1.
        let q = (1.0 - p) * (1.0 - p);
        let sd2 = (n * q * (1.0 - q)).sqrt();
        for &o in &overlaps[1..] {
            assert!((o as f64 - n * q).abs() < 4.0 * sd2, "overlap {o}");
        }
        assert!(lexicon.iter().all(|&t| im.contains(t, 0)) && !im.contains(lexicon[0], 11));
    }

    /// Robustness to n added lexicon terms: P(some extra signature survives) = 1 − (1 − pⁿ)ᴷ.
    /// Each trial uses fresh random terms, so the trials are independent Bernoulli draws; the
    /// tolerance is 4 binomial standard errors.
    #[test]
    fn randomized_lexicon_robustness_matches_the_formula() {
        let (p, k, trials, doc_terms) = (0.33f64, 10usize, 3000usize, 60usize);
        let mut st = 12345;
        for n in 1..=3usize {
            let docs: Vec<(Vec<u64>, Vec<u64>)> = (0..trials)
                .map(|_| {
                    let base: Vec<u64> = (0..doc_terms).map(|_| splitmix64(&mut st)).collect();
                    let added: Vec<u64> = (0..n).map(|_| splitmix64(&mut st)).collect();
                    (base, added)
                })
                .collect();
            let lexicon: Vec<u64> =
                docs.iter().flat_map(|(b, a)| b.iter().chain(a).copied()).collect();
            let cfg = IMatchConfig { extra_lexicons: k, drop_fraction: p, ..Default::default() };
            let im = IMatch::with_lexicon(lexicon, cfg, 77).unwrap();
            let mut survived = 0;
            for (base, added) in &docs {
                let a = im.signatures(&doc_of(base)).unwrap();
                let changed: Vec<u64> = base.iter().chain(added).copied().collect();
                let b = im.signatures(&doc_of(&changed)).unwrap();
                assert_ne!(a[0], b[0], "the base signature always changes");
                // With 60 terms every extra lexicon keeps far more than min_terms.
                assert_eq!((a.len(), b.len()), (k + 1, k + 1));
                survived += usize::from((1..=k).any(|i| a[i] == b[i]));
            }
            let expect = 1.0 - (1.0 - p.powi(n as i32)).powi(k as i32);
            let freq = survived as f64 / trials as f64;
            let se = (expect * (1.0 - expect) / trials as f64).sqrt();
            assert!((freq - expect).abs() < 4.0 * se, "n={n}: {freq} vs {expect} (se {se})");
        }
    }
}
