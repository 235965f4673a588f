"""lookalike.ray.read: the readers as Ray tasks, with lookalike.read's rows (and so the CLI's)."""

from __future__ import annotations

import gzip

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


def awkward_jsonl(path, lines: int = 300) -> None:
    """A JSONL file of every kind of line a byte range must cut right: a byte order mark, CRLF
    line ends, blank and whitespace lines, invalid JSON, no text field, no id field (the id is
    the line number), ids repeated across the file (renamed ``id#origin``), multi-byte UTF-8
    (cuts fall inside characters), a long line (longer than many ranges), invalid UTF-8, a lone
    surrogate escape (a warning), and a last line without its newline."""
    out = ['\ufeff{"id":"first","text":"the first line"}\r\n']
    for i in range(lines):
        kind = i % 11
        if kind == 0:
            out.append("\n")
        elif kind == 1:
            out.append("   \t\r\n")
        elif kind == 2:
            out.append('{"id":"broken","text":\n')
        elif kind == 3:
            out.append(f'{{"id":"notext{i}"}}\n')
        elif kind == 4:
            out.append(f'{{"text":"no id, line {i}: été 日本語 😀"}}\r\n')
        elif kind == 5:
            out.append(f'{{"id":"d{i % 7}","text":"repeated id {i}"}}\n')
        elif kind == 6:
            out.append(f'{{"id":"long{i}","text":"{"ß" * 400}"}}\n')
        elif kind == 7:
            out.append("not json at all: αβγ\n")
        else:
            out.append(f'{{"id":"doc{i}","text":"document {i} ünïcödé"}}\n')
    out.append('{"id":"half","text":"half an emoji: \\ud83d"}\n')
    data = "".join(out).encode() + b'{"id":"bad","text":"\xff\xfe bytes"}\n{"text":"the last line, no newline"}'
    path.write_bytes(data)


def test_a_jsonl_file_in_byte_ranges_gives_the_rows_of_the_whole_file(ray_cluster, tmp_path, monkeypatch, capsys):
    import lookalike.ray_read as module

    awkward_jsonl(tmp_path / "big.jsonl")
    # Files around it: a small one, and gzip JSONL, which is read whole.
    (tmp_path / "a.jsonl").write_text('{"id":"d1","text":"before"}\n{"text":"no id"}\n')
    (tmp_path / "z.jsonl.gz").write_bytes(gzip.compress(b'{"id":"d2","text":"after"}\n' * 3000))
    paths = [str(tmp_path / n) for n in ("a.jsonl", "big.jsonl", "z.jsonl.gz")]
    whole = rows_of_ray(ray_read(paths, tasks=1, progress=False))
    assert whole == rows_of_read(paths)
    ids = [r["id"] for r in whole]
    # Line 73 (i = 71) is the first d1 of big.jsonl; line 6 (i = 4) has no id.
    assert f"d1#{tmp_path}/big.jsonl:73" in ids and f"{tmp_path}/big.jsonl:6" in ids
    assert any(r["warning"] for r in whole) and any(r["skipped"] for r in whole)
    monkeypatch.setattr(module, "_MIN_RANGE", 100)
    for tasks in (2, 7, 40):
        ours = rows_of_ray(ray_read(paths, tasks=tasks))
        assert ours == whole, tasks
        err = capsys.readouterr().err
        assert "1 cut into " in err, err
    without = rows_of_ray(ray_read(paths, tasks=40, skipped=False, progress=False))
    assert without == [r for r in whole if r["text"] is not None]


def test_only_large_uncompressed_jsonl_is_cut(tmp_path, monkeypatch):
    import lookalike.ray_read as module

    awkward_jsonl(tmp_path / "big.jsonl", lines=3000)
    size = (tmp_path / "big.jsonl").stat().st_size
    (tmp_path / "big.txt").write_bytes((tmp_path / "big.jsonl").read_bytes())
    (tmp_path / "big.jsonl.gz").write_bytes(gzip.compress((tmp_path / "big.jsonl").read_bytes(), 1))
    (tmp_path / "small.jsonl").write_text('{"id":"s","text":"small"}\n')
    names = ["small.jsonl", "big.jsonl", "big.txt", "big.jsonl.gz", "small.jsonl"]
    paths = [str(tmp_path / n) for n in names]
    # Files below two minimum ranges are read whole.
    assert all(p["range"] is None for p in module._parts(paths, 8, None, module._MIN_RANGE))
    parts = module._parts(paths, 100, None, size // 4)
    ranges = [p["range"] for p in parts if p["range"] is not None]
    assert {p["paths"][0] for p in parts if p["range"] is not None} == {paths[1]}
    assert len(ranges) == 4 and ranges[0][:1] == [0] and ranges[-1][1] == size
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    data = (tmp_path / "big.jsonl").read_bytes()
    assert [r[2] for r in ranges] == [data[: r[0]].count(b"\n") for r in ranges]
    # Every file in order, each once, the whole ones in groups.
    flat = [p for part in parts for p in part["paths"]]
    assert [p for i, p in enumerate(flat) if i == 0 or p != flat[i - 1]] == paths
    # Text forced to JSONL is cut too; the gzip file never is.
    forced = module._parts(paths, 100, "jsonl", size // 4)
    assert {p["paths"][0] for p in forced if p["range"] is not None} == {paths[1], paths[2]}
    # One task: nothing is cut.
    assert module._parts(paths, 1, None, 1) == [{"paths": paths, "range": None}]


def test_a_long_read_says_how_far_it_is(ray_cluster, tmp_path, monkeypatch, capsys):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.jsonl").write_text("".join(f'{{"id":"{name}{i}","text":"t {i}"}}\n' for i in range(50)))
    # A line at every block (the default waits 10 s between two).
    from lookalike import _tasks

    monkeypatch.setattr(_tasks, "PROGRESS_SECONDS", 0.0)
    rows = rows_of_ray(ray_read([str(tmp_path)], tasks=3))
    assert len(rows) == 150
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if " read (task " in line]
    assert [line.split(": ")[1].split(" (")[0] for line in lines] == ["1 block read", "2 blocks read", "3 blocks read"]
    assert "(task 3 of 3)" in lines[-1]
