#!/usr/bin/env bash
# lookalike side by side with its peers (datasketch, rensa, gaoya, text-dedup, datatrove, from PyPI)
# on the benchmark corpus: same text, word 5-shingles, threshold 0.8, 128 and 256 MinHash values.
# Each run is timed (wall, CPU, peak RSS) and its pairs are scored against the exact truth. Run by hand,
# not in CI; see bench/README.md ("Peers") and bench/RESULTS.md.
#
#   bench/peers.sh [--docs N] [--seed S] [--perms "128 256"] [--threads "1 2"]
#                  [--tools "lookalike python-tokenizer datasketch rensa gaoya text-dedup datatrove"]
#                  [--timeout SECONDS] [--no-install] [--no-build] [--out FILE]
#
# --no-build uses the lookalike binaries already in the target dir ($CARGO_TARGET_DIR or target/);
# LOOKALIKE_COMMIT, if set, is the commit the report names for them.
# Writes a report to bench/work/peers-<date>-<N>docs-s<S>.md (or FILE); everything generated goes to
# bench/work/ (the virtual environment bench/work/venv, outputs in bench/work/peers/).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work"
PEERS="$ROOT/bench/peers"

DOCS=20000
SEED=1
PERMS="128 256"
THREADS_LIST="1 2"
TOOLS="lookalike python-tokenizer datasketch rensa gaoya text-dedup datatrove"
THRESHOLD=0.8
MARGIN=0.05
SHINGLE=words:5
TIMEOUT=900
INSTALL=1
BUILD=1
OUT=""

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --docs) DOCS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --perms) PERMS="$2"; shift 2 ;;
    --threads) THREADS_LIST="$2"; shift 2 ;;
    --tools) TOOLS="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    --no-build) BUILD=0; shift ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "peers.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

log() { echo "[peers $(date +%H:%M:%S)] $*" >&2; }
command -v /usr/bin/time >/dev/null || { echo "peers.sh: GNU time is missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$WORK"

# --- 1. The peers, each installed on its own into a private virtual environment ------------------
# Versions pinned to those that installed and ran on Python 3.11 (2026-11). datatrove's MinHash
# steps also need orjson (JsonlReader), tokenizers (imported by its dedup package), spaCy (its word
# tokenizer is checked at construction, although the runner replaces it) and xxhash < 4 (its
# xxhash helper passes str, which xxhash 4 refuses); text-dedup pulls datasets and pyspark.
VENV="$WORK/venv"
PY="$VENV/bin/python"
INSTALL_LOGS="$WORK/peers-install"
declare -A PIP_SPEC=(
  [datasketch]="datasketch==2.0.0"
  [rensa]="rensa==0.5.0"
  [gaoya]="gaoya==0.2.2"
  [text-dedup]="text-dedup==0.4.0"
  [datatrove]="datatrove==0.10.1 orjson==3.13.0 tokenizers==0.23.3 spacy==3.8.18 xxhash==3.8.2"
)
declare -A MODULE=([datasketch]=datasketch [rensa]=rensa [gaoya]=gaoya [text-dedup]=text_dedup [datatrove]=datatrove)
declare -A DIST=([datasketch]=datasketch [rensa]=rensa [gaoya]=gaoya [text-dedup]=text-dedup [datatrove]=datatrove)
declare -A STATUS=()
if [[ ! -x $PY ]]; then
  log "creating $VENV"
  python3 -m venv "$VENV"
  [[ $INSTALL == 1 ]] && "$PY" -m pip install -q -U pip >&2
fi
mkdir -p "$INSTALL_LOGS"
for tool in $TOOLS; do
  [[ $tool == lookalike || $tool == python-tokenizer ]] && continue
  [[ -n ${PIP_SPEC[$tool]:-} ]] || { echo "peers.sh: unknown tool $tool" >&2; exit 2; }
  if [[ $INSTALL == 1 ]]; then
    log "pip install ${PIP_SPEC[$tool]}"
    # shellcheck disable=SC2086
    if ! "$PY" -m pip install ${PIP_SPEC[$tool]} > "$INSTALL_LOGS/$tool.log" 2>&1; then
      STATUS[$tool]="install failed: $(grep -v '^\s*$' "$INSTALL_LOGS/$tool.log" | tail -1)"
      log "$tool: ${STATUS[$tool]}"
      continue
    fi
  fi
  if "$PY" -c "import ${MODULE[$tool]}" 2> "$INSTALL_LOGS/$tool.import.log"; then
    STATUS[$tool]="ok $("$PY" -m pip show "${DIST[$tool]}" 2>/dev/null | awk '/^Version:/ { print $2 }')"
  else
    STATUS[$tool]="import failed: $(tail -1 "$INSTALL_LOGS/$tool.import.log")"
  fi
  log "$tool: ${STATUS[$tool]}"
done

# --- 2. Build ----------------------------------------------------------------------------------
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ $BUILD == 1 ]]; then
  log "building release binaries (target dir $TARGET)"
  (cd "$ROOT" && cargo build --release --locked -p lookalike-bench -p lookalike-cli >&2)
