//! Clustering. Contract: "give me verified pairs, I give you groups of documents that are
//! duplicates of each other, each with one representative to keep".
//!
//! Near-duplication is not transitive (A~B and B~C do not make A~C); union-find computes the
//! transitive closure, which is what the seeds' algorithms do and what dedup for a corpus wants
//! (one document kept per connected group). The representative is chosen by [`Keep`].

/// Which member of a cluster is kept as its representative.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Keep {
    /// The first document in input order (default).
    #[default]
    First,
    /// The document with the longest text (ties: the first of them).
    Longest,
}

/// Disjoint sets over `0..n` with path halving and union by size.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect(), size: vec![1; n] }
    }

    /// The root of `x`'s set.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    /// Merges the sets of `a` and `b`; returns false when they already were one set.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        if self.size[ra as usize] < self.size[rb as usize] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb as usize] = ra;
        self.size[ra as usize] += self.size[rb as usize];
        true
    }

    /// Groups of at least two elements, each sorted, ordered by their smallest element.
    pub fn groups(&mut self) -> Vec<Vec<u32>> {
        let n = self.parent.len();
        let mut by_root: Vec<Vec<u32>> = vec![Vec::new(); n];
        for x in 0..n as u32 {
            let r = self.find(x);
            by_root[r as usize].push(x);
        }
        let mut groups: Vec<Vec<u32>> = by_root.into_iter().filter(|g| g.len() > 1).collect();
        groups.sort_unstable_by_key(|g| g[0]);
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitive_closure() {
        let mut uf = UnionFind::new(7);
        assert!(uf.union(5, 1));
        assert!(uf.union(1, 3));
        assert!(!uf.union(3, 5));
        assert!(uf.union(6, 4));
        assert_eq!(uf.groups(), vec![vec![1, 3, 5], vec![4, 6]]);
    }
}
