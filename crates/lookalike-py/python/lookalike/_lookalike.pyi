"""Type stubs of the native module (crates/lookalike-py/src)."""

import os
from typing import Any, Callable, Iterable, Self, Sequence

import pyarrow as pa

__version__: str

class MinHash:
    """A MinHash signature of a set, hashed as the lookalike CLI hashes (datasketch-shaped)."""

    def __init__(
        self,
        num_perm: int = 128,
        seed: int = 1,
        scheme: str = "oph",
        shingle: str = "words:5",
        hashfunc: Callable[[Any], int] | None = None,
        hashvalues: Sequence[int] | Any | None = None,
    ) -> None: ...
    def __new__(
        cls,
        num_perm: int = 128,
        seed: int = 1,
        scheme: str = "oph",
        shingle: str = "words:5",
        hashfunc: Callable[[Any], int] | None = None,
        hashvalues: Sequence[int] | Any | None = None,
    ) -> Self: ...
    @property
    def scheme(self) -> str: ...
    @staticmethod
    def bulk(
        b: Iterable[Iterable[Any]],
        num_perm: int = 128,
        seed: int = 1,
        scheme: str = "oph",
        shingle: str = "words:5",
        hashfunc: Callable[[Any], int] | None = None,
    ) -> list[MinHash]: ...
    @staticmethod
    def generator(
        b: Iterable[Iterable[Any]],
        num_perm: int = 128,
        seed: int = 1,
        scheme: str = "oph",
        shingle: str = "words:5",
        hashfunc: Callable[[Any], int] | None = None,
    ) -> MinHashGenerator: ...
    @staticmethod
    def from_text(
        text: str, num_perm: int = 128, seed: int = 1, scheme: str = "oph", shingle: str = "words:5"
    ) -> MinHash: ...
    @staticmethod
    def from_texts(
        texts: list[str],
        num_perm: int = 128,
        seed: int = 1,
        scheme: str = "oph",
        shingle: str = "words:5",
    ) -> list[MinHash]: ...
    def update(self, element: Any) -> None: ...
    def update_batch(self, elements: Iterable[Any]) -> None: ...
    def update_text(self, text: str) -> None: ...
    def jaccard(self, other: MinHash) -> float: ...
    def digest(self) -> Any:
        """The signature: a numpy ``uint64`` array when numpy can be imported, else a list."""
    @property
    def hashvalues(self) -> Any:
        """The signature: a numpy ``uint64`` array when numpy can be imported, else a list."""
    def values(self) -> list[int]: ...
    @property
    def num_perm(self) -> int: ...
    @property
    def seed(self) -> int: ...
    def is_empty(self) -> bool: ...
    def count(self) -> int: ...
    def copy(self) -> MinHash: ...
    def merge(self, *others: MinHash) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class MinHashGenerator:
    """The MinHashes of ``MinHash.generator``, one per iterable of elements."""

    def __iter__(self) -> MinHashGenerator: ...
    def __next__(self) -> MinHash: ...

class InsertionSession:
    """Buffered inserts into a ``MinHashLSH`` (``with lsh.insertion_session() as session``)."""

    def insert(self, key: Any, minhash: MinHash, check_duplication: bool = True) -> None: ...
    def __enter__(self) -> InsertionSession: ...
    def __exit__(self, *exc: object) -> bool: ...

class MinHashLSH:
    """An LSH index of MinHash signatures with lookalike's band keys (datasketch-shaped)."""

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: tuple[float, float] = (0.5, 0.5),
        params: tuple[int, int] | None = None,
    ) -> None: ...
    def __new__(
        cls,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: tuple[float, float] = (0.5, 0.5),
        params: tuple[int, int] | None = None,
    ) -> Self: ...
    @property
    def params(self) -> tuple[int, int]: ...
    @property
    def threshold(self) -> float: ...
    def insert(self, key: Any, minhash: MinHash, check_duplication: bool = True) -> None: ...
    def insert_many(self, keys: list[Any], minhashes: list[MinHash]) -> None: ...
    def insertion_session(self, buffer_size: int = 50000) -> InsertionSession: ...
    def query(self, minhash: MinHash) -> list[Any]: ...
    def query_many(self, minhashes: list[MinHash]) -> list[list[Any]]: ...
    def remove(self, key: Any) -> None: ...
    def get(self, key: Any) -> list[int]: ...
    def keys(self) -> list[Any]: ...
    def is_empty(self) -> bool: ...
    def __contains__(self, key: object) -> bool: ...
    def __len__(self) -> int: ...

