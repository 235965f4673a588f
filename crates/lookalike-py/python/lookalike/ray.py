"""Deduplication of a ``ray.data.Dataset`` (MinHash, super-shingles, SimHash, combined, long
sentences, partitioned fingerprints, exact, I-Match, I-Match-rand, TF*RIDF, reference words,
MOD-m, MIN-s, Broder, SpotSigs), with Rust kernels doing the work.

The job, stage by stage (the kernels are in ``crates/lookalike-py/src/kernels/``, one file per
stage)::

    ds ─► number ─► map_batches(sketch_keys) ─► repartition(keys=["key"]) ─► map_batches(bucket_edges)
      (global        (per document: one exact row,      (hash shuffle of keys      (exact groups and
       input order)   one row per band; keys only)        only: ~1 KB/document)      candidate pairs)

       ─► verification (the pairs join the shingle sets) ─► clustering (the driver, or one actor)

Before the sketch, the methods that sign with statistics of the input itself (I-Match,
I-Match-rand and TF*RIDF without a lexicon file, SimHash and combined with ``weights="tfidf"``,
reference words without a lexicon file's words) run a statistics stage of plain Ray tasks
(``_statistics``, no Ray Data execution): a task per document block counts its documents'
statistics (``statistics_partial``: the library's ``StatisticsPass``, document and collection
frequencies, or for reference words each document's relative term frequencies, as mergeable
bytes) and returns their 128-bit text fingerprints; the driver names the documents whose text
was counted before (``statistics_repeats``), a task per block that has some counts those again,
and the driver merges the counts minus theirs (``statistics_merge``): each distinct text with
shingles counted once, as the library counts its heads. The merged counts go to every
``sketch_keys`` call, which signs each document with them as the library signs it after its
statistics pass (reference words: the words are chosen from them, as the library chooses them
from its heads, once per worker process, and each signed document is keyed by its signature).

Below the size bounds (``TASK_SHUFFLE_DOCUMENTS`` and ``TASK_SHUFFLE_PIECES``, ``VERIFY_TASK_DOCUMENTS``) the job runs one
Ray Data execution (``ds`` itself); the other steps are Ray tasks over the blocks' object
references, or run on the driver.

* ``number``: every row gets its global input position (block row counts, then offsets), so
  ``keep="first"`` and every tie are decided as the CLI decides them. A task per block numbers
  its ids; every task that reads a block's texts gets the block as read and its offset, and
  numbers its documents itself: no numbered copy of the texts is made.
* ``sketch_keys`` (``map_batches``): normalization, shingles and the method's keys of each
  document; it emits only (key, band, document, text fingerprint, value) rows of 44 bytes: the
  keys are the library's (MinHash's LSH band keys, super-shingles, and for SimHash, combined,
  long sentences and partitioned fingerprints those of ``lookalike::method::DocKeyer``:
  SimHash's permuted-table keys with the 64-bit fingerprint beside them), so the buckets are
  the CLI's. No shingle set enters the shuffle.
* ``repartition(num_partitions, keys=["key"])``: Ray's hash shuffle, never ``map_groups``.
* ``bucket_edges`` (``map_batches`` over whole blocks): each exact group's head, and the
  candidate pairs between the heads of a bucket's distinct texts (the library's listing rule;
  SimHash and combined keep the pairs within their Hamming distance k).
* MOD-m, MIN-s and Broder (``lookalike::method::SampleRule``): the keys are each document's
  sampled shingles (its sample size beside them); ``bucket_edges`` gives, per sampled shingle of
  at most L heads, one shared sample per pair of heads (summed per pair over the block), and for
  a frequent shingle (more than L heads) a frequent count per head and its list of heads; each
  exact bucket gives its head's sample size. ``sampled_split`` cuts each bucket block's rows
  into the head rows (sample sizes, frequent counts) and, per counting partition, the rows of
  the pairs whose first head falls to it and of the frequent shingles whose key falls to it; a
  task per partition (``_sampled``) takes the head rows of every block and its own rows of every
  block and applies the library's rule (``sampled_candidates``): the pairs whose shared
  count reaches the threshold over the smaller (discounted) sample, and the pairs of the groups
  of saturated heads sharing a frequent shingle — the candidates of the CLI's Broder sort with
  its sorted groups, verified as the other methods' candidates. MOD-m's short documents (a
  sample of fewer than ``SHORT_PART_BELOW`` elements) also key their short part (their smallest
  other shingle hashes) in band 1, counted apart from the samples, as the CLI's second sort
  counts them. SpotSigs takes the same path:
  the keys are each document's spots (the row's ``len`` is the spot's count, ``sim`` the
  multiset size), a bucket gives each pair of heads whose sizes allow the threshold
  (``SpotSigs::may_pair``: the smaller's every spot shared would reach it) the smaller of their
  counts, and
  ``sampled_candidates`` keeps the pairs whose summed Σmin gives a weighted Jaccard at or above
  the threshold: exactly the pairs of the library's spot index.
* Verification (``_verify``): a task per bucket block lists its distinct candidate pairs, each
  bound for the verification partition of its first document (a table per partition, so that a
  partition's task fetches its own pairs only), and the requests for their documents
  (``candidate_pairs``); the driver gathers the requests (16 bytes each). When at most
  ``VERIFY_TASK_DOCUMENTS`` documents per partition are requested, it splits them by document
  block: a task per block computes each of its requested documents' shingle set once, where the
  text is (the library's normalization and shingles; with ``verify="estimate"`` the text itself),
  and sends it to every partition that asked for it (``route_payloads``; on a cluster of one
  node, whose tasks share one object store, once to each group of ``SHARED_PARTITIONS``
  partitions that asked for it, whose tasks read it where it is); a task per partition
  keeps the pairs whose exact Jaccard (with ``measure="containment"``: the larger containment, its
  direction on the edge; with ``verify="estimate"`` the method's estimate that it accepts) reaches
  the threshold (``verify_pairs``). No set is computed twice, and only estimate verification moves
  texts. Above the bound, the same join in Ray Data: the requested documents (marked in a bitmap,
  n/8 bytes) give their sets (``payloads_for_requests``), which meet their requests in a
  ``repartition(keys=["doc"])`` and go once to every partition that asked for them
  (``route_texts``); after a ``repartition(keys=["dest"])``, ``verify_pairs`` runs on each
  partition.
* Clustering (``Components``): the edges streamed into one Rust object (4 bytes per document, 8
  with ``keep="longest"``, plus the near edges and the ids), clustered with the library's cluster
  modes: on the driver, which receives the result table in any case, when there are at most
  ``DRIVER_EDGES`` near edges and no ``union_find_memory`` was asked for; otherwise in a Ray
  actor. ``connected`` and ``center-refine`` can put a member with a representative it has no
  verified pair with: the clustering asks for those similarities, which the same verification
  computes (exact, whatever the threshold). With containment a member's similarity is its
  containment in its representative, which its verified edge (the larger containment) does not
  give: every member's is asked for.
* ``components="distributed"`` (or ``"auto"`` above ``DISTRIBUTED_EDGES`` near edges), with
  ``cluster="connected"``: the components come from ``connected_components`` (large-star and
  small-star rounds on Ray Datasets) instead of the clustering's union-find.

With ``stream=True`` the input is not kept: ``_Stream`` executes ``ds`` again for each pass over
it (``iter_internal_ref_bundles``, in input order), numbers each block from the row counts of the
blocks before it, and hands it to the pass's task (``_sketch_split``, which also numbers its ids,
in the first pass; ``_payloads`` for the blocks holding a requested document in the verification's;
``_count`` and ``_recount`` in a statistics stage's), holding back (``_Window``) while two of
the pass's tasks per CPU wait or run, so that the read goes only as fast as the job uses it
and no block outlives its task. The verification's payloads are then computed in tasks whatever
the size (Ray Data's join needs the numbered blocks in the object store). Both shuffles split
each block's output by partition in its task while within their bounds; from the block that
takes one past them (``TASK_SHUFFLE_PIECES`` pieces; the key shuffle also
``TASK_SHUFFLE_DOCUMENTS``), each later block's output goes whole, with the pieces before, to
a Ray Data repartition (so the driver holds at most ``TASK_SHUFFLE_PIECES`` pieces and a
reference per later block). A pass that counts other rows than the first raises
``ValueError``.

The result is a ``RayDedupResult``: ``dataset`` (one row per document, the columns of
``lookalike.dedup``), ``pairs`` (a Dataset of verified pairs) and ``stats``. Same documents, same
order and settings: the same clusters and pairs as ``lookalike dedup --method M`` and
``lookalike.dedup``, whatever ``num_partitions``, for every ``keep`` and ``cluster``.

Verification is exact (Jaccard, or containment with the methods that reach it: MOD-m, Broder
with a MOD-m sample, exact) or, with ``verify="estimate"``, the method's own estimate and
decision, computed from the texts of each pair's documents as they meet in the verification
(``lookalike::method::estimate_pairs``, with the statistics stage's counts).

Limits: settings refused with a ``ValueError`` naming the reason: partitioned fingerprints whose
C(lists, k) subset keys exceed 4096 per document, and reference words with
``refwords_distance`` above 0 (signatures within a Hamming distance are found over the whole
collection's signatures) or with ``verify="estimate"``. Reference words' statistics are every
distinct text's relative term frequencies (12 bytes per distinct term of a document, sent to the
driver and, merged, to every sketch task), and each sketch worker process chooses the words from
them (the CLI's selection, in its memory).
MOD-m, MIN-s and Broder count the shared samples of each pair in its counting partition's
task (``_sampled``): a partition's pairs sharing a non-frequent sampled shingle (at most
L(L−1)/2 per shingle, summed per bucket block; 12 bytes a pair in Rust) must fit its memory,
where the CLI's external sort spills them to disk; every task also reads every head's sample
size and frequent counts (about 40 bytes a head). SpotSigs lists every pair of documents sharing a spot whose sizes allow the
threshold (no other bound: a spot in many documents of similar sizes costs the square of their
number), where the library's index also prunes by document frequency. A lexicon file (``lexicon=``) must be readable on every node. The statistics
stage sends the driver 24 bytes per document with shingles (text fingerprint and position) and
each block's counts (20 bytes per distinct term of the block): the merged counts (20 bytes per
distinct term or SimHash feature of the collection) go to every sketch task, and each
``sketch_keys`` call (one per batch of a block) parses them and builds their lookup table: with
SimHash's shingle features (a feature per distinct shingle of the collection) that is the
stage's main cost (on the 400-document test corpus, debug build, 2 CPUs: 3.1 s against 0.6 s
with tf weights). Partitioned fingerprints
with k > 1 shuffle one 64-bit key per k-subset of a document's list fingerprints: equal to the
library's candidates up to 64-bit hash collisions. The ids, the per-document state and the near edges must fit the memory of
the clustering (the driver, or one actor), also with ``components="distributed"``, which removes the union-find
and the graph from it but not the pair listing (see ``bench/results/scaling-model-2026-11-24.md``).
A local Ray with ``num_cpus=1`` works: 100,000 documents read with ``lookalike.ray.read`` cost
1.44× the CLI's CPU, 10^6 documents 1.55× (``bench/results/ray-read-tasks-2026-11-29.md``).
Every task sizes rayon's pool (the kernels' threads) to the CPUs Ray gave it, unless
``RAYON_NUM_THREADS`` is set (``lookalike._tasks``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from . import _lookalike
from . import _tasks
from ._tasks import _in_task

__all__ = [
    "RayDedupResult",
    "dedup",
    "read",
    "connected_components",
    "INDEX",
    "DISTRIBUTED_EDGES",
    "DRIVER_EDGES",
    "TASK_SHUFFLE_DOCUMENTS",
    "TASK_SHUFFLE_PIECES",
    "VERIFY_TASK_DOCUMENTS",
    "STREAM_READ_AHEAD",
    "SHARED_PARTITIONS",
]

#: The column holding each row's global input position while the job runs.
INDEX = "__lookalike_index"

#: With ``components="auto"`` and ``cluster="connected"``, more near edges than this are
#: clustered by the distributed connected components instead of the one task's union-find
#: (10^8 edges: ~8 GB of graph in one task, see ``bench/results/scaling-model-2026-11-24.md``).
DISTRIBUTED_EDGES = 100_000_000


@dataclass(frozen=True)
class RayDedupResult:
    """What ``lookalike.ray.dedup`` returns: ``dataset`` (one row per input document, in input
    order: ``id``, ``cluster``, ``status``, ``kept_id``, ``similarity``, ``match``, ``reason``),
    ``pairs`` (``id1``, ``id2``, ``similarity``, ``match``) and ``stats``."""

    dataset: Any
    pairs: Any
    stats: dict[str, Any] = field(default_factory=dict)


def _settings(method, threshold, keep, cluster, options) -> dict[str, Any]:
    return dict(method=method, threshold=threshold, keep=keep, cluster=cluster, **options)


def _rows(block: Any, piece: tuple[int, int] | None) -> pa.Table:
    """A block as a pyarrow Table (Ray Data's blocks may be pandas frames), only its rows
    ``piece`` (start, end) when a streamed bundle holds a slice of it."""
    if not isinstance(block, pa.Table):
        from ray.data.block import BlockAccessor

        block = BlockAccessor.for_block(block).to_arrow()
    if piece is not None:
        block = block.slice(piece[0], piece[1] - piece[0])
    return block


def _number(block: pa.Table, offset: int, id: str | None, piece: tuple[int, int] | None = None) -> pa.Table:
    """A block's ids numbered from ``offset`` (``id``, ``INDEX``; with ``id=None`` the positions
    as strings, in a column ``id``)."""
    block = _rows(block, piece)
    index = pa.array(range(offset, offset + block.num_rows), type=pa.int64())
    if id is None:
        return pa.table({"id": pa.compute.cast(index, pa.string()), INDEX: index})
    return pa.table({id: block[id], INDEX: index})


@dataclass(frozen=True)
class _Block:
    """A block of the input (an object reference of its table, as read) and the global position
    of its first row: the tasks number its documents themselves, so that no numbered copy of
    the texts is made."""

    ref: Any
    offset: int
    #: Its row count.
    rows: int
    #: The rows (start, end) of the block that belong to the input, when a streamed bundle holds
    #: a slice of it (None: the whole block).
    piece: tuple[int, int] | None = None


def _documents(block: pa.Table, offset: int, text: str, piece: tuple[int, int] | None = None) -> pa.Table:
    """A block's documents numbered from ``offset``: ``text`` and ``INDEX`` (the block's own text
    column, not a copy)."""
    block = _rows(block, piece)
    index = pa.array(range(offset, offset + block.num_rows), type=pa.int64())
    return pa.table({text: block[text], INDEX: index})


def _numbered(blocks: list[_Block], text: str) -> list:
    """The blocks' documents (``_documents``) as object references, for Ray Data's shuffles."""
    import ray

    number = ray.remote(_documents)
    return [number.remote(b.ref, b.offset, text, b.piece) for b in blocks]


class _Window:
    """At most ``limit`` tasks in flight (None: no bound): ``add`` waits for the oldest ones to
    end past it, so that a streamed input's blocks are read only as fast as the job uses them."""

    def __init__(self, limit: int | None) -> None:
        self.limit, self.refs = limit, []

    def add(self, ref: Any) -> None:
        import ray

        if self.limit is None:
            return
        self.refs.append(ref)
        if len(self.refs) >= self.limit:
            _, self.refs = ray.wait(self.refs, num_returns=len(self.refs) - self.limit + 1, fetch_local=False)


