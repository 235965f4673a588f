//! Features: shingles. Contract: "give me a normalized text, I give you the sorted set of its
//! 64-bit shingle hashes".
//!
//! A *w-shingle* is a run of w consecutive tokens (word shingles) or of k consecutive characters
//! of the normalized text (character shingles, spaces included). Each shingle is hashed once, to
//! 64 bits, with seeded xxh3; every later stage (exact Jaccard, MinHash) works on these hashes
//! only, so the text is tokenized and hashed exactly once.
//!
//! Word shingles hash the sequence of their tokens' hashes (each token hashed once, then each
//! window of w token hashes hashed again): this costs one short xxh3 call per token and one per
//! shingle, independent of word length.
//!
//! **Short documents.** A document with fewer tokens (characters) than one shingle gets exactly one
//! shingle made of all of its tokens (characters), so that short texts (titles, one-line records)
//! can still be compared: two such documents match only if they are identical after
//! normalization. A document without any token has no shingles; the pipeline skips it with the
//! reason "no tokens after normalization".

use std::fmt;
use std::str::FromStr;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::text::normalize::{NormalizedText, Segmentation, normalize_with};

/// Which shingles to take from a document. Serialized as its command-line form (`"words:5"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum ShingleKind {
    /// Runs of this many consecutive tokens (default 5).
    Words(usize),
    /// Runs of this many consecutive characters of the normalized text.
    Chars(usize),
}

impl Default for ShingleKind {
    fn default() -> Self {
        ShingleKind::Words(5)
    }
}

impl ShingleKind {
    /// The shingle width (tokens or characters).
    pub fn width(self) -> usize {
        match self {
            ShingleKind::Words(w) | ShingleKind::Chars(w) => w,
        }
    }
}

impl fmt::Display for ShingleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShingleKind::Words(w) => write!(f, "words:{w}"),
            ShingleKind::Chars(k) => write!(f, "chars:{k}"),
        }
    }
}

/// Error from parsing a [`ShingleKind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid shingle setting {0:?}: expected words:N or chars:N with N between 1 and 64")]
pub struct ParseShingleKindError(String);

impl From<ShingleKind> for String {
    fn from(k: ShingleKind) -> String {
        k.to_string()
    }
}

impl TryFrom<String> for ShingleKind {
    type Error = ParseShingleKindError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl FromStr for ShingleKind {
    type Err = ParseShingleKindError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseShingleKindError(s.to_owned());
        let (kind, n) = s.split_once(':').ok_or_else(err)?;
        let n: usize = n.trim().parse().map_err(|_| err())?;
        if !(1..=64).contains(&n) {
            return Err(err());
        }
        match kind.trim() {
            "words" | "word" | "w" => Ok(ShingleKind::Words(n)),
            "chars" | "char" | "c" => Ok(ShingleKind::Chars(n)),
            _ => Err(err()),
        }
    }
}

/// Turns normalized texts into sorted, deduplicated sets of 64-bit shingle hashes.
#[derive(Debug, Clone)]
pub struct Shingler {
    kind: ShingleKind,
    seed: u64,
    segmentation: Segmentation,
}

/// Per-thread scratch space for [`Shingler::shingles_into`], to avoid allocations per document.
#[derive(Debug, Default)]
pub struct ShingleScratch {
    bytes: Vec<u8>,
    bounds: Vec<u32>,
    /// The shingle hashes in text order, which the radix sort scatters into the output, and its
    /// bucket starts.
    hashes: Vec<u64>,
    starts: Vec<u32>,
}

impl Shingler {
    /// A shingler of the given kind whose hashes are seeded with `seed`.
    pub fn new(kind: ShingleKind, seed: u64) -> Self {
        Shingler { kind, seed, segmentation: Segmentation::default() }
    }

    /// The same shingler with another segmentation of space-less scripts (see
    /// [`Segmentation`]).
    pub fn with_segmentation(mut self, segmentation: Segmentation) -> Self {
        self.segmentation = segmentation;
        self
    }

    /// The segmentation of space-less scripts.
    pub fn segmentation(&self) -> Segmentation {
        self.segmentation
    }

    /// Normalizes `text` into `norm` the way this shingler expects.
    pub fn normalize_into(&self, text: &str, norm: &mut NormalizedText) {
        normalize_with(text, norm, self.segmentation);
    }

    /// The shingle kind.
    pub fn kind(&self) -> ShingleKind {
        self.kind
    }

