//! [`SpotSigs`]: spot signatures (Theobald, Siddharth & Paepcke 2008).

use super::doc_keyer::KeyerError;
use super::options::{InIndex, MethodOption, MethodSpec};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, MethodStats, Slot};
use crate::config::{MethodConfig, SpotSigsConfig};
use crate::error::{ConfigError, Error};
use crate::lexical::spotsigs::{
    SpotConfig, SpotExtractor, SpotIndex, SpotSet, antecedent_languages, weighted_jaccard,
    weighted_jaccard_of_sums,
};

/// SpotSigs: spots (a stopword and the next content words) as a multiset, with the antecedents
/// and stopwords of the document's language; pairs with weighted Jaccard ≥ the threshold, found
/// exactly with size partitions and an inverted index.
#[derive(Debug)]
pub struct SpotSigs {
    config: SpotSigsConfig,
    cx: Context,
    /// An extractor per language with built-in antecedents, English first.
    spotters: Vec<(&'static str, SpotExtractor)>,
    spots: Vec<SpotSet>,
}

impl SpotSigs {
    /// The method; an error for a chain of no words.
    pub fn new(config: SpotSigsConfig, cx: Context) -> Result<SpotSigs, ConfigError> {
        if config.chain == Some(0) {
            return Err(ConfigError::SpotChain(0));
        }
        let mut langs: Vec<&'static str> = antecedent_languages().collect();
        langs.sort_by_key(|&l| l != "en");
        let spotters = langs
            .into_iter()
            .filter_map(|l| {
                let mut cfg = SpotConfig::for_language(l)?;
                if let Some(chain) = config.chain {
                    cfg.chain = chain;
                }
                let ex = SpotExtractor::new(cfg, crate::text::lang::stopwords(l));
                Some((l, ex.with_seed(cx.seed)))
            })
            .collect();
        Ok(SpotSigs { config, cx, spotters, spots: Vec::new() })
    }
}

impl SpotSigs {
    /// The method of a configuration whose method is SpotSigs (`None` for the others).
    pub fn of(c: &crate::config::DedupConfig) -> Result<Option<SpotSigs>, Error> {
        match &c.method {
            MethodConfig::SpotSigs(m) => Ok(Some(SpotSigs::new(*m, Context::of(c))?)),
            _ => Ok(None),
        }
    }

    /// A document's spots, as the method computes them in the pipeline (for an engine that
    /// groups documents by spot: the Ray job).
    pub fn spots(&self, doc: &DocView<'_>) -> SpotSet {
        Method::doc(self, doc)
    }

    /// Whether two documents of `len_a` and `len_b` spots (multiset sizes) whose shared spots
    /// have Σmin = `shared_min` are candidates: weighted Jaccard above 0 and at least the
    /// threshold, the pairs of [`SpotIndex::all_pairs`].
    pub fn is_candidate(&self, shared_min: u64, len_a: u64, len_b: u64) -> bool {
        let j = weighted_jaccard_of_sums(shared_min, len_a, len_b);
        j > 0.0 && j >= self.cx.threshold
    }

    /// Whether two documents of `len_a` and `len_b` spots can be candidates at all: whether
    /// they would be with every spot of the smaller one shared (the largest Σmin; the weighted
    /// Jaccard grows with Σmin). For fixed `len_a`, false from some `len_b` on.
    pub fn may_pair(&self, len_a: u64, len_b: u64) -> bool {
        self.is_candidate(len_a.min(len_b), len_a, len_b)
    }
}

impl Method for SpotSigs {
    type Doc = SpotSet;

    fn doc(&self, doc: &DocView<'_>) -> SpotSet {
        // Antecedents and stopwords of the document's language (English when unknown or without
        // a built-in antecedent set).
        let lang = crate::text::lang::detect(doc.text).map(|d| d.code);
        let spotter = self
            .spotters
            .iter()
            .find(|(l, _)| Some(*l) == lang)
            .or(self.spotters.first())
            .map(|(_, s)| s);
        spotter.map(|s| s.spots_normalized(doc.norm)).unwrap_or_default()
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, SpotSet>>) {
        self.spots.extend(heads.into_iter().map(|h| h.doc));
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        let (pairs, stats) = SpotIndex::build(&self.spots).all_pairs_with_stats(self.cx.threshold);
        for (a, b, _) in pairs {
            emit(Slot(a), Slot(b));
        }
        Ok(CandidateReport {
            method: MethodStats { spotsigs: Some(stats), ..MethodStats::default() },
            ..CandidateReport::default()
        })
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        weighted_jaccard(&self.spots[a.index()], &self.spots[b.index()])
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= self.cx.threshold
    }