class _Materialized:
    """The input's blocks, in the object store for the whole job (``stream=False``)."""

    #: Tasks that read blocks are not held back: the blocks are in memory already.
    window: int | None = None
    streamed = False

    def __init__(self, blocks: list[_Block]) -> None:
        self.list = blocks

    def blocks(self) -> Iterator[_Block]:
        return iter(self.list)

    def rows(self) -> list[int]:
        """Each block's row count."""
        return [b.rows for b in self.list]


class _Stream:
    """The input as a Dataset executed again for each pass over it (``stream=True``): its blocks
    in input order, each numbered from the rows before it (the bundles' row counts), none kept
    after the pass. ``window``: the most tasks reading its blocks at once; ``read_ahead``: the
    bytes of blocks Ray Data may read ahead of them (``_read_ahead``). The first pass checks
    the columns and counts the rows of each block; every later pass must give the same counts
    (the job sets the dataset to execute in input order, ``_in_order``)."""

    streamed = True

    def __init__(self, ds: Any, columns: list[tuple[str | None, str]], window: int, read_ahead: float) -> None:
        self.ds, self.columns, self.window, self.read_ahead = ds, columns, window, read_ahead
        #: The first pass's row count of each block, which every later pass must give again
        #: (None until the first pass has ended).
        self.shape: list[int] | None = None
        self.checked = False

    def rows(self) -> list[int]:
        """Each block's row count, as the first pass read them (none before it has ended)."""
        return list(self.shape or [])

    @property
    def total(self) -> int | None:
        """The input's row count, once the first pass has ended."""
        return None if self.shape is None else sum(self.shape)

    def _check(self, names: list[str]) -> None:
        # An empty block may have no columns (a filter that kept nothing): the first block with
        # columns names them.
        if not names:
            return
        for col, what in self.columns:
            if col is not None and col not in names:
                raise ValueError(f"no {what} column {col!r}: the columns are {', '.join(names)}")
        self.checked = True

    def blocks(self) -> Iterator[_Block]:
        with _read_ahead(self.ds, self.read_ahead):
            yield from self._blocks()

    def _blocks(self) -> Iterator[_Block]:
        offset, shape = 0, []
        for bundle in self.ds.iter_internal_ref_bundles():
            if not self.checked and bundle.schema is not None:
                self._check(list(bundle.schema.names))
            for entry, piece in zip(bundle.blocks, bundle.slices):
                if piece is not None:
                    rows, part = piece.end_offset - piece.start_offset, (piece.start_offset, piece.end_offset)
                else:
                    rows, part = entry.metadata.num_rows, None
                if self.shape is not None and self.shape[len(shape) : len(shape) + 1] != [rows]:
                    self._changed(offset + rows)
                shape.append(rows)
                yield _Block(entry.ref, offset, rows, part)
                offset += rows
        if self.shape is None:
            self.shape = shape
            if not self.checked and offset == 0:
                schema = self.ds.schema()
                if schema is not None:
                    self._check(list(schema.names))
        elif shape != self.shape:
            self._changed(offset)

    def _changed(self, rows: int) -> None:
        raise ValueError(
            f"stream=True read the dataset again and its blocks changed (at least {rows} rows where its "
            f"first read gave {self.total} in {len(self.shape or [])} blocks of other sizes): a streamed dataset "
            "must give the same rows in the same order each time it is read (materialize it, or use "
            "stream=False)"
        )