    /// Normalizes `text` and returns its sorted, deduplicated shingle hashes.
    pub fn shingle_set(&self, text: &str) -> Vec<u64> {
        let mut norm = NormalizedText::default();
        self.normalize_into(text, &mut norm);
        let mut out = Vec::new();
        self.shingles_into(&norm, &mut ShingleScratch::default(), &mut out);
        out
    }

    /// Writes the sorted, deduplicated shingle hashes of `norm` into `out` (cleared first).
    pub fn shingles_into(
        &self,
        norm: &NormalizedText,
        scratch: &mut ShingleScratch,
        out: &mut Vec<u64>,
    ) {
        let ShingleScratch { bytes, bounds, hashes, starts } = scratch;
        self.hashes_into(norm, bytes, bounds, hashes);
        // The hashes go from the scratch buffer into `out` sorted: `out` is allocated once, at its
        // size, and the scratch buffers are reused from one document to the next.
        sort_set_into(hashes, out, starts);
    }

    /// Writes the shingle hashes of `norm` into `out` (cleared first) in text order, repeated
    /// shingles repeated: the set of [`shingles_into`](Self::shingles_into) without its sort,
    /// for what does not depend on order or repeats (MinHash and the other sketches).
    pub fn shingle_hashes_into(
        &self,
        norm: &NormalizedText,
        scratch: &mut ShingleScratch,
        out: &mut Vec<u64>,
    ) {
        self.hashes_into(norm, &mut scratch.bytes, &mut scratch.bounds, out);
    }

    /// The hashes in text order into `out` (cleared first), with the scratch buffers of either
    /// kind.
    fn hashes_into(
        &self,
        norm: &NormalizedText,
        bytes: &mut Vec<u8>,
        bounds: &mut Vec<u32>,
        out: &mut Vec<u64>,
    ) {
        out.clear();
        match self.kind {
            ShingleKind::Words(w) => self.word_shingles(norm, w, bytes, out),
            ShingleKind::Chars(k) => self.char_shingles(norm, k, bounds, out),
        }
    }

    fn word_shingles(
        &self,
        norm: &NormalizedText,
        w: usize,
        bytes: &mut Vec<u8>,
        out: &mut Vec<u64>,
    ) {
        let n = norm.tokens.len();
        if n == 0 {
            return;
        }
        // Token hashes, laid out as little-endian bytes so a window is one contiguous slice.
        bytes.clear();
        bytes.reserve(n * 8);
        let text = norm.text.as_bytes();
        for &(s, e) in &norm.tokens {
            let h = xxh3_64_with_seed(&text[s as usize..e as usize], self.seed);
            bytes.extend_from_slice(&h.to_le_bytes());
        }
        let w = w.min(n);
        out.reserve(n + 1 - w);
        let shingle_seed = self.seed ^ 0x9E37_79B9_7F4A_7C15;
        for i in 0..=(n - w) {
            out.push(xxh3_64_with_seed(&bytes[i * 8..(i + w) * 8], shingle_seed));
        }
    }

    fn char_shingles(
        &self,
        norm: &NormalizedText,
        k: usize,
        bounds: &mut Vec<u32>,
        out: &mut Vec<u64>,
    ) {
        let text = &norm.text;
        if text.is_empty() {
            return;
        }
        bounds.clear();
        bounds.extend(text.char_indices().map(|(i, _)| i as u32));
        bounds.push(text.len() as u32);
        let chars = bounds.len() - 1;
        let k = k.min(chars);
        out.reserve(chars + 1 - k);
        let seed = self.seed ^ 0xC2B2_AE3D_27D4_EB4F;
        let bytes = text.as_bytes();
        for i in 0..=(chars - k) {
            let (s, e) = (bounds[i] as usize, bounds[i + k] as usize);
            out.push(xxh3_64_with_seed(&bytes[s..e], seed));
        }
    }
}

/// Writes the distinct values of `values` into `out` (cleared first), sorted ascending: a set of
/// shingle hashes from the hashes in text order. `starts` is scratch space.
pub(crate) fn sort_set_into(values: &[u64], out: &mut Vec<u64>, starts: &mut Vec<u32>) {
    radix_sort_into(values, out, starts);
    out.dedup();
}

/// Below this many values [`radix_sort_into`] leaves the work to `sort_unstable`.
const RADIX_MIN: usize = 64;

/// Above this many values in one bucket, [`radix_sort_into`] sorts each bucket on its own
/// instead of finishing with one insertion sort over all of them, so that skewed values cost
/// `n log n`, not `n` times the largest bucket.
const BUCKET_MAX: u32 = 32;

