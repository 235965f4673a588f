#!/usr/bin/env bash
# The combined method (MinHash/LSH + SimHash, issue 11 part 4) against its two halves, in
# estimate mode (each method's own decision) and with exact verification: precision, recall and F1
# against an exact truth, candidates verified, seconds and peak memory. Run by hand, not in CI.
#
#   bench/combined.sh [--corpus NAME=CORPUS.jsonl,TRUTH.tsv]... [--threshold T] [--repeat R]
#                     [--out FILE]
#
# Default corpus: bench/work/corpus-20000-s1.jsonl with its truth (made by `bench/e2e.sh
# --skip-dedup`). Seconds and peak memory are the median of R runs (default 3) of `dedup --stats`.
# Writes bench/results/combined-<date>.md (or FILE); run files go to bench/work/combined/.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work/combined"
THRESHOLD=0.8
REPEAT=3
OUT=""
CORPORA=()
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --corpus) CORPORA+=("$2"); shift 2 ;;
    --threshold) THRESHOLD="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "combined.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "combined.sh: jq is missing (apt-get install jq)" >&2; exit 1; }
[[ ${#CORPORA[@]} -gt 0 ]] || CORPORA=(
  "bench-20k=$ROOT/bench/work/corpus-20000-s1.jsonl,$ROOT/bench/work/truth-20000-s1-t0.5.tsv")
B="${CARGO_TARGET_DIR:-$ROOT/target}/release/lookalike"
[[ -x $B ]] || { echo "combined.sh: build first: cargo build --release -p lookalike-cli" >&2; exit 1; }
OUT="${OUT:-$ROOT/bench/results/combined-$(date +%F).md}"
mkdir -p "$WORK"
log() { echo "[combined $(date +%H:%M:%S)] $*" >&2; }

# label|dedup options
RUNS=(
  "minhash, estimate|-m minhash --verify estimate"
  "simhash, estimate (k = 3, its default)|-m simhash --verify estimate"
  "simhash, estimate (k = auto)|-m simhash --verify estimate --max-distance auto"
  "**combined, estimate (k = auto, default)**|-m combined --verify estimate"
  "combined, estimate, k = 6|-m combined --verify estimate --max-distance 6"
  "combined, estimate, k = 8|-m combined --verify estimate --max-distance 8"
  "combined, estimate, k = 12|-m combined --verify estimate --max-distance 12"
  "combined, estimate, k = 14|-m combined --verify estimate --max-distance 14"
  "combined, estimate, k = 16|-m combined --verify estimate --max-distance 16"
  "minhash, exact|-m minhash"
  "combined, exact (k = auto)|-m combined"
  "combined, exact, k = 14|-m combined --max-distance 14"
  "combined, exact, k = 18|-m combined --max-distance 18"
)

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

{
  echo "# The combined method against MinHash and SimHash — $(date +%F)"
  echo
  echo "Issue 11, part 4 (Henzinger 2006; seed 004, item 6). Machine: $(nproc) cores (shared),"
  echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(rustc --version)."
  echo "Commit $(git -C "$ROOT" rev-parse --short HEAD). Threshold $THRESHOLD, words:5 shingles,"
  echo "128 MinHash values (14 bands × 9 rows), SimHash tf-weighted word-5-shingle fingerprints,"
  echo "seed 1, 2 threads. Seconds and peak memory: median of $REPEAT runs (\`dedup --stats\`)."
  echo
  echo "Command: \`bench/combined.sh$(printf ' --corpus %s' "${CORPORA[@]}")\`; each run is"
  echo
  echo '```sh'
  echo "lookalike dedup CORPUS OPTIONS --threshold $THRESHOLD --pairs run.tsv --stats run.json -q"
  echo "lookalike eval -r run.tsv --gold TRUTH --threshold $THRESHOLD --json -q"
  echo '```'
  echo
} > "$OUT"

for spec in "${CORPORA[@]}"; do
  name="${spec%%=*}"
  files="${spec#*=}"
  corpus="${files%%,*}"
  truth="${files#*,}"
  [[ -f $corpus && -f $truth ]] || { echo "combined.sh: $corpus or $truth is missing" >&2; exit 1; }
  docs=$(wc -l < "$corpus")
  {
    echo "## $name: \`$corpus\` ($docs documents)"
    echo
    echo "Truth: \`$truth\` (pairs with Jaccard ≥ $THRESHOLD are the duplicates)."
    echo
    echo "| run | options | candidates | LSH candidates dropped by SimHash | pairs | precision | recall | F1 | seconds | peak MB |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  } >> "$OUT"
  i=0
  for run in "${RUNS[@]}"; do
    label="${run%%|*}"
    read -r -a opts <<< "${run#*|}"
    i=$((i + 1))
    pairs="$WORK/$name-$i.tsv"
    secs=()
    rss=()
    for r in $(seq 1 "$REPEAT"); do
      log "$name: $label (run $r of $REPEAT)"
      "$B" dedup "$corpus" "${opts[@]}" --threshold "$THRESHOLD" --pairs "$pairs" \
        --stats "$WORK/$name-$i.json" -q
      secs+=("$(jq .seconds "$WORK/$name-$i.json")")
      rss+=("$(jq '.peak_rss_bytes // 0' "$WORK/$name-$i.json")")
    done
    s=$(printf '%s\n' "${secs[@]}" | median)
    m=$(printf '%s\n' "${rss[@]}" | median)
    st="$WORK/$name-$i.json"
    cand=$(jq .pipeline.candidates.pairs "$st")
    dropped=$(jq -r '.pipeline.method.combined.simhash_rejected // "–"' "$st")
    score=$("$B" eval -r "$pairs" --gold "$truth" --threshold "$THRESHOLD" --json -q)
    jq -r '.results[0] | [.found, .precision, .recall, .f1] | @tsv' <<< "$score" \
      | awk -F'\t' -v l="$label" -v o="${opts[*]}" -v c="$cand" -v d="$dropped" -v s="$s" -v m="$m" \
        '{ printf "| %s | `%s` | %s | %s | %s | %.4f | %.4f | %.4f | %.2f | %.0f |\n",
                  l, o, c, d, $1, $2, $3, $4, s, m / 1048576 }' >> "$OUT"
  done
  echo >> "$OUT"
done
log "wrote $OUT"
