"""datasketch's MinHashLSH on Redis, the peer of `lookalike serve` in bench/index-load.sh.

Inserts N documents (word 5-shingles, lower-cased word tokens; 128 permutations; threshold 0.8)
into a MinHashLSH whose storage is a Redis server on loopback, then queries Q other documents,
and prints one JSON line: insert and query throughput, Redis memory. datasketch keeps no
signatures or shingles for verification: its answers are LSH candidates, not verified pairs.
"""

import json
import re
import sys
import time

import redis
from datasketch import MinHash, MinHashLSH

WORD = re.compile(r"\w+", re.UNICODE)


def shingles(text, w=5):
    tokens = WORD.findall(text.lower())
    if len(tokens) < w:
        return {" ".join(tokens).encode()}
    return {" ".join(tokens[i : i + w]).encode() for i in range(len(tokens) - w + 1)}


def minhash(text):
    m = MinHash(num_perm=128)
    m.update_batch(list(shingles(text)))
    return m


def main():
    corpus, n, q, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    docs = []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            if len(docs) >= n + q:
                break
            d = json.loads(line)
            docs.append((d["id"], d["text"]))
    r = redis.Redis(host="127.0.0.1", port=port)
    r.flushall()
    lsh = MinHashLSH(
        threshold=0.8,
        num_perm=128,
        storage_config={"type": "redis", "basename": b"bench", "redis": {"host": "127.0.0.1", "port": port}},
    )
    t = time.time()
    sketch_time = 0.0
    with lsh.insertion_session(buffer_size=4096) as session:
        for key, text in docs[:n]:
            s = time.time()
            m = minhash(text)
            sketch_time += time.time() - s
            session.insert(key, m, check_duplication=False)
    insert_s = time.time() - t
    t = time.time()
    found = 0
    lat = []
    for _, text in docs[n : n + q]:
        s = time.time()
        if lsh.query(minhash(text)):
            found += 1
        lat.append(time.time() - s)
    query_s = time.time() - t
    lat.sort()
    mem = r.info("memory")["used_memory"]
    print(
        json.dumps(
            {
                "peer": "datasketch MinHashLSH on redis",
                "documents": n,
                "insert_s": round(insert_s, 2),
                "inserts_per_s": round(n / insert_s, 1),
                "sketch_share": round(sketch_time / insert_s, 3),
                "queries": q,
                "queries_per_s": round(q / query_s, 1),
                "query_p50_ms": round(lat[len(lat) // 2] * 1e3, 3),
                "query_p99_ms": round(lat[int(len(lat) * 0.99) - 1] * 1e3, 3),
                "queries_with_candidates": found,
                "redis_used_memory_bytes": mem,
                "redis_bytes_per_document": round(mem / n),
            }
        )
    )


if __name__ == "__main__":
    main()
