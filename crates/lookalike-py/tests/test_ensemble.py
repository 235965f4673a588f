"""MinHashLSHEnsemble: against exact containment, datasketch's documented example, and datasketch
2.0.0 itself where the partitions and bands agree."""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import pickle
import random
import textwrap

import pytest

from lookalike import LeanMinHash, MinHash, MinHashLSH, MinHashLSHEnsemble
from lookalike import _lookalike

UNIVERSE = 10**7


def planted(
    rng: random.Random,
    queries: int,
    per_query: int,
    sizes: list[int] | None = None,
    ratios: tuple[float, float] = (-1.5, 3.0),
):
    """Query sets, and for each `per_query` indexed sets holding a uniform random share of it
    (containment 0..1) plus other elements: e^ratios[0] to e^ratios[1] times as many as the
    query has (0.2 to 20 by default), or sizes drawn from `sizes`."""
    qs, sets = [], []
    for _ in range(queries):
        q = {rng.randrange(UNIVERSE) for _ in range(rng.randrange(20, 300))}
        qs.append(q)
        members = sorted(q)
        for _ in range(per_query):
            share = round(rng.random() * len(members))
            if sizes is None:
                inside = set(rng.sample(members, share))
                target = len(inside) + int(len(q) * math.exp(rng.uniform(*ratios)))
            else:
                target = rng.choice(sizes)
                inside = set(rng.sample(members, min(share, target)))
            s = set(inside)
            while len(s) < target:
                s.add(rng.randrange(UNIVERSE))
            sets.append(s)
    return qs, sets


def minhash_of(s: set[int], num_perm: int = 128) -> MinHash:
    m = MinHash(num_perm=num_perm)
    m.update_batch([str(x) for x in sorted(s)])
    return m


def containment(q: set[int], x: set[int]) -> float:
    return len(q & x) / len(q)


def rates(found_by_query, qs, sets, per_query, threshold):
    """Shares of the planted sets returned: well above the threshold (≥ t + 0.1), well below it
    (≤ t - 0.25), and of the other queries' sets (containment about 0)."""
    above = below = above_hit = below_hit = other_hit = others = 0
    for qi, (q, found) in enumerate(zip(qs, found_by_query)):
        own = range(qi * per_query, (qi + 1) * per_query)
        for i in own:
            c = containment(q, sets[i])
            if c >= threshold + 0.1 - 1e-9:
                above, above_hit = above + 1, above_hit + (i in found)
            elif c <= threshold - 0.25:
                below, below_hit = below + 1, below_hit + (i in found)
        others += len(sets) - per_query
        other_hit += len(set(found) - set(own))
    return above_hit / above, below_hit / below, other_hit / others, (above, below)


# (threshold, sizes of the indexed sets as e^a..e^b times the query's, least recall, most
# false hits). At 0.8 the sets are at most 4 times the query: much larger ones have Jaccard
# similarities that hardly change between containment 0.8 and 0.95 (0.8/20.2 against 0.95/20.05
# at 20 times), which no banding separates, and with equal weights the false-positive mass over
# [0, 0.8] outweighs the false-negative mass over [0.8, 1]: the bands lean to precision there
# (measured: recall 0.77-0.83 and false 0.05-0.07 on these sets, datasketch 2.0.0 the same).
@pytest.mark.parametrize(
    "threshold, ratios, least_recall, most_false",
    [(0.5, (-1.5, 3.0), 0.93, 0.3), (0.8, (-0.5, 1.4), 0.7, 0.1)],
)
def test_ensemble_finds_the_sets_that_contain_the_query_by_brute_force(threshold, ratios, least_recall, most_false):
    rng = random.Random(int(threshold * 10))
    qs, sets = planted(rng, queries=30, per_query=20, ratios=ratios)
    ensemble = MinHashLSHEnsemble(threshold=threshold, num_perm=128, num_part=16)
    ensemble.index((i, minhash_of(s), len(s)) for i, s in enumerate(sets))
    found = [set(ensemble.query(minhash_of(q), len(q))) for q in qs]
    recall, false_hits, stray, counts = rates(found, qs, sets, 20, threshold)
    print(f"t={threshold}: recall {recall:.3f}, below {false_hits:.3f}, others {stray:.4f}, {counts}")
    assert min(counts) >= 60  # enough sets on both sides for the rates to mean something
    assert recall >= least_recall, recall
    assert false_hits <= most_false, false_hits
    assert stray <= 0.005, stray
    # The partitions are by size: a Jaccard LSH at the same threshold misses most of the large
    # sets that contain the query (the reason for the ensemble; this test would catch it).
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    for i, s in enumerate(sets):
        lsh.insert(i, minhash_of(s))
    jaccard_found = [set(lsh.query(minhash_of(q))) for q in qs]
    assert rates(jaccard_found, qs, sets, 20, threshold)[0] < recall - 0.3


