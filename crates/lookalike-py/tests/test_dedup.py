"""lookalike.dedup: the CLI's answer from Python, over strings, pyarrow and polars."""

from __future__ import annotations

import csv
import json
import subprocess
import threading
import time

import pyarrow as pa
import pytest

import lookalike
from conftest import read_corpus


def cli_run(cli, corpus, tmp_path, *args) -> tuple[set, list]:
    pairs, clusters = tmp_path / "pairs.tsv", tmp_path / "clusters.jsonl"
    run = subprocess.run(
        [str(cli), "dedup", str(corpus), "-q", "--pairs", str(pairs), "--clusters", str(clusters), *args],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    with pairs.open() as f:
        pair_set = {(r[0], r[1]): float(r[2]) for r in csv.reader(f, delimiter="\t")}
    cluster_list = [
        (c["representative"], sorted((m["id"], m["match"], m["similarity"]) for m in c["members"]))
        for c in map(json.loads, clusters.read_text().splitlines())
    ]
    return pair_set, cluster_list


def result_pairs(result) -> dict:
    return {(p["id1"], p["id2"]): p["similarity"] for p in result.pairs.to_pylist()}


def same_pairs(ours: dict, cli: dict) -> bool:
    """The same pairs, with similarities equal up to the CLI's 6 decimals."""
    return ours.keys() == cli.keys() and all(abs(ours[k] - cli[k]) <= 1e-6 for k in ours)


def same_clusters(ours: list, cli: list) -> bool:
    """The same clusters and representatives, members matched the same way, similarities equal
    up to the CLI's 6 decimals."""
    if len(ours) != len(cli):
        return False
    for (rep, members), (cli_rep, cli_members) in zip(ours, cli):
        if rep != cli_rep or [m[:2] for m in members] != [m[:2] for m in cli_members]:
            return False
        if any(abs(a[2] - b[2]) > 1e-6 for a, b in zip(members, cli_members)):
            return False
    return True


def result_clusters(table: pa.Table) -> list:
    rows = table.to_pylist()
    by_cluster: dict[int, list] = {}
    for r in rows:
        if r["cluster"] is not None:
            by_cluster.setdefault(r["cluster"], []).append(r)
    out = []
    for n in sorted(by_cluster):
        rep = next(r["id"] for r in by_cluster[n] if r["status"] == "kept")
        members = sorted(
            (r["id"], r["match"], r["similarity"]) for r in by_cluster[n] if r["status"] == "duplicate"
        )
        out.append((rep, members))
    return out


def corpus_table(corpus) -> pa.Table:
    docs = read_corpus(corpus)
    return pa.table({"id": [d["id"] for d in docs], "text": [d["text"] for d in docs]})


@pytest.mark.parametrize(
    "method, extra",
    [
        ("minhash", []),
        ("minhash", ["--keep", "longest", "--cluster", "clique"]),
        ("minhash", ["--cluster", "connected", "--num-perm", "64"]),
        ("simhash", ["--max-distance", "auto"]),
        ("supershingles", []),
        ("mod-m", ["--measure", "containment"]),
        ("min-s", []),
        ("broder", []),
        ("combined", ["--verify", "estimate"]),
        ("i-match", []),
        ("partitioned", []),
        ("tf-ridf", []),
        ("long-sentences", []),
        ("refwords", ["--refwords", "200"]),
        ("spotsigs", ["--threshold", "0.6"]),
        ("exact", []),
    ],
)
def test_same_pairs_and_clusters_as_the_cli(cli, corpus, tmp_path, method, extra):
    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, *extra)
    # The CLI flags as keyword options.
    options: dict = {}
    it = iter(extra)
    for flag in it:
        options[flag.lstrip("-").replace("-", "_")] = next(it)
    threshold = float(options.pop("threshold", 0.8))
    keep, cluster = options.pop("keep", None), options.pop("cluster", None)
    for k in ("num_perm", "refwords"):
        if k in options:
            options[k] = int(options[k])
    result = lookalike.dedup(
        corpus_table(corpus), id="id", method=method, threshold=threshold, keep=keep, cluster=cluster, **options
    )
    assert same_pairs(result_pairs(result), cli_pairs)
    assert same_clusters(result_clusters(result.table), cli_clusters)
    assert result.table.num_rows == 400


def test_strings_pyarrow_and_polars_give_the_same_table(corpus):
    table = corpus_table(corpus)
    from_arrow = lookalike.dedup(table, id="id")
    from_reader = lookalike.dedup(pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=37)), id="id")
    assert from_reader.table.equals(from_arrow.table)
    from_strings = lookalike.dedup_texts(table["text"].to_pylist(), table["id"].to_pylist())
    assert from_strings.table.equals(from_arrow.table)
    assert from_strings.pairs.equals(from_arrow.pairs)
    pl = pytest.importorskip("polars")
    from_polars = lookalike.dedup(pl.from_arrow(table), id="id")
    assert from_polars.table.equals(from_arrow.table)
    # Large strings and string views are read too.
    large = table.cast(pa.schema([("id", pa.large_string()), ("text", pa.large_string())]))
    assert lookalike.dedup(large, id="id").table.equals(from_arrow.table)


