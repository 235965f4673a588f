"""``lookalike.ray.read``: lookalike's readers as a ``ray.data.Dataset``, so that a crawl (WARC,
folders of HTML pages, JSONL, Parquet, the docreader format, gzip) goes to Ray without a
conversion, with the rows ``lookalike.read`` gives: the same ids, texts and skipped records as
``lookalike dedup`` reads them.

The input files are read in parallel, one Ray task per group of files (``_lookalike.read_part``),
or per byte range of a file too large for one task's share: an uncompressed JSONL file
(``_lookalike.plain_jsonl``) is cut into ranges of about equal bytes, each range reading the
lines that start in it, numbered as in the whole file (the newlines before each range are counted
on the driver first, ``_lookalike.count_newlines``), so that ids, origins and skipped lines are
those of a reading of the whole file. Each task yields its rows as blocks of about Ray Data's
target block size (a Ray generator task), kept in Ray's object store (which spills to disk) in
input order. What needs the whole collection in input order runs on the driver over small
columns only, fetched a block at a time:

1. with site boilerplate removal, every page's block keys (16 bytes a line) are counted per site
   (``_lookalike.SiteCounts``, as the CLI's first pass counts them) and the frozen template is
   sent to the tasks that clean the pages (``_lookalike.clean_part``);
2. ids are made unique as the CLI makes them (a later record with an earlier record's id gets
   ``id#origin``; ``_lookalike.UniqueNames`` over the ``id`` and ``origin`` columns, rows told
   apart by block and position), and only the blocks with a renamed id (or, with
   ``skipped=False``, a skipped record) are written again (``_lookalike.rename_rows``).

The result is a materialized dataset over those blocks (``ray.data.from_arrow_refs``), made by
plain Ray tasks without Ray Data's execution: a clean input is read and stored once, and no
statistics or autoscaling actor is started (``bench/results/ray-read-tasks-2026-11-29.md``).
"""

from __future__ import annotations

import os
import time
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from . import _lookalike
from . import _tasks
from ._tasks import _in_task


# The smallest byte range a file is cut into: a smaller file is read whole, in one task.
_MIN_RANGE = 8 << 20


def _sizes(paths: list[str]) -> list[int]:
    sizes = []
    for p in paths:
        try:
            sizes.append(max(1, os.path.getsize(p)))
        except OSError:
            sizes.append(1)  # the reader reports it, in its task
    return sizes


def _groups(paths: list[str], tasks: int) -> list[list[str]]:
    """``paths`` in order, cut into at most ``tasks`` contiguous groups of about equal bytes."""
    sizes = _sizes(paths)
    total = sum(sizes)
    groups: list[list[str]] = [[]]
    done = 0
    for p, size in zip(paths, sizes):
        # Start a new group when this one has its share of the bytes.
        if groups[-1] and done >= total * len(groups) / tasks and len(groups) < tasks:
            groups.append([])
        groups[-1].append(p)
        done += size
    return groups


