"""lookalike.ray.dedup: the same clusters and pairs as the CLI and lookalike.dedup."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

import lookalike
from conftest import read_corpus
from test_dedup import cli_run, corpus_table, result_clusters, result_pairs, same_clusters, same_pairs


def collect(ray, ds) -> pa.Table:
    return pa.concat_tables(ray.get(ds.to_arrow_refs()))


def assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters):
    """The Ray run's documents and pairs equal `lookalike.dedup`'s tables, whose pairs and
    clusters equal the CLI's; returns the Ray run's documents."""
    documents = collect(ray, result.dataset)
    assert documents.equals(local.table)
    assert collect(ray, result.pairs).equals(local.pairs)
    assert same_pairs(result_pairs(local), cli_pairs)
    assert same_clusters(result_clusters(documents), cli_clusters)
    return documents


#: The defaults and connected clustering (one task's union-find at 1 partition, the distributed
#: components at 4) at 1 and 4 partitions; the greedy modes at 4, where documents and pairs cross
#: partitions (at 1 they ran the same clustering task on the same rows, for 40-80 s of the CI's
#: Python step under load).
PARITY_RUNS = [
    (None, None, 1),
    (None, None, 4),
    ("first", "connected", 1),
    ("first", "connected", 4),
    ("longest", "clique", 4),
    ("longest", "center-refine", 4),
]


@pytest.mark.parametrize("keep, cluster, partitions", PARITY_RUNS)
def test_three_way_parity_at_any_partition_count(ray_cluster, cli, corpus, tmp_path, partitions, keep, cluster):
    ray = ray_cluster
    import lookalike.ray as lray

    extra = []
    if keep:
        extra += ["--keep", keep]
    if cluster:
        extra += ["--cluster", cluster]
    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, *extra)
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", keep=keep, cluster=cluster)
    ds = ray.data.from_arrow(table).repartition(partitions)
    # connected at 4 partitions clusters with the distributed connected components (forced on at
    # this size), at 1 partition with the one task's union-find: both must give the CLI's answer.
    components = "distributed" if cluster == "connected" and partitions == 4 else "single"
    result = lray.dedup(
        ds, text="text", id="id", keep=keep, cluster=cluster, num_partitions=partitions, components=components
    )
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert result.stats["stats"]["documents"] == len(read_corpus(corpus))
    assert result.stats["components"] == components


#: The size rules' other side, forced (None: the default): the key shuffle in Ray Data's
#: repartition instead of Ray tasks, the verification join in Ray Data (two shuffles) instead of
#: the verification tasks, the clustering actor instead of the driver; with ``center-refine`` the
#: similarities the clustering asks for take the same path.
LARGE_PATHS = [
    (None, 0, 0, -1),
    ("center-refine", None, 0, -1),
    (None, None, 0, None),
    (None, None, None, -1),
]


@pytest.mark.parametrize("cluster, task_shuffle, task_verify, driver", LARGE_PATHS)
def test_ray_size_rules_both_sides_same_as_the_cli(
    ray_cluster, cli, corpus, tmp_path, monkeypatch, cluster, task_shuffle, task_verify, driver
):
    """The key shuffle in tasks or in Ray Data, verification in tasks or in Ray Data's join,
    clustering on the driver or in the actor: each side of TASK_SHUFFLE_DOCUMENTS,
    VERIFY_TASK_DOCUMENTS and DRIVER_EDGES gives lookalike.dedup's tables and the CLI's pairs
    and clusters (the defaults, on this corpus, are tasks, tasks and the driver)."""
    ray = ray_cluster
    import lookalike.ray as lray

    assert min(lray.TASK_SHUFFLE_DOCUMENTS, lray.VERIFY_TASK_DOCUMENTS, lray.DRIVER_EDGES) >= 400
    for name, value in (
        ("TASK_SHUFFLE_DOCUMENTS", task_shuffle),
        ("VERIFY_TASK_DOCUMENTS", task_verify),
        ("DRIVER_EDGES", driver),
    ):
        if value is not None:
            monkeypatch.setattr(lray, name, value)
    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, *(["--cluster", cluster] if cluster else []))
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", cluster=cluster)
    ds = ray.data.from_arrow(table).repartition(3)
    result = lray.dedup(ds, text="text", id="id", cluster=cluster, num_partitions=4)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) > 10


@pytest.mark.parametrize(
    "method, args, options",
    [
        ("tf-ridf", [], {}),
        ("tf-ridf", ["--verify", "estimate", "--cluster", "center-refine"], {"verify": "estimate", "cluster": "center-refine"}),
        ("broder", ["--max-docs-per-shingle", "3"], {"max_docs_per_shingle": 3}),
        ("spotsigs", [], {}),
    ],
)
def test_ray_new_methods_on_the_large_paths_same_as_the_cli(
    ray_cluster, cli, corpus, tmp_path, monkeypatch, method, args, options
):
    """The statistics stage's counts and the sampled methods' counted rows on the large side of
    the size rules (the key shuffle in Ray Data, verification in the join, clustering in the
    actor): the tables of lookalike.dedup and the CLI's pairs and clusters."""
    ray = ray_cluster
    import lookalike.ray as lray

    for name in ("TASK_SHUFFLE_DOCUMENTS", "VERIFY_TASK_DOCUMENTS"):
        monkeypatch.setattr(lray, name, 0)
    monkeypatch.setattr(lray, "DRIVER_EDGES", -1)
    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, *args)
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method=method, **options)
    ds = ray.data.from_arrow(table).repartition(3)
    result = lray.dedup(ds, text="text", id="id", method=method, num_partitions=4, **options)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) > 10


