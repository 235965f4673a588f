//! [`SuperShingles`]: super-shingles and mega-shingles over min-hash values (Broder 1997;
//! Fetterly, Manasse & Najork 2003).

use rayon::prelude::*;

use super::minhash::{scheme_name, sketch_heads, verify_short};
use super::options::{InIndex, MethodOption, MethodSpec};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, Slot};
use crate::config::{MethodConfig, SuperShinglesConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::minhash::{MinHasher, estimate_jaccard};
use crate::sketch::supershingles::{self, SuperShingleConfig, SuperShingleMode};

/// Super-shingles: `minhashes` min-hash values per head hashed in groups; candidates share a
/// mega-shingle (2 super-shingles) or a super-shingle; estimate = share of equal min-hash values.
#[derive(Debug)]
pub struct SuperShingles {
    config: SuperShinglesConfig,
    hasher: MinHasher,
    cx: Context,
    sigs: Vec<u32>,
}

impl SuperShingles {
    /// The method with validated settings.
    pub fn new(config: SuperShinglesConfig, cx: Context) -> Result<SuperShingles, Error> {
        config.shape.validate().map_err(ConfigError::from)?;
        let hasher = MinHasher::new(config.shape.minhashes, config.scheme, cx.seed);
        Ok(SuperShingles { config, hasher, cx, sigs: Vec::new() })
    }

    fn sig(&self, slot: Slot) -> &[u32] {
        let n = self.config.shape.minhashes;
        &self.sigs[slot.index() * n..(slot.index() + 1) * n]
    }

    fn slots(&self) -> u32 {
        (self.sigs.len() / self.config.shape.minhashes.max(1)) as u32
    }
}

impl Method for SuperShingles {
    type Doc = ();

    fn doc(&self, _doc: &DocView<'_>) {}

    fn push_heads(&mut self, heads: Vec<Head<'_, ()>>) {
        sketch_heads(&self.hasher, &mut self.sigs, &heads);
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        let keys: Vec<Vec<u64>> = (0..self.slots())
            .into_par_iter()
            .map(|slot| {
                supershingles::document_keys(self.sig(Slot(slot)), &self.config.shape, self.cx.seed)
            })
            .collect();
        for (a, b) in supershingles::candidate_pairs(&keys) {
            emit(Slot(a), Slot(b));
        }
        Ok(CandidateReport::default())
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        estimate_jaccard(self.sig(a), self.sig(b))
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= self.cx.threshold
    }

    fn describe(&self) -> String {
        let s = &self.config.shape;
        format!(
            "method supershingles: {} shingles, {} min-hashes ({}) in {} groups of {}, {}, {}, {}",
            self.cx.shingle,
            s.minhashes,
            scheme_name(self.config.scheme),
            s.groups,
            s.per_group,
            match s.mode {
                SuperShingleMode::Pairs => "mega-shingles (2 of the groups)",
                SuperShingleMode::Single => "single super-shingles",
            },
            self.cx.measure_text(),
            verify_short(&self.cx)
        )
    }

    fn phase(&self) -> &'static str {
        "finding candidates (shared super-shingles)"
    }
}

/// `super_hashes`: min-hash values per document.
pub(super) static SUPER_HASHES: MethodOption = MethodOption::count(
    "super_hashes",
    "N",
    "Super-shingles: number of min-hash values per document (Fetterly et al.: 84)",
)
.with_default(|| SuperShingleConfig::default().minhashes.to_string());

/// `super_groups`: super-shingles per document.
pub(super) static SUPER_GROUPS: MethodOption = MethodOption::count(
    "super_groups",
    "G",
    "Super-shingles: number of super-shingles per document (Fetterly et al.: 6; each hashes \
           N / groups consecutive min-hash values)",
)
.with_default(|| SuperShingleConfig::default().groups.to_string());

/// `super_mode`: mega-shingles or super-shingles.
pub(super) static SUPER_MODE: MethodOption = MethodOption::choice::<SuperShingleMode>(
    "super_mode",
    "MODE",
    "Super-shingles: pairs (documents meet when 2 of the G super-shingles agree, via the \
           mega-shingles) or single (1 agreeing super-shingle is enough)",
    "pairs or single",
)
.with_default(|| "pairs".to_owned());

/// Super-shingles in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::SuperShingles,
    options: &[&SUPER_HASHES, &SUPER_GROUPS, &SUPER_MODE, &super::minhash::SCHEME],
    config: |v| {
        let d = SuperShingleConfig::default();
        let minhashes = v.get("super_hashes").unwrap_or(d.minhashes);
        let groups = v.get("super_groups").unwrap_or(d.groups);
        Ok(MethodConfig::SuperShingles(SuperShinglesConfig {
            shape: SuperShingleConfig {
                minhashes,
                groups,
                per_group: minhashes.checked_div(groups).unwrap_or(0),
                mode: v.get("super_mode").unwrap_or(d.mode),
            },
            scheme: v.get("minhash").unwrap_or_default(),
        }))
    },
    index: InIndex::NotYet,
    document_keys: super::doc_keyer::own_keys,
};
