#!/usr/bin/env bash
# Peak resident memory of `lookalike dedup` against --spill-memory (formerly --memory): what the
# setting bounds (the shingle sets of exact verification; each sort of Broder's algorithm) and
# what comes on top. Run by hand, not in CI; see bench/README.md.
#
#   bench/memory.sh [--corpus FILE] [--settings "16M 64M 256M 1G"] [--methods "minhash broder"]
#                   [--threads N] [--no-install] [--out FILE]
#
# The default corpus is the end-to-end one (bench/work/corpus-20000-s1.jsonl, ~113 MB), made by
# bench/e2e.sh --skip-dedup when missing. Each run is timed by GNU time (/usr/bin/time -v).
# Writes bench/results/memory-<date>.md.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work"
RESULTS="$ROOT/bench/results"
CORPUS=""
SETTINGS="16M 64M 256M 1G"
METHODS="minhash broder"
THREADS=""
INSTALL_FLAG=""
OUT=""

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --corpus) CORPUS="$2"; shift 2 ;;
    --settings) SETTINGS="$2"; shift 2 ;;
    --methods) METHODS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --no-install) INSTALL_FLAG="--no-install"; shift ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "memory.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
log() { echo "[memory $(date +%H:%M:%S)] $*" >&2; }
[[ -x /usr/bin/time ]] || { echo "memory.sh: GNU time is missing (apt-get install time)" >&2; exit 1; }
command -v jq >/dev/null || { echo "memory.sh: jq is missing (apt-get install jq)" >&2; exit 1; }

if [[ -z $CORPUS ]]; then
  CORPUS="$WORK/corpus-20000-s1.jsonl"
  if [[ ! -s $CORPUS ]]; then
    log "generating the end-to-end corpus"
    "$ROOT/bench/e2e.sh" --docs 20000 --seed 1 --skip-dedup $INSTALL_FLAG --out /dev/null >&2
  fi
fi
[[ -s $CORPUS ]] || { echo "memory.sh: no corpus at $CORPUS" >&2; exit 1; }

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
LOOKALIKE="$TARGET/release/lookalike"
log "building lookalike (release)"
(cd "$ROOT" && cargo build --release --locked --bin lookalike >&2)
OUT="${OUT:-$RESULTS/memory-$(date +%F).md}"
mkdir -p "$RESULTS" "$WORK"
RUN="$WORK/memory-run"
mkdir -p "$RUN"

mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1e6 }'; }
size_bytes() {
  local s="$1" n="${1%[KMGkmg]}"
  case "${s: -1}" in
    K|k) echo $((n << 10)) ;; M|m) echo $((n << 20)) ;; G|g) echo $((n << 30)) ;; *) echo "$s" ;;
  esac
}

rows=()
for method in $METHODS; do
  for setting in $SETTINGS; do
    args=(dedup "$CORPUS" --method "$method" --spill-memory "$setting" --spill-dir "$RUN"
          --pairs "$RUN/pairs.tsv" --output "$RUN/unique.jsonl" --stats "$RUN/stats.json" -q)
    [[ -n $THREADS ]] && args+=(--threads "$THREADS")
    log "lookalike ${args[*]}"
    /usr/bin/time -v -o "$RUN/time.txt" "$LOOKALIKE" "${args[@]}"
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$RUN/time.txt")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$RUN/time.txt")
    docs=$(jq '.documents' "$RUN/stats.json")
    mbytes=$(jq '.bytes' "$RUN/stats.json")
    spilled=$(jq '[.pipeline.method.broder.bytes_spilled // 0, .pipeline.spill_bytes // 0] | add' "$RUN/stats.json")
    rss=$((rss_kb * 1024))
    set_b=$(size_bytes "$setting")
    rows+=("| $method | $setting | $wall | $(mb "$rss") | $(mb $((rss - set_b))) | $(mb "$spilled") | $docs | $(mb "$mbytes") |")
  done
done
rm -rf "$RUN"

{
  echo "# Peak memory against --spill-memory — $(date +%F)"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo);"
  echo "$(rustc --version); commit $(git -C "$ROOT" rev-parse --short HEAD)."
  echo "Corpus: \`${CORPUS#"$ROOT/"}\` ($(mb "$(stat -c %s "$CORPUS")") MB). Threads: ${THREADS:-all}."
  echo
  echo "Command: \`bench/memory.sh --settings \"$SETTINGS\" --methods \"$METHODS\"${THREADS:+ --threads $THREADS}\`;"
  echo "each run: \`/usr/bin/time -v lookalike dedup CORPUS --method M --spill-memory S --spill-dir DIR"
  echo "--pairs … --output … --stats …\`. Peak RSS is GNU time's maximum resident set size (MB = 10^6"
  echo "bytes); \"RSS − setting\" is what the setting does not account for; \"spilled\" is what went to"
  echo "--spill-dir (shingle sets, Broder's sorted runs) as --stats reports it."
  echo
  echo "| method | --spill-memory | wall | peak RSS MB | RSS − setting MB | spilled MB | documents | input MB |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} > "$OUT"
log "wrote $OUT"
