"""``MinHashLSHForest``: top-k neighbours of a MinHash (Bawa, Condie & Ganesan, "LSH Forest:
self-tuning indexes for similarity search", WWW 2005), datasketch-shaped.

The signature is cut into ``l`` trees of ``k = num_perm // l`` values each. A key's entry in a
tree is its ``k`` values written big-endian, 4 bytes each, so that the first ``r`` values are the
first ``4r`` bytes; each tree is a sorted list of entries (``index()``). ``query(m, k)`` asks
every tree for the entries sharing ``m``'s first ``r`` values, from ``r = k`` down to 1, and stops
at the first ``r`` where ``k`` keys or more were found: the keys whose signature agrees with
``m``'s longest on a prefix of some tree, the likeliest to be similar.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable
from typing import Any

from ._lookalike import MinHash

__all__ = ["MinHashLSHForest"]


class MinHashLSHForest:
    """Top-k search over MinHash signatures: ``add`` keys, ``index()``, then ``query(m, k)``
    (datasketch's ``MinHashLSHForest``: same methods and arguments)."""

    def __init__(self, num_perm: int = 128, l: int = 8) -> None:  # noqa: E741 (datasketch's name)
        if l <= 0 or num_perm <= 0 or l > num_perm:
            raise ValueError(f"l={l} must be in 1..=num_perm ({num_perm})")
        self.num_perm = num_perm
        self.l = l
        self.k = num_perm // l
        self._tables: list[dict[bytes, list[Hashable]]] = [{} for _ in range(l)]
        self._sorted: list[list[bytes]] = [[] for _ in range(l)]
        self._keys: dict[Hashable, list[int]] = {}

    def _entries(self, values: list[int]) -> list[bytes]:
        k = self.k
        return [
            b"".join(v.to_bytes(4, "big") for v in values[i * k : (i + 1) * k]) for i in range(self.l)
        ]

    def add(self, key: Hashable, minhash: MinHash) -> None:
        """Adds a MinHash under a key (searchable after the next ``index()``)."""
        if minhash.num_perm != self.num_perm:
            raise ValueError(f"a MinHash of num_perm {minhash.num_perm} in a forest of num_perm {self.num_perm}")
        if key in self._keys:
            raise ValueError(f"the key {key!r} is already in the forest")
        values = minhash.values()
        self._keys[key] = values
        for table, entry in zip(self._tables, self._entries(values)):
            table.setdefault(entry, []).append(key)

    def index(self) -> None:
        """Makes the keys added so far searchable (sorts each tree)."""
        self._sorted = [sorted(table) for table in self._tables]

    def _prefixed(self, tree: int, prefix: bytes) -> list[Hashable]:
        entries = self._sorted[tree]
        at = bisect.bisect_left(entries, prefix)
        out: list[Hashable] = []
        while at < len(entries) and entries[at].startswith(prefix):
            out.extend(self._tables[tree][entries[at]])
            at += 1
        return out

    def query(self, minhash: MinHash, k: int) -> list[Hashable]:
        """The keys whose signatures share the longest prefixes with ``minhash``'s, at least ``k``
        of them when the forest has that many sharing one value (more when several tie)."""
        if k <= 0:
            raise ValueError(f"k={k} must be positive")
        if minhash.num_perm != self.num_perm:
            raise ValueError(f"a MinHash of num_perm {minhash.num_perm} in a forest of num_perm {self.num_perm}")
        entries = self._entries(minhash.values())
        found: dict[Hashable, None] = {}
        for r in range(self.k, 0, -1):
            for tree, entry in enumerate(entries):
                for key in self._prefixed(tree, entry[: 4 * r]):
                    found.setdefault(key)
            if len(found) >= k:
                break
        return list(found)

    def get_minhash_hashvalues(self, key: Hashable) -> Any:
        """The signature added under ``key``, as ``MinHash.hashvalues`` gives it (a numpy
        ``uint64`` array when numpy can be imported, else a list of ints)."""
        return MinHash(hashvalues=self._keys[key]).hashvalues

    def is_empty(self) -> bool:
        """True when no key was added."""
        return not self._keys

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)
