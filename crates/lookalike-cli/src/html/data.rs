//! What the report shows besides the run's figures ([`crate::stats::RunStats`]), gathered as a
//! run's results stream past: a seeded sample of the verified pairs in every 0.05 similarity band,
//! cluster sizes and the largest clusters, and duplicate rates by host, language and input. Memory
//! stays bounded by the sample sizes and the number of hosts, languages and inputs; never by the
//! number of pairs.
//!
//! `dedup --html` pushes into it from the run's sink; `lookalike report --run` pushes the lines of
//! the run's files (`--pairs`, `--clusters`, `--report`). Both push the same values (similarities
//! rounded to the six decimals of the files), so they draw the same sample and the same page.

use std::collections::{BTreeMap, BTreeSet};

use super::BAND;

/// Pairs kept per band in the sample (the page may show fewer, to stay under its size cap).
pub const SAMPLE_PER_BAND: usize = 8;
/// Largest clusters listed, and chained clusters listed.
pub const CLUSTERS_LISTED: usize = 12;
/// Members shown per listed cluster.
pub const MEMBERS_SHOWN: usize = 6;

/// A pair of the sample.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledPair {
    pub a: String,
    pub b: String,
    pub similarity: f64,
    /// Accepted (at or above the threshold), or a rejected candidate.
    pub accepted: bool,
}

/// One 0.05 band of similarity: `[lo, lo + 0.05)`, pairs counted, sample by rank.
#[derive(Debug, Clone, Default)]
pub struct Band {
    pub count: u64,
    /// `(rank, pair)`, the `SAMPLE_PER_BAND` smallest ranks.
    sample: Vec<(u64, SampledPair)>,
}

impl Band {
    fn offer(&mut self, rank: u64, pair: SampledPair) {
        self.count += 1;
        let pos = self.sample.partition_point(|(r, p)| (*r, &p.a, &p.b) < (rank, &pair.a, &pair.b));
        if pos < SAMPLE_PER_BAND {
            self.sample.insert(pos, (rank, pair));
            self.sample.truncate(SAMPLE_PER_BAND);
        }
    }

    /// The sampled pairs, in rank order.
    pub fn pairs(&self) -> impl Iterator<Item = &SampledPair> {
        self.sample.iter().map(|(_, p)| p)
    }
}

/// A member of a listed cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub id: String,
    pub similarity: f64,
    pub kind: String,
}

/// A listed cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterInfo {
    /// Its number in the clusters file (from 0, ordered by first member).
    pub number: u64,
    pub size: usize,
    pub representative: String,
    /// Members by match kind.
    pub kinds: BTreeMap<String, u64>,
    /// Lowest similarity of a member to the representative.
    pub min_similarity: f64,
    /// Members below the threshold to the representative.
    pub below: u64,
    pub members: Vec<Member>,
}

/// Documents and duplicates of one host, language or input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rate {
    pub documents: u64,
    pub exact: u64,
    pub near: u64,
    pub skipped: u64,
}

impl Rate {
    /// Adds the counts of `other`.
    pub fn add(&mut self, other: &Rate) {
        self.documents += other.documents;
        self.exact += other.exact;
        self.near += other.near;
        self.skipped += other.skipped;
    }
}

/// The fate of one record, as the report lists it: kept, removed as an exact copy of the
/// document its cluster keeps (`match` `exact-bytes` or `exact-text` in `--report`), removed as a
/// near duplicate of it (`near`, which includes an exact copy of a removed near duplicate), or
/// skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Kept,
    Exact,
    Near,
    Skipped,
}

/// Everything the page shows but the run's figures.
#[derive(Debug, Clone)]
pub struct RunData {
    /// The inputs as given.
    pub inputs: Vec<String>,
    pub version: String,
    pub threshold: f64,
    seed: u64,
    /// Accepted pairs by band index (band `k` is `[t + k·0.05, t + (k+1)·0.05)`, the last one
    /// closed at 1); pairs of similarity 1 apart.
    pub bands: BTreeMap<u32, Band>,
    /// Pairs of similarity 1 (exact copies, or identical shingle sets).
    pub identical: u64,
    /// Rejected candidates just below the threshold, by band below it (0: `[t − 0.05, t)`).
    pub rejected: BTreeMap<u32, Band>,
    pub cluster_sizes: BTreeMap<usize, u64>,
    pub clusters: u64,
    /// The largest clusters: `(size, number)` ordered, size descending.
    pub largest: Vec<ClusterInfo>,
    /// Clusters with a member below the threshold to its representative.
    pub chained: u64,
    pub chained_listed: Vec<ClusterInfo>,
    pub by_host: BTreeMap<String, Rate>,
    pub by_lang: BTreeMap<String, Rate>,
    pub by_source: BTreeMap<String, Rate>,
    /// Records whose id is not a URL (no host).
    pub without_host: u64,
    /// Texts of the sampled documents, by id.
    pub texts: BTreeMap<String, String>,
    /// Why some texts are missing, when they are.
    pub texts_note: Option<String>,
}

