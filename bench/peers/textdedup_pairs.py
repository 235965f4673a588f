"""text-dedup's clusters as pairs: reads the union-find that `python -m text_dedup.minhash --debug
--idx_column id` dumps (uf.pkl, keyed by the corpus ids) and writes every pair inside a cluster
(`id1<TAB>id2<TAB>1.000000`, id1 earlier in corpus order; text-dedup reports no similarity).

    textdedup_pairs.py CORPUS UF_PKL OUT.tsv
"""

import json
import pickle
import sys
from itertools import combinations


def main():
    corpus, uf_path, out_path = sys.argv[1:4]
    order = {}
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                order[json.loads(line)["id"]] = len(order)
    with open(uf_path, "rb") as f:
        uf = pickle.load(f)  # text_dedup.utils.union_find.UnionFind
    groups = {}
    for x in list(uf.parent):
        groups.setdefault(uf.find(x), []).append(x)
    n = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for members in groups.values():
            members.sort(key=order.__getitem__)
            for a, b in combinations(members, 2):
                out.write(f"{a}\t{b}\t1.000000\n")
                n += 1
    sizes = [len(m) for m in groups.values() if len(m) > 1]
    print(json.dumps({"clusters": len(sizes), "clustered_docs": sum(sizes), "largest": max(sizes, default=0), "pairs": n}))


if __name__ == "__main__":
    main()
