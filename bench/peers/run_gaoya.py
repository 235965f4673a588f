"""gaoya: MinHashStringIndex with the shared tokenizer's 5-shingles as tokens, streamed in chunks
of 512 documents: each chunk is inserted (bulk_insert_tokens), then queried
(par_bulk_query_tokens_return_similarity), so every pair is found once, by the later document's
chunk, and only one chunk's tokens are held at a time. (These are the methods that
MinHashStringIndex.par_bulk_insert_docs and par_bulk_query call with a callable analyzer; called
directly so that each document is tokenized once, not twice.) The parallel query uses Rayon
threads (RAYON_NUM_THREADS). gaoya's signature is bands x rows values long, and its query keeps
only the candidates whose estimated Jaccard reaches the index's threshold.

    run_gaoya.py CORPUS --bands B --rows R --candidates C.tsv --filtered F.tsv
"""

import argparse
import time

from gaoya.minhash import MinHashStringIndex

from common import Clock, PairWriter, chunks, iter_corpus, shingles, threads_from_env

CHUNK = 512


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--bands", type=int, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--hash-size", type=int, default=32)
    ap.add_argument("--candidates", required=True)
    ap.add_argument("--filtered", required=True)
    a = ap.parse_args()

    clock = Clock("gaoya")
    index = MinHashStringIndex(
        hash_size=a.hash_size,
        jaccard_threshold=a.threshold,
        num_bands=a.bands,
        band_size=a.rows,
        analyzer="word",
        id_container="smallvec",
    )
    inner = index.minhash_index
    ids = []
    out = PairWriter(ids, a.candidates, a.filtered, a.threshold)
    start = 0
    t_tok = t_ins = t_query = 0.0

    for texts in chunks(iter_corpus(a.corpus, ids), CHUNK):
        t0 = time.perf_counter()
        toks = [list(shingles(t)) for t in texts]
        t1 = time.perf_counter()
        keys = list(range(start, start + len(toks)))
        inner.bulk_insert_tokens(keys, toks)
        t2 = time.perf_counter()
        results = inner.par_bulk_query_tokens_return_similarity(toks)
        t3 = time.perf_counter()
        for k, res in zip(keys, results):
            for j, sim in res:
                # Pairs inside the chunk are seen from both sides: keep the later document's.
                if j < k:
                    out.add(j, k, sim)
        start += len(toks)
        t_tok += t1 - t0
        t_ins += t2 - t1
        t_query += t3 - t2
    out.close()
    clock.stages.update(tokenize=round(t_tok, 3), minhash_insert=round(t_ins, 3), query=round(t_query, 3))
    clock.info.update(candidates=out.n, filtered=out.n_filtered, threads=threads_from_env())
    clock.done()


if __name__ == "__main__":
    main()
