#!/usr/bin/env bash
# The persistent index's store chosen by measurement (issue 15), by hand, not in CI: the same
# workload through the index on redb, fjall, LMDB (heed) and SQLite (rusqlite), one process per
# engine, engines interleaved over ROUNDS rounds so that the shared machine's load falls on all:
#   batched adds of the first N documents (B a commit, fsynced), single checks of C new documents
#   and of S indexed ones, I single inserts each fsynced, bytes on disk per document, peak RSS.
# Usage: bench/index-storage.sh [N] [ROUNDS]      (defaults 100000 and 1)
# Env: CORPUS (default bench/work/corpus-320000-s1.jsonl), BIN (a directory with a release
#      lookalike-bench built with --features index-engines; default: build it), ENGINES (default
#      "redb fjall lmdb sqlite"), B (4096), C (2000), S (2000), I (300),
#      WORK (default /tmp/lookalike-index-storage; deleted at the end).
# Prints a markdown section: one table row per run, then the medians with ratios against redb.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
ROUNDS=${2:-1}
CORPUS=${CORPUS:-bench/work/corpus-320000-s1.jsonl}
ENGINES=${ENGINES:-redb fjall lmdb sqlite}
B=${B:-4096}
C=${C:-2000}
S=${S:-2000}
I=${I:-300}
WORK=${WORK:-/tmp/lookalike-index-storage}
if [ -z "${BIN:-}" ]; then
    cargo build --release -p lookalike-bench --features index-engines >&2
    BIN=${CARGO_TARGET_DIR:-target}/release
fi
rm -rf "$WORK"
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

echo "## Index stores, $N documents from $(basename "$CORPUS"), $(date -u '+%F %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Batches of $B documents (one fsynced commit each), $C single checks of new documents, $S of indexed ones, $I single inserts each fsynced."
echo
echo "| round | engine | add s | add docs/s | checks/s (new) | p50/p99 µs | checks/s (indexed) | p50/p99 µs | inserts/s | p50/p99 ms | bytes/doc on disk | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
    for engine in $ENGINES; do
        "$BIN/lookalike-bench" index-storage --engine "$engine" --corpus "$CORPUS" --docs "$N" \
            --batch "$B" --checks "$C" --seen "$S" --inserts "$I" --dir "$WORK/$engine" \
            | tee -a "$WORK/runs.jsonl" \
            | jq -r --arg r "$round" '"| \($r) | \(.engine) | \(.add_s | round) | \(.add_docs_per_s | round) | \(.checks_per_s | round) | \(.check_p50_us | round)/\(.check_p99_us | round) | \(.seen_per_s | round) | \(.seen_p50_us | round)/\(.seen_p99_us | round) | \(.inserts_per_s * 10 | round / 10) | \(.insert_p50_ms * 10 | round / 10)/\(.insert_p99_ms * 10 | round / 10) | \(.disk_bytes_per_doc) | \(.peak_rss_kb / 1000 | round) |"'
    done
done
echo
echo "Medians over the rounds; ratio = engine / redb (for bytes and RSS, lower is better; for the rest, higher)."
echo
echo "| engine | add docs/s | checks/s (new) | checks/s (indexed) | inserts/s | bytes/doc | peak RSS MB | duplicates found | text bytes/doc |"
echo "|---|---|---|---|---|---|---|---|---|"
jq -rs '
  def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def r(x): (x * 100 | round) / 100;
  group_by(.engine) | map({
    engine: .[0].engine,
    add: (map(.add_docs_per_s) | median), new: (map(.checks_per_s) | median),
    seen: (map(.seen_per_s) | median), ins: (map(.inserts_per_s) | median),
    bytes: (map(.disk_bytes_per_doc) | median), rss: (map(.peak_rss_kb) | median / 1000),
    dups: .[0].duplicates, text: .[0].text_bytes_per_doc
  }) as $all
  | ($all | map(select(.engine == "redb")) | .[0]) as $redb
  | $all[] | "| \(.engine) | \(.add | round) (\(r(.add / $redb.add))×) | \(.new | round) (\(r(.new / $redb.new))×) | \(.seen | round) (\(r(.seen / $redb.seen))×) | \(r(.ins)) (\(r(.ins / $redb.ins))×) | \(.bytes) (\(r(.bytes / $redb.bytes))×) | \(.rss | round) (\(r(.rss / $redb.rss))×) | \(.dups) | \(.text) |"
' "$WORK/runs.jsonl"
