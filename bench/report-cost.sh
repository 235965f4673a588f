#!/usr/bin/env bash
# What `--report` costs, for two builds at once: each round runs four commands in rotation (build
# A plain, A with `--report R --stats S`, B plain, B with them), each round starting one step
# further on, so no variant always runs first or after the same one (the first of two
# back-to-back runs pays more system time). Prints the medians of user, CPU (user + system) and
# wall time, and each build's report cost in seconds and percent. Give the same binary twice to
# measure one build.
#
#   bench/report-cost.sh --a PATH --b PATH [--rounds N] [--threads N] [--corpus FILE]
#
# Default corpus: bench/work/corpus-20000-s1.jsonl (made by `bench/e2e.sh --skip-dedup`);
# defaults: 12 rounds, 1 thread. Outputs go to a temporary directory, removed at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
A=""
B=""
ROUNDS=12
THREADS=1
CORPUS="$ROOT/bench/work/corpus-20000-s1.jsonl"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --a) A="$2"; shift 2 ;;
    --b) B="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --corpus) CORPUS="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "report-cost.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $A && -x $B ]] || { echo "report-cost.sh: --a and --b must name lookalike binaries" >&2; exit 2; }
[[ -f $CORPUS ]] || { echo "report-cost.sh: no corpus $CORPUS (run bench/e2e.sh --skip-dedup)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "report-cost.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
variants=("A plain" "A report" "B plain" "B report")
for ((i = 0; i < ROUNDS; i++)); do
  for k in 0 1 2 3; do
    read -r build kind <<< "${variants[$(((i + k) % 4))]}"
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
python3 - "$WORK" <<'PY'
import statistics, sys
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
PY