#: ``stream=True``: the bytes of blocks per CPU of the cluster that Ray Data may hold in the
#: object store ahead of the job's tasks during a pass (its ``resource_limits``). Without it, a
#: pass's first moments sometimes read 1.4 GB ahead at 1 CPU, and Plasma's pages stay resident
#: once written (``bench/results/ray-stream-bounds-2026-11-29.md``).
STREAM_READ_AHEAD = 256 * 2**20


@contextlib.contextmanager
def _executing(ds: Any, change: Any) -> Iterator[None]:
    """``ds`` executed with its execution options changed by ``change(options)`` while the
    context is open, then put back. A Dataset executes with the DataContext it was created with
    (``ds.context``), not the current one, so the job's settings go on that one (an object
    without a context, such as a test's stand-in, is left as it is)."""
    options = ds.context.execution_options if hasattr(ds, "context") else None
    if options is None:
        yield
        return
    kept = (options.preserve_order, options.resource_limits)
    change(options)
    try:
        yield
    finally:
        options.preserve_order, options.resource_limits = kept


def _read_ahead(ds: Any, budget: float) -> contextlib.AbstractContextManager[None]:
    """``ds`` executed with at most ``budget`` bytes of blocks in the object store ahead of its
    consumer (a lower limit the caller set is kept), while the context is open."""

    def change(options: Any) -> None:
        limits = options.resource_limits
        options.resource_limits = limits.copy(object_store_memory=min(limits.object_store_memory, budget))

    return _executing(ds, change)


def _shape(block: pa.Table) -> tuple[int, list[str]]:
    """A block's row count and column names."""
    return block.num_rows, block.column_names


def _one_batch(table: pa.Table, schema: pa.Schema) -> pa.RecordBatch:
    """A whole block as one batch (an empty block as an empty batch of ``schema``)."""
    if table.num_rows == 0:
        return pa.RecordBatch.from_pylist([], schema=schema)
    return table.combine_chunks().to_batches()[0]


_INPUT = pa.schema([("text", pa.string()), (INDEX, pa.int64())])
#: A pair (``a``, ``b``) or a text bound for verification partition ``dest``.
_JOIN = pa.schema(
    [
        ("dest", pa.int64()),
        ("a", pa.int64()),
        ("b", pa.int64()),
        ("text", pa.large_string()),
        ("set", pa.large_list(pa.uint64())),
    ]
)
#: A request for a document (``dest``), or its payload (``dest`` -1): its shingle set, or with
#: ``verify="estimate"`` its text.
_REQUEST = pa.schema(
    [("doc", pa.int64()), ("dest", pa.int64()), ("text", pa.large_string()), ("set", pa.large_list(pa.uint64()))]
)
_PAIRS = pa.schema([("a", pa.int64()), ("b", pa.int64())])


@_in_task
def _count(
    block: pa.Table, offset: int, text: str, settings: dict[str, Any], piece: tuple[int, int] | None = None
) -> tuple[bytes, pa.Table]:
    """The statistics stage over one block (its first row at ``offset``): the counts of its
    documents (bytes) and their text fingerprints (``fp_hi``, ``fp_lo``, ``doc``)."""
    return _count_documents(_documents(block, offset, text, piece), text, settings)


def _count_documents(table: pa.Table, text: str, settings: dict[str, Any]) -> tuple[bytes, pa.Table]:
    if table.num_rows == 0:
        table, text = pa.table({}), "text"
    counts, fingerprints = _lookalike.statistics_partial(_one_batch(table, _INPUT), text, INDEX, **settings)
    return counts, pa.Table.from_batches([fingerprints])


@_in_task
def _recount(
    block: pa.Table, offset: int, text: str, settings: dict[str, Any], repeats: pa.Table,
    piece: tuple[int, int] | None = None,
) -> bytes:
    """The counts of a block's documents named in ``repeats`` (``doc``): texts counted before."""
    table = _documents(block, offset, text, piece)
    table = table.filter(pa.compute.is_in(table[INDEX], value_set=repeats["doc"]))
    return _count_documents(table, text, settings)[0]


def _statistics(source: _Materialized | _Stream, text: str, settings: dict[str, Any]) -> bytes:
    """The statistics stage: the collection statistics of a method that signs with them (as
    bytes for ``sketch_keys``), each distinct text with shingles counted once, as the library
    counts its heads. A task per block counts its documents; the driver gets their text
    fingerprints (24 bytes per document) and names the documents whose text was counted before;
    a task per block that has some counts them again, and the driver merges the counts minus
    those (``kernels/statistics.rs``). Plain Ray tasks: no Ray Data execution (a streamed input
    is read once, and once more for the blocks that hold repeats)."""
    import numpy as np
    import ray

    count = ray.remote(_count).options(num_returns=2)
    window = _Window(source.window)
    parts = []
    for b in source.blocks():
        parts.append(count.remote(b.ref, b.offset, text, settings, b.piece))
        window.add(parts[-1][1])
    fingerprints = ray.get([f for _, f in parts])
    repeats = _lookalike.statistics_repeats([_one_batch(f, f.schema) for f in fingerprints])
    del fingerprints
    # The repeated documents by input position, each block's share found from its rows.
    docs = np.sort(np.concatenate([r.column("doc").to_numpy() for r in repeats] or [np.zeros(0, np.int64)]))
    recount = ray.remote(_recount)
    corrections = []
    if len(docs):
        for b in source.blocks():
            lo, hi = np.searchsorted(docs, [b.offset, b.offset + b.rows])
            if hi > lo:
                mine = pa.table({"doc": pa.array(docs[lo:hi], pa.int64())})
                corrections.append(recount.remote(b.ref, b.offset, text, settings, mine, b.piece))
                window.add(corrections[-1])
    return _lookalike.statistics_merge(ray.get([c for c, _ in parts]), ray.get(corrections))


