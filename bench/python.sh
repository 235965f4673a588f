#!/usr/bin/env bash
# lookalike from Python against datasketch, rensa and gaoya, and lookalike.ray.dedup in local Ray
# with 1 and 2 workers against the CLI (bench/python-ray.py), on the benchmark corpus. Prints JSON lines; the dated
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
    "rensa==0.5.0" "gaoya==0.2.2" "psutil==7.2.2"
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

# The CLI (--threads 1, 2), lookalike.dedup (1, 2 threads) and lookalike.ray.dedup (ray.init with
# num_cpus 1, 2) in one run: wall, CPU, peak memory, same pairs and clusters, Ray's overhead.
"$venv/bin/python" bench/python-ray.py "$cli" "$corpus" "$docs" 2>/dev/null
