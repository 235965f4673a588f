#!/usr/bin/env bash
# The HTML report of the README's main job (`lookalike dedup /usr/share/doc ...`), rendered by
# headless Chromium (Debian's `chromium` package) to PNG at a desktop width (1280 px) and a phone
# width (390 px), one picture per section, to look at it as a person would. Run by hand, not in
# CI. Everything goes to bench/work/report/ (ignored by git): report.html, the run's pairs and
# clusters, and <width>-<section>.png.
#
#   bench/report-screenshots.sh [INPUT...]     (default: /usr/share/doc)
#   RERENDER=1 bench/report-screenshots.sh     (no new run: the page again from the last run's
#                                              run.json, with `lookalike report --run`)
#
# Uses $LOOKALIKE, or $CARGO_TARGET_DIR/release/lookalike (or target/release/lookalike); nothing
# is built.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${LOOKALIKE:-${CARGO_TARGET_DIR:-$ROOT/target}/release/lookalike}"
OUT="$ROOT/bench/work/report"
[ "$#" -gt 0 ] || set -- /usr/share/doc
command -v chromium >/dev/null || { echo "chromium is missing: apt-get install -y chromium" >&2; exit 1; }
[ -x "$BIN" ] || { echo "$BIN is missing: cargo build --release --bin lookalike" >&2; exit 1; }
mkdir -p "$OUT"

# The main job of the README (without --output: the page does not need it), with the report
# and what `lookalike report --run` needs to write it again.
if [ "${RERENDER:-0}" = 1 ]; then
    "$BIN" report --run "$OUT/run.json" -o "$OUT/report.html"
else
    "$BIN" dedup "$@" --pairs "$OUT/pairs.tsv" --clusters "$OUT/clusters.jsonl" \
        --report "$OUT/report.jsonl" --stats "$OUT/stats.json" --run "$OUT/run.json" \
        --html "$OUT/report.html"
fi
ls -l "$OUT/report.html"

# Chromium shoots the top of a page; a section is shown by a frame scrolled to its anchor.
shoot() { # WIDTH HEIGHT SECTION
    local width=$1 height=$2 section=$3 page="$OUT/report.html"
    if [ "$section" != top ]; then
        page="$OUT/frame-$width-$section.html"
        printf '<!DOCTYPE html><html><body style="margin:0"><iframe src="report.html#%s" style="border:0;width:%spx;height:%spx"></iframe></body></html>' \
            "$section" "$width" "$height" >"$page"
    fi
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --allow-file-access-from-files --window-size="$width,$height" \
        --screenshot="$OUT/$width-$section.png" "file://$page" >/dev/null 2>&1
    echo "$OUT/$width-$section.png"
}
for section in top similarity clusters pairs rates; do
    shoot 1280 2000 "$section"
    shoot 390 1600 "$section"
done
rm -f "$OUT"/frame-*.html
