//! [`SpotSigs`]: spot signatures (Theobald, Siddharth & Paepcke 2008).

use super::options::{InIndex, MethodOption, MethodSpec};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, MethodStats, Slot};
use crate::config::{MethodConfig, SpotSigsConfig};
use crate::error::{ConfigError, Error};
use crate::lexical::spotsigs::{
    SpotConfig, SpotExtractor, SpotIndex, SpotSet, antecedent_languages, weighted_jaccard,
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
};
