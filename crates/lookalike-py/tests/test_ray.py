"""lookalike.ray.dedup: the same clusters and pairs as the CLI and lookalike.dedup."""

from __future__ import annotations

import pyarrow as pa
import pytest

import lookalike
from conftest import read_corpus
from test_dedup import cli_run, corpus_table, result_clusters, result_pairs, same_clusters, same_pairs


def collect(ray, ds) -> pa.Table:
    return pa.concat_tables(ray.get(ds.to_arrow_refs()))


@pytest.mark.parametrize("partitions", [1, 4])
@pytest.mark.parametrize(
    "keep, cluster",
    [(None, None), ("longest", "clique"), ("first", "connected"), ("longest", "center-refine"), ("longest", "connected")],
)
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
    result = lray.dedup(ds, text="text", id="id", keep=keep, cluster=cluster, num_partitions=partitions)
    documents = collect(ray, result.dataset)
    pairs = collect(ray, result.pairs)
    assert documents.equals(local.table)
    assert pairs.equals(local.pairs)
    assert same_pairs(result_pairs(local), cli_pairs)
    assert same_clusters(result_clusters(documents), cli_clusters)
    assert result.stats["stats"]["documents"] == len(read_corpus(corpus))


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
    with pytest.raises(ValueError, match="MinHash only"):
        lray.dedup(ds, method="simhash")
    with pytest.raises(ValueError, match="exact Jaccard only"):
        lray.dedup(ds, measure="containment")
    with pytest.raises(ValueError, match="no text column 'body'"):
        lray.dedup(ds, text="body")
    with pytest.raises(ValueError, match="unknown option"):
        lray.dedup(ds, nope=1)
