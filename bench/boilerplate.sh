#!/usr/bin/env bash
# Boilerplate benchmark: does `lookalike dedup` report pairs a person would call duplicates on real
# documentation sites, whose pages share heavy templates (rustdoc, Sphinx, mdBook, DocBook)? Labelled
# corpora are sampled from Debian documentation packages; truth is each page's content as its site
# generator marks it (bench/boilerplate/bp.py), near-duplicates are pairs with content J >= 0.5 on
# word 5-shingles. Run by hand, not in CI; see bench/boilerplate/README.md and bench/README.md
# ("Boilerplate: labelled documentation sites").
#
#   bench/boilerplate.sh [--bin DIR] [--pages N] [--seed S] [--sites "rustdoc sphinx-python ..."]
#       [--runs "default=;text=--extract text;off=--boilerplate off;textoff=--extract text --boilerplate off"]
#       [--warc-sites "rustdoc sphinx-python kernel pandas"] [--warc-per-site N] [--no-crawl]
#       [--no-install] [--out FILE]
#
# --sites: of rustdoc mdbook sphinx-python kernel pandas docbook-gimp (default: all six), plus the
# corpus mixed-warc (pages of --warc-sites in one WARC, with revisits) and crawl (the real samples in
# ../shared/data/warc-samples, read in place), unless --no-crawl (--warc-sites "" leaves mixed-warc
# out; its sites are built even when not in --sites). --runs: name=flags, separated by
# ';'; a run whose flags the binary refuses is reported as refused. --pages: pages per site
# (default 2000, seeded sample). --bin DIR: where lookalike is (default $CARGO_TARGET_DIR/release or
# target/release; nothing is built). Writes bench/results/boilerplate-<date>.md (or FILE); the
# corpora, truths and runs go to bench/work/boilerplate/ and are reused while their parameters and
# the rules in bp.py are unchanged.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
W="$ROOT/bench/work/boilerplate"
BP="$ROOT/bench/boilerplate/bp.py"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
PAGES=2000
SEED=1
SITES="rustdoc mdbook sphinx-python kernel pandas docbook-gimp"
RUNS="default=;text=--extract text;off=--boilerplate off;textoff=--extract text --boilerplate off"
WARC_SITES="rustdoc sphinx-python kernel pandas"
WARC_PER_SITE=250
CRAWL=1
CRAWL_DIR="$ROOT/../shared/data/warc-samples"
INSTALL=1
OUT=""

usage() { awk 'NR>1 && !/^#/{exit} NR>1' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) BIN="$2"; shift 2 ;;
    --pages) PAGES="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --sites) SITES="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --warc-sites) WARC_SITES="$2"; shift 2 ;;
    --warc-per-site) WARC_PER_SITE="$2"; shift 2 ;;
    --no-crawl) CRAWL=0; shift ;;
    --no-install) INSTALL=0; shift ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "boilerplate.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
BIN="$(cd "$BIN" 2>/dev/null && pwd || echo "$BIN")"
LOOKALIKE="$BIN/lookalike"
[[ -x $LOOKALIKE ]] || { echo "boilerplate.sh: $LOOKALIKE is missing: build it (cargo build --release --bin lookalike) or pass --bin" >&2; exit 1; }
[[ -n $OUT ]] || OUT="$ROOT/bench/results/boilerplate-$(date +%F).md"
log() { echo "[boilerplate $(date +%H:%M:%S)] $*" >&2; }
T0=$(date +%s)
mkdir -p "$W/corpora" "$W/runs"

# --- 1. Debian packages, GNU time, the Python venv (lxml) ---------------------------------------
declare -A PKG=([rustdoc]=rust-doc [mdbook]=rust-doc [sphinx-python]=python3.11-doc [kernel]=linux-doc-6.1
                [pandas]=python-pandas-doc [docbook-gimp]=gimp-help-en)
need=()
[[ -x /usr/bin/time ]] || need+=(time)
for s in $SITES $( [[ -n $WARC_SITES ]] && echo "$WARC_SITES" ); do
  [[ -n ${PKG[$s]:-} ]] || { echo "boilerplate.sh: unknown site $s (one of ${!PKG[*]})" >&2; exit 2; }
  dpkg -s "${PKG[$s]}" >/dev/null 2>&1 || need+=("${PKG[$s]}")
