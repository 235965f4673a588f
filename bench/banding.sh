#!/usr/bin/env bash
# The default LSH banding against the error-weighted one it replaced (`--fp-weight 0.1 --fn-weight
# 0.9`, 14 bands × 9 rows at 0.8): pairs listed of those whose exact Jaccard is at or above the
# threshold (and threshold + 0.05), candidates verified, CPU time, peak memory; exact and estimate
# verification. Run by hand, not in CI; see bench/README.md.
#
#   bench/banding.sh [--bin DIR] [--corpus FILE] [--sites "rustdoc mdbook pandas kernel"]
#                    [--rounds N] [--out FILE]
#
# Three collections: --corpus (default bench/work/corpus-24000-s1.jsonl, made by `bench/e2e.sh
# --skip-dedup --docs 24000`: real text with planted near-duplicates), the main text of the
# labelled documentation sites of bench/boilerplate.sh (`lookalike extract --jsonl`, template
# removed: what `dedup` compares), and the same pages with --boilerplate off (template-heavy).
# The truth of each is `lookalike-bench truth` (exact all-pairs at Jaccard >= 0.5). CPU time is
# the least of --rounds runs (default 3). Writes bench/results/banding-<date>.md.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work/banding"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
CORPUS="$ROOT/bench/work/corpus-24000-s1.jsonl"
SITES="rustdoc mdbook pandas kernel"
ROUNDS=3
OUT="$ROOT/bench/results/banding-$(date +%F).md"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) BIN="$2"; shift 2 ;;
    --corpus) CORPUS="$2"; shift 2 ;;
    --sites) SITES="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "banding.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
LOOKALIKE="$BIN/lookalike"
BENCH="$BIN/lookalike-bench"
for b in "$LOOKALIKE" "$BENCH"; do
  [[ -x $b ]] || { echo "banding.sh: $b is missing (cargo build --release)" >&2; exit 1; }
done
[[ -f $CORPUS ]] || { echo "banding.sh: no corpus $CORPUS (bench/e2e.sh --skip-dedup --docs 24000)" >&2; exit 1; }
PAGES="$ROOT/bench/work/boilerplate/corpora"
for s in $SITES; do
  [[ -d $PAGES/$s ]] || { echo "banding.sh: no $PAGES/$s (run bench/boilerplate.sh first)" >&2; exit 1; }
done
mkdir -p "$WORK"

log() { echo "[banding $(date +%T)] $*" >&2; }

# The compared text of every page, as JSONL of id and text.
pages_jsonl() {
  local out="$1"; shift
  for s in $SITES; do "$LOOKALIKE" extract "$PAGES/$s" --jsonl "$@" 2>/dev/null; done |
    python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r.get("text"):
        print(json.dumps({"id": r["id"], "text": r["text"]}))' > "$out"
}

log "collections and their truth"
cp "$CORPUS" "$WORK/text.jsonl"
pages_jsonl "$WORK/pages.jsonl"
pages_jsonl "$WORK/pages-off.jsonl" --boilerplate off
for c in text pages pages-off; do
  "$BENCH" truth --corpus "$WORK/$c.jsonl" --threshold 0.5 --out "$WORK/$c.truth.tsv"
done

# run NAME COLLECTION FLAGS...: the least CPU of ROUNDS runs, then the score of the last.
run() {
  local name="$1" c="$2"; shift 2
  local best=""
  for _ in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%U %S %M" -o "$WORK/$name.time" "$LOOKALIKE" dedup "$WORK/$c.jsonl" \
      --pairs "$WORK/$name.pairs.tsv" --stats "$WORK/$name.stats.json" -q "$@" 2>"$WORK/$name.err"
    local cpu
    cpu=$(awk '{printf "%.2f", $1 + $2}' "$WORK/$name.time")
    if [[ -z $best ]] || awk -v a="$cpu" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$cpu; fi
  done
  echo "$best" > "$WORK/$name.cpu"
  "$BENCH" score --pairs "$WORK/$name.pairs.tsv" --truth "$WORK/$c.truth.tsv" --json > "$WORK/$name.score.json"
}

for c in text pages pages-off; do
  for v in exact estimate; do
    log "$c, verify $v"
    run "$c-$v-default" "$c" --verify "$v"
    run "$c-$v-weighted" "$c" --verify "$v" --fp-weight 0.1 --fn-weight 0.9
  done
done

python3 - "$WORK" "$OUT" "$LOOKALIKE" "$ROUNDS" "$CORPUS" "$SITES" <<'PY'
import json, os, subprocess, sys, datetime
work, out, exe, rounds, corpus, sites = sys.argv[1:]
version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
head = subprocess.run(["git", "-C", os.path.dirname(out), "rev-parse", "--short", "HEAD"],
                      capture_output=True, text=True).stdout.strip()
rows = []
for c, what in [("text", f"{os.path.basename(corpus)} (real text, planted near-duplicates)"),
                ("pages", f"main text of {sites} pages, template removed"),
                ("pages-off", f"the same pages, --boilerplate off (template-heavy)")]:
    docs = sum(1 for _ in open(os.path.join(work, c + ".jsonl")))
    for v in ["exact", "estimate"]:
        base = None
        for b in ["weighted", "default"]:
            n = f"{c}-{v}-{b}"
            st = json.load(open(os.path.join(work, n + ".stats.json")))
            sc = json.load(open(os.path.join(work, n + ".score.json")))
            peak = int(open(os.path.join(work, n + ".time")).read().split()[2]) // 1024
            cpu = float(open(os.path.join(work, n + ".cpu")).read())
            lsh = st["lsh"]
            p = st["pipeline"]
            ver = p.get("verification", {}).get("verified") or p["candidates"]["pairs"]
            if base is None:
                base = (ver, cpu)
            rows.append(f"| {what if b == 'weighted' and v == 'exact' else ''} ({docs} docs) | {v} | "
                        f"{'14 × 9 weighted (former default)' if b == 'weighted' else 'default'}: {lsh['bands']} × {lsh['rows']} | "
                        f"{sc['recall']:.4f} | {sc['recall_margin']:.4f} | {sc['precision']:.4f} | {sc['f1']:.4f} | "
                        f"{p['candidates']['pairs']} | {ver / base[0]:.2f}x | {cpu:.2f} | {cpu / base[1]:.2f}x | {peak} |")
with open(out, "w") as f:
    f.write(f"# Default LSH banding: complete pairs above the threshold ({datetime.date.today()})\n\n")
    f.write(f"Binary: {version}, repository {head}. Command: `bench/banding.sh` (CPU: least of {rounds} runs, user + system).\n\n")
    f.write("Recall: of the pairs whose exact Jaccard (word 5-shingles) is at or above 0.8 (and 0.85), how many "
            "`dedup --threshold 0.8` lists. Truth: `lookalike-bench truth` (exact all-pairs).\n\n")
    f.write("| collection | verify | banding | recall J≥0.8 | recall J≥0.85 | precision | F1 | candidates | verified vs former | CPU s | CPU vs former | peak MB |\n")
    f.write("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    f.write("\n".join(rows) + "\n")
print(out)
PY
log "wrote $OUT"
