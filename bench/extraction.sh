#!/usr/bin/env bash
# Main-content extraction benchmark: quality on the article-extraction benchmark (181 real pages,
# per-page F1 against the `trafilatura` crate lookalike used before its own extractor) and speed
# on a folder of text-dense HTML (MB/s on one thread, against all visible text in the same run).
# Run by hand, not in CI.
#
#   bench/extraction.sh [--data DIR] [--html-dir DIR] [--repeat N] [--out FILE]
#
# --data: the benchmark (default ../shared/data/article-extraction-benchmark); --html-dir: the
# dense pages (default /work/dense/pages: 3,025 Debian manual pages); --repeat: runs per page
# (quality) and passes (speed), the fastest timed (default 3).
# Writes bench/results/extraction-<date>.md.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RESULTS="$ROOT/bench/results"
DATA="$ROOT/../shared/data/article-extraction-benchmark"
HTML_DIR=/work/dense/pages
REPEAT=3
OUT=""

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --data) DATA="$2"; shift 2 ;;
    --html-dir) HTML_DIR="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "extraction.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

log() { echo "[extraction $(date +%H:%M:%S)] $*" >&2; }

cd "$ROOT"
log "building lookalike-bench (release)"
cargo build --release --locked -p lookalike-bench >&2
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BENCH="$TARGET/release/lookalike-bench"

OUT="${OUT:-$RESULTS/extraction-$(date +%Y-%m-%d).md}"
mkdir -p "$(dirname "$OUT")"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

log "quality: $DATA"
"$BENCH" extraction-bench --data "$DATA" --extractor trafilatura --extractor main \
  --extractor text --baseline trafilatura --repeat "$REPEAT" --worst 10 >"$TMP/quality.txt"
"$BENCH" extraction-bench --data "$DATA" --extractor trafilatura --extractor main \
  --baseline trafilatura --repeat 1 --json >"$TMP/quality.json"

log "speed: $HTML_DIR"
"$BENCH" extraction-bench --html-dir "$HTML_DIR" --extractor trafilatura --extractor main \
  --repeat "$REPEAT" >"$TMP/speed.txt"
"$BENCH" extraction-bench --html-dir "$HTML_DIR" --extractor trafilatura --extractor main \
  --repeat "$REPEAT" --json >"$TMP/speed.json"

field() { # field FILE EXTRACTOR JQ-PATH
  jq -r --arg e "$2" ".reports[] | select(.extractor == \$e) | $3" "$1"
}

{
  echo "# Main-content extraction, $(date +%Y-%m-%d)"
  echo
  echo "Machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end of the run;"
  echo "commit $(git rev-parse --short HEAD). Command: \`bench/extraction.sh --repeat $REPEAT\`."
  echo
  echo "Before: the \`trafilatura\` crate 0.6 (fallback on, FavorPrecision), as \`extract_main\` used it."
  echo "After: lookalike's own extractor (\`crates/lookalike-io/src/readable/\`)."
  echo
  echo "| | before (trafilatura) | after (main) |"
  echo "|---|---|---|"
  printf '| benchmark F1 (181 pages) | %.3f | %.3f |\n' \
    "$(field "$TMP/quality.json" trafilatura .scores.f1)" "$(field "$TMP/quality.json" main .scores.f1)"
  printf '| precision / recall | %.3f / %.3f | %.3f / %.3f |\n' \
    "$(field "$TMP/quality.json" trafilatura .scores.precision)" \
    "$(field "$TMP/quality.json" trafilatura .scores.recall)" \
    "$(field "$TMP/quality.json" main .scores.precision)" "$(field "$TMP/quality.json" main .scores.recall)"
  printf '| pages > 0.05 F1 below trafilatura | - | %s |\n' \
    "$(field "$TMP/quality.json" main '.below_baseline | length')"
  printf '| dense HTML, MB/s (one thread) | %.1f | %.1f |\n' \
    "$(field "$TMP/speed.json" trafilatura .mb_per_s)" "$(field "$TMP/speed.json" main .mb_per_s)"
  printf '| dense HTML, times slower than visible text | %.1fx | %.1fx |\n' \
    "$(field "$TMP/speed.json" trafilatura .times_slower_than_text)" \
    "$(field "$TMP/speed.json" main .times_slower_than_text)"
  printf '| dense HTML, slowest page (ms) | %.1f | %.1f |\n' \
    "$(field "$TMP/speed.json" trafilatura .slowest_file_ms)" "$(field "$TMP/speed.json" main .slowest_file_ms)"
  echo
  echo "## Quality (article-extraction benchmark)"
  echo
  echo '```'
  cat "$TMP/quality.txt"
  echo '```'
  echo
  echo "## Per page: F1 of each page, lowest after-minus-before first"
  echo
  echo "| page | before (trafilatura) | after (main) | after - before |"
  echo "|---|---|---|---|"
  jq -r '. as $o | ($o.reports[] | select(.extractor == "trafilatura") | .page_f1) as $b
         | ($o.reports[] | select(.extractor == "main") | .page_f1) as $a
         | [range(0; $o.page_ids | length) | {id: $o.page_ids[.][0:12], b: $b[.], a: $a[.]}]
         | sort_by(.a - .b) | .[]
         | "| \(.id) | \(.b * 1000 | round / 1000) | \(.a * 1000 | round / 1000) | \((.a - .b) * 1000 | round / 1000) |"' \
    "$TMP/quality.json"
  echo
  echo "## Speed (text-dense HTML)"
  echo
  echo '```'
  cat "$TMP/speed.txt"
  echo '```'
} >"$OUT"
log "wrote $OUT"
