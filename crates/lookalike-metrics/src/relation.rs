//! Duplicate relations read from files, in the one form every scorer compares.
//!
//! A run's results and a gold standard come as **pairs** (TSV `id1<TAB>id2<TAB>value`, the value
//! a similarity or a label) or as **clusters** (JSONL, one group of documents per line). Both
//! become a [`Relation`]: the set of document pairs the file says are duplicates, stored as
//! groups (every two members of a group are duplicates) plus links between groups.
//!
//! **Canonicalization of found pairs.** `lookalike dedup` reports an exact-duplicate group
//! (identical normalized texts) as pairs (representative, copy, 1.0) only, not as all pairs
//! inside the group. So in [`Relation::from_found_pairs`] the pairs with similarity exactly 1.0
//! are merged with union-find into groups, and a pair (x, y) counts as found when x and y are in
//! the same group, or when some found pair joins x's group to y's group (every found pair is
//! mapped through the groups; a document in no group is its own group). What the run *asserted*
//! is still the pairs it wrote, and precision is counted over those.
//!
//! Gold pairs are taken literally ([`Relation::from_pairs`]): a gold file lists every duplicate
//! pair (the truth of `lookalike-bench truth` does, exact groups included). A clustering
//! ([`Relation::from_clusters`]) asserts every pair inside each cluster.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use crate::Error;

/// Interned document ids: each distinct id string gets a dense `u32`.
#[derive(Debug, Default, Clone)]
pub struct Ids {
    index: HashMap<String, u32>,
    names: Vec<String>,
}

impl Ids {
    /// The number of `id`, given a new one if it has none yet.
    pub fn intern(&mut self, id: &str) -> u32 {
        if let Some(&i) = self.index.get(id) {
            return i;
        }
        let i = self.names.len() as u32;
        self.index.insert(id.to_owned(), i);
        self.names.push(id.to_owned());
        i
    }

    /// The number of `id`, if it has one.
    pub fn get(&self, id: &str) -> Option<u32> {
        self.index.get(id).copied()
    }

    /// The id string of number `i`.
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }

    /// Number of distinct ids.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when no id was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Union-find with path halving and union by size.
#[derive(Debug, Default, Clone)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// Makes sure elements `0..n` exist (new ones are singletons).
    pub fn grow(&mut self, n: usize) {
        while self.parent.len() < n {
            self.parent.push(self.parent.len() as u32);
            self.size.push(1);
        }
    }

    /// The representative of `x`'s set.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Merges the sets of `a` and `b`.
    pub fn union(&mut self, a: u32, b: u32) {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        if self.size[ra as usize] < self.size[rb as usize] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb as usize] = ra;
        self.size[ra as usize] += self.size[rb as usize];
    }
}

/// `(a, b)` with the smaller number first.
pub fn ordered(a: u32, b: u32) -> (u32, u32) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Slack for comparing thresholds with similarities read back from six-decimal text.
pub const EPS: f64 = 1e-9;

/// The third column of a pairs file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PairValue {
    /// A similarity (or a 0/1 label, which reads the same way).
    Number(f64),
    /// `true`/`dup` or `false`/`nondup`.
    Label(bool),
}

impl PairValue {
    /// Parses `1`, `0`, any number, `true`, `false`, `dup`, `nondup` (case-insensitive).
    pub fn parse(s: &str) -> Option<PairValue> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("dup") {
            return Some(PairValue::Label(true));
        }
        if t.eq_ignore_ascii_case("false") || t.eq_ignore_ascii_case("nondup") {
            return Some(PairValue::Label(false));
        }
        t.parse::<f64>().ok().filter(|x| x.is_finite()).map(PairValue::Number)
    }

    /// The similarity, if the value is a number.
    pub fn number(self) -> Option<f64> {
        match self {
            PairValue::Number(x) => Some(x),
            PairValue::Label(_) => None,
        }
    }

    /// Whether the pair is a duplicate: a true label, or a similarity at or above `threshold`
    /// (so the labels 1 and 0 work with any threshold in (0, 1]).
    pub fn is_duplicate(self, threshold: f64) -> bool {
        match self {
            PairValue::Number(x) => x >= threshold - EPS,
            PairValue::Label(l) => l,
        }
    }

    /// Whether the value is a label (`true`, `dup`, ..., or exactly `0` or `1`).
    pub fn is_label_like(self) -> bool {
        match self {
            PairValue::Number(x) => x == 0.0 || x == 1.0,
            PairValue::Label(_) => true,
        }
    }
}

