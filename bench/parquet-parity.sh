#!/usr/bin/env bash
# Byte-identity of Parquet input between two `lookalike` binaries (issue 36: Parquet rows were
# written as JSON by arrow_json, now by lookalike-io's own writer).
#
#   bench/parquet-parity.sh OLD_BINARY NEW_BINARY [DIR]
#
# Writes the Parquet files of bench/parquet-parity-files.py (every Arrow type family a user's
# Parquet has, with nulls and extreme values) into DIR (default: a temporary directory), runs
# `lookalike dedup` (pairs, clusters, output, report) and `lookalike paragraphs` (output,
# report) on each with both binaries, and compares every output, the standard error and the
# exit status with cmp. Exit 0 when all are the same. Needs python3 with pyarrow.
set -euo pipefail
old=$1
new=$2
dir=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
"${PYTHON:-python3}" "$here/parquet-parity-files.py" "$dir/in"
run() {
    local bin=$1 out=$2 f=$3
    mkdir -p "$out"
    set +e
    "$bin" dedup -q -j 1 "$f" --pairs "$out/pairs.tsv" --clusters "$out/clusters.jsonl" \
        --output "$out/dedup.jsonl" --report "$out/dedup-report.jsonl" 2> "$out/dedup.err"
    echo "$?" > "$out/dedup.status"
    "$bin" paragraphs -q -j 1 "$f" --output "$out/paragraphs.jsonl" \
        --report "$out/paragraphs-report.jsonl" 2> "$out/paragraphs.err"
    echo "$?" > "$out/paragraphs.status"
    set -e
}
same=0
differ=0
for f in "$dir"/in/*.parquet; do
    name=$(basename "$f" .parquet)
    run "$old" "$dir/old/$name" "$f"
    run "$new" "$dir/new/$name" "$f"
    # Every file either binary wrote (one only the other wrote differs).
    for b in $( (ls "$dir/old/$name"; ls "$dir/new/$name") | sort -u); do
        o="$dir/old/$name/$b"
        n="$dir/new/$name/$b"
        if cmp -s "$o" "$n"; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            echo "DIFFERS: $name/$b"
            cmp "$o" "$n" 2>&1 || true
        fi
    done
    lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo -; fi; }
    printf '%-16s old: paragraphs %5s lines (exit %s), dedup %s pairs (exit %s); new: %5s, %s, %s, %s\n' \
        "$name" "$(lines "$dir/old/$name/paragraphs.jsonl")" "$(cat "$dir/old/$name/paragraphs.status")" \
        "$(lines "$dir/old/$name/pairs.tsv")" "$(cat "$dir/old/$name/dedup.status")" \
        "$(lines "$dir/new/$name/paragraphs.jsonl")" "$(cat "$dir/new/$name/paragraphs.status")" \
        "$(lines "$dir/new/$name/pairs.tsv")" "$(cat "$dir/new/$name/dedup.status")"
done
echo "$same files the same, $differ differ ($dir)"
[ "$differ" -eq 0 ]
