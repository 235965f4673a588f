"""``MinHashLSH`` with datasketch's ``storage_config``: in memory, or persisted in a directory.

``storage_config=None`` or ``{"type": "dict"}``: the tables are in memory (datasketch's default).
``{"type": "lookalike", "path": "/some/dir"}``: the index lives in that directory, so that another
``MinHashLSH`` with the same ``storage_config`` (in this process or another) sees the same keys, as
two datasketch indexes on one Redis do. Datasketch's other types (``redis``, ``cassandra``...)
raise ``ValueError``.

Why not a ``lookalike.Index`` directory: that index computes its own signatures from documents
(``check``/``add`` take texts and string ids), while a ``MinHashLSH`` holds signatures of
arbitrary element sets under any hashable keys, so it cannot be stored there without changing the
index engine. The directory holds:

* ``settings.json``: the format, threshold, num_perm, weights and (bands, rows), written once when
  the directory is created (a later ``MinHashLSH`` on it must ask for the same num_perm and
  (bands, rows), or gets ``ValueError``);
* ``entries.log``: an append-only log, after an 8-byte magic ``b"LKLSH01\\n"``, of records
  ``op`` (1 byte: ``I`` insert, ``R`` remove), key length, value count, CRC-32 of the rest (3
  little-endian uint32), the key pickled (protocol 4), the signature (uint32 little-endian each).
  Every insert or remove is one ``write`` of whole records, under an exclusive ``flock`` of the
  log (on systems with ``fcntl``), after reading the records other writers appended; the
  ``insertion_session`` writes its buffer as one ``write``. Every read (``query``, ``in``,
  ``len``, ``keys``...) first applies the records appended since the last one, so a reader sees
  the writers' inserts and removes as they commit. A record cut short by a crash is dropped
  (truncated by the next writer); a complete record whose CRC does not match raises ``OSError``.

Keys are unpickled when the log is read: open only directories you trust, as with pickle. A
pickled ``MinHashLSH`` is a snapshot of its keys and signatures, in memory when unpickled.
"""

from __future__ import annotations

import json
import os
import pickle
import struct
import zlib
from collections.abc import Hashable
from pathlib import Path
from typing import Any, BinaryIO

from . import _lookalike
from ._lookalike import MinHash

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None  # type: ignore[assignment]

__all__ = ["MinHashLSH"]

_MAGIC = b"LKLSH01\n"
_HEADER = struct.Struct("<cIII")
_FORMAT = "lookalike-minhashlsh"
_SUPPORTED = "{'type': 'dict'} (in memory, the default) and {'type': 'lookalike', 'path': <directory>}"


def _storage_path(storage_config: dict[str, Any] | None) -> Path | None:
    """The directory of a ``storage_config``, ``None`` for memory; ``ValueError`` otherwise."""
    if not storage_config:
        return None
    if not isinstance(storage_config, dict):
        raise ValueError(f"storage_config must be a dict: {_SUPPORTED}")
    kind = storage_config.get("type")
    if kind == "dict":
        return None
    if kind != "lookalike":
        raise ValueError(
            f"storage_config type {kind!r} is not supported by lookalike; supported: {_SUPPORTED}"
        )
    unknown = set(storage_config) - {"type", "path"}
    if unknown:
        raise ValueError(f"storage_config keys {sorted(unknown)} are not supported: give 'type' and 'path'")
    if "path" not in storage_config:
        raise ValueError("storage_config {'type': 'lookalike'} needs a 'path': the index's directory")
    return Path(os.fspath(storage_config["path"]))


