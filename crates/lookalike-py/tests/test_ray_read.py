"""lookalike.ray.read: the readers as Ray tasks, with lookalike.read's rows (and so the CLI's)."""

from __future__ import annotations

import pytest

import lookalike
from test_read import WARC_SAMPLES, cli_pairs, write_site

ray_read = pytest.importorskip("lookalike.ray").read


def rows_of_ray(ds) -> list[dict]:
    return [r for t in ds.iter_batches(batch_format="pyarrow", batch_size=None) for r in t.to_pylist()]


def rows_of_read(paths, **options) -> list[dict]:
    return lookalike.read([str(p) for p in paths], **options).read_all().to_pylist()


@pytest.mark.parametrize("boilerplate", ["auto", "off"])
@pytest.mark.parametrize("extract", ["main", "text"])
def test_same_rows_as_read_on_a_site_in_several_tasks(ray_cluster, tmp_path, boilerplate, extract):
    write_site(tmp_path)
    # More files in other folders: sites span the tasks' groups.
    (tmp_path / "site" / "sub").mkdir()
    for i in range(3):
        (tmp_path / "site" / "sub" / f"p{i}.html").write_text((tmp_path / "site" / f"page{i}.html").read_text())
    site = tmp_path / "site"
    ds = ray_read([str(site)], boilerplate=boilerplate, extract=extract, tasks=4, progress=False)
    ours = rows_of_ray(ds)
    assert ours == rows_of_read([site], boilerplate=boilerplate, extract=extract)
    assert len(ours) == 14
    if boilerplate == "auto" and extract == "text":
        assert all(r["boilerplate_removed_bytes"] for r in ours)


@pytest.mark.skipif(not WARC_SAMPLES.exists(), reason="the shared WARC samples are not there")
def test_same_rows_as_read_on_real_crawl_records(ray_cluster):
    warcs = sorted(p for p in WARC_SAMPLES.iterdir() if ".warc" in p.name)
    ours = rows_of_ray(ray_read([str(w) for w in warcs], tasks=3, progress=False))
    theirs = rows_of_read(warcs)
    assert ours == theirs
    # Requests, metadata and the like are rows too, with the reason.
    assert any(r["skipped"] for r in ours) and any(r["text"] for r in ours)
    docs = rows_of_ray(ray_read([str(w) for w in warcs], tasks=3, skipped=False, progress=False))
    assert docs == [r for r in theirs if r["text"] is not None]


def test_repeated_ids_across_tasks_are_renamed_as_read_renames_them(ray_cluster, tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(f'{{"id":"doc{i}","text":"text {name} {i}"}}\n' for i in range(5)) + '{"id":"x"}\n'
        )
    ours = rows_of_ray(ray_read([str(tmp_path)], tasks=3, progress=False))
    theirs = rows_of_read([tmp_path])
    assert ours == theirs
    ids = [r["id"] for r in ours if r["text"] is not None]
    assert len(set(ids)) == 15 and f"doc0#{tmp_path}/b.jsonl:1" in ids


def test_ray_dedup_of_ray_read_finds_the_clis_pairs(ray_cluster, cli, tmp_path):
    write_site(tmp_path)
    site = tmp_path / "site"
    ds = ray_read([str(site)], extract="text", skipped=False, tasks=3, progress=False)
    result = lookalike.ray.dedup(ds, id="id", progress=False)
    ours = {(p["id1"], p["id2"]): round(p["similarity"], 6) for p in result.pairs.take_all()}
    assert ours == cli_pairs(cli, [site], tmp_path, "--extract", "text")
    assert list(ours) == [(str(site / "mirror-page3.html"), str(site / "page3.html"))]


def test_read_refuses_what_tasks_cannot_read(ray_cluster, tmp_path):
    with pytest.raises(ValueError, match="standard input"):
        ray_read(["-"], progress=False)
    with pytest.raises(OSError):
        ray_read([str(tmp_path / "nothing-here")], progress=False)
    (tmp_path / "a.jsonl").write_text('{"id":"a","text":"x"}\n')
    with pytest.raises(ValueError, match="boilerplate mode"):
        ray_read([str(tmp_path)], boilerplate="sometimes", progress=False)


def test_relative_paths_are_read_from_the_drivers_folder(ray_cluster, tmp_path, monkeypatch, capsys):
    # Ray's tasks run in folders of their own: a relative path read there found nothing, and with
    # skipped=False every record was dropped without a word.
    write_site(tmp_path)
    monkeypatch.chdir(tmp_path)
    ours = rows_of_ray(lookalike.ray.read(["site"], tasks=3, skipped=False))
    assert ours == rows_of_read(["site"])
    assert len(ours) == 11 and ours[0]["id"].startswith("site/")
    lookalike.ray.read(["site"], tasks=3)
    assert "11 records read, 0 of them skipped" in capsys.readouterr().err
