"""Connected components of a large graph on Ray, and near-duplicate clusters that use them.

    python python/examples/ray_components.py corpus.jsonl

`lookalike.ray.connected_components` takes any Dataset of int64 edges `a`, `b` and returns each
node's component (its smallest node), with large-star/small-star rounds over Ray's hash shuffle;
`lookalike.ray.dedup(..., cluster="connected", components="distributed")` clusters with it
instead of one task's union-find (the default, "auto", switches above 10^8 near edges).
"""

import logging
import sys

import pyarrow as pa
import ray

import lookalike.ray

ray.init(logging_level=logging.WARNING)  # the driver quiet too; lookalike.ray prints its stages
edges = ray.data.from_arrow(pa.table({"a": [1, 2, 10, 11], "b": [2, 3, 11, 12]}))
labels = lookalike.ray.connected_components(edges, num_partitions=2).take_all()
print(sorted((r["node"], r["component"]) for r in labels))
# [(1, 1), (2, 1), (3, 1), (10, 10), (11, 10), (12, 10)]

if len(sys.argv) > 1:
    ds = ray.data.read_json(sys.argv[1])
    result = lookalike.ray.dedup(ds, text="text", id="id", cluster="connected", components="distributed")
    print(result.stats["stats"])
