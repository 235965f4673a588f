"""SpotSigs on Ray: the pair rows a bucket block sends to the counting tasks, with the size
bound (``SpotSigs::may_pair``) against every pair of heads sharing a spot (distinct pairs).

    .venv/bin/python bench/ray-spot-pairs.py bench/work/banding/pages.jsonl

Runs the Ray job's kernels in one process (no Ray): ``sketch_keys`` over the whole file, then
``bucket_edges`` over all its rows as one block. Prints one line.
"""
import json, sys, time
import pyarrow as pa, pyarrow.compute as pc
from lookalike import _lookalike
path = sys.argv[1]
texts = [json.loads(l)["text"] for l in open(path)]
n = len(texts)
t = pa.table({"text": texts, "__lookalike_index": pa.array(range(n), pa.int64())})
settings = dict(method="spotsigs", threshold=0.8)
rows = pa.Table.from_batches([_lookalike.sketch_keys(b, documents=n, **settings) for b in t.to_batches()])
keys = rows.filter(pc.greater_equal(rows["band"], 0))
# Without the size bound: every pair of the heads (first document of each distinct text) of a spot.
seen = {}
for k, hi, lo, d in zip(keys["key"].to_pylist(), keys["fp_hi"].to_pylist(), keys["fp_lo"].to_pylist(), keys["doc"].to_pylist()):
    heads = seen.setdefault(k, {})
    if (hi, lo) not in heads or d < heads[(hi, lo)]:
        heads[(hi, lo)] = d
pairs = set()
for heads in seen.values():
    h = sorted(heads.values())
    for i in range(len(h)):
        for j in range(i + 1, len(h)):
            pairs.add((h[i], h[j]))
unpruned = len(pairs)
t0 = time.process_time()
edges = _lookalike.bucket_edges(rows.combine_chunks().to_batches()[0], **settings)
cpu = time.process_time() - t0
kind = edges.column(edges.schema.get_field_index("kind")).to_numpy()
shared = int((kind == 4).sum())
print(f"{n} docs, {len(seen)} spots: pair rows {unpruned} listed without the size bound, {shared} with it ({shared/unpruned:.3f}); bucket_edges {cpu:.2f} CPU-s")