def test_ensemble_index_and_query_contract():
    rng = random.Random(1)
    qs, sets = planted(rng, queries=3, per_query=10)
    entries = [(f"k{i}", minhash_of(s), len(s)) for i, s in enumerate(sets)]
    ensemble = MinHashLSHEnsemble(threshold=0.6, num_perm=128, num_part=4, m=4)
    assert ensemble.is_empty() and "k0" not in ensemble
    ensemble.index(iter(entries))
    assert not ensemble.is_empty() and "k0" in ensemble and "nope" not in ensemble and len(ensemble) == 30
    with pytest.raises(ValueError, match="non-empty"):
        ensemble.index(entries)
    # Partitions cover the sizes in order, without overlap.
    lowers = [x for x in ensemble.lowers if x is not None]
    uppers = [x for x in ensemble.uppers if x is not None]
    assert lowers[0] == min(len(s) for s in sets) and uppers[-1] == max(len(s) for s in sets)
    assert all(u < lo for u, lo in zip(uppers, lowers[1:])) and all(lo <= u for lo, u in zip(lowers, uppers))
    # Every key is in the partition its size says, and a query with its own set finds it.
    for key, m, size in entries:
        assert key in set(ensemble.query(m, size))
    # Skipped partitions: no set there can contain threshold × q elements of the query.
    params = ensemble.query_params(10_000)
    assert all(p is None for p, u in zip(params, ensemble.uppers) if u is not None and u < 6000)
    with pytest.raises(ValueError, match="positive"):
        list(ensemble.query(entries[0][1], 0))
    with pytest.raises(ValueError, match="num_perm"):
        ensemble.query(MinHash(num_perm=64), 10)
    # Pickled: the same answers.
    back = pickle.loads(pickle.dumps(ensemble))
    for q in qs:
        m = minhash_of(q)
        assert sorted(back.query(m, len(q))) == sorted(ensemble.query(m, len(q)))
    assert back.uppers == ensemble.uppers and len(back) == 30


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"threshold": 1.5}, "threshold"),
        ({"num_perm": 1}, "permutation"),
        ({"num_part": 0}, "num_part"),
        ({"m": 1}, "range"),
        ({"weights": (0.5, 0.6)}, "sum"),
        ({"storage_config": {"type": "redis"}}, "not supported"),
    ],
)
def test_ensemble_refuses_what_datasketch_refuses(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MinHashLSHEnsemble(**kwargs)


def test_ensemble_refuses_bad_entries():
    e = MinHashLSHEnsemble(threshold=0.5)
    m = minhash_of({1, 2, 3})
    with pytest.raises(ValueError, match="empty"):
        e.index([])
    with pytest.raises(ValueError, match="positive"):
        e.index([("a", m, 0)])
    with pytest.raises(ValueError, match="twice"):
        e.index([("a", m, 3), ("a", m, 3)])
    assert e.is_empty()


def test_partitions_are_optimal_by_brute_force():
    """The bounds minimize the expected false positives, Σ count(s)·(u − s)/u over each
    partition of upper bound u, among every way to cut the sizes into num_part intervals."""

    def cost(parts, sizes, counts):
        return sum(c * (up - s) / up for lo, up in parts for s, c in zip(sizes, counts) if lo <= s <= up)

    rng = random.Random(4)
    for _ in range(150):
        n = rng.randrange(3, 10)
        sizes = sorted(rng.sample(range(1, 400), n))
        counts = [rng.randrange(1, 30) for _ in sizes]
        p = rng.randrange(2, n)
        ours = _lookalike.ensemble_partitions(sizes, counts, p)
        assert len(ours) == p and ours[0][0] == sizes[0] and ours[-1][1] == sizes[-1]
        best = min(
            cost([(sizes[b[i]], sizes[b[i + 1] - 1]) for i in range(p)], sizes, counts)
            for cuts in itertools.combinations(range(1, n), p - 1)
            for b in [(0, *cuts, n)]
        )
        assert cost(ours, sizes, counts) == pytest.approx(best, abs=1e-9)
    assert _lookalike.ensemble_partitions([3, 5], [1, 1], 8) == [(3, 3), (5, 5)]
    assert _lookalike.ensemble_partitions([3, 5, 9], [1, 1, 1], 1) == [(3, 9)]


def test_bands_follow_the_size_ratio():
    """A set larger than the query has a lower Jaccard similarity at the same containment: the
    bands chosen for it are more permissive (fewer rows or more bands)."""
    rs = list(range(1, 9))

    def p_at(b, r, j):
        return 1 - (1 - j**r) ** b

    small = _lookalike.containment_params(0.8, 128, rs, 1.0)
    large = _lookalike.containment_params(0.8, 128, rs, 20.0)
    # Probability of a candidate at Jaccard 0.1: negligible for x = q, real for x = 20 q.
    assert p_at(*large, 0.1) > 10 * p_at(*small, 0.1)
    for b, r in (small, large):
        assert b * r <= 128 and 1 <= r <= 8


DOC_EXAMPLE = textwrap.dedent(
    """
    from {module} import MinHashLSHEnsemble, MinHash

    set1 = set(["cat", "dog", "fish", "cow"])
    set2 = set(["cat", "dog", "fish", "cow", "pig", "elephant", "lion", "tiger",
                 "wolf", "bird", "human"])
    set3 = set(["cat", "dog", "car", "van", "train", "plane", "ship", "submarine",
                 "rocket", "bike", "scooter", "motorcyle", "SUV", "jet", "horse"])

    # Create MinHash objects
    m1 = MinHash(num_perm=128)
    m2 = MinHash(num_perm=128)
    m3 = MinHash(num_perm=128)
    for d in set1:
        m1.update(d.encode('utf8'))
    for d in set2:
        m2.update(d.encode('utf8'))
    for d in set3:
        m3.update(d.encode('utf8'))

    # Create an LSH Ensemble index with threshold and number of partition
    # settings.
    lshensemble = MinHashLSHEnsemble(threshold=0.8, num_perm=128,
        num_part=32)

    # Index takes an iterable of (key, minhash, size)
    lshensemble.index([("m2", m2, len(set2)), ("m3", m3, len(set3))])

    # Check for membership using the key
    print("m2" in lshensemble)
    print("m3" in lshensemble)

    # Using m1 as the query, get an result iterator
    print("Sets with containment > 0.8:")
    for key in lshensemble.query(m1, len(set1)):
        print(key)
    """
)


def run_example(module: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(DOC_EXAMPLE.format(module=module), "<example>", "exec"), {})
    return out.getvalue()


def test_datasketch_documented_example_gives_its_answer():
    ours = run_example("lookalike")
    assert ours == "True\nTrue\nSets with containment > 0.8:\nm2\n"
    datasketch = pytest.importorskip("datasketch")
    assert datasketch.__version__ == "2.0.0"
    assert run_example("datasketch") == ours


def test_parity_with_datasketch_where_partitions_and_bands_agree():
    """The same sets indexed by both, datasketch's signatures being lookalike's values
    (LeanMinHash with the same hashvalues): with as many partitions as distinct sizes, both cut
    one partition per size; wherever both pick the same (b, r) for a partition, both return
    exactly the same keys from it."""
    datasketch = pytest.importorskip("datasketch")
    rng = random.Random(6)
    sizes = [30, 80, 150, 300, 600, 1300, 3000, 5000]
    qs, sets = planted(rng, queries=25, per_query=16, sizes=sizes)
    distinct = sorted({len(s) for s in sets})
    threshold = 0.6
    ours = MinHashLSHEnsemble(threshold=threshold, num_perm=128, num_part=len(distinct))
    theirs = datasketch.MinHashLSHEnsemble(threshold=threshold, num_perm=128, num_part=len(distinct))
    ms = [minhash_of(s) for s in sets]
    ours.index((i, m, len(s)) for i, (m, s) in enumerate(zip(ms, sets)))

    def lean(m: MinHash):
        return datasketch.LeanMinHash(seed=1, hashvalues=m.values(), scheme="legacy")

    theirs.index([(i, lean(m), len(s)) for i, (m, s) in enumerate(zip(ms, sets))])
    assert [int(x) for x in theirs.uppers] == ours.uppers == distinct
    same = skipped = 0
    for q in qs:
        m = minhash_of(q)
        for part, p, u in zip(ours._partitions, ours.query_params(len(q)), theirs.uppers):
            b, r = (int(x) for x in theirs._get_optimal_param(u, len(q)))
            theirs_here = set(theirs.indexes[distinct.index(u)][r]._query_b(lean(m), b))
            if p is None:
                # Skipped here: no set of this partition can hold threshold × q of the query,
                # so whatever datasketch finds in it is a false positive.
                skipped += 1
                assert all(containment(q, sets[k]) < threshold for k in theirs_here)
                continue
            assert (p[2], p[3]) == (b, r)
            same += 1
            assert {part.keys[s] for s in part.tables.query(m, b, r)} == theirs_here
    print(f"partitions compared: {same}, skipped: {skipped}")
    assert same >= 100 and skipped >= 10
    # Over the whole answers: recall and false hits against the truth, side by side.
    ours_found = [set(ours.query(minhash_of(q), len(q))) for q in qs]
    theirs_found = [set(theirs.query(lean(minhash_of(q)), len(q))) for q in qs]
    assert all(a <= b for a, b in zip(ours_found, theirs_found))
    r_ours, f_ours, _, _ = rates(ours_found, qs, sets, 16, threshold)
    r_theirs, f_theirs, _, _ = rates(theirs_found, qs, sets, 16, threshold)
    print(f"recall ours {r_ours:.3f} datasketch {r_theirs:.3f}; below ours {f_ours:.3f} datasketch {f_theirs:.3f}")
    assert r_ours == r_theirs and f_ours <= f_theirs


def test_bands_are_datasketchs_at_its_grid():
    """At datasketch's 10 size ratios, the optimization picks the same (b, r) as datasketch 2.0.0
    for every threshold, weight and m tried (Simpson's rule here, scipy's quad there)."""
    datasketch = pytest.importorskip("datasketch")
    for t in (0.3, 0.6, 0.9):
        for w in ((0.5, 0.5), (0.2, 0.8)):
            ours = MinHashLSHEnsemble(threshold=t, weights=w, m=6).params
            theirs = datasketch.MinHashLSHEnsemble(threshold=t, weights=w, m=6).params
            assert ours == [tuple(int(x) for x in p) for p in theirs], (t, w)


def test_partitions_differ_from_datasketch_only_where_ours_cost_less():
    """datasketch 2.0.0's partitioning (same objective) backtracks with the cost of p partitions
    where p − 1 are left, and so misses the optimum for 3 partitions or more; where the bounds
    differ, lookalike's expected false positives are lower."""
    datasketch = pytest.importorskip("datasketch")
    np = pytest.importorskip("numpy")
    from datasketch.lshensemble_partition import optimal_partitions

    def cost(parts, sizes, counts):
        return sum(c * (up - s) / up for lo, up in parts for s, c in zip(sizes, counts) if lo <= s <= up)

    rng = random.Random(8)
    differ = 0
    for _ in range(100):
        n = rng.randrange(4, 30)
        sizes = sorted(rng.sample(range(1, 2000), n))
        counts = [rng.randrange(1, 50) for _ in sizes]
        p = rng.randrange(2, n)
        ours = _lookalike.ensemble_partitions(sizes, counts, p)
        theirs = [(int(a), int(b)) for a, b in optimal_partitions(np.array(sizes), np.array(counts), p)]
        if ours != theirs:
            differ += 1
            assert cost(ours, sizes, counts) < cost(theirs, sizes, counts) - 1e-9
        else:
            assert p >= 2
    print(f"partitions differ in {differ} of 100")
    assert datasketch.__version__ == "2.0.0" and differ > 0


def test_lean_minhash_in_an_ensemble():
    s = set(range(100))
    m = minhash_of(s)
    e = MinHashLSHEnsemble(threshold=0.9)
    e.index([("lean", LeanMinHash(m), len(s))])
    assert list(e.query(m, len(s))) == ["lean"]
