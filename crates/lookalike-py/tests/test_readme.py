"""The README's Python blocks, run as a user runs them, on small inputs under the names they use.

Substitutions, so that they run here: the Ray block's ``s3://bucket/...`` paths are local folders,
its ``ray.init()`` is the tests' local cluster (already started), and 256 partitions are 4; the
names the blocks leave to the reader (``page_html``) are given. The answers are checked against
``lookalike.dedup`` and the CLI on the same input.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.parquet as pq

import lookalike

from conftest import ROOT, read_corpus

README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def block(needle: str) -> str:
    found = [b for b in BLOCKS if needle in b]
    assert len(found) == 1, f"one README Python block holds {needle!r}: {len(found)}"
    return found[0]


def warc(records: list[tuple[str, str]]) -> bytes:
    out = b""
    for uri, html in records:
        body = f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}".encode()
        head = f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Length: {len(body)}\r\n\r\n"
        out += gzip.compress(head.encode() + body + b"\r\n\r\n")
    return out


def test_the_pandas_block_runs_as_a_script(corpus, tmp_path):
    rows = [{"id": r["id"], "text": r["text"]} for r in read_corpus(corpus)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "in.parquet")
    script = tmp_path / "dedup_parquet.py"
    script.write_text(block("pd.read_parquet"))
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "in.parquet"), str(tmp_path / "out.parquet")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    want = lookalike.dedup(pa.Table.from_pylist(rows), text="text", id="id", threshold=0.8).table.to_pylist()
    kept = [r["id"] for r in want if r["status"] != "duplicate"]
    assert pq.read_table(tmp_path / "out.parquet")["id"].to_pylist() == kept
    assert "duplicate" in run.stdout and "kept" in run.stdout


def test_the_arrow_block_runs(cli, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.jsonl").write_text(corpus.read_text())
    pages = [(f"https://x.example/{i}", f"<html><body><main><p>{r['text']}</p></main></body></html>") for i, r in enumerate(read_corpus(corpus)[:40])]
    (tmp_path / "crawl.warc.gz").write_bytes(warc(pages))
    made = subprocess.run([str(cli), "index", "create", "crawl.idx"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    added = subprocess.run([str(cli), "index", "add", "crawl.idx", "crawl.warc.gz", "-q"], capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    names: dict = {"page_html": pages[0][1]}
    exec(compile(block("pyarrow.json.read_json"), "README.md", "exec"), names)
    assert names["unique"].num_rows == sum(s != "duplicate" for s in names["result"].table["status"].to_pylist())
    cli_pairs = subprocess.run([str(cli), "dedup", "crawl.warc.gz", "-q", "--pairs", "-"], capture_output=True, text=True, check=True).stdout
    assert names["same_as_cli"].pairs.num_rows == len(cli_pairs.splitlines())
    assert [m["id"] for m in names["idx"].check(html=pages[0][1])["matches"]][:1] == [pages[0][0]]


def test_the_ray_blocks_run(ray_cluster, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = read_corpus(corpus)
    (tmp_path / "corpus").mkdir()
    pq.write_table(pa.Table.from_pylist([{"url": r["id"], "text": r["text"]} for r in rows]), tmp_path / "corpus" / "part-0.parquet")
    (tmp_path / "crawl").mkdir()
    pages = [(f"https://x.example/{i}", f"<html><body><main><p>{r['text']}</p></main></body></html>") for i, r in enumerate(rows[:40])]
    (tmp_path / "crawl" / "a.warc.gz").write_bytes(warc(pages))
    code = block("lookalike.ray.dedup(ds, text=")
    code = code.replace("ray.init()", "pass").replace("s3://bucket/corpus/", str(tmp_path / "corpus"))
    code = code.replace("s3://bucket/fates/", str(tmp_path / "fates")).replace("num_partitions=256", "num_partitions=4")
    names: dict = {}
    exec(compile(code, "README.md", "exec"), names)
    written = pq.read_table(tmp_path / "fates")
    want = lookalike.dedup(pa.Table.from_pylist([{"url": r["id"], "text": r["text"]} for r in rows]), text="text", id="url", threshold=0.8)
    assert sorted(written["id"].to_pylist()) == sorted(r["id"] for r in want.table.to_pylist() if r["status"] != "duplicate")
    exec(compile(block('lookalike.ray.read(["crawl/"]'), "README.md", "exec"), names)
    # The streamed job over a folder of JSONL shards: lookalike.dedup's documents and pairs.
    (tmp_path / "shards").mkdir()
    for k in range(3):
        with (tmp_path / "shards" / f"part-{k}.jsonl").open("w") as f:
            f.writelines(json.dumps({"id": r["id"], "text": r["text"]}) + "\n" for r in rows[k * 150 : (k + 1) * 150])
    streamed: dict = {}
    code = block("stream=True").replace("/data/shards/", str(tmp_path / "shards"))
    exec(compile(code, "README.md", "exec"), {"ray": ray_cluster, "lookalike": lookalike}, streamed)
    local = lookalike.dedup(pa.Table.from_pylist([{"id": r["id"], "text": r["text"]} for r in rows]), id="id")
    assert pa.concat_tables(ray_cluster.get(streamed["result"].pairs.to_arrow_refs())).equals(local.pairs)
    assert local.pairs.num_rows > 0
    local = lookalike.read(["crawl/"]).read_all()
    local = local.filter(pa.compute.is_valid(local["text"]))
    assert names["result"].pairs.count() == lookalike.dedup(local, id="id").pairs.num_rows > 0
    assert json.dumps(names["result"].stats)  # the stats are plain data