@_in_task
def _sketch(
    table: pa.Table, text: str, documents: int, settings: dict[str, Any], statistics: bytes | None = None
) -> pa.Table:
    batches = [
        _lookalike.sketch_keys(b, text, INDEX, documents=documents, statistics=statistics, **settings)
        for b in table.to_batches()
        if b.num_rows
    ]
    if not batches:
        batches = [_lookalike.sketch_keys(_one_batch(pa.table({}), _INPUT), "text", INDEX, **settings)]
    return pa.Table.from_batches(batches)


@_in_task
def _bucket(table: pa.Table, settings: dict[str, Any]) -> pa.Table:
    # One call over the whole block: every key's rows are in it after the hash repartition. Ray
    # (2.60: `disallow_block_splitting=True` in its hash-repartition plan) emits each partition
    # as one block, and `batch_size=None` hands a whole block to one call.
    empty = _lookalike.sketch_keys(_one_batch(pa.table({}), _INPUT), "text", INDEX, **settings)
    return pa.Table.from_batches([_lookalike.bucket_edges(_one_batch(table, empty.schema), **settings)])


def _spread(keys, partitions: int):
    """The partition of each uint64 key (a numpy array) among ``partitions``: splitmix64's
    finaliser, then the remainder."""
    import numpy as np

    with np.errstate(over="ignore"):
        x = keys.astype(np.uint64, copy=True)
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    return (x % np.uint64(partitions)).astype(np.int64)


@_in_task
def _sketch_split(
    block: pa.Table, offset: int, text: str, documents: int, settings: dict[str, Any], partitions: int,
    statistics: bytes | None = None, piece: tuple[int, int] | None = None, ids: tuple[str | None] | None = None,
):
    """A block's key rows (its first row at ``offset``) split by key among ``partitions`` (a
    tuple of tables; one table when ``partitions`` is 1): all rows of a key in the same
    partition, whatever the block. ``ids=(id,)``: the block's ids numbered (``_number``) follow
    the pieces (a streamed block is read by this one task of the pass)."""
    import numpy as np

    rows = _sketch(_documents(block, offset, text, piece), text, documents, settings, statistics)
    if partitions == 1:
        parts: tuple[pa.Table, ...] = (rows,)
    else:
        part = _spread(rows["key"].to_numpy(), partitions)
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(partitions + 1))
        parts = tuple(rows.take(order[bounds[p] : bounds[p + 1]]) for p in range(partitions))
    if ids is not None:
        parts = (*parts, _number(block, offset, ids[0], piece))
    return parts[0] if len(parts) == 1 else parts


@_in_task
def _bucket_parts(settings: dict[str, Any], *parts: pa.Table) -> pa.Table:
    """The buckets of one partition, from its pieces of every block."""
    return _bucket(pa.concat_tables(parts) if parts else pa.table({}), settings)


#: The key shuffle runs as Ray tasks (a task per block splits its key rows among the partitions,
#: a task per partition takes its pieces: blocks × partitions objects, ~0.9 KB of key rows per
#: document at MinHash's defaults in the object store at once, spilled to disk past its size)
#: when there are at most this many documents and at most ``TASK_SHUFFLE_PIECES`` pieces; above
#: either, in Ray Data's hash ``repartition``. At 2×10^6 documents (80 blocks × 16 partitions,
#: 1 CPU) the tasks cost 166 CPU s and peaked at 16.3 GB where Ray Data's repartition cost 199 CPU
#: s and 17.1 GB (``bench/results/ray-read-tasks-2026-11-29.md``). Past that size the bounds are
#: set from the sizes, not from a run: 9 GB of key rows at 10^7 documents, and the driver
#: holding 10^5 object references.
TASK_SHUFFLE_DOCUMENTS = 10_000_000
#: See ``TASK_SHUFFLE_DOCUMENTS``: the most pieces (blocks × partitions) of a key shuffle in tasks.
TASK_SHUFFLE_PIECES = 100_000


def _task_shuffle(documents: int, blocks: int, partitions: int) -> bool:
    """Whether the key shuffle of ``documents`` in ``blocks`` blocks runs as Ray tasks (else in
    Ray Data's repartition)."""
    return documents <= TASK_SHUFFLE_DOCUMENTS and blocks * partitions <= TASK_SHUFFLE_PIECES


def _keys_and_buckets(
    source: _Materialized | _Stream, total: int, text: str, partitions: int, settings: dict[str, Any],
    statistics: bytes | None = None, say: Any = None, ids: tuple[str | None] | None = None,
) -> tuple[list[Any], list[Any]]:
    """The sketch, the key shuffle and the buckets: object references of the bucket tables, one
    per partition, and of the blocks' numbered ids when asked for (``ids=(id,)``: a streamed
    input numbers them in its sketch tasks, where the block is read; else an empty list).
    ``total``: the collection's size where the keying needs it
    (``keys_need_count``). ``statistics``: the statistics stage's counts, for the methods that
    have one. ``say``: the job's progress, told how many blocks are sketched while the tasks run.
    A streamed input starts with the shuffle in tasks (its size is not known before its end);
    from the block that takes it past the bounds (``_task_shuffle``), the rest of its key rows go
    whole, with the pieces of the blocks before, to Ray Data's repartition."""
    import ray

    if source.streamed or _task_shuffle(total, len(source.list), partitions):
        more = 0 if ids is None else 1
        split = ray.remote(_sketch_split).options(num_returns=partitions + more)
        whole = ray.remote(_sketch_split).options(num_returns=1 + more)
        stats = ray.put(statistics) if statistics is not None else None
        window = _Window(source.window)
        # A block's key rows split among the partitions while the shuffle is within the task
        # shuffle's bounds; past them (a streamed input only: its size is known at its end), each
        # later block's rows whole, and Ray Data's repartition takes them with the pieces.
        pieces: list[list[Any]] = []
        rest: list[Any] = []
        numbered: list[Any] = []
        told = time.monotonic()
        for b in source.blocks():
            if not rest and _task_shuffle(b.offset + b.rows, len(pieces) + 1, partitions):
                out = split.remote(b.ref, b.offset, text, total, settings, partitions, stats, b.piece, ids)
                out = [out] if partitions + more == 1 else list(out)
                pieces.append(out[:partitions])
            else:
                out = whole.remote(b.ref, b.offset, text, total, settings, 1, stats, b.piece, ids)
                out = [out] if more == 0 else list(out)
                rest.append(out[0])
            if more:
                numbered.append(out[-1])
            window.add(out[0])
            if say is not None and source.streamed and time.monotonic() - told >= _tasks.PROGRESS_SECONDS:
                say(f"{len(pieces) + len(rest)} blocks read ({b.offset + b.rows} documents)")
                told = time.monotonic()
        if rest:
            if say is not None:
                say(f"{len(pieces) + len(rest)} blocks × {partitions} partitions, {source.total} documents: past "
                    f"the key shuffle's bounds in tasks ({TASK_SHUFFLE_PIECES} pieces, {TASK_SHUFFLE_DOCUMENTS} "
                    f"documents), the keys of the last {len(rest)} go through Ray Data's repartition, with the "
                    "pieces of the others")
            return _repartitioned([p for ps in pieces for p in ps] + rest, partitions, settings), numbered
        bucket = ray.remote(_bucket_parts)
        buckets = [bucket.remote(settings, *[p[i] for p in pieces]) for i in range(partitions)]
        if say is not None:
            _wait([p[0] for p in pieces], say, "blocks sketched")
        return buckets, numbered
    keys = ray.data.from_arrow_refs(_numbered(source.list, text)).map_batches(
        _sketch,
        batch_format="pyarrow",
        fn_kwargs=dict(text=text, documents=total, settings=settings, statistics=statistics),
    )
    return _repartitioned(keys, partitions, settings), []


