#!/usr/bin/env bash
# Load bench of `lookalike serve` (issue 15), by hand, not in CI. On loopback only:
#   1. `lookalike index add` of the first N documents of a corpus (time, peak RSS, disk per doc);
#   2. `lookalike serve` on 127.0.0.1, then `lookalike-bench load` (bounded: R requests each) for
#      single checks and batch checks (32 a request) at 1, 8 and 64 connections, and the same
#      checks at 8 connections while another client inserts; peak RSS of the server;
#   3. datasketch's MinHashLSH on a Redis server on loopback, same documents (skip with
#      PEERS=0): needs redis-server (apt-get install redis-server) and a venv with datasketch
#      and redis (VENV=/tmp/ds-venv: python3 -m venv $VENV && $VENV/bin/pip install datasketch redis).
# Usage: bench/index-load.sh [N] [R]      (defaults 100000 and 2000)
# Env: CORPUS (default bench/work/corpus-1000000-s1.jsonl, from `bench/e2e.sh --docs 1000000`),
#      BIN (a directory with release lookalike and lookalike-bench; default: build them),
#      WORK (default /tmp/lookalike-index-bench; deleted at the end unless KEEP=1), PORT (18080),
#      QUERIES (the corpus the checks and inserts read; default CORPUS) and QSKIP (its lines to
#      skip first; default N): a corpus of N documents exactly takes its queries from another.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
R=${2:-2000}
CORPUS=${CORPUS:-bench/work/corpus-1000000-s1.jsonl}
WORK=${WORK:-/tmp/lookalike-index-bench}
PORT=${PORT:-18080}
PEERS=${PEERS:-1}
QUERIES=${QUERIES:-$CORPUS}
QSKIP=${QSKIP:-$N}
VENV=${VENV:-/tmp/ds-venv}
if [ -z "${BIN:-}" ]; then
    cargo build --release -p lookalike-cli -p lookalike-bench >&2
    BIN=${CARGO_TARGET_DIR:-target}/release
fi
rm -rf "$WORK"
mkdir -p "$WORK"
trap '[ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null; [ -n "${REDIS:-}" ] && kill "$REDIS" 2>/dev/null; [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"' EXIT

input_bytes=$(head -n "$N" "$CORPUS" | wc -c)
echo "## lookalike index + serve, $N documents ($((input_bytes / 1000000)) MB of JSONL), $(date -u +%F), $(nproc) cores"
echo
"$BIN/lookalike" index create "$WORK/idx" 2>&1 | sed 's/^/    /'
/usr/bin/time -f "%e s wall, %U s user, %S s sys, peak RSS %M KB" -o "$WORK/add.time" \
    "$BIN/lookalike" index add "$WORK/idx" - --batch 4096 -q < <(head -n "$N" "$CORPUS") > "$WORK/add.jsonl"
"$BIN/lookalike" index stats "$WORK/idx" > "$WORK/stats.json"
disk=$(jq .disk_bytes "$WORK/stats.json")
docs=$(jq .documents "$WORK/stats.json")
echo "- index add: $(cat "$WORK/add.time"); $docs documents held, $(jq -s '[.[] | select(.status == "duplicate")] | length' "$WORK/add.jsonl") duplicates"
echo "- on disk: $((disk / 1000000)) MB, $((disk / docs)) bytes per document (input: $((input_bytes / N)) bytes per document, $(jq .text_bytes "$WORK/stats.json") bytes of text in all)"
echo

if (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "port $PORT is taken: set PORT" >&2
    exit 1
fi
"$BIN/lookalike" serve "$WORK/idx" --addr "127.0.0.1:$PORT" 2> "$WORK/serve.log" &
SERVER=$!
for _ in $(seq 100); do grep -q "serving" "$WORK/serve.log" 2>/dev/null && break; sleep 0.1; done
grep -q "serving" "$WORK/serve.log" || { cat "$WORK/serve.log" >&2; exit 1; }
# Queries are the documents after the first N: new to the index (some planted near copies of it).
load() { "$BIN/lookalike-bench" load --addr "127.0.0.1:$PORT" --corpus "$QUERIES" "$@"; }
echo "| what | connections | requests | documents/s | requests/s | p50 ms | p99 ms | duplicates found |"
echo "|---|---|---|---|---|---|---|---|"
row() { jq -r --arg what "$1" '"| \($what) | \(.connections) | \(.requests) | \(.documents_per_s | floor) | \(.requests_per_s | floor) | \(.p50_ms * 100 | round / 100) | \(.p99_ms * 100 | round / 100) | \(.duplicates) |"'; }
for c in 1 8 64; do
    load --skip "$QSKIP" --mode check --connections "$c" --requests "$R" | row "check"
    load --skip "$QSKIP" --mode batch --batch-size 32 --connections "$c" --requests "$((R / 8))" | row "check:batch (32)"
done
load --mode insert --connections 1 --requests "$R" --skip "$((QSKIP + 100000))" --id-prefix new- > "$WORK/insert.json" &
INSERTER=$!
load --skip "$QSKIP" --mode check --connections 8 --requests "$R" | row "check, inserts running"
wait "$INSERTER"
row "insert (alone after the checks)" < "$WORK/insert.json"
rss=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")
kill -TERM "$SERVER"
wait "$SERVER" || true
SERVER=
echo
echo "- serve peak RSS: $rss KB; $(tail -1 "$WORK/serve.log")"
"$BIN/lookalike" index verify "$WORK/idx" 2>&1 | sed 's/^/- /'

if [ "$PEERS" = 1 ]; then
    redis-server --port 16379 --save '' --appendonly no --daemonize no > "$WORK/redis.log" 2>&1 &
    REDIS=$!
    sleep 1
    echo
    echo "### datasketch MinHashLSH on Redis (loopback), same first $N documents, $R queries"
    echo
    echo '```'
    "$VENV/bin/python" bench/index/datasketch_redis.py "$CORPUS" "$N" "$R" 16379
    echo '```'
fi