/// One line of a pairs file.
#[derive(Debug, Clone, PartialEq)]
pub struct PairLine {
    /// First document.
    pub a: u32,
    /// Second document.
    pub b: u32,
    /// Similarity or label.
    pub value: PairValue,
    /// Further columns, tab-separated (empty when there are none).
    pub rest: String,
    /// 1-based line number, for messages.
    pub line: u64,
}

/// A pairs file: its lines and the `key=value` settings of its `#` lines (the truth file of
/// `lookalike-bench truth` starts with `# ... threshold=0.5 ...`).
#[derive(Debug, Clone, Default)]
pub struct PairFile {
    /// The pairs, in file order (lines pairing an id with itself are left out).
    pub lines: Vec<PairLine>,
    /// Settings from `#` lines.
    pub settings: HashMap<String, String>,
}

impl PairFile {
    /// The `threshold=` setting of the file's `#` lines, if there is one.
    pub fn header_threshold(&self, path: &Path) -> Result<Option<f64>, Error> {
        self.settings
            .get("threshold")
            .map(|t| {
                t.parse().map_err(|source| Error::BadHeaderThreshold {
                    path: path.to_owned(),
                    value: t.clone(),
                    source,
                })
            })
            .transpose()
    }
}

/// Undoes the escaping of ids in `lookalike dedup --pairs` output (`\\`, `\t`, `\n`, `\r`).
fn tsv_unescape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\\') {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.clone().next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            _ => {
                out.push('\\');
                continue;
            }
        }
        chars.next();
    }
    out.into()
}

/// Reads the lines of `path`, handing each with its 1-based number to `f`.
fn for_each_line(
    path: &Path,
    mut f: impl FnMut(&str, u64) -> Result<(), Error>,
) -> Result<(), Error> {
    let file = fs_err::File::open(path).map_err(Error::Open)?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    for (i, line) in reader.lines().enumerate() {
        let n = i as u64 + 1;
        let line =
            line.map_err(|source| Error::ReadLine { path: path.to_owned(), line: n, source })?;
        f(&line, n)?;
    }
    Ok(())
}

/// Reads a TSV of `id1<TAB>id2<TAB>value [more columns]`, skipping `#` lines, empty lines and
/// a header line (a first line whose value is neither a number nor a label).
pub fn read_pairs(path: &Path, ids: &mut Ids) -> Result<PairFile, Error> {
    let mut file = PairFile::default();
    let mut data_lines = 0u64;
    for_each_line(path, |line, n| parse_pair_line(path, line, n, ids, &mut file, &mut data_lines))?;
    Ok(file)
}

fn parse_pair_line(
    path: &Path,
    line: &str,
    n: u64,
    ids: &mut Ids,
    file: &mut PairFile,
    data_lines: &mut u64,
) -> Result<(), Error> {
    let malformed = |message: String| Error::Malformed { path: path.to_owned(), line: n, message };
    if let Some(comment) = line.strip_prefix('#') {
        for kv in comment.split_whitespace() {
            if let Some((k, v)) = kv.split_once('=') {
                file.settings.insert(k.to_owned(), v.to_owned());
            }
        }
        return Ok(());
    }
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.trim().is_empty() {
        return Ok(());
    }
    *data_lines += 1;
    let mut cols = line.splitn(4, '\t');
    let (Some(a), Some(b), Some(v)) = (cols.next(), cols.next(), cols.next()) else {
        return Err(malformed(format!(
            "expected 3 tab-separated fields (id1, id2, similarity or label), found {}",
            line.split('\t').count()
        )));
    };
    let value = match PairValue::parse(v) {
        Some(v) => v,
        None if *data_lines == 1 => return Ok(()), // a header line
        None => {
            return Err(malformed(format!(
                "bad similarity or label {v:?} (expected a number, 1/0, true/false or \
                 dup/nondup)"
            )));
        }
    };
    if a.is_empty() || b.is_empty() {
        return Err(malformed("empty id".to_owned()));
    }
    let (a, b) = (ids.intern(&tsv_unescape(a)), ids.intern(&tsv_unescape(b)));
    if a != b {
        let rest = cols.next().unwrap_or("").to_owned();
        file.lines.push(PairLine { a, b, value, rest, line: n });
    }
    Ok(())
}