fi
BENCH="$TARGET/release/lookalike-bench"
LOOKALIKE="$TARGET/release/lookalike"

# --- 3. Corpus, truth, text size (reused from bench/e2e.sh's cache, made by it when missing) -----
TAG="$DOCS-s$SEED"
CORPUS="$WORK/corpus-$TAG.jsonl"
TRUTH="$WORK/truth-$TAG-t0.5.tsv"
if [[ ! -s $CORPUS || ! -s $TRUTH ]]; then
  log "no cached corpus/truth for $TAG: making them with bench/e2e.sh --skip-dedup"
  e2e_args=(--docs "$DOCS" --seed "$SEED" --skip-dedup --out "$WORK/e2e-prep-$TAG.md")
  [[ $INSTALL == 0 ]] && e2e_args+=(--no-install)
  "$ROOT/bench/e2e.sh" "${e2e_args[@]}" >&2
fi
BASE_JSON="$WORK/baseline-$TAG.json"
[[ -s $BASE_JSON ]] || "$BENCH" baseline --corpus "$CORPUS" --json > "$BASE_JSON"
TEXT_MB=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['text_mb'])" "$BASE_JSON")
DOCS_N=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['docs'])" "$BASE_JSON")

RUNS="$WORK/peers/$TAG"
mkdir -p "$RUNS"
RESULTS_TSV="$RUNS/results.tsv"
printf 'perm\ttool\tthreads\toutput\tstatus\twall_s\trss_mb\trss_tree_mb\tpairs\tprecision\trecall\trecall_margin\tf1\tlsh\tload\tcpu_s\n' > "$RESULTS_TSV"
COMMANDS=()
strip_root() { sed "s|$ROOT/||g; s|$TARGET/|target/|g"; }

# datatrove reads shards, one signature task per shard: the corpus split into T files in order.
shards_for() { # threads -> folder of T JSONL shards of the corpus (remade when the corpus changes)
  local t="$1" dir="$WORK/peers/shards-$TAG-$1" stamp
  stamp=$(stat -c '%s %Y' "$CORPUS")
  if [[ ! -d $dir || "$(cat "$dir.stamp" 2>/dev/null)" != "$stamp" ]]; then
    rm -rf "$dir" "$dir.tmp"
    mkdir -p "$dir.tmp"
    if [[ $t == 1 ]]; then ln -s "$CORPUS" "$dir.tmp/part-00.jsonl"
    else (cd "$dir.tmp" && split -n "l/$t" -d --additional-suffix=.jsonl "$CORPUS" part-); fi
    mv "$dir.tmp" "$dir"
    echo "$stamp" > "$dir.stamp"
  fi
  echo "$dir"
}

