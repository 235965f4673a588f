"""lookalike.Index: the persistent index of `lookalike index`, from Python."""

from __future__ import annotations

import json
import subprocess

import pytest

import lookalike

from conftest import read_corpus


def test_adding_one_at_a_time_gives_dedups_fates(corpus, tmp_path):
    docs = read_corpus(corpus)
    index = lookalike.Index(tmp_path / "idx", create=True, threshold=0.8)
    answers = [index.add(d["id"], d["text"]) for d in docs]
    # The index decides as documents arrive: center clusters, the first document kept.
    batch = lookalike.dedup_texts(
        [d["text"] for d in docs], [d["id"] for d in docs], keep="first", cluster="center"
    ).table.to_pylist()
    assert [a["status"] for a in answers] == [r["status"] for r in batch]
    for a, r in zip(answers, batch):
        if a["status"] == "duplicate":
            assert a["of"] == r["kept_id"], a
            assert a["duplicate"] and a["matches"], a
    assert sum(a["status"] == "duplicate" for a in answers) > 0
    assert len(index) == sum(a["inserted"] for a in answers)


def test_check_inserts_nothing_add_replaces_and_remove_deletes(tmp_path):
    text = "near duplicate detection finds documents that are almost the same in a large collection of pages"
    index = lookalike.Index(str(tmp_path / "idx"), create=True)
    first = index.add("a", text)
    assert first["status"] == "kept" and first["inserted"] and not first["replaced"]
    seen = index.check(text + " today")
    assert seen["duplicate"] and seen["matches"][0]["id"] == "a" and not seen["inserted"]
    assert len(index) == 1
    # HTML is decoded as `lookalike serve` decodes it.
    page = index.check(html=f"<html><body><nav>menu</nav><article><p>{text}</p></article></body></html>")
    assert page["status"] == "duplicate" and page["of"] == "a"
    again = index.add("a", text + " again")
    assert again["replaced"] and len(index) == 1
    empty = index.check("")
    assert empty["status"] == "skipped" and empty["reason"]
    assert index.remove("a") is True
    assert index.remove("a") is False
    assert len(index) == 0