/// Reads a clusters JSONL file: one group per line, as `lookalike dedup --clusters` writes it
/// (`{"representative": id, "members": [{"id": id, ...}, ...]}`) or generically
/// (`{"members": [id, ...]}` or `{"ids": [id, ...]}`; ids are strings or numbers). A group of one
/// names a document that has no duplicate. An id may be in one group only.
pub fn read_clusters(path: &Path, ids: &mut Ids) -> Result<Vec<Vec<u32>>, Error> {
    let mut clusters: Vec<Vec<u32>> = Vec::new();
    let mut line_of: HashMap<u32, u64> = HashMap::new();
    for_each_line(path, |line, n| {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            return Ok(());
        }
        let v: Value = serde_json::from_str(t).map_err(|source| Error::Json {
            path: path.to_owned(),
            line: n,
            source,
        })?;
        let members = cluster_members(&v).ok_or_else(|| Error::Malformed {
            path: path.to_owned(),
            line: n,
            message: "not a cluster: expected an object with \"members\" or \"ids\" (an array \
                      of ids, or of objects with an \"id\")"
                .to_owned(),
        })?;
        let mut cluster = Vec::with_capacity(members.len());
        for m in members {
            let id = ids.intern(&m);
            if cluster.contains(&id) {
                continue;
            }
            if let Some(first) = line_of.insert(id, n) {
                return Err(Error::Malformed {
                    path: path.to_owned(),
                    line: n,
                    message: format!(
                        "{m:?} is already in the cluster on line {first}: clusters must not \
                         overlap"
                    ),
                });
            }
            cluster.push(id);
        }
        if !cluster.is_empty() {
            clusters.push(cluster);
        }
        Ok(())
    })?;
    Ok(clusters)
}

fn id_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(o) => o.get("id").and_then(|id| match id {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }),
        _ => None,
    }
}

fn cluster_members(v: &Value) -> Option<Vec<String>> {
    let obj = v.as_object()?;
    let list = obj.get("members").or_else(|| obj.get("ids"))?.as_array()?;
    let mut out = Vec::with_capacity(list.len() + 1);
    if let Some(rep) = obj.get("representative") {
        out.push(id_string(rep)?);
    }
    for m in list {
        out.push(id_string(m)?);
    }
    Some(out)
}

/// A pairs or clusters file.
#[derive(Debug, Clone)]
pub enum DupFile {
    /// TSV pairs.
    Pairs(PairFile),
    /// JSONL clusters.
    Clusters(Vec<Vec<u32>>),
}

/// Reads a pairs TSV or a clusters JSONL file, telling them apart by the first line that is
/// neither empty nor a `#` comment (a JSON object starts with `{`).
pub fn read_dup_file(path: &Path, ids: &mut Ids) -> Result<DupFile, Error> {
    let file = fs_err::File::open(path).map_err(Error::Open)?;
    let mut reader = std::io::BufReader::new(file);
    let mut json = false;
    let mut line = String::new();
    loop {
        line.clear();
        let read = reader
            .read_line(&mut line)
            .map_err(|source| Error::ReadStart { path: path.to_owned(), source })?;
        if read == 0 {
            break;
        }
        let t = line.trim();
        if !t.is_empty() && !t.starts_with('#') {
            json = t.starts_with('{');
            break;
        }
    }
    if json {
        Ok(DupFile::Clusters(read_clusters(path, ids)?))
    } else {
        Ok(DupFile::Pairs(read_pairs(path, ids)?))
    }
}