def test_ray_without_candidates(ray_cluster):
    """No pair shares a key: nothing to verify, every document alone, as lookalike.dedup says."""
    ray = ray_cluster
    import lookalike.ray as lray

    texts = ["alpha beta gamma delta epsilon", "one two three four five six", "seven eight nine ten"]
    ds = ray.data.from_arrow(pa.table({"text": texts}))
    for cluster in (None, "connected"):
        result = lray.dedup(ds, id=None, cluster=cluster, num_partitions=2)
        assert collect(ray, result.dataset).equals(lookalike.dedup(texts, cluster=cluster).table)
        assert collect(ray, result.pairs).num_rows == 0


def test_ray_on_nothing_gives_the_tables_of_nothing(ray_cluster):
    """A dataset without rows (blocks without columns after a filter, or no blocks at all) gives
    lookalike.dedup's empty tables, not an error about its columns."""
    ray = ray_cluster
    import lookalike.ray as lray

    one = pa.table({"id": ["a"], "text": ["some words to read"]})
    empty = pa.table({"id": pa.array([], pa.string()), "text": pa.array([], pa.string())})
    local = lookalike.dedup(empty, id="id")
    for ds in (ray.data.from_arrow(one).filter(lambda r: False), ray.data.from_items([]), ray.data.from_arrow(empty)):
        result = lray.dedup(ds, id="id", progress=False)
        assert collect(ray, result.dataset).equals(local.table)
        assert collect(ray, result.pairs).num_rows == 0
    with pytest.raises(ValueError, match="no text column 'body'"):
        lray.dedup(ray.data.from_arrow(empty), text="body", id="id", progress=False)


def test_ray_supershingles_same_as_the_cli(ray_cluster, cli, corpus, tmp_path):
    """Super-shingles on Ray: candidates share a mega-shingle (the core's keys), verified
    exactly; the CLI's clusters and pairs."""
    ray = ray_cluster
    import lookalike.ray as lray

    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", "supershingles")
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method="supershingles")
    ds = ray.data.from_arrow(table).repartition(4)
    result = lray.dedup(ds, text="text", id="id", method="supershingles", num_partitions=4)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) > 10
    assert result.stats["method"] == "supershingles (lookalike.ray)"


#: The methods whose candidates come from per-document keys, with CLI arguments and the same
#: options for Python (partitioned at k = 2: the subset keys), and the partition counts: each at 4
#: (keys and pairs cross partitions), SimHash at 1 too. Each Ray run costs 10-15 s
#: of Ray's own overhead whatever the corpus, and the CI's Python step must stay near 5 minutes.
KEYED_METHODS = [
    ("simhash", [], {}, 1),
    ("simhash", [], {}, 4),
    ("combined", [], {}, 4),
    ("long-sentences", [], {}, 4),
    ("partitioned", ["--min-shared", "2"], {"min_shared": 2}, 4),
    ("exact", [], {}, 4),
]


@pytest.mark.parametrize(
    "method, args, options, partitions", KEYED_METHODS, ids=[f"{m[0]}-{m[3]}" for m in KEYED_METHODS]
)
def test_ray_keyed_methods_same_as_the_cli(ray_cluster, cli, corpus, tmp_path, method, args, options, partitions):
    """SimHash, combined, long sentences, partitioned fingerprints and exact on Ray: candidates
    from each document's own keys (lookalike::method::DocKeyer), verified exactly; the clusters and
    pairs of lookalike.dedup and the CLI."""
    ray = ray_cluster
    import lookalike.ray as lray

    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, *args)
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method=method, **options)
    ds = ray.data.from_arrow(table).repartition(partitions)
    result = lray.dedup(ds, text="text", id="id", method=method, num_partitions=partitions, **options)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 12
    assert result.stats["method"] == f"{method} (lookalike.ray)"


@pytest.mark.parametrize(
    ("method", "build", "built"),
    [
        # I-Match's mid-IDF terms from the file's statistics.
        ("i-match", [], None),
        # Reference words chosen when the file was built (`--refwords`).
        ("refwords", ["--refwords", "200"], "200 reference words"),
    ],
)
def test_ray_with_a_lexicon_file_same_as_the_cli(ray_cluster, cli, corpus, tmp_path, method, build, built):
    """A method signed with a lexicon file (`lookalike lexicon build`) needs no pass over the
    collection: each document is signed alone with the file's statistics or words, so it runs on
    Ray with the CLI's answer."""
    import subprocess

    ray = ray_cluster
    import lookalike.ray as lray

    lexicon = tmp_path / "corpus.lexicon"
    run = subprocess.run(
        [str(cli), "lexicon", "build", str(corpus), *build, "-o", str(lexicon)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    if built is not None:
        assert built in run.stderr
    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, "--lexicon", str(lexicon))
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method=method, lexicon=str(lexicon))
    ds = ray.data.from_arrow(table).repartition(4)
    result = lray.dedup(ds, text="text", id="id", method=method, lexicon=str(lexicon), num_partitions=4)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 5


