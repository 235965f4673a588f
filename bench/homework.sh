#!/usr/bin/env bash
# The lecture's homework (seed 003) at 10x a course sample: `./run.sh path/to/dataset/*.gz` printing
# `url1 url2 similarity` for a collection of gzip files of docreader records (a 4-byte little-endian
# length, then a protobuf `document { url = 1; body = 2; text = 3 }`, body the page's HTML), within
# the homework's limits of 20 minutes and 4 GB. Run by hand, not in CI; see bench/README.md.
#
#   bench/homework.sh [--docs N] [--parts P] [--methods "broder minhash supershingles"]
#                     [--threshold T] [--threads N] [--extract text|main] [--seed S]
#                     [--max-page-bytes B] [--min-words W] [--bin DIR] [--out FILE] [--keep-pairs]
#
# 1. The collection (cached in bench/work/homework/): `lookalike-bench homework-gen` reads every HTML
#    file of /usr/share/doc up to --max-page-bytes (64 KiB by default; `find -L`, sorted) with at
#    least --min-words words in its body (100: stubs are all template once extracted), and writes
#    --docs records (200,000) in --parts files part-NNN.gz (8), each a multi-member gzip:
#    - every page once (its <body> as the article, in a documentation site's template);
#    - composites up to 70% of the records: new articles of three runs of consecutive blocks of
#      three random pages (the pages of one machine are too few for 200,000 distinct ones; pages are
#      reused this way, under new urls);
#    - 30% planted variants of those: mirror (the same page under another url), template (the
#      article in another site's template), print (the article alone), truncate (70-95% of the
#      article), edit (1-5% of its words replaced). planted.tsv lists them.
# 2. The exact truth: the text lookalike compares (`lookalike extract --extract MODE`, the same
#    decoding as dedup), then every pair with Jaccard >= 0.7 on word 5-shingles
#    (`lookalike-bench truth`); the extracted text is deleted afterwards.
# 3. The homework command for each method, one at a time, under `nice` and `/usr/bin/time`:
#      lookalike dedup DATA/*.gz --format docreader --extract MODE --method M --threshold T --pairs -
#    (stdout is the `url1<TAB>url2<TAB>similarity` list), then `lookalike-bench score` against the
#    truth: precision, recall, recall per planted kind.
# Writes bench/results/homework-<date>.md (or FILE). --extract text (the default) takes all visible
# text, as the course's html2text does; main is lookalike's default for web pages and much slower.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work/homework"

DOCS=200000
PARTS=8
METHODS="broder minhash supershingles"
THRESHOLD=0.8
TRUTH_T=0.7
THREADS=2
EXTRACT=text
SEED=1
MAX_PAGE=65536
MIN_WORDS=100
BIN=""
OUT=""
KEEP_PAIRS=0

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --docs) DOCS="$2"; shift 2 ;;
    --parts) PARTS="$2"; shift 2 ;;
    --methods) METHODS="$2"; shift 2 ;;
    --threshold) THRESHOLD="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --extract) EXTRACT="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --max-page-bytes) MAX_PAGE="$2"; shift 2 ;;
    --min-words) MIN_WORDS="$2"; shift 2 ;;
    --bin) BIN="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --keep-pairs) KEEP_PAIRS=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "homework.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ $EXTRACT == text || $EXTRACT == main ]] || { echo "homework.sh: --extract is text or main" >&2; exit 2; }

log() { echo "[homework $(date +%H:%M:%S)] $*" >&2; }
command -v /usr/bin/time >/dev/null || { echo "homework.sh: GNU time is missing (apt-get install time)" >&2; exit 1; }
command -v jq >/dev/null || { echo "homework.sh: jq is missing (apt-get install jq)" >&2; exit 1; }

# --- 0. Binaries --------------------------------------------------------------------------------
if [[ -z $BIN ]]; then
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
  log "cargo build --release -p lookalike-cli -p lookalike-bench"
  (cd "$ROOT" && nice cargo build --release --locked -q -p lookalike-cli -p lookalike-bench)
fi
LOOKALIKE="$BIN/lookalike"
BENCH="$BIN/lookalike-bench"
for b in "$LOOKALIKE" "$BENCH"; do
  [[ -x $b ]] || { echo "homework.sh: $b is missing" >&2; exit 1; }
done
COMMANDS=()
strip_root() { sed "s|$ROOT/||g; s|$BIN/|target/release/|g"; }
quote() { local out="" a; for a in "$@"; do if [[ $a =~ [^A-Za-z0-9_./=:,@+*-] ]]; then out+="'$a' "; else out+="$a "; fi; done; echo "${out% }"; }
run_logged() { COMMANDS+=("$(quote "$@")"); "$@"; }