class _Log:
    """The directory's append-only log, and how far this process has applied it."""

    def __init__(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.file: BinaryIO = open(path / "entries.log", "a+b")  # noqa: SIM115 (kept open)
        self.offset = len(_MAGIC)

    def lock(self) -> None:
        if fcntl is not None:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX)

    def unlock(self) -> None:
        if fcntl is not None:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_UN)

    def init_magic(self) -> None:
        """Writes the magic into an empty log, or checks it (call under the lock)."""
        size = os.fstat(self.file.fileno()).st_size
        if size == 0:
            self.file.write(_MAGIC)
            self.file.flush()
            return
        self.file.seek(0)
        if self.file.read(len(_MAGIC)) != _MAGIC:
            raise OSError(f"{self.path / 'entries.log'} is not a lookalike MinHashLSH log")

    def read_new(self, truncate_torn: bool) -> list[tuple[bytes, bytes, bytes]]:
        """The whole records appended since the last call: (op, key, signature bytes). A record
        cut short stops the reading there; under the writers' lock (``truncate_torn``) it was cut
        by a crash and is removed."""
        size = os.fstat(self.file.fileno()).st_size
        if size <= self.offset:
            return []
        self.file.seek(self.offset)
        data = self.file.read(size - self.offset)
        out = []
        at = 0
        while at + _HEADER.size <= len(data):
            op, key_len, n, crc = _HEADER.unpack_from(data, at)
            end = at + _HEADER.size + key_len + 4 * n
            if end > len(data):
                break
            body = data[at + _HEADER.size : end]
            if zlib.crc32(op + body) != crc:
                raise OSError(f"{self.path / 'entries.log'}: corrupt record at byte {self.offset + at}")
            out.append((op, body[:key_len], body[key_len:]))
            at = end
        if at < len(data) and truncate_torn:
            os.ftruncate(self.file.fileno(), self.offset + at)
        self.offset += at
        return out

    def append(self, records: list[bytes]) -> None:
        """Writes whole records at the end in one call (call under the lock, after ``read_new``)."""
        blob = b"".join(records)
        self.file.seek(0, os.SEEK_END)
        self.file.write(blob)
        self.file.flush()
        self.offset += len(blob)


def _record(op: bytes, key: Hashable, values: list[int]) -> bytes:
    key_bytes = pickle.dumps(key, protocol=4)
    body = key_bytes + struct.pack(f"<{len(values)}I", *values)
    return _HEADER.pack(op, len(key_bytes), len(values), zlib.crc32(op + body)) + body


