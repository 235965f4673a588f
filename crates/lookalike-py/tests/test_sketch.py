"""MinHash and MinHashLSH: against brute force, datasketch, and the engine's own sketches."""

from __future__ import annotations

import math
import pickle
import random

import pytest

import lookalike
from lookalike import MinHash, MinHashLSH


def random_sets(rng: random.Random, n: int) -> list[set[str]]:
    """Sets of words drawn so that pairs span Jaccard 0..1: variants of a few bases."""
    bases = [{f"w{rng.randrange(100_000)}" for _ in range(rng.randrange(50, 400))} for _ in range(8)]
    out = []
    for _ in range(n):
        base = list(rng.choice(bases))
        keep = rng.uniform(0.3, 1.0)
        s = {w for w in base if rng.random() < keep}
        s |= {f"x{rng.randrange(100_000)}" for _ in range(rng.randrange(0, 60))}
        out.append(s or {"empty"})
    return out


def exact_jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b)


def minhash_of(s: set[str], num_perm: int = 128, seed: int = 1) -> MinHash:
    m = MinHash(num_perm=num_perm, seed=seed)
    m.update_batch(sorted(s))
    return m


@pytest.mark.parametrize("scheme", ["oph", "perm"])
def test_estimate_is_within_the_sampling_error_of_the_exact_jaccard(scheme):
    rng = random.Random(7)
    sets = random_sets(rng, 40)
    k = 256
    sketches = []
    for s in sets:
        m = MinHash(num_perm=k, seed=3, scheme=scheme)
        m.update_batch(sorted(s))
        sketches.append(m)
    worst = 0.0
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            j_exact = exact_jaccard(sets[i], sets[j])
            sigma = math.sqrt(max(j_exact * (1 - j_exact), 1e-4) / k)
            err = abs(sketches[i].jaccard(sketches[j]) - j_exact)
            worst = max(worst, err / sigma)
    # 780 pairs: 5 standard deviations is a bound a correct estimator meets.
    assert worst < 5.0, worst


def test_datasketch_estimates_the_same_jaccard_within_the_error():
    datasketch = pytest.importorskip("datasketch")
    rng = random.Random(11)
    sets = random_sets(rng, 20)
    k = 256
    for i in range(0, 20, 2):
        a, b = sets[i], sets[i + 1]
        ours = minhash_of(a, k).jaccard(minhash_of(b, k))
        theirs_a, theirs_b = datasketch.MinHash(num_perm=k), datasketch.MinHash(num_perm=k)
        theirs_a.update_batch([w.encode() for w in a])
        theirs_b.update_batch([w.encode() for w in b])
        theirs = theirs_a.jaccard(theirs_b)
        exact = exact_jaccard(a, b)
        bound = 5 * math.sqrt(max(exact * (1 - exact), 1e-4) / k)
        assert abs(ours - exact) < bound and abs(theirs - exact) < bound, (ours, theirs, exact)


def band_candidates_brute_force(sigs: dict[str, list[int]], q: list[int], b: int, r: int) -> set[str]:
    return {
        key
        for key, s in sigs.items()
        if any(s[i * r : (i + 1) * r] == q[i * r : (i + 1) * r] for i in range(b))
    }


@pytest.mark.parametrize("params", [(16, 8), (32, 4), (8, 16), (20, 5)])
def test_lsh_candidates_are_the_pairs_sharing_a_band(params):
    rng = random.Random(5)
    sets = random_sets(rng, 60)
    lsh = MinHashLSH(num_perm=128, params=params)
    sketches = {f"k{i}": minhash_of(s) for i, s in enumerate(sets)}
    lsh.insert_many(list(sketches), list(sketches.values()))
    sigs = {k: m.values() for k, m in sketches.items()}
    for key, m in sketches.items():
        expected = band_candidates_brute_force(sigs, sigs[key], *params)
        assert set(lsh.query(m)) == expected
    assert [set(x) for x in lsh.query_many(list(sketches.values()))] == [
        band_candidates_brute_force(sigs, s, *params) for s in sigs.values()
    ]


