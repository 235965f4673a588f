"""Deduplicate a Parquet file with pandas: keep one document of each group of near duplicates.

    python python/examples/dedup_parquet.py corpus.parquet unique.parquet
"""

import sys

import pandas as pd

import lookalike

df = pd.read_parquet(sys.argv[1])  # columns "id" and "text" (polars: pl.read_parquet works too)
result = lookalike.dedup(df, text="text", id="id", threshold=0.8)
fates = result.table.to_pandas()  # one row per document, in input order
unique = df[(fates["status"] != "duplicate").to_numpy()]
unique.to_parquet(sys.argv[2], index=False)
print(f"{len(df)} documents, {len(df) - len(unique)} near or exact duplicates removed")
print(fates["status"].value_counts().to_string())
