#!/usr/bin/env bash
# End-to-end benchmark of `lookalike dedup`: quality (precision, recall against the exact truth)
# and speed (wall time, peak memory, MB/s against a read + tokenize baseline) on a corpus of real
# multilingual text with planted near-duplicates. Run by hand, not in CI; see bench/README.md.
#
#   bench/e2e.sh [--docs N] [--seed S] [--threshold T] [--threads "1 2"] [--verify "exact estimate"]
#                [--no-install] [--skip-dedup] [--no-report-runs] [--report-rounds N] [--bin DIR]
#                [--corpus FILE --planted FILE --truth FILE] [--out FILE]
#
# Writes bench/results/e2e-<date>.md (e2e-<date>-<N>docs-s<S>.md for other sizes or seeds);
# generated data is cached in bench/work/ (gitignored). --bin takes lookalike and lookalike-bench
# from DIR instead of building them (to measure another commit's binaries); --corpus, --planted
# and --truth read an existing corpus, its planted list and its truth in place. The cost of
# --report is measured over --report-rounds rounds (default 5) of the run without it and the run
# with it one after the other, in turns first and second (the first run of two was measured to
# pay more system time), and given as the median of the rounds' ratios: single runs on a shared
# machine differ by more than that cost. User time is given on its own too: the kernel's page
# zeroing, in system time, moves by more than the report costs.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work"
RESULTS="$ROOT/bench/results"

DOCS=20000
SEED=1
THRESHOLD=0.8
MARGIN=0.05
TRUTH_THRESHOLD=0.5
NUM_PERM=128
SHINGLE=words:5
THREADS_LIST="1 2"
VERIFY_LIST="exact estimate"
INSTALL=1
SKIP_DEDUP=0
REPORT_RUNS=1
REPORT_ROUNDS=5
BIN_DIR=""
GIVEN_CORPUS="" GIVEN_PLANTED="" GIVEN_TRUTH=""
OUT=""

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --docs) DOCS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --threshold) THRESHOLD="$2"; shift 2 ;;
    --threads) THREADS_LIST="$2"; shift 2 ;;
    --verify) VERIFY_LIST="$2"; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    --skip-dedup) SKIP_DEDUP=1; shift ;;
    --no-report-runs) REPORT_RUNS=0; shift ;;
    --report-rounds) REPORT_ROUNDS="$2"; shift 2 ;;
    --bin) BIN_DIR="$2"; shift 2 ;;
    --corpus) GIVEN_CORPUS="$2"; shift 2 ;;
    --planted) GIVEN_PLANTED="$2"; shift 2 ;;
    --truth) GIVEN_TRUTH="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "e2e.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

log() { echo "[e2e $(date +%H:%M:%S)] $*" >&2; }

[[ $REPORT_ROUNDS =~ ^[1-9][0-9]*$ ]] \
  || { echo "e2e.sh: --report-rounds takes a whole number of rounds, 1 or more (got $REPORT_ROUNDS)" >&2; exit 2; }

# --- 1. Packages: the text sources, GNU time, jq ------------------------------------------------
APT_PACKAGES=(
  gimp-help-en gimp-help-ru gimp-help-uk gimp-help-ja gimp-help-zh-cn
  debian-handbook
  libreoffice-help-en-us libreoffice-help-ru libreoffice-help-ja libreoffice-help-zh-cn
  doublecmd-help-uk ubuntu-packaging-guide-html-uk
  time jq
)
if [[ $INSTALL == 1 ]]; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    SUDO=""
    [[ $(id -u) != 0 ]] && SUDO=sudo
    log "installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
fi
for tool in /usr/bin/time jq; do
  command -v "$tool" >/dev/null || { echo "e2e.sh: $tool is missing (apt-get install time jq)" >&2; exit 1; }
done

# Ukrainian is scarce in Debian's documentation: add the UA-GEC essays (PyPI package ua-gec,
# CC BY 4.0; only the original "source" texts, not the corrected versions).
UAGEC_VERSION=2.1.3
UAGEC="$WORK/sources/ua-gec-$UAGEC_VERSION"
mkdir -p "$WORK" "$RESULTS"
if [[ ! -d "$UAGEC/ua_gec/data" && $INSTALL == 1 ]]; then
  log "fetching ua-gec $UAGEC_VERSION (Ukrainian text) into $UAGEC"
  python3 -m pip install -q --no-deps --target "$UAGEC" "ua-gec==$UAGEC_VERSION" >&2 \
    || log "could not install ua-gec: the corpus will have little Ukrainian text"