#: The methods signed with statistics of the input itself (the statistics stage: document and
#: collection frequencies, or reference words' relative term frequencies, counted per block, each
#: distinct text once), with CLI arguments and the same options for Python, each at 1 and 4
#: partitions.
STATISTICS_METHODS = [
    (method, args, options, partitions)
    for method, args, options in [
        ("i-match", [], {}),
        ("i-match-rand", [], {}),
        ("tf-ridf", [], {}),
        ("simhash", ["--weights", "tfidf"], {"weights": "tfidf"}),
        ("combined", ["--weights", "tfidf"], {"weights": "tfidf"}),
        ("refwords", ["--refwords", "200"], {"refwords": 200}),
    ]
    for partitions in (1, 4)
]


@pytest.mark.parametrize(
    "method, args, options, partitions", STATISTICS_METHODS, ids=[f"{m[0]}-{m[3]}" for m in STATISTICS_METHODS]
)
def test_ray_methods_with_collection_statistics_same_as_the_cli(
    ray_cluster, cli, corpus, tmp_path, method, args, options, partitions
):
    """I-Match, I-Match-rand and TF*RIDF without a lexicon file, SimHash and combined with tf-idf
    weights, reference words: the statistics stage counts the collection as the library counts
    its heads, and every document is signed with them (reference words: with the words chosen
    from them); the clusters and pairs of lookalike.dedup and the CLI."""
    ray = ray_cluster
    import lookalike.ray as lray

    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, *args)
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method=method, **options)
    ds = ray.data.from_arrow(table).repartition(partitions)
    result = lray.dedup(ds, text="text", id="id", method=method, num_partitions=partitions, **options)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 5
    assert result.stats["method"] == f"{method} (lookalike.ray)"


#: MOD-m, MIN-s and Broder (shared samples counted per pair), at 1 and 4 partitions, and with a
#: small L (frequent shingles: discounted sizes and the groups of saturated pages) at 4.
SAMPLED_METHODS = [
    (method, [], {}, partitions) for method in ("mod-m", "min-s", "broder") for partitions in (1, 4)
] + [
    ("mod-m", ["--max-docs-per-shingle", "3"], {"max_docs_per_shingle": 3}, 4),
    ("broder", ["--max-docs-per-shingle", "2", "--frequent-shingles", "skip"],
     {"max_docs_per_shingle": 2, "frequent_shingles": "skip"}, 4),
]


@pytest.mark.parametrize(
    "method, args, options, partitions",
    SAMPLED_METHODS,
    ids=[f"{m[0]}-{m[3]}{'-small-L' if m[2] else ''}" for m in SAMPLED_METHODS],
)
def test_ray_sampled_methods_same_as_the_cli(ray_cluster, cli, corpus, tmp_path, method, args, options, partitions):
    """MOD-m, MIN-s and Broder on Ray: the sampled shingles shuffled as keys, the shared samples
    counted per pair and the library's rule applied (frequent shingles, groups); the clusters and
    pairs of lookalike.dedup and the CLI."""
    ray = ray_cluster
    import lookalike.ray as lray

    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, *args)
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method=method, **options)
    ds = ray.data.from_arrow(table).repartition(partitions)
    if options:
        # Frequent shingles made groups of saturated pages (the CLI's sorted-groups path).
        assert local.stats["stats"]["method"]["broder"]["groups"] > 10
    result = lray.dedup(ds, text="text", id="id", method=method, num_partitions=partitions, **options)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 12
    assert result.stats["method"] == f"{method} (lookalike.ray)"


@pytest.mark.parametrize("partitions", [1, 4])
def test_ray_spotsigs_same_as_the_cli(ray_cluster, cli, corpus, tmp_path, partitions):
    """SpotSigs on Ray: the spots shuffled as keys with their counts, Σmin summed per pair, the
    pairs whose weighted Jaccard reaches the threshold (those of the library's spot index),
    verified exactly; the clusters and pairs of lookalike.dedup and the CLI."""
    ray = ray_cluster
    import lookalike.ray as lray

    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", "spotsigs")
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method="spotsigs")
    ds = ray.data.from_arrow(table).repartition(partitions)
    result = lray.dedup(ds, text="text", id="id", method="spotsigs", num_partitions=partitions)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 12
    assert result.stats["method"] == "spotsigs (lookalike.ray)"


#: Containment (exact verification) with the methods that reach it, at 1 and 4 partitions.
CONTAINMENT_RUNS = [("mod-m", None, 1), ("mod-m", "center-refine", 4), ("exact", "connected", 4)]


