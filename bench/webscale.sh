#!/usr/bin/env bash
# Web pages at scale: every HTML page of /usr/share/doc plus the HTML of nine large Debian -doc
# packages (downloaded with apt-get and unpacked under bench/work/, never installed). How many
# pages that is depends on what /usr/share/doc holds on the machine: 108,641 pages and 4.5 GB
# of HTML on 2026-11-24, 66,531 and 3.7 GB on a fresh machine on 2026-11-27. They are packed
# into gzipped WARC files (`lookalike-bench pack-warc`) and deduplicated with `lookalike dedup
# --extract main` and, as the same-run baseline, `--extract text`. Reports wall and CPU time,
# MB of HTML per second (wall, and per CPU-second), peak memory and the summary. Run by hand,
# not in CI; see bench/README.md.
#
#   bench/webscale.sh [--extract "text main"] [--threads N] [--limit PAGES] [--no-download]
#                     [--bin DIR] [--name NAME] [--out FILE]
#
# --bin DIR: where lookalike and lookalike-bench are (default $CARGO_TARGET_DIR/release or
# target/release; nothing is built); LOOKALIKE_COMMIT, if set, is the commit the report names.
# --limit PAGES: pack only the first PAGES pages (path order), for a quick run.
# Writes bench/results/webscale-<date>[-NAME].md (or FILE); the WARC files are cached in
# bench/work/webscale/ (rebuilt when the page list changes).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/bench/work/webscale"
EXTRACTS="text main"
THREADS=2
LIMIT=""
DOWNLOAD=1
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
NAME=""
OUT=""
# Large HTML manuals of Debian 12 (javadoc, doxygen, Sphinx, edoc, scaladoc): varied generators,
# template-heavy like real sites.
PACKAGES=(openjdk-17-doc libstdc++-12-doc libboost1.81-doc erlang-doc vtk9-doc python-pandas-doc
  libpcl-doc libgecode-doc scala-doc)

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --extract) EXTRACTS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --limit) LIMIT="$2"; shift 2 ;;
    --no-download) DOWNLOAD=0; shift ;;
    --bin) BIN="$2"; shift 2 ;;
    --name) NAME="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "webscale.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

log() { echo "[webscale $(date +%H:%M:%S)] $*" >&2; }
command -v /usr/bin/time >/dev/null || { echo "webscale.sh: GNU time is missing (apt-get install time)" >&2; exit 1; }
LOOKALIKE="$BIN/lookalike"
BENCH="$BIN/lookalike-bench"
for b in "$LOOKALIKE" "$BENCH"; do
  [[ -x $b ]] || { echo "webscale.sh: $b is missing: build with cargo build --release -p lookalike-cli -p lookalike-bench, or pass --bin" >&2; exit 1; }
done
mkdir -p "$WORK/debs" "$WORK/root"

# --- 1. The pages -------------------------------------------------------------------------------
if [[ $DOWNLOAD == 1 ]]; then
  for p in "${PACKAGES[@]}"; do
    if ! compgen -G "$WORK/debs/${p}_*.deb" >/dev/null; then
      log "downloading $p"
      (cd "$WORK/debs" && apt-get download "$p" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) \
        || { echo "webscale.sh: apt-get download $p failed (run apt-get update once, or --no-download)" >&2; exit 1; }
    fi
  done
  for deb in "$WORK"/debs/*.deb; do
    stamp="$WORK/root/.$(basename "$deb").unpacked"
    [[ -e $stamp ]] || { log "unpacking $(basename "$deb")"; dpkg-deb -x "$deb" "$WORK/root"; touch "$stamp"; }
  done
fi
ROOTS=(/usr/share/doc)
[[ -d $WORK/root/usr/share/doc ]] && ROOTS+=("$WORK/root/usr/share/doc")

# --- 2. The WARC files (cached by the list of pages and their sizes) -----------------------------
WARC="$WORK/warc"
listing="$(find "${ROOTS[@]}" -type f \( -iname '*.html' -o -iname '*.htm' \) -printf '%p %s\n' | LC_ALL=C sort)"
[[ -n $LIMIT ]] && listing="$(head -n "$LIMIT" <<<"$listing")"
key="$(printf '%s\n%s\n' "$LIMIT" "$listing" | sha256sum | cut -c1-16)"
if [[ -e $WARC/.key && $(cat "$WARC/.key") == "$key" ]]; then
  log "reusing $WARC"
else
  rm -rf "$WARC"
  pack=("$BENCH" pack-warc "${ROOTS[@]}" --out "$WARC")
  [[ -n $LIMIT ]] && pack+=(--limit "$LIMIT")
  log "packing: ${pack[*]}"
  "${pack[@]}" 2> "$WORK/pack.log"
  cat "$WORK/pack.log" >&2
  echo "$key" > "$WARC/.key"
fi
PACKED="$(tail -n 1 "$WORK/pack.log")"
PAGES="$(sed -n 's/^packed \([0-9]*\) pages.*/\1/p' <<<"$PACKED")"
HTML_MB="$(sed -n 's/^packed [0-9]* pages (\([0-9.]*\) MB of HTML).*/\1/p' <<<"$PACKED")"
WARC_MB="$(du -sm "$WARC" | cut -f1)"