# --- 1. The collection --------------------------------------------------------------------------
mkdir -p "$WORK"
DATA="$WORK/data-$DOCS-p$PARTS-s$SEED-m$MAX_PAGE-w$MIN_WORDS"
PAGES="$WORK/pages.txt"
find -L /usr/share/doc -name '*.html' -type f 2>/dev/null | LC_ALL=C sort > "$PAGES.new"
# The collection is made again when the page list or the generator changes.
KEY=$( { cat "$PAGES.new"; cat "$ROOT/crates/lookalike-bench/src/homework.rs"; } | sha256sum | cut -c1-16)
mv "$PAGES.new" "$PAGES"
COMMANDS+=("find -L /usr/share/doc -name '*.html' -type f | LC_ALL=C sort > $PAGES")
if [[ -s $DATA/key && $(cat "$DATA/key") == "$KEY" ]]; then
  log "reusing $DATA"
else
  rm -rf "$DATA"
  mkdir -p "$DATA"
  log "generating $DOCS records from $(wc -l < "$PAGES") HTML files"
  run_logged nice "$BENCH" homework-gen --pages "$PAGES" --docs "$DOCS" --parts "$PARTS" --seed "$SEED" \
    --max-page-bytes "$MAX_PAGE" --min-words "$MIN_WORDS" --out "$DATA" --planted "$DATA/planted-urls.tsv" 2> "$DATA/gen.log"
  cat "$DATA/gen.log" >&2
  echo "$KEY" > "$DATA/key"
fi
GEN_SUMMARY=$(tail -1 "$DATA/gen.log")
FILES=("$DATA"/part-*.gz)
DATA_MB=$(du -cm "${FILES[@]}" | tail -1 | cut -f1)

# --- 2. The exact truth on the text lookalike compares -------------------------------------------
TRUTH="$DATA/truth-$EXTRACT-t$TRUTH_T.tsv"
PLANTED="$DATA/planted-$EXTRACT-t$TRUTH_T.tsv"
if [[ -s $TRUTH && -s $PLANTED ]]; then
  log "reusing $TRUTH"
else
  TEXTS="$WORK/texts-$EXTRACT.jsonl"
  log "extracting the text (--extract $EXTRACT)"
  run_logged nice "$LOOKALIKE" extract "$DATA/part-*.gz" --format docreader --extract "$EXTRACT" --jsonl \
    -o "$TEXTS" 2> "$DATA/extract-$EXTRACT.log"
  log "exact truth (every pair with Jaccard >= $TRUTH_T)"
  run_logged nice "$BENCH" truth --corpus "$TEXTS" --threshold "$TRUTH_T" --shingle words:5 --shingle-seed 1 \
    --out "$TRUTH.tmp"
  mv "$TRUTH.tmp" "$TRUTH"
  rm -f "$TEXTS"
  # The planted pairs with their true Jaccard (0 below the truth's threshold).
  awk -F'\t' 'FNR == NR { if ($0 !~ /^#/) j[$1 "\t" $2] = $3; next }
    /^#/ { print "# id1\tid2\tjaccard\tkind"; next }
    { k = $1 "\t" $2; print k "\t" ((k in j) ? j[k] : 0) "\t" $3 }' "$TRUTH" "$DATA/planted-urls.tsv" > "$PLANTED"
fi
TRUTH_PAIRS=$(grep -vc '^#' "$TRUTH" || true)
TRUTH_AT_T=$(awk -F'\t' -v t="$THRESHOLD" '!/^#/ && $3 >= t - 1e-9 { n++ } END { print n + 0 }' "$TRUTH")
log "truth: $TRUTH_PAIRS pairs with Jaccard >= $TRUTH_T, $TRUTH_AT_T at >= $THRESHOLD"

