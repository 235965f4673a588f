"""datatrove: the MinHash deduplication pipeline (signatures, buckets, clusters) on local JSONL
shards with LocalPipelineExecutor, then (a separate, untimed command) its clusters as pairs.

    run_datatrove.py run SHARD_DIR WORKDIR --bands B --rows R --threads T
    run_datatrove.py pairs SHARD_DIR WORKDIR --out PAIRS.tsv

The signature step reads the shards (one task per shard, T workers); the bucket step runs one task
per band on T workers; clustering is one task (datatrove requires it). The filter step, which only
rewrites the kept documents, is not run (lookalike's timed runs write no documents either).
datatrove's MinhashConfig gives hashes_per_bucket x num_buckets MinHash values (= rows x bands).
Its text normalization (simplify_text: lower case, punctuation removed, numbers -> 0, ...) is kept;
its word tokenizer (spaCy per language) is replaced by the shared one (common.tokens).
"""

import argparse
import glob
import json
import os
import shutil
import struct
import sys
from itertools import combinations


def run(a):
    from datatrove.executor.local import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import MinhashConfig, MinhashDedupBuckets, MinhashDedupCluster
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.utils.hashing import HashConfig

    from common import Clock
    from dt_steps import SignatureSharedTokens

    clock = Clock("datatrove")
    shutil.rmtree(a.workdir, ignore_errors=True)
    shards = sorted(glob.glob(os.path.join(a.shard_dir, "*.jsonl")))
    cfg = MinhashConfig(n_grams=5, num_buckets=a.bands, hashes_per_bucket=a.rows, hash_config=HashConfig(precision=64))
    w = a.workdir
    LocalPipelineExecutor(
        pipeline=[
            JsonlReader(a.shard_dir, glob_pattern="*.jsonl", text_key="text", id_key="id"),
            SignatureSharedTokens(output_folder=f"{w}/signatures", config=cfg),
        ],
        tasks=len(shards),
        workers=a.threads,
        logging_dir=f"{w}/logs/signatures",
    ).run()
    clock.lap("signatures")
    LocalPipelineExecutor(
        pipeline=[
            MinhashDedupBuckets(input_folder=f"{w}/signatures", output_folder=f"{w}/buckets", config=cfg),
        ],
        tasks=cfg.num_buckets,
        workers=a.threads,
        logging_dir=f"{w}/logs/buckets",
    ).run()
    clock.lap("buckets")
    LocalPipelineExecutor(
        pipeline=[
            MinhashDedupCluster(
                input_folder=f"{w}/buckets", output_folder=f"{w}/remove_ids", config=cfg, save_cluster_id=True
            ),
        ],
        tasks=1,
        logging_dir=f"{w}/logs/clusters",
    ).run()
    clock.lap("clusters")
    clock.info.update(threads=a.threads, shards=len(shards))
    clock.done()


def pairs(a):
    """Clusters -> every pair inside a cluster. Document (task r, index d) is the d-th document of
    shard r (one signature task per shard)."""
    shards = sorted(glob.glob(os.path.join(a.shard_dir, "*.jsonl")))
    ids = []
    offsets = []
    for s in shards:
        offsets.append(len(ids))
        with open(s, encoding="utf-8") as f:
            ids.extend(json.loads(line)["id"] for line in f if line.strip())
    clusters = {}
    for path in sorted(glob.glob(os.path.join(a.workdir, "remove_ids", "*.clusters"))):
        rank = int(os.path.basename(path).split(".")[0])
        with open(path, "rb") as f:
            data = f.read()
        for doc, cid in struct.iter_unpack("<II", data):
            clusters.setdefault(cid, []).append(offsets[rank] + doc)
    n = 0
    with open(a.out, "w", encoding="utf-8") as out:
        for members in clusters.values():
            for i, j in combinations(sorted(members), 2):
                out.write(f"{ids[i]}\t{ids[j]}\t1.000000\n")
                n += 1
    sizes = [len(m) for m in clusters.values()]
    print(json.dumps({"clusters": len(clusters), "clustered_docs": sum(sizes), "largest": max(sizes, default=0), "pairs": n}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["run", "pairs"])
    ap.add_argument("shard_dir")
    ap.add_argument("workdir")
    ap.add_argument("--bands", type=int)
    ap.add_argument("--rows", type=int)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out")
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    run(a) if a.mode == "run" else pairs(a)


if __name__ == "__main__":
    main()
