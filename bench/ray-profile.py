#!/usr/bin/env python3
"""Where the Ray job's time goes: task execution seconds summed per Ray function.

    python bench/ray-profile.py CORPUS.jsonl [--reader lookalike|ray] [--cpus 1] [--partitions P]
        [--method minhash] [--runs 1]

Starts Ray (``num_cpus``, no dashboard), reads CORPUS with ``lookalike.ray.read`` (default) or
``ray.data.read_json``, runs ``lookalike.ray.dedup`` on it, and prints, per run, one JSON line:
the job's wall seconds, the driver's own CPU seconds, and from ``ray.timeline()`` the seconds of
each task function (its spans, ``task::NAME``; ``tasks_s``: their sum) and of Ray's phases of
every task (``task:execute``, ``task:deserialize_arguments``, ``task:store_outputs``), largest
first. The spans are wall time: with more than one CPU, tasks that share the cores take longer
than their CPU time. Run with ``RAYON_NUM_THREADS=1`` for figures per core.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--reader", choices=("lookalike", "ray"), default="lookalike")
    parser.add_argument("--cpus", type=int, default=1)
    parser.add_argument("--partitions", type=int, default=None)
    parser.add_argument("--blocks", type=int, default=None, help="read_json's blocks (default 2 x cpus)")
    parser.add_argument("--method", default="minhash")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()

    import ray

    import lookalike.ray

    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray.data.DataContext.get_current().enable_progress_bars = False
    for run in range(args.runs):
        ray.timeline()  # drop the events of earlier runs from the figures below
        seen = time.time()
        start, cpu = time.perf_counter(), time.process_time()
        if args.reader == "lookalike":
            ds = lookalike.ray.read([args.corpus], skipped=False, progress=False)
        else:
            ds = ray.data.read_json(args.corpus, override_num_blocks=args.blocks or 2 * args.cpus)
        read = time.perf_counter() - start
        result = lookalike.ray.dedup(ds, method=args.method, num_partitions=args.partitions or 2 * args.cpus,
                                     progress=False)
        wall, driver = time.perf_counter() - start, time.process_time() - cpu
        events = ray.timeline()
        per: collections.Counter[str] = collections.Counter()
        count: collections.Counter[str] = collections.Counter()
        for e in events:
            if e.get("ph") != "X" or e.get("ts", 0) / 1e6 < seen:
                continue
            name = e.get("name", "")
            cat = e.get("cat", "")
            if cat.startswith("task::"):
                # A function's own span: its category is "task::NAME", its name "module.NAME".
                key = name.split(".")[-1]
            elif cat.startswith("task:"):
                # Ray's phases of every task (execute, deserialize_arguments, store_outputs).
                key = cat
            else:
                continue
            per[key] += e.get("dur", 0) / 1e6
            count[key] += 1
        print(json.dumps({
            "run": run,
            "wall_s": round(wall, 2),
            "read_call_s": round(read, 2),
            "driver_cpu_s": round(driver, 2),
            "tasks_s": round(sum(v for k, v in per.items() if not k.startswith("task:")), 2),
            "pairs": result.pairs.count(),
            "per_task": {k: [round(v, 2), count[k]] for k, v in per.most_common()},
        }), flush=True)
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
