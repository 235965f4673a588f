"""lookalike.read + lookalike.dedup against `lookalike dedup` on the same folders: the same pairs?

    python bench/read-parity.py LOOKALIKE_BIN DIR...

For each DIR: the CLI's `--pairs` with the default settings (site boilerplate removal on), and
`lookalike.dedup(lookalike.read([DIR]))` over the rows with text; prints the pair counts and
whether the pairs and similarities (6 decimals) are the same. Exits 1 if one differs.
"""

from __future__ import annotations

import csv
import subprocess
import sys
import tempfile

import pyarrow.compute as pc

import lookalike


def main() -> int:
    cli, dirs = sys.argv[1], sys.argv[2:]
    status = 0
    for d in dirs:
        with tempfile.NamedTemporaryFile(suffix=".tsv") as out:
            subprocess.run([cli, "dedup", d, "-q", "--pairs", out.name], check=True)
            with open(out.name) as f:
                theirs = {(a, b): round(float(s), 6) for a, b, s in csv.reader(f, delimiter="\t")}
        table = lookalike.read([d]).read_all()
        result = lookalike.dedup(table.filter(pc.is_valid(table["text"])), id="id")
        ours = {(p["id1"], p["id2"]): round(p["similarity"], 6) for p in result.pairs.to_pylist()}
        same = ours == theirs
        status |= not same
        print(f"{d}: CLI {len(theirs)} pairs, Python {len(ours)} pairs, {'same' if same else 'DIFFERENT'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
