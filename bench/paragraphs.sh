#!/usr/bin/env bash
# Throughput of `lookalike paragraphs` against `lookalike dedup` on the same JSONL (issue 32:
# paragraph dedup within 2x of dedup). Each round runs `dedup --output`, `paragraphs --output`
# (exact) and `paragraphs --output --bloom` under GNU time, in an order that moves one step each
# round (no variant always runs first: the first of back-to-back runs pays more system time), and
# the medians of CPU time (user + system, the steadier figure on a shared machine) and wall time
# are compared. Run by hand, not in CI.
#
#   bench/paragraphs.sh [--docs N] [--seed S] [--rounds N] [--threads N] [--bloom SIZE]
#                       [--corpus FILE] [--bin DIR] [--no-install] [--out FILE]
#
# Default: a generated corpus of 24,000 documents (about 100 MB of JSONL; bench/work/, cached),
# 3 rounds, 2 threads, --bloom 256M. --corpus takes an existing JSONL file (fields id and text);
# --bin takes lookalike and lookalike-bench from DIR instead of building them. Writes
# bench/results/paragraphs-<date>.md (or --out).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
COMMAND="bench/paragraphs.sh${*:+ $*}"
WORK="$ROOT/bench/work"
DOCS=24000
SEED=1
ROUNDS=3
THREADS=2
BLOOM=256M
CORPUS=""
BIN_DIR=""
INSTALL=1
OUT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --docs) DOCS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --bloom) BLOOM="$2"; shift 2 ;;
    --corpus) CORPUS="$2"; shift 2 ;;
    --bin) BIN_DIR="$2"; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "paragraphs.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x /usr/bin/time ]] || { echo "paragraphs.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }

if [[ -n $BIN_DIR ]]; then
  BIN="$BIN_DIR/lookalike" BENCH="$BIN_DIR/lookalike-bench"
else
  TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
  if [[ $INSTALL == 1 ]]; then
    (cd "$ROOT" && cargo build --release --locked -p lookalike-cli -p lookalike-bench)
  fi
  BIN="$TARGET/release/lookalike" BENCH="$TARGET/release/lookalike-bench"
fi
[[ -x $BIN ]] || { echo "paragraphs.sh: no binary $BIN" >&2; exit 1; }

mkdir -p "$WORK"
NOTE=""
if [[ -z $CORPUS ]]; then
  NOTE="The generated corpus draws its documents from a limited pool of source paragraphs, so most paragraphs repeat and nearly every record is rewritten: the costly case for \`paragraphs\`."
  CORPUS="$WORK/corpus-$DOCS-s$SEED.jsonl"
  if [[ ! -s $CORPUS ]]; then
    [[ -x $BENCH ]] || { echo "paragraphs.sh: no binary $BENCH" >&2; exit 1; }
    "$BENCH" gen-corpus --with-defaults --docs "$DOCS" --seed "$SEED" --out "$CORPUS.tmp"
    mv "$CORPUS.tmp" "$CORPUS"
  fi
fi
[[ -f $CORPUS ]] || { echo "paragraphs.sh: no corpus $CORPUS" >&2; exit 1; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
variants=(dedup paragraphs bloom)
n=${#variants[@]}
run() { # variant: one timed run, its summary kept
  local v=$1 cmd
  case "$v" in
    dedup) cmd=(dedup "$CORPUS" --output "$TMP/out-dedup.jsonl") ;;
    paragraphs) cmd=(paragraphs "$CORPUS" --output "$TMP/out-paragraphs.jsonl") ;;
    bloom) cmd=(paragraphs "$CORPUS" --output "$TMP/out-bloom.jsonl" --bloom "$BLOOM") ;;
  esac
  /usr/bin/time -f "%U %S %e %M" -o "$TMP/time" "$BIN" "${cmd[@]}" --threads "$THREADS" \
    2> "$TMP/summary-$v.txt"
  cat "$TMP/time" >> "$TMP/times-$v"
}
for ((i = 0; i < ROUNDS; i++)); do
  order=()
  for ((k = 0; k < n; k++)); do
    order+=("${variants[$(((i + k) % n))]}")
  done
  echo "round $((i + 1)) of $ROUNDS: ${order[*]}" >&2
  for v in "${order[@]}"; do run "$v"; done
