"""Every example in python/examples runs, prints its result, and type-checks with mypy --strict.

Each runs as a user runs it (`python python/examples/NAME.py ARGS`), in a child process, on the
generated corpus; its answer is checked against `lookalike.dedup` on the same input.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import lookalike

from conftest import ROOT, read_corpus

EXAMPLES = ROOT / "python" / "examples"


def run(name: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, f"{name}: {out.stderr[-3000:]}"
    return out


def test_every_example_is_tested() -> None:
    tested = {
        "minhash_lsh.py",
        "containment.py",
        "dedup_jsonl.py",
        "dedup_parquet.py",
        "ray_dedup.py",
        "ray_components.py",
        "ray_crawl.py",
    }
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_minhash_lsh_finds_the_edited_copy() -> None:
    out = run("minhash_lsh.py")
    lines = out.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("a: estimated Jaccard 0.9"), out.stdout


def test_containment_finds_the_column_holding_the_query() -> None:
    out = run("containment.py")
    # world_cities holds 95% of the query; eu_cities 50%, ports 25%, colours none.
    assert out.stdout == "world_cities: holds 38 of the 40 query values\n", out.stdout


def duplicates(docs: list[dict]) -> int:
    result = lookalike.dedup([d["text"] for d in docs], threshold=0.8)
    return sum(1 for s in result.table["status"].to_pylist() if s == "duplicate")


def test_dedup_jsonl_writes_the_unique_documents(corpus: Path, tmp_path: Path) -> None:
    target = tmp_path / "unique.jsonl"
    out = run("dedup_jsonl.py", str(corpus), str(target))
    docs = read_corpus(corpus)
    removed = duplicates(docs)
    assert removed > 0
    assert out.stdout.startswith(f"{len(docs)} documents, {removed} duplicates in "), out.stdout
    kept = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(kept) == len(docs) - removed
    assert kept[0] == docs[0]


def test_dedup_parquet_writes_the_unique_rows(corpus: Path, tmp_path: Path) -> None:
    docs = read_corpus(corpus)
    source, target = tmp_path / "corpus.parquet", tmp_path / "unique.parquet"
    pq.write_table(pa.Table.from_pylist([{"id": d["id"], "text": d["text"]} for d in docs]), source)
    out = run("dedup_parquet.py", str(source), str(target))
    removed = duplicates(docs)
    assert out.stdout.startswith(f"{len(docs)} documents, {removed} near or exact duplicates removed")
    assert "kept" in out.stdout and "duplicate" in out.stdout
    assert pq.read_table(target).num_rows == len(docs) - removed


def test_ray_dedup_prints_stages_not_ray_logs(corpus: Path, tmp_path: Path) -> None:
    docs = read_corpus(corpus)
    out = run("ray_dedup.py", str(corpus), str(tmp_path / "fates"))
    assert f"'documents': {len(docs)}" in out.stdout, out.stdout
    assert f"'duplicates': {duplicates(docs)}" in out.stdout, out.stdout
    lines = out.stderr.splitlines()
    ours = [i for i, line in enumerate(lines) if line.startswith("lookalike.ray.dedup: ")]
    stages = [lines[i].split(": ", 1)[1].rsplit(" (", 1)[0] for i in ours]
    assert stages[0] == "method minhash: numbering the rows", out.stderr
    assert stages[-1] == f"done: {len(docs)} documents", out.stderr
    assert len(stages) == 5, out.stderr
    # While the job runs, Ray Data's INFO lines and progress (about 130 lines for this job
    # before) stay off unless verbose=True; the example's own read and write still log theirs.
    info = [line for line in lines[ours[0] : ours[-1]] if " INFO " in line]
    assert not info, "\n".join(info[:10])
    fates = pq.read_table(tmp_path / "fates")
    assert fates.num_rows == len(docs)


def test_ray_components_prints_the_components() -> None:
    out = run("ray_components.py")
    assert out.stdout.splitlines()[0] == "[(1, 1), (2, 1), (3, 1), (10, 10), (11, 10), (12, 10)]"


def test_ray_crawl_reads_a_site_and_prints_its_copy(tmp_path: Path) -> None:
    from test_read import write_site

    write_site(tmp_path)
    site = tmp_path / "site"
    out = run("ray_crawl.py", str(site))
    lines = out.stdout.splitlines()
    # The sidebar and the footer are the site's template: only the mirrored page is a pair.
    assert lines[0] == "11 documents, 1 near-duplicate pairs", out.stdout
    assert lines[1] == f"1.000  {site}/mirror-page3.html  {site}/page3.html", out.stdout


def test_examples_type_check_strictly(tmp_path: Path) -> None:
    mypy = pytest.importorskip("mypy.api")
    # A cache of its own: a developer's .mypy_cache from checking other modules (with their own
    # errors) would otherwise be read back into this run.
    stdout, stderr, status = mypy.run(["--strict", "--cache-dir", str(tmp_path / "mypy"), str(EXAMPLES)])
    assert status == 0, stdout + stderr
