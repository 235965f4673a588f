"""lookalike.read: the CLI's readers as Arrow batches."""

from __future__ import annotations

import gzip

import pyarrow as pa
import pytest

import lookalike


def test_reads_jsonl_html_and_gzip_with_every_record_accounted_for(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"id":"x","text":"hello there"}\nnot json\n{"id":"x","text":"again"}\n')
    (tmp_path / "b.html").write_text("<title>T</title><nav>menu</nav><p>Hi &amp; bye</p>")
    with gzip.open(tmp_path / "c.jsonl.gz", "wt") as f:
        f.write('{"id":"z","text":"zipped"}\n')
    reader = lookalike.read([str(tmp_path)], batch_size=2)
    assert isinstance(reader, pa.RecordBatchReader)
    table = reader.read_all()
    rows = table.to_pylist()
    assert [r["id"] for r in rows] == ["x", f"{tmp_path}/a.jsonl:2", f"x#{tmp_path}/a.jsonl:3", f"{tmp_path}/b.html", "z"]
    assert rows[0]["text"] == "hello there" and rows[0]["origin"].endswith("a.jsonl:1")
    assert rows[1]["text"] is None and rows[1]["skipped"].startswith("invalid JSON")
    assert rows[3]["title"] == "T" and "Hi & bye" in rows[3]["text"]
    assert rows[4]["text"] == "zipped"


def test_read_feeds_dedup(tmp_path):
    text = "near duplicate detection finds documents that are almost the same in a large collection"
    (tmp_path / "a.jsonl").write_text(
        "\n".join(f'{{"id":"d{i}","text":"{text}{"!" * i}"}}' for i in range(3)) + "\n"
    )
    table = lookalike.read([str(tmp_path / "a.jsonl")]).read_all()
    result = lookalike.dedup(table, id="id")
    assert result.table["status"].to_pylist() == ["kept", "duplicate", "duplicate"]


def test_read_errors():
    with pytest.raises(OSError):
        lookalike.read(["/nonexistent/corpus.jsonl"])
    with pytest.raises(ValueError, match="extraction"):
        lookalike.read(["."], extract="everything")
    with pytest.raises(ValueError, match="format"):
        lookalike.read(["."], format="docx")
