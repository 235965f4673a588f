"""lookalike: find duplicate and near-duplicate documents, with the Rust engine doing the work.

Three layers:

* ``MinHash`` / ``MinHashLSH`` (and ``LeanMinHash``, ``MinHashLSHForest``,
  ``MinHashLSHEnsemble``): datasketch-shaped sketches and indexes, hashed as the ``lookalike``
  CLI hashes (``MinHash.from_text(t)`` is the signature ``lookalike dedup`` computes for ``t``);
  signatures are numpy ``uint64`` arrays when numpy can be imported, lists otherwise;
  ``MinHashLSH(storage_config={"type": "lookalike", "path": dir})`` keeps its index in a
  directory that other processes open;
* ``dedup(data, ...)``: one call over a list of strings or any Arrow-compatible table (anything
  with ``__arrow_c_stream__``: pyarrow, polars, DuckDB; pandas through pyarrow), every method and
  option of ``lookalike dedup``; returns a ``DedupResult`` (Arrow tables of documents and pairs);
* ``paragraphs(data, ...)``: paragraph-level dedup (``lookalike paragraphs``): every text with the
  lines seen earlier in the collection removed, the table's other columns kept;
* ``read(paths)``: the CLI's readers (WARC, HTML, JSONL, Parquet, gzip; charset detection,
  main-content extraction and site boilerplate removal, as ``lookalike dedup`` does them) as a
  ``pyarrow.RecordBatchReader``: ``dedup(read(paths).read_all())`` compares the texts the CLI
  compares.

``Index(path)`` is the persistent index of ``lookalike index`` (the same directory and answers):
``check`` a document against it, ``add`` it, ``remove`` it by id.

``lookalike.ray.dedup(ds, ...)`` runs the MinHash pipeline on a ``ray.data.Dataset``;
``lookalike.ray.read(paths)`` reads files into one with ``read``'s rows, in parallel tasks.

Every call releases the GIL while Rust works (on all cores, with rayon). Bad settings raise
``ValueError``, unreadable files ``OSError``, wrong types ``TypeError``.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import pyarrow as pa

from . import _lookalike
from ._lookalike import Index, MinHash, describe, read
from .ensemble import MinHashLSHEnsemble
from .forest import MinHashLSHForest
from .storage import MinHashLSH

__all__ = [
    "DedupResult",
    "Index",
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHEnsemble",
    "MinHashLSHForest",
    "dedup",
    "describe",
    "paragraphs",
    "read",
    "__version__",
]

__version__: str = _lookalike.__version__


class LeanMinHash(MinHash):
    """A MinHash reduced to its signature (datasketch's ``LeanMinHash``): built from a
    ``MinHash`` or from ``seed`` and ``hashvalues`` (a list or a numpy array of ints below 2^32);
    compared, inserted into a ``MinHashLSH`` and pickled like a ``MinHash``, never updated
    (``TypeError``, as in datasketch). ``serialize``/``deserialize``/``bytesize``: datasketch's
    byte layout (see ``serialize``)."""

    def __new__(
        cls,
        minhash: MinHash | None = None,
        seed: int | None = None,
        hashvalues: Sequence[int] | Any | None = None,
        scheme: str | None = None,
    ) -> LeanMinHash:
        values: Any
        if minhash is not None:
            values = minhash.values()
            seed, scheme = minhash.seed, minhash.scheme
        elif hashvalues is not None:
            values = hashvalues
        else:
            raise ValueError("LeanMinHash needs a minhash, or seed and hashvalues")
        return super().__new__(cls, seed=1 if seed is None else seed, scheme=scheme or "oph", hashvalues=values)

    def update(self, element: Any) -> None:
        raise TypeError("Cannot update a LeanMinHash")

    def update_batch(self, elements: Iterable[Any]) -> None:
        raise TypeError("Cannot update a LeanMinHash")

    def update_text(self, text: str) -> None:
        raise TypeError("Cannot update a LeanMinHash")

    def __reduce__(self) -> tuple[Any, ...]:
        return (LeanMinHash, (None, self.seed, self.values(), self.scheme))

    def __len__(self) -> int:
        return self.num_perm

    def bytesize(self, byteorder: str = "@") -> int:
        """The number of bytes ``serialize`` writes: 12 + 4 × num_perm."""
        return struct.calcsize(f"{_byteorder(byteorder)}qi{self.num_perm}I")

    def serialize(self, buf: Any, byteorder: str = "@") -> None:
        """Writes the signature into ``buf`` (a writable buffer: ``bytearray``, ``memoryview``...,
        at least ``bytesize()`` bytes) in datasketch's layout for its ``"legacy"`` scheme, which
        datasketch's ``LeanMinHash.deserialize`` reads: the seed (8 bytes, signed), the number of
        values (4 bytes, signed), each value (4 bytes, unsigned), in ``byteorder`` (a ``struct``
        byte order character, ``@`` native by default). The layout does not hold the scheme
        (``oph`` or ``perm``): ``deserialize`` takes it as an argument. A seed of 2^63 or more is
        written as its two's complement (datasketch's seeds are signed)."""
        order = _byteorder(byteorder)
        if memoryview(buf).nbytes < self.bytesize(order):
            raise ValueError("The buffer does not have enough space for holding this MinHash.")
        seed = self.seed - (1 << 64) if self.seed >= 1 << 63 else self.seed
        struct.pack_into(f"{order}qi{self.num_perm}I", buf, 0, seed, self.num_perm, *self.values())

    @classmethod
    def deserialize(cls, buf: Any, byteorder: str = "@", scheme: str = "oph") -> LeanMinHash:
        """The LeanMinHash that ``serialize`` wrote into ``buf`` (or datasketch's ``serialize``
        with its ``"legacy"`` scheme), with the signature scheme ``scheme``."""
        order = _byteorder(byteorder)
        seed, n = struct.unpack_from(f"{order}qi", buf, 0)
        if n < 0:
            raise ValueError(
                "this buffer holds datasketch's affine32/affine64 layout (a negative count): "
                "lookalike reads the layout without a scheme field"
            )
        values = struct.unpack_from(f"{order}{n}I", buf, struct.calcsize(f"{order}qi"))
        return cls(seed=seed + (1 << 64) if seed < 0 else seed, hashvalues=list(values), scheme=scheme)


def _byteorder(byteorder: str) -> str:
    if byteorder not in ("@", "=", "<", ">", "!"):
        raise ValueError(f"byteorder {byteorder!r} is not one of @ = < > !")
    return byteorder


@dataclass(frozen=True)
class DedupResult:
    """What ``dedup`` returns.

    ``table``: one row per input document, in input order: ``id``, ``cluster`` (number of its
    cluster, as in the CLI's ``--clusters`` file; null outside clusters), ``status`` (``kept``,
    ``duplicate``, ``skipped``), ``kept_id`` (the document kept in its place), ``similarity`` (a
    duplicate's similarity to it), ``match`` (``exact-bytes``, ``exact-text``, ``near``) and
    ``reason`` (why a document was skipped).

    ``pairs``: every verified pair, ``id1``, ``id2``, ``similarity``, ``match``, sorted by input
    order (the CLI's ``--pairs`` file).

    ``stats``: the settings and counts of the run.
    """

    table: pa.Table
    pairs: pa.Table
    stats: dict[str, Any] = field(default_factory=dict)

    def kept(self) -> pa.Table:
        """The rows of the documents kept (unique ones and representatives)."""
        return self.table.filter(pa.compute.equal(self.table["status"], "kept"))

    def __iter__(self):  # (table, pairs) = dedup(...)
        return iter((self.table, self.pairs))


def _result(out: tuple[Any, Any, str]) -> DedupResult:
    table, pairs, stats = out
    return DedupResult(table=table, pairs=pairs, stats=json.loads(stats))


def dedup(
    data: Any,
    text: str = "text",
    id: str | None = None,
    method: str | None = None,
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> DedupResult:
    """Find the duplicates in ``data``: a list of strings, or a table with a ``text`` column.

    ``data`` is a sequence of ``str`` (ids are the positions, as strings) or any object with
    ``__arrow_c_stream__`` (a pyarrow Table or RecordBatchReader, a polars DataFrame, a DuckDB
    relation; a pandas DataFrame is converted with pyarrow), read one batch at a time. ``text``
    and ``id`` name its columns (strings; without ``id`` the ids are the row numbers).

    ``method`` (default ``"minhash"``), ``threshold``, ``keep`` (``"first"``, ``"longest"``),
    ``cluster`` (``"center"``, ``"clique"``, ``"center-refine"``, ``"connected"``) and
    ``**options`` are the options of ``lookalike dedup`` with ``_`` for ``-``: ``num_perm=128``,
    ``bands=``/``rows=``, ``shingle="words:5"``, ``seed=1``, ``verify="exact"``,
    ``measure="jaccard"``, ``max_distance=`` (SimHash), ``sample=`` (MOD-m/MIN-s), ``lexicon=``
    (a file from ``lookalike lexicon build``)... ``lookalike.describe(**same)`` prints the run
    they configure.

    Same documents, same order and settings: the same clusters and pairs as the CLI.
    """
    if isinstance(data, (str, bytes)):
        raise TypeError("dedup takes a list of strings or a table, not a single string")
    if hasattr(data, "__arrow_c_stream__"):
        return _result(
            _lookalike.dedup_arrow(data, text, id, method, threshold, keep, cluster, **options)
        )
    if type(data).__module__.startswith("pandas"):
        table = pa.Table.from_pandas(data, preserve_index=False)
        return _result(
            _lookalike.dedup_arrow(table, text, id, method, threshold, keep, cluster, **options)
        )
    if isinstance(data, Sequence) or isinstance(data, Iterable):
        texts = list(data)
        for i, t in enumerate(texts):
            if t is not None and not isinstance(t, str):
                raise TypeError(f"text {i} is {type(t).__name__}, not str")
        if id is not None:
            raise TypeError("id names a column: pass a table, or use dedup_texts(texts, ids)")
        return _result(
            _lookalike.dedup_texts(texts, None, method, threshold, keep, cluster, **options)
        )
    raise TypeError(
        f"dedup takes a list of strings or an Arrow-compatible table, not {type(data).__name__}"
    )


def dedup_texts(
    texts: Sequence[str],
    ids: Sequence[str],
    method: str | None = None,
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> DedupResult:
    """``dedup`` over parallel lists of texts and their ids (strings)."""
    texts, ids = list(texts), list(ids)
    for i, v in enumerate(ids):
        if not isinstance(v, str):
            raise TypeError(f"id {i} is {type(v).__name__}, not str")
    return _result(_lookalike.dedup_texts(texts, ids, method, threshold, keep, cluster, **options))


__all__.append("dedup_texts")


def paragraphs(
    data: Any,
    *,
    text_column: str = "text",
    min_chars: int = 0,
    bloom_bytes: int | str | None = None,
    bloom_items: int | None = None,
    spans_column: str | None = "removed_spans",
) -> Any:
    """Remove from every text the paragraphs seen earlier in the collection (``lookalike
    paragraphs``).

    A paragraph is a line, compared after normalization (case, punctuation and spacing folded);
    texts are taken in order, a paragraph seen before (in an earlier text, or earlier in the same
    one) is removed with its line ending, its first occurrence is kept. Lines without a letter or
    digit, and lines shorter than ``min_chars`` characters (white space trimmed), are never
    removed. The cleaned texts are byte for byte those of the CLI on the same texts in the same
    order.

    ``data`` is a sequence of ``str`` (``None`` stays ``None``): a list of the cleaned strings is
    returned. Or a table: anything with ``__arrow_c_stream__`` (pyarrow, polars, DuckDB) or a
    pandas DataFrame, read one batch at a time; the same kind of table is returned (a pyarrow
    Table for other Arrow sources) with ``text_column`` cleaned (a null stays null), every other
    column as it was, and a column ``spans_column`` (``None``: not added) listing each row's
    removed spans: ``start`` and ``end`` (byte offsets into the UTF-8 text, line ending included)
    and ``first_seen`` (the row, from 0, where the paragraph was first seen; null in the Bloom
    mode). A pyarrow result carries the run's counts as JSON in its schema metadata under
    ``lookalike.paragraphs``.

    ``bloom_bytes`` (a number of bytes, or a size like ``"4G"``) remembers paragraphs in a Bloom
    filter of that size instead of exactly: every repeat is still removed, but a paragraph never
    seen can be taken for one and removed too, with probability (1 - e^(-kn/m))^k after n
    distinct paragraphs in m bits, k bits each (k = 7, or chosen from ``bloom_items``, the number
    of distinct paragraphs expected).
    """
    if isinstance(data, (str, bytes)):
        raise TypeError("paragraphs takes a list of strings or a table, not a single string")
    options = (min_chars, bloom_bytes, bloom_items)
    module = type(data).__module__
    if module.startswith("pandas"):
        table = pa.Table.from_pandas(data, preserve_index=False)
        return _lookalike.paragraphs_arrow(table, text_column, *options, spans_column).to_pandas()
    if hasattr(data, "__arrow_c_stream__"):
        table = _lookalike.paragraphs_arrow(data, text_column, *options, spans_column)
        if module.startswith("polars"):
            import polars

            return polars.from_arrow(table)
        return table
    if isinstance(data, Sequence) or isinstance(data, Iterable):
        texts = list(data)
        for i, t in enumerate(texts):
            if t is not None and not isinstance(t, str):
                raise TypeError(f"text {i} is {type(t).__name__}, not str")
        cleaned, _stats = _lookalike.paragraphs_texts(texts, *options)
        return cleaned
    raise TypeError(
        f"paragraphs takes a list of strings or an Arrow-compatible table, not {type(data).__name__}"
    )