fi
EXTRA_SOURCES=()
for split in train test; do
  d="$UAGEC/ua_gec/data/gec-only/$split/source"
  [[ -d $d ]] && EXTRA_SOURCES+=("uk=$d")
done

# --- 2. Build ----------------------------------------------------------------------------------
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ -n $BIN_DIR ]]; then
  BENCH="$BIN_DIR/lookalike-bench"
  LOOKALIKE="$BIN_DIR/lookalike"
  log "using the binaries in $BIN_DIR"
else
  log "building release binaries (target dir $TARGET)"
  (cd "$ROOT" && cargo build --release --locked -p lookalike-bench -p lookalike-cli >&2)
  BENCH="$TARGET/release/lookalike-bench"
  LOOKALIKE="$TARGET/release/lookalike"
fi

# Runs a command under GNU time; writes its report to $1.
timed() { local out="$1"; shift; /usr/bin/time -v -o "$out" "$@"; }
cpu_s() { # user + system CPU time from a `time -v` report, in seconds
  awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$1"
}
user_s() { # user CPU time from a `time -v` report, in seconds
  awk -F': ' '/User time/ { printf "%.2f", $2 }' "$1"
}
round_of() { # "wall0 wall1 cpu0 cpu1 user0 user1" of a run without --report ($1) and with it ($2)
  echo "$(wall_s "$1") $(wall_s "$2") $(cpu_s "$1") $(cpu_s "$2") $(user_s "$1") $(user_s "$2")"
}
wall_s() { # wall clock from a `time -v` report, in seconds
  awk -F': ' '/Elapsed \(wall clock\)/ {
      n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$1"
}
fmt() { jq -r "if $2 == null then \"n/a\" else $2 end" "$1"; }
rss_mb() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }

# --- 3. Corpus and truth (cached) --------------------------------------------------------------
TAG="$DOCS-s$SEED"
CORPUS="$WORK/corpus-$TAG.jsonl"
PLANTED="$WORK/planted-$TAG.tsv"
TRUTH="$WORK/truth-$TAG-t$TRUTH_THRESHOLD.tsv"
if [[ -n $GIVEN_CORPUS ]]; then
  [[ -s $GIVEN_CORPUS && -s $GIVEN_PLANTED && -s $GIVEN_TRUTH ]] || {
    echo "e2e.sh: --corpus needs --planted and --truth, all existing files" >&2; exit 2; }
  CORPUS="$GIVEN_CORPUS" PLANTED="$GIVEN_PLANTED" TRUTH="$GIVEN_TRUTH"
  TAG="$(basename "$CORPUS" .jsonl)"
