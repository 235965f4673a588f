"""lookalike.ray.read on one large JSONL file: wall and CPU seconds of reading it into a
materialized Dataset, and a digest of its rows (to compare two builds: the same rows, in order).

    python bench/ray-read-split.py [--cpus N] [--runs R] [--tasks T] [--rayon-1] [--counts] FILE

After `ray.init(num_cpus=N)` (timed apart, with a warm-up read of a small file so that the
workers exist), `lookalike.ray.read([FILE], progress=False).materialize()` runs R times; each
run's wall seconds and CPU seconds (user + system of this process and every process below it:
Ray's raylet, object store and workers, from /proc) are printed, then the medians. `--rayon-1`
sets RAYON_NUM_THREADS=1 in the tasks (each task one thread, as Ray's CPU count assumes; by
default a task decodes on every core of its node). The digest is the SHA-256 of the rows as
JSON, one line each, after the first run; `lookalike.read`'s digest is printed too. `--counts`
also times the newline counts of 1, 2 and 4 ranges of FILE on the driver (`count_newlines`,
ranges in parallel on rayon's threads) and in Ray tasks (one range a task), medians of R.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system, with waited-for children) of `root` and its descendants."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        stats[pid] = fields
        children.setdefault(int(fields[1]), []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            # After ")": state ppid ... utime(11) stime(12) cutime(13) cstime(14).
            total += sum(int(x) for x in stats[pid][11:15])
        todo.extend(children.get(pid, []))
    return total / os.sysconf("SC_CLK_TCK")


def digest(tables) -> tuple[int, str]:
    h, n = hashlib.sha256(), 0
    for t in tables:
        for r in t.to_pylist():
            h.update(json.dumps(r, ensure_ascii=False, sort_keys=True).encode() + b"\n")
            n += 1
    return n, h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tasks", type=int, default=None)
    ap.add_argument("--rayon-1", action="store_true")
    ap.add_argument("--counts", action="store_true")
    args = ap.parse_args()

    import ray

    import lookalike
    import lookalike.ray

    me = os.getpid()
    started = time.perf_counter()
    env = {"RAYON_NUM_THREADS": "1"} if args.rayon_1 else {}
    ray.init(
        num_cpus=args.cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
        runtime_env={"env_vars": env},
    )
    with tempfile.TemporaryDirectory() as d:
        warm = os.path.join(d, "warm.jsonl")
        with open(warm, "w") as f:
            f.write('{"id":"w","text":"warm up"}\n')
        lookalike.ray.read([warm], tasks=args.cpus, progress=False).materialize()
    init = time.perf_counter() - started
    print(f"{args.path}: {os.path.getsize(args.path) / 1e6:.1f} MB; ray.init + warm-up {init:.1f} s "
          f"({args.cpus} CPUs{', RAYON_NUM_THREADS=1 in tasks' if args.rayon_1 else ''})")

    walls, cpus = [], []
    for run in range(args.runs):
        c0, t0 = tree_cpu(me), time.perf_counter()
        ds = lookalike.ray.read([args.path], tasks=args.tasks, progress=run == 0).materialize()
        wall, cpu = time.perf_counter() - t0, tree_cpu(me) - c0
        walls.append(wall)
        cpus.append(cpu)
        print(f"run {run + 1}: wall {wall:.2f} s, CPU {cpu:.2f} s, {ds.num_blocks()} blocks", flush=True)
        if run == 0:
            rows, sha = digest(ds.iter_batches(batch_format="pyarrow", batch_size=None))
            print(f"ray.read rows: {rows}, sha256 {sha}", flush=True)
        del ds
    print(f"median of {args.runs}: wall {statistics.median(walls):.2f} s, CPU {statistics.median(cpus):.2f} s")
    rows, sha = digest(lookalike.read([args.path]))
    print(f"lookalike.read rows: {rows}, sha256 {sha}")

    if args.counts:
        from lookalike import _lookalike

        size = os.path.getsize(args.path)

        @ray.remote(num_cpus=1)
        def count(path: str, start: int, end: int) -> int:
            return _lookalike.count_newlines(path, [(start, end)])[0]

        for n in (1, 2, 4):
            cuts = [size * i // n for i in range(n)] + [size]
            ranges = list(zip(cuts, cuts[1:]))
            driver, tasks = [], []
            for _ in range(args.runs):
                t = time.perf_counter()
                a = _lookalike.count_newlines(args.path, ranges)
                driver.append(time.perf_counter() - t)
                t = time.perf_counter()
                b = ray.get([count.remote(args.path, s, e) for s, e in ranges])
                tasks.append(time.perf_counter() - t)
                assert a == b
            print(f"newlines of {n} ranges ({sum(a)} in all): driver {statistics.median(driver) * 1e3:.0f} ms, "
                  f"Ray tasks {statistics.median(tasks) * 1e3:.0f} ms (medians of {args.runs})")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    sys.exit(main())