wall_s() { awk -F': ' '/Elapsed \(wall clock\)/ {
    n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$1"; }
cpu_s() { awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"; }
rss_mb() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }

# timed STEM ENV... -- CMD...: runs CMD under GNU time and the tree-memory sampler (with the
# timeout); sets RC. Output in STEM.out, stderr in STEM.log.
timed() {
  local stem="$1"; shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  [[ ${#envs[@]} -gt 0 ]] || envs=(LC_ALL=C.UTF-8)
  local shown="" e
  for e in ${envs[@]+"${envs[@]}"}; do [[ $e == RAYON_NUM_THREADS=* ]] && shown+="$e "; done
  COMMANDS+=("$shown$*")
  LOAD=$(cut -d' ' -f1 /proc/loadavg)
  set +e
  env "${envs[@]}" /usr/bin/time -v -o "$stem.time.txt" \
    python3 "$PEERS/memsample.py" "$stem.rss_tree" --timeout "$TIMEOUT" -- "$@" > "$stem.out" 2> "$stem.log"
  RC=$?
  set -e
}

# record PERM TOOL THREADS OUTPUT STEM PAIRS LSH: scores PAIRS and appends a results line.
record() {
  local perm="$1" tool="$2" threads="$3" output="$4" stem="$5" pairs="$6" lsh="$7"
  local status=ok wall=- cpu=- rss=- tree=- n=- p=- r=- rm=- f1=-
  if [[ $RC == 124 ]]; then status="timed out after $TIMEOUT s"
  elif [[ $RC != 0 ]]; then status="failed (exit $RC): $(grep -v '^\s*$' "$stem.log" | tail -1 | cut -c1-200)"
  fi
  if [[ -s $stem.time.txt ]]; then
    wall=$(wall_s "$stem.time.txt"); rss=$(rss_mb "$stem.time.txt")
    # GNU time's user + system less the sampler's own, or the sampled CPU time of the process tree
    # when larger (workers that the command does not wait for escape GNU time).
    cpu=$(awk -v t="$(cpu_s "$stem.time.txt")" -v s="$(cat "$stem.rss_tree.self_cpu" 2>/dev/null || echo 0)" \
      -v tree="$(cat "$stem.rss_tree.tree_cpu" 2>/dev/null || echo 0)" \
      'BEGIN { c = t - s; if (tree > c) c = tree; printf "%.2f", c }')
  fi
  # The sampled sum over the process tree, or the largest process if a short run escaped sampling.
  [[ -s $stem.rss_tree ]] && tree=$(cat "$stem.rss_tree")
  [[ $tree == - || ( $rss != - && $rss -gt $tree ) ]] && tree=$rss
  if [[ $status == ok && -n $pairs ]]; then
    local score_cmd=("$BENCH" score --pairs "$pairs" --truth "$TRUTH" --threshold "$THRESHOLD" --margin "$MARGIN")
    if "${score_cmd[@]}" --json > "$pairs.score.json" 2> "$pairs.score.log"; then
      read -r n p r rm f1 < <("$PY" -c 'import json,sys; s=json.load(open(sys.argv[1]))
f=lambda x: "-" if x is None else "%.4f" % x
print(s["found"], f(s["precision"]), f(s["recall"]), f(s["recall_margin"]), f(s["f1"]))' "$pairs.score.json")
      COMMANDS+=("${score_cmd[*]}")
    else
      status="scoring failed: $(tail -1 "$pairs.score.log")"
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$perm" "$tool" "$threads" "$output" \
    "$status" "$wall" "$rss" "$tree" "$n" "$p" "$r" "$rm" "$f1" "$lsh" "$LOAD" "$cpu" >> "$RESULTS_TSV"
}

skip_line() { # PERM TOOL THREADS REASON
  printf '%s\t%s\t%s\t-\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\n' "$1" "$2" "$3" "$4" >> "$RESULTS_TSV"
}

# --- 4. Runs, one at a time --------------------------------------------------------------------
PYENV=(PYTHONPATH="$PEERS" HF_HOME="$WORK/peers/hf-home" HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
  TOKENIZERS_PARALLELISM=false)
for perm in $PERMS; do
  # lookalike's banding for this threshold and size; every peer that takes bands x rows gets the same
  # (rensa needs bands dividing num_perm: the divisor whose P(candidate | J = 0.8) is nearest).
  read -r B R < <("$LOOKALIKE" params --threshold "$THRESHOLD" --num-perm "$perm" |
    sed -n 's/.*: \([0-9]*\) bands × \([0-9]*\) rows.*/\1 \2/p' | head -1)
  read -r RB RR < <(awk -v n="$perm" -v b="$B" -v r="$R" -v t="$THRESHOLD" 'BEGIN {
      target = 1 - (1 - t ^ r) ^ b; best = 2
      for (k = 1; k <= n; k++) if (n % k == 0) { p = 1 - (1 - t ^ (n / k)) ^ k
        d = (p > target) ? p - target : target - p; if (d < best) { best = d; bb = k } }
      print bb, n / bb }')
  log "num_perm $perm: bands x rows $B x $R (rensa $RB x $RR)"
  for tool in $TOOLS; do
    if [[ $tool != lookalike && $tool != python-tokenizer && ${STATUS[$tool]:-} != ok* ]]; then
      skip_line "$perm" "$tool" - "${STATUS[$tool]:-not installed}"
      continue
    fi
    for threads in $THREADS_LIST; do
      stem="$RUNS/p$perm-$tool-j$threads"
      threads_env=(RAYON_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads"
        PEER_THREADS="$threads")
      case $tool in
        lookalike)
          for verify in exact estimate; do
            s="$stem-$verify"
            log "lookalike --verify $verify --threads $threads --num-perm $perm"
            timed "$s" -- "$LOOKALIKE" dedup "$CORPUS" --id-field id --text-field text \
              --threshold "$THRESHOLD" --num-perm "$perm" --shingle "$SHINGLE" --seed "$SEED" \
              --verify "$verify" --threads "$threads" --pairs "$s.pairs.tsv"
            record "$perm" lookalike "$threads" "verified ($verify)" "$s" "$s.pairs.tsv" "${B}x$R"
          done ;;
        python-tokenizer)
          # The floor of the Python runners: read the corpus and build the shingle sets, nothing else.
          if [[ $threads != 1 ]]; then continue; fi
          log "python tokenizer only"
          timed "$stem" "${PYENV[@]}" "${threads_env[@]}" -- "$PY" "$PEERS/run_tokenize_only.py" "$CORPUS"
          record "$perm" "$tool" "$threads" "none (read + shingle sets only)" "$stem" "" "-" ;;
        datasketch)
          if [[ $threads != 1 ]]; then skip_line "$perm" "$tool" "$threads" "single-threaded only"; continue; fi
          log "datasketch --num-perm $perm"
          timed "$stem" "${PYENV[@]}" "${threads_env[@]}" -- "$PY" "$PEERS/run_datasketch.py" "$CORPUS" \
            --num-perm "$perm" --bands "$B" --rows "$R" --threshold "$THRESHOLD" \
            --candidates "$stem.cand.tsv" --filtered "$stem.filt.tsv"
          record "$perm" "$tool" "$threads" "LSH candidates" "$stem" "$stem.cand.tsv" "${B}x$R"
          record "$perm" "$tool" "$threads" "candidates with estimate ≥ $THRESHOLD" "$stem" "$stem.filt.tsv" "${B}x$R" ;;
        rensa)
          log "rensa --num-perm $perm threads $threads"
          timed "$stem" "${PYENV[@]}" "${threads_env[@]}" -- "$PY" "$PEERS/run_rensa.py" "$CORPUS" \
            --num-perm "$perm" --bands "$RB" --threshold "$THRESHOLD" \
            --candidates "$stem.cand.tsv" --filtered "$stem.filt.tsv"
          record "$perm" "$tool" "$threads" "LSH candidates" "$stem" "$stem.cand.tsv" "${RB}x$RR"
          record "$perm" "$tool" "$threads" "candidates with estimate ≥ $THRESHOLD" "$stem" "$stem.filt.tsv" "${RB}x$RR" ;;
        gaoya)
          log "gaoya bands $B x $R threads $threads"
          timed "$stem" "${PYENV[@]}" "${threads_env[@]}" -- "$PY" "$PEERS/run_gaoya.py" "$CORPUS" \
            --bands "$B" --rows "$R" --threshold "$THRESHOLD" \
            --candidates "$stem.cand.tsv" --filtered "$stem.filt.tsv"
          record "$perm" "$tool" "$threads" "query (estimate ≥ $THRESHOLD)" "$stem" "$stem.filt.tsv" "${B}x$R" ;;
        text-dedup)
          log "text-dedup --num_perm $perm --num_proc $threads"
          rm -rf "$stem.td"
          timed "$stem" "${PYENV[@]}" "${threads_env[@]}" -- "$PY" -m text_dedup.minhash \
            --path json --data_files "$CORPUS" --split train --cache_dir "$stem.td/cache" \
            --output "$stem.td/out" --column text --idx_column id --num_perm "$perm" \
            --threshold "$THRESHOLD" --b "$B" --r "$R" --ngram 5 --hash_func xxh3 \
            --num_proc "$threads" --debug
          if [[ $RC == 0 ]]; then
            "$PY" "$PEERS/textdedup_pairs.py" "$CORPUS" "$stem.td/out/uf.pkl" "$stem.pairs.tsv" > "$stem.clusters.json"
          fi
          record "$perm" "$tool" "$threads" "pairs within clusters" "$stem" "$stem.pairs.tsv" "${B}x$R"
          rm -rf "$stem.td" ;;
        datatrove)
          log "datatrove $B x $R workers $threads"
          shards=$(shards_for "$threads")
          timed "$stem" "${PYENV[@]}" "${threads_env[@]}" -- "$PY" "$PEERS/run_datatrove.py" run \
            "$shards" "$stem.dt" --bands "$B" --rows "$R" --threads "$threads"
          if [[ $RC == 0 ]]; then
            "$PY" "$PEERS/run_datatrove.py" pairs "$shards" "$stem.dt" --out "$stem.pairs.tsv" > "$stem.clusters.json"
          fi
          record "$perm" "$tool" "$threads" "pairs within clusters" "$stem" "$stem.pairs.tsv" "${B}x$R"
          rm -rf "$stem.dt" ;;
      esac
    done
  done
