"""datasketch-shaped MinHash and LSH: index documents, query near duplicates of a new one.

    python python/examples/minhash_lsh.py
"""

from lookalike import MinHash, MinHashLSH

docs = {
    "a": "Near-duplicate detection finds the documents of a large collection that say almost the "
    "same thing: a page and its print version, an article and its copy on another site, a "
    "post quoted whole in a forum thread, the same notice under two different dates.",
    "b": "a completely different text about cooking pasta with tomatoes, garlic and basil, and "
    "about how long the water should boil before the pasta goes in for a good dinner",
}
lsh = MinHashLSH(threshold=0.8, num_perm=128)
sketches = dict(zip(docs, MinHash.from_texts(list(docs.values()))))
lsh.insert_many(list(sketches), list(sketches.values()))

# "a" with its last word changed: one of its word 5-shingles differs.
query = MinHash.from_text(docs["a"].replace("dates.", "days."))
found = lsh.query(query)
for key in found:
    print(f"{key}: estimated Jaccard {query.jaccard(sketches[key]):.3f}")
if not found:
    print("no near duplicate at Jaccard 0.8")
