"""lookalike from Python against datasketch, rensa and gaoya in the same run (bench/python.sh).

    python bench/python-peers.py CORPUS.jsonl N TASK

TASK is one measurement, run in a child process of its own by bench/python.sh so that each peak
RSS is its own; it prints one JSON line (docs/s over the timed part, peak RSS):

* texts-lookalike-dedup: `lookalike.dedup(texts)`, the whole pipeline (exact verification,
  clusters);
* texts-lookalike-lsh: `MinHash.from_texts` + `MinHashLSH.insert_many` + `query_many`;
* texts-datasketch / texts-rensa: the peer tokenizes in Python (lower-cased words, 5-word
  shingles), sketches and fills its LSH, then queries every document;
* texts-gaoya: gaoya's own analyzer (words, 5-grams) in its bulk index;
* tokens-*: the same with the shingles computed before the clock starts (pre-tokenized), so only
  sketching and LSH are timed.

Every library at 128 permutations and threshold 0.8.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def load(path: str, n: int) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            ids.append(d["id"])
            texts.append(d["text"])
            if len(texts) == n:
                break
    return ids, texts


def shingles(text: str) -> list[str]:
    w = text.lower().split()
    return [" ".join(w[i : i + 5]) for i in range(max(1, len(w) - 4))]


def main() -> None:
    path, n, task = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ids, texts = load(path, n)
    mode, lib = task.split("-", 1)
    pre = [shingles(t) for t in texts] if mode == "tokens" else None
    start = time.perf_counter()
    found = 0
    if lib == "lookalike-dedup":
        result = __import__("lookalike").dedup(texts, threshold=0.8)
        found = result.pairs.num_rows
    elif lib == "lookalike-lsh":
        from lookalike import MinHash, MinHashLSH

        if pre is None:
            sketches = MinHash.from_texts(texts)
        else:
            sketches = []
            for s in pre:
                m = MinHash()
                m.update_batch(s)
                sketches.append(m)
        lsh = MinHashLSH(threshold=0.8)
        lsh.insert_many(ids, sketches)
        found = sum(len(x) - 1 for x in lsh.query_many(sketches))
    elif lib == "datasketch":
        from datasketch import MinHash, MinHashLSH

        lsh = MinHashLSH(threshold=0.8, num_perm=128)
        sketches = []
        for i, t in zip(ids, pre if pre is not None else texts):
            m = MinHash(num_perm=128)
            m.update_batch([s.encode() for s in (t if pre is not None else shingles(t))])
            lsh.insert(i, m)
            sketches.append(m)
        found = sum(len(lsh.query(m)) - 1 for m in sketches)
    elif lib == "rensa":
        from rensa import RMinHash, RMinHashLSH

        lsh = RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16)
        sketches = []
        for k, t in enumerate(pre if pre is not None else texts):
            m = RMinHash(num_perm=128, seed=1)
            m.update(t if pre is not None else shingles(t))
            lsh.insert(k, m)
            sketches.append(m)
        found = sum(len(lsh.query(m)) - 1 for m in sketches)
    elif lib == "gaoya":
        from gaoya.minhash import MinHashStringIndex

        index = MinHashStringIndex(
            hash_size=32, jaccard_threshold=0.8, num_bands=16, band_size=8,
            num_hashes=128, analyzer="word", lowercase=True, ngram_range=(5, 5),
        )
        docs = [" ".join(s) for s in pre] if pre is not None else texts
        index.par_bulk_insert_docs(list(range(len(docs))), docs)
        found = sum(len(index.query(d)) - 1 for d in docs)
    else:
        sys.exit(f"unknown task {task}")
    elapsed = time.perf_counter() - start
    print(json.dumps({
        "task": task,
        "docs": n,
        "seconds": round(elapsed, 2),
        "docs_per_s": round(n / elapsed),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "found": found,
    }), flush=True)


if __name__ == "__main__":
    main()
