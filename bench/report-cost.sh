#!/usr/bin/env bash
# What `--report` costs, and how fast build B is against build A, for two builds at once: each
# round runs four commands in rotation (build A plain, A with `--report R --stats S`, B plain, B
# with them), each round starting one step further on, so no variant always runs first or after
# the same one (the first of two back-to-back runs pays more system time). Prints the medians of
# user, CPU (user + system) and wall time, each build's report cost in seconds and percent, and
# B's speed against A's. With --baseline, a fifth command joins the rotation: the read + tokenize
# floor (`lookalike-bench baseline`, one thread), and every variant's MB of text per CPU-second
# is printed with its ratio to that floor, measured in the same minutes. Give the same binary
# twice to measure one build.
#
#   bench/report-cost.sh --a PATH --b PATH [--rounds N] [--threads N] [--corpus FILE]
#                        [--baseline LOOKALIKE_BENCH]
#
# Default corpus: bench/work/corpus-20000-s1.jsonl (made by `bench/e2e.sh --skip-dedup`); its
# fields must be `id` and `text`. Defaults: 12 rounds, 1 thread. Outputs go to a temporary
# directory, removed at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
A=""
B=""
ROUNDS=12
THREADS=1
CORPUS="$ROOT/bench/work/corpus-20000-s1.jsonl"
BASELINE=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --a) A="$2"; shift 2 ;;
    --b) B="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --corpus) CORPUS="$2"; shift 2 ;;
    --baseline) BASELINE="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "report-cost.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $A && -x $B ]] || { echo "report-cost.sh: --a and --b must name lookalike binaries" >&2; exit 2; }
[[ -f $CORPUS ]] || { echo "report-cost.sh: no corpus $CORPUS (run bench/e2e.sh --skip-dedup)" >&2; exit 1; }
[[ -z $BASELINE || -x $BASELINE ]] || { echo "report-cost.sh: --baseline must name a lookalike-bench binary" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "report-cost.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
variants=("A plain" "A report" "B plain" "B report")
[[ -n $BASELINE ]] && variants+=("floor baseline")
n=${#variants[@]}
for ((i = 0; i < ROUNDS; i++)); do
  for ((k = 0; k < n; k++)); do
    read -r build kind <<< "${variants[$(((i + k) % n))]}"
    if [[ $build == floor ]]; then
      /usr/bin/time -f "%U %S %e" -o "$WORK/time" "$BASELINE" baseline --corpus "$CORPUS" \
        --threads 1 --json > "$WORK/baseline.json"
      cat "$WORK/time" >> "$WORK/times-floor-baseline"
      continue
    fi
    bin=$A
    [[ $build == B ]] && bin=$B
    extra=()
    [[ $kind == report ]] && extra=(--report "$WORK/report.jsonl" --stats "$WORK/stats.json")
    /usr/bin/time -f "%U %S %e" -o "$WORK/time" "$bin" dedup "$CORPUS" --threads "$THREADS" \
      --verify exact --pairs "$WORK/pairs-$build-$kind.tsv" -q "${extra[@]}"
    cat "$WORK/time" >> "$WORK/times-$build-$kind"
  done
done
cmp -s "$WORK/pairs-A-plain.tsv" "$WORK/pairs-A-report.tsv" \
  && cmp -s "$WORK/pairs-B-plain.tsv" "$WORK/pairs-B-report.tsv" \
  || { echo "report-cost.sh: --report changed the pairs" >&2; exit 1; }

echo "corpus $CORPUS, $ROUNDS rounds, $THREADS thread(s); A = $A, B = $B"
[[ -n $BASELINE ]] && echo "floor: $BASELINE baseline (read + unicode_words, 1 thread)"
python3 - "$WORK" <<'PY'
import json, os, statistics, sys
work = sys.argv[1]
med = {}
for build in "AB":
    for kind in ("plain", "report"):
        rows = [tuple(map(float, l.split())) for l in open(f"{work}/times-{build}-{kind}")]
        med[build, kind] = (
            statistics.median(r[0] for r in rows),
            statistics.median(r[0] + r[1] for r in rows),
            statistics.median(r[2] for r in rows),
        )
        print(f"{build} {kind:6} user {med[build, kind][0]:.3f} s  CPU {med[build, kind][1]:.3f} s"
              f"  wall {med[build, kind][2]:.3f} s")
for build in "AB":
    p, r = med[build, "plain"], med[build, "report"]
    print(f"{build} --report costs: user {r[0] - p[0]:+.3f} s ({100 * (r[0] / p[0] - 1):+.1f}%),"
          f" CPU {r[1] - p[1]:+.3f} s ({100 * (r[1] / p[1] - 1):+.1f}%),"
          f" wall {100 * (r[2] / p[2] - 1):+.1f}%")
for kind in ("plain", "report"):
    a, b = med["A", kind], med["B", kind]
    print(f"B against A, {kind}: {a[0] / b[0]:.3f}x user, {a[1] / b[1]:.3f}x CPU,"
          f" {a[2] / b[2]:.3f}x wall (above 1: B is faster)")
if os.path.exists(f"{work}/times-floor-baseline"):
    mb = json.load(open(f"{work}/baseline.json"))["text_mb"]
    rows = [tuple(map(float, l.split())) for l in open(f"{work}/times-floor-baseline")]
    floor = statistics.median(r[0] + r[1] for r in rows)
    print(f"floor: CPU {floor:.3f} s, {mb / floor:.1f} MB of text per CPU-s ({mb:.1f} MB)")
    for build in "AB":
        for kind in ("plain", "report"):
            cpu = med[build, kind][1]
            print(f"{build} {kind:6} {mb / cpu:.1f} MB per CPU-s, {floor / cpu:.3f}x the floor")
PY
