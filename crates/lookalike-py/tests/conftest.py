"""Shared fixtures: the CLI binaries, a generated corpus, a local Ray cluster.

The CLI binaries come from LOOKALIKE_BIN and LOOKALIKE_BENCH_BIN (set by .ci/python), else from
the cargo target directory (CARGO_TARGET_DIR or ./target, debug then release).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _binary(env: str, name: str) -> Path:
    if os.environ.get(env):
        return Path(os.environ[env])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        p = target / profile / name
        if p.exists():
            return p
    pytest.skip(f"{name} is not built (cargo build -p lookalike-cli -p lookalike-bench), or set {env}")


@pytest.fixture(scope="session")
def cli() -> Path:
    return _binary("LOOKALIKE_BIN", "lookalike")


@pytest.fixture(scope="session")
def bench() -> Path:
    return _binary("LOOKALIKE_BENCH_BIN", "lookalike-bench")


@pytest.fixture(scope="session")
def corpus(bench: Path, tmp_path_factory) -> Path:
    """A generated corpus with planted near-duplicates (400 documents, five languages)."""
    out = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    args = [str(bench), "--threads", "2", "gen-corpus", "--docs", "400", "--seed", "3", "--out", str(out)]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        # Without the Debian manuals the generator needs a source: the shared HTML benchmark.
        data = ROOT.parent / "shared" / "data" / "article-extraction-benchmark"
        if not data.exists():
            pytest.skip(f"cannot generate a corpus: {run.stderr.strip()}")
        run = subprocess.run(args + ["--source", f"en={data}"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
    return out


def read_corpus(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    yield ray
    ray.shutdown()
