#!/usr/bin/env bash
# The persistent index with and without a site template (`index create --boilerplate-from`), on
# the labelled documentation sites of bench/boilerplate.sh, against `lookalike dedup` (which
# learns the template from the whole collection) in the same run.
#
# For each corpus: dedup; an index without a template; an index whose template is learned from
# the whole corpus, from half of its pages and from a tenth of them (every 2nd / 10th page in
# name order: a sample taken before the rest is crawled). Each index gets every page with
# `index add`, then `index export` gives its pairs and clusters, scored by bp.py against the
# pages' own content (pair precision, planted near-copies found, the largest false cluster).
#
# Usage: bench/index-template.sh [--bin DIR] [--sites "rustdoc mdbook ..."] [--out FILE]
# Needs the corpora of bench/boilerplate.sh (run it once first; its venv and truth files).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/target/release"
SITES="rustdoc mdbook sphinx-python kernel pandas docbook-gimp"
OUT="$ROOT/bench/results/index-template-$(date +%F).md"
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --sites) SITES=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
W="$ROOT/bench/work/boilerplate"
PY="$W/venv/bin/python"
BP="$ROOT/bench/boilerplate/bp.py"
L="$BIN/lookalike"
[[ -x $L ]] || { echo "no $L: cargo build --release -p lookalike-cli" >&2; exit 1; }
[[ -x $PY ]] || { echo "no $PY: run bench/boilerplate.sh first (it builds the corpora)" >&2; exit 1; }
R="$W/index-runs"
rm -rf "$R"; mkdir -p "$R"

# cpu SECONDS of a /usr/bin/time -f '%U %S %M' file (one line per command, summed).
cpu() { awk '{c+=$1+$2; if ($3>m) m=$3} END {printf "%.2f %d\n", c, m/1024}' "$1"; }
timed() { local t=$1; shift; /usr/bin/time -a -o "$t" -f '%U %S %M' "$@"; }

rows=()
for s in $SITES; do
  corpus="$W/corpora/$s"
  [[ -d $corpus && -s $corpus.truth.tsv ]] || { echo "no corpus $corpus (bench/boilerplate.sh)" >&2; continue; }
  mapfile -t pages < <(cd "$W/corpora" && find "$s" -type f -name '*.html' | LC_ALL=C sort)
  half=(); tenth=()
  for i in "${!pages[@]}"; do
    (( i % 2 == 0 )) && half+=("${pages[$i]}")
    (( i % 10 == 0 )) && tenth+=("${pages[$i]}")
  done
  for run in dedup plain all half tenth; do
    rd="$R/$s/$run"; mkdir -p "$rd"; t="$rd/time"; : > "$t"
    cd "$W/corpora"
    case $run in
      dedup)
        timed "$t" "$L" dedup "$s" -q --pairs "$rd/pairs.tsv" --clusters "$rd/clusters.jsonl" ;;
      *)
        case $run in
          plain) from=() ;;
          all) from=(--boilerplate-from "$s") ;;
          half) from=(--boilerplate-from "${half[@]}") ;;
          tenth) from=(--boilerplate-from "${tenth[@]}") ;;
        esac
        timed "$t" "$L" index create "$rd/idx" "${from[@]}" 2> "$rd/create.log"
        timed "$t" "$L" index add "$rd/idx" "$s" -q --durability fast > "$rd/add.jsonl"
        "$L" index export "$rd/idx" --pairs "$rd/pairs.tsv" --clusters "$rd/clusters.jsonl"
        ;;
    esac
    "$PY" "$BP" score "$corpus" "$rd" > /dev/null
    read -r c m < <(cpu "$t")
    rows+=("$s|$run|${#pages[@]}|${#half[@]}|${#tenth[@]}|$c|$m|$rd")
    echo "$s / $run: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['pairs'], 'pairs,', d['false_pairs'], 'false')" "$rd/score.json"), $c CPU s"
  done
done

mkdir -p "$(dirname "$OUT")"
{
  echo "# The index with a site template learned from a sample ($(date +%F))"
  echo
  echo "Machine: $(nproc) cores, shared with other work (CPU time is the steadier figure). Binary: \`$("$L" --version)\`, repository HEAD $(git -C "$ROOT" rev-parse --short HEAD)."
  echo
  echo "Command: \`bench/index-template.sh --sites \"$SITES\"\` (corpora of \`bench/boilerplate.sh\`, seed 1)."
  echo
  echo "Runs: \`dedup\` is \`lookalike dedup SITE\` (its template learned from every page); the others are \`lookalike index create IDX [--boilerplate-from SAMPLE]\`, \`index add IDX SITE\`, \`index export\`: \`plain\` without a template, \`all\` learned from every page, \`half\` and \`tenth\` from every 2nd and every 10th page in name order. Default settings everywhere (MinHash, threshold 0.8, \`--extract main\`). Scored as in \`bench/boilerplate.sh\`: a pair is false when the pages' own content (by the generator's markup) has J < 0.5."
  echo
  echo "| site | run | pages in the sample | pairs | false pairs | precision | planted J≥0.8 found | truth J≥0.8 found | largest false cluster | CPU s | peak RSS MB |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for row in "${rows[@]}"; do
    IFS='|' read -r s run n h tn c m rd <<< "$row"
    case $run in dedup|all) sample=$n ;; half) sample=$h ;; tenth) sample=$tn ;; plain) sample=0 ;; esac
    python3 - "$rd/score.json" "$s" "$run" "$sample" "$c" "$m" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s, run, sample, c, m = sys.argv[2:]
pct = lambda x: "–" if x is None else f"{100 * x:.1f}%"
w = d["largest_false_cluster"]
big = "none" if not w else str(w["size"])
print(f"| {s} | {run} | {sample} | {d['pairs']} | {d['false_pairs']} | {pct(d['precision'])} | "
      f"{pct(d['planted_ge08_pair_recall'])} (of {d['planted_ge08']}) | {pct(d['truth_ge08_pair_recall'])} (of {d['truth_ge08']}) | {big} | {c} | {m} |")
EOF
  done
} > "$OUT"
echo "wrote $OUT"