def test_lsh_gives_datasketch_candidates_at_equal_bands_and_rows():
    datasketch = pytest.importorskip("datasketch")
    rng = random.Random(9)
    sets = random_sets(rng, 50)
    params = (16, 8)
    ours = MinHashLSH(num_perm=128, params=params)
    theirs = datasketch.MinHashLSH(num_perm=128, params=params)
    sketches = {f"k{i}": minhash_of(s) for i, s in enumerate(sets)}
    for key, m in sketches.items():
        ours.insert(key, m)
        theirs.insert(key, datasketch.LeanMinHash(seed=1, hashvalues=m.values(), scheme="legacy"))
    for key, m in sketches.items():
        lean = datasketch.LeanMinHash(seed=1, hashvalues=m.values(), scheme="legacy")
        assert set(ours.query(m)) == set(theirs.query(lean))


def test_lsh_params_follow_the_threshold_and_weights():
    low, high = MinHashLSH(threshold=0.5), MinHashLSH(threshold=0.9)
    # A higher threshold needs more rows per band.
    assert high.params[1] > low.params[1]
    b, r = MinHashLSH(threshold=0.8, num_perm=128, weights=(0.1, 0.9)).params
    assert b * r <= 128


def test_from_text_is_the_sketch_the_engine_estimates_with(corpus):
    from conftest import read_corpus

    docs = read_corpus(corpus)[:200]
    texts = [d["text"] for d in docs]
    ids = [d["id"] for d in docs]
    result = lookalike.dedup_texts(texts, ids, threshold=0.5, verify="estimate")
    sketches = dict(zip(ids, MinHash.from_texts(texts)))
    assert result.pairs.num_rows > 0
    for p in result.pairs.to_pylist():
        if p["match"] == "near":
            assert sketches[p["id1"]].jaccard(sketches[p["id2"]]) == pytest.approx(p["similarity"])
    one = MinHash.from_text(texts[0])
    incremental = MinHash()
    incremental.update_text(texts[0])
    assert one == incremental and one.values() == sketches[ids[0]].values()


def test_minhash_pickles_and_keeps_updating():
    m = minhash_of({"a", "b", "c", "d"})
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.values() == m.values() and back.count() == 4
    back.update("e")
    m.update(b"e")
    assert back == m
    other = pickle.loads(pickle.dumps(MinHash(num_perm=64, seed=9, scheme="perm")))
    assert (other.num_perm, other.seed) == (64, 9)


def test_lsh_pickles_with_its_keys_and_removals():
    rng = random.Random(3)
    sets = random_sets(rng, 30)
    lsh = MinHashLSH(threshold=0.6, num_perm=128)
    sketches = {("doc", i): minhash_of(s) for i, s in enumerate(sets)}
    for k, m in sketches.items():
        lsh.insert(k, m)
    lsh.remove(("doc", 3))
    back = pickle.loads(pickle.dumps(lsh))
    assert len(back) == len(lsh) == 29
    assert ("doc", 3) not in back and ("doc", 4) in back
    assert back.params == lsh.params
    for m in sketches.values():
        assert back.query(m) == lsh.query(m)


def test_bad_arguments_raise_clear_exceptions():
    with pytest.raises(ValueError, match="num_perm"):
        MinHash(num_perm=0)
    with pytest.raises(ValueError, match="scheme"):
        MinHash(scheme="nope")
    with pytest.raises(ValueError, match="threshold"):
        MinHashLSH(threshold=1.5)
    with pytest.raises(ValueError, match="bands"):
        MinHashLSH(num_perm=16, params=(5, 5))
    lsh = MinHashLSH(num_perm=128)
    lsh.insert("a", MinHash())
    with pytest.raises(ValueError, match="already"):
        lsh.insert("a", MinHash())
    with pytest.raises(ValueError, match="not in the index"):
        lsh.remove("b")
    with pytest.raises(ValueError, match="num_perm"):
        lsh.insert("c", MinHash(num_perm=64))
    with pytest.raises(TypeError):
        MinHash().update(3)
    with pytest.raises(ValueError, match="cannot compare"):
        MinHash(seed=1).jaccard(MinHash(seed=2))


# datasketch's documented examples (its README and docstrings), with only the import changed:
# what a datasketch user runs first must run here and give the answers datasketch gives.

SET1 = set(["minhash", "is", "a", "probabilistic", "data", "structure", "for", "estimating",
            "the", "similarity", "between", "datasets"])
SET2 = set(["minhash", "is", "a", "probability", "data", "structure", "for", "estimating",
            "the", "similarity", "between", "documents"])
SET3 = set(["minhash", "is", "probability", "data", "structure", "for", "estimating",
            "the", "similarity", "between", "documents"])


