//! Helpers of the unit tests: random sets for the sketching modules, real article texts.

use crate::sketch::minhash::splitmix64;

/// `n` random 64-bit values, sorted and deduplicated.
pub(crate) fn random_set(state: &mut u64, n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n).map(|_| splitmix64(state)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Two sorted sets sharing `common` random elements, with `only_a` and `only_b` private ones.
pub(crate) fn overlapping_pair(
    state: &mut u64,
    common: usize,
    only_a: usize,
    only_b: usize,
) -> (Vec<u64>, Vec<u64>) {
    let c = random_set(state, common);
    let mut a = c.clone();
    a.extend(random_set(state, only_a));
    let mut b = c;
    b.extend(random_set(state, only_b));
    a.sort_unstable();
    b.sort_unstable();
    (a, b)
}

/// Real article bodies of at least `min_words` words (the gold texts of
/// ../shared/data/article-extraction-benchmark), as (name, text) sorted by name. Tests that call
/// it are `#[ignore = "needs ../shared/data"]`; without the data they fail with a message.
pub(crate) fn shared_articles(min_words: usize) -> Vec<(String, String)> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/article-extraction-benchmark/ground-truth.json");
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("needs ../shared/data: cannot read {}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    let mut out: Vec<(String, String)> = json
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.get("articleBody")?.as_str()?.to_owned())))
        .filter(|(_, t)| t.split_whitespace().count() >= min_words)
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{} holds no article of {min_words} words", path.display());
    out
}

/// A seeded generator of small random numbers for the unit tests (splitmix64).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        splitmix64(&mut self.0) % n
    }
}

/// The pipeline's engine for `c` over `texts`, every text a head, prepared (its statistics
/// pass done): what a test compares another route's candidates or estimates with.
pub(crate) fn prepared_engine(
    c: &crate::DedupConfig,
    texts: &[String],
) -> Box<dyn crate::method::Engine> {
    let mut engine = c.method.build(c).unwrap();
    let shingler =
        crate::shingles::Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation);
    let docs: Vec<crate::Document> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| crate::Document::from_text(i.to_string(), t.clone()))
        .collect();
    let processed = engine.process(&shingler, &docs.iter().collect::<Vec<_>>());
    engine.push_heads(&(0..docs.len()).collect::<Vec<_>>(), &processed);
    engine.method_mut().prepare().unwrap();
    engine
}

/// The pipeline's own candidates of `texts` (every text a head), sorted and distinct.
pub(crate) fn library_pairs(c: &crate::DedupConfig, texts: &[String]) -> Vec<(u32, u32)> {
    let engine = prepared_engine(c, texts);
    let mut pairs = Vec::new();
    engine.method().candidates(&mut |a, b| pairs.push((a.0, b.0))).unwrap();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// `f` of each of `texts` as a method sees it under `c` (its normalized text and its shingle
/// set, sorted), in order: the tests' stand-in for the pipeline's reading.
pub(crate) fn each_view<T>(
    c: &crate::DedupConfig,
    texts: &[String],
    mut f: impl FnMut(&crate::method::DocView<'_>) -> T,
) -> Vec<T> {
    use crate::shingles::{ShingleScratch, Shingler};
    use crate::text::normalize::NormalizedText;
    let shingler = Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation);
    let (mut norm, mut scratch) = (NormalizedText::default(), ShingleScratch::default());
    let mut shingles = Vec::new();
    texts
        .iter()
        .map(|t| {
            shingler.normalize_into(t, &mut norm);
            shingler.shingles_into(&norm, &mut scratch, &mut shingles);
            f(&crate::method::DocView { text: t, norm: &norm, shingles: &shingles })
        })
        .collect()
}