def test_get_gives_the_document_held_under_an_id_or_none(cli, tmp_path):
    """Issue 33 item 16: an id can be looked up, from Python as from `lookalike index get`."""
    text = "near duplicate detection finds documents that are almost the same in a large collection of pages"
    index = lookalike.Index(str(tmp_path / "idx"), create=True)
    index.add("a", html=f"<html><body><nav>menu</nav><article><p>{text}</p></article></body></html>")
    held = index.get("a")
    assert held == {"id": "a", "text": held["text"]} and text in held["text"]
    assert index.get("b") is None
    del index
    out = subprocess.run([cli, "index", "get", str(tmp_path / "idx"), "a"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == held
    index = lookalike.Index(str(tmp_path / "idx"))
    index.remove("a")
    assert index.get("a") is None


def test_the_cli_reads_what_python_wrote(cli, tmp_path):
    path = tmp_path / "idx"
    index = lookalike.Index(path, create=True, threshold=0.7)
    index.add("x", "the archive keeps every page that the crawler has fetched since the spring")
    index.add("y", "the archive keeps every page that the crawler has fetched since the spring, twice")
    del index
    stats = json.loads(subprocess.run([str(cli), "index", "stats", str(path)], capture_output=True, text=True, check=True).stdout)
    assert stats["documents"] == 2
    verify = subprocess.run([str(cli), "index", "verify", str(path)], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    reopened = lookalike.Index(path)
    assert len(reopened) == 2
    assert json.loads(reopened.stats_json())["documents"] == 2
    assert "0.7" in reopened.describe()


def test_index_errors_are_python_exceptions(tmp_path):
    with pytest.raises(OSError, match="no index"):
        lookalike.Index(tmp_path / "missing")
    with pytest.raises(ValueError):
        lookalike.Index(tmp_path / "bad", create=True, threshold=1.5)
    index = lookalike.Index(tmp_path / "idx", create=True)
    with pytest.raises(OSError, match="already exists"):
        lookalike.Index(tmp_path / "idx", create=True)
    with pytest.raises(ValueError, match="frozen"):
        lookalike.Index(tmp_path / "idx", method="simhash")
    with pytest.raises(ValueError, match="not both"):
        index.check("text", html="<p>text</p>")
    with pytest.raises(ValueError, match="collection statistics"):
        lookalike.Index(tmp_path / "imatch", create=True, method="i-match")


def test_an_index_with_a_learned_site_template_answers_as_the_cli(cli, tmp_path):
    from test_read import write_site

    # A crawl's pages as records with URL ids (their site is the host): each page's visible
    # text, sidebar and footer included.
    write_site(tmp_path)
    rows = lookalike.read([str(tmp_path / "site")], extract="text", boilerplate="off").read_all().to_pylist()
    pages = [(f"https://docs.example/{r['id'].rsplit('/', 1)[1]}", r["text"]) for r in sorted(rows, key=lambda r: r["id"])]
    sample = tmp_path / "crawl.jsonl"
    sample.write_text("".join(json.dumps({"id": u, "text": t}) + "\n" for u, t in pages))
    mirror, page3 = "https://docs.example/mirror-page3.html", "https://docs.example/page3.html"

    # Without a template, the pages match each other by their sidebar.
    plain = lookalike.Index(tmp_path / "plain", create=True, threshold=0.5)
    assert sum(plain.add(u, t)["duplicate"] for u, t in pages) > 5
    # With the template learned from the crawl, only the planted mirror copy is a duplicate.
    index = lookalike.Index(tmp_path / "idx", create=True, threshold=0.5, boilerplate_from=[str(sample)], boilerplate="all")
    answers = [index.add(u, t) for u, t in pages]
    assert [(a["id"], a["of"]) for a in answers if a["duplicate"]] == [(page3, mirror)]
    # The CLI's index, created and fed the same way, says the same.
    cli_idx = str(tmp_path / "cli-idx")
    made = subprocess.run([str(cli), "index", "create", cli_idx, "-t", "0.5", "--boilerplate-from", str(sample), "--boilerplate", "all"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    added = subprocess.run([str(cli), "index", "add", cli_idx, str(sample)], capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    cli_answers = [json.loads(line) for line in added.stdout.splitlines()]
    assert [(a["id"], a["status"], a["of"]) for a in answers] == [(a["id"], a["status"], a.get("of")) for a in cli_answers]
    stats = json.loads(index.stats_json())
    assert stats["format"] == 3 and stats["template"]["mode"] == "all" and stats["template"]["sites_with_template"] == 1
    # The template is kept: a reopened index cleans a page of the host checked alone.
    del index
    reopened = lookalike.Index(tmp_path / "idx")
    again = reopened.check(dict(pages)[page3], id="https://docs.example/new.html")
    assert {m["id"] for m in again["matches"]} == {mirror, page3}
    assert len(plain.check(dict(pages)[page3], id="https://docs.example/new.html")["matches"]) > 2
    with pytest.raises(ValueError, match="give it too"):
        lookalike.Index(tmp_path / "x", create=True, site_field="host")
    with pytest.raises(ValueError, match="nothing would be learned"):
        lookalike.Index(tmp_path / "y", create=True, boilerplate_from=[str(sample)], boilerplate="off")
    with pytest.raises(ValueError, match="no page to learn|is a page"):
        lookalike.Index(tmp_path / "z", create=True, boilerplate_from=[str(sample)])
    with pytest.raises(ValueError, match="when the index is created"):
        lookalike.Index(tmp_path / "idx", boilerplate_from=[str(sample)])


def test_a_batch_answers_as_one_document_at_a_time_and_as_the_cli(cli, corpus, tmp_path):
    docs = read_corpus(corpus)
    texts = [d.get("text") for d in docs]
    ids = [f"b{i}" for i in range(len(docs))]
    one = lookalike.Index(tmp_path / "one", create=True)
    singles = [one.add(i, t if t is not None else "") for i, t in zip(ids, texts)]
    many = lookalike.Index(tmp_path / "many", create=True, durability="fast")
    batched = many.add_batch(ids[:150], texts[:150]) + many.add_batch(ids[150:], texts[150:])
    many.flush()
    assert batched == singles
    assert sum(a["status"] == "duplicate" for a in batched) > 20
    # The CLI's index add of the same documents says the same.
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids, texts)))
    subprocess.run([str(cli), "index", "create", str(tmp_path / "cli")], check=True, capture_output=True)
    out = subprocess.run([str(cli), "index", "add", str(tmp_path / "cli"), str(jsonl)], capture_output=True, text=True)
    cli_fates = [(a["id"], a["status"], a.get("of")) for a in map(json.loads, out.stdout.splitlines())]
    assert [(a["id"], a["status"], a["of"]) for a in batched] == cli_fates
    # A batch check is each document checked alone against the index; nothing is inserted.
    probes = texts[:40]
    assert many.check_batch(probes) == [many.check(t if t is not None else "") for t in probes]
    assert len(many) == len(docs)
    html = many.check_batch(htmls=["<html><body><p>" + texts[0] + "</p></body></html>", None])
    assert html[0]["matches"][0]["id"] == "b0" and html[1]["status"] == "skipped"
    with pytest.raises(ValueError, match="texts has 1 items, ids 2"):
        many.add_batch(["x", "y"], ["only one"])
    with pytest.raises(ValueError, match="durability"):
        lookalike.Index(tmp_path / "many", durability="sometimes")
