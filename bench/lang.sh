#!/usr/bin/env bash
# Language detection benchmark: lookalike's `detect` (a quick pass, whatlang when it is unsure)
# against whatlang alone, on documents whose language is known. Accuracy per language, how often
# the two disagree, and µs per document of each in the same run (one thread).
# Run by hand, not in CI.
#
#   bench/lang.sh [--corpus JSONL]... [--docs N] [--out FILE] [--keep DIR] [--bin PATH]
#                 [--corpora-only]
#
# Corpora (each skipped when its source is not installed):
# - man pages: every page under /usr/share/man/<lang>/ rendered with `man -l`, labelled by the
#   folder (cs, da, de, es, fr, ..., uk, zh_CN: real single-language text), and short pieces of
#   them (60 to 700 characters, at seeded random offsets);
# - handbook: `lookalike-bench gen-corpus` over the Debian Administrator's Handbook in each of its
#   languages (/usr/share/doc/debian-handbook/html/<ll-CC>; partly untranslated pages, so its
#   documents mix English with the label's language);
# - every --corpus given (e.g. bench/work/corpus-20000-s1.jsonl, the e2e corpus).
# --docs: documents of the handbook corpus (default 8000).
# --keep DIR: write the man-page, snippet and handbook corpora to DIR (man.jsonl,
# snippets.jsonl, handbook.jsonl) and reuse them when they are there, so that other programs
# (crates/lookalike-bench/lang-candidates) read the same labelled sets; --corpora-only stops
# there. --bin PATH: the lookalike-bench to run (nothing is built).
# Writes bench/results/lang-<date>.md.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RESULTS="$ROOT/bench/results"
DOCS=8000
OUT=""
EXTRA=()
KEEP=""
BIN=""
ONLY=0

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --corpus) EXTRA+=("$2"); shift 2 ;;
    --docs) DOCS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --keep) KEEP="$2"; shift 2 ;;
    --bin) BIN="$2"; shift 2 ;;
    --corpora-only) ONLY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "lang.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

log() { echo "[lang $(date +%H:%M:%S)] $*" >&2; }

cd "$ROOT"
if [[ -n $BIN ]]; then
  BENCH="$BIN"
else
  log "building lookalike-bench (release)"
  cargo build --release --locked -p lookalike-bench >&2
  TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
  BENCH="$TARGET/release/lookalike-bench"
fi

OUT="${OUT:-$RESULTS/lang-$(date +%Y-%m-%d).md}"
mkdir -p "$(dirname "$OUT")"
if [[ -n $KEEP ]]; then
  mkdir -p "$KEEP"
  TMP="$(cd "$KEEP" && pwd)"
else
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
fi

corpora=()
if [[ -s $TMP/man.jsonl && -s $TMP/snippets.jsonl ]]; then
  log "reusing $TMP/man.jsonl and $TMP/snippets.jsonl"
  corpora+=("man pages:$TMP/man.jsonl")
  corpora+=("man-page snippets (60 to 700 characters):$TMP/snippets.jsonl")
elif command -v man >/dev/null && [ -d /usr/share/man ]; then
  log "rendering man pages"
  # Rendered $(nproc) pages at a time, written in path order.
  python3 - "$(nproc)" >"$TMP/man.jsonl" <<'PY'
import concurrent.futures, glob, json, os, subprocess, sys
env = dict(os.environ, MANWIDTH="100")
def render(page):
    # A page that does not render (a .so link to another section) is left out.
    man = subprocess.run(["man", "-l", page], capture_output=True, env=env)
    col = subprocess.run(["col", "-b"], input=man.stdout, capture_output=True)
    return col.stdout.decode("utf-8", "replace").rstrip("\n")
pages = []
for d in sorted(glob.glob("/usr/share/man/*/")):
    lang = os.path.basename(d.rstrip("/"))
    if lang.startswith("man"):
        continue
    for root, _, files in os.walk(d):
        pages += [(lang, os.path.join(root, f)) for f in files]
pages.sort()
with concurrent.futures.ThreadPoolExecutor(int(sys.argv[1])) as pool:
    for (lang, page), text in zip(pages, pool.map(render, (p for _, p in pages))):
        if len(text) >= 200:
            label = lang.lower().replace("_", "-")
            print(json.dumps({"id": page, "lang": label, "text": text + "\n"}, ensure_ascii=False))
PY
  if [ -s "$TMP/man.jsonl" ]; then
    corpora+=("man pages:$TMP/man.jsonl")
    # Short texts: up to four pieces of 60 to 700 characters from each page, at random offsets
    # (seeded), starting at a word: where a detector has little to go on.
    python3 - "$TMP/man.jsonl" >"$TMP/snippets.jsonl" <<'PY'
import json, random, sys
random.seed(7)
for line in open(sys.argv[1], encoding="utf-8"):
    d = json.loads(line)
    t = " ".join(d["text"].split())
    for k in range(4):
        n = random.choice([60, 100, 160, 250, 400, 700])
        if len(t) < n + 10:
            continue
        a = random.randrange(0, len(t) - n)
        s = t[a:a + n]
        s = s[s.find(" ") + 1:]
        print(json.dumps({"id": f"{d['id']}#{k}", "lang": d["lang"], "text": s}, ensure_ascii=False))
PY
    corpora+=("man-page snippets (60 to 700 characters):$TMP/snippets.jsonl")
  fi
fi
if [[ -s $TMP/handbook.jsonl ]]; then
  log "reusing $TMP/handbook.jsonl"
  corpora+=("Debian Administrator's Handbook, $DOCS generated documents:$TMP/handbook.jsonl")
elif [ -d /usr/share/doc/debian-handbook/html ]; then
  log "handbook corpus ($DOCS documents)"
  src=()
  for dir in /usr/share/doc/debian-handbook/html/*/; do
    src+=("$(basename "$dir" | cut -d- -f1 | tr 'A-Z' 'a-z')=$dir")
  done
  "$BENCH" gen-corpus --source "${src[@]}" --docs "$DOCS" --out "$TMP/handbook.jsonl" \
    --planted "$TMP/handbook.planted.tsv" >&2
  corpora+=("Debian Administrator's Handbook, $DOCS generated documents:$TMP/handbook.jsonl")
fi
for c in "${EXTRA[@]}"; do corpora+=("$(basename "$c"):$c"); done
[ ${#corpora[@]} -gt 0 ] || { echo "lang.sh: no corpus (no man pages, no handbook, no --corpus)" >&2; exit 1; }
if [[ $ONLY == 1 ]]; then
  log "corpora in $TMP"
  exit 0
fi

{
  echo "# Language detection: quick pass + whatlang against whatlang alone — $(date +%Y-%m-%d)"
  echo
  echo "Machine: $(nproc) cores, $(uname -m); commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (uncommitted changes)')."
  echo "\`detect\` is what \`extract\` reports as \`lang\`; \`dedup --report\`/\`--output\` add folder votes (the"
  echo "column \"with folder votes\": the quick answers of earlier batches of 4,096 documents, by the folders of"
  echo "the documents' ids). \"right\" is agreement with the corpus's label. Times: the fastest of 3 passes"
  echo "over the corpus on one thread."
  for entry in "${corpora[@]}"; do
    name="${entry%%:*}"; file="${entry#*:}"
    log "lang-bench: $name"
    echo
    echo "## $name"
    echo
    "$BENCH" lang-bench --prefix-sweep "$file"
  done
} >"$OUT"
log "wrote $OUT"
cat "$OUT"