def _repartitioned(keys: Any, partitions: int, settings: dict[str, Any]) -> list[Any]:
    """The buckets of key rows (a Dataset, or object references of key tables) by Ray Data's
    hash ``repartition`` on the key: object references of the bucket tables, one per
    partition."""
    import ray

    if isinstance(keys, list):
        keys = ray.data.from_arrow_refs(keys)
    return (
        keys.repartition(partitions, keys=["key"])
        .map_batches(_bucket, batch_format="pyarrow", batch_size=None, fn_kwargs=dict(settings=settings))
        .to_arrow_refs()
    )


@_in_task
def _sampled_split(table: pa.Table, partitions: int) -> tuple[pa.Table, ...]:
    """A bucket block's counting rows: the head rows every counting task needs, then one table
    per counting partition (its pairs' shared samples, its frequent shingles' lists)."""
    parts = _lookalike.sampled_split(_one_batch(table, table.schema), partitions)
    return tuple(pa.Table.from_batches([b]) for b in parts)


@_in_task
def _sampled(settings: dict[str, Any], *tables: pa.Table) -> pa.Table:
    """MOD-m, MIN-s, Broder and SpotSigs: one counting partition's candidate pairs, from the
    head rows of every bucket block and the partition's rows of every block, by the library's
    rule."""
    batches = [_one_batch(t, t.schema) for t in tables if t.num_rows]
    return pa.Table.from_batches([_lookalike.sampled_candidates(batches, **settings)])


def _counted(buckets: list, partitions: int, settings: dict[str, Any]) -> list:
    """The counting methods' candidate tables, one per partition (``partitions`` tasks, each
    with the head rows of every bucket block and its own share of the pairs and lists)."""
    import ray

    split = ray.remote(_sampled_split).options(num_returns=partitions + 1)
    pieces = [split.remote(b, partitions) for b in buckets]
    heads = [p[0] for p in pieces]
    sampled = ray.remote(_sampled)
    return [sampled.remote(settings, *heads, *[p[1 + i] for p in pieces]) for i in range(partitions)]


@_in_task
def _candidates(table: pa.Table, partitions: int) -> tuple[Any, ...]:
    """A block of pairs (the bucket stage's output, or the pairs a cluster mode asks for): its
    distinct candidate pairs as join rows, one table per verification partition (the pairs bound
    for it, in the block's order), then the requests for their documents and the pair count: so
    that each partition's task fetches its own pairs only."""
    wanted, requests = _lookalike.candidate_pairs(_one_batch(table, table.schema), partitions)
    pairs = pa.Table.from_batches([wanted])
    parts = [pairs.filter(pa.compute.equal(pairs["dest"], p)) for p in range(partitions)]
    return (*parts, pa.Table.from_batches([requests]), wanted.num_rows)