/// Which pairs a [`Relation`] asserts, one by one.
#[derive(Debug, Clone)]
enum Asserted {
    /// These pairs (sorted, distinct, smaller id first).
    Pairs(Vec<(u32, u32)>),
    /// Every pair inside each group.
    Groups,
}

/// A set of duplicate pairs over interned ids, stored as groups (every two members of a group
/// are duplicates) plus links between groups, with the pairs the source asserted one by one.
#[derive(Debug, Clone)]
pub struct Relation {
    /// Group label of each id (an id of the group); ids past the end are groups of their own.
    group: Vec<u32>,
    /// Linked groups, smaller label first, never a group with itself.
    links: HashSet<(u32, u32)>,
    asserted: Asserted,
    /// Ids the source names, sorted and distinct.
    mentioned: Vec<u32>,
    exact_groups: u64,
}

impl Relation {
    /// Found pairs `(a, b, similarity)` of a run, canonicalized: pairs with similarity 1.0 form
    /// exact-duplicate groups (see the module docs).
    pub fn from_found_pairs(pairs: impl IntoIterator<Item = (u32, u32, f64)>) -> Relation {
        let pairs: Vec<(u32, u32, f64)> = pairs.into_iter().filter(|p| p.0 != p.1).collect();
        let n = pairs.iter().map(|p| p.0.max(p.1) as usize + 1).max().unwrap_or(0);
        let mut uf = UnionFind::default();
        uf.grow(n);
        for &(a, b, sim) in &pairs {
            if sim == 1.0 {
                uf.union(a, b);
            }
        }
        let group: Vec<u32> = (0..n as u32).map(|x| uf.find(x)).collect();
        let mut members: HashMap<u32, u32> = HashMap::new();
        let mut links = HashSet::new();
        let mut raw = Vec::with_capacity(pairs.len());
        let mut mentioned = Vec::with_capacity(pairs.len() * 2);
        for &(a, b, _) in &pairs {
            raw.push(ordered(a, b));
            mentioned.extend([a, b]);
            let (ga, gb) = (group[a as usize], group[b as usize]);
            if ga != gb {
                links.insert(ordered(ga, gb));
            }
        }
        raw.sort_unstable();
        raw.dedup();
        mentioned.sort_unstable();
        mentioned.dedup();
        for &x in &mentioned {
            *members.entry(group[x as usize]).or_default() += 1;
        }
        let exact_groups = members.values().filter(|&&m| m >= 2).count() as u64;
        Relation { group, links, asserted: Asserted::Pairs(raw), mentioned, exact_groups }
    }

    /// Duplicate pairs taken literally (a gold standard's positive pairs). `also_mentioned` are
    /// further ids the source names (e.g. those of its negative pairs).
    pub fn from_pairs(
        pairs: impl IntoIterator<Item = (u32, u32)>,
        also_mentioned: impl IntoIterator<Item = u32>,
    ) -> Relation {
        let mut raw: Vec<(u32, u32)> =
            pairs.into_iter().filter(|p| p.0 != p.1).map(|(a, b)| ordered(a, b)).collect();
        raw.sort_unstable();
        raw.dedup();
        let mut mentioned: Vec<u32> = raw.iter().flat_map(|&(a, b)| [a, b]).collect();
        mentioned.extend(also_mentioned);
        mentioned.sort_unstable();
        mentioned.dedup();
        Relation {
            group: Vec::new(),
            links: raw.iter().copied().collect(),
            asserted: Asserted::Pairs(raw),
            mentioned,
            exact_groups: 0,
        }
    }