class EnsembleTables:
    """The band tables of one partition of a ``MinHashLSHEnsemble``."""

    def __init__(self, num_perm: int, rs: list[int]) -> None: ...
    def insert_many(self, minhashes: list[MinHash]) -> None: ...
    def query(self, minhash: MinHash, b: int, r: int) -> list[int]: ...
    def __len__(self) -> int: ...

def containment_params(
    threshold: float, num_perm: int, rs: list[int], xq: float, weights: tuple[float, float] = (0.5, 0.5)
) -> tuple[int, int]: ...
def ensemble_partitions(sizes: list[int], counts: list[int], num_part: int) -> list[tuple[int, int]]: ...

class Index:
    """A persistent near-duplicate index on disk: the directory of ``lookalike index create``.

    ``Index(path)`` opens it; ``Index(path, create=True, method=..., threshold=..., **options)``
    creates it and freezes its settings (options as in ``dedup``). The answers of ``check`` and
    ``add`` are dicts: ``id``, ``duplicate``, ``status`` (kept, duplicate, skipped), ``of``,
    ``similarity``, ``reason``, ``matches`` (dicts of ``id``, ``similarity``, ``match``),
    ``inserted``, ``replaced``; ``get(id)`` gives the document held under an id (``id``,
    ``text``) or None. Missing index or storage failures raise ``OSError``; settings
    ``ValueError``.

    ``boilerplate_from=[paths]`` (with ``create=True``) learns each site's template from those
    pages, as ``lookalike index create --boilerplate-from`` does, and stores it: every page
    checked or added is cleaned of it first (a page's site is the host of its URL id, else its
    path's folders). ``boilerplate`` (``"auto"``: web pages, ``"all"``: text too),
    ``site_field``, ``boilerplate_min_pages`` and ``boilerplate_min_share`` are as in ``read``;
    ``id_field``, ``text_field`` and ``format`` say how the sample is read.

    ``add_batch(ids, texts)`` (or ``htmls=``) checks and inserts many documents in one transaction,
    each against the index and the batch's earlier documents, as ``lookalike index add`` does;
    ``check_batch(texts)`` checks many, each against the index alone. ``durability="fast"``
    fsyncs at most once a second (and at ``flush()`` and close) instead of at every commit.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        method: str | None = None,
        threshold: float = 0.8,
        boilerplate_from: list[str] | None = None,
        boilerplate: str = "auto",
        site_field: str | None = None,
        boilerplate_min_pages: int | None = None,
        boilerplate_min_share: float | None = None,
        id_field: str = "id",
        text_field: str = "text",
        format: str | None = None,
        durability: str = "safe",
        **options: Any,
    ) -> None: ...
    def check(
        self, text: str | None = None, *, html: str | None = None, id: str | None = None
    ) -> dict[str, Any]: ...
    def add(self, id: str, text: str | None = None, *, html: str | None = None) -> dict[str, Any]: ...
    def add_batch(
        self, ids: list[str], texts: list[str | None] | None = None, *, htmls: list[str | None] | None = None
    ) -> list[dict[str, Any]]: ...
    def check_batch(
        self,
        texts: list[str | None] | None = None,
        *,
        htmls: list[str | None] | None = None,
        ids: list[str] | None = None,
    ) -> list[dict[str, Any]]: ...
    def flush(self) -> None: ...
    def get(self, id: str) -> dict[str, Any] | None: ...
    def remove(self, id: str) -> bool: ...
    def stats_json(self) -> str: ...
    def describe(self) -> str: ...
    def __len__(self) -> int: ...

def describe(
    method: str | None = None,
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> str: ...
def read(
    paths: list[str],
    id_field: str = "id",
    text_field: str = "text",
    extract: str = "main",
    format: str | None = None,
    batch_size: int = 4096,
    boilerplate: str = "auto",
    site_field: str | None = None,
    boilerplate_min_pages: int | None = None,
    boilerplate_min_share: float | None = None,
    temp_dir: str | os.PathLike[str] | None = None,
) -> pa.RecordBatchReader: ...
def dedup_texts(
    texts: list[str | None],
    ids: list[str | None] | None = None,
    method: str | None = None,
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> tuple[pa.Table, pa.Table, str]: ...
def dedup_arrow(
    data: Any,
    text: str = "text",
    id: str | None = None,
    method: str | None = None,
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> tuple[pa.Table, pa.Table, str]: ...
def paragraphs_texts(
    texts: list[str | None],
    min_chars: int = 0,
    bloom_bytes: int | str | None = None,
    bloom_items: int | None = None,
) -> tuple[list[str | None], str]: ...
def paragraphs_arrow(
    data: Any,
    text: str = "text",
    min_chars: int = 0,
    bloom_bytes: int | str | None = None,
    bloom_items: int | None = None,
    spans: str | None = "removed_spans",
) -> pa.Table: ...
def sketch_keys(
    batch: pa.RecordBatch,
    text: str = "text",
    index: str = "__lookalike_index",
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    documents: int = 0,
    statistics: bytes | None = None,
    **options: Any,
) -> pa.RecordBatch: ...
def needs_statistics(
    threshold: float = 0.8, keep: str | None = None, cluster: str | None = None, **options: Any
) -> bool: ...
def keys_need_count(
    threshold: float = 0.8, keep: str | None = None, cluster: str | None = None, **options: Any
) -> bool: ...
def statistics_partial(
    batch: pa.RecordBatch,
    text: str = "text",
    index: str = "__lookalike_index",
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> tuple[bytes, pa.RecordBatch]: ...
def statistics_repeats(fingerprints: list[pa.RecordBatch]) -> list[pa.RecordBatch]: ...
def statistics_merge(partials: list[bytes], repeats: list[bytes]) -> bytes: ...
def bucket_edges(
    batch: pa.RecordBatch,
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> pa.RecordBatch: ...
def is_sampled(threshold: float = 0.8, keep: str | None = None, cluster: str | None = None, **options: Any) -> bool: ...
def sampled_candidates(
    batches: list[pa.RecordBatch],
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> pa.RecordBatch: ...
def sampled_split(batch: pa.RecordBatch, partitions: int) -> list[pa.RecordBatch]: ...
def candidate_pairs(batch: pa.RecordBatch, partitions: int) -> tuple[pa.RecordBatch, pa.RecordBatch]: ...
def texts_for_requests(batch: pa.RecordBatch, text: str = "text", index: str = "__lookalike_index") -> pa.RecordBatch: ...
def route_texts(batch: pa.RecordBatch) -> pa.RecordBatch: ...
def verify_pairs(
    batch: pa.RecordBatch,
    all: bool = False,
    threshold: float = 0.8,
    keep: str | None = None,
    cluster: str | None = None,
    statistics: bytes | None = None,
    **options: Any,
) -> pa.RecordBatch: ...
def connected_step(batch: pa.RecordBatch, step: str) -> pa.RecordBatch: ...

# The kernels of lookalike.ray.read.
def expand_paths(paths: list[str]) -> list[str]: ...
def boilerplate_applies(paths: list[str], format: str | None = None, boilerplate: str = "auto") -> bool: ...
def plain_jsonl(paths: list[str], format: str | None = None) -> list[bool]: ...
def count_newlines(path: str, ranges: list[tuple[int, int]]) -> list[int]: ...
def read_part(
    paths: list[str],
    part: int,
    cleaning: bool,
    id_field: str = "id",
    text_field: str = "text",
    extract: str = "main",
    format: str | None = None,
    batch_size: int = 4096,
    boilerplate: str = "auto",
    site_field: str | None = None,
    range: tuple[int, int, int] | None = None,
) -> pa.RecordBatchReader: ...
def clean_part(batch: pa.RecordBatch, template: bytes) -> pa.RecordBatch: ...
def rename_rows(batch: pa.RecordBatch, renames: pa.RecordBatch) -> pa.RecordBatch: ...

class SiteCounts:
    def __init__(self, boilerplate_min_pages: int | None = None, boilerplate_min_share: float | None = None) -> None: ...
    def add(self, batch: pa.RecordBatch) -> None: ...
    def template(self) -> bytes: ...

class UniqueNames:
    def __init__(self) -> None: ...
    def add(self, batch: pa.RecordBatch) -> pa.RecordBatch: ...
    def renamed(self) -> int: ...

class Components:
    def __init__(
        self,
        n: int,
        threshold: float = 0.8,
        keep: str | None = None,
        cluster: str | None = None,
        **options: Any,
    ) -> None: ...
    def add_edges(self, batch: pa.RecordBatch) -> None: ...
    def add_ids(self, batch: pa.RecordBatch, id: str = "id", index: str = "__lookalike_index") -> None: ...
    def add_components(self, batch: pa.RecordBatch) -> None: ...
    def cluster(self) -> pa.RecordBatch: ...
    def add_similarities(self, batch: pa.RecordBatch) -> None: ...
    def finish(self) -> tuple[pa.Table, pa.Table, str]: ...