done

# --- 5. Report ---------------------------------------------------------------------------------
DATE=$(date +%Y-%m-%d)
[[ -z $OUT ]] && OUT="$WORK/peers-$DATE-${DOCS}docs-s$SEED.md"
CPU=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
RAM=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
OS=$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null || uname -s)
if [[ -n ${LOOKALIKE_COMMIT:-} ]]; then COMMIT="$LOOKALIKE_COMMIT"
else
  COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]]; then COMMIT+=" (with uncommitted changes)"; fi
fi
{
  echo "## $DOCS_N documents ($(printf %.1f "$TEXT_MB") MB of text), $DATE"
  echo
  echo "- machine: $(nproc) cores, $CPU, $RAM RAM, $OS, $(uname -r)"
  echo "- lookalike: commit $COMMIT, $(rustc --version 2>/dev/null)"
  echo "- Python $("$PY" -c 'import platform; print(platform.python_version())'); peers:"
  for tool in $TOOLS; do [[ $tool == lookalike || $tool == python-tokenizer ]] || echo "  - $tool: ${STATUS[$tool]:-not tried}"; done
  echo "- corpus: bench/work/corpus-$TAG.jsonl; truth: bench/work/truth-$TAG-t0.5.tsv ($(awk -F'\t' -v t="$THRESHOLD" '!/^#/ && $3 >= t - 1e-9' "$TRUTH" | wc -l) pairs with J ≥ $THRESHOLD)"
  echo "- one run at a time; wall time and peak RSS of the largest process from \`/usr/bin/time -v\`; \"all processes\": the"
  echo "  summed RSS of the run's process tree, sampled every 0.1 s (bench/peers/memsample.py), at least the former;"
  echo "  CPU s: user + system time of the run's processes (GNU time, or the sampled process tree when larger:"
  echo "  datatrove's workers escape GNU time), which other work on the machine disturbs less than wall time;"
  echo "  MB = 10^6 bytes of document text, RSS in MiB; load: the 1-minute load average when the run started"
  echo "  (other work on the machine shows there); timeout per run: $TIMEOUT s"
  echo "- every Python run has PYTHONPATH=bench/peers, HF_HOME=bench/work/peers/hf-home, HF_HUB_OFFLINE=1,"
  echo "  HF_DATASETS_OFFLINE=1, TOKENIZERS_PARALLELISM=false and OMP_NUM_THREADS, OPENBLAS_NUM_THREADS,"
  echo "  PEER_THREADS and RAYON_NUM_THREADS set to the run's thread count"
  echo
  python3 "$PEERS/report.py" "$RESULTS_TSV" "$DOCS_N" "$TEXT_MB"
  echo
  echo "### Commands"
  echo
  echo '```'
  printf '%s\n' "${COMMANDS[@]}" | strip_root
  echo '```'
} > "$OUT"
log "wrote ${OUT#"$ROOT"/}"
