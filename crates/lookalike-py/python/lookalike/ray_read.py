"""``lookalike.ray.read``: lookalike's readers as a ``ray.data.Dataset``, so that a crawl (WARC,
folders of HTML pages, JSONL, Parquet, the docreader format, gzip) goes to Ray without a
conversion, with the rows ``lookalike.read`` gives: the same ids, texts and skipped records as
``lookalike dedup`` reads them.

The input files are read in parallel, one Ray task per group of files (``_lookalike.read_part``).
What needs the whole collection in input order runs on the driver over small columns only:

1. with site boilerplate removal, every page's block keys (16 bytes a line) are counted per site
   (``_lookalike.SiteCounts``, as the CLI's first pass counts them) and the frozen template is
   sent to the tasks that clean the pages (``_lookalike.clean_part``);
2. ids are made unique as the CLI makes them (a later record with an earlier record's id gets
   ``id#origin``; ``_lookalike.UniqueNames`` over the ``id`` and ``origin`` columns), and the
   renamed rows are put in place (``_lookalike.rename_rows``).

The dataset is materialized after reading, after cleaning and at the end (Ray's object store,
which spills to disk), its blocks in input order; the driver streams the small columns.
"""

from __future__ import annotations

import os
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from . import _lookalike


def _groups(paths: list[str], tasks: int) -> list[list[str]]:
    """``paths`` in order, cut into at most ``tasks`` contiguous groups of about equal bytes."""
    sizes = []
    for p in paths:
        try:
            sizes.append(max(1, os.path.getsize(p)))
        except OSError:
            sizes.append(1)  # the reader reports it, in its task
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


def _read(batch: pa.Table, cleaning: bool, options: dict[str, Any], cwd: str) -> Iterator[pa.Table]:
    for item in batch.to_pylist():
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
            reader = _lookalike.read_part(item["paths"], item["part"], cleaning, **options)
            batches = [b for b in reader if b.num_rows]
        finally:
            if relative:
                os.chdir(here)
        for b in batches:
            yield pa.Table.from_batches([b])


def _clean(table: pa.Table, template: bytes) -> pa.Table:
    batches = [_lookalike.clean_part(b, template) for b in table.to_batches() if b.num_rows]
    if not batches:
        return table.select([f.name for f in _SCHEMA] + ["__part", "__row"])
    return pa.Table.from_batches(batches)


def _rename(table: pa.Table, renames: pa.RecordBatch, skipped: bool) -> pa.Table:
    batches = [_lookalike.rename_rows(b, renames) for b in table.to_batches() if b.num_rows]
    out = pa.Table.from_batches(batches, schema=_SCHEMA)
    if not skipped:
        out = out.filter(pc.is_valid(out["text"]))
    return out


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
_RENAMES = pa.schema([("__part", pa.int32(), False), ("__row", pa.int64(), False), ("id", pa.string(), False)])


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
    CPUs, at most one per file); files are grouped in input order by size. ``progress``: one
    line on standard error per step; ``verbose``: Ray Data's own logs and progress bars.

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
    groups = _groups(inputs, max(1, min(tasks, len(inputs))))

    with _job("lookalike.ray.read", progress, verbose) as say:
        say(f"reading {len(inputs)} files in {len(groups)} tasks")
        items = [{"part": i, "paths": g} for i, g in enumerate(groups)]
        ds = (
            ray.data.from_items(items, override_num_blocks=len(items))
            .map_batches(
                _read,
                batch_format="pyarrow",
                batch_size=1,
                fn_kwargs=dict(cleaning=cleaning, options=options, cwd=os.getcwd()),
            )
            .materialize()
        )
        if cleaning:
            say("counting each site's blocks")
            for t in ds.select_columns(["__sites", "__blocks", "__identity"]).iter_batches(
                batch_format="pyarrow", batch_size=None
            ):
                for b in t.to_batches():
                    counts.add(b)
            template = counts.template()
            say(f"removing the sites' templates ({len(template)} bytes)")
            ds = ds.map_batches(
                _clean, batch_format="pyarrow", batch_size=None, fn_kwargs=dict(template=template)
            ).materialize()
        names = _lookalike.UniqueNames()
        renames = []
        rows = left_out = 0
        for t in ds.select_columns(["id", "origin", "skipped", "__part", "__row"]).iter_batches(
            batch_format="pyarrow", batch_size=None
        ):
            rows += t.num_rows
            left_out += t.num_rows - pc.count(t["skipped"], mode="only_null").as_py()
            for b in t.to_batches():
                r = names.add(b)
                if r.num_rows:
                    renames.append(r)
        # Never a silent loss: what was not read as a document is counted.
        kept = "kept in the dataset, their reasons in \"skipped\"" if skipped else "left out (skipped=False)"
        say(f"{rows} records read, {left_out} of them skipped ({kept})")
        table = pa.Table.from_batches(renames, schema=_RENAMES).combine_chunks()
        batch = table.to_batches()[0] if table.num_rows else pa.RecordBatch.from_pylist([], schema=_RENAMES)
        say(f"{names.renamed()} repeated ids renamed")
        # Materialized while the order is kept: the dataset's blocks are in input order.
        out = ds.map_batches(
            _rename, batch_format="pyarrow", batch_size=None, fn_kwargs=dict(renames=batch, skipped=skipped)
        ).materialize()
    return out
