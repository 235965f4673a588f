#!/usr/bin/env bash
# Clusters of lookalike (every --cluster mode) and of its peers (datasketch, rensa, gaoya: union-find
# over the pairs they report), side by side on one corpus, from one run: cluster-implied pair
# precision, recall, F1, adjusted Rand index and largest cluster against the exact truth. Run by
# hand, not in CI; see bench/README.md ("Clusters") and bench/RESULTS.md.
#
#   bench/clusters.sh --corpus FILE --truth FILE [--name NAME]
#   bench/clusters.sh --make-tmpl DIR [--extract text|main] [--name NAME]
#       [--modes "connected center clique center-refine"] [--tools "datasketch rensa gaoya"]
#       [--threads N] [--timeout SECONDS] [--no-install] [--bin DIR] [--out FILE]
#
# --make-tmpl DIR: the template-heavy corpus, made in DIR from the HTML of four Debian documentation
# packages (installed with apt-get when missing) unless DIR already holds it: DIR/files.txt, then
# with --extract text (default) DIR/pages.jsonl, DIR/corpus.jsonl, DIR/truth.tsv, with --extract
# main DIR/pages-main.jsonl, DIR/corpus-main.jsonl, DIR/truth-main.tsv.
# --bin DIR: where lookalike and lookalike-bench are (default $CARGO_TARGET_DIR/release or
# target/release; nothing is built); LOOKALIKE_COMMIT, if set, is the commit the report names.
# Writes bench/results/clusters-<date>-<NAME>.md (or FILE); everything else goes to
# bench/work/clusters/NAME/ and the peers' virtual environment bench/work/venv (as bench/peers.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work"
PEERS="$ROOT/bench/peers"

CORPUS=""
TRUTH=""
NAME=""
TMPL=""
EXTRACT=text
MODES="connected center clique center-refine"
TOOLS="datasketch rensa gaoya"
THREADS=2
TIMEOUT=1800
INSTALL=1
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
OUT=""
THRESHOLD=0.8
NUM_PERM=128
SHINGLE=words:5
SEED=1

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --corpus) CORPUS="$2"; shift 2 ;;
    --truth) TRUTH="$2"; shift 2 ;;
    --name) NAME="$2"; shift 2 ;;
    --make-tmpl) TMPL="$2"; shift 2 ;;
    --extract) EXTRACT="$2"; shift 2 ;;
    --modes) MODES="$2"; shift 2 ;;
    --tools) TOOLS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    --bin) BIN="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "clusters.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ $EXTRACT == text || $EXTRACT == main ]] || { echo "clusters.sh: --extract is text or main" >&2; exit 2; }
if [[ -z $TMPL && ( -z $CORPUS || -z $TRUTH ) ]]; then
  echo "clusters.sh: give --corpus and --truth, or --make-tmpl DIR" >&2; usage >&2; exit 2
fi

log() { echo "[clusters $(date +%H:%M:%S)] $*" >&2; }
command -v /usr/bin/time >/dev/null || { echo "clusters.sh: GNU time is missing (apt-get install time)" >&2; exit 1; }
LOOKALIKE="$BIN/lookalike"
BENCH="$BIN/lookalike-bench"
for b in "$LOOKALIKE" "$BENCH"; do
  [[ -x $b ]] || { echo "clusters.sh: $b is missing: build with cargo build --release -p lookalike-cli -p lookalike-bench, or pass --bin" >&2; exit 1; }
done
COMMANDS=()
strip_root() { sed "s|$ROOT/||g; s|$BIN/|target/release/|g"; }
quote() { local out="" a; for a in "$@"; do if [[ $a =~ [^A-Za-z0-9_./=:,@+-] ]]; then out+="'$a' "; else out+="$a "; fi; done; echo "${out% }"; }
run_logged() { COMMANDS+=("$(quote "$@")"); "$@"; }

