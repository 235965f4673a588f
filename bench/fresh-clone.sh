#!/usr/bin/env bash
# What a new user's first builds cost: clones this repository into a temporary directory, then
# times, with /usr/bin/time -v, (1) the README's main-job build (`cargo build --release --bin
# lookalike --locked`, what `cargo run --release --bin lookalike -- dedup ...` builds), (2) the
# main job itself (the README's `dedup /usr/share/doc` line) and (3) the Python wheel after it (the README's `pip install -v ./crates/lookalike-py`, in a new
# virtual environment), and writes the figures to bench/results/fresh-clone-DATE.md.
#
#   bench/fresh-clone.sh [REPO]        # REPO: the repository to clone (default: this checkout)
#
# Needs git, cargo (rust-toolchain.toml's toolchain), python3 with venv, a C compiler, and the
# crates registry and PyPI (dependencies are downloaded before the timed build: `cargo fetch`).
# Wall-clock figures depend on what else runs on the machine: the script records the load
# average and the CPU time (user + sys), which depends much less on it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$here}
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
date=$(date -u +%Y-%m-%d)
out="$here/bench/results/fresh-clone-$date.md"
commit=$(git -C "$repo" rev-parse HEAD)

git clone --quiet "$repo" "$work/lookalike"
cd "$work/lookalike"
# The target directory is the clone's own, whatever the environment says.
unset CARGO_TARGET_DIR CARGO_INCREMENTAL CARGO_PROFILE_DEV_DEBUG CARGO_PROFILE_TEST_DEBUG
cargo fetch --locked --quiet

# One timed step: its name, then the command. Prints a table row.
timed() {
    local name=$1
    shift
    local log="$work/$name.log"
    local load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -v "$@" > "$log" 2>&1 || { tail -30 "$log"; echo "$name failed" >&2; exit 1; }
    local user sys wall rss
    user=$(awk -F': ' '/User time/ {print $2}' "$log")
    sys=$(awk -F': ' '/System time/ {print $2}' "$log")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
    rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log")
    local compiling
    compiling=$(grep -c 'Compiling ' "$log" || true)
    printf '| %s | `%s` | %s | %.0f s | %s | %s | %s |\n' "$name" "$*" "$wall" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$rss" "$compiling" "$load"
}

rows=()
rows+=("$(timed main-job cargo build --release --bin lookalike --locked)")
# The main job itself, as the README runs it once built (`cargo run` checks the build, then runs).
mkdir -p out
rows+=("$(timed main-job-run cargo run --release --bin lookalike --locked -- dedup /usr/share/doc \
    --pairs out/pairs.tsv --clusters out/clusters.jsonl --output out/unique.jsonl)")
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check pyarrow
rows+=("$(timed wheel "$work/venv/bin/pip" install -v --disable-pip-version-check ./crates/lookalike-py)")
"$work/venv/bin/python" -c 'import lookalike; print("wheel imports:", lookalike.__name__)'

{
    echo "# A fresh clone's builds — $date"
    echo
    echo "Commit \`$commit\`, cloned into an empty directory with an empty target directory"
    echo "(dependencies fetched before the timed steps). Machine: $(nproc) cores,"
    echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(rustc --version)."
    echo "Load average (1, 5, 15 min) at the start of each step in the last column: other work on"
    echo "the machine lengthens the wall-clock time; the CPU time (user + sys) is the steadier figure."
    echo
    echo "| step | command | wall | CPU (user + sys) | max RSS (kB) | crates compiled | load |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Made by \`bench/fresh-clone.sh\`."
} > "$out"
cat "$out"
