"""Clusters from a peer's pairs, as its users make them: union-find over the reported pairs.

datasketch, rensa and gaoya report pairs (LSH candidates, optionally those whose estimated Jaccard
reaches the threshold); a user who wants groups joins every pair, which is the transitive closure.
This writes those groups as clusters JSONL in lookalike's format, which `lookalike eval` reads:

    {"cluster": N, "size": S, "representative": ID, "members": [{"id": ID, "similarity": X}, ...]}

The representative is the cluster's earliest document in corpus order (what `--keep first` keeps),
members follow in corpus order with the similarity of the pair that joined them to the
representative when there is one (null when they joined only through others), and clusters are
numbered in the order of their representatives. Same pairs and corpus, same bytes.

    union_find.py CORPUS PAIRS.tsv OUT.jsonl [--min-similarity T] [--id-field id]

Prints one JSON line of counts to stdout.
"""

import argparse
import json
import sys


def corpus_ids(path, id_field):
    ids = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                ids.append(str(json.loads(line)[id_field]))
    return ids


def find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        parent[x], x = root, parent[x]
    return root


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("pairs")
    ap.add_argument("out")
    ap.add_argument("--min-similarity", type=float, default=None)
    ap.add_argument("--id-field", default="id")
    a = ap.parse_args()

    ids = corpus_ids(a.corpus, a.id_field)
    pos = {}
    for i, d in enumerate(ids):
        pos.setdefault(d, i)
    parent = list(range(len(ids)))
    sim = {}
    pairs = used = 0
    with open(a.pairs, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 3:
                sys.exit("%s:%d: expected id1<TAB>id2<TAB>similarity" % (a.pairs, n))
            x, y = pos.get(cols[0]), pos.get(cols[1])
            if x is None or y is None:
                sys.exit("%s:%d: id not in the corpus %s" % (a.pairs, n, a.corpus))
            s = float(cols[2])
            pairs += 1
            if a.min_similarity is not None and s < a.min_similarity:
                continue
            used += 1
            if x > y:
                x, y = y, x
            sim[(x, y)] = max(s, sim.get((x, y), s))
            rx, ry = find(parent, x), find(parent, y)
            if rx != ry:
                # The earlier document stays root, so a root is its cluster's first document.
                if rx < ry:
                    parent[ry] = rx
                else:
                    parent[rx] = ry

    groups = {}
    for i in range(len(ids)):
        r = find(parent, i)
        if r != i:
            groups.setdefault(r, []).append(i)
    largest = 0
    with open(a.out, "w", encoding="utf-8") as out:
        for n, rep in enumerate(sorted(groups)):
            members = groups[rep]
            largest = max(largest, len(members) + 1)
            rec = {
                "cluster": n,
                "size": len(members) + 1,
                "representative": ids[rep],
                "members": [{"id": ids[m], "similarity": sim.get((rep, m))} for m in members],
            }
            out.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(json.dumps({"pairs": pairs, "pairs_used": used, "clusters": len(groups), "largest": largest}))


if __name__ == "__main__":
    main()