# --- 1. The template-heavy corpus (optional) ---------------------------------------------------
# Every HTML page of the SciPy, PostgreSQL 15 and Python 3.11 manuals and every 8th page of the Rust
# documentation (file order), extracted as `lookalike dedup` would read them, plus 30% planted
# variants of whole pages (lookalike-bench plant), and the exact truth (every pair with Jaccard
# >= 0.5 on word 5-shingles).
if [[ -n $TMPL ]]; then
  mkdir -p "$TMPL"
  TMPL="$(cd "$TMPL" && pwd)"
  suffix=""; [[ $EXTRACT == main ]] && suffix="-main"
  CORPUS="$TMPL/corpus$suffix.jsonl"
  TRUTH="$TMPL/truth$suffix.tsv"
  [[ -n $NAME ]] || NAME="tmpl-$EXTRACT"
  if [[ -s $CORPUS && -s $TRUTH ]]; then
    log "reusing $CORPUS and $TRUTH (delete them to rebuild)"
  else
    DOCDIRS=(/usr/share/doc/postgresql-doc-15/html /usr/share/doc/python-scipy-doc/html /usr/share/doc/python3.11/html)
    RUSTDIR=/usr/share/doc/rust-doc/html
    missing=()
    for p in python-scipy-doc postgresql-doc-15 python3.11-doc rust-doc; do
      dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
      [[ $INSTALL == 1 ]] || { echo "clusters.sh: missing Debian packages ${missing[*]} (and --no-install)" >&2; exit 1; }
      sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
      log "apt-get install ${missing[*]}"
      $sudo apt-get update -qq >&2
      $sudo apt-get install -y -qq "${missing[@]}" >&2
    fi
    COMMANDS+=("{ find -L ${DOCDIRS[*]} -name '*.html'; find -L $RUSTDIR -name '*.html' | sort | awk 'NR%8==0'; } | sort > $TMPL/files.txt")
    { find -L "${DOCDIRS[@]}" -name '*.html'; find -L "$RUSTDIR" -name '*.html' | LC_ALL=C sort | awk 'NR%8==0'; } |
      LC_ALL=C sort > "$TMPL/files.txt"
    log "extracting $(wc -l < "$TMPL/files.txt") pages (--extract $EXTRACT)"
    # One call over every file (the list fits the argument limit: about 0.8 MB).
    mapfile -t FILES < "$TMPL/files.txt"
    COMMANDS+=("$LOOKALIKE extract --jsonl --extract $EXTRACT \$(cat $TMPL/files.txt) -o $TMPL/pages$suffix.jsonl")
    "$LOOKALIKE" extract --jsonl --extract "$EXTRACT" "${FILES[@]}" -o "$TMPL/pages$suffix.jsonl"
    run_logged "$BENCH" plant --corpus "$TMPL/pages$suffix.jsonl" --out "$CORPUS" --seed 1
    log "exact truth (every pair with Jaccard >= 0.5)"
    run_logged "$BENCH" truth --corpus "$CORPUS" --threshold 0.5 --shingle "$SHINGLE" --shingle-seed "$SEED" --out "$TRUTH.tmp"
    mv "$TRUTH.tmp" "$TRUTH"
  fi
fi
[[ -s $CORPUS ]] || { echo "clusters.sh: no corpus $CORPUS" >&2; exit 1; }
[[ -s $TRUTH ]] || { echo "clusters.sh: no truth $TRUTH" >&2; exit 1; }
CORPUS="$(cd "$(dirname "$CORPUS")" && pwd)/$(basename "$CORPUS")"
TRUTH="$(cd "$(dirname "$TRUTH")" && pwd)/$(basename "$TRUTH")"
[[ -n $NAME ]] || NAME="$(basename "$CORPUS" .jsonl)"
DOCS=$(grep -c . "$CORPUS")

# --- 2. The peers, in bench/peers.sh's virtual environment, at its pinned versions ------------
VENV="$WORK/venv"
PY="$VENV/bin/python"
INSTALL_LOGS="$WORK/peers-install"
# Keep in step with PIP_SPEC in bench/peers.sh.
declare -A PIP_SPEC=([datasketch]="datasketch==2.0.0" [rensa]="rensa==0.5.0" [gaoya]="gaoya==0.2.2")
declare -A STATUS=()
mkdir -p "$WORK" "$INSTALL_LOGS"
if [[ ! -x $PY ]]; then
  log "creating $VENV"
  python3 -m venv "$VENV"
  [[ $INSTALL == 1 ]] && "$PY" -m pip install -q -U pip >&2
