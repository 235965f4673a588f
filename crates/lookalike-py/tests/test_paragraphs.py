"""lookalike.paragraphs: the CLI's cleaned texts from Python, over strings, pyarrow and polars."""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pyarrow as pa
import pytest

import lookalike
from conftest import read_corpus


def cli_texts(cli, corpus, tmp_path, *args) -> list[str]:
    out = tmp_path / "cleaned.jsonl"
    run = subprocess.run(
        [str(cli), "paragraphs", str(corpus), "-q", "--output", str(out), *args],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return [json.loads(line)["text"] for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    "cli_args, options",
    [
        ((), {}),
        (("--min-chars", "20"), {"min_chars": 20}),
        (("--bloom", "1M"), {"bloom_bytes": "1M"}),
        (("--bloom", "256", "--bloom-items", "50"), {"bloom_bytes": 256, "bloom_items": 50}),
    ],
)
def test_the_same_cleaned_texts_as_the_cli(cli, corpus, tmp_path, cli_args, options):
    docs = read_corpus(corpus)
    texts = [d["text"] for d in docs]
    expected = cli_texts(cli, corpus, tmp_path, *cli_args)
    assert len(expected) == len(texts)
    assert sum(a != b for a, b in zip(expected, texts)) > 10, "the corpus has repeated paragraphs"

    assert lookalike.paragraphs(texts, **options) == expected
    table = pa.table({"id": [d["id"] for d in docs], "text": texts})
    # Read in uneven batches: batches must not matter.
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=37))
    out = lookalike.paragraphs(reader, **options)
    assert out["text"].to_pylist() == expected
    assert out["id"].to_pylist() == table["id"].to_pylist()
    # The bytes too, not only the strings.
    assert [t.encode() for t in out["text"].to_pylist()] == [t.encode() for t in expected]


def test_spans_say_what_was_cut_and_where_it_was_first_seen():
    table = pa.table(
        {
            "url": ["http://a/", "http://b/", "http://c/", "http://d/"],
            "body": [
                "Intro to rivers.\nCookie notice: we use cookies.\n",
                None,
                "COOKIE NOTICE - we use cookies!\r\nMountains are tall.\nmountains ARE tall",
                "Plain text.",
            ],
            "score": [0.5, 1.0, None, 2.0],
        }
    )
    out = lookalike.paragraphs(table, text_column="body")
    assert out.column_names == ["url", "body", "score", "removed_spans"]
    rows = out.to_pylist()
    assert rows[0]["body"] == table["body"][0].as_py()
    assert rows[1]["body"] is None and rows[1]["removed_spans"] == []
    assert rows[2]["body"] == "Mountains are tall.\n"
    assert rows[2]["removed_spans"] == [
        {"start": 0, "end": 33, "first_seen": 0},
        {"start": 53, "end": 71, "first_seen": 2},
    ]
    original = table["body"][2].as_py().encode()
    kept = b"".join(
        original[a:b]
        for a, b in zip([0] + [s["end"] for s in rows[2]["removed_spans"]], [s["start"] for s in rows[2]["removed_spans"]] + [len(original)])
    )
    assert kept.decode() == rows[2]["body"]
    assert rows[2]["score"] is None and rows[3]["score"] == 2.0
    stats = json.loads(out.schema.metadata[b"lookalike.paragraphs"])
    assert stats["stats"]["documents"] == 3
    assert stats["stats"]["removed"] == 2

    bloom = lookalike.paragraphs(table, text_column="body", bloom_bytes=1 << 16, spans_column="cut")
    assert bloom["body"].to_pylist() == out["body"].to_pylist()
    assert [s["first_seen"] for s in bloom["cut"][2].as_py()] == [None, None]
    assert "false_positive_rate" in json.loads(bloom.schema.metadata[b"lookalike.paragraphs"])["bloom"]
    assert lookalike.paragraphs(table, text_column="body", spans_column=None).column_names == ["url", "body", "score"]


def test_min_chars_and_large_strings():
    texts = pa.array(["Home\nA long enough line.\n", "Home\na LONG enough line"], type=pa.large_string())
    table = pa.table({"text": texts})
    out = lookalike.paragraphs(table, min_chars=5)
    assert out.schema.field("text").type == pa.large_string()
    assert out["text"].to_pylist() == ["Home\nA long enough line.\n", "Home\n"]


def test_polars_in_polars_out():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"id": [1, 2], "text": ["same line\nfirst", "Same line!\nsecond"]})
    out = lookalike.paragraphs(df)
    assert isinstance(out, pl.DataFrame)
    assert out["text"].to_list() == ["same line\nfirst", "second"]
    assert out["id"].to_list() == [1, 2]


def test_bad_inputs_raise_clear_exceptions():
    with pytest.raises(TypeError, match="not a single string"):
        lookalike.paragraphs("a text")
    with pytest.raises(TypeError, match="text 1 is int"):
        lookalike.paragraphs(["a", 3])
    table = pa.table({"text": ["a"], "removed_spans": [1]})
    with pytest.raises(ValueError, match="removed_spans"):
        lookalike.paragraphs(table)
    with pytest.raises(ValueError, match="no text column"):
        lookalike.paragraphs(pa.table({"body": ["a"]}))
    with pytest.raises(ValueError, match="bloom_bytes"):
        lookalike.paragraphs(["a"], bloom_items=10)
    with pytest.raises(ValueError, match="invalid size"):
        lookalike.paragraphs(["a"], bloom_bytes="lots")


def test_the_gil_is_released_during_a_call(corpus):
    texts = [d["text"] for d in read_corpus(corpus)] * 40
    progress = 0
    running = threading.Event()
    stop = threading.Event()

    def count():
        nonlocal progress
        running.set()
        while not stop.is_set():
            progress += 1

    t = threading.Thread(target=count)
    t.start()
    running.wait()
    time.sleep(0.05)
    before = progress
    start = time.perf_counter()
    lookalike.paragraphs(texts)
    elapsed = time.perf_counter() - start
    during = progress - before
    stop.set()
    t.join()
    assert elapsed > 0.05, "the call was too short to tell"
    assert during > 10_000, (during, elapsed)