# --- 3. The runs ---------------------------------------------------------------------------------
declare -A WALL USER SYS RSS SUMMARY
secs() { awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }' <<<"$1"; }
for ex in $EXTRACTS; do
  stem="$WORK/run-$ex"
  cmd=("$LOOKALIKE" dedup "$WARC" --extract "$ex" --threads "$THREADS" --pairs "$stem.pairs.tsv"
    --clusters "$stem.clusters.jsonl" --stats "$stem.stats.json")
  log "running: ${cmd[*]}"
  /usr/bin/time -v -o "$stem.time" "${cmd[@]}" 2> "$stem.log" || { cat "$stem.log" >&2; exit 1; }
  WALL[$ex]="$(secs "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$stem.time")")"
  USER[$ex]="$(sed -n 's/.*User time (seconds): //p' "$stem.time")"
  SYS[$ex]="$(sed -n 's/.*System time (seconds): //p' "$stem.time")"
  RSS[$ex]="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$stem.time")"
  SUMMARY[$ex]="$(cat "$stem.log")"
done

# --- 4. The report -------------------------------------------------------------------------------
DATE="$(date +%F)"
if [[ -z $OUT ]]; then
  OUT="$ROOT/bench/results/webscale-$DATE${NAME:+-$NAME}.md"
fi
COMMIT="${LOOKALIKE_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
{
  echo "# Web pages at scale — $DATE"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo);"
  echo "$(rustc --version 2>/dev/null || echo 'rustc unknown'); commit $COMMIT; 1-minute load at the end: $(cut -d' ' -f1 /proc/loadavg)."
  echo
  echo "Pages: every \`.html\`/\`.htm\` file of /usr/share/doc and of ${PACKAGES[*]} (unpacked, not"
  echo "installed): $PAGES pages, $HTML_MB MB of HTML, in $(find "$WARC" -name '*.warc.gz' | wc -l) gzipped WARC files ($WARC_MB MB)."
  echo "Command: \`bench/webscale.sh${LIMIT:+ --limit $LIMIT} --threads $THREADS --extract \"$EXTRACTS\"\`; each run"
  echo "\`lookalike dedup WARC_DIR --extract MODE --threads $THREADS --pairs … --clusters … --stats …\` under GNU time."
  echo "MB/s is MB of HTML (10^6 bytes, decompressed) per second; \"per CPU-s\" divides by user + system time."
  echo
  echo "| --extract | wall s | user s | sys s | MB/s (wall) | MB/s per CPU-s | peak RSS MB | wall / text |"
  echo "|---|---|---|---|---|---|---|---|"
  for ex in $EXTRACTS; do
    awk -v ex="$ex" -v w="${WALL[$ex]}" -v u="${USER[$ex]}" -v s="${SYS[$ex]}" -v r="${RSS[$ex]}" \
      -v mb="$HTML_MB" -v base="${WALL[text]:-}" 'BEGIN {
        ratio = (base != "" && base > 0) ? sprintf("%.2f", w / base) : "n/a";
        printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %s |\n", ex, w, u, s, mb / w, mb / (u + s), r / 1000, ratio }'
  done
  for ex in $EXTRACTS; do
    echo
    echo "Summary, \`--extract $ex\`:"
    echo
    echo '```'
    echo "${SUMMARY[$ex]}" | sed "s|$WARC|WARC_DIR|g"
    echo '```'
  done
} > "$OUT"
log "wrote $OUT"
cat "$OUT"
