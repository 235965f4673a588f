"""The counting methods on Ray (MOD-m, MIN-s, Broder, SpotSigs): what one counting task gets
and does when the shared samples are counted in one task, against the largest of the
`sampled_split` partitions, with the Ray job's kernels in one process (no Ray).

    .venv/bin/python bench/ray-counting-split.py CORPUS.jsonl [METHOD] [PARTITIONS]

`sketch_keys` over the whole file, the rows shuffled by key into PARTITIONS (default 4) bucket
blocks as the job's plain-task shuffle does, `bucket_edges` per block; then (one task)
`sampled_candidates` over every block, and (split) `sampled_split` of every block and
`sampled_candidates` per partition. Prints the rows each task reads, its CPU seconds, and
whether the candidates are the same. METHOD defaults to mod-m.
"""

import json
import sys
import time

import numpy as np
import pyarrow as pa

from lookalike import _lookalike
from lookalike.ray import _spread

path = sys.argv[1]
method = sys.argv[2] if len(sys.argv) > 2 else "mod-m"
partitions = int(sys.argv[3]) if len(sys.argv) > 3 else 4
texts = [json.loads(line)["text"] for line in open(path)]
n = len(texts)
settings = dict(method=method, threshold=0.8)
table = pa.table({"text": texts, "__lookalike_index": pa.array(range(n), pa.int64())})
rows = pa.Table.from_batches(
    [_lookalike.sketch_keys(b, documents=n, **settings) for b in table.to_batches(max_chunksize=4096)]
)
part = _spread(rows["key"].to_numpy(), partitions)
blocks = []
for p in range(partitions):
    block = rows.take(np.nonzero(part == p)[0]).combine_chunks()
    batch = block.to_batches()[0] if block.num_rows else None
    if batch is not None:
        blocks.append(_lookalike.bucket_edges(batch, **settings))


def timed(f):
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


whole, cpu = timed(lambda: _lookalike.sampled_candidates(blocks, **settings))
read = sum(b.num_rows for b in blocks)
print(f"{n} documents, {method}, {partitions} partitions: one task reads {read:,} rows, {cpu:.2f} CPU-s, {whole.num_rows:,} candidates")
pieces = [_lookalike.sampled_split(b, partitions) for b in blocks]
heads = [p[0] for p in pieces]
got, largest, total = set(), 0, 0.0
for i in range(partitions):
    mine = heads + [p[1 + i] for p in pieces]
    out, cpu = timed(lambda: _lookalike.sampled_candidates([b for b in mine if b.num_rows], **settings))
    total += cpu
    largest = max(largest, sum(b.num_rows for b in mine))
    a, b = out.column(out.schema.get_field_index("a")), out.column(out.schema.get_field_index("b"))
    got.update(zip(a.to_pylist(), b.to_pylist()))
want = set(zip(whole.column(whole.schema.get_field_index("a")).to_pylist(), whole.column(whole.schema.get_field_index("b")).to_pylist()))
head_rows = sum(h.num_rows for h in heads)
print(f"split: the largest task reads {largest:,} rows ({head_rows:,} of them head rows), {total:.2f} CPU-s in all; same candidates: {got == want}")
