"""MinHash deduplication of a Ray Dataset: Rust kernels, Ray's hash shuffle, exact verification.

    python python/examples/ray_dedup.py corpus.jsonl fates/        # a local Ray
    RAY_ADDRESS=auto python python/examples/ray_dedup.py s3://bucket/corpus/ s3://bucket/fates/

On a cluster every node needs the wheel (an image with it, or runtime_env={"pip": [...]}).
"""

import logging
import os
import sys

import ray

import lookalike.ray

source, target = sys.argv[1], sys.argv[2]
ray.init(logging_level=logging.WARNING)  # the driver quiet too; lookalike.ray prints its stages
ds = ray.data.read_json(source) if source.endswith(".jsonl") else ray.data.read_parquet(source)
# keep: "first" or "longest"; cluster: "center" (default), "clique", "connected", "center-refine"
result = lookalike.ray.dedup(
    ds, text="text", id="id", threshold=0.8, keep="first", cluster="center",
    num_partitions=max(4, (os.cpu_count() or 1) * 2),  # on a cluster: a few times its CPUs
)
result.dataset.write_parquet(target)
print(result.stats["stats"])
