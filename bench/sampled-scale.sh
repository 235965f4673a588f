#!/usr/bin/env bash
# Recall and time of the sort-based methods (mod-m, min-s, broder) as the collection grows, with
# the lecture's rule for shingles shared by more than L documents (--frequent-shingles skip) and
# with the default (discount). Uses the corpora and exact truths that bench/e2e.sh caches in
# bench/work/ (make them with `bench/e2e.sh --docs N --skip-dedup`). Run by hand, not in CI.
#
#   bench/sampled-scale.sh [--sizes "20000 320000"] [--methods "mod-m min-s broder"]
#                          [--rules "skip discount"] [--bin DIR] [--out FILE]
#
# Writes bench/results/sampled-scale-<date>.md (or FILE): per size, method and rule the wall
# time, peak RSS, pairs, and recall of the pairs file at J >= 0.8 and >= 0.85 (lookalike eval).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work"
SIZES="20000 320000"; METHODS="mod-m min-s broder"; RULES="skip discount"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"; OUT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) SIZES="$2"; shift 2 ;;
    --methods) METHODS="$2"; shift 2 ;;
    --rules) RULES="$2"; shift 2 ;;
    --bin) BIN="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sampled-scale.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
OUT="${OUT:-$ROOT/bench/results/sampled-scale-$(date -u +%F).md}"
L="$BIN/lookalike"
[[ -x "$L" ]] || { echo "sampled-scale.sh: no $L (cargo build --release)" >&2; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
{
  echo "# mod-m, min-s and broder as the collection grows: --frequent-shingles skip and discount"
  echo
  echo "Measured $(date -u '+%F %H:%M UTC') on $(nproc) cores, commit $(git -C "$ROOT" rev-parse --short HEAD), load at start $(cut -d' ' -f1 /proc/loadavg)."
  echo "Command: \`bench/sampled-scale.sh --sizes \"$SIZES\" --methods \"$METHODS\" --rules \"$RULES\"\`;"
  echo "each run is \`lookalike dedup CORPUS -q --method M --frequent-shingles R --pairs P\` (threshold 0.8, words:5, exact verification,"
  echo "L = 100), scored with \`lookalike eval -r P --gold TRUTH --threshold T\`."
  echo
  echo "| docs | method | rule | wall s | peak RSS MB | pairs | recall@0.8 | recall@0.85 |"
  echo "|---:|---|---|---:|---:|---:|---:|---:|"
} > "$OUT.tmp"
for n in $SIZES; do
  corpus="$WORK/corpus-$n-s1.jsonl"; truth="$WORK/truth-$n-s1-t0.5.tsv"
  [[ -f "$corpus" && -f "$truth" ]] || { echo "sampled-scale.sh: missing $corpus or $truth (bench/e2e.sh --docs $n --skip-dedup)" >&2; exit 1; }
  for m in $METHODS; do
    for r in $RULES; do
      p="$tmp/$n-$m-$r.tsv"
      /usr/bin/time -f "%e %M" -o "$tmp/time" "$L" dedup "$corpus" -q --method "$m" --frequent-shingles "$r" --pairs "$p"
      read -r wall rss < "$tmp/time"
      rec() { "$L" eval -r "p=$p" --gold "$truth" --threshold "$1" -q --json | python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["results"][0]["recall"])'; }
      line="| $n | $m | $r | $wall | $((rss / 1024)) | $(wc -l < "$p") | $(rec 0.8) | $(rec 0.85) |"
      echo "$line" >> "$OUT.tmp"; echo "$line" >&2
    done
  done
done
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT" >&2
