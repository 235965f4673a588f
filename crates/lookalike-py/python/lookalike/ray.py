"""MinHash deduplication of a ``ray.data.Dataset``, with Rust kernels doing the work.

The job, stage by stage (the kernels are in ``crates/lookalike-py/src/kernels.rs``)::

    ds ─► index ─► map_batches(sketch_bands) ─► repartition(keys=["key"]) ─► map_batches(bucket_edges)
      (global        (per document: one exact row,       (hash shuffle: a bucket's       (exact groups, verified
       input order)   one row per band + shingle set)     rows meet in one block)         near edges)
                                                                   ─► Components (one task: the edges
                                                                      clustered as the library does)

* ``index``: every row gets its global input position (block row counts, then offsets), so
  ``keep="first"`` and every tie are decided as the CLI decides them.
* ``sketch_bands`` (``map_batches``): normalization, shingles and the MinHash signature of each
  document; its band keys are the library's, so the buckets are the CLI's.
* ``repartition(num_partitions, keys=["key"])``: Ray's hash shuffle, never ``map_groups``.
* ``bucket_edges`` (``map_batches`` over whole blocks): candidate pairs verified exactly from the
  shingle sets that travelled with the rows (exact Jaccard, not an estimate).
* ``Components``: the edges streamed into one Rust task (4 bytes per document, 8 with
  ``keep="longest"``, plus the near edges and the ids), clustered with the library's cluster modes.

The result is a ``RayDedupResult``: ``dataset`` (one row per document, the columns of
``lookalike.dedup``), ``pairs`` (a Dataset of verified pairs) and ``stats``. Same documents, same
order and settings: the same clusters and pairs as ``lookalike dedup --method minhash`` and
``lookalike.dedup``, whatever ``num_partitions``.

Limits: Ray needs at least 2 CPUs (on a local Ray with ``num_cpus=1`` the hash shuffle's
aggregators and the map tasks wait for the one CPU: 20,000 documents did not finish in 400 s);
MinHash with exact Jaccard only; ``cluster`` ``"center"`` (default) or ``"clique"``;
the ids and the near edges must fit the memory of the one clustering task (see
``bench/results/scaling-model-2026-11-24.md`` for where that stops and what replaces it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from . import _lookalike

__all__ = ["RayDedupResult", "dedup", "INDEX"]

#: The column holding each row's global input position while the job runs.
INDEX = "__lookalike_index"


@dataclass(frozen=True)
class RayDedupResult:
    """What ``lookalike.ray.dedup`` returns: ``dataset`` (one row per input document, in input
    order: ``id``, ``cluster``, ``status``, ``kept_id``, ``similarity``, ``match``, ``reason``),
    ``pairs`` (``id1``, ``id2``, ``similarity``, ``match``) and ``stats``."""

    dataset: Any
    pairs: Any
    stats: dict[str, Any] = field(default_factory=dict)


def _settings(threshold, keep, cluster, options) -> dict[str, Any]:
    return dict(threshold=threshold, keep=keep, cluster=cluster, **options)


def _block_rows(block: pa.Table) -> int:
    return block.num_rows


def _with_index(block: pa.Table, offset: int) -> pa.Table:
    index = pa.array(range(offset, offset + block.num_rows), type=pa.int64())
    return block.append_column(INDEX, index)


def _sketch(table: pa.Table, text: str, settings: dict[str, Any]) -> pa.Table:
    batches = [
        _lookalike.sketch_bands(b, text, INDEX, **settings)
        for b in table.to_batches()
        if b.num_rows
    ]
    if not batches:
        return _empty_sketch(settings)
    return pa.Table.from_batches(batches)


def _empty_sketch(settings: dict[str, Any]) -> pa.Table:
    empty = pa.RecordBatch.from_pydict(
        {"text": pa.array([], pa.string()), INDEX: pa.array([], pa.int64())}
    )
    return pa.Table.from_batches([_lookalike.sketch_bands(empty, "text", INDEX, **settings)])


def _bucket(table: pa.Table, settings: dict[str, Any]) -> pa.Table:
    # One call over the whole block: every key's rows are in it after the hash repartition. Ray
    # (2.60: `disallow_block_splitting=True` in its hash-repartition plan) emits each partition
    # as one block, and `batch_size=None` hands a whole block to one call.
    batch = table.combine_chunks().to_batches()
    if not batch:
        table = _empty_sketch(settings)
        batch = table.to_batches() or [pa.RecordBatch.from_pylist([], schema=table.schema)]
    return pa.Table.from_batches([_lookalike.bucket_edges(batch[0], **settings)])


def _components(edges, ids, n: int, id: str | None, settings: dict[str, Any]):
    """The one clustering task: streams the edges and the ids into Rust."""
    comps = _lookalike.Components(n, **settings)
    for table in edges.iter_batches(batch_format="pyarrow", batch_size=None):
        for b in table.to_batches():
            comps.add_edges(b)
    for table in ids.iter_batches(batch_format="pyarrow", batch_size=None):
        if id is None:
            table = table.append_column("id", pa.compute.cast(table[INDEX], pa.string()))
        for b in table.to_batches():
            comps.add_ids(b, id or "id", INDEX)
    return comps.finish()


def dedup(
    ds: Any,
    text: str = "text",
    id: str | None = "id",
    method: str = "minhash",
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    num_partitions: int | None = None,
    union_find_memory: int | None = None,
    **options: Any,
) -> RayDedupResult:
    """Deduplicate a ``ray.data.Dataset`` with MinHash/LSH and exact verification on Ray.

    ``text`` and ``id`` name the columns (strings; ``id=None``: the row positions).
    ``threshold``, ``keep`` (``"first"``, ``"longest"``), ``cluster`` (``"center"``,
    ``"clique"``) and ``**options`` (``num_perm``, ``bands``/``rows``, ``shingle``, ``seed``,
    ``cjk``, ``max_pairs_per_group``, ``fp_weight``/``fn_weight``, ``minhash``) are those of
    ``lookalike.dedup`` and the CLI. ``num_partitions``: blocks of the hash shuffle (default:
    the dataset's block count, at least 1). ``union_find_memory``: bytes to reserve for the
    clustering task (Ray's ``memory`` resource), so that it lands on a node that has them.

    Raises ``ValueError`` for settings it cannot run (another method, containment, estimate
    verification, ``cluster="connected"``) or a missing column, ``TypeError`` for a column of
    another type.
    """
    import ray

    if method != "minhash":
        raise ValueError(
            f"lookalike.ray.dedup runs MinHash only, not {method!r} (lookalike.dedup runs every method)"
        )
    settings = _settings(threshold, keep, cluster, options)
    # Settings first: a bad option fails here, before any task runs.
    _lookalike.Components(0, **settings)
    names = ds.schema().names
    for col, what in ((text, "text"), (id, "id")):
        if col is not None and col not in names:
            raise ValueError(f"no {what} column {col!r}: the columns are {', '.join(names)}")

    ctx = ray.data.DataContext.get_current()
    preserve = ctx.execution_options.preserve_order
    ctx.execution_options.preserve_order = True
    try:
        # Global input positions: block row counts, then offsets (no data to the driver).
        refs = ds.to_arrow_refs()
        counts = ray.get([ray.remote(_block_rows).remote(r) for r in refs])
        offsets, total = [], 0
        for c in counts:
            offsets.append(total)
            total += c
        add_index = ray.remote(_with_index)
        indexed = ray.data.from_arrow_refs(
            [add_index.remote(r, o) for r, o in zip(refs, offsets)]
        )
        partitions = num_partitions or max(1, len(refs))

        rows = indexed.select_columns([text, INDEX]).map_batches(
            _sketch, batch_format="pyarrow", fn_kwargs=dict(text=text, settings=settings)
        )
        shuffled = rows.repartition(partitions, keys=["key"])
        edges = shuffled.map_batches(
            _bucket, batch_format="pyarrow", batch_size=None, fn_kwargs=dict(settings=settings)
        ).materialize()
        ids = indexed.select_columns([c for c in (id, INDEX) if c is not None])
        task = ray.remote(_components)
        if union_find_memory:
            task = task.options(memory=union_find_memory)
        table, pairs, stats = ray.get(task.remote(edges, ids, total, id, settings))
    finally:
        ctx.execution_options.preserve_order = preserve
    return RayDedupResult(
        dataset=ray.data.from_arrow(table),
        pairs=ray.data.from_arrow(pairs),
        stats=json.loads(stats),
    )