@pytest.mark.parametrize("method, cluster, partitions", CONTAINMENT_RUNS)
def test_ray_containment_same_as_the_cli(ray_cluster, cli, corpus, tmp_path, method, cluster, partitions):
    """measure="containment": verification computes the larger containment of each pair with
    its direction (the contained document first in the pairs), and each member's containment in
    its representative; the clusters and pairs of lookalike.dedup and the CLI."""
    ray = ray_cluster
    import lookalike.ray as lray

    extra = ["--cluster", cluster] if cluster else []
    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, "--measure", "containment", *extra)
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method=method, measure="containment", cluster=cluster)
    ds = ray.data.from_arrow(table).repartition(partitions)
    result = lray.dedup(
        ds, text="text", id="id", method=method, measure="containment", cluster=cluster, num_partitions=partitions
    )
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 12


#: Estimate verification (the method's own estimate and decision), with CLI arguments and the
#: same options for Python: at 1 and 4 partitions, a method with a statistics stage, a sampled
#: method under containment, SpotSigs, and a cluster mode that asks for similarities.
ESTIMATE_RUNS = [
    ("minhash", [], {}, 1),
    ("minhash", ["--cluster", "center-refine"], {"cluster": "center-refine"}, 4),
    ("tf-ridf", [], {}, 4),
    ("simhash", ["--weights", "tfidf"], {"weights": "tfidf"}, 4),
    ("mod-m", ["--measure", "containment"], {"measure": "containment"}, 4),
    ("spotsigs", [], {}, 4),
]


@pytest.mark.parametrize(
    "method, args, options, partitions", ESTIMATE_RUNS, ids=[f"{m[0]}-{m[3]}-{len(m[1])}" for m in ESTIMATE_RUNS]
)
def test_ray_estimate_verification_same_as_the_cli(ray_cluster, cli, corpus, tmp_path, method, args, options, partitions):
    """verify="estimate": verification computes the method's own estimate of each candidate
    pair from the two documents' texts (with the statistics stage's counts), and its decision;
    the clusters and pairs of lookalike.dedup and the CLI."""
    ray = ray_cluster
    import lookalike.ray as lray

    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, "--verify", "estimate", *args)
    table = corpus_table(corpus)
    local = lookalike.dedup(table, id="id", method=method, verify="estimate", **options)
    ds = ray.data.from_arrow(table).repartition(partitions)
    result = lray.dedup(
        ds, text="text", id="id", method=method, verify="estimate", num_partitions=partitions, **options
    )
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 5


def test_ray_statistics_count_each_text_once_whatever_the_blocks(ray_cluster):
    """Exact copies (other case and spacing) in other blocks and in the same block, texts
    without shingles: the statistics are those of the distinct texts, as lookalike.dedup counts
    them, so the signatures and the tables are the same at any block and partition count."""
    import random

    ray = ray_cluster
    import lookalike.ray as lray

    rng = random.Random(5)
    words = [f"w{i}" for i in range(300)]
    bases = [" ".join(rng.choice(words[: 40 + 26 * (i % 10)]) for _ in range(60)) for i in range(40)]
    texts = []
    for i in range(160):
        base = bases[rng.randrange(len(bases))]
        pick = rng.randrange(5)
        if pick == 0:
            texts.append(base.upper().replace(" ", "  "))
        elif pick == 1:
            t = base.split(" ")
            t[rng.randrange(len(t))] = rng.choice(words)
            texts.append(" ".join(t))
        elif pick == 2:
            texts.append(["", "  ", "!!! ???"][rng.randrange(3)])
        else:
            texts.append(base)
    table = pa.table({"id": [f"d{i}" for i in range(len(texts))], "text": texts})
    # Both give other tables when a repeated text is counted twice (checked by hand: with the
    # repeats' counts not subtracted, at 7 blocks).
    for method, options in [
        ("tf-ridf", {}),
        ("simhash", {"weights": "tfidf"}),
        ("refwords", {"refwords": 40, "refwords_min_bits": 2}),
    ]:
        local = lookalike.dedup(table, id="id", method=method, threshold=0.7, **options)
        matches = local.table["match"].to_pylist()
        assert matches.count("exact-text") > 10
        assert method == "simhash" or matches.count("near") > 10, (method, matches.count("near"))
        for blocks, partitions in [(1, 1), (7, 4), (13, 3)]:
            ds = ray.data.from_arrow(table).repartition(blocks)
            result = lray.dedup(ds, method=method, threshold=0.7, num_partitions=partitions, progress=False, **options)
            assert collect(ray, result.dataset).equals(local.table), (method, blocks)
            assert collect(ray, result.pairs).equals(local.pairs), (method, blocks)


def test_ray_without_an_id_column_numbers_the_rows(ray_cluster):
    ray = ray_cluster
    import lookalike.ray as lray

    texts = ["one two three four five six", "one two three four five six!", "", "seven eight nine ten eleven"]
    ds = ray.data.from_arrow(pa.table({"text": texts}))
    result = lray.dedup(ds, id=None, threshold=0.7)
    assert collect(ray, result.dataset).equals(lookalike.dedup(texts, threshold=0.7).table)


