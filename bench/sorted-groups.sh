#!/usr/bin/env bash
# The sort-based methods (mod-m, min-s, broder) on template-heavy pages, against MinHash and
# against another build (--baseline DIR, e.g. one without frequent-shingle groups): pairs listed
# of those whose exact Jaccard is at or above 0.8 and 0.85, candidates, CPU time, peak memory.
# Run by hand, not in CI; see bench/README.md.
#
#   bench/sorted-groups.sh [--bin DIR] [--baseline DIR] [--out FILE]
#
# Uses the collections and truths of bench/banding.sh (run it first): text.jsonl (real text with
# planted near-duplicates), pages.jsonl (documentation pages' compared main text) and
# pages-off.jsonl (the same pages with their template). Writes
# bench/results/sorted-groups-<date>.md.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work/banding"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
BASELINE=""
OUT="$ROOT/bench/results/sorted-groups-$(date +%F).md"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) BIN="$2"; shift 2 ;;
    --baseline) BASELINE="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sorted-groups.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for c in text pages pages-off; do
  [[ -f $WORK/$c.truth.tsv ]] || { echo "sorted-groups.sh: no $WORK/$c.truth.tsv (run bench/banding.sh first)" >&2; exit 1; }
done
log() { echo "[sorted-groups $(date +%T)] $*" >&2; }

# run NAME BIN COLLECTION FLAGS...
run() {
  local name="$1" exe="$2" c="$3"; shift 3
  /usr/bin/time -f "%U %S %M" -o "$WORK/$name.time" "$exe" dedup "$WORK/$c.jsonl" \
    --pairs "$WORK/$name.pairs.tsv" --stats "$WORK/$name.stats.json" -q "$@" 2>"$WORK/$name.err"
  "$BIN/lookalike-bench" score --pairs "$WORK/$name.pairs.tsv" --truth "$WORK/$c.truth.tsv" --json \
    > "$WORK/$name.score.json"
}

builds=("this=$BIN/lookalike")
[[ -n $BASELINE ]] && builds+=("baseline=$BASELINE/lookalike")
for c in text pages pages-off; do
  for m in mod-m min-s broder minhash; do
    for b in "${builds[@]}"; do
      [[ $m == minhash && ${b%%=*} == baseline ]] && continue
      log "$c, $m, ${b%%=*}"
      run "sg-$c-$m-${b%%=*}" "${b#*=}" "$c" --method "$m"
    done
  done
done

python3 - "$WORK" "$OUT" "$BIN/lookalike" "${BASELINE:+$BASELINE/lookalike}" <<'PY'
import json, os, subprocess, sys, datetime
work, out, exe, baseline = sys.argv[1:5]
def version(e):
    return subprocess.run([e, "--version"], capture_output=True, text=True).stdout.strip() if e else "-"
head = subprocess.run(["git", "-C", os.path.dirname(out), "rev-parse", "--short", "HEAD"],
                      capture_output=True, text=True).stdout.strip()
rows = []
for c in ["text", "pages", "pages-off"]:
    docs = sum(1 for _ in open(os.path.join(work, c + ".jsonl")))
    for m in ["mod-m", "min-s", "broder", "minhash"]:
        for b in (["baseline", "this"] if baseline and m != "minhash" else ["this"]):
            n = f"sg-{c}-{m}-{b}"
            st = json.load(open(os.path.join(work, n + ".stats.json")))
            sc = json.load(open(os.path.join(work, n + ".score.json")))
            u, s_, peak = open(os.path.join(work, n + ".time")).read().split()
            br = st["pipeline"]["method"].get("broder") or {}
            groups = f"{br.get('saturated', '-')} / {br.get('groups', '-')} / {br.get('group_pairs', '-')}" if br else "-"
            rows.append(f"| {c} ({docs}) | {m} | {b} | {sc['recall']:.4f} | {sc['recall_margin']:.4f} | "
                        f"{sc['precision']:.4f} | {st['pipeline']['candidates']['pairs']} | {groups} | "
                        f"{st['pipeline']['method'].get('empty_samples', 0)} | {float(u) + float(s_):.2f} | {int(peak) // 1024} |")
with open(out, "w") as f:
    f.write(f"# Sort-based methods and large groups of near-identical pages ({datetime.date.today()})\n\n")
    f.write(f"This build: {version(exe)}, repository {head}; baseline: {version(baseline)} ({baseline or 'none'}).\n")
    f.write("Command: `bench/sorted-groups.sh` on the collections of `bench/banding.sh`; default settings, threshold 0.8.\n\n")
    f.write("Recall: of the pairs whose exact Jaccard is at or above 0.8 (0.85), how many are listed. "
            "Groups: saturated documents / distinct groups / pairs they emitted. One run each (CPU: user + system).\n\n")
    f.write("| collection (docs) | method | build | recall J≥0.8 | recall J≥0.85 | precision | candidates | groups | empty samples | CPU s | peak MB |\n")
    f.write("|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|\n")
    f.write("\n".join(rows) + "\n")
print(out)
PY
log "wrote $OUT"