/// A well-spread 64-bit rank of a pair (FNV-1a of the ids and the seed, then splitmix64's
/// finaliser): stable across runs, platforms and thread counts.
fn rank(seed: u64, a: &str, b: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for byte in a.bytes().chain([0xff]).chain(b.bytes()) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// A similarity as the pairs file writes it (six decimals).
pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl RunData {
    /// An empty report of a run at `threshold` with `seed` (which draws the samples).
    pub fn new(threshold: f64, seed: u64, inputs: Vec<String>) -> RunData {
        RunData {
            inputs,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            threshold,
            seed,
            bands: BTreeMap::new(),
            identical: 0,
            rejected: BTreeMap::new(),
            cluster_sizes: BTreeMap::new(),
            clusters: 0,
            largest: Vec::new(),
            chained: 0,
            chained_listed: Vec::new(),
            by_host: BTreeMap::new(),
            by_lang: BTreeMap::new(),
            by_source: BTreeMap::new(),
            without_host: 0,
            texts: BTreeMap::new(),
            texts_note: None,
        }
    }

    /// A verified pair (a line of the pairs file).
    pub fn pair(&mut self, a: &str, b: &str, similarity: f64) {
        let similarity = round6(similarity);
        if similarity >= 1.0 {
            self.identical += 1;
            return;
        }
        // A hair of slack: 0.85 − 0.8 is 0.0499… in floating point, and belongs to band 1.
        let k = ((similarity - self.threshold) / BAND + 1e-9).floor().max(0.0) as u32;
        let pair = SampledPair { a: a.to_owned(), b: b.to_owned(), similarity, accepted: true };
        self.bands.entry(k).or_default().offer(rank(self.seed, a, b), pair);
    }

    /// A rejected candidate of the run's sample (already drawn by the pipeline: every one is
    /// kept, up to the band's sample size).
    pub fn rejected(&mut self, a: &str, b: &str, similarity: f64) {
        let similarity = round6(similarity);
        if similarity >= self.threshold {
            return;
        }
        // Band 0 is [t − 0.05, t): 0.75 is in it at t = 0.8.
        let k = (((self.threshold - similarity) / BAND - 1e-9).ceil() - 1.0).max(0.0) as u32;
        let pair = SampledPair { a: a.to_owned(), b: b.to_owned(), similarity, accepted: false };
        self.rejected.entry(k).or_default().offer(rank(self.seed, a, b), pair);
    }

    /// A cluster (a line of the clusters file); `number` counts from 0.
    pub fn cluster(&mut self, number: u64, representative: &str, members: Vec<Member>) {
        let size = members.len() + 1;
        self.clusters += 1;
        *self.cluster_sizes.entry(size).or_default() += 1;
        let t = self.threshold;
        let below = members.iter().filter(|m| round6(m.similarity) < t).count() as u64;
        let info = || {
            let mut kinds = BTreeMap::new();
            for m in &members {
                *kinds.entry(m.kind.clone()).or_insert(0) += 1;
            }
            let min_similarity = members.iter().map(|m| m.similarity).fold(1.0, f64::min);
            ClusterInfo {
                number,
                size,
                representative: representative.to_owned(),
                kinds,
                min_similarity,
                below,
                members: members.iter().take(MEMBERS_SHOWN).cloned().collect(),
            }
        };
        // Largest first; among equal sizes, the earlier cluster.
        let pos = self.largest.partition_point(|c| c.size >= size);
        if pos < CLUSTERS_LISTED {
            self.largest.insert(pos, info());
            self.largest.truncate(CLUSTERS_LISTED);
        }
        if below > 0 {
            self.chained += 1;
            if self.chained_listed.len() < CLUSTERS_LISTED {
                self.chained_listed.push(info());
            }
        }
    }

    /// A record's fate (a line of the report file): its id, language and input.
    pub fn record(&mut self, id: &str, fate: Fate, lang: Option<&str>, source: &str) {
        let add = |r: &mut Rate| {
            r.documents += 1;
            match fate {
                Fate::Kept => {}
                Fate::Exact => r.exact += 1,
                Fate::Near => r.near += 1,
                Fate::Skipped => r.skipped += 1,
            }
        };
        match host(id) {
            Some(h) => add(self.by_host.entry(h).or_default()),
            None => self.without_host += 1,
        }
        add(self.by_lang.entry(lang.unwrap_or("unknown").to_owned()).or_default());
        add(self.by_source.entry(source.to_owned()).or_default());
    }

    /// Every record's fate, summed: what the run card and every duplicate-rate table count (each
    /// record is in the by-language table exactly once, under "unknown" when it has no language).
    pub fn fates(&self) -> Rate {
        let mut all = Rate::default();
        for r in self.by_lang.values() {
            all.add(r);
        }
        all
    }

    /// The ids whose texts the sampled pairs show.
    pub fn wanted_ids(&self) -> BTreeSet<String> {
        let mut ids = BTreeSet::new();
        for band in self.bands.values().chain(self.rejected.values()) {
            for p in band.pairs() {
                ids.insert(p.a.clone());
                ids.insert(p.b.clone());
            }
        }
        ids
    }
}

/// The host of a URL id (`http`, `https`), lower-cased; `None` for other ids.
pub fn host(id: &str) -> Option<String> {
    lookalike_io::boilerplate::url_host(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> RunData {
        RunData::new(0.8, 1, vec![])
    }

    #[test]
    fn pairs_fall_into_bands_from_the_threshold() {
        let mut d = data();
        d.pair("a", "b", 0.8);
        d.pair("a", "c", 0.849999);
        d.pair("a", "d", 0.85);
        d.pair("a", "e", 0.999);
        d.pair("a", "f", 1.0);
        assert_eq!(d.bands[&0].count, 2);
        assert_eq!(d.bands[&1].count, 1);
        assert_eq!(d.bands[&3].count, 1);
        assert_eq!(d.identical, 1);
        d.rejected("x", "y", 0.79);
        d.rejected("x", "z", 0.70);
        d.rejected("x", "w", 0.75);
        assert_eq!(d.rejected[&0].count, 2);
        assert_eq!(d.rejected[&1].count, 1);
    }

    #[test]
    fn band_sample_is_the_same_in_any_push_order() {
        let ids: Vec<String> = (0..100).map(|i| format!("doc{i}")).collect();
        let mut fwd = data();
        let mut back = data();
        for id in &ids {
            fwd.pair("a", id, 0.9);
        }
        for id in ids.iter().rev() {
            back.pair("a", id, 0.9);
        }
        let f: Vec<_> = fwd.bands[&2].pairs().cloned().collect();
        let b: Vec<_> = back.bands[&2].pairs().cloned().collect();
        assert_eq!(f.len(), SAMPLE_PER_BAND);
        assert_eq!(f, b);
    }

    #[test]
    fn clusters_below_threshold_are_flagged_as_chained() {
        let mut d = data();
        let m = |id: &str, s: f64| Member { id: id.into(), similarity: s, kind: "near".into() };
        d.cluster(1, "r", vec![m("x", 0.9)]);
        d.cluster(2, "q", vec![m("y", 0.9), m("z", 0.6)]);
        assert_eq!(d.chained, 1);
        assert_eq!(d.chained_listed[0].representative, "q");
        assert_eq!(d.largest[0].size, 3);
        assert_eq!(d.cluster_sizes[&2], 1);
    }

    #[test]
    fn fates_count_every_record_once_whatever_its_host_or_language() {
        let mut d = data();
        d.record("http://a.example/1", Fate::Kept, Some("en"), "f1");
        d.record("b", Fate::Exact, None, "f1");
        d.record("c", Fate::Near, Some("de"), "f2");
        d.record("d", Fate::Near, Some("de"), "f2");
        d.record("e", Fate::Skipped, None, "f2");
        assert_eq!(d.fates(), Rate { documents: 5, exact: 1, near: 2, skipped: 1 });
        assert_eq!(d.by_host.len(), 1, "only URL ids have a host");
    }

    #[test]
    fn hosts_of_url_ids() {
        assert_eq!(host("https://Example.COM/a?b").as_deref(), Some("example.com"));
        assert_eq!(host("docs/a.txt"), None);
        assert_eq!(host("http://"), None);
    }
}
