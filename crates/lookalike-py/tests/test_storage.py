"""MinHashLSH(storage_config=...): in memory, or in a directory shared between processes."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
import textwrap

import pytest

from lookalike import MinHash, MinHashLSH


def minhash_of(words: set[str]) -> MinHash:
    m = MinHash(num_perm=128)
    m.update_batch(sorted(words))
    return m


def family(rng: random.Random, n: int) -> list[set[str]]:
    base = {f"w{rng.randrange(10**6)}" for _ in range(200)}
    return [{w for w in base if rng.random() < 0.95} for _ in range(n)]


def run_python(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_directory_index_is_seen_by_another_process(tmp_path):
    config = {"type": "lookalike", "path": str(tmp_path / "lsh")}
    rng = random.Random(1)
    sets = family(rng, 5) + family(rng, 5)
    lsh = MinHashLSH(threshold=0.7, num_perm=128, storage_config=config)
    memory = MinHashLSH(threshold=0.7, num_perm=128)
    for i, s in enumerate(sets):
        lsh.insert(("doc", i), minhash_of(s))
        memory.insert(("doc", i), minhash_of(s))
    lsh.remove(("doc", 9))
    memory.remove(("doc", 9))
    assert lsh.storage_path == tmp_path / "lsh" and memory.storage_path is None
    expected = [sorted(memory.query(minhash_of(s))) for s in sets]
    assert [sorted(lsh.query(minhash_of(s))) for s in sets] == expected
    assert sorted(x[1] for x in expected[0]) == [0, 1, 2, 3, 4]
    # Another process opens the directory: the same keys and answers; it inserts one more.
    code = f"""
        import random, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_storage import family, minhash_of
        from lookalike import MinHashLSH
        rng = random.Random(1)
        sets = family(rng, 5) + family(rng, 5)
        lsh = MinHashLSH(threshold=0.7, num_perm=128, storage_config={config!r})
        print(len(lsh), ("doc", 9) in lsh, ("doc", 3) in lsh)
        print([sorted(lsh.query(minhash_of(s))) == e for s, e in zip(sets, {expected!r})].count(True))
        lsh.insert("from the other process", minhash_of(sets[0]))
    """
    assert run_python(code) == "9 False True\n10\n"
    # This process sees it at its next read, without reopening.
    assert "from the other process" in lsh and len(lsh) == 10
    assert "from the other process" in lsh.query(minhash_of(sets[1]))
    # Reopened: the same state; the settings come from the directory.
    again = MinHashLSH(threshold=0.7, num_perm=128, storage_config=config)
    assert sorted(map(repr, again.keys())) == sorted(map(repr, lsh.keys()))
    assert again.params == lsh.params and again.get(("doc", 0)) == lsh.get(("doc", 0))
    # A pickled copy is a snapshot in memory.
    snap = pickle.loads(pickle.dumps(again))
    assert snap.storage_path is None and sorted(map(repr, snap.keys())) == sorted(map(repr, lsh.keys()))
    snap.insert("only in the copy", minhash_of(sets[0]))
    assert "only in the copy" not in lsh


def test_directory_settings_must_match(tmp_path):
    config = {"type": "lookalike", "path": str(tmp_path)}
    MinHashLSH(threshold=0.5, num_perm=128, storage_config=config)
    with pytest.raises(ValueError, match="num_perm 128"):
        MinHashLSH(threshold=0.5, num_perm=64, storage_config=config)
    with pytest.raises(ValueError, match="bands, rows"):
        MinHashLSH(threshold=0.5, num_perm=128, params=(4, 32), storage_config=config)
    assert MinHashLSH(threshold=0.5, num_perm=128, storage_config=config).threshold == 0.5


@pytest.mark.parametrize(
    "config, message",
    [
        ({"type": "redis", "redis": {"host": "localhost", "port": 6379}}, "'redis' is not supported"),
        ({"type": "cassandra", "cassandra": {}}, "'cassandra' is not supported"),
        ({"type": "lookalike"}, "needs a 'path'"),
        ({"type": "lookalike", "path": "x", "basename": b"b"}, "basename"),
    ],
)
def test_other_storages_are_refused_with_what_is_supported(config, message):
    with pytest.raises(ValueError, match=message) as err:
        MinHashLSH(threshold=0.5, storage_config=config)
    if "not supported" in message:
        assert "{'type': 'lookalike', 'path'" in str(err.value) and "{'type': 'dict'}" in str(err.value)


def test_dict_storage_is_memory_as_in_datasketch():
    lsh = MinHashLSH(threshold=0.5, storage_config={"type": "dict"}, prepickle=False)
    lsh.insert("a", minhash_of({"x", "y"}))
    assert lsh.storage_path is None and lsh.query(minhash_of({"x", "y"})) == ["a"]


def test_insertion_session_and_duplicates_in_a_directory(tmp_path):
    config = {"type": "lookalike", "path": str(tmp_path)}
    rng = random.Random(2)
    sets = family(rng, 30)
    lsh = MinHashLSH(threshold=0.7, storage_config=config)
    with lsh.insertion_session(buffer_size=7) as session:
        for i, s in enumerate(sets):
            session.insert(i, minhash_of(s))
    with pytest.raises(ValueError, match="already in the index"):
        lsh.insert(0, minhash_of(sets[0]))
    lsh.insert_many([100, 101], [minhash_of(sets[0]), minhash_of(sets[1])])
    other = MinHashLSH(threshold=0.7, storage_config=config)
    assert sorted(other.keys()) == list(range(30)) + [100, 101]
    assert sorted(other.query(minhash_of(sets[5]))) == sorted(lsh.query(minhash_of(sets[5])))


def test_a_torn_record_is_dropped_and_a_corrupt_one_refused(tmp_path):
    config = {"type": "lookalike", "path": str(tmp_path)}
    lsh = MinHashLSH(threshold=0.5, storage_config=config)
    lsh.insert("kept", minhash_of({"a", "b"}))
    log = tmp_path / "entries.log"
    whole = log.stat().st_size
    with open(log, "ab") as f:  # a crash in the middle of a write
        f.write(b"I\x05\x00\x00\x00")
    reopened = MinHashLSH(threshold=0.5, storage_config=config)
    assert reopened.keys() == ["kept"] and log.stat().st_size == whole  # truncated by the writer
    reopened.insert("after", minhash_of({"c"}))
    assert sorted(MinHashLSH(threshold=0.5, storage_config=config).keys()) == ["after", "kept"]
    data = bytearray(log.read_bytes())
    data[-3] ^= 0xFF  # a flipped bit in the last record's signature
    log.write_bytes(bytes(data))
    with pytest.raises(OSError, match="corrupt record"):
        MinHashLSH(threshold=0.5, storage_config=config)


def test_concurrent_writers_lose_nothing(tmp_path):
    config = {"type": "lookalike", "path": str(tmp_path)}
    MinHashLSH(threshold=0.5, storage_config=config)
    code = """
        import sys
        from lookalike import MinHash, MinHashLSH
        who = sys.argv[1]
        lsh = MinHashLSH(threshold=0.5, storage_config={config!r})
        for i in range(150):
            m = MinHash(num_perm=128); m.update(f"{{who}}-{{i}}".encode())
            lsh.insert((who, i), m)
    """.format(config=config)
    procs = [
        subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), who]) for who in ("a", "b", "c")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    lsh = MinHashLSH(threshold=0.5, storage_config=config)
    assert len(lsh) == 450 and all((w, i) in lsh for w in "abc" for i in range(150))