done
# The Bloom filter removes at least what the exact mode removes: never a longer text.
bloom_same=no
cmp -s "$TMP/out-paragraphs.jsonl" "$TMP/out-bloom.jsonl" && bloom_same=yes

RESULTS="$ROOT/bench/results"
mkdir -p "$RESULTS"
OUT="${OUT:-$RESULTS/paragraphs-$(date +%F).md}"
COMMIT="$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
DIRTY="$(cd "$ROOT" && git status --porcelain 2>/dev/null | grep -q . && echo ", with uncommitted changes" || true)"
CPU=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
MB=$(stat -c %s "$CORPUS")
python3 - "$TMP" "$OUT" "$CORPUS" "$MB" "$ROUNDS" "$THREADS" "$BLOOM" "$COMMIT$DIRTY" "$CPU" \
  "$(nproc)" "$bloom_same" "$COMMAND" "$NOTE" <<'PY'
import datetime, statistics, sys
tmp, out, corpus, mb, rounds, threads, bloom, commit, cpu, cores, bloom_same, command, note = sys.argv[1:]
mb = float(mb) / 1e6
names = {"dedup": "dedup --output", "paragraphs": "paragraphs --output",
         "bloom": f"paragraphs --output --bloom {bloom}"}
rows, med = {}, {}
for v in names:
    rows[v] = [tuple(map(float, l.split())) for l in open(f"{tmp}/times-{v}")]
    med[v] = (statistics.median(r[0] + r[1] for r in rows[v]),
              statistics.median(r[2] for r in rows[v]),
              statistics.median(r[3] for r in rows[v]) / 1024)
lines = [
    f"# `lookalike paragraphs` against `lookalike dedup`, {datetime.date.today()}",
    "",
    f"Corpus `{corpus}` ({mb:.0f} MB of JSONL), {rounds} rounds in rotating order, "
    f"`--threads {threads}`; commit {commit}. Machine: {cores} cores ({cpu}), shared with other "
    "work: CPU time (user + system) is the steadier figure.",
    "",
    f"Command: `{command}`",
    "",
    "| command | CPU s (median) | wall s (median) | MB/CPU-s | MB/s wall | peak RSS MB | CPU s per round |",
    "|---|---:|---:|---:|---:|---:|---|",
]
for v, name in names.items():
    cpu_s, wall, rss = med[v]
    per = ", ".join(f"{r[0] + r[1]:.2f}" for r in rows[v])
    lines.append(f"| `{name}` | {cpu_s:.2f} | {wall:.2f} | {mb / cpu_s:.1f} | {mb / wall:.1f} "
                 f"| {rss:.0f} | {per} |")
d, p, b = med["dedup"], med["paragraphs"], med["bloom"]
lines += [
    "",
    f"**CPU-time ratio paragraphs / dedup: {p[0] / d[0]:.3f}** (wall {p[1] / d[1]:.3f}); "
    f"with `--bloom {bloom}`: {b[0] / d[0]:.3f} (wall {b[1] / d[1]:.3f}). The goal is at most 2.",
    "",
    f"The Bloom run's output equals the exact run's: {bloom_same}. {note}".rstrip(),
    "",
    "Summaries of the last round:",
    "",
    "```",
]
for v in names:
    lines += [l.rstrip() for l in open(f"{tmp}/summary-{v}.txt") if l.startswith("lookalike:")]
lines += ["```", ""]
open(out, "w").write("\n".join(lines))
print("\n".join(lines))
PY
echo "wrote $OUT" >&2