def datasketch_readme_lsh(module) -> list[str]:
    MinHash, MinHashLSH = module.MinHash, module.MinHashLSH
    m1, m2, m3 = MinHash(num_perm=128), MinHash(num_perm=128), MinHash(num_perm=128)
    for d in SET1:
        m1.update(d.encode("utf8"))
    for d in SET2:
        m2.update(d.encode("utf8"))
    for d in SET3:
        m3.update(d.encode("utf8"))
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    lsh.insert("m2", m2)
    lsh.insert("m3", m3)
    return sorted(lsh.query(m1))


def test_datasketch_readme_lsh_example_gives_datasketch_answer() -> None:
    datasketch = pytest.importorskip("datasketch")
    assert datasketch_readme_lsh(lookalike) == datasketch_readme_lsh(datasketch) == ["m2", "m3"]


def test_bulk_and_generator_are_update_batch_per_set() -> None:
    data = [[b"token1", b"token2", b"token3"], [b"token4", b"token5", b"token6"]]
    minhashes = MinHash.bulk(data, num_perm=64)  # datasketch's docstring example
    assert len(minhashes) == 2 and all(m.num_perm == 64 for m in minhashes)
    for m, tokens in zip(minhashes, data):
        one = MinHash(num_perm=64)
        one.update_batch(tokens)
        assert m == one and m.count() == 3
    generated = list(MinHash.generator(iter(data), num_perm=64, seed=7))
    assert [m.values() for m in generated] == [m.values() for m in MinHash.bulk(data, num_perm=64, seed=7)]
    assert list(MinHash.generator([])) == []


def sha1_hash32(data: bytes) -> int:
    """datasketch's default hash function, written again (module level: pickled by name)."""
    import hashlib
    import struct

    return struct.unpack("<I", hashlib.sha1(data).digest()[:4])[0]


def test_a_hashfunc_is_honoured_and_pickled() -> None:
    a = MinHash(hashfunc=sha1_hash32)
    a.update_batch(w.encode() for w in SET1)
    b = MinHash(hashfunc=sha1_hash32)
    b.update_batch(w.encode() for w in SET2)
    own = MinHash()
    own.update_batch(w.encode() for w in SET1)
    assert a.values() != own.values()  # another element hash, another signature
    assert abs(a.jaccard(b) - exact_jaccard(SET1, SET2)) < 0.2
    assert pickle.loads(pickle.dumps(a)) == a
    calls: list[bytes] = []
    c = MinHash(hashfunc=lambda d: calls.append(d) or -5)
    c.update(b"x")
    assert calls == [b"x"] and not c.is_empty()
    bad = MinHash(hashfunc=lambda d: "not an int")
    with pytest.raises(TypeError, match="hashfunc returned 'not an int'"):
        bad.update(b"x")


def test_insertion_session_buffers_and_flushes() -> None:
    sets = random_sets(random.Random(5), 120)
    minhashes = [minhash_of(s) for s in sets]
    lsh, direct = MinHashLSH(threshold=0.7), MinHashLSH(threshold=0.7)
    with lsh.insertion_session(buffer_size=50) as session:  # datasketch's usage
        for i, m in enumerate(minhashes):
            session.insert(f"k{i}", m)
            direct.insert(f"k{i}", m)
        assert len(lsh) == 100  # two full buffers went in; the rest waits for the block's end
    assert len(lsh) == 120 and lsh.keys() == direct.keys()
    assert [lsh.query(m) for m in minhashes] == [direct.query(m) for m in minhashes]
    with pytest.raises(ValueError, match="already in the index"):
        with lsh.insertion_session() as session:
            session.insert("k0", minhashes[0])
    with pytest.raises(ValueError, match="buffer_size"):
        lsh.insertion_session(buffer_size=0)