def _parts(paths: list[str], tasks: int, format: str | None, min_range: int) -> list[dict[str, Any]]:
    """The reading tasks, in input order: ``{"paths": [...], "range": None}`` for a group of whole
    files, ``{"paths": [path], "range": [start, end, newlines_before]}`` for a byte range of a
    file. About ``tasks`` parts of about equal bytes: a file of several parts' share (and at least
    two ``min_range``) is cut into ranges if it is uncompressed JSONL; the files between are
    grouped as ``_groups`` groups them, in as many groups as their share of the bytes (with
    nothing cut, as ``_groups(paths, min(tasks, len(paths)))``)."""
    sizes = _sizes(paths)
    total = sum(sizes)
    share = total / tasks
    cut = [min(round(size / share), size // min_range) >= 2 for size in sizes]
    candidates = [p for p, c in zip(paths, cut) if c]
    plain = dict(zip(candidates, _lookalike.plain_jsonl(candidates, format))) if candidates else {}
    parts: list[dict[str, Any]] = []
    run: list[str] = []

    def whole() -> None:
        if run:
            # At least one group, at most one per file: the run's share of the tasks.
            n = max(1, min(len(run), round(tasks * sum(_sizes(run)) / total)))
            parts.extend({"paths": g, "range": None} for g in _groups(run, n))
            run.clear()

    for p, size, c in zip(paths, sizes, cut):
        if not (c and plain[p]):
            run.append(p)
            continue
        whole()
        n = min(round(size / share), size // min_range)
        cuts = [size * i // n for i in range(n)] + [size]
        ranges = list(zip(cuts, cuts[1:]))
        before = 0
        for (start, end), newlines in zip(ranges, _lookalike.count_newlines(p, ranges)):
            parts.append({"paths": [p], "range": [start, end, before]})
            before += newlines
    # With nothing cut, the files are grouped as _groups(paths, min(tasks, len(paths))) groups them.
    whole()
    return parts


@_in_task
def _read(item: dict[str, Any], cleaning: bool, options: dict[str, Any], cwd: str, target: int) -> Iterator[pa.Table]:
    """One reading part's rows as blocks of about ``target`` bytes (a Ray generator task). With
    ``cleaning`` the blocks keep what the template pass needs; without it they have the columns
    of ``read`` only (rows are told apart by block and position, ``_names``)."""
    # Relative paths name files in the driver's folder (and ids keep them as given, as the
    # CLI's do): a task runs in a folder of Ray's, so it reads from the driver's.
    relative = any(not os.path.isabs(p) for p in item["paths"])
    here = os.getcwd()
    if relative:
        if not os.path.isdir(cwd):
            raise OSError(
                f"relative paths name files in {cwd}, which this Ray node does not have: "
                "give absolute paths on a shared file system"
            )
        os.chdir(cwd)
    try:
        span = item["range"]
        reader = _lookalike.read_part(
            item["paths"], item["part"], cleaning, range=tuple(span) if span else None, **options
        )
        names = None if cleaning else [f.name for f in _SCHEMA]
        batches: list[pa.RecordBatch] = []
        size = 0
        for b in reader:
            if not b.num_rows:
                continue
            batches.append(b if names is None else b.select(names))
            size += b.nbytes
            if size >= target:
                yield pa.Table.from_batches(batches)
                batches, size = [], 0
        if batches:
            yield pa.Table.from_batches(batches)
    finally:
        if relative:
            os.chdir(here)


def _sites(block: pa.Table) -> pa.Table:
    return block.select(["__sites", "__blocks", "__identity"])


@_in_task
def _clean(table: pa.Table, template: bytes) -> pa.Table:
    batches = [_lookalike.clean_part(b, template) for b in table.to_batches() if b.num_rows]
    return pa.Table.from_batches(batches).select([f.name for f in _SCHEMA])


def _names(block: pa.Table) -> pa.Table:
    """What the renaming pass needs of a block: its ``id``, ``origin`` and ``skipped``."""
    return block.select(["id", "origin", "skipped"])


def _with_rows(table: pa.Table, block: int) -> pa.RecordBatch:
    """A (non-empty) block's rows told apart as ``UniqueNames`` and ``rename_rows`` tell them
    apart: ``__part`` the block's position, ``__row`` the row's in it."""
    n = table.num_rows
    return (
        table.combine_chunks()
        .append_column(pa.field("__part", pa.int32(), False), pa.array([block] * n, pa.int32()))
        .append_column(pa.field("__row", pa.int64(), False), pa.array(range(n), pa.int64()))
        .to_batches()[0]
    )


@_in_task
def _rename(table: pa.Table, block: int, renames: pa.RecordBatch | None, skipped: bool) -> pa.Table:
    """Block ``block`` with its renamed ids in place (``renames``: this block's, or None) and,
    without ``skipped``, its skipped rows left out."""
    if renames is not None:
        table = pa.Table.from_batches([_lookalike.rename_rows(_with_rows(table, block), renames)], schema=_SCHEMA)
    if not skipped:
        table = table.filter(pc.is_valid(table["text"]))
    return table


_SCHEMA = pa.schema(
    [
        ("id", pa.string(), False),
        ("text", pa.string()),
        ("title", pa.string()),
        ("origin", pa.string(), False),
        ("charset", pa.string()),
        ("warning", pa.string()),
        ("skipped", pa.string()),
        ("boilerplate_source", pa.string()),
        ("boilerplate_removed_bytes", pa.uint64()),
        ("boilerplate_before_bytes", pa.uint64()),
    ]
)
# A block's bytes when Ray Data's context does not say (its default target).
_BLOCK_BYTES = 128 << 20


def _in_order(task: Any, blocks: list) -> Iterator[pa.Table]:
    """``task`` (a small table of each block) over ``blocks``, run in parallel, its tables given
    in order, each fetched once and dropped before the next."""
    import ray

    refs = [task.remote(b) for b in blocks]
    for i in range(len(refs)):
        ref, refs[i] = refs[i], None
        yield ray.get(ref)


def read(
    paths: list[str] | str,
    id_field: str = "id",
    text_field: str = "text",
    extract: str = "main",
    format: str | None = None,
    boilerplate: str = "auto",
    site_field: str | None = None,
    boilerplate_min_pages: int | None = None,
    boilerplate_min_share: float | None = None,
    skipped: bool = True,
    tasks: int | None = None,
    batch_size: int = 4096,
    progress: bool = True,
    verbose: bool = False,
) -> Any:
    """Read files, directories and globs into a ``ray.data.Dataset`` with the rows of
    ``lookalike.read`` (``id``, ``text``, ``title``, ``origin``, ``charset``, ``warning``,
    ``skipped``, ``boilerplate_source``, ``boilerplate_removed_bytes``,
    ``boilerplate_before_bytes``), in input order: ``lookalike.ray.dedup(read(paths,
    skipped=False))`` finds the pairs ``lookalike dedup PATHS`` finds.

    The reading options are ``lookalike.read``'s (and the CLI's): ``id_field``/``text_field``
    (JSONL, Parquet), ``extract`` (``"main"``, ``"text"``, ``"none"``), ``format`` (forced),
    ``boilerplate`` (``"auto"``: web pages; ``"all"``; ``"off"``), ``site_field``,
    ``boilerplate_min_pages``, ``boilerplate_min_share``. ``skipped=False`` leaves out the rows
    without text (records that are not documents: WARC requests, binary payloads, unreadable
    lines...; ``skipped`` says why). ``tasks``: reading tasks (default: twice the cluster's
    CPUs); files are grouped in input order by size, and an uncompressed JSONL file of several
    tasks' share of the bytes (and at least 16 MiB) is read in byte ranges by several tasks,
    with the rows a reading of the whole file gives. ``progress``: one
    line on standard error per step, and one at most every 10 s while the files are read (the
    blocks read so far); ``verbose``: Ray Data's own logs and progress bars.

    Raises ``OSError`` when the paths name nothing readable, ``ValueError`` for a bad option or
    standard input (``-``), which Ray tasks cannot read.
    """
    import ray

    from .ray import _job

    if isinstance(paths, (str, os.PathLike)):
        paths = [os.fspath(paths)]
    if not paths:
        raise ValueError("no paths to read")
    options = dict(
        id_field=id_field,
        text_field=text_field,
        extract=extract,
        format=format,
        batch_size=batch_size,
        boilerplate=boilerplate,
        site_field=site_field,
    )
    # Options first: a bad one fails here, before any task runs.
    counts = _lookalike.SiteCounts(boilerplate_min_pages, boilerplate_min_share)
    inputs = _lookalike.expand_paths([os.fspath(p) for p in paths])
    cleaning = _lookalike.boilerplate_applies(inputs, format, boilerplate)
    if tasks is None:
        cpus = int(ray.cluster_resources().get("CPU", 1)) if ray.is_initialized() else os.cpu_count() or 1
        tasks = 2 * max(1, cpus)

    with _job("lookalike.ray.read", progress, verbose) as say:
        parts = _parts(inputs, max(1, tasks), format, _MIN_RANGE)
        ranges = [p for p in parts if p["range"] is not None]
        cut = f" ({len({p['paths'][0] for p in ranges})} cut into {len(ranges)} byte ranges)" if ranges else ""
        say(f"reading {len(inputs)} files{cut} in {len(parts)} tasks")
        items = [dict(p, part=i) for i, p in enumerate(parts)]
        context = ray.data.DataContext.get_current()
        target = context.target_max_block_size or _BLOCK_BYTES
        read_part = ray.remote(_read).options(num_returns="streaming")
        streams = [read_part.remote(item, cleaning, options, os.getcwd(), target) for item in items]
        # The blocks in input order: each part's, in the order it yields them (a line now and
        # then while a long read runs).
        blocks = []
        told = time.monotonic()
        for done, stream in enumerate(streams):
            for ref in stream:
                blocks.append(ref)
                if time.monotonic() - told >= _tasks.PROGRESS_SECONDS:
                    n = len(blocks)
                    say(f"{n} block{'s' if n != 1 else ''} read (task {done + 1} of {len(parts)})")
                    told = time.monotonic()
        del streams
        if cleaning:
            say("counting each site's blocks")
            for t in _in_order(ray.remote(_sites), blocks):
                for b in t.to_batches():
                    counts.add(b)
            template = counts.template()
            say(f"removing the sites' templates ({len(template)} bytes)")
            clean = ray.remote(_clean)
            blocks = [clean.remote(b, template) for b in blocks]
        names = _lookalike.UniqueNames()
        renames: dict[int, pa.RecordBatch] = {}
        with_skipped: set[int] = set()
        rows = left_out = 0
        for k, t in enumerate(_in_order(ray.remote(_names), blocks)):
            rows += t.num_rows
            n = t.num_rows - pc.count(t["skipped"], mode="only_null").as_py()
            left_out += n
            if n:
                with_skipped.add(k)
            if t.num_rows:
                r = names.add(_with_rows(t, k))
                if r.num_rows:
                    renames[k] = r
        # Never a silent loss: what was not read as a document is counted.
        kept = "kept in the dataset, their reasons in \"skipped\"" if skipped else "left out (skipped=False)"
        say(f"{rows} records read, {left_out} of them skipped ({kept})")
        say(f"{names.renamed()} repeated ids renamed")
        # Only the blocks with a renamed id (or, without skipped, a skipped row) are written
        # again; the others are the dataset's as read.
        rename = ray.remote(_rename)
        out = [
            rename.remote(b, k, renames.get(k), skipped) if k in renames or (not skipped and k in with_skipped) else b
            for k, b in enumerate(blocks)
        ]
        if not out:
            return ray.data.from_arrow(pa.Table.from_batches([], schema=_SCHEMA))
        return ray.data.from_arrow_refs(out)