fi
for tool in $TOOLS; do
  [[ -n ${PIP_SPEC[$tool]:-} ]] || { echo "clusters.sh: unknown tool $tool (datasketch, rensa, gaoya)" >&2; exit 2; }
  if [[ $INSTALL == 1 ]] && ! "$PY" -c "import $tool" 2>/dev/null; then
    log "pip install ${PIP_SPEC[$tool]}"
    if ! "$PY" -m pip install "${PIP_SPEC[$tool]}" > "$INSTALL_LOGS/$tool.log" 2>&1; then
      STATUS[$tool]="install failed: $(grep -v '^\s*$' "$INSTALL_LOGS/$tool.log" | tail -1)"
      log "$tool: ${STATUS[$tool]}"
      continue
    fi
  fi
  if "$PY" -c "import $tool" 2> "$INSTALL_LOGS/$tool.import.log"; then
    STATUS[$tool]="ok $("$PY" -m pip show "$tool" 2>/dev/null | awk '/^Version:/ { print $2 }')"
  else
    STATUS[$tool]="import failed: $(tail -1 "$INSTALL_LOGS/$tool.import.log")"
  fi
  log "$tool: ${STATUS[$tool]}"
done

# --- 3. Runs, one at a time --------------------------------------------------------------------
RUNS="$WORK/clusters/$NAME"
mkdir -p "$RUNS"
RUNS_TSV="$RUNS/runs.tsv"
printf 'name\ttool\tclusters_from\tstatus\twall_s\tcpu_s\trss_mb\tload\tuf_s\n' > "$RUNS_TSV"
CLUSTER_FILES=()
PAIR_FILES=()

# timed STEM CMD...: runs CMD under GNU time and the timeout; sets RC, WALL, CPU, RSS, LOAD.
timed() {
  local stem="$1"; shift
  COMMANDS+=("$(quote "$@")")
  LOAD=$(cut -d' ' -f1 /proc/loadavg)
  set +e
  LC_ALL=C.UTF-8 /usr/bin/time -v -o "$stem.time.txt" timeout "$TIMEOUT" "$@" > "$stem.out" 2> "$stem.log"
  RC=$?
  set -e
  WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0
    for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$stem.time.txt")
  CPU=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$stem.time.txt")
  RSS=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$stem.time.txt")
}
status_of() { # STEM -> ok, or why not
  if [[ $RC == 124 ]]; then echo "timed out after $TIMEOUT s"
  elif [[ $RC != 0 ]]; then echo "failed (exit $RC): $(grep -v '^\s*$' "$1.log" | tail -1 | cut -c1-160)"
  else echo ok; fi
}

read -r B R < <("$LOOKALIKE" params --threshold "$THRESHOLD" --num-perm "$NUM_PERM" |
  sed -n 's/.*: \([0-9]*\) bands × \([0-9]*\) rows.*/\1 \2/p' | head -1)
# rensa needs bands dividing num_perm: the divisor whose P(candidate | J = t) is nearest (as peers.sh).
read -r RB RR < <(awk -v n="$NUM_PERM" -v b="$B" -v r="$R" -v t="$THRESHOLD" 'BEGIN {
    target = 1 - (1 - t ^ r) ^ b; best = 2
    for (k = 1; k <= n; k++) if (n % k == 0) { p = 1 - (1 - t ^ (n / k)) ^ k
      d = (p > target) ? p - target : target - p; if (d < best) { best = d; bb = k } }
    print bb, n / bb }')
log "$NAME: $DOCS documents; $NUM_PERM values, bands x rows $B x $R (rensa $RB x $RR)"

