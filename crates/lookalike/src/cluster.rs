//! Clustering. Contract: "give me verified pairs, I give you groups of documents that are
//! duplicates of each other, each with one representative to keep".
//!
//! Near-duplication is not transitive (A~B and B~C do not make A~C). [`ClusterMode`] says what a
//! cluster guarantees: `connected` is the transitive closure (union-find; one document kept per
//! connected group, what Broder et al.'s clustering does, but chains of pairs can join documents
//! that share little), `center` keeps only documents verified against the cluster's representative,
//! `clique` only documents verified against every member. The algorithms are pure functions over a
//! graph of `n` nodes (the pipeline's nodes are the exact-copy groups, so exact copies always share
//! a cluster) and a visiting order, the order [`Keep`] implies; the representative chosen by
//! [`Keep`] is then the first member of each cluster in that order.
/// Which member of a cluster is kept as its representative.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(clap::ValueEnum)]
pub enum Keep {
    /// The first document in input order (default).
    #[default]
    First,
    /// The document with the longest text (ties: the first of them).
    Longest,
}

/// How verified pairs become clusters. Whatever the mode, every document is in exactly one
/// cluster and the verified pairs themselves are unchanged.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(clap::ValueEnum)]
pub enum ClusterMode {
    /// Connected components of the verified pairs (transitive closure): no verified pair is ever
    /// split, but chains join documents that share little (A~B, B~C puts A with C).
    Connected,
    /// Center clustering (default): documents are visited in the order `--keep` implies; an
    /// unassigned one becomes a center (the representative) and every unassigned document
    /// verified >= threshold with it joins it. Every member is verified >= t against its
    /// representative, so with Jaccard (a metric distance) any two members are >= 2t-1 to each
    /// other.
    #[default]
    Center,
    /// Greedy cliques in the same order: a document joins the first cluster whose every member it
    /// is verified >= threshold with, else starts a new one. Every pair of members is verified
    /// (pair precision 1.0 against the verified pairs).
    Clique,
    /// `center`, then local moves under the correlation-clustering objective: in the same order,
    /// a document moves to the cluster (or to a new one) where it agrees with the most members
    /// (verified pairs inside, unverified pairs outside), until no move lowers the number of
    /// disagreeing pairs (at most 20 passes). No pair guarantee: a member may be below the
    /// threshold to its representative (its similarity says so).
    CenterRefine,
}

/// The most passes of [`ClusterMode::CenterRefine`] over the documents (a pass that moves nothing ends it
/// earlier).
pub const REFINE_PASSES: usize = 20;

impl ClusterMode {
    /// The cluster of each node of `graph`, numbered from 0 in creation order (see each mode's
    /// function: [`connected_components`], [`center_clusters`], [`clique_clusters`]). `order` is
    /// the visiting order of the greedy modes, a permutation of the nodes.
    ///
    /// `weight` is the number of documents each node stands for (an exact-copy group; missing
    /// entries count as 1); only `center-refine` counts them, the other modes treat a node as one.
    pub fn cluster(self, graph: &Graph, order: &[u32], weight: &[u32]) -> Vec<u32> {
        match self {
            ClusterMode::Connected => connected_components(graph),
            ClusterMode::Center => center_clusters(graph, order),
            ClusterMode::Clique => clique_clusters(graph, order),
            ClusterMode::CenterRefine => {
                let start = center_clusters(graph, order);
                refine_clusters(graph, order, weight, start, REFINE_PASSES)
            }
        }
    }
}

/// An undirected graph over `0..n` in compressed adjacency lists (sorted, without duplicates or
/// self-loops): the nodes to cluster and their verified pairs.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    start: Vec<usize>,
    adjacent: Vec<u32>,
}