def test_ray_refuses_what_it_cannot_run(ray_cluster):
    ray = ray_cluster
    import lookalike.ray as lray

    ds = ray.data.from_arrow(pa.table({"id": ["a"], "text": ["x y z"]}))
    # Settings that need the whole collection before any candidate: refused, with the reason.
    with pytest.raises(ValueError, match="cannot run refwords: .*Hamming distance 2"):
        lray.dedup(ds, method="refwords", refwords_distance=2)
    with pytest.raises(ValueError, match='cannot run refwords with verify="estimate"'):
        lray.dedup(ds, method="refwords", verify="estimate")
    with pytest.raises(ValueError, match=r"cannot run partitioned: .*C\(64, 4\)"):
        lray.dedup(ds, method="partitioned", lists=64, min_shared=4)
    with pytest.raises(ValueError, match="no text column 'body'"):
        lray.dedup(ds, text="body")
    with pytest.raises(ValueError, match="unknown option"):
        lray.dedup(ds, nope=1)
    with pytest.raises(ValueError, match="components='bogus'"):
        lray.dedup(ds, components="bogus")
    with pytest.raises(ValueError, match="needs cluster=\"connected\""):
        lray.dedup(ds, components="distributed")


def test_ray_shuffle_carries_keys_not_shingle_sets(corpus):
    """The defect: every band row carried its document's shingle set (14.6x the text through the
    shuffle). The rows of the key shuffle now hold fixed-width keys only."""
    from lookalike import _lookalike

    table = corpus_table(corpus)
    batch = pa.RecordBatch.from_arrays(
        [table["text"].combine_chunks(), pa.array(range(table.num_rows), pa.int64())],
        names=["text", "__lookalike_index"],
    )
    rows = _lookalike.sketch_keys(batch, "text", "__lookalike_index")
    assert all(not pa.types.is_list(f.type) for f in rows.schema)
    # An exact row, a bytes row and one row per band (18 at the default threshold) per document...
    assert 18 * table.num_rows * 0.9 <= rows.num_rows <= 20 * table.num_rows
    # ...each of fixed width (key, band, document, fingerprint, value: 44 bytes; the raw
    # fingerprint and the length only on the bytes row), not a shingle set: a third of the text
    # here, where the shingle sets were 14.6x it.
    assert rows.nbytes <= 44 * rows.num_rows
    assert rows.nbytes < batch.column(0).nbytes / 3


