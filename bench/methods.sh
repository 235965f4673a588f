#!/usr/bin/env bash
# Every method on the end-to-end corpus at several sizes: precision / recall / F1 against the exact
# truth, docs/s, MB/s and peak memory per method (`lookalike compare --gold`), and how time and
# memory grow with the corpus size. Run by hand, not in CI; see bench/README.md.
#
#   bench/methods.sh [--sizes "20000 80000 320000"] [--seed S] [--threshold T] [--threads N]
#                    [--methods LIST] [--no-install] [--out FILE]
#
# Corpora and truths are generated (and cached in bench/work/) by bench/e2e.sh --skip-dedup.
# Writes bench/results/methods-<date>.md: one compare table per size, then a growth table.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work"
RESULTS="$ROOT/bench/results"
SIZES="20000 80000 320000"
SEED=1
THRESHOLD=0.8
THREADS=""
METHODS=""
INSTALL_FLAG=""
OUT=""

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) SIZES="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --threshold) THRESHOLD="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --methods) METHODS="$2"; shift 2 ;;
    --no-install) INSTALL_FLAG="--no-install"; shift ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "methods.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
log() { echo "[methods $(date +%H:%M:%S)] $*" >&2; }
command -v jq >/dev/null || { echo "methods.sh: jq is missing (apt-get install jq)" >&2; exit 1; }

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
LOOKALIKE="$TARGET/release/lookalike"
OUT="${OUT:-$RESULTS/methods-$(date +%F).md}"
mkdir -p "$RESULTS" "$WORK"

json_files=()
{
  echo "# Every method at several corpus sizes — $(date +%F)"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo);"
  echo "$(rustc --version). Threshold $THRESHOLD, seed $SEED, threads ${THREADS:-all}."
  echo "Quality against the exact truth (all pairs with word-5-shingle Jaccard ≥ $THRESHOLD)."
  echo "Command: \`bench/methods.sh --sizes \"$SIZES\"${METHODS:+ --methods $METHODS}\`"
  echo
} > "$OUT"

for n in $SIZES; do
  log "preparing corpus and truth for $n documents"
  "$ROOT/bench/e2e.sh" --docs "$n" --seed "$SEED" --skip-dedup $INSTALL_FLAG --out /dev/null >&2
  corpus="$WORK/corpus-$n-s$SEED.jsonl"
  truth="$WORK/truth-$n-s$SEED-t0.5.tsv"
  json="$WORK/methods-$n-s$SEED.json"
  args=(compare "$corpus" --gold "$truth" --threshold "$THRESHOLD" --seed "$SEED" --json "$json"
        --markdown "$WORK/methods-$n-s$SEED.md")
  [[ -n $THREADS ]] && args+=(--threads "$THREADS")
  [[ -n $METHODS ]] && args+=(--methods "$METHODS")
  log "lookalike ${args[*]}"
  "$LOOKALIKE" "${args[@]}"
  {
    echo "## $n documents ($(du -m "$corpus" | cut -f1) MB)"
    echo
    cat "$WORK/methods-$n-s$SEED.md"
    echo
  } >> "$OUT"
  json_files+=("$json")
done

# Growth: each method's wall time and peak memory at every size, relative to the smallest.
{
  echo "## Growth with the corpus size"
  echo
  echo "Seconds and peak MB per size; the ratio columns divide by the smallest size's figure"
  echo "(linear growth gives the size ratio for time and at most that for memory)."
  echo
  jq -r -s '
    (map(.documents) ) as $docs
    | ([.[0].methods[].method]) as $labels
    | "| method | " + ([$docs[] | "\(.) docs: s, MB"] | join(" | ")) + " | time ratio | memory ratio |",
      "|---|" + ([$docs[] | "---"] | join("|")) + "|---|---|",
      ($labels[] as $l
        | [ .[] | (.methods[] | select(.method == $l)) ] as $runs
        | "| \($l) | "
          + ([$runs[] | "\(.seconds * 100 | round / 100), \(.peak_memory_mb | round)"] | join(" | "))
          + " | " + ([$runs[] | (.seconds / $runs[0].seconds * 10 | round / 10 | tostring)] | join(" : "))
          + " | " + ([$runs[] | (.peak_memory_mb / $runs[0].peak_memory_mb * 10 | round / 10 | tostring)] | join(" : "))
          + " |")
  ' "${json_files[@]}"
} >> "$OUT"
log "wrote $OUT"
