#!/usr/bin/env bash
# Byte-identity check for refactors: runs `lookalike dedup` with every method (and the variants
# `compare` runs, plus the options that take other code paths: containment, tf-idf SimHash,
# --keep longest, a saved lexicon) on one corpus, writing --pairs, --clusters, --report and
# --output of each run into OUTDIR. Run it with the binary before and after a change and `cmp`
# the two folders (`--against DIR` does that and prints one line per differing file).
#
#   bench/identical.sh OUTDIR [--bin PATH] [--corpus FILE] [--against DIR] [--threads N]
#
# Default corpus: bench/work/corpus-20000-s1.jsonl (made by `bench/e2e.sh --skip-dedup`).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUTDIR=""
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/lookalike"
CORPUS="$ROOT/bench/work/corpus-20000-s1.jsonl"
AGAINST=""
THREADS=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) BIN="$2"; shift 2 ;;
    --corpus) CORPUS="$2"; shift 2 ;;
    --against) AGAINST="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "identical.sh: unknown argument $1" >&2; exit 2 ;;
    *) OUTDIR="$1"; shift ;;
  esac
done
[[ -n $OUTDIR ]] || { echo "identical.sh: OUTDIR is missing" >&2; exit 2; }
[[ -f $CORPUS ]] || { echo "identical.sh: no corpus $CORPUS (run bench/e2e.sh --skip-dedup)" >&2; exit 1; }
mkdir -p "$OUTDIR"

runs=(
  "minhash|--method minhash"
  "minhash-estimate|--method minhash --verify estimate"
  "minhash-perm|--method minhash --minhash perm"
  "minhash-longest|--method minhash --keep longest"
  "supershingles|--method supershingles"
  "supershingles-estimate|--method supershingles --verify estimate"
  "supershingles-single|--method supershingles --super-mode single"
  "mod-m|--method mod-m"
  "mod-m-estimate|--method mod-m --verify estimate"
  "mod-m-containment|--method mod-m --measure containment"
  "min-s|--method min-s"
  "min-s-estimate|--method min-s --verify estimate"
  "broder|--method broder"
  "broder-estimate|--method broder --verify estimate"
  "broder-containment|--method broder --measure containment --sample mod:8 --verify estimate"
  "simhash|--method simhash"
  "simhash-estimate|--method simhash --verify estimate"
  "simhash-auto|--method simhash --max-distance auto"
  "simhash-tfidf|--method simhash --weights tfidf --verify estimate"
  "combined|--method combined"
  "combined-estimate|--method combined --verify estimate"
  "i-match|--method i-match"
  "i-match-estimate|--method i-match --verify estimate"
  "i-match-rand|--method i-match-rand"
  "i-match-rand-estimate|--method i-match-rand --verify estimate"
  "partitioned|--method partitioned"
  "partitioned-estimate|--method partitioned --verify estimate"
  "tf-ridf|--method tf-ridf"
  "tf-ridf-estimate|--method tf-ridf --verify estimate"
  "long-sentences|--method long-sentences"
  "long-sentences-estimate|--method long-sentences --verify estimate"
  "refwords|--method refwords"
  "refwords-estimate|--method refwords --verify estimate"
  "refwords-d2|--method refwords --refwords-distance 2 --verify estimate"
  "spotsigs|--method spotsigs"
  "spotsigs-estimate|--method spotsigs --verify estimate"
  "exact|--method exact"
)
for r in "${runs[@]}"; do
  label="${r%%|*}"
  # shellcheck disable=SC2206
  args=(${r#*|})
  "$BIN" dedup "$CORPUS" "${args[@]}" --seed 1 --threads "$THREADS" -q \
    --pairs "$OUTDIR/$label.pairs.tsv" --clusters "$OUTDIR/$label.clusters.jsonl" \
    --report "$OUTDIR/$label.report.jsonl" --output "$OUTDIR/$label.output.jsonl"
done
# A saved lexicon: build, then sign with it.
"$BIN" lexicon build "$CORPUS" -o "$OUTDIR/lexicon.bin" --seed 1 -q 2>/dev/null \
  || "$BIN" lexicon build "$CORPUS" -o "$OUTDIR/lexicon.bin" --seed 1
"$BIN" dedup "$CORPUS" --method i-match --lexicon "$OUTDIR/lexicon.bin" --seed 1 -q \
  --pairs "$OUTDIR/i-match-lexicon.pairs.tsv" --report "$OUTDIR/i-match-lexicon.report.jsonl"
echo "identical.sh: ${#runs[@]} runs + 1 lexicon run written to $OUTDIR" >&2

if [[ -n $AGAINST ]]; then
  diffs=0
  for f in "$AGAINST"/*; do
    name="$(basename "$f")"
    if ! cmp -s "$f" "$OUTDIR/$name"; then
      echo "DIFFERS: $name"; diffs=$((diffs + 1))
    fi
  done
  n=$(ls "$AGAINST" | wc -l)
  echo "identical.sh: $n files compared with $AGAINST, $diffs differ"
  [[ $diffs == 0 ]]
fi