def test_a_list_of_strings_gets_positions_as_ids_and_every_fate():
    texts = [
        "the quick brown fox jumps over the lazy dog again and again",
        "The quick brown fox jumps over the lazy dog again and again!",
        "a completely different text about something else entirely",
        "",
        "!!! ???",
    ]
    r = lookalike.dedup(texts, threshold=0.7)
    assert r.table["id"].to_pylist() == ["0", "1", "2", "3", "4"]
    assert r.table["status"].to_pylist() == ["kept", "duplicate", "kept", "skipped", "skipped"]
    assert r.table["kept_id"].to_pylist() == ["0", "0", "2", None, None]
    assert r.table["match"].to_pylist()[1] == "exact-text"
    assert r.table["reason"].to_pylist()[3:] == ["empty text", "no tokens after normalization"]
    assert r.stats["stats"]["documents"] == 5
    table, pairs = r
    assert pairs.to_pylist() == [{"id1": "0", "id2": "1", "similarity": 1.0, "match": "exact-text"}]


def test_bad_inputs_raise_clear_exceptions():
    with pytest.raises(ValueError, match="text 1 .* is None"):
        lookalike.dedup(["a b c", None])
    table = pa.table({"id": ["a", "b"], "body": ["x y", "z w"]})
    with pytest.raises(ValueError, match='no text column "text": the columns are id, body'):
        lookalike.dedup(table, id="id")
    with pytest.raises(ValueError, match='no id column "url"'):
        lookalike.dedup(table, text="body", id="url")
    with pytest.raises(TypeError, match='the id column "id" holds List.*, which cannot be an id'):
        lookalike.dedup(pa.table({"id": [[1], [2]], "text": ["a", "b"]}), id="id")
    with pytest.raises(ValueError, match="row 1 .* is null"):
        lookalike.dedup(pa.table({"text": ["a b", None]}))
    with pytest.raises(ValueError, match="unknown option"):
        lookalike.dedup(["a"], num_perms=3)
    with pytest.raises(ValueError, match="threshold"):
        lookalike.dedup(["a"], threshold=1.5)
    with pytest.raises(ValueError, match="method"):
        lookalike.dedup(["a"], method="nope")
    with pytest.raises(ValueError, match="bands"):
        lookalike.dedup(["a"], bands=40, rows=40)
    with pytest.raises(ValueError, match="num_perm=.*expected"):
        lookalike.dedup(["a"], num_perm="many")
    with pytest.raises(TypeError, match="not str"):
        lookalike.dedup(["a", 3])
    with pytest.raises(TypeError):
        lookalike.dedup("just one string")
    with pytest.raises(OSError):
        lookalike.dedup(["a b c d e f"], method="i-match", lexicon="/nonexistent/lex.bin")


def test_integer_ids_are_accepted_as_the_cli_accepts_them(cli, tmp_path):
    """Regression (issue 33, item 21): integer ids raised TypeError; the CLI reads them (as
    their JSON text). The same table gives the same ids and fates in Python and in the CLI."""
    import pyarrow.parquet as pq

    texts = [
        "the quick brown fox jumps over the lazy dog again and again",
        "the quick brown fox jumps over the lazy dog again and again",
        "a completely different text about something else entirely",
    ]
    for ids, want in [
        ([10, 20, 30], ["10", "20", "30"]),
        ([1.5, 2.0, -3.25], ["1.5", "2.0", "-3.25"]),
        ([True, False, None], ["true", "false", None]),
    ]:
        table = pa.table({"id": ids, "text": texts})
        if None in ids:
            with pytest.raises(ValueError, match='row 2: the id column "id" is null'):
                lookalike.dedup(table, id="id")
            continue
        r = lookalike.dedup(table, id="id")
        assert r.table["id"].to_pylist() == want
        pq.write_table(table, tmp_path / "t.parquet")
        report = tmp_path / "report.jsonl"
        run = subprocess.run(
            [str(cli), "dedup", str(tmp_path / "t.parquet"), "-q", "--report", str(report)],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr
        lines = [json.loads(line) for line in report.read_text().splitlines()]
        assert [line["id"] for line in lines] == want
        assert [line["status"] for line in lines] == r.table["status"].to_pylist()


def test_degenerate_method_values_are_refused():
    """Regression (issue 33, item 22): the CLI's validation, shared."""
    for method, option, message in [
        ("long-sentences", "sentences", "sentences 0 is not in 1..=64"),
        ("tf-ridf", "ridf_words", "ridf-words 0 is not in 1..=256"),
        ("spotsigs", "spot_chain", "spot-chain 0 is not at least 1"),
        ("refwords", "refwords", "refwords 0 is not at least 1"),
    ]:
        with pytest.raises(ValueError, match=message):
            lookalike.dedup(["a b c d e f g h"], method=method, **{option: 0})


def test_the_gil_is_released_during_a_call(corpus):
    texts = [d["text"] for d in read_corpus(corpus)] * 8
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
    lookalike.dedup(texts, shingle="chars:5")
    elapsed = time.perf_counter() - start
    during = progress - before
    stop.set()
    t.join()
    assert elapsed > 0.05, "the call was too short to tell"
    # With the GIL held by the call the counter could not move (no bytecode runs); released, the
    # other thread counts all along.
    assert during > 10_000, (during, elapsed)
