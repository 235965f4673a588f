#!/usr/bin/env bash
# lookalike from Python against datasketch, rensa and gaoya, and lookalike.ray.dedup in local Ray
# with 1 and 2 workers against the CLI, on the benchmark corpus. Prints JSON lines; the dated
# results are in bench/results/python-*.md.
#
#   bench/python.sh [CORPUS.jsonl] [DOCS]      (default bench/work/corpus-20000-s1.jsonl, 20000)
#
# Builds the release wheel into bench/venv (gitignored) with the peers' pinned versions.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-bench/work/corpus-20000-s1.jsonl}
docs=${2:-20000}
venv=bench/venv
target=${CARGO_TARGET_DIR:-target}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
    "maturin==1.16.0" "pyarrow==26.0.1" "ray[data]==2.60.0" "datasketch==2.0.0" \
    "rensa==0.5.0" "gaoya==0.2.2"
(cd crates/lookalike-py && "../../$venv/bin/maturin" build --release --quiet --locked -o "../../$target/wheels")
"$venv/bin/pip" install --quiet --force-reinstall --no-deps "$target"/wheels/lookalike-*.whl
cargo build --release --locked -p lookalike-cli
case "$target" in /*) cli="$target/release/lookalike" ;; *) cli="$PWD/$target/release/lookalike" ;; esac

head -n "$docs" "$corpus" > "$target/python-bench.jsonl"
input="$target/python-bench.jsonl"
for task in texts-lookalike-dedup texts-lookalike-lsh texts-datasketch texts-rensa texts-gaoya \
            tokens-lookalike-lsh tokens-datasketch tokens-rensa tokens-gaoya; do
    "$venv/bin/python" bench/python-peers.py "$input" "$docs" "$task"
done

# The CLI against Ray local mode with 1 and 2 workers (the same threads each).
for threads in 1 2; do
    start=$(date +%s.%N)
    "$cli" dedup "$input" --threads "$threads" -q --pairs /dev/null
    end=$(date +%s.%N)
    echo "{\"task\": \"cli-threads-$threads\", \"docs\": $docs, \"seconds\": $(echo "$end - $start" | bc)}"
    RAYON_NUM_THREADS=1 "$venv/bin/python" - "$input" "$threads" <<'PY'
import json, sys, time
import pyarrow.json, ray
import lookalike.ray
path, workers = sys.argv[1], int(sys.argv[2])
ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
ray.data.DataContext.get_current().enable_progress_bars = False
table = pyarrow.json.read_json(path)
ds = ray.data.from_arrow(table).repartition(2 * workers).materialize()
start = time.perf_counter()
result = lookalike.ray.dedup(ds, text="text", id="id", num_partitions=2 * workers)
ray.get(result.dataset.to_arrow_refs())
print(json.dumps({"task": f"ray-workers-{workers}", "docs": table.num_rows,
                  "seconds": round(time.perf_counter() - start, 2), "pairs": result.stats["stats"]["pairs"]}))
PY
done