for mode in $MODES; do
  stem="$RUNS/lookalike-$mode"
  log "lookalike --cluster $mode"
  rm -f "$stem.clusters.jsonl" "$stem.pairs.tsv"
  timed "$stem" "$LOOKALIKE" dedup "$CORPUS" --id-field id --text-field text --threshold "$THRESHOLD" \
    --num-perm "$NUM_PERM" --shingle "$SHINGLE" --seed "$SEED" --threads "$THREADS" \
    --cluster "$mode" --clusters "$stem.clusters.jsonl" --pairs "$stem.pairs.tsv"
  st=$(status_of "$stem")
  printf 'lookalike %s\tlookalike\t--cluster %s\t%s\t%s\t%s\t%s\t%s\t-\n' "$mode" "$mode" "$st" "$WALL" "$CPU" "$RSS" "$LOAD" >> "$RUNS_TSV"
  if [[ $st == ok ]]; then
    CLUSTER_FILES+=(-r "lookalike $mode=$stem.clusters.jsonl")
    # The verified pairs are the same in every mode: scored once.
    [[ ${#PAIR_FILES[@]} -gt 0 ]] || PAIR_FILES+=(-r "lookalike (verified, every mode)=$stem.pairs.tsv")
  fi
done

PYENV=(env PYTHONPATH="$PEERS" RAYON_NUM_THREADS="$THREADS" PEER_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS")
for tool in $TOOLS; do
  stem="$RUNS/$tool"
  if [[ ${STATUS[$tool]:-} != ok* ]]; then
    printf '%s\t%s\t-\t%s\t-\t-\t-\t-\t-\n' "$tool" "$tool" "${STATUS[$tool]:-not installed}" >> "$RUNS_TSV"
    continue
  fi
  rm -f "$stem.cand.tsv" "$stem.filt.tsv" "$stem.clusters.jsonl"
  case $tool in
    datasketch)
      log "datasketch $B x $R"; lsh="${B}x$R"; from="candidates with estimate ≥ $THRESHOLD"
      timed "$stem" "${PYENV[@]}" "$PY" "$PEERS/run_datasketch.py" "$CORPUS" --num-perm "$NUM_PERM" \
        --bands "$B" --rows "$R" --threshold "$THRESHOLD" --candidates "$stem.cand.tsv" --filtered "$stem.filt.tsv" ;;
    rensa)
      log "rensa $RB x $RR"; lsh="${RB}x$RR"; from="candidates with estimate ≥ $THRESHOLD"
      timed "$stem" "${PYENV[@]}" "$PY" "$PEERS/run_rensa.py" "$CORPUS" --num-perm "$NUM_PERM" \
        --bands "$RB" --threshold "$THRESHOLD" --candidates "$stem.cand.tsv" --filtered "$stem.filt.tsv" ;;
    gaoya)
      log "gaoya $B x $R"; lsh="${B}x$R"; from="query (estimate ≥ $THRESHOLD)"
      timed "$stem" "${PYENV[@]}" "$PY" "$PEERS/run_gaoya.py" "$CORPUS" \
        --bands "$B" --rows "$R" --threshold "$THRESHOLD" --candidates "$stem.cand.tsv" --filtered "$stem.filt.tsv" ;;
  esac
  st=$(status_of "$stem")
  uf=-
  if [[ $st == ok ]]; then
    COMMANDS+=("$(quote "$PY" "$PEERS/union_find.py" "$CORPUS" "$stem.filt.tsv" "$stem.clusters.jsonl")")
    t0=$(date +%s.%N)
    if "$PY" "$PEERS/union_find.py" "$CORPUS" "$stem.filt.tsv" "$stem.clusters.jsonl" > "$stem.uf.json" 2> "$stem.uf.log"; then
      uf=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
      CLUSTER_FILES+=(-r "$tool ${STATUS[$tool]#ok }=$stem.clusters.jsonl")
      PAIR_FILES+=(-r "$tool ${STATUS[$tool]#ok }=$stem.filt.tsv")
    else
      st="union-find failed: $(tail -1 "$stem.uf.log")"
    fi
  fi
  printf '%s %s\t%s\tunion-find over %s, LSH %s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "${STATUS[$tool]#ok }" "$tool" "$from" "$lsh" \
    "$st" "$WALL" "$CPU" "$RSS" "$LOAD" "$uf" >> "$RUNS_TSV"
  # The unfiltered candidates are not used here and can be large.
  rm -f "$stem.cand.tsv"
done

# --- 4. Scores ---------------------------------------------------------------------------------
log "scoring with lookalike eval"
EVAL=("$LOOKALIKE" eval --gold "$TRUTH" --threshold "$THRESHOLD" --docs "$DOCS" --json -q)
: > "$RUNS/clusters.eval.json"; : > "$RUNS/pairs.eval.json"
# A failed scoring leaves its rows "not scored" in the report rather than no report at all.
if [[ ${#CLUSTER_FILES[@]} -gt 0 ]]; then
  run_logged "${EVAL[@]}" "${CLUSTER_FILES[@]}" > "$RUNS/clusters.eval.json" || log "scoring the clusters failed"
  run_logged "${EVAL[@]}" "${PAIR_FILES[@]}" > "$RUNS/pairs.eval.json" || log "scoring the pairs failed"
fi
run_logged python3 "$PEERS/gold_components.py" "$TRUTH" --threshold "$THRESHOLD" --top 3 > "$RUNS/gold.json"

# --- 5. Report ---------------------------------------------------------------------------------
DATE=$(date +%Y-%m-%d)
[[ -n $OUT ]] || OUT="$ROOT/bench/results/clusters-$DATE-$NAME.md"
mkdir -p "$(dirname "$OUT")"
CPUNAME=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
RAM=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
OS=$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null || uname -s)
if [[ -n ${LOOKALIKE_COMMIT:-} ]]; then COMMIT="$LOOKALIKE_COMMIT"
else COMMIT="binary $(strip_root <<< "$LOOKALIKE"), built $(date -u -r "$LOOKALIKE" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$LOOKALIKE" | cut -c1-12)"; fi
{
  echo "# Clusters: lookalike and its peers on $NAME ($DOCS documents), $DATE"
  echo
  echo "- machine: $(nproc) cores, $CPUNAME, $RAM RAM, $OS; 1-minute load at the end: $(cut -d' ' -f1 /proc/loadavg)"
  echo "- lookalike $("$LOOKALIKE" --version | awk '{ print $2 }'): $COMMIT"
  echo "- Python $("$PY" -c 'import platform; print(platform.python_version())'); peers:"
  for tool in $TOOLS; do echo "  - $tool: ${STATUS[$tool]:-not tried}"; done
  echo "- corpus: \`$(strip_root <<< "$CORPUS")\` ($DOCS documents); truth: \`$(strip_root <<< "$TRUTH")\`"
  echo "- threshold $THRESHOLD, $SHINGLE shingles, $NUM_PERM MinHash values, seed $SEED; LSH $B×$R bands×rows (rensa $RB×$RR);"
  echo "  lookalike with exact verification (its default) and $THREADS threads, rensa and gaoya with $THREADS Rayon threads,"
  echo "  datasketch single-threaded; one run at a time under \`/usr/bin/time -v\` (wall, CPU = user + system, peak RSS"
  echo "  in MiB), timeout $TIMEOUT s per run; load: the 1-minute load average when the run started (the machine is shared)"
  echo "- a peer's clusters: union-find over the pairs it reports whose estimated Jaccard is ≥ $THRESHOLD"
  echo "  (\`bench/peers/union_find.py\`, representative = earliest document); its wall/CPU/RSS columns are the peer's"
  echo "  own run (sketch, LSH, query, estimates), union-find s the grouping after it"
  echo "- every clusters file is scored by one \`lookalike eval --docs $DOCS\`: precision and recall of the"
  echo "  cluster-implied pairs (every two documents of one cluster) against the gold pairs (exact Jaccard ≥ $THRESHOLD),"
  echo "  ARI against the gold's connected components over all $DOCS documents, clusters of two or more documents"
  echo
  python3 "$PEERS/clusters_report.py" "$RUNS_TSV" "$RUNS/clusters.eval.json" "$RUNS/pairs.eval.json" "$RUNS/gold.json"
  echo
  echo "### Commands"
  echo
  echo '```'
  for c in "${COMMANDS[@]}"; do echo "$c"; done | strip_root
  echo '```'
} > "$OUT"
log "wrote ${OUT#"$ROOT"/}"
