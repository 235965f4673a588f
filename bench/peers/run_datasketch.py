"""datasketch: MinHash.generator (the streaming form of MinHash.bulk: one update_batch per
document on a copy of one initialized MinHash) + MinHashLSH filled in an insertion session, then one
query per document. Single-threaded (datasketch has no threads).

    run_datasketch.py CORPUS --num-perm N --bands B --rows R --candidates C.tsv --filtered F.tsv
"""

import argparse

from datasketch import MinHash, MinHashLSH

from common import Clock, PairWriter, iter_corpus, shingles


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--num-perm", type=int, required=True)
    ap.add_argument("--bands", type=int, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--candidates", required=True)
    ap.add_argument("--filtered", required=True)
    a = ap.parse_args()

    clock = Clock("datasketch")
    ids = []
    sets = ([s.encode("utf-8") for s in shingles(t)] for t in iter_corpus(a.corpus, ids))
    mhs = list(MinHash.generator(sets, num_perm=a.num_perm, seed=1))
    clock.lap("read+tokenize+minhash")
    lsh = MinHashLSH(threshold=a.threshold, num_perm=a.num_perm, params=(a.bands, a.rows))
    with lsh.insertion_session() as session:
        for i, m in enumerate(mhs):
            session.insert(i, m, check_duplication=False)
    clock.lap("lsh_insert")
    out = PairWriter(ids, a.candidates, a.filtered, a.threshold)
    for i, m in enumerate(mhs):
        for j in lsh.query(m):
            if j > i:
                out.add(i, j, m.jaccard(mhs[j]))
    out.close()
    clock.lap("query+estimate+write")
    clock.info.update(candidates=out.n, filtered=out.n_filtered, threads=1)
    clock.done()


if __name__ == "__main__":
    main()