def test_lean_minhash_is_the_signature_alone() -> None:
    from lookalike import LeanMinHash

    minhash = minhash_of(SET1)
    # datasketch's docstring examples
    lean = LeanMinHash(minhash)
    same = LeanMinHash(seed=minhash.seed, hashvalues=minhash.hashvalues)
    assert lean == minhash and same == lean and isinstance(lean, MinHash)
    assert lean.jaccard(minhash_of(SET2)) == minhash.jaccard(minhash_of(SET2))
    assert (lean.num_perm, lean.seed, lean.scheme) == (128, 1, "oph") and not lean.is_empty()
    for update in (lambda: lean.update(b"x"), lambda: lean.update_batch([b"x"]), lambda: lean.update_text("x")):
        with pytest.raises(TypeError, match="Cannot update a LeanMinHash"):
            update()
    back = pickle.loads(pickle.dumps(lean))
    assert type(back) is LeanMinHash and back == lean
    lsh = MinHashLSH(threshold=0.5)
    lsh.insert("lean", lean)
    assert lsh.query(minhash) == ["lean"]
    # A MinHash built from a signature alone cannot grow either.
    fixed = MinHash(hashvalues=minhash.values())
    assert fixed == minhash and pickle.loads(pickle.dumps(fixed)) == fixed
    with pytest.raises(ValueError, match="built from hashvalues"):
        fixed.update(b"x")
    with pytest.raises(ValueError, match="built from hashvalues"):
        fixed.count()
    with pytest.raises(ValueError, match="LeanMinHash needs"):
        LeanMinHash()


def datasketch_readme_forest(module) -> list[str]:
    m1, m2, m3 = (module.MinHash(num_perm=128) for _ in range(3))
    for m, words in ((m1, SET1), (m2, SET2), (m3, SET3)):
        for d in words:
            m.update(d.encode("utf8"))
    forest = module.MinHashLSHForest(num_perm=128)
    forest.add("m2", m2)
    forest.add("m3", m3)
    forest.index()
    assert "m2" in forest and "m1" not in forest
    return sorted(forest.query(m1, 2))


def test_datasketch_readme_forest_example_gives_datasketch_answer() -> None:
    datasketch = pytest.importorskip("datasketch")
    assert datasketch_readme_forest(lookalike) == datasketch_readme_forest(datasketch) == ["m2", "m3"]


def test_forest_query_is_the_longest_shared_prefix_by_brute_force() -> None:
    """The forest against its definition: the keys whose longest prefix shared with the query in
    any tree is at least r, for the largest r that gives k keys (all with r = 1 otherwise)."""
    from lookalike import MinHashLSHForest

    rng = random.Random(11)
    sets = random_sets(rng, 150)
    minhashes = [minhash_of(s, num_perm=64) for s in sets]
    forest = MinHashLSHForest(num_perm=64, l=4)
    for i, m in enumerate(minhashes):
        forest.add(i, m)
    forest.index()
    depth = 64 // 4

    def shared_prefix(a: list[int], b: list[int]) -> int:
        best = 0
        for t in range(4):
            n = 0
            while n < depth and a[t * depth + n] == b[t * depth + n]:
                n += 1
            best = max(best, n)
        return best

    for q in rng.sample(range(150), 20):
        values = minhashes[q].values()
        prefix = {i: shared_prefix(values, m.values()) for i, m in enumerate(minhashes)}
        for k in (1, 5, 20):
            r = next((r for r in range(depth, 0, -1) if sum(p >= r for p in prefix.values()) >= k), 1)
            expect = {i for i, p in prefix.items() if p >= r}
            got = forest.query(minhashes[q], k)
            assert set(got) == expect and len(got) == len(expect), (q, k)
            assert q in got
    assert forest.get_minhash_hashvalues(3).tolist() == minhashes[3].values() and len(forest) == 150
    with pytest.raises(ValueError, match="already in the forest"):
        forest.add(3, minhashes[3])
    with pytest.raises(ValueError, match="num_perm"):
        forest.query(MinHash(num_perm=128), 1)


def test_hashvalues_are_a_numpy_uint64_array_when_numpy_imports() -> None:
    np = pytest.importorskip("numpy")
    from lookalike import LeanMinHash

    minhash = minhash_of(SET1)
    values = minhash.hashvalues
    assert isinstance(values, np.ndarray) and values.dtype == np.uint64 and values.shape == (128,)
    assert isinstance(minhash.digest(), np.ndarray) and values.tolist() == minhash.values()
    # Accepted back as numpy arrays of any integer dtype, as lists, as datasketch's arrays.
    for given in (values, values.astype(np.uint32), values.astype(np.int64), list(values)):
        assert LeanMinHash(seed=1, hashvalues=given) == minhash
        assert MinHash(hashvalues=given) == minhash
    datasketch = pytest.importorskip("datasketch")
    theirs = datasketch.MinHash(num_perm=128)
    theirs.update_batch([w.encode() for w in sorted(SET1)])
    assert LeanMinHash(seed=1, hashvalues=theirs.hashvalues).values() == theirs.hashvalues.tolist()
    with pytest.raises(ValueError, match="32 bits"):
        MinHash(hashvalues=np.array([1 << 40], dtype=np.uint64))
    with pytest.raises(TypeError, match="ints"):
        MinHash(hashvalues=np.array([0.5]))
    with pytest.raises(TypeError, match="not a string"):
        MinHash(hashvalues="123")


