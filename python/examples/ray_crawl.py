"""A crawl to Ray without a conversion: WARC files, folders of HTML pages, JSONL or Parquet read by
lookalike's readers in Ray tasks (each site's template removed, as `lookalike dedup` does), then
deduplicated on Ray.

    python python/examples/ray_crawl.py crawl/              # WARC files, HTML folders, ...
    RAY_ADDRESS=auto python python/examples/ray_crawl.py /shared/crawl/
"""

import logging
import sys

import ray

import lookalike.ray

ray.init(logging_level=logging.WARNING)
# One row per document (records that are not documents, such as WARC requests, left out).
ds = lookalike.ray.read(sys.argv[1:], skipped=False)
result = lookalike.ray.dedup(ds, id="id", threshold=0.8)
pairs = result.pairs.take_all()
print(f"{ds.count()} documents, {len(pairs)} near-duplicate pairs")
for p in pairs[:10]:
    print(f"{p['similarity']:.3f}  {p['id1']}  {p['id2']}")