def union_find_labels(edges: list[tuple[int, int]]) -> dict[int, int]:
    """The slow reference: each node's component as its smallest node."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {x: find(x) for x in list(parent)}


def test_distributed_components_equal_union_find_on_random_graphs(ray_cluster):
    ray = ray_cluster
    import random

    import lookalike.ray as lray

    rng = random.Random(14)
    nodes = rng.sample(range(10**9), 700)
    edges: list[tuple[int, int]] = []
    path = nodes[:60]  # a long path: the most rounds
    edges += list(zip(path, path[1:]))
    star = nodes[120:170]
    edges += [(star[0], x) for x in star[1:]]
    sparse = nodes[170:500]  # a random sparse graph: many components of all sizes
    edges += [tuple(rng.sample(sparse, 2)) for _ in range(300)]
    pairs = nodes[500:700]
    edges += list(zip(pairs[::2], pairs[1::2]))
    edges += [(b, a) for a, b in rng.sample(edges, 40)]  # repeated edges, both orientations
    edges += [(path[5], path[5])]  # a self-loop
    rng.shuffle(edges)
    # One partition: the rounds on the hardest shapes (each keyed repartition costs ~5 s of Ray
    # overhead on the CI machine at 2 or more partitions, 0.4 s at one). The partitioned run is
    # the three-way parity test's `connected` case at 4 partitions, on the corpus.
    ds = ray.data.from_arrow(pa.table({"a": [a for a, _ in edges], "b": [b for _, b in edges]})).repartition(4)
    labels = collect(ray, lray.connected_components(ds, num_partitions=1)).to_pylist()
    got = {r["node"]: r["component"] for r in labels}
    assert len(labels) == len(got)
    assert got == union_find_labels(edges)
    assert len(set(got.values())) > 50


def test_driver_bitmap_is_packed_bits_from_the_start():
    """The defect: the driver built a bool per document (1 GB at 10^9 documents) and packed it
    afterwards. The bitmap is now n/8 bytes from the start, marked in place, and reads back the
    documents that were marked, as numpy.packbits of the bool array would."""
    import numpy as np

    from lookalike.ray import _bitmap, _mark

    rng = np.random.default_rng(7)
    for n in (1, 8, 13, 1000, 4099):
        bitmap = _bitmap(n)
        assert bitmap.dtype == np.uint8 and bitmap.nbytes == (n + 7) // 8
        wanted = np.zeros(n, dtype=bool)
        for _ in range(3):
            docs = rng.integers(0, n, size=max(1, n // 5))
            _mark(bitmap, docs)
            wanted[docs] = True
        assert np.array_equal(bitmap, np.packbits(wanted))
        index = np.arange(n)
        read = ((bitmap[index >> 3] >> (7 - (index & 7))) & 1).astype(bool)
        assert np.array_equal(read, wanted)


def test_a_task_sizes_rayon_to_its_cpus_and_the_driver_is_left_alone(ray_cluster, monkeypatch):
    import os

    from lookalike._tasks import _in_task, _task_threads

    def threads() -> str | None:
        return os.environ.get("RAYON_NUM_THREADS")

    set_by_user = os.environ.get("RAYON_NUM_THREADS")
    # Ray starts workers with the driver's environment: a value the user set is kept.
    got = ray_cluster.get(ray_cluster.remote(_in_task(threads)).options(num_cpus=1).remote())
    assert got == (set_by_user or "1")
    monkeypatch.delenv("RAYON_NUM_THREADS", raising=False)
    _task_threads()
    assert "RAYON_NUM_THREADS" not in os.environ


def test_the_key_shuffle_runs_in_tasks_up_to_both_bounds(monkeypatch):
    import lookalike.ray as lray

    monkeypatch.setattr(lray, "TASK_SHUFFLE_DOCUMENTS", 1000)
    monkeypatch.setattr(lray, "TASK_SHUFFLE_PIECES", 64)
    assert lray._task_shuffle(1000, 8, 8)
    assert not lray._task_shuffle(1001, 8, 8)  # too many documents
    assert not lray._task_shuffle(10, 9, 8)  # too many pieces: 72 objects
    assert lray._task_shuffle(10, 64, 1)
    # The defaults: 2×10^6 documents in 80 blocks × 16 partitions (measured) run in tasks.
    monkeypatch.undo()
    assert lray._task_shuffle(2_000_000, 80, 16)
    assert not lray._task_shuffle(10**8, 4000, 1024)


def test_a_long_stage_says_how_many_of_its_tasks_are_done(ray_cluster, monkeypatch):
    import time

    import lookalike.ray as lray

    @ray_cluster.remote
    def slow(seconds: float) -> float:
        time.sleep(seconds)
        return seconds

    from lookalike import _tasks

    monkeypatch.setattr(_tasks, "PROGRESS_SECONDS", 0.2)
    refs = [slow.remote(0.05), slow.remote(1.5)]
    lines: list[str] = []
    lray._wait(refs, lines.append, "partitions verified")
    # Every task is done when it returns; meanwhile it said so, the quick one done first.
    assert ray_cluster.wait(refs, num_returns=2, timeout=0)[1] == []
    assert lines and set(lines) <= {"partitions verified: 0 of 2 done", "partitions verified: 1 of 2 done"}
    assert lines[-1] == "partitions verified: 1 of 2 done"


#: ``stream=True`` (the input read as a stream, again for the verification): the default run
#: with the similarities center-refine asks for (a third read), SimHash (counted first, its
#: tables laid out for the collection), I-Match (a statistics stage, and the blocks with repeated
#: texts read again), MOD-m (shared samples), estimate verification; at 1 and 4 partitions.
STREAM_RUNS = [
    ("minhash", [], {}, 1),
    ("minhash", ["--keep", "longest", "--cluster", "center-refine"], {"keep": "longest", "cluster": "center-refine"}, 4),
    ("simhash", [], {}, 4),
    ("i-match", [], {}, 4),
    ("mod-m", [], {}, 4),
    ("minhash", ["--verify", "estimate"], {"verify": "estimate"}, 4),
]


@pytest.mark.parametrize(
    "method, args, options, partitions", STREAM_RUNS, ids=[f"{m[0]}-{'-'.join(m[2])}-{m[3]}" for m in STREAM_RUNS]
)
def test_ray_streamed_input_same_as_the_cli(ray_cluster, cli, corpus, tmp_path, method, args, options, partitions):
    """A lazy dataset (a JSON read in 5 blocks) deduplicated with ``stream=True``: read as a
    stream, sketched block by block, read again for the verification; the clusters and pairs of
    lookalike.dedup and the CLI."""
    ray = ray_cluster
    import lookalike.ray as lray

    cli_pairs, cli_clusters = cli_run(cli, corpus, tmp_path, "--method", method, *args)
    local = lookalike.dedup(corpus_table(corpus), id="id", method=method, **options)
    ds = ray.data.read_json(str(corpus), override_num_blocks=5).select_columns(["id", "text"])
    result = lray.dedup(ds, method=method, num_partitions=partitions, stream=True, progress=False, **options)
    assert_same_as_local_and_cli(ray, result, local, cli_pairs, cli_clusters)
    assert len(cli_pairs) >= 12


@pytest.mark.parametrize(
    "options, stream, way",
    [
        ({}, False, "nodes"),
        ({"method": "mod-m", "measure": "containment", "cluster": "center-refine"}, False, "groups"),
        ({"verify": "estimate"}, True, "groups"),
        ({"keep": "longest", "cluster": "clique"}, True, "nodes"),
    ],
)
def test_verification_on_several_nodes_or_in_groups_same_as_on_one(ray_cluster, corpus, monkeypatch, options, stream, way):
    """On one node the verification's partitions share each block's table of requested shingle
    sets (or texts) in groups of ``SHARED_PARTITIONS`` (the other tests: one group of all); on
    several nodes each partition is sent its own. Both forced here ("nodes": as on several;
    "groups": groups of 3 partitions, so 2 groups of 4) give lookalike.dedup's tables, with the
    similarities a cluster mode asks for."""
    ray = ray_cluster
    import lookalike.ray as lray

    asked = []
    if way == "nodes":
        monkeypatch.setattr(lray, "_one_store", lambda: asked.append(False) or False)
    else:
        monkeypatch.setattr(lray, "_one_store", lambda: asked.append(True) or True)
        monkeypatch.setattr(lray, "SHARED_PARTITIONS", 3)
    local = lookalike.dedup(corpus_table(corpus), id="id", **options)
    ds = ray.data.read_json(str(corpus), override_num_blocks=5).select_columns(["id", "text"])
    result = lray.dedup(ds, id="id", num_partitions=4, stream=stream, progress=False, **options)
    assert asked
    assert collect(ray, result.dataset).equals(local.table)
    assert collect(ray, result.pairs).equals(local.pairs)
    assert local.pairs.num_rows >= 12


def test_ray_stream_reads_slices_and_refuses_a_dataset_that_changes(ray_cluster, capsys):
    """``stream=True`` numbers the rows of a bundle that holds a slice of a block (Ray Data's
    bundles may) as their own; a dataset that gives other rows on its second read is refused
    with the reason, not verified against the wrong texts; a missing column is named, and an
    empty stream gives the tables of nothing."""
    ray = ray_cluster
    import random

    import lookalike.ray as lray
    from ray.data._internal.execution.interfaces.ref_bundle import BlockEntry, BlockSlice, RefBundle
    from ray.data.block import BlockMetadata

    # Near texts (one word apart), so that verification reads the texts again.
    texts = [f"the quick brown fox jumps over the lazy dog and runs far away to the {i % 20} hills" for i in range(60)]
    table = pa.table({"id": [str(i) for i in range(60)], "text": texts})
    local = lookalike.dedup(table.slice(10, 40), id="id", threshold=0.7)

    class Sliced:
        """Two bundles over one block of 60 rows: rows 10-30 and 30-50."""

        def iter_internal_ref_bundles(self):
            ref = ray.put(table)
            meta = BlockMetadata(num_rows=60, size_bytes=table.nbytes, exec_stats=None)
            for start, end in ((10, 30), (30, 50)):
                yield RefBundle((BlockEntry(ref, meta),), schema=table.schema, owns_blocks=False,
                                slices=(BlockSlice(start, end),))

        def schema(self):
            return table.schema

    result = lray.dedup(Sliced(), id="id", threshold=0.7, num_partitions=2, stream=True, progress=False)
    assert collect(ray, result.dataset).equals(local.table)
    assert collect(ray, result.pairs).equals(local.pairs)
    assert pa.compute.sum(pa.compute.less(local.pairs["similarity"], 1.0)).as_py() > 0

    # Rows kept at random: another count on the verification's read.
    changing = ray.data.from_arrow(table).repartition(3).filter(lambda r: random.random() < 0.5)
    with pytest.raises(ValueError, match="stream=True read the dataset again and its blocks changed"):
        lray.dedup(changing, id="id", threshold=0.7, stream=True, progress=False)
    with pytest.raises(ValueError, match="no text column 'body'"):
        lray.dedup(ray.data.from_arrow(table), text="body", id="id", stream=True, progress=False)
    # Past the task shuffle's bounds (of pieces; of documents) in the middle of the stream: the
    # later blocks' keys go whole to Ray Data's repartition with the pieces before, same answer.
    many = ray.data.from_arrow(table.slice(10, 40)).repartition(4)
    # Four blocks of 10 rows, 2 partitions: 2 pieces are the first block; 15 documents too. The
    # verification's payloads past the pieces bound likewise (both modes): the requested
    # documents are in the first two blocks (the last 20 are copies of the first 20).
    for bound, value, whole, stream in (
        ("TASK_SHUFFLE_PIECES", 2, 3, True), ("TASK_SHUFFLE_DOCUMENTS", 15, 3, True), ("TASK_SHUFFLE_PIECES", 2, 3, False)
    ):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lray, bound, value)
            # The payloads' pieces per partition (a cluster of several nodes), which the bound counts.
            mp.setattr(lray, "_one_store", lambda: False)
            result = lray.dedup(many, id="id", threshold=0.7, num_partitions=2, stream=stream)
        said = capsys.readouterr().err
        if stream:
            assert f"the keys of the last {whole} go through Ray Data's repartition" in said, (bound, said)
        payloads = bound == "TASK_SHUFFLE_PIECES"
        assert payloads == ("the payloads of the last 1 go through Ray Data's repartition" in said), (bound, said)
        assert collect(ray, result.dataset).equals(local.table), bound
        assert collect(ray, result.pairs).equals(local.pairs), bound
    empty = ray.data.from_arrow(table).filter(lambda r: False)
    result = lray.dedup(empty, id="id", stream=True, progress=False)
    assert collect(ray, result.dataset).num_rows == 0
    # Blocks that are pandas frames (ray.data.from_pandas keeps them so): read as Arrow tables.
    frames = ray.data.from_pandas([table.slice(10, 20).to_pandas(), table.slice(30, 20).to_pandas()])
    assert type(ray.get(next(iter(frames.iter_internal_ref_bundles())).blocks[0].ref)).__name__ == "DataFrame"
    result = lray.dedup(frames, id="id", threshold=0.7, num_partitions=2, stream=True, progress=False)
    assert collect(ray, result.pairs).equals(local.pairs)


def test_the_stream_window_holds_at_most_its_limit(ray_cluster):
    """``_Window``: past its limit, adding a task waits for the oldest; without one, it keeps
    nothing (a materialized input is in memory already)."""
    ray = ray_cluster
    import time

    from lookalike.ray import _Window

    @ray.remote
    def nap(s):
        time.sleep(s)
        return s

    window = _Window(2)
    refs = [nap.remote(0.2) for _ in range(5)]
    for r in refs:
        window.add(r)
        assert len(window.refs) < 2
    assert ray.get(refs[0]) == 0.2
    assert len(ray.wait(refs[:4], num_returns=4, timeout=0)[0]) == 4
    unbounded = _Window(None)
    unbounded.add(nap.remote(0))
    assert unbounded.refs == []


def test_a_stream_pass_bounds_ray_datas_read_ahead(ray_cluster):
    """While a pass reads a streamed dataset, its read-ahead in the object store is bounded
    (``resource_limits.object_store_memory`` of the dataset's own context, the one it executes
    with); a lower limit the caller set is kept, and the caller's limits are back after the pass."""
    ray = ray_cluster
    from lookalike.ray import _Stream

    ds = ray.data.range(30, override_num_blocks=3)
    limits = ds.context.execution_options.resource_limits
    source = _Stream(ds, [], window=2, read_ahead=1e6)
    during = []
    for _ in source.blocks():
        during.append(ds.context.execution_options.resource_limits.object_store_memory)
    assert during == [1e6] * 3
    assert ds.context.execution_options.resource_limits == limits
    assert limits.object_store_memory == float("inf")
    ds.context.execution_options.resource_limits = limits.copy(object_store_memory=5e5)
    assert [ds.context.execution_options.resource_limits.object_store_memory for _ in source.blocks()] == [5e5] * 3
    assert ds.context.execution_options.resource_limits.object_store_memory == 5e5