    /// A clustering: every two members of a cluster are duplicates. Clusters must not overlap.
    pub fn from_clusters(clusters: &[Vec<u32>]) -> Relation {
        let n = clusters.iter().flatten().map(|&x| x as usize + 1).max().unwrap_or(0);
        let mut group: Vec<u32> = (0..n as u32).collect();
        let mut mentioned = Vec::new();
        for c in clusters {
            for &x in c {
                group[x as usize] = c[0];
                mentioned.push(x);
            }
        }
        mentioned.sort_unstable();
        mentioned.dedup();
        Relation {
            group,
            links: HashSet::new(),
            asserted: Asserted::Groups,
            mentioned,
            exact_groups: 0,
        }
    }

    /// The group of `x`.
    pub fn group(&self, x: u32) -> u32 {
        self.group.get(x as usize).copied().unwrap_or(x)
    }

    /// Whether `a` and `b` are duplicates by this relation.
    pub fn contains(&self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        let (ga, gb) = (self.group(a), self.group(b));
        ga == gb || self.links.contains(&ordered(ga, gb))
    }

    /// The pairs asserted one by one, for a pairs source (`None` for a clustering).
    pub fn pairs(&self) -> Option<&[(u32, u32)]> {
        match &self.asserted {
            Asserted::Pairs(p) => Some(p),
            Asserted::Groups => None,
        }
    }

    /// Whether the source was a clustering.
    pub fn is_clustering(&self) -> bool {
        matches!(self.asserted, Asserted::Groups)
    }

    /// Ids the source names, sorted.
    pub fn mentioned(&self) -> &[u32] {
        &self.mentioned
    }

    /// Exact-duplicate groups (pairs with similarity 1.0) of two or more documents.
    pub fn exact_groups(&self) -> u64 {
        self.exact_groups
    }

    /// Number of pairs asserted (for a clustering: the pairs inside its clusters).
    pub fn asserted_len(&self) -> u64 {
        match &self.asserted {
            Asserted::Pairs(p) => p.len() as u64,
            Asserted::Groups => {
                self.group_sizes().values().map(|&s| s * s.saturating_sub(1) / 2).sum()
            }
        }
    }

    /// Members per group label, for groups of two or more.
    fn group_sizes(&self) -> HashMap<u32, u64> {
        let mut sizes: HashMap<u32, u64> = HashMap::new();
        for &g in &self.group {
            *sizes.entry(g).or_default() += 1;
        }
        sizes.retain(|_, s| *s >= 2);
        sizes
    }

    /// How many of the pairs this relation asserts `other` contains. With `self` a run and
    /// `other` the gold standard these are the true positives of precision; the other way round,
    /// the gold pairs found, of recall.
    pub fn pairs_in(&self, other: &Relation) -> u64 {
        match &self.asserted {
            Asserted::Pairs(p) => p.iter().filter(|&&(a, b)| other.contains(a, b)).count() as u64,
            Asserted::Groups => {
                // Count, per cluster K of self and group g of other, the members n(K, g). Pairs
                // inside K that other contains: those within one g, plus n(K, g1)·n(K, g2) for
                // every link (g1, g2) of other.
                let mut cells: HashMap<(u32, u32), u64> = HashMap::new();
                let sizes = self.group_sizes();
                for (x, &k) in self.group.iter().enumerate() {
                    if sizes.contains_key(&k) {
                        *cells.entry((other.group(x as u32), k)).or_default() += 1;
                    }
                }
                let mut count: u64 = cells.values().map(|&c| c * (c - 1) / 2).sum();
                if !other.links.is_empty() {
                    let mut by_group: HashMap<u32, Vec<(u32, u64)>> = HashMap::new();
                    for (&(g, k), &c) in &cells {
                        by_group.entry(g).or_default().push((k, c));
                    }
                    for (g1, g2) in &other.links {
                        let (Some(v1), Some(v2)) = (by_group.get(g1), by_group.get(g2)) else {
                            continue;
                        };
                        for &(k1, c1) in v1 {
                            if let Some(&(_, c2)) = v2.iter().find(|(k2, _)| *k2 == k1) {
                                count += c1 * c2;
                            }
                        }
                    }
                }
                count
            }
        }
    }