done
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u | grep .) || true
if [[ ${#need[@]} -gt 0 ]]; then
  [[ $INSTALL == 1 ]] || { echo "boilerplate.sh: missing Debian packages ${need[*]} (and --no-install)" >&2; exit 1; }
  sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
  log "apt-get install ${need[*]}"
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2; then
    $sudo apt-get update -qq >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
  fi
fi
PY="$W/venv/bin/python"
if ! "$PY" -c 'import lxml' 2>/dev/null; then
  [[ $INSTALL == 1 ]] || { echo "boilerplate.sh: no $W/venv with lxml (and --no-install)" >&2; exit 1; }
  log "creating $W/venv (lxml)"
  python3 -m venv "$W/venv"
  "$PY" -m pip install -q lxml >&2
fi

# --- 2. Corpora and truth (cached) ----------------------------------------------------------------
# A corpus is rebuilt when its parameters or the part of bp.py that makes corpora and truth change.
RULES_SHA=$(sed -n '1,/^# -* scoring/p' "$BP" | sha256sum | cut -c1-16)
build_site() {  # NAME
  local s=$1 stamp="pages=$PAGES seed=$SEED rules=$RULES_SHA"
  if [[ -s $W/corpora/$s.truth.tsv && -f $W/corpora/$s.stamp && $(cat "$W/corpora/$s.stamp") == "$stamp" ]]; then
    return
  fi
  log "site $s: sampling $PAGES pages, planting, content by the generator's rule"
  rm -rf "${W:?}/corpora/$s" "$W/corpora/$s".*
  nice -n 10 "$PY" "$BP" site "$s" "$W/corpora" --pages "$PAGES" --seed "$SEED"
  log "site $s: truth"
  nice -n 10 "$PY" "$BP" truth "$W/corpora/$s"
  echo "$stamp" > "$W/corpora/$s.stamp"
}
for s in $SITES; do build_site "$s"; done
CORPORA=()  # name|cwd|input|content prefix|score options
for s in $SITES; do CORPORA+=("$s|$W/corpora|$s|$W/corpora/$s|"); done
if [[ -n $WARC_SITES ]]; then
  for s in $WARC_SITES; do build_site "$s"; done
  stamp="sites=$WARC_SITES per=$WARC_PER_SITE pages=$PAGES seed=$SEED rules=$RULES_SHA"
  if ! [[ -s $W/warc/mixed.truth.tsv && -f $W/warc/stamp && $(cat "$W/warc/stamp") == "$stamp" ]]; then
    log "mixed-warc: $WARC_PER_SITE pages from each of $WARC_SITES"
    rm -rf "$W/warc"
    nice -n 10 "$PY" "$BP" warc "$W/warc" --src "$W/corpora" --sites "$WARC_SITES" --per-site "$WARC_PER_SITE" --seed "$SEED"
    nice -n 10 "$PY" "$BP" truth "$W/warc/mixed"
    echo "$stamp" > "$W/warc/stamp"
  fi
  CORPORA+=("mixed-warc|$W/warc|mixed.warc.gz|$W/warc/mixed|")
fi
if [[ $CRAWL == 1 ]]; then
  if [[ -d $CRAWL_DIR ]]; then
    CRAWL_DIR="$(cd "$CRAWL_DIR" && pwd)"
    mapfile -t CRAWL_FILES < <(ls "$CRAWL_DIR"/*.warc "$CRAWL_DIR"/*.warc.gz 2>/dev/null | LC_ALL=C sort)
    stamp="files=${CRAWL_FILES[*]} rules=$RULES_SHA"
    if ! [[ -s $W/crawl/crawl.content.jsonl && -f $W/crawl/stamp && $(cat "$W/crawl/stamp") == "$stamp" ]]; then
      log "crawl: ${#CRAWL_FILES[@]} WARC files of $CRAWL_DIR (read in place)"
      rm -rf "$W/crawl"
      "$PY" "$BP" crawl "$W/crawl" "${CRAWL_FILES[@]}"
      "$PY" "$BP" truth "$W/crawl/crawl"
      echo "$stamp" > "$W/crawl/stamp"
    fi
    CORPORA+=("crawl|$CRAWL_DIR|$(cd "$CRAWL_DIR" && ls *.warc *.warc.gz 2>/dev/null | LC_ALL=C sort | tr '\n' ' ')|$W/crawl/crawl|--all-pairs")
  else
    log "no $CRAWL_DIR: the crawl corpus is left out"
  fi
fi

# --- 3. The runs ------------------------------------------------------------------------------------
RUNS_TSV="$W/runs/runs.tsv"
: > "$RUNS_TSV"
COMMANDS=()
IFS=';' read -r -a RUNLIST <<< "$RUNS"
for c in "${CORPORA[@]}"; do
  IFS='|' read -r cname cwd input prefix sopts <<< "$c"
  for r in "${RUNLIST[@]}"; do
    [[ -n ${r// } ]] || continue
    rname="${r%%=*}"; flags="${r#*=}"
    rd="$W/runs/$cname/$rname"
    rm -rf "$rd"; mkdir -p "$rd"
    # shellcheck disable=SC2206
    fl=($flags); in=($input)
    COMMANDS+=("(cd ${cwd/#$ROOT\//} && lookalike dedup ${in[*]} --pairs P.tsv --clusters C.jsonl $flags)")
    log "$cname / $rname: lookalike dedup ${in[*]} $flags"
    set +e
    (cd "$cwd" && nice -n 10 /usr/bin/time -v -o "$rd/time.txt" "$LOOKALIKE" dedup "${in[@]}" \
      --pairs "$rd/pairs.tsv" --clusters "$rd/clusters.jsonl" "${fl[@]}") > "$rd/stdout" 2> "$rd/stderr"
    rc=$?
    set -e
    if [[ $rc != 0 ]]; then
      if grep -q -i "unexpected argument\|invalid value\|unrecognized\|error: .*argument" "$rd/stderr"; then
        status=refused
      else
        status="failed (exit $rc)"
      fi
      log "$cname / $rname: $status: $(head -c 200 "$rd/stderr" | head -1)"
      printf '%s\t%s\t%s\t%s\t0\t0\t0\t%s\t%s\n' "$cname" "$rname" "$flags" "$status" "$rd" "$prefix" >> "$RUNS_TSV"
      continue
    fi
    user=$(awk -F': ' '/User time/{print $2}' "$rd/time.txt")
    sys=$(awk -F': ' '/System time/{print $2}' "$rd/time.txt")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$rd/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$rd/time.txt")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
    # shellcheck disable=SC2086
    nice -n 10 "$PY" "$BP" score "$prefix" "$rd" $sopts
    printf '%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\n' "$cname" "$rname" "$flags" "$cpu" "$wall" "$rss" "$rd" "$prefix" >> "$RUNS_TSV"
  done
done

# --- 4. The report ----------------------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
HEADER="$W/runs/header.md"
{
  echo "# Boilerplate: labelled documentation sites ($(date +%F))"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/{printf "%.1f GB", $2/1048576}' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"); shared with other work, so CPU time (user+sys) is the steadier figure."
  echo "Binary: \`${LOOKALIKE/#$ROOT\//}\` ($("$LOOKALIKE" --version 2>/dev/null || echo '?'), built $(date -r "$LOOKALIKE" '+%F %T')); repository HEAD $(git -C "$ROOT" rev-parse HEAD)$(git -C "$ROOT" diff --quiet HEAD -- crates 2>/dev/null || echo ' (crates/ has uncommitted changes)')."
  echo
  echo "Command: \`bench/boilerplate.sh --pages $PAGES --seed $SEED --sites \"$SITES\" --runs \"$RUNS\"\`"
  echo
  echo "Truth: each page's content is what its site generator marks as the page's own text (bench/boilerplate/bp.py, RULES);"
  echo "a pair is a true near-duplicate when its content J (word 5-shingles, exact) is >= 0.5. Planted pairs: a"
  echo "copy with 1-8% of the content words edited (edit), the content in another page's template (tmpl), the page"
  echo "with a \"Printed from\" line (date); in mixed-warc also revisits of a URL (same bytes, or a new printed line)."
  echo "Truth J>=0.8 recall: of the pairs with content J >= 0.8, how many are reported as a pair / share a cluster."
  echo "Largest false cluster: the largest cluster with a member pair of content J < 0.5 (pairs sampled above 200 members)."
  echo
  echo "Runs (every run is \`lookalike dedup INPUT --pairs P.tsv --clusters C.jsonl FLAGS\`, under \`nice -n 10 /usr/bin/time -v\`):"
  echo
  for c in "${COMMANDS[@]}"; do echo "    $c"; done
} > "$HEADER"
"$PY" "$BP" report "$OUT" "$RUNS_TSV" "$HEADER"
log "report: $OUT ($(( $(date +%s) - T0 )) s in all)"
