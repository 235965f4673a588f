"""How transitive the gold relation is: the connected components of the gold pairs (exact Jaccard
at or above the threshold) and, for the largest, the share of their document pairs that are gold
pairs (pair density). A component of density d caps the precision of any clustering that keeps it
whole at d; splitting it loses the gold pairs between the parts.

    gold_components.py TRUTH.tsv --threshold T [--top K]

Prints JSON to stdout: gold pairs, components, documents in them, and the K largest components
(size, gold pairs inside, density, the most common folder of their ids, an example id).
"""

import argparse
import json
from collections import Counter

import union_find


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("--threshold", type=float, required=True)
    ap.add_argument("--top", type=int, default=3)
    a = ap.parse_args()

    index = {}
    names = []
    parent = []

    def node(name):
        i = index.get(name)
        if i is None:
            i = index[name] = len(names)
            names.append(name)
            parent.append(i)
        return i

    def find(x):
        return union_find.find(parent, x)

    edges = []
    with open(a.truth, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            x, y, s = line.rstrip("\n").split("\t")[:3]
            if float(s) < a.threshold - 1e-9:
                continue
            i, j = node(x), node(y)
            edges.append(i)
            ri, rj = find(i), find(j)
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
    size = Counter(find(i) for i in range(len(names)))
    inside = Counter(find(i) for i in edges)
    comps = []
    for root, n in size.most_common(a.top):
        folders = Counter(names[i].rsplit("/", 1)[0] if "/" in names[i] else "" for i in range(len(names)) if find(i) == root)
        folder, in_folder = folders.most_common(1)[0]
        comps.append(
            {
                "size": n,
                "gold_pairs": inside[root],
                "density": inside[root] / (n * (n - 1) / 2),
                "folder": folder,
                "in_folder": in_folder,
                "example": names[root],
            }
        )
    print(
        json.dumps(
            {
                "threshold": a.threshold,
                "gold_pairs": len(edges),
                "components": len(size),
                "docs_in_components": len(names),
                "largest": comps,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
