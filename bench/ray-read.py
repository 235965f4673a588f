"""lookalike.read against lookalike.ray.read on the same inputs, in one run: wall seconds, and
the same rows in the same order.

    python bench/ray-read.py [--cpus N] [--tasks T] [--boilerplate MODE] PATH...

`read`: `lookalike.read(PATHS).read_all()` in this process (rayon on every core).
`ray.read`: after `ray.init(num_cpus=N)` (timed apart), `lookalike.ray.read(PATHS, tasks=T)`
and every block fetched back (`iter_batches`), with `RAYON_NUM_THREADS=1` in the tasks (each task
one thread: N CPUs in all). Each is run 3 times; the table gives the least. Exits 1 if the rows
differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--tasks", type=int, default=None)
    ap.add_argument("--boilerplate", default="auto")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    import ray

    import lookalike
    import lookalike.ray

    def plain() -> list[dict]:
        return lookalike.read(args.paths, boilerplate=args.boilerplate).read_all().to_pylist()

    def on_ray() -> list[dict]:
        ds = lookalike.ray.read(args.paths, boilerplate=args.boilerplate, tasks=args.tasks, progress=False)
        return [r for t in ds.iter_batches(batch_format="pyarrow", batch_size=None) for r in t.to_pylist()]

    started = time.perf_counter()
    ray.init(
        num_cpus=args.cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
        runtime_env={"env_vars": {"RAYON_NUM_THREADS": "1"}},
    )
    init = time.perf_counter() - started
    times: dict[str, list[float]] = {"read": [], "ray.read": []}
    rows: dict[str, list[dict]] = {}
    for _ in range(args.runs):
        for name, fn in (("read", plain), ("ray.read", on_ray)):
            t = time.perf_counter()
            rows[name] = fn()
            times[name].append(time.perf_counter() - t)
    same = rows["read"] == rows["ray.read"]
    base = min(times["read"])
    print(f"inputs: {' '.join(args.paths)}; records: {len(rows['read'])}; boilerplate {args.boilerplate}; "
          f"ray.init {init:.1f} s ({args.cpus} CPUs); same rows: {same}")
    print("| reader | wall s (least of %d) | vs read |" % args.runs)
    print("|---|---:|---:|")
    for name, ts in times.items():
        print(f"| {name} | {min(ts):.2f} | {min(ts) / base:.2f}x |")
    ray.shutdown()
    return 0 if same else 1


if __name__ == "__main__":
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    sys.exit(main())