fi
GEN_CMD=("$BENCH" gen-corpus --with-defaults)
[[ ${#EXTRA_SOURCES[@]} -gt 0 ]] && GEN_CMD+=(--source "${EXTRA_SOURCES[@]}")
GEN_CMD+=(--docs "$DOCS" --seed "$SEED" --shingle "$SHINGLE" --shingle-seed "$SEED"
  --out "$CORPUS" --planted "$PLANTED")
note() { # "wall s, peak RSS" of a cached step's time report
  if [[ -s $1 ]]; then echo "$(wall_s "$1") s, peak RSS $(rss_mb "$1") MB$2"; else echo "cached"; fi
}
# A cached file is reused only while its stamp matches: the command and a hash of the sources
# that decide its content (the generator, the truth join, and the shingling of the core crate).
src_hash() { { (cd "$ROOT" && cat "$@") 2>/dev/null || true; } | sha256sum | cut -c1-16; }
SHINGLE_SRC=(crates/lookalike/src/normalize.rs crates/lookalike/src/features.rs)
GEN_SRC=(crates/lookalike-bench/src/{corpus,edits,pool,extract,rng}.rs)
TRUTH_SRC=(crates/lookalike-bench/src/{allpairs,truth,files}.rs)
GEN_STAMP="$(src_hash "${SHINGLE_SRC[@]}" "${GEN_SRC[@]}") ${GEN_CMD[*]}"
GEN_CACHED=" (cached: measured when it was made)"
if [[ -n $GIVEN_CORPUS ]]; then
  GEN_CACHED=" (given: $GIVEN_CORPUS, read in place)"
elif [[ ! -s $CORPUS || ! -s $PLANTED || "$(cat "$CORPUS.stamp" 2>/dev/null)" != "$GEN_STAMP" ]]; then
  log "generating $DOCS documents"
  rm -f "$TRUTH"
  timed "$WORK/time-gen-$TAG.txt" "${GEN_CMD[@]}" 2> "$WORK/gen-$TAG.log"
  cat "$WORK/gen-$TAG.log" >&2
  echo "$GEN_STAMP" > "$CORPUS.stamp"
  GEN_CACHED=""
fi
GEN_NOTE="$(note "$WORK/time-gen-$TAG.txt" "$GEN_CACHED")"
[[ -n $GIVEN_CORPUS ]] && GEN_NOTE="read in place from $GIVEN_CORPUS"
TRUTH_CMD=("$BENCH" truth --corpus "$CORPUS" --threshold "$TRUTH_THRESHOLD" --shingle "$SHINGLE"
  --shingle-seed "$SEED" --out "$TRUTH")
TRUTH_STAMP="$(src_hash "${SHINGLE_SRC[@]}" "${TRUTH_SRC[@]}") $GEN_STAMP ${TRUTH_CMD[*]}"
TRUTH_CACHED=" (cached: measured when it was made)"
if [[ -n $GIVEN_CORPUS ]]; then
  TRUTH_CACHED=" (given: $GIVEN_TRUTH)"
elif [[ ! -s $TRUTH || "$(cat "$TRUTH.stamp" 2>/dev/null)" != "$TRUTH_STAMP" ]]; then
  log "computing the exact truth at J >= $TRUTH_THRESHOLD"
  timed "$WORK/time-truth-$TAG.txt" "${TRUTH_CMD[@]}" 2> "$WORK/truth-$TAG.log"
  cat "$WORK/truth-$TAG.log" >&2
  echo "$TRUTH_STAMP" > "$TRUTH.stamp"
  TRUTH_CACHED=""
fi
TRUTH_NOTE="$(note "$WORK/time-truth-$TAG.txt" "$TRUTH_CACHED")"
[[ -n $GIVEN_CORPUS ]] && TRUTH_NOTE="read in place from $GIVEN_TRUTH"

# --- 4. Baseline -------------------------------------------------------------------------------
log "baseline: read + unicode_words"
BASE_JSON="$WORK/baseline-$TAG.json"
BASE_CMD=("$BENCH" baseline --corpus "$CORPUS" --json)
timed "$WORK/time-baseline-$TAG.txt" "${BASE_CMD[@]}" > "$BASE_JSON"
DOCS_N=$(jq -r .docs "$BASE_JSON")
TEXT_MB=$(jq -r '.text_mb' "$BASE_JSON")
BASE_WALL=$(wall_s "$WORK/time-baseline-$TAG.txt")
BASE_MBS=$(awk -v mb="$TEXT_MB" -v s="$BASE_WALL" 'BEGIN { printf "%.2f", mb / s }')

BASE_CPU=$(cpu_s "$WORK/time-baseline-$TAG.txt")
BASE_CPU_MBS=$(awk -v mb="$TEXT_MB" -v s="$BASE_CPU" 'BEGIN { printf "%.2f", mb / s }')

row() { # run threads wall cpu rss precision recall recall_margin
  local name="$1" threads="$2" wall="$3" cpu="$4" rss="$5" p="$6" r="$7" rm="$8"
  awk -v n="$name" -v d="$DOCS_N" -v mb="$TEXT_MB" -v s="$wall" -v cpu="$cpu" -v t="$threads" \
      -v rss="$rss" -v p="$p" -v r="$r" -v rm="$rm" -v base="$BASE_MBS" -v basecpu="$BASE_CPU_MBS" '
    function num(x) { return (x ~ /^[0-9.eE+-]+$/ && x != "-") ? sprintf("%.4f", x) : x }
    BEGIN {
      mbs = mb / s
      printf "| %s | %d | %.1f | %.2f | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %s | %.3f | %.3f |\n",
        n, d, mb, s, d / s, mbs, mbs / t, cpu, mb / cpu, rss, num(p), num(r), num(rm), mbs / base,
        (mb / cpu) / basecpu }'
}

TABLE="| run | docs | MB | wall s | docs/s | MB/s | MB/s per thread | CPU s | MB/s per CPU s | peak RSS MB | precision | recall@$THRESHOLD | recall@$(awk -v t="$THRESHOLD" -v m="$MARGIN" 'BEGIN { print t + m }') | MB/s ÷ baseline | MB per CPU s ÷ baseline |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
$(row "baseline (read + unicode_words)" 1 "$BASE_WALL" "$BASE_CPU" "$(rss_mb "$WORK/time-baseline-$TAG.txt")" - - - )"
COMMANDS=("${GEN_CMD[*]}" "${TRUTH_CMD[*]}" "${BASE_CMD[*]}")
[[ -n $GIVEN_CORPUS ]] && COMMANDS=("${BASE_CMD[*]}")
DETAILS=""

# --- 5. lookalike dedup runs ------------------------------------------------------------------
DEDUP_NOTE=""
OVERHEAD=""
if [[ $SKIP_DEDUP == 1 ]]; then
  DEDUP_NOTE="lookalike dedup runs skipped (--skip-dedup)."
elif ! "$LOOKALIKE" dedup --help >/dev/null 2>&1; then
  DEDUP_NOTE="lookalike dedup is not available in this build: no dedup runs."
else
  for verify in $VERIFY_LIST; do
    for threads in $THREADS_LIST; do
      name="dedup --verify $verify --threads $threads"
      stem="$WORK/run-$TAG-$verify-j$threads"
      cmd=("$LOOKALIKE" dedup "$CORPUS" --id-field id --text-field text --threshold "$THRESHOLD"
        --num-perm "$NUM_PERM" --shingle "$SHINGLE" --seed "$SEED" --verify "$verify"
        --threads "$threads" --pairs "$stem.pairs.tsv")
      log "$name"
      timed "$stem.time.txt" "${cmd[@]}" 2> "$stem.log"
      score_cmd=("$BENCH" score --pairs "$stem.pairs.tsv" --truth "$TRUTH" --threshold "$THRESHOLD"
        --margin "$MARGIN" --planted "$PLANTED")
      "${score_cmd[@]}" --json > "$stem.score.json"
      "${score_cmd[@]}" > "$stem.score.txt"
      TABLE+=$'\n'"$(row "$name" "$threads" "$(wall_s "$stem.time.txt")" "$(cpu_s "$stem.time.txt")" \
        "$(rss_mb "$stem.time.txt")" "$(fmt "$stem.score.json" .precision)" \
        "$(fmt "$stem.score.json" .recall)" "$(fmt "$stem.score.json" .recall_margin)")"
      COMMANDS+=("${cmd[*]}" "${score_cmd[*]}")
      DETAILS+=$'\n'"### $name"$'\n\n```\n'"$(cat "$stem.score.txt")"$'\n```\n'
      # The same run with --report (and --stats), right after it: what the report's per-document
      # fields (language, origin) cost.
      if [[ $REPORT_RUNS == 1 && $verify == "$(set -- $VERIFY_LIST; echo "$1")" ]]; then
        rname="$name --report --stats"
        rstem="$stem-report"
        rcmd=("${cmd[@]}")
        rcmd[${#rcmd[@]}-1]="$rstem.pairs.tsv"
        rcmd+=(--report "$rstem.report.jsonl" --stats "$rstem.stats.json")
        log "$rname"
        timed "$rstem.time.txt" "${rcmd[@]}" 2> "$rstem.log"
        cmp -s "$stem.pairs.tsv" "$rstem.pairs.tsv" \
          || { echo "e2e.sh: --report changed the pairs of $name" >&2; exit 1; }
        TABLE+=$'\n'"$(row "$rname" "$threads" "$(wall_s "$rstem.time.txt")" \
          "$(cpu_s "$rstem.time.txt")" "$(rss_mb "$rstem.time.txt")" - - -)"
        COMMANDS+=("${rcmd[*]}")
        # Rounds of the two runs one after the other (see round_of). The first round runs
        # without --report first, the next with it first, and so on: the first run of two pays
        # more system time.
        rounds="$(round_of "$stem.time.txt" "$rstem.time.txt")"
        for ((k = 2; k <= REPORT_ROUNDS; k++)); do
          log "$name, with and without --report: round $k of $REPORT_ROUNDS"
          if ((k % 2 == 0)); then
            timed "$rstem.time.$k.txt" "${rcmd[@]}" 2> /dev/null
            timed "$stem.time.$k.txt" "${cmd[@]}" 2> /dev/null
          else
            timed "$stem.time.$k.txt" "${cmd[@]}" 2> /dev/null
            timed "$rstem.time.$k.txt" "${rcmd[@]}" 2> /dev/null
          fi
          rounds+=$'\n'"$(round_of "$stem.time.$k.txt" "$rstem.time.$k.txt")"
          rm -f "$stem.time.$k.txt" "$rstem.time.$k.txt"
        done
        OVERHEAD+=$'\n'"$(awk -v t="$threads" '
          function median(a, n,   i, j, x) {
            for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
          }
          { n++; w0[n] = $1; w1[n] = $2; c0[n] = $3; c1[n] = $4; wr[n] = $2 / $1; cr[n] = $4 / $3
            ur[n] = $6 / $5 }
          END {
            lo = 1e9; hi = -1e9
            for (i = 1; i <= n; i++) { if (cr[i] < lo) lo = cr[i]; if (cr[i] > hi) hi = cr[i] }
            printf "| %d | %d | %.2f | %.2f | %+.1f%% | %.2f | %.2f | %+.1f%% | %+.1f%% to %+.1f%% | %+.1f%% |",
              t, n, median(w0, n), median(w1, n), 100 * (median(wr, n) - 1), median(c0, n),
              median(c1, n), 100 * (median(cr, n) - 1), 100 * (lo - 1), 100 * (hi - 1),
              100 * (median(ur, n) - 1)
          }' <<< "$rounds")"
        rm -f "$rstem.report.jsonl"
      fi
    done
  done
fi

# --- 6. Report ---------------------------------------------------------------------------------
DATE=$(date +%Y-%m-%d)
if [[ -z $OUT ]]; then
  OUT="$RESULTS/e2e-$DATE.md"
  [[ $DOCS != 20000 || $SEED != 1 ]] && OUT="$RESULTS/e2e-$DATE-${DOCS}docs-s$SEED.md"
fi
CPU=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
RAM=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]]; then COMMIT+=" (with uncommitted changes)"; fi
[[ -n $BIN_DIR ]] && COMMIT="the binaries in $BIN_DIR (the script at $COMMIT)"
strip_root() { sed "s|$ROOT/||g; s|$TARGET/|target/|g"; }
{
  echo "# lookalike end-to-end benchmark, $DATE"
  echo
  echo "- machine: $(nproc) cores, $CPU, $RAM RAM"
  echo "- $(rustc --version)"
  echo "- commit: $COMMIT"
  echo "- corpus: $DOCS_N documents, $(printf %.1f "$TEXT_MB") MB of text ($(jq -r '.file_mb * 10 | round / 10' "$BASE_JSON") MB of JSONL), seed $SEED; generation: $GEN_NOTE"
  echo "- truth: all pairs with Jaccard ≥ $TRUTH_THRESHOLD on $SHINGLE shingles, exact ($(grep -vc '^#' "$TRUTH") pairs; $(awk -F'\t' -v t="$THRESHOLD" '!/^#/ && $3 >= t - 1e-9' "$TRUTH" | wc -l) with J ≥ $THRESHOLD); computation: $TRUTH_NOTE"
  echo "- wall time and peak RSS from \`/usr/bin/time -v\`; MB = MB of document text (10^6 bytes);"
  echo "  the baseline reads the same JSONL on one thread and counts words with unicode-segmentation"
  [[ -n $DEDUP_NOTE ]] && echo "- $DEDUP_NOTE"
  echo
  echo "$TABLE"
  echo
  echo "CPU s is user + system time; on a machine shared with other work it moves less than the wall"
  echo "time. MB per CPU s ÷ baseline compares the CPU cost per MB with the baseline's."
  if [[ -n $OVERHEAD ]]; then
    echo
    echo "## What --report costs"
    echo
    echo "The first verification mode's run again with \`--report FILE --stats FILE\` (same pairs, checked),"
    echo "right after it or right before it in turns, in $REPORT_ROUNDS rounds: medians of the times, and the"
    echo "median and range of the rounds' ratios (each round's two runs are seconds apart, so the"
    echo "machine's drift cancels). User time alone leaves out the kernel's page zeroing, which moves"
    echo "from run to run by more than the report costs."
    echo
    echo "| threads | rounds | wall s | wall s with --report | wall overhead | CPU s | CPU s with --report | CPU overhead | CPU overhead, range | user-time overhead |"
    echo "|---|---|---|---|---|---|---|---|---|---|$OVERHEAD"
  fi
  echo
  echo "## Commands"
  echo
  echo '```'
  printf '%s\n' "${COMMANDS[@]}" | strip_root
  echo '```'
  if [[ -n $DETAILS ]]; then
    echo
    echo "## Scores in detail"
    echo "$DETAILS"
  fi
} > "$OUT"
log "wrote ${OUT#"$ROOT"/}"
echo "$TABLE"