def test_hashvalues_are_a_list_without_numpy() -> None:
    """numpy stays optional: where it cannot be imported, hashvalues and digest() are lists."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import lookalike\n"
        "m = lookalike.MinHash(num_perm=8); m.update(b'a')\n"
        "assert type(m.hashvalues) is list and type(m.digest()) is list and m.digest() == m.values()\n"
        "lean = lookalike.LeanMinHash(m); buf = bytearray(lean.bytesize()); lean.serialize(buf)\n"
        "assert lookalike.LeanMinHash.deserialize(buf) == m\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "ok\n"


@pytest.mark.parametrize("byteorder", ["@", "<", ">", "!", "="])
def test_lean_minhash_serializes_in_datasketch_layout(byteorder) -> None:
    import struct

    from lookalike import LeanMinHash

    lean = LeanMinHash(minhash_of(SET1, num_perm=64, seed=7))
    assert lean.bytesize(byteorder) == 8 + 4 + 4 * 64 and len(lean) == 64
    buf = bytearray(lean.bytesize(byteorder))
    lean.serialize(buf, byteorder=byteorder)
    # The documented layout: seed (8 bytes), number of values (4), the values (4 each).
    assert struct.unpack_from(f"{byteorder}qi", buf) == (7, 64)
    assert list(struct.unpack_from(f"{byteorder}64I", buf, struct.calcsize(f"{byteorder}qi"))) == lean.values()
    back = LeanMinHash.deserialize(buf, byteorder=byteorder)
    assert type(back) is LeanMinHash and back == lean and back.seed == 7
    # Into a larger buffer at an offset (datasketch's many-in-one-buffer use), and too small.
    big = bytearray(3 * len(buf))
    lean.serialize(memoryview(big)[len(buf) :], byteorder=byteorder)
    assert LeanMinHash.deserialize(memoryview(big)[len(buf) :], byteorder=byteorder) == lean
    with pytest.raises(ValueError, match="enough space"):
        lean.serialize(bytearray(10), byteorder=byteorder)
    with pytest.raises(ValueError, match="byteorder"):
        lean.bytesize("x")
    # A perm-scheme signature: the layout holds no scheme, deserialize is told.
    perm = LeanMinHash(_perm_minhash())
    pbuf = bytearray(perm.bytesize())
    perm.serialize(pbuf)
    assert LeanMinHash.deserialize(pbuf, scheme="perm") == perm
    assert pickle.loads(pickle.dumps(back)) == lean


def _perm_minhash() -> MinHash:
    m = MinHash(num_perm=32, scheme="perm")
    m.update_batch(sorted(SET1))
    return m


def test_lean_minhash_bytes_read_by_datasketch_and_back() -> None:
    datasketch = pytest.importorskip("datasketch")
    from lookalike import LeanMinHash

    lean = LeanMinHash(minhash_of(SET2, num_perm=128, seed=3))
    buf = bytearray(lean.bytesize())
    lean.serialize(buf)
    theirs = datasketch.LeanMinHash.deserialize(buf)
    assert theirs.seed == 3 and theirs.hashvalues.tolist() == lean.values() and theirs.scheme == "legacy"
    assert theirs.bytesize() == lean.bytesize()
    # datasketch's legacy-scheme bytes read here: the same seed and values.
    ds = datasketch.LeanMinHash(seed=5, hashvalues=lean.hashvalues, scheme="legacy")
    dbuf = bytearray(ds.bytesize())
    ds.serialize(dbuf)
    mine = LeanMinHash.deserialize(dbuf)
    assert mine.seed == 5 and mine.values() == lean.values()
    # Its affine layouts (a negative count and a scheme byte) are refused, not misread.
    affine = datasketch.MinHash(num_perm=16, scheme="affine32")
    affine.update(b"x")
    abuf = bytearray(datasketch.LeanMinHash(affine).bytesize())
    datasketch.LeanMinHash(affine).serialize(abuf)
    with pytest.raises(ValueError, match="affine"):
        LeanMinHash.deserialize(abuf)