class MinHashLSH(_lookalike.MinHashLSH):
    """datasketch's ``MinHashLSH``: ``threshold``, ``num_perm``, ``weights``, ``params`` as the
    native index, plus ``storage_config`` (see the module documentation) and ``prepickle``
    (accepted, no effect: in memory keys are kept as they are, in a directory always pickled)."""

    _log: _Log | None

    def __new__(
        cls,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: tuple[float, float] = (0.5, 0.5),
        params: tuple[int, int] | None = None,
        storage_config: dict[str, Any] | None = None,
        prepickle: bool | None = None,
    ) -> MinHashLSH:
        path = _storage_path(storage_config)
        if path is None:
            self = super().__new__(cls, threshold, num_perm, weights, params)
            self._log = None
            return self
        log = _Log(path)
        log.lock()
        try:
            log.init_magic()
            settings_file = path / "settings.json"
            asked = _lookalike.MinHashLSH(threshold, num_perm, weights, params)
            if settings_file.exists():
                stored = json.loads(settings_file.read_text())
                if stored.get("format") != _FORMAT:
                    raise OSError(f"{settings_file} is not the settings of a lookalike MinHashLSH")
                if stored["num_perm"] != num_perm or tuple(stored["params"]) != asked.params:
                    raise ValueError(
                        f"the index at {path} has num_perm {stored['num_perm']} and (bands, rows) "
                        f"{tuple(stored['params'])}; asked for num_perm {num_perm} and {asked.params}"
                    )
                threshold, weights = stored["threshold"], tuple(stored["weights"])
            else:
                settings = {
                    "format": _FORMAT,
                    "version": 1,
                    "threshold": threshold,
                    "num_perm": num_perm,
                    "weights": list(weights),
                    "params": list(asked.params),
                }
                tmp = path / "settings.json.tmp"
                tmp.write_text(json.dumps(settings, indent=1) + "\n")
                os.replace(tmp, settings_file)
            self = super().__new__(cls, threshold, num_perm, weights, asked.params)
            self._log = log
            self._apply(log.read_new(truncate_torn=True))
        finally:
            log.unlock()
        return self

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    # -- the log

    def _apply(self, records: list[tuple[bytes, bytes, bytes]]) -> None:
        for op, key_bytes, sig in records:
            key = pickle.loads(key_bytes)
            if op == b"I":
                n = len(sig) // 4
                values = list(struct.unpack(f"<{n}I", sig))
                if _lookalike.MinHashLSH.__contains__(self, key):
                    super().remove(key)
                super().insert(key, MinHash(hashvalues=values))
            elif op == b"R":
                if _lookalike.MinHashLSH.__contains__(self, key):
                    super().remove(key)
            else:
                raise OSError(f"unknown record {op!r} in {self._log.path if self._log else '?'}")

    def _refresh(self) -> None:
        if self._log is not None:
            self._apply(self._log.read_new(truncate_torn=False))

    def _write(self, records: list[tuple[bytes, Hashable, MinHash | None]]) -> None:
        """Applies inserts and removes here and appends them to the log, under the lock."""
        log = self._log
        assert log is not None
        log.lock()
        try:
            self._apply(log.read_new(truncate_torn=True))
            done: list[bytes] = []
            try:
                for op, key, minhash in records:
                    if op == b"I":
                        assert minhash is not None
                        super().insert(key, minhash)
                        done.append(_record(b"I", key, super().get(key)))
                    else:
                        super().remove(key)
                        done.append(_record(b"R", key, []))
            finally:
                log.append(done)
        finally:
            log.unlock()

    # -- datasketch's methods

    def insert(self, key: Any, minhash: MinHash, check_duplication: bool = True) -> None:
        """Inserts a MinHash under a key; ``ValueError`` if the key is already there."""
        if self._log is None:
            super().insert(key, minhash, check_duplication)
        else:
            self._write([(b"I", key, minhash)])

    def insert_many(self, keys: list[Any], minhashes: list[MinHash]) -> None:
        """Inserts many (key, MinHash) pairs: ``insert_many(keys, minhashes)``."""
        if self._log is None:
            super().insert_many(keys, minhashes)
            return
        keys, minhashes = list(keys), list(minhashes)
        if len(keys) != len(minhashes):
            raise ValueError(f"{len(keys)} keys for {len(minhashes)} MinHashes")
        self._write([(b"I", k, m) for k, m in zip(keys, minhashes)])

    def remove(self, key: Any) -> None:
        """Removes a key; ``ValueError`` if it is not there."""
        if self._log is None:
            super().remove(key)
        else:
            self._write([(b"R", key, None)])

    def insertion_session(self, buffer_size: int = 50000) -> Any:
        """A session that buffers inserts (datasketch's ``insertion_session``), for a ``with``
        block; in a directory, each full buffer is one write."""
        if self._log is None:
            return super().insertion_session(buffer_size)
        if buffer_size < 1:
            raise ValueError("buffer_size must be at least 1")
        return _StoredSession(self, buffer_size)

    def query(self, minhash: MinHash) -> list[Any]:
        self._refresh()
        return super().query(minhash)

    def query_many(self, minhashes: list[MinHash]) -> list[list[Any]]:
        self._refresh()
        return super().query_many(minhashes)

    def get(self, key: Any) -> list[int]:
        self._refresh()
        return super().get(key)

    def keys(self) -> list[Any]:
        self._refresh()
        return super().keys()

    def is_empty(self) -> bool:
        self._refresh()
        return super().is_empty()

    def __contains__(self, key: object) -> bool:
        self._refresh()
        return super().__contains__(key)

    def __len__(self) -> int:
        self._refresh()
        return super().__len__()

    @property
    def storage_path(self) -> Path | None:
        """The directory holding the index, ``None`` in memory."""
        return self._log.path if self._log is not None else None


class _StoredSession:
    """Buffered inserts into a directory-backed ``MinHashLSH``: one write per full buffer and at
    the end of the ``with`` block (also on an exception, as datasketch does)."""

    def __init__(self, lsh: MinHashLSH, buffer_size: int) -> None:
        self.lsh = lsh
        self.buffer_size = buffer_size
        self.buffer: list[tuple[bytes, Hashable, MinHash | None]] = []

    def insert(self, key: Any, minhash: MinHash, check_duplication: bool = True) -> None:
        self.buffer.append((b"I", key, minhash))
        if len(self.buffer) >= self.buffer_size:
            self.flush()

    def flush(self) -> None:
        buffer, self.buffer = self.buffer, []
        if buffer:
            self.lsh._write(buffer)

    def __enter__(self) -> _StoredSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()
