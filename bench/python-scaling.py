"""Per-stage costs of lookalike.ray.dedup's kernels, measured in one process, for the scaling model
(bench/results/scaling-model-2026-11-24.md).

    python bench/python-scaling.py [--no-dedup] [--join-max M] CORPUS.jsonl N [N ...] > figures.jsonl

For each N (the first N documents of CORPUS), in a child process of its own (so that its peak
memory is its own):

* sketch: CPU seconds of `sketch_keys` per MB of text, rows and bytes per document of its output
  (the first shuffle: keys, document numbers and text fingerprints only), over every batch;
* buckets (N <= M, `--join-max`, default 20000: every row held in memory at once): CPU of `bucket_edges` over all rows,
  candidate pairs per document;
* join (N <= M): the exact verification's two shuffles, with the kernels of the Ray job at
  64 verification partitions: the repartition by document (the texts of the documents in a
  candidate pair, and the requests for texts) and the repartition by `dest` (the candidate pairs, and each requested text once per
  partition that asked for it); CPU of `verify_pairs`, near edges per document;
* dedup (unless `--no-dedup`): `lookalike.dedup` over the stream (the one-process answer): CPU,
  peak RSS, near pairs per document, pairs, clusters.

CPU is process CPU time (all threads), so other work on the machine does not inflate it.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

INDEX = "__lookalike_index"


def first_docs(path: str, n: int):
    """Batches (id, text) of the first n documents of a JSONL corpus, via lookalike.read."""
    import pyarrow as pa

    import lookalike

    reader = lookalike.read([path], batch_size=4096)
    seen = 0
    for batch in reader:
        if seen >= n:
            break
        batch = batch.slice(0, n - seen).select(["id", "text"])
        seen += batch.num_rows
        yield batch
    del reader


def measure(path: str, n: int, join_max: int = 20_000, dedup: bool = True) -> dict:
    import pyarrow as pa

    import lookalike
    from lookalike import _lookalike as k

    out: dict = {"docs": n}
    cpu = 0.0
    text_bytes = rows = key_bytes = 0
    kept, texts = [], []
    offset = 0
    for batch in first_docs(path, n):
        batch = pa.RecordBatch.from_arrays(
            [batch.column(1), pa.array(range(offset, offset + batch.num_rows), pa.int64())],
            names=["text", INDEX],
        )
        offset += batch.num_rows
        text_bytes += batch.column(0).nbytes
        t = time.process_time()
        sketched = k.sketch_keys(batch, "text", INDEX)
        cpu += time.process_time() - t
        rows += sketched.num_rows
        key_bytes += sketched.nbytes
        if n <= join_max:
            kept.append(sketched)
            texts.append(k.texts_for_requests(batch, "text", INDEX))
        del sketched
    mb = text_bytes / 1e6
    out["sketch"] = {
        "text_mb": round(mb, 1),
        "cpu_s": round(cpu, 2),
        "cpu_s_per_mb": round(cpu / mb, 4),
        "rows_per_doc": round(rows / n, 2),
        "key_bytes_per_doc": round(key_bytes / n, 1),
    }
    if kept:
        table = pa.Table.from_batches(kept).combine_chunks()
        del kept
        t = time.process_time()
        edges = k.bucket_edges(table.to_batches()[0])
        bucket_cpu = time.process_time() - t
        kinds = edges.column("kind").to_pylist()
        candidates = sum(1 for x in kinds if x == 3)
        out["buckets"] = {
            "cpu_s": round(bucket_cpu, 2),
            "candidates_per_doc": round(candidates / n, 4),
            "edge_rows_per_doc": round(edges.num_rows / n, 3),
            "edge_bytes_per_doc": round(edges.nbytes / n, 1),
        }
        pairs, requests = k.candidate_pairs(edges, 64)
        texts = pa.Table.from_batches(texts).combine_chunks()
        # The Ray job's bitmap: only the texts some pair needs enter the repartition by document.
        needed = set(requests.column("doc").to_pylist())
        texts = texts.filter(pa.array([d in needed for d in texts.column("doc").to_pylist()]))
        texts = texts.combine_chunks().to_batches()[0]
        by_doc = pa.Table.from_batches([texts, requests]).combine_chunks().to_batches()[0]
        routed = k.route_texts(by_doc)
        by_dest = pa.Table.from_batches([pairs, routed]).combine_chunks().to_batches()[0]
        t = time.process_time()
        near = k.verify_pairs([by_dest])
        verify_cpu = time.process_time() - t
        out["join"] = {
            "pairs_per_doc": round(pairs.num_rows / n, 4),
            "docs_with_candidates": routed.column("a").unique().__len__(),
            "shuffle_by_doc_bytes_per_doc": round(by_doc.nbytes / n, 1),
            "of_which_texts": round(texts.nbytes / n, 1),
            "shuffle_by_dest_bytes_per_doc": round(by_dest.nbytes / n, 1),
            "of_which_routed_texts": round(routed.nbytes / n, 1),
            "verify_cpu_s": round(verify_cpu, 2),
            "near_edges_per_doc": round(near.num_rows / n, 4),
        }
        out["shuffle_bytes_per_doc"] = round(
            (key_bytes + by_doc.nbytes + by_dest.nbytes) / n, 1
        )
        del table, edges, texts, by_doc, by_dest, routed
    if not dedup:
        return out
    t, w = time.process_time(), time.time()
    stream = pa.RecordBatchReader.from_batches(
        pa.schema([("id", pa.string()), ("text", pa.string())]), first_docs(path, n)
    )
    result = lookalike.dedup(stream, id="id")
    stats = result.stats["stats"]
    out["dedup"] = {
        "cpu_s": round(time.process_time() - t, 1),
        "wall_s": round(time.time() - w, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0),
        "near_pairs_per_doc": round(stats["near_pairs"] / n, 4),
        "pairs": stats["pairs"],
        "clusters": stats["clusters"],
        "duplicates": stats["duplicates"],
        "exact_duplicates": stats["exact_duplicates"],
    }
    return out


def main() -> None:
    if len(sys.argv) >= 6 and sys.argv[1] == "--one":
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1")))
        return
    args = sys.argv[1:]
    dedup, join_max = "--no-dedup" not in args, 20_000
    args = [a for a in args if a != "--no-dedup"]
    if "--join-max" in args:
        i = args.index("--join-max")
        join_max = int(args[i + 1])
        del args[i : i + 2]
    path, sizes = args[0], [int(x) for x in args[1:]]
    for n in sizes:
        run = subprocess.run(
            [sys.executable, __file__, "--one", path, str(n), str(join_max), "1" if dedup else "0"],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(run.stderr)
        print(run.stdout.strip(), flush=True)


if __name__ == "__main__" and not (len(sys.argv) >= 2 and sys.argv[1] == "--components"):
    main()


def components(n: int, near_per_doc: float) -> dict:
    """The clustering task alone on n documents with near_per_doc random near edges per document
    (every document its own exact group): time and peak memory of streaming and finishing."""
    import random

    import pyarrow as pa

    from lookalike import _lookalike as k

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rng = random.Random(1)
    t, w = time.process_time(), time.time()
    comps = k.Components(n)
    step = 1 << 20
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        docs = pa.array(range(lo, hi), pa.int64())
        m = hi - lo
        members = pa.RecordBatch.from_pydict({
            "kind": pa.array([1] * m, pa.uint8()), "a": docs, "b": docs,
            "similarity": pa.array([1.0] * m), "bytes": pa.array([True] * m),
            "len": pa.array([100] * m, pa.int64()), "reason": pa.array([None] * m, pa.string()),
        })
        comps.add_edges(members)
        e = int(m * near_per_doc)
        a = [rng.randrange(n - 1) for _ in range(e)]
        b = [x + 1 + rng.randrange(min(1000, n - 1 - x)) for x in a]
        near = pa.RecordBatch.from_pydict({
            "kind": pa.array([0] * e, pa.uint8()), "a": pa.array(a, pa.int64()), "b": pa.array(b, pa.int64()),
            "similarity": pa.array([0.9] * e), "bytes": pa.array([False] * e),
            "len": pa.array([0] * e, pa.int64()), "reason": pa.array([None] * e, pa.string()),
        })
        comps.add_edges(near)
        ids = pa.RecordBatch.from_pydict({"id": pa.array([f"d{i:07d}" for i in range(lo, hi)]), INDEX: docs})
        comps.add_ids(ids, "id", INDEX)
    stream_cpu = time.process_time() - t
    table, pairs, stats = comps.finish()
    return {
        "components_docs": n,
        "near_edges_per_doc": near_per_doc,
        "stream_cpu_s": round(stream_cpu, 1),
        "total_cpu_s": round(time.process_time() - t, 1),
        "wall_s": round(time.time() - w, 1),
        "peak_rss_growth_mb": round((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024),
        "clusters": json.loads(stats)["stats"]["clusters"],
    }


if __name__ == "__main__" and len(sys.argv) >= 2 and sys.argv[1] == "--components":
    print(json.dumps(components(int(sys.argv[2]), float(sys.argv[3]))))
