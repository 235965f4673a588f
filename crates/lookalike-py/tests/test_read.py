"""lookalike.read: the CLI's readers as Arrow batches."""

from __future__ import annotations

import csv
import gzip
import random
import subprocess

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import lookalike
from conftest import ROOT


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


WARC_SAMPLES = ROOT.parent / "shared" / "data" / "warc-samples"

FOOTER = "<footer><p>Copyright the project authors. Built with the site generator, hosted by a friendly host.</p></footer>"
TOPICS = [
    "The parser reads each record and hands the decoded text to the shingler in input order",
    "Bands of the signature are hashed into buckets and documents sharing a bucket are candidates",
    "Exact verification compares the shingle sets of both documents and keeps pairs above the threshold",
    "The spill folder holds sorted runs on disk when the collection does not fit in memory",
    "Representatives are chosen by the keep policy: the first document, the longest or the shortest",
    "A damaged gzip member loses only itself and the reader goes on with the next member",
    "Charsets are found from the byte order mark, the HTTP header, a meta declaration or detection",
    "The report writes one line per document with its fate, its cluster and its similarity",
    "Clusters are built by union-find over the verified pairs, or as stars around their heads",
    "The index keeps each document's keys in tables so that a query needs a few lookups only",
]

# A documentation sidebar: 80 entries of 6 words on every page (random words: a sidebar's
# entries share few word sequences).
_words = sorted({w.strip(",.").lower() for t in TOPICS for w in t.split()})
_pick = random.Random(7)
NAV = "\n".join(f"<li><a href='/{i}'>{' '.join(_pick.sample(_words, 6))}</a></li>" for i in range(80))


def site_page(title: str, topic: str) -> str:
    # The page's own text: the topic, and the topic's words backwards (unique to the page).
    body = f"{topic}. {' '.join(reversed(topic.split()))}."
    return f"<html><head><title>{title}</title></head><body><nav><ul>{NAV}</ul></nav><div class='content'><h1>{title}</h1><p>{body}</p></div>{FOOTER}</body></html>"


def write_site(root) -> None:
    site = root / "site"
    site.mkdir()
    for i, topic in enumerate(TOPICS):
        (site / f"page{i}.html").write_text(site_page(f"Page {i}", topic))
    # A planted copy of page 3 on a mirror path: it shares every block with page 3.
    (site / "mirror-page3.html").write_text(site_page("Page 3", TOPICS[3]))


def cli_pairs(cli, inputs, tmp_path, *args) -> dict:
    out = tmp_path / "cli-pairs.tsv"
    run = subprocess.run([str(cli), "dedup", *map(str, inputs), "-q", "--pairs", str(out), *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    with out.open() as f:
        return {(r[0], r[1]): round(float(r[2]), 6) for r in csv.reader(f, delimiter="\t")}


def python_pairs(inputs, **read_options) -> dict:
    table = lookalike.read([str(p) for p in inputs], **read_options).read_all()
    table = table.filter(pc.is_valid(table["text"]))
    result = lookalike.dedup(table, id="id")
    return {(p["id1"], p["id2"]): round(p["similarity"], 6) for p in result.pairs.to_pylist()}


@pytest.mark.parametrize("mode", ["auto", "off"])
@pytest.mark.parametrize("extract", ["main", "text"])
def test_read_removes_site_boilerplate_as_the_cli_does(cli, tmp_path, mode, extract):
    write_site(tmp_path)
    site = tmp_path / "site"
    ours = python_pairs([site], boilerplate=mode, extract=extract)
    assert ours == cli_pairs(cli, [site], tmp_path, "--boilerplate", mode, "--extract", extract)
    planted = (str(site / "mirror-page3.html"), str(site / "page3.html"))
    assert planted in ours
    if mode == "auto" or extract == "main":
        # The navigation and the footer are the site's template (or not the main content): only
        # the planted copy is left.
        assert list(ours) == [planted]
    else:
        # Without removal the template makes every page look like every other.
        assert len(ours) > 10


def test_read_reports_what_boilerplate_removal_took(tmp_path):
    write_site(tmp_path)
    rows = lookalike.read([str(tmp_path / "site")], extract="text").read_all().to_pylist()
    assert len(rows) == 11
    for r in rows:
        assert r["boilerplate_source"] in ("main", "visible")
        assert 0 < r["boilerplate_removed_bytes"] < r["boilerplate_before_bytes"]
        assert "Copyright the project authors" not in r["text"]
    off = lookalike.read([str(tmp_path / "site")], extract="text", boilerplate="off").read_all()
    assert off["boilerplate_source"].null_count == 11
    assert all("Copyright the project authors" in t for t in off["text"].to_pylist())
    with pytest.raises(ValueError, match="boilerplate mode"):
        lookalike.read([str(tmp_path / "site")], boilerplate="sometimes")
    with pytest.raises(ValueError, match="share"):
        lookalike.read([str(tmp_path / "site")], boilerplate_min_share=2.0)


@pytest.mark.skipif(not WARC_SAMPLES.exists(), reason="the shared WARC samples are not there")
@pytest.mark.parametrize("mode", ["auto", "off"])
def test_read_of_real_crawl_records_pairs_as_the_cli(cli, tmp_path, mode):
    warcs = sorted(p for p in WARC_SAMPLES.iterdir() if ".warc" in p.name)
    ours = python_pairs(warcs, boilerplate=mode)
    assert ours == cli_pairs(cli, warcs, tmp_path, "--boilerplate", mode)
    # The footer-only directory pages are false pairs that only boilerplate removal avoids.
    assert (len(ours) == 0) == (mode == "auto")
