"""Deduplicate a JSONL corpus from Python and write the unique documents.

    python python/examples/dedup_jsonl.py corpus.jsonl unique.jsonl
"""

import json
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json

import lookalike

source, target = sys.argv[1], sys.argv[2]
table = pyarrow.json.read_json(source)
result = lookalike.dedup(table, text="text", id="id", threshold=0.8)
keep = pc.not_equal(result.table["status"], pa.scalar("duplicate"))
unique = table.filter(keep)
with open(target, "w") as out:
    for row in unique.to_pylist():
        out.write(json.dumps(row, ensure_ascii=False))
        out.write("\n")
stats = result.stats["stats"]
print(f"{stats['documents']} documents, {stats['duplicates']} duplicates in {stats['clusters']} clusters")
print(f"wrote {unique.num_rows} documents to {target}", file=sys.stderr)