# --- 3. The homework command, per method --------------------------------------------------------
RUNS="$WORK/runs"
mkdir -p "$RUNS"
ROWS=()
DETAILS=""
for method in $METHODS; do
  stem="$RUNS/$method-$EXTRACT"
  log "lookalike dedup --method $method"
  cmd=("$LOOKALIKE" dedup "${FILES[@]}" --format docreader --extract "$EXTRACT" --method "$method"
       --threshold "$THRESHOLD" --threads "$THREADS" --pairs -)
  COMMANDS+=("nice /usr/bin/time -f '%e s %M KB' $(quote "$LOOKALIKE" dedup) DATA/part-*.gz $(quote "${cmd[@]:$((2 + ${#FILES[@]}))}") > pairs.tsv")
  LOAD=$(cut -d' ' -f1 /proc/loadavg)
  set +e
  nice /usr/bin/time -f '%e %M %U %S' -o "$stem.time" "${cmd[@]}" > "$stem.pairs.tsv" 2> "$stem.log"
  rc=$?
  set -e
  if [[ $rc != 0 ]]; then
    ROWS+=("| $method | failed (exit $rc): $(tail -1 "$stem.log" | cut -c1-120) | | | | | | | |")
    continue
  fi
  read -r wall rss_kb user sys < <(tail -1 "$stem.time")
  pairs=$(wc -l < "$stem.pairs.tsv")
  "$BENCH" score --pairs "$stem.pairs.tsv" --truth "$TRUTH" --threshold "$THRESHOLD" --planted "$PLANTED" --json > "$stem.score.json"
  "$BENCH" score --pairs "$stem.pairs.tsv" --truth "$TRUTH" --threshold "$THRESHOLD" --planted "$PLANTED" > "$stem.score.txt"
  COMMANDS+=("$(quote "$BENCH" score --pairs pairs.tsv --truth "$TRUTH" --threshold "$THRESHOLD" --planted "$PLANTED")")
  fmt() { jq -r "$1 // \"-\" | if type == \"number\" then (. * 10000 | round / 10000 | tostring) else . end" "$stem.score.json"; }
  within="yes"
  awk -v w="$wall" -v r="$rss_kb" 'BEGIN { exit !(w <= 1200 && r <= 4 * 1048576) }' || within="no"
  ROWS+=("| $method | $wall | $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }') | $(awk -v r="$rss_kb" 'BEGIN { printf "%.0f", r / 1024 }') | $pairs | $(fmt .precision) | $(fmt .recall) | $(fmt .recall_margin) | $within | $LOAD |")
  summary=$(grep -E '^lookalike: |^  (kept|near-duplicate|method|time|input errors)' "$stem.log" || true)
  DETAILS+=$'\n'"### $method"$'\n\n```\n'"$summary"$'\n\n'"$(cat "$stem.score.txt")"$'\n```\n'
  [[ $KEEP_PAIRS == 1 ]] || rm -f "$stem.pairs.tsv"
done

# --- 4. Report ----------------------------------------------------------------------------------
DATE=$(date +%Y-%m-%d)
[[ -n $OUT ]] || OUT="$ROOT/bench/results/homework-$DATE.md"
mkdir -p "$(dirname "$OUT")"
CPUNAME=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
RAM=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
{
  echo "# The lecture's homework at 10x: $DOCS pages, $DATE"
  echo
  echo "The homework (seed 003): \`./run.sh path/to/dataset/*.gz\` prints \`url1 url2 similarity\` for every pair of"
  echo "near-duplicate pages of a collection of gzip files of docreader records, **in at most 20 minutes and 4 GB of"
  echo "memory**, checked on samples x5..x10 the course's. Here: $DOCS records, about 10x a course sample."
  echo
  echo "- machine: $(nproc) cores, $CPUNAME, $RAM RAM, shared with other builds (1-minute load when each run started"
  echo "  in the table); lookalike at commit $COMMIT$DIRTY, release build, $THREADS threads"
  echo "- collection: ${#FILES[@]} files, $DATA_MB MB of gzip; $GEN_SUMMARY"
  echo "- truth: exact Jaccard of word 5-shingles of the text lookalike compares (\`--extract $EXTRACT\`): $TRUTH_PAIRS pairs"
  echo "  ≥ $TRUTH_T, **$TRUTH_AT_T pairs ≥ $THRESHOLD**"
  echo "- command: \`lookalike dedup DATA/*.gz --format docreader --extract $EXTRACT --method M --threshold $THRESHOLD --pairs -\`"
  echo "  (stdout: \`url1<TAB>url2<TAB>similarity\`; every candidate verified by exact Jaccard, the default)"
  echo
  echo "| method | wall s | CPU s | peak RSS MB | pairs | precision | recall@$THRESHOLD | recall@$(awk -v t="$THRESHOLD" 'BEGIN { print t + 0.05 }') | within 20 min and 4 GB | load |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for r in "${ROWS[@]}"; do echo "$r"; done
  echo
  echo "Limits of the homework: 20 minutes wall time and 4 GB of memory for the whole \`run.sh\`, on the course's"
  echo "machine (Linux x86_64); the numbers above are from this $(nproc)-core machine."
  echo
  echo "## Runs in detail"
  echo "$DETAILS"
  echo "## Commands"
  echo
  echo '```'
  for c in "${COMMANDS[@]}"; do echo "$c"; done | strip_root
  echo '```'
} > "$OUT"
log "wrote ${OUT#"$ROOT"/}"
