#!/usr/bin/env bash
# Size of the HTML report on a 100,000-document run, against its cap (--html-max-size, 4 MB by
# default), and the time the report adds to the run. Run by hand, not in CI (the tests check the
# cap on a small corpus).
#
#   bench/report-size.sh [DOCS]      (default 100000)
#
# The corpus is the first DOCS lines of bench/work/corpus-320000-s1.jsonl when it is there,
# else made with `lookalike-bench gen-corpus --docs DOCS` into bench/work/. Uses
# $CARGO_TARGET_DIR/release (or target/release); nothing is built.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
WORK="$ROOT/bench/work"
DOCS="${1:-100000}"
mkdir -p "$WORK/report-size"
CORPUS="$WORK/report-size/corpus-$DOCS.jsonl"
if [ ! -s "$CORPUS" ]; then
    BIG="$WORK/corpus-320000-s1.jsonl"
    [ -s "$BIG" ] || BIG="$ROOT/../main/bench/work/corpus-320000-s1.jsonl"
    if [ -s "$BIG" ] && [ "$DOCS" -le 320000 ]; then
        head -n "$DOCS" "$BIG" >"$CORPUS"
    else
        "$BIN/lookalike-bench" gen-corpus --docs "$DOCS" --out "$CORPUS"
    fi
fi
cd "$WORK/report-size"
/usr/bin/time -f "without --html: %e s, %M KB" "$BIN/lookalike" dedup "$CORPUS" -q --pairs pairs.tsv
/usr/bin/time -f "with --html: %e s, %M KB" "$BIN/lookalike" dedup "$CORPUS" -q --pairs pairs.tsv --html report.html
SIZE=$(stat -c %s report.html)
echo "report.html: $SIZE bytes (cap 4194304)"
grep -o 'Sampled to stay under[^<]*' report.html
[ "$SIZE" -le 4194304 ] || { echo "over the cap" >&2; exit 1; }
