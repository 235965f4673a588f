"""datasketch-shaped MinHash and LSH: index documents, query near duplicates of a new one.

    python python/examples/minhash_lsh.py
"""

from lookalike import MinHash, MinHashLSH

docs = {
    "a": "near duplicate detection finds documents that are almost the same in a large collection",
    "b": "Near-duplicate detection finds documents that are almost the same in a large collection!",
    "c": "a completely different text about cooking pasta with tomatoes and basil for dinner",
}
lsh = MinHashLSH(threshold=0.8, num_perm=128)
sketches = dict(zip(docs, MinHash.from_texts(list(docs.values()))))
lsh.insert_many(list(sketches), list(sketches.values()))

query = MinHash.from_text("near duplicate detection finds documents that are almost the same in a big collection")
for key in lsh.query(query):
    print(key, round(query.jaccard(sketches[key]), 3))