/// Writes `values` into `out` (cleared first), sorted ascending; `starts` is scratch space. One
/// radix pass on the top bits (about twice as many buckets as values: 64 to 1,048,576) scatters
/// the values into `out` bucket by bucket, in order; then one insertion sort over the whole
/// slice puts each value in place within its bucket, which is most often empty or a single
/// value. Shingle hashes are uniform 64-bit values, for which this costs three linear passes
/// instead of `n log n` comparisons (a sort of each bucket on its own cost a scan of every
/// bucket and a call per bucket: the old sort, with four times as many buckets as values, was
/// a third slower). Skewed values (a bucket of more than [`BUCKET_MAX`]) still end sorted, each
/// bucket being sorted by `sort_unstable`.
fn radix_sort_into(values: &[u64], out: &mut Vec<u64>, starts: &mut Vec<u32>) {
    out.clear();
    let n = values.len();
    if n < RADIX_MIN {
        out.extend_from_slice(values);
        out.sort_unstable();
        return;
    }
    let log2 = (usize::BITS - 1 - n.leading_zeros()) as usize;
    let bits = (log2 + 1).clamp(6, 20);
    let shift = 64 - bits;
    let buckets = 1usize << bits;
    starts.clear();
    starts.resize(buckets, 0);
    for &v in values {
        starts[(v >> shift) as usize] += 1;
    }
    // Counts to the first position of each bucket.
    let (mut sum, mut largest) = (0u32, 0u32);
    for s in starts.iter_mut() {
        let count = *s;
        largest = largest.max(count);
        *s = sum;
        sum += count;
    }
    // Exactly what is needed: `out` may be a buffer kept from an earlier document, and an
    // amortized doubling here would leave it up to twice too large for as long as it is kept.
    out.reserve_exact(n);
    out.resize(n, 0);
    for &v in values {
        let b = (v >> shift) as usize;
        out[starts[b] as usize] = v;
        starts[b] += 1;
    }
    if largest > BUCKET_MAX {
        // Each start has moved to its bucket's end.
        let mut lo = 0usize;
        for &end in starts.iter() {
            let end = end as usize;
            if end - lo > 1 {
                out[lo..end].sort_unstable();
            }
            lo = end;
        }
        return;
    }
    // A value moves left only past the values of its own bucket, at most BUCKET_MAX of them.
    for i in 1..n {
        let v = out[i];
        let mut j = i;
        while j > 0 && out[j - 1] > v {
            out[j] = out[j - 1];
            j -= 1;
        }
        out[j] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize::normalize;
    use std::collections::BTreeSet;

    /// Slow reference: shingles as strings, then hashed through the same path.
    fn reference_word_shingles(text: &str, w: usize) -> BTreeSet<Vec<String>> {
        let toks: Vec<String> = normalize(text).token_strs().map(str::to_owned).collect();
        if toks.is_empty() {
            return BTreeSet::new();
        }
        let w = w.min(toks.len());
        toks.windows(w).map(<[String]>::to_vec).collect()
    }

    proptest::proptest! {
        /// The radix sort against `sort_unstable`, on lengths on both sides of [`RADIX_MIN`]
        /// and on values that share bytes (skipped passes) as well as uniform ones.
        #[test]
        fn radix_sort_equals_sort_unstable(
            values in proptest::collection::vec(proptest::num::u64::ANY, 0..2000),
            mask in proptest::sample::select(vec![u64::MAX, 0xFFFF, 0xFF00_0000_00FF_0000, 0x8000_0000_0000_0001]),
        ) {
            let values: Vec<u64> = values.iter().map(|v| v & mask).collect();
            let mut expected = values.clone();
            expected.sort_unstable();
            let mut out = vec![9; 3];
            radix_sort_into(&values, &mut out, &mut Vec::new());
            proptest::prop_assert_eq!(out, expected);
        }
    }

    #[test]
    fn radix_sort_reuses_its_buffers() {
        let (mut out, mut starts) = (vec![7; 3], vec![3; 5]);
        for n in [RADIX_MIN, 300_000, 5000, RADIX_MIN + 1, 10] {
            let values: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
                .collect();
            let mut expected = values.clone();
            expected.sort_unstable();
            radix_sort_into(&values, &mut out, &mut starts);
            assert_eq!(out, expected, "n={n}");
        }
    }

    /// Values that fill a few buckets far past [`BUCKET_MAX`] (all equal top bits but for a
    /// handful) take the per-bucket sort, and both paths give the sorted values with their
    /// duplicates.
    #[test]
    fn radix_sort_of_skewed_and_repeated_values() {
        let mut starts = Vec::new();
        let mut out = Vec::new();
        let uniform: Vec<u64> =
            (0..10_000u64).map(|i| i.wrapping_mul(0xD6E8_FEB8_6659_FD93)).collect();
        let skewed: Vec<u64> = uniform.iter().map(|v| v >> 30).collect();
        let repeated: Vec<u64> = uniform.iter().chain(&uniform).copied().collect();
        for values in [uniform, skewed, repeated] {
            let mut expected = values.clone();
            expected.sort_unstable();
            radix_sort_into(&values, &mut out, &mut starts);
            assert_eq!(out, expected);
        }
    }

    proptest::proptest! {
        /// The hashes in text order are the set's values, each as often as its shingle occurs
        /// in the text: sorted and deduplicated, they are the set.
        #[test]
        fn hashes_in_text_order_sorted_are_the_set(
            words in proptest::collection::vec(proptest::sample::select(vec!["a", "rose", "is", "Red", "дом", "重", "!"]), 0..80),
            w in 1usize..7,
            chars in proptest::bool::ANY,
        ) {
            let text = words.join(" ");
            let kind = if chars { ShingleKind::Chars(w) } else { ShingleKind::Words(w) };
            let s = Shingler::new(kind, 3);
            let norm = normalize(&text);
            let (mut hashes, mut scratch) = (Vec::new(), ShingleScratch::default());
            s.shingle_hashes_into(&norm, &mut scratch, &mut hashes);
            let windows = match kind {
                ShingleKind::Words(_) => norm.len(),
                ShingleKind::Chars(_) => norm.text.chars().count(),
            };
            proptest::prop_assert_eq!(hashes.len(), if windows == 0 { 0 } else { windows + 1 - w.min(windows) });
            let mut sorted = hashes.clone();
            sorted.sort_unstable();
            sorted.dedup();
            proptest::prop_assert_eq!(&sorted, &s.shingle_set(&text));
            let mut set = Vec::new();
            sort_set_into(&hashes, &mut set, &mut Vec::new());
            proptest::prop_assert_eq!(set, sorted);
        }
    }

    #[test]
    fn parse_and_display_round_trip() {
        for s in ["words:5", "chars:7", "words:1"] {
            assert_eq!(s.parse::<ShingleKind>().unwrap().to_string(), s);
        }
        for bad in ["words", "words:0", "bytes:5", "chars:x", "words:65"] {
            assert!(bad.parse::<ShingleKind>().is_err(), "{bad}");
        }
    }

    #[test]
    fn word_shingle_count_equals_distinct_windows() {
        let text = "a rose is a rose is a rose and a rose is red";
        for w in 1..=6 {
            let s = Shingler::new(ShingleKind::Words(w), 7);
            assert_eq!(s.shingle_set(text).len(), reference_word_shingles(text, w).len(), "w={w}");
        }
    }

    #[test]
    fn normalization_variants_give_equal_sets_and_seeds_differ() {
        let s = Shingler::new(ShingleKind::Words(3), 1);
        assert_eq!(s.shingle_set("Hello, World: it's me"), s.shingle_set("hello world ITS me!"));
        let t = Shingler::new(ShingleKind::Words(3), 2);
        assert_ne!(s.shingle_set("hello world its me"), t.shingle_set("hello world its me"));
    }

    #[test]
    fn short_documents_get_one_shingle_and_empty_ones_none() {
        let s = Shingler::new(ShingleKind::Words(5), 1);
        assert_eq!(s.shingle_set("just three words").len(), 1);
        assert_ne!(s.shingle_set("just three words"), s.shingle_set("just three"));
        assert!(s.shingle_set(" -- ").is_empty());
        let c = Shingler::new(ShingleKind::Chars(5), 1);
        assert_eq!(c.shingle_set("abc").len(), 1);
        assert!(c.shingle_set("").is_empty());
    }

    #[test]
    fn char_shingles_are_unicode_aware() {
        let c = Shingler::new(ShingleKind::Chars(3), 1);
        // 6 characters, 4 windows, all distinct.
        assert_eq!(c.shingle_set("дубль Ж").len(), 5);
        assert_eq!(c.shingle_set("重複文書検出").len(), 4);
    }
}