    fn describe(&self) -> String {
        format!(
            "method spotsigs: spot signatures (antecedent stopword + {} content words, per detected language), weighted Jaccard ≥ {}, {}",
            self.config.chain.map_or("2 (Chinese, Japanese: 4)".to_owned(), |n| n.to_string()),
            self.cx.threshold,
            self.cx.verify_text(" (the spot similarity)")
        )
    }
}

/// `spot_chain`: the content words of a spot.
pub(super) static SPOT_CHAIN: MethodOption = MethodOption::count(
    "spot_chain",
    "C",
    "SpotSigs: content words in each spot's chain (default 2; 4 characters for Chinese and \
           Japanese)",
);

/// SpotSigs in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::SpotSigs,
    options: &[&SPOT_CHAIN],
    config: |v| Ok(MethodConfig::SpotSigs(SpotSigsConfig { chain: v.get("spot_chain") })),
    index: InIndex::NotYet,
    document_keys: |_| {
        Err(KeyerError::NoDocumentKeys(
            "spotsigs finds its pairs with an inverted index over the whole collection (weighted Jaccard of spot multisets)".into(),
        ))
    },
};

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::config::DedupConfig;
    use crate::lexical::spotsigs::brute_force_pairs;

    /// Σmin summed per pair over the spots two documents share, as an engine grouping documents
    /// by spot sums it, with [`SpotSigs::is_candidate`]: the index's pairs.
    #[test]
    fn summed_shared_spots_give_the_index_pairs() {
        let mut state = 5u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        // Random multisets, and edited copies of them (a few spots added).
        let mut hashes: Vec<Vec<u64>> = (0..60)
            .map(|_| {
                let len = 1 + next(30);
                (0..len).map(|_| next(40)).collect()
            })
            .collect();
        for d in 0..60 {
            let mut copy = hashes[d].clone();
            copy.extend((0..next(6)).map(|_| next(40)));
            hashes.push(copy);
        }
        let docs: Vec<SpotSet> = hashes.into_iter().map(SpotSet::from_hashes).collect();
        for threshold in [0.2, 0.4, 0.6] {
            let c = DedupConfig {
                method: MethodConfig::SpotSigs(SpotSigsConfig::default()),
                threshold,
                ..DedupConfig::default()
            };
            let method = SpotSigs::of(&c).unwrap().unwrap();
            let mut by_spot: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
            for (d, s) in docs.iter().enumerate() {
                for &(h, n) in s.spots() {
                    by_spot.entry(h).or_default().push((d as u32, n));
                }
            }
            let mut sums: HashMap<(u32, u32), u64> = HashMap::new();
            for docs in by_spot.values() {
                for (i, &(a, x)) in docs.iter().enumerate() {
                    for &(b, y) in &docs[i + 1..] {
                        *sums.entry((a, b)).or_default() += u64::from(x.min(y));
                    }
                }
            }
            let mut got: Vec<(u32, u32)> = sums
                .into_iter()
                .filter(|&((a, b), m)| {
                    method.is_candidate(m, docs[a as usize].len(), docs[b as usize].len())
                })
                .map(|(p, _)| p)
                .collect();
            got.sort_unstable();
            let want: Vec<(u32, u32)> =
                brute_force_pairs(&docs, threshold).into_iter().map(|(a, b, _)| (a, b)).collect();
            assert!(want.len() > 10, "{threshold}: {} pairs", want.len());
            assert_eq!(got, want, "threshold {threshold}");
            assert_eq!(SpotIndex::build(&docs).all_pairs(threshold).len(), want.len());
        }
    }
}
