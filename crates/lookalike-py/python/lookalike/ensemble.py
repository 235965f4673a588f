"""``MinHashLSHEnsemble``: containment search (Zhu, Nargesian, Pu & Miller, "LSH Ensemble:
Internet-Scale Domain Search", VLDB 2016), datasketch-shaped.

The containment of a query set Q in an indexed set X is |Q ∩ X| / |Q|. A MinHash LSH finds sets by
Jaccard similarity, and a containment c is the Jaccard similarity c / (1 + x/q - c) when |X| = x
and |Q| = q: the same containment threshold asks for a lower Jaccard threshold the larger X is
compared with Q. So the index:

* partitions the sets by size (``index()``): the bounds minimize the expected number of false
  positives caused by taking every set of a partition to be as large as its largest, (u - s) / u
  for a set of size s in a partition of upper bound u, by dynamic programming over the distinct
  sizes (the paper's optimal partitioning; datasketch's too);
* computes at construction, for 10 size ratios x/q from e^-5 to e^5 (evenly spaced in
  logarithm, as datasketch's), the (b, r) with b × r ≤ num_perm and r ≤ ``m`` that minimizes
  ``weights[0]`` × the false-positive probability mass (containments below the threshold, up to
  x/q) plus ``weights[1]`` × the false-negative mass (at or above it), Simpson's rule in Rust;
* keeps, in each partition, band tables of r rows for each r among those optima, all fed from
  one pass over the signatures;
* answers ``query(m, q)`` partition by partition with the (b, r) of the grid point at or above
  u/q, u the partition's upper bound (rounding up takes the sets for larger than they are, which
  favours recall; datasketch does the same); partitions whose largest set is smaller than
  ``threshold × q`` are skipped (no set there can contain that much of the query: datasketch
  still queries them, and all it finds there are false positives).

The answers are candidates: a key whose containment is well above the threshold is returned with
high probability, one well below it rarely.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator
from typing import Any

from ._lookalike import EnsembleTables, MinHash, containment_params, ensemble_partitions

__all__ = ["MinHashLSHEnsemble"]

# The x/q at which (b, r) are optimized, as datasketch's: 10 points from e^-5 to e^5, evenly
# spaced in logarithm. A query's x/q is rounded up to the next (the last beyond e^5).
_GRID = [math.exp(-5.0 + 10.0 * i / 9) for i in range(10)]


class _Partition:
    __slots__ = ("lower", "upper", "keys", "sizes", "minhashes", "tables")

    def __init__(self, lower: int, upper: int, num_perm: int, rs: list[int]) -> None:
        self.lower, self.upper = lower, upper
        self.keys: list[Hashable] = []
        self.sizes: list[int] = []
        self.minhashes: list[MinHash] = []
        self.tables = EnsembleTables(num_perm, rs)


class MinHashLSHEnsemble:
    """Containment search over MinHash signatures (datasketch's ``MinHashLSHEnsemble``: same
    constructor, ``index``, ``query``, ``in``, ``is_empty``).

    ``threshold``: the containment |Q ∩ X| / |Q| sought; ``num_part``: partitions by set size;
    ``m``: the largest number of rows per band (the index holds one band table per row count in
    use, so more memory for larger ``m``); ``weights``: the weights of false positives and false
    negatives when (b, r) is chosen. ``storage_config`` is accepted as ``None`` or
    ``{"type": "dict"}`` only (the index is in memory; pickle it); ``prepickle`` is accepted and
    has no effect (keys are kept as they are).
    """

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        num_part: int = 16,
        m: int = 8,
        weights: tuple[float, float] = (0.5, 0.5),
        storage_config: dict[str, Any] | None = None,
        prepickle: bool | None = None,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold {threshold} must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError(f"num_perm {num_perm}: too few permutation functions (at least 2)")
        if num_part < 1:
            raise ValueError(f"num_part {num_part} must be at least 1")
        if not 2 <= m <= num_perm:
            raise ValueError(f"m {m} must be in the range of [2, num_perm] ({num_perm})")
        if len(weights) != 2 or any(not 0.0 <= w <= 1.0 for w in weights):
            raise ValueError(f"weights {weights} must be two numbers in [0.0, 1.0]")
        if abs(sum(weights) - 1.0) > 1e-9:
            raise ValueError(f"weights {weights} must sum to 1.0")
        if storage_config and storage_config.get("type", "dict") != "dict":
            raise ValueError(
                f"storage_config type {storage_config.get('type')!r} is not supported by "
                "lookalike's MinHashLSHEnsemble: it is kept in memory ({'type': 'dict'}); "
                "pickle it to keep it"
            )
        self.threshold = float(threshold)
        self.h = num_perm
        self.num_part = num_part
        self.m = m
        self.weights = (float(weights[0]), float(weights[1]))
        self.prepickle = prepickle
        every_r = list(range(1, m + 1))
        #: (b, r) at each point of the grid; the row counts in use get band tables.
        self.params: list[tuple[int, int]] = [
            containment_params(self.threshold, num_perm, every_r, xq, self.weights) for xq in _GRID
        ]
        self.rs: list[int] = sorted({r for _, r in self.params})
        self._partitions: list[_Partition] = []
        self._keys: set[Hashable] = set()

    @property
    def lowers(self) -> list[int | None]:
        """The smallest set size of each partition (``None`` for a partition left empty)."""
        return [p.lower for p in self._partitions] + [None] * (self.num_part - len(self._partitions))

    @property
    def uppers(self) -> list[int | None]:
        """The largest set size of each partition (``None`` for a partition left empty)."""
        return [p.upper for p in self._partitions] + [None] * (self.num_part - len(self._partitions))

    def index(self, entries: Iterable[tuple[Hashable, MinHash, int]]) -> None:
        """Indexes every ``(key, minhash, size)``: ``size`` is the number of distinct elements of
        the set. Called once (``ValueError`` on a non-empty index, on no entries, on a size that
        is not positive, on a key given twice)."""
        if not self.is_empty():
            raise ValueError("Cannot call index again on a non-empty index")
        rows: list[tuple[Hashable, MinHash, int]] = []
        seen: set[Hashable] = set()
        for key, minhash, size in entries:
            size = int(size)
            if size <= 0:
                raise ValueError(f"set size {size} of key {key!r}: sizes must be positive")
            if not isinstance(minhash, MinHash):
                raise TypeError(f"expected a lookalike.MinHash for key {key!r}, not {type(minhash).__name__}")
            if minhash.num_perm != self.h:
                raise ValueError(f"a MinHash of num_perm {minhash.num_perm} in an index of num_perm {self.h}")
            if key in seen:
                raise ValueError(f"the key {key!r} is given twice")
            seen.add(key)
            rows.append((key, minhash, size))
        if not rows:
            raise ValueError("entries is empty")
        counts = Counter(size for _, _, size in rows)
        sizes = sorted(counts)
        bounds = ensemble_partitions(sizes, [counts[s] for s in sizes], self.num_part)
        parts = [_Partition(lo, up, self.h, self.rs) for lo, up in bounds]
        uppers = [up for _, up in bounds]
        for key, minhash, size in sorted(rows, key=lambda e: e[2]):
            part = parts[bisect.bisect_left(uppers, size)]
            part.keys.append(key)
            part.sizes.append(size)
            # The signature alone (the MinHash may hold many element hashes), for pickling.
            part.minhashes.append(MinHash(seed=minhash.seed, scheme=minhash.scheme, hashvalues=minhash.values()))
        for part in parts:
            part.tables.insert_many(part.minhashes)
        self._partitions = parts
        self._keys = seen

    def query_params(self, size: int) -> list[tuple[int, int, int, int] | None]:
        """For a query of ``size`` elements: (lower, upper, bands, rows) of each partition,
        ``None`` where the partition is empty or skipped (its sets too small)."""
        if size <= 0:
            raise ValueError(f"query size {size} must be positive")
        out: list[tuple[int, int, int, int] | None] = []
        for part in self._partitions:
            if part.upper < self.threshold * size:
                out.append(None)
                continue
            b, r = self._bands(part.upper / size)
            out.append((part.lower, part.upper, b, r))
        return out + [None] * (self.num_part - len(self._partitions))

    def _bands(self, xq: float) -> tuple[int, int]:
        return self.params[min(bisect.bisect_left(_GRID, xq), len(_GRID) - 1)]

    def query(self, minhash: MinHash, size: int) -> Iterator[Hashable]:
        """The keys of the sets that likely contain at least ``threshold`` of the query set
        (``minhash`` of ``size`` distinct elements): candidates, as an iterator."""
        if not isinstance(minhash, MinHash):
            raise TypeError(f"expected a lookalike.MinHash, not {type(minhash).__name__}")
        if minhash.num_perm != self.h:
            raise ValueError(f"a MinHash of num_perm {minhash.num_perm} in an index of num_perm {self.h}")
        params = self.query_params(int(size))
        return self._candidates(minhash, params)

    def _candidates(self, minhash: MinHash, params: list[tuple[int, int, int, int] | None]) -> Iterator[Hashable]:
        for part, p in zip(self._partitions, params):
            if p is not None:
                for slot in part.tables.query(minhash, p[2], p[3]):
                    yield part.keys[slot]

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def is_empty(self) -> bool:
        """True when nothing was indexed."""
        return not self._keys

    def __getstate__(self) -> dict[str, Any]:
        entries = [
            (k, m, s) for part in self._partitions for k, m, s in zip(part.keys, part.minhashes, part.sizes)
        ]
        settings = (self.threshold, self.h, self.num_part, self.m, self.weights, None, self.prepickle)
        return {"settings": settings, "entries": entries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(*state["settings"])  # type: ignore[misc]
        if state["entries"]:
            self.index(state["entries"])

    def __repr__(self) -> str:
        return (
            f"MinHashLSHEnsemble(threshold={self.threshold}, num_perm={self.h}, num_part={self.num_part}, "
            f"m={self.m}, keys={len(self)})"
        )