def test_only_simhash_without_blocks_needs_the_count_before_its_keys():
    """A streamed job counts the input before sketching only where the keys depend on its size:
    SimHash's tables, laid out for the collection unless ``simhash_blocks`` fixes them."""
    from lookalike import _lookalike

    assert _lookalike.keys_need_count(method="simhash")
    assert not _lookalike.keys_need_count(method="simhash", simhash_blocks=4)
    for method in ("minhash", "combined", "supershingles", "mod-m", "spotsigs", "i-match", "exact"):
        assert not _lookalike.keys_need_count(method=method), method


def test_a_quiet_job_drops_the_no_free_cpu_warning_only(ray_cluster, caplog):
    """While a job runs (not verbose), Ray Data's warning that the cluster has no free CPU (its
    own tasks hold them: on one CPU it came with every job) is dropped; its other warnings are
    shown, and after the job that one is shown again."""
    ray = ray_cluster
    import logging

    from lookalike.ray import _quiet

    log = logging.getLogger("ray.data.dataset")
    busy = "Warning: The Ray cluster currently does not have any available CPUs. The Dataset job will hang"
    with caplog.at_level(logging.WARNING, logger="ray.data.dataset"):
        with _quiet(ray.data.DataContext.get_current(), verbose=False):
            log.warning(busy)
            log.warning("another warning")
        log.warning(busy)
    messages = [r.getMessage() for r in caplog.records if r.name == "ray.data.dataset"]
    assert messages == ["another warning", busy]