def _bitmap(n: int):
    """A bitmap of ``n`` documents, all clear: packed bits from the start, (n + 7) / 8 bytes (125
    MB at 10^9 documents), bit ``d`` in byte ``d >> 3``, most significant bit first (as
    ``numpy.packbits``)."""
    import numpy as np

    return np.zeros((n + 7) // 8, dtype=np.uint8)


def _mark(bitmap, docs) -> None:
    """Sets the bits of ``docs`` (an int64 array, repeats allowed) in ``bitmap``, in place,
    without a byte or a bool per document."""
    import numpy as np

    docs = np.asarray(docs, dtype=np.int64)
    np.bitwise_or.at(bitmap, docs >> 3, (0x80 >> (docs & 7)).astype(np.uint8))


@_in_task
def _texts(table: pa.Table, text: str, needed, settings: dict[str, Any]) -> pa.Table:
    # Only the documents some pair needs (a bit per document, input order): the others' texts
    # stay where they are. Each becomes its payload: its shingle set (its text with
    # verify="estimate").
    index = table[INDEX].to_numpy()
    keep = (needed[index >> 3] >> (7 - (index & 7))) & 1
    table = table.filter(pa.array(keep.astype(bool)))
    settings = _without_statistics(settings)
    batches = [_lookalike.payloads_for_requests(b, text, INDEX, **settings) for b in table.to_batches() if b.num_rows]
    if not batches:
        batches = [_lookalike.payloads_for_requests(_one_batch(pa.table({}), _INPUT), "text", INDEX, **settings)]
    return pa.Table.from_batches(batches)


def _without_statistics(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings without the statistics stage's counts, which only the estimates use."""
    return {k: v for k, v in settings.items() if k != "statistics"}


@_in_task
def _route(table: pa.Table) -> pa.Table:
    return pa.Table.from_batches([_lookalike.route_texts(_one_batch(table, _REQUEST))])


@_in_task
def _verify_block(table: pa.Table, all: bool, settings: dict[str, Any]) -> pa.Table:
    # The table's batches as they are (the pieces from the object store, not copied into one).
    batches = [b for b in table.to_batches() if b.num_rows] or [_one_batch(table, _JOIN)]
    return pa.Table.from_batches([_lookalike.verify_pairs(batches, all, **settings)])


@_in_task
def _payloads(
    block: pa.Table, offset: int, text: str, requests: pa.Table, partitions: int, settings: dict[str, Any],
    piece: tuple[int, int] | None = None, whole: bool = False,
):
    """The payloads a block's documents (its first row at ``offset``) owe the verification
    (``requests``: ``doc``, ``dest``): each requested document's shingle set computed once (its
    text with ``verify="estimate"``) and sent to every partition that asked for it; a tuple of
    ``partitions`` tables (one table when ``partitions`` is 1), or with ``whole`` one table of
    them all (each row names its partition in ``dest``)."""
    table = _documents(block, offset, text, piece)
    table = table.filter(pa.compute.is_in(table[INDEX], value_set=requests["doc"]))
    batch = _one_batch(table, _INPUT) if table.num_rows else _one_batch(pa.table({}), _INPUT)
    column = text if table.num_rows else "text"
    parts = _lookalike.route_payloads(
        batch, _one_batch(requests, requests.schema), partitions, column, INDEX, **_without_statistics(settings)
    )
    if whole:
        return pa.Table.from_batches(parts)
    tables = tuple(pa.Table.from_batches([p]) for p in parts)
    return tables[0] if partitions == 1 else tables


@_in_task
def _verify_part(all: bool, settings: dict[str, Any], *tables: pa.Table) -> tuple[pa.Table, int]:
    """One verification partition: its pairs (the candidate listing's tables for it) and the
    payloads routed to it. Returns the edges and their count."""
    near = _verify_block(pa.concat_tables(tables), all, settings)
    return near, near.num_rows


#: Verification runs as Ray tasks (a task per document block computes its requested documents'
#: shingle sets and splits them among the partitions that asked for them, a task per partition
#: verifies its pairs: blocks × partitions objects) when the candidate pairs need at most this
#: many documents per partition (each partition's task holds the sets it was sent: about 6 KB a
#: document in the benchmark corpus, ~0.6 GB at the bound); above it, in Ray Data's two-shuffle
#: join (streamed, with its back-pressure).
VERIFY_TASK_DOCUMENTS = 100_000


def _one_store() -> bool:
    """Whether the cluster is one node, whose tasks all map the same object store: then the
    verification's partitions share their shingle sets in groups (``SHARED_PARTITIONS``). Across
    nodes each partition is sent its own, so that no node fetches sets it does not need."""
    import ray

    return sum(1 for node in ray.nodes() if node.get("Alive")) <= 1


#: On a cluster of one node, the verification's partitions go in groups of at most this many:
#: each block sends a requested shingle set (or text) once to each group that asked for it, in one
#: table per group, which the group's tasks read where it is in the object store (a task per
#: partition still verifies its own pairs). Without groups a set went to 1.34 partitions on
#: average at 8 partitions (``bench/results/ray-memory-floor-2026-11-29.md``). Every task of a
#: group visits all of its tables' rows to find its documents (and checks their UTF-8 with
#: ``verify="estimate"``), hence the bound.
SHARED_PARTITIONS = 16


def _wait(refs: list, say: Any, what: str) -> None:
    """Waits until every one of ``refs`` is done (without fetching them), saying at most every
    ``_tasks.PROGRESS_SECONDS`` how many are (a stage of a long job is otherwise silent)."""
    import ray

    pending, total = list(refs), len(refs)
    while pending:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=_tasks.PROGRESS_SECONDS, fetch_local=False)
        if pending:
            say(f"{what}: {total - len(pending)} of {total} done")


def _verify(
    pairs: list, source: _Materialized | _Stream, n: int, text: str, partitions: int, all: bool,
    settings: dict[str, Any], say: Any = None,
):
    """Exact verification of pairs of documents: ``pairs`` are object references of tables with
    ``a`` and ``b`` (and ``kind``: the candidate rows only), ``source`` the input's blocks (a
    streamed input is read again, its blocks without a requested document passed over).
    Returns the near edges (every pair with ``all``) as a list of object references of tables,
    in a fixed order, and their count.

    Each block of pairs gives its distinct pairs, each bound for the partition of its first
    document (a table per partition), and the requests for their documents (a task per block);
    the driver gathers the requests (16 bytes each). With at most ``VERIFY_TASK_DOCUMENTS`` requested documents per
    partition, it splits them by document block: a task per block computes the shingle set of each
    of its requested documents once, where the text is, and returns one table per partition (on
    one node, ``_one_store``: one per group of ``SHARED_PARTITIONS`` partitions, each set once in
    it, which the group's tasks read in place); a task per partition verifies its pairs with the
    sets it was sent (past ``TASK_SHUFFLE_PIECES``
    such tables, each later block returns one table, and a Ray Data repartition by partition
    brings them, the tables before and the pairs together). Above it, a join partitioned
    by document in Ray Data: the requested documents (marked in a bitmap, n/8 bytes) give their
    sets, a repartition by document routes each set to every partition holding a pair of it, a
    repartition by partition brings the pairs and the sets together (not for a streamed input,
    whose blocks are not kept: it takes the tasks whatever the size)."""
    import numpy as np
    import ray

    candidates = ray.remote(_candidates).options(num_returns=partitions + 2)
    split = [candidates.remote(r, partitions) for r in pairs]
    # Per block: the pairs bound for each partition, the requests, the pair count.
    wanted, requests = [s[:partitions] for s in split], [s[partitions] for s in split]
    if not sum(ray.get([s[partitions + 1] for s in split])):
        return [ray.put(_verify_block(_JOIN.empty_table(), all, settings))], 0
    asked = pa.concat_tables(ray.get(requests)).select(["doc", "dest"])
    docs = asked["doc"].to_numpy()
    if source.streamed or len(np.unique(docs)) <= VERIFY_TASK_DOCUMENTS * partitions:
        order = np.argsort(docs, kind="stable")
        ordered = docs[order]
        # On one node, the partitions in groups of SHARED_PARTITIONS share each block's table (a
        # set once per group, read in place by the group's tasks), if the pieces (the blocks
        # holding a requested document × the groups) stay within TASK_SHUFFLE_PIECES: past it,
        # Ray Data's repartition below needs a table per partition. Else a table per partition.
        group = SHARED_PARTITIONS if partitions > 1 and _one_store() else 1
        width = -(-partitions // group)
        if group > 1:
            starts = np.cumsum([0, *source.rows()])
            holding = len(np.unique(np.searchsorted(starts, ordered, side="right")))
            if holding * width > TASK_SHUFFLE_PIECES:
                group, width = 1, partitions
        route = ray.remote(_payloads).options(num_returns=width)
        whole = ray.remote(_payloads)
        window = _Window(source.window)
        # Past TASK_SHUFFLE_PIECES pieces (the driver holds one reference each), each later
        # block's payloads go whole, and Ray Data's repartition by partition takes them with the
        # pieces before and the pairs.
        pieces: list[list[Any]] = []
        rest: list[Any] = []
        for block in source.blocks():
            lo, hi = np.searchsorted(ordered, [block.offset, block.offset + block.rows])
            if hi > lo:
                mine = asked.take(order[lo:hi])
                if group > 1:
                    mine = pa.table({"doc": mine["doc"], "dest": mine["dest"].to_numpy() // group})
                if not rest and (len(pieces) + 1) * width <= TASK_SHUFFLE_PIECES:
                    piece = route.remote(block.ref, block.offset, text, mine, width, settings, block.piece)
                    pieces.append([piece] if width == 1 else piece)
                    window.add(pieces[-1][0])
                else:
                    rest.append(whole.remote(block.ref, block.offset, text, mine, partitions, settings, block.piece, True))
                    window.add(rest[-1])
        if rest:
            if say is not None:
                say(f"{len(pieces) + len(rest)} blocks with requested documents × {partitions} partitions: past "
                    f"{TASK_SHUFFLE_PIECES} payload pieces, the payloads of the last {len(rest)} go through Ray "
                    "Data's repartition, with the pieces of the others")
            payloads = [x for ps in pieces for x in ps] + rest
            return _joined([w for parts in wanted for w in parts], payloads, partitions, all, settings)
        verify = ray.remote(_verify_part).options(num_returns=2)
        parts = [
            verify.remote(all, settings, *[w[p] for w in wanted], *[x[p // group] for x in pieces])
            for p in range(partitions)
        ]
        if say is not None:
            _wait([c for _, c in parts], say, "partitions verified")
        return [near for near, _ in parts], sum(ray.get([c for _, c in parts]))
    needed = _bitmap(n)
    _mark(needed, docs)
    del asked, docs
    routed = (
        ray.data.from_arrow_refs(_numbered(source.list, text))
        .map_batches(_texts, batch_format="pyarrow", fn_kwargs=dict(text=text, needed=needed, settings=settings))
        .union(ray.data.from_arrow_refs(requests))
        .repartition(partitions, keys=["doc"])
        .map_batches(_route, batch_format="pyarrow", batch_size=None)
    )
    return _joined([w for parts in wanted for w in parts], routed, partitions, all, settings)


def _joined(pairs: list[Any], payloads: Any, partitions: int, all: bool, settings: dict[str, Any]) -> tuple[list[Any], int]:
    """The near edges of join rows (``pairs``: object references of the pairs' tables;
    ``payloads``: a Dataset of the routed payloads, or object references of their tables)
    brought together by a Ray Data repartition on ``dest``, and their count."""
    import ray

    if isinstance(payloads, list):
        payloads = ray.data.from_arrow_refs(payloads)
    near = (
        ray.data.from_arrow_refs(pairs)
        .union(payloads)
        .repartition(partitions, keys=["dest"])
        .map_batches(_verify_block, batch_format="pyarrow", batch_size=None, fn_kwargs=dict(all=all, settings=settings))
        .materialize()
    )
    return near.to_arrow_refs(), near.count()


@_in_task
def _orient(table: pa.Table) -> pa.Table:
    """Each edge ``(a, b)`` in both orientations, as ``(u, v)``."""
    a, b = table["a"].cast(pa.int64()).chunks, table["b"].cast(pa.int64()).chunks
    return pa.table({"u": pa.chunked_array(a + b, pa.int64()), "v": pa.chunked_array(b + a, pa.int64())})


_ORIENTED = pa.schema([("u", pa.int64()), ("v", pa.int64())])


@_in_task
def _star(table: pa.Table, step: str) -> pa.Table:
    return pa.Table.from_batches([_lookalike.connected_step(_one_batch(table, _ORIENTED), step)])


def _star_round(edges, step: str, partitions: int):
    return (
        edges.map_batches(_orient, batch_format="pyarrow")
        .repartition(partitions, keys=["u"])
        .map_batches(_star, batch_format="pyarrow", batch_size=None, fn_kwargs=dict(step=step))
    )


def connected_components(edges: Any, num_partitions: int | None = None, max_rounds: int = 100) -> Any:
    """Connected components of a graph too large for one task, on Ray: ``edges`` is a
    ``ray.data.Dataset`` of int64 columns ``a`` and ``b`` (undirected edges); returns a Dataset of
    ``node`` and ``component`` (the smallest node of its component) for every node that has an
    edge (other nodes are alone).

    The algorithm alternates large-star and small-star rounds (Kiveris et al., "Connected
    Components in MapReduce and Beyond", 2014): each step is a ``map_batches`` that writes each
    edge in both orientations, a hash ``repartition(keys=["u"])`` that brings every node's edges
    together, and the Rust kernel ``connected_step`` over each partition. Memory per task is its
    partition of the edges, the rounds are O(log² n) (a few on near-duplicate graphs), and the
    loop ends when a round changes no edge: every component is then a star around its smallest
    node. ``num_partitions``: partitions of each shuffle (default: the edge Dataset's block
    count). ``max_rounds``: a ``RuntimeError`` past it (the bound is never reached by the
    algorithm's guarantee; it stops a runaway job)."""
    import ray

    edges = edges.select_columns(["a", "b"]).materialize()
    partitions = num_partitions or max(1, edges.num_blocks())
    count = ray.remote(_changed)
    for _ in range(max_rounds):
        changed = 0
        for step in ("large", "small"):
            edges = _star_round(edges, step, partitions).materialize()
            # Counted where the blocks are: nothing but a number comes back.
            changed += sum(ray.get([count.remote(r) for r in edges.to_arrow_refs()]))
        if changed == 0:
            return _star_round(edges, "label", partitions)
    raise RuntimeError(f"connected_components: no fixpoint after {max_rounds} rounds")


@_in_task
def _changed(block: pa.Table) -> int:
    return int(pa.compute.sum(block["changed"]).as_py() or 0) if block.num_rows else 0


class _Clusterer:
    """The clustering (on the driver, or in a Ray actor): the edges and the ids, given as lists
    of object references of tables, streamed into Rust one table at a time."""

    def __init__(self, n: int, settings: dict[str, Any]):
        self.components = _lookalike.Components(n, **settings)

    @staticmethod
    def _batches(refs: list) -> Iterator[pa.RecordBatch]:
        import ray

        for r in refs:
            yield from ray.get(r).to_batches()

    def add_edges(self, edges: list) -> None:
        for b in self._batches(edges):
            self.components.add_edges(b)

    def add_ids(self, ids: list, id: str | None) -> None:
        for b in self._batches(ids):
            self.components.add_ids(b, id or "id", INDEX)

    def add_components(self, components: list) -> None:
        for b in self._batches(components):
            self.components.add_components(b)

    def cluster(self) -> pa.RecordBatch:
        return self.components.cluster()

    def add_similarities(self, similarities: list) -> None:
        for b in self._batches(similarities):
            self.components.add_similarities(b)

    def finish(self):
        return self.components.finish()


#: The clustering runs on the driver (which receives the result table, one row per document, in
#: any case) when the verified near edges number at most this many and no ``union_find_memory``
#: was asked for; otherwise in a Ray actor (placed where ``union_find_memory`` is free).
DRIVER_EDGES = 10_000_000


class _Local:
    """The driver's clusterer, called as the actor is: ``call(method, *args)`` returns the
    result."""

    def __init__(self, clusterer: _Clusterer):
        self.clusterer = clusterer

    def call(self, method: str, *args: Any) -> Any:
        return getattr(self.clusterer, method)(*args)

    def close(self) -> None:
        pass


class _Remote:
    def __init__(self, actor: Any):
        self.actor = actor

    def call(self, method: str, *args: Any) -> Any:
        import ray

        return ray.get(getattr(self.actor, method).remote(*args))

    def close(self) -> None:
        import ray

        ray.kill(self.actor)


class _Progress:
    """One line per stage on standard error, with the seconds since the job began."""

    def __init__(self, what: str, on: bool) -> None:
        self.what, self.on, self.start = what, on, time.monotonic()

    def __call__(self, message: str) -> None:
        if self.on:
            print(f"{self.what}: {message} ({time.monotonic() - self.start:.1f} s)", file=sys.stderr, flush=True)


class _BusyCpus(logging.Filter):
    """Drops Ray Data's warning that the cluster has no free CPU: a Dataset the job executes
    while its own tasks hold every CPU (one CPU, a read still ending) is not stuck, those tasks
    end on their own."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "does not have any available CPUs" not in record.getMessage()


@contextlib.contextmanager
def _quiet(ctx: Any, verbose: bool) -> Iterator[None]:
    """Ray Data's INFO logs and progress bars off while the job runs (unless ``verbose``)."""
    if verbose:
        yield
        return
    # Turning the bars off makes Ray Data warn that they are off: that warning's logger too.
    levels = {"ray.data": logging.WARNING, "ray.data._internal.progress": logging.ERROR}
    loggers = {logging.getLogger(name): level for name, level in levels.items()}
    before = {logger: logger.level for logger in loggers}
    bars = {a: getattr(ctx, a) for a in ("enable_progress_bars", "enable_operator_progress_bars") if hasattr(ctx, a)}
    for logger, level in loggers.items():
        logger.setLevel(level)
    for a in bars:
        setattr(ctx, a, False)
    busy = _BusyCpus()
    dataset = logging.getLogger("ray.data.dataset")
    dataset.addFilter(busy)
    try:
        yield
    finally:
        dataset.removeFilter(busy)
        for logger, level in before.items():
            logger.setLevel(level)
        for a, v in bars.items():
            setattr(ctx, a, v)


@contextlib.contextmanager
def _job(what: str, progress: bool, verbose: bool) -> Iterator[_Progress]:
    """The settings of a job while it runs: Ray Data keeps blocks in input order, its logs and
    bars are quiet (unless ``verbose``); gives the job's progress lines (``what: ...``)."""
    import ray

    ctx = ray.data.DataContext.get_current()
    preserve = ctx.execution_options.preserve_order
    ctx.execution_options.preserve_order = True
    try:
        with _quiet(ctx, verbose):
            yield _Progress(what, progress)
    finally:
        ctx.execution_options.preserve_order = preserve


def _in_order(ds: Any) -> contextlib.AbstractContextManager[None]:
    """``ds`` executed in input order while the job runs: a Dataset executes with the
    DataContext it was created with (``ds.context``), not the current one, so ``_job``'s setting
    does not reach a Dataset made before the job, and a read of several files on several CPUs
    gave its blocks in the order they were done (other "first" documents from run to run, and
    with ``stream=True`` another order on each pass)."""
    return _executing(ds, lambda options: setattr(options, "preserve_order", True))


def _materialized_keys(ds: Any, text: str, id: str | None, num_partitions: int | None, settings: dict[str, Any], say):
    """The input's blocks in the object store (``stream=False``), their ids numbered, the
    statistics (methods that have them) and the buckets: ``(source, ids, total, partitions,
    statistics, buckets)`` (no buckets for an empty input)."""
    import ray

    say(f"method {settings['method']}: numbering the rows")
    # Global input positions: block row counts, then offsets (no data to the driver).
    # One execution of `ds` (its schema alone can cost one: a JSON read infers it by
    # reading), then the columns and row counts of its blocks.
    refs = ds.to_arrow_refs()
    shapes = ray.get([ray.remote(_shape).remote(r) for r in refs])
    # An empty block may have no columns (a filter that kept nothing): the first block
    # with columns names them.
    names = next((n for _, n in shapes if n), None)
    if names is None and not shapes:
        schema = ds.schema()
        names = list(schema.names) if schema is not None else None
    for col, what in ((text, "text"), (id, "id")):
        if names is not None and col is not None and col not in names:
            raise ValueError(f"no {what} column {col!r}: the columns are {', '.join(names)}")
    number = ray.remote(_number)
    documents, ids, total = [], [], 0
    for r, (c, _) in zip(refs, shapes):
        documents.append(_Block(r, total, c))
        ids.append(number.remote(r, total, id))
        total += c
    del refs
    source = _Materialized(documents)
    partitions = num_partitions or max(1, len(documents))
    if total == 0:
        return source, ids, 0, partitions, None, None
    say(f"{total} documents in {len(documents)} blocks: sketching, shuffling keys into {partitions} partitions")
    statistics = None
    if _lookalike.needs_statistics(**settings):
        say("counting the collection statistics (document frequencies)")
        statistics = _statistics(source, text, settings)
    buckets, _ = _keys_and_buckets(source, total, text, partitions, settings, statistics, say)
    return source, ids, total, partitions, statistics, buckets


def _streamed_keys(ds: Any, text: str, id: str | None, num_partitions: int | None, settings: dict[str, Any], say):
    """``_materialized_keys`` for ``stream=True``: the dataset read as a stream, its blocks
    numbered and sketched as they come and not kept (a statistics stage, when the method has
    one, reads it once more before; SimHash without ``blocks`` counts it first, its tables being
    laid out for the collection's size)."""
    import ray

    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    source = _Stream(ds, [(text, "text"), (id, "id")], window=2 * cpus, read_ahead=STREAM_READ_AHEAD * cpus)
    partitions = num_partitions or 2 * cpus
    total, statistics = 0, None
    if _lookalike.needs_statistics(**settings):
        say(f"method {settings['method']}: counting the collection statistics, reading the dataset as a stream")
        statistics = _statistics(source, text, settings)
        total = source.total or 0
    elif _lookalike.keys_need_count(**settings):
        say(f"method {settings['method']}: counting the documents (SimHash's tables are laid out for them)")
        total = ds.count()
    say(f"method {settings['method']}: reading the dataset as a stream, sketching its blocks as they come, "
        f"shuffling keys into {partitions} partitions")
    buckets, ids = _keys_and_buckets(source, total, text, partitions, settings, statistics, say, ids=(id,))
    say(f"{source.total} documents read")
    return source, ids, source.total or 0, partitions, statistics, buckets



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
    components: str = "auto",
    progress: bool = True,
    verbose: bool = False,
    stream: bool = False,
    **options: Any,
) -> RayDedupResult:
    """Deduplicate a ``ray.data.Dataset`` on Ray (``verify``: ``"exact"``, the default, or
    ``"estimate"``; ``measure``: ``"jaccard"`` or ``"containment"``): ``method`` is
    ``"minhash"`` (LSH), ``"supershingles"``, ``"simhash"``, ``"combined"`` (either with
    ``weights="tfidf"``: document frequencies from a statistics stage), ``"long-sentences"``,
    ``"partitioned"``, ``"exact"``, ``"i-match"``, ``"i-match-rand"``, ``"tf-ridf"`` or
    ``"refwords"`` (with a lexicon file, ``lexicon=``, or the statistics of the input, counted on
    Ray first),
    ``"mod-m"``, ``"min-s"`` or ``"broder"`` (shared samples counted per pair), ``"spotsigs"``.

    ``text`` and ``id`` name the columns (strings; ``id=None``: the row positions).
    ``threshold``, ``keep`` (``"first"``, ``"longest"``), ``cluster`` (``"center"``,
    ``"clique"``, ``"connected"``, ``"center-refine"``) and ``**options`` (``num_perm``,
    ``bands``/``rows``, ``shingle``, ``seed``, ``cjk``, ``max_pairs_per_group``,
    ``fp_weight``/``fn_weight``, ``minhash``, and each method's own: ``max_distance``,
    ``weights``, ``lists``, ...) are those of ``lookalike.dedup`` and the CLI.
    ``num_partitions``: partitions of each shuffle (default: the dataset's block count, at
    least 1). ``union_find_memory``: bytes to reserve for the clustering (Ray's ``memory``
    resource): it then runs in a Ray actor placed on a node that has them, not on the driver.
    ``components``: ``"single"`` (the clustering's union-find), ``"distributed"``
    (``connected_components`` on Ray; needs ``cluster="connected"``) or ``"auto"``
    (distributed with ``cluster="connected"`` above ``DISTRIBUTED_EDGES`` near edges). ``progress``: one line on standard error as each stage
    starts, with the time since the job began (and, at most every 10 s while a stage's tasks run, how
    many are done). ``verbose``: Ray Data's own INFO logs and
    progress bars (``python/examples/ray_dedup.py`` on 500 documents printed 133 lines with
    them, its read and write included; by default only their warnings and errors are shown while
    the job runs).
    ``stream``: ``False`` (the default) executes ``ds`` once and keeps its blocks (the texts) in
    the object store for the whole job. ``True`` reads it as a stream, twice: each block is
    sketched as it comes and let go, and the dataset is read again for the verification, where
    only the blocks holding a requested document give their shingle sets; the read is held back
    while two sketching (or payload) tasks per CPU wait or run, and Ray Data reads at most
    ``STREAM_READ_AHEAD`` bytes a CPU ahead of them, so the texts are never all in memory (the
    shuffled keys and the requested sets are; the sketching task also numbers the block's ids).
    For inputs larger than the cluster's memory; it costs one more read of the input (two with a
    statistics stage), and ``ds`` must give the same rows in the same order each time it is
    executed (a read of files does; an unseeded ``random_shuffle`` does not: a
    different row count on the second read raises ``ValueError``). A Dataset that is already in
    the object store (materialized, or from ``lookalike.ray.read``, which reads eagerly) gains
    nothing from it. Default ``num_partitions`` with ``stream=True``: two per CPU of the cluster.

    Raises ``ValueError`` for settings it cannot run (the message says why; they run in
    ``lookalike.dedup``), a missing column or a bad ``components``; ``TypeError`` for a column of another type.
    """
    import ray

    settings = _settings(method, threshold, keep, cluster, options)
    if components not in ("auto", "single", "distributed"):
        raise ValueError(f"components={components!r}: expected \"auto\", \"single\" or \"distributed\"")
    connected = cluster == "connected"
    if components == "distributed" and not connected:
        raise ValueError(
            'components="distributed" needs cluster="connected" (the clusters are then the components; '
            "the greedy modes visit whole components in one task)"
        )
    # Settings first: a bad option fails here, before any task runs.
    _lookalike.Components(0, **settings)

    clusterer: _Local | _Remote | None = None
    with _job("lookalike.ray.dedup", progress, verbose) as say, _in_order(ds):
        try:
            if stream:
                source, ids, total, partitions, statistics, buckets = _streamed_keys(
                    ds, text, id, num_partitions, settings, say
                )
            else:
                source, ids, total, partitions, statistics, buckets = _materialized_keys(
                    ds, text, id, num_partitions, settings, say
                )
            if total == 0:
                # Nothing to deduplicate: the tables of an empty input, as lookalike.dedup gives them.
                from . import dedup as local_dedup

                columns = {text: pa.array([], pa.string())}
                if id is not None:
                    columns[id] = pa.array([], pa.string())
                empty = local_dedup(pa.table(columns), text=text, id=id, method=method, threshold=threshold,
                                    keep=keep, cluster=cluster, **options)
                say("done: 0 documents")
                return RayDedupResult(
                    dataset=ray.data.from_arrow(empty.table),
                    pairs=ray.data.from_arrow(empty.pairs),
                    stats={**empty.stats, "components": "single"},
                )
            # Estimate verification signs the pairs' documents again: with the statistics.
            vsettings = settings
            if statistics is not None and settings.get("verify") == "estimate":
                vsettings = {**settings, "statistics": statistics}
            del statistics
            if _lookalike.is_sampled(**settings):
                say(f"counting the shared samples per pair in {partitions} partitions")
                buckets = buckets + _counted(buckets, partitions, settings)
            _wait(buckets, say, "key partitions bucketed")
            say("verifying the candidate pairs")
            near, edges = _verify(buckets, source, total, text, partitions, False, vsettings, say)
            say("clustering")
            if union_find_memory or edges > DRIVER_EDGES:
                actor = ray.remote(_Clusterer)
                if union_find_memory:
                    actor = actor.options(memory=union_find_memory)
                clusterer = _Remote(actor.remote(total, settings))
            else:
                clusterer = _Local(_Clusterer(total, settings))
            clusterer.call("add_edges", buckets)
            clusterer.call("add_edges", near)
            distributed = components == "distributed" or (
                components == "auto" and connected and edges > DISTRIBUTED_EDGES
            )
            if distributed:
                edge_ds = ray.data.from_arrow_refs(near).select_columns(["a", "b"])
                labels = connected_components(edge_ds, partitions).materialize()
                clusterer.call("add_components", labels.to_arrow_refs())
            clusterer.call("add_ids", ids, id)
            asked = clusterer.call("cluster")
            if asked.num_rows:
                asked = [ray.put(pa.Table.from_batches([asked]))]
                sims, _ = _verify(asked, source, total, text, partitions, True, vsettings)
                clusterer.call("add_similarities", sims)
            table, pairs, stats = clusterer.call("finish")
        finally:
            if clusterer is not None:
                clusterer.close()
    say(f"done: {total} documents")
    return RayDedupResult(
        dataset=ray.data.from_arrow(table),
        pairs=ray.data.from_arrow(pairs),
        stats={**json.loads(stats), "components": "distributed" if distributed else "single"},
    )


from .ray_read import read  # noqa: E402  (lookalike.ray.read; imports this module's helpers)
