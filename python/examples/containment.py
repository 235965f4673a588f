"""Containment search with datasketch's MinHashLSHEnsemble: which indexed sets hold most of a
query set, whatever their sizes (LSH Ensemble, Zhu et al., VLDB 2016).

    python python/examples/containment.py
"""

from lookalike import MinHash, MinHashLSHEnsemble

# Columns of a few tables as sets of values; the query is a column of 40 city names.
cities = [f"city-{i}" for i in range(400)]
columns = {
    "world_cities": set(cities[264:324]),  # 60 values, 38 of the 40 query values
    "eu_cities": set(cities[282:320]),  # 38 values, 20 of the query's
    "ports": set(cities[290:300]) | {f"port-{i}" for i in range(50)},  # 10 of the query's
    "colours": {"red", "green", "blue", "cyan", "magenta", "yellow", "black"},
}
query = set(cities[262:302])


def minhash(values: set[str]) -> MinHash:
    m = MinHash(num_perm=128)
    m.update_batch(sorted(values))
    return m


ensemble = MinHashLSHEnsemble(threshold=0.8, num_perm=128, num_part=4)
ensemble.index((name, minhash(values), len(values)) for name, values in columns.items())
found = sorted(str(key) for key in ensemble.query(minhash(query), len(query)))
for name in found:
    print(f"{name}: holds {len(query & columns[name])} of the {len(query)} query values")
if not found:
    print("no column holds 80% of the query")