impl Graph {
    /// The graph of `n` nodes with the given edges (in any order; repeated edges and self-loops
    /// are ignored). Every node must be `< n`.
    pub fn new(n: usize, edges: &[(u32, u32)]) -> Graph {
        let mut degree = vec![0usize; n + 1];
        for &(a, b) in edges {
            if a != b {
                degree[a as usize] += 1;
                degree[b as usize] += 1;
            }
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut total = 0;
        for d in &degree {
            start.push(total);
            total += d;
        }
        let mut fill = start.clone();
        let mut adjacent = vec![0u32; total];
        for &(a, b) in edges {
            if a != b {
                adjacent[fill[a as usize]] = b;
                fill[a as usize] += 1;
                adjacent[fill[b as usize]] = a;
                fill[b as usize] += 1;
            }
        }
        // Sort and deduplicate each list in place, then compact.
        let mut out = 0;
        let mut compact_start = Vec::with_capacity(n + 1);
        for v in 0..n {
            let list = &mut adjacent[start[v]..start[v + 1]];
            list.sort_unstable();
            compact_start.push(out);
            let mut last = None;
            for i in start[v]..start[v + 1] {
                let x = adjacent[i];
                if last != Some(x) {
                    adjacent[out] = x;
                    out += 1;
                    last = Some(x);
                }
            }
        }
        compact_start.push(out);
        adjacent.truncate(out);
        Graph { start: compact_start, adjacent }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// True when the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The neighbours of `v`, sorted.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        &self.adjacent[self.start[v as usize]..self.start[v as usize + 1]]
    }

    /// Whether `a` and `b` are adjacent.
    pub fn adjacent(&self, a: u32, b: u32) -> bool {
        self.neighbours(a).binary_search(&b).is_ok()
    }
}

/// Connected components (the transitive closure of the edges), numbered by their smallest node.
/// Guarantee: two adjacent nodes are always in one cluster.
pub fn connected_components(graph: &Graph) -> Vec<u32> {
    let n = graph.len();
    let mut uf = UnionFind::new(n);
    for v in 0..n as u32 {
        for &w in graph.neighbours(v) {
            if w > v {
                uf.union(v, w);
            }
        }
    }
    let mut label = vec![u32::MAX; n];
    let mut of_root = vec![u32::MAX; n];
    let mut next = 0;
    for v in 0..n as u32 {
        let r = uf.find(v) as usize;
        if of_root[r] == u32::MAX {
            of_root[r] = next;
            next += 1;
        }
        label[v as usize] = of_root[r];
    }
    label
}

/// Center clustering in the visiting `order` (a permutation of the nodes): the first unassigned
/// node becomes a center and every unassigned neighbour joins it; clusters are numbered by their
/// center's position in `order`.
///
/// Guarantees (by induction over the order): every member is adjacent to its cluster's center,
/// which precedes it in `order`; no two centers are adjacent; and each non-center belongs to the
/// earliest center in `order` it is adjacent to. These determine the result. With Jaccard
/// similarity (1 − J is a metric), members verified >= t against the center are >= 2t − 1 to
/// each other.
pub fn center_clusters(graph: &Graph, order: &[u32]) -> Vec<u32> {
    let mut label = vec![u32::MAX; graph.len()];
    let mut next = 0;
    for &v in order {
        if label[v as usize] != u32::MAX {
            continue;
        }
        label[v as usize] = next;
        for &w in graph.neighbours(v) {
            if label[w as usize] == u32::MAX {
                label[w as usize] = next;
            }
        }
        next += 1;
    }
    label
}

/// Greedy clique clustering in the visiting `order` (a permutation of the nodes): each node joins
/// the first cluster, in creation order, all of whose members it is adjacent to, else starts a new
/// cluster; clusters are numbered in creation order.
///
/// Guarantee: every two members of a cluster are adjacent (a cluster is a clique of the graph),
/// and a node that starts a cluster was not adjacent to all members of any earlier cluster when it
/// was visited.
pub fn clique_clusters(graph: &Graph, order: &[u32]) -> Vec<u32> {
    let mut label = vec![u32::MAX; graph.len()];
    let mut size: Vec<u32> = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    for &v in order {
        // Clusters holding a neighbour; only those can be adjacent to all their members.
        seen.clear();
        seen.extend(
            graph.neighbours(v).iter().map(|&w| label[w as usize]).filter(|&l| l != u32::MAX),
        );
        seen.sort_unstable();
        let mut join = None;
        for run in seen.chunk_by(|a, b| a == b) {
            if run.len() as u32 == size[run[0] as usize] {
                join = Some(run[0]);
                break;
            }
        }
        let l = match join {
            Some(l) => l,
            None => {
                size.push(0);
                (size.len() - 1) as u32
            }
        };
        size[l as usize] += 1;
        label[v as usize] = l;
    }
    label
}

/// Local improvement of a clustering under the correlation-clustering objective: the number of
/// disagreeing pairs of documents, adjacent pairs in two clusters plus non-adjacent pairs in one,
/// each node counting as `weight[v]` documents (adjacent to each other; missing entries count as
/// 1). Nodes are visited in `order`, at most `passes` times; each moves to the cluster where it
/// agrees with the most weight (adjacent minus non-adjacent members), or alone when every cluster
/// disagrees more than it agrees; ties keep it where it is, else pick the earliest label. Every
/// move lowers the objective, so the passes end; clusters are renumbered by their first node in
/// `order`.
///
/// Guarantee: when fewer than `passes` passes were needed, no single node can move to another
/// cluster, or alone, and lower the number of disagreeing pairs. Nothing about any one pair.
pub fn refine_clusters(
    graph: &Graph,
    order: &[u32],
    weight: &[u32],
    mut label: Vec<u32>,
    passes: usize,
) -> Vec<u32> {
    let weight_of = |v: u32| i64::from(weight.get(v as usize).copied().unwrap_or(1));
    let mut size: Vec<i64> = Vec::new();
    for (v, &l) in label.iter().enumerate() {
        if size.len() <= l as usize {
            size.resize(l as usize + 1, 0);
        }
        size[l as usize] += weight_of(v as u32);
    }
    // Labels emptied by moves, reused for nodes that leave alone.
    let mut free: Vec<u32> = (0..size.len() as u32).filter(|&l| size[l as usize] == 0).collect();
    let mut tally: Vec<(u32, i64)> = Vec::new();
    for _ in 0..passes {
        let mut moved = false;
        for &v in order {
            let (current, w) = (label[v as usize], weight_of(v));
            tally.clear();
            tally.extend(graph.neighbours(v).iter().map(|&u| (label[u as usize], weight_of(u))));
            tally.sort_unstable_by_key(|&(l, _)| l);
            // Agreement with cluster l: adjacent weight minus non-adjacent weight, v excluded.
            let score = |l: u32, adjacent: i64| {
                let others = size[l as usize] - if l == current { w } else { 0 };
                2 * adjacent - others
            };
            let here = tally.iter().filter(|&&(l, _)| l == current).map(|&(_, a)| a).sum();
            let mut best = (score(current, here), current);
            for run in tally.chunk_by(|a, b| a.0 == b.0) {
                let l = run[0].0;
                if l != current {
                    let s = score(l, run.iter().map(|&(_, a)| a).sum());
                    if s > best.0 {
                        best = (s, l);
                    }
                }
            }
            let target = if best.0 < 0 && size[current as usize] > w {
                // Every cluster disagrees more than it agrees: start a new one.
                match free.pop() {
                    Some(l) => l,
                    None => {
                        size.push(0);
                        (size.len() - 1) as u32
                    }
                }
            } else {
                best.1
            };
            if target != current {
                size[current as usize] -= w;
                size[target as usize] += w;
                if size[current as usize] == 0 {
                    free.push(current);
                }
                label[v as usize] = target;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    // Renumber by first node in the order.
    let mut renumber = vec![u32::MAX; size.len()];
    let mut next = 0;
    for &v in order {
        let l = &mut renumber[label[v as usize] as usize];
        if *l == u32::MAX {
            *l = next;
            next += 1;
        }
    }
    for l in &mut label {
        *l = renumber[*l as usize];
    }
    label
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

    /// A random graph: `n` nodes, each pair an edge with probability `p_edge` (given as a
    /// percentage), and a random visiting order.
    fn random_graph(n: usize, percent: u64, seed: u64) -> (Graph, Vec<Vec<bool>>, Vec<u32>) {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut edges = Vec::new();
        for a in 0..n as u32 {
            for b in a + 1..n as u32 {
                if next() % 100 < percent {
                    // Both directions and a repeat: the graph must not care.
                    edges.push((b, a));
                    if next() % 4 == 0 {
                        edges.push((a, b));
                    }
                }
            }
        }
        let mut matrix = vec![vec![false; n]; n];
        for &(a, b) in &edges {
            matrix[a as usize][b as usize] = true;
            matrix[b as usize][a as usize] = true;
        }
        edges.push((0, 0));
        let mut order: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            order.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        (Graph::new(n, &edges), matrix, order)
    }

    fn cases() -> impl Iterator<Item = (Graph, Vec<Vec<bool>>, Vec<u32>)> {
        (0..300u64).map(|seed| {
            let n = 1 + (seed % 37) as usize;
            let percent = [2, 5, 10, 25, 50, 90][(seed % 6) as usize];
            random_graph(n, percent, seed)
        })
    }

    /// Every label in `0..k` is used and every node has one.
    fn assert_partition(label: &[u32]) {
        let k = label.iter().copied().max().map_or(0, |m| m + 1);
        assert!(label.iter().all(|&l| l < k));
        for l in 0..k {
            assert!(label.contains(&l), "label {l} unused");
        }
    }

    #[test]
    fn graph_lists_are_sorted_and_symmetric() {
        for (graph, matrix, _) in cases() {
            for (a, row) in matrix.iter().enumerate() {
                let expected: Vec<u32> =
                    (0..row.len() as u32).filter(|&b| row[b as usize]).collect();
                assert_eq!(graph.neighbours(a as u32), expected.as_slice());
            }
        }
    }

    #[test]
    fn connected_equals_the_components() {
        for (graph, matrix, order) in cases() {
            let label = ClusterMode::Connected.cluster(&graph, &order, &[]);
            assert_partition(&label);
            // Brute force: a depth-first search from every node, labels by smallest node.
            let n = matrix.len();
            let mut component = vec![usize::MAX; n];
            let mut count = 0;
            for s in 0..n {
                if component[s] != usize::MAX {
                    continue;
                }
                let mut stack = vec![s];
                component[s] = count;
                while let Some(v) = stack.pop() {
                    for w in 0..n {
                        if matrix[v][w] && component[w] == usize::MAX {
                            component[w] = count;
                            stack.push(w);
                        }
                    }
                }
                count += 1;
            }
            let expected: Vec<u32> = component.iter().map(|&c| c as u32).collect();
            assert_eq!(label, expected);
        }
    }

    #[test]
    fn center_follows_its_invariants() {
        for (graph, matrix, order) in cases() {
            let label = ClusterMode::Center.cluster(&graph, &order, &[]);
            assert_partition(&label);
            let position = |v: usize| order.iter().position(|&x| x as usize == v).unwrap();
            // The center of a cluster is its first member in the order.
            let k = label.iter().copied().max().map_or(0, |m| m + 1) as usize;
            let mut center = vec![usize::MAX; k];
            for &v in &order {
                let l = label[v as usize] as usize;
                if center[l] == usize::MAX {
                    center[l] = v as usize;
                }
            }
            let centers: Vec<usize> = {
                let mut c = center.clone();
                c.sort_by_key(|&v| position(v));
                c
            };
            // Clusters are numbered in the order of their centers.
            assert!(center.windows(2).all(|w| position(w[0]) < position(w[1])));
            for v in 0..matrix.len() {
                let c = center[label[v] as usize];
                let earliest = centers.iter().copied().find(|&x| matrix[v][x]);
                if c == v {
                    // A center is adjacent to no other center.
                    assert!(centers.iter().all(|&x| !matrix[v][x]), "centers {v} adjacent");
                } else {
                    // A member is adjacent to its center, which precedes it, and is the earliest
                    // center it is adjacent to.
                    assert!(matrix[v][c], "{v} not adjacent to its center {c}");
                    assert!(position(c) < position(v));
                    assert_eq!(earliest, Some(c));
                }
            }
        }
    }

    #[test]
    fn clique_members_are_pairwise_adjacent() {
        for (graph, matrix, order) in cases() {
            let label = ClusterMode::Clique.cluster(&graph, &order, &[]);
            assert_partition(&label);
            let n = matrix.len();
            for a in 0..n {
                for b in a + 1..n {
                    if label[a] == label[b] {
                        assert!(matrix[a][b], "{a} and {b} share a cluster");
                    }
                }
            }
            // Brute-force greedy reference over the matrix.
            let mut clusters: Vec<Vec<usize>> = Vec::new();
            let mut expected = vec![0u32; n];
            for &v in &order {
                let v = v as usize;
                match clusters.iter().position(|c| c.iter().all(|&m| matrix[v][m])) {
                    Some(i) => {
                        clusters[i].push(v);
                        expected[v] = i as u32;
                    }
                    None => {
                        expected[v] = clusters.len() as u32;
                        clusters.push(vec![v]);
                    }
                }
            }
            assert_eq!(label, expected);
        }
    }

    /// Disagreeing pairs of documents: adjacent in two clusters, or non-adjacent in one.
    fn disagreements(matrix: &[Vec<bool>], weight: &[u32], label: &[u32]) -> u64 {
        let n = matrix.len();
        let mut d = 0;
        for a in 0..n {
            for b in a + 1..n {
                if matrix[a][b] != (label[a] == label[b]) {
                    d += u64::from(weight[a]) * u64::from(weight[b]);
                }
            }
        }
        d
    }

    #[test]
    fn refine_reaches_a_local_optimum_no_worse_than_center() {
        for (seed, (graph, matrix, order)) in cases().enumerate() {
            let n = matrix.len();
            let weight: Vec<u32> = (0..n).map(|v| 1 + ((v * 7 + seed) % 3) as u32).collect();
            let center = ClusterMode::Center.cluster(&graph, &order, &weight);
            let refined = ClusterMode::CenterRefine.cluster(&graph, &order, &weight);
            assert_partition(&refined);
            let cost = disagreements(&matrix, &weight, &refined);
            assert!(cost <= disagreements(&matrix, &weight, &center));
            // No single node can move to another cluster, or alone, and lower the cost.
            let k = refined.iter().copied().max().map_or(0, |m| m + 1);
            for v in 0..n {
                for target in 0..=k {
                    let mut moved = refined.clone();
                    moved[v] = target;
                    assert!(
                        disagreements(&matrix, &weight, &moved) >= cost,
                        "seed {seed}: moving {v} to {target} helps"
                    );
                }
            }
            // Clusters are numbered by their first node in the order.
            let mut firsts = Vec::new();
            for &v in &order {
                if !firsts.contains(&refined[v as usize]) {
                    firsts.push(refined[v as usize]);
                }
            }
            assert_eq!(firsts, (0..k).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_chain_is_one_cluster_only_when_connected() {
        // 0 - 1 - 2 - 3: a chain, no triangle.
        let graph = Graph::new(4, &[(0, 1), (1, 2), (2, 3)]);
        let order = [0, 1, 2, 3];
        assert_eq!(ClusterMode::Connected.cluster(&graph, &order, &[]), vec![0, 0, 0, 0]);
        assert_eq!(ClusterMode::Center.cluster(&graph, &order, &[]), vec![0, 0, 1, 1]);
        assert_eq!(ClusterMode::Clique.cluster(&graph, &order, &[]), vec![0, 0, 1, 1]);
        assert_eq!(ClusterMode::CenterRefine.cluster(&graph, &order, &[]), vec![0, 0, 1, 1]);
        // A heavy node (many exact copies) in the middle pulls both ends of a path to it.
        let path = Graph::new(3, &[(0, 1), (1, 2)]);
        let heavy = [1, 5, 1];
        assert_eq!(ClusterMode::Center.cluster(&path, &[0, 1, 2], &heavy), vec![0, 0, 1]);
        assert_eq!(ClusterMode::CenterRefine.cluster(&path, &[0, 1, 2], &heavy), vec![0, 0, 0]);
        // Visited from the middle, the center takes both ends of its edges.
        assert_eq!(ClusterMode::Center.cluster(&graph, &[1, 0, 2, 3], &[]), vec![0, 0, 0, 1]);
    }
}