    /// The connected component (transitive closure) of each of `ids`, as labels: equal labels,
    /// same component.
    pub fn component_labels(&self, ids: &[u32]) -> Vec<u32> {
        let linked = self.links.iter().map(|&(_, g2)| g2 as usize + 1).max().unwrap_or(0);
        let n = ids.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
        let mut uf = UnionFind::default();
        uf.grow(n.max(self.group.len()).max(linked));
        for (x, &g) in self.group.iter().enumerate() {
            uf.union(x as u32, g);
        }
        for &(g1, g2) in &self.links {
            uf.union(g1, g2);
        }
        ids.iter().map(|&x| uf.find(x)).collect()
    }

    /// Sizes of the connected components with two or more of the mentioned ids, largest first.
    pub fn component_sizes(&self) -> Vec<u64> {
        let labels = self.component_labels(&self.mentioned);
        let mut counts: HashMap<u32, u64> = HashMap::new();
        for l in labels {
            *counts.entry(l).or_default() += 1;
        }
        let mut sizes: Vec<u64> = counts.into_values().filter(|&s| s >= 2).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str, text: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lookalike-metrics-rel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn values_parse_as_numbers_or_labels() {
        assert_eq!(PairValue::parse("0.25"), Some(PairValue::Number(0.25)));
        assert_eq!(PairValue::parse("1"), Some(PairValue::Number(1.0)));
        assert_eq!(PairValue::parse(" DUP "), Some(PairValue::Label(true)));
        assert_eq!(PairValue::parse("nondup"), Some(PairValue::Label(false)));
        assert_eq!(PairValue::parse("False"), Some(PairValue::Label(false)));
        assert_eq!(PairValue::parse("maybe"), None);
        assert_eq!(PairValue::parse("NaN"), None);
        assert!(PairValue::Number(1.0).is_duplicate(0.8));
        assert!(!PairValue::Number(0.0).is_duplicate(0.8));
        assert!(PairValue::Number(0.7999999999).is_duplicate(0.8));
    }

    #[test]
    fn pairs_files_skip_comments_and_a_header_and_name_bad_lines() {
        let p = scratch(
            "p.tsv",
            "# run threshold=0.5\nid1\tid2\tlabel\na\tb\tdup\na\ta\t1\nb\\tx\tc\t0.9\textra\n\n",
        );
        let mut ids = Ids::default();
        let f = read_pairs(&p, &mut ids).unwrap();
        assert_eq!(f.settings.get("threshold").map(String::as_str), Some("0.5"));
        assert_eq!(f.header_threshold(&p).unwrap(), Some(0.5));
        assert_eq!(f.lines.len(), 2);
        assert_eq!(ids.name(f.lines[1].a), "b\tx");
        assert_eq!((f.lines[1].rest.as_str(), f.lines[1].line), ("extra", 5));
        let bad = scratch("bad.tsv", "a\tb\t1\nc d 1\n");
        let e = read_pairs(&bad, &mut ids).unwrap_err().to_string();
        assert!(e.ends_with("bad.tsv:2: expected 3 tab-separated fields (id1, id2, similarity or label), found 1"), "{e}");
        let bad = scratch("bad2.tsv", "a\tb\t1\nc\td\tperhaps\n");
        let e = read_pairs(&bad, &mut ids).unwrap_err().to_string();
        assert!(e.contains("bad2.tsv:2: bad similarity or label \"perhaps\""), "{e}");
    }

    #[test]
    fn clusters_files_in_both_shapes() {
        let p = scratch(
            "c.jsonl",
            "{\"cluster\":0,\"size\":2,\"representative\":\"a\",\"members\":[{\"id\":\"b\",\"similarity\":1.0,\"match\":\"exact-bytes\"}]}\n\
             {\"members\":[\"c\",7,\"c\"]}\n{\"ids\":[\"e\"]}\n",
        );
        let mut ids = Ids::default();
        let DupFile::Clusters(c) = read_dup_file(&p, &mut ids).unwrap() else { panic!() };
        let names: Vec<Vec<&str>> =
            c.iter().map(|c| c.iter().map(|&x| ids.name(x)).collect()).collect();
        assert_eq!(names, vec![vec!["a", "b"], vec!["c", "7"], vec!["e"]]);
        let overlap = scratch("o.jsonl", "{\"ids\":[\"a\",\"b\"]}\n{\"ids\":[\"b\",\"c\"]}\n");
        let e = read_clusters(&overlap, &mut ids).unwrap_err().to_string();
        assert!(e.contains("o.jsonl:2: \"b\" is already in the cluster on line 1"), "{e}");
        let bad = scratch("b.jsonl", "{\"ids\":[\"a\"]}\n{\"x\":1}\n");
        let e = read_clusters(&bad, &mut Ids::default()).unwrap_err().to_string();
        assert!(e.contains("b.jsonl:2: not a cluster"), "{e}");
        let bad = scratch("j.jsonl", "{\"ids\":[\"a\"]}\n{oops\n");
        let e = read_clusters(&bad, &mut Ids::default()).unwrap_err().to_string();
        assert!(e.contains("j.jsonl:2: invalid JSON"), "{e}");
    }

    #[test]
    fn found_pairs_are_canonicalized_through_exact_groups() {
        // 0-1 and 0-2 exact (a star from 0), 2-3 near: 1-2 is found through the group, and so
        // are 0-3 and 1-3 through the link from the group to 3.
        let r = Relation::from_found_pairs([(0, 1, 1.0), (0, 2, 1.0), (2, 3, 0.9), (4, 5, 0.85)]);
        assert!(r.contains(1, 2) && r.contains(1, 3) && r.contains(3, 0) && r.contains(4, 5));
        assert!(!r.contains(3, 4) && !r.contains(1, 1) && !r.contains(0, 99));
        assert_eq!(r.asserted_len(), 4);
        assert_eq!(r.exact_groups(), 1);
        assert_eq!(r.mentioned(), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(r.component_sizes(), vec![4, 2]);
    }

    #[test]
    fn pairs_in_counts_asserted_pairs_of_a_clustering() {
        // Clusters {0,1,2,3} and {4,5}: 6 + 1 asserted pairs.
        let c = Relation::from_clusters(&[vec![0, 1, 2, 3], vec![4, 5], vec![6]]);
        assert_eq!(c.asserted_len(), 7);
        // Gold pairs 0-1, 2-3, 0-4: the first two lie inside a cluster, 0-4 does not.
        let g = Relation::from_pairs([(0, 1), (3, 2), (0, 4)], []);
        assert_eq!(c.pairs_in(&g), 2);
        assert_eq!(g.pairs_in(&c), 2);
        // Found pairs with exact group {0,1,2} and the link 2-3, i.e. pairs 01 02 12 03 13 23 (all
        // six pairs of the first cluster), plus 5-6 (outside any cluster).
        let f = Relation::from_found_pairs([(0, 1, 1.0), (0, 2, 1.0), (2, 3, 0.9), (5, 6, 0.9)]);
        assert_eq!(c.pairs_in(&f), 6);
        assert_eq!(f.pairs_in(&c), 3); // 0-1, 0-2, 2-3 are inside; 5-6 is not
        assert_eq!(c.pairs_in(&c), 7);
    }

    #[test]
    fn component_labels_follow_links() {
        let g = Relation::from_pairs([(0, 1), (1, 2), (5, 6)], [9]);
        let l = g.component_labels(&[0, 1, 2, 5, 6, 9]);
        assert!(l[0] == l[1] && l[1] == l[2] && l[3] == l[4] && l[0] != l[3] && l[5] != l[0]);
        assert_eq!(g.mentioned(), &[0, 1, 2, 5, 6, 9]);
        assert_eq!(g.component_sizes(), vec![3, 2]);
    }
}
