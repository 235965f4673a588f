"""rensa: R-MinHash sketches built by the batch call RMinHash.from_token_sets (on chunks of 512
documents, so that the token sets of the whole corpus are never held at once), RMinHashLSH filled
with insert_many and queried with query_all, candidates' Jaccard estimated with RMinHash.jaccard.
Rensa's batch functions use Rayon threads (RAYON_NUM_THREADS).

    run_rensa.py CORPUS --num-perm N --bands B --candidates C.tsv --filtered F.tsv
"""

import argparse

from rensa import RMinHash, RMinHashLSH

from common import Clock, PairWriter, chunks, iter_corpus, shingles, threads_from_env

CHUNK = 512


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--num-perm", type=int, required=True)
    ap.add_argument("--bands", type=int, required=True)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--candidates", required=True)
    ap.add_argument("--filtered", required=True)
    a = ap.parse_args()

    clock = Clock("rensa")
    ids = []
    mhs = []
    for texts in chunks(iter_corpus(a.corpus, ids), CHUNK):
        mhs.extend(RMinHash.from_token_sets([list(shingles(t)) for t in texts], a.num_perm, 1))
    clock.lap("read+tokenize+minhash")
    lsh = RMinHashLSH(a.threshold, a.num_perm, a.bands)
    lsh.insert_many(mhs)
    clock.lap("lsh_insert")
    results = lsh.query_all(mhs)
    clock.lap("query")
    out = PairWriter(ids, a.candidates, a.filtered, a.threshold)
    for i, cands in enumerate(results):
        m = mhs[i]
        for j in cands:
            if j > i:
                out.add(i, j, m.jaccard(mhs[j]))
    out.close()
    clock.lap("estimate+write")
    clock.info.update(candidates=out.n, filtered=out.n_filtered, threads=threads_from_env())
    clock.done()


if __name__ == "__main__":
    main()