def test_a_dataset_made_before_the_job_is_read_in_input_order(ray_cluster, tmp_path):
    """A Dataset executes with the context it was made with: one made before the job, whose
    blocks end out of order (the first block's task is the slowest, 2 CPUs), is still numbered in
    input order, with ``stream`` off and on (on, each pass once read them in another order and
    verified the wrong documents' sets)."""
    ray = ray_cluster
    import time

    import lookalike.ray as lray

    texts = [f"the quick brown fox jumps over the lazy dog and runs far away to the {i % 9} hills" for i in range(60)]
    table = pa.table({"id": [str(i) for i in range(60)], "text": texts})
    local = lookalike.dedup(table, id="id", threshold=0.7)

    def slow_first(batch: pa.Table) -> pa.Table:
        # The block holding row "0" ends last.
        time.sleep(1.0 if batch["id"][0].as_py() == "0" else 0.05)
        return batch

    # Six JSONL files, read one per task.
    for k in range(6):
        with (tmp_path / f"part-{k}.jsonl").open("w") as f:
            f.writelines(json.dumps(r) + "\n" for r in table.slice(10 * k, 10).to_pylist())
    ray.data.DataContext.get_current().execution_options.preserve_order = False
    files = sorted(str(p) for p in tmp_path.glob("part-*.jsonl"))
    ds = ray.data.read_json(files, override_num_blocks=6).map_batches(slow_first, batch_format="pyarrow", batch_size=None)
    assert not ds.context.execution_options.preserve_order
    for stream in (False, True):
        result = lray.dedup(ds, id="id", threshold=0.7, num_partitions=2, stream=stream, progress=False)
        assert collect(ray, result.dataset).equals(local.table), stream
        assert collect(ray, result.pairs).equals(local.pairs), stream
    assert not ds.context.execution_options.preserve_order
