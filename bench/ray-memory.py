"""Where a `lookalike.ray.dedup` job's memory goes, stage by stage, on a local Ray of N CPUs.

    python bench/ray-memory.py CORPUS [--cpus N] [--partitions P] [--object-store-gb G] [--stream]

CORPUS is a JSONL file (read with `lookalike.ray.read`, eagerly) or a folder of JSONL files
(read lazily with `ray.data.read_json`, one block per file or more); `--stream` runs the job
with `stream=True` (a folder only: `lookalike.ray.read` is not lazy). Defaults: 1 CPU, 2
partitions per CPU, Ray's own object store size.

Every 0.2 s the script takes the PSS of every process of the tree (the driver, Ray's daemons,
its workers) and splits it into the object store's pages mapped by each process (Plasma's
shared memory, counted once by PSS across the processes that map them) and the rest, and asks
Ray how many bytes of the object store are in use (`cluster_resources` minus
`available_resources`). Each sample is charged to the job's stage (its progress line at the
time). Printed at the end, per stage: the workers' heap at most (their PSS without the store,
workers above 80 MB), the store's resident pages at most, the store's bytes in use at most,
and the tree's PSS at most; then the processes at the peak. Plasma's pages stay resident once
written, so the store's resident pages are the high-water mark of what was in use before.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--cpus", type=int, default=1)
    parser.add_argument("--partitions", type=int)
    parser.add_argument("--object-store-gb", type=float)
    parser.add_argument("--stream", action="store_true")
    args = parser.parse_args()
    if args.stream and not os.path.isdir(args.corpus):
        parser.error("--stream needs a folder of JSONL files (lookalike.ray.read reads eagerly)")

    import psutil
    import ray

    import lookalike.ray as job

    store = int(args.object_store_gb * 1e9) if args.object_store_gb else None
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             object_store_memory=store)
    me = psutil.Process()
    stage = ["init"]
    # Per stage: (workers' heap, store pages, store bytes in use, tree PSS), each at most.
    per: dict[str, list[float]] = {}
    peak: list[Any] = [0, {}, ""]
    stop = threading.Event()

    def name(p: psutil.Process) -> str:
        if p.pid == me.pid:
            return "driver"
        line = " ".join(p.cmdline())
        for k in ("raylet", "gcs_server", "dashboard", "log_monitor", "monitor.py", "runtime_env", "ray::"):
            if k in line:
                return k
        return line[:60]

    def sample() -> tuple[int, dict[str, tuple[int, int, int]]]:
        total, parts = 0, {}
        for p in [me, *me.children(recursive=True)]:
            try:
                m = p.memory_full_info()
                shm = sum(mm.pss for mm in p.memory_maps(grouped=True) if "plasma" in mm.path or "/dev/shm" in mm.path)
                parts[f"{name(p)}[{p.pid}]"] = (m.pss, m.uss, shm)
                total += m.pss
            except (psutil.Error, OSError):
                pass
        return total, parts

    def used() -> float:
        try:
            return ray.cluster_resources()["object_store_memory"] - ray.available_resources().get("object_store_memory", 0)
        except Exception:  # the cluster going down at the end
            return 0.0

    idle, parts = sample()
    print(f"idle: {idle / 1e6:.0f} MB PSS in {len(parts)} processes", flush=True)

    def run() -> None:
        while not stop.wait(0.2):
            total, parts = sample()
            heap = sum(v[1] - v[2] for k, v in parts.items() if k.startswith("ray::") and v[0] > 80e6)
            shm = sum(v[2] for v in parts.values())
            row = per.setdefault(stage[0], [0, 0, 0, 0])
            for i, x in enumerate((heap, shm, used(), total)):
                row[i] = max(row[i], x)
            if total > peak[0]:
                peak[:] = [total, parts, stage[0]]

    class Stages:
        """Standard error, each progress line naming the stage."""

        def write(self, s: str) -> int:
            line = s.strip()
            if line.startswith("lookalike.ray.dedup: "):
                stage[0] = line.removeprefix("lookalike.ray.dedup: ").rsplit(" (", 1)[0][:60]
            return sys.__stderr__.write(s)

        def flush(self) -> None:
            sys.__stderr__.flush()

    sampler = threading.Thread(target=run, daemon=True)
    sampler.start()
    sys.stderr = Stages()  # type: ignore[assignment]
    partitions = args.partitions or 2 * args.cpus
    if os.path.isdir(args.corpus):
        ds = ray.data.read_json(args.corpus)
        stage[0] = "before"
        job.dedup(ds, text="text", id="id", num_partitions=partitions, stream=args.stream)
    else:
        ds = job.read([args.corpus], skipped=False)
        stage[0] = "before"
        job.dedup(ds, text="text", id="id", num_partitions=partitions)
    stop.set()
    sampler.join()
    sys.stderr = sys.__stderr__
    print("stage: workers' heap / store pages / store in use / tree PSS, MB at most")
    for k, (heap, shm, inuse, total) in per.items():
        print(f"  {k}: {heap / 1e6:.0f} / {shm / 1e6:.0f} / {inuse / 1e6:.0f} / {total / 1e6:.0f}")
    print(f"peak: {peak[0] / 1e6:.0f} MB during {peak[2]!r}")
    for k, v in sorted(peak[1].items(), key=lambda kv: -kv[1][0]):
        if v[0] > 60e6:
            print(f"  {k}: PSS {v[0] / 1e6:.0f} MB, of which store pages {v[2] / 1e6:.0f} MB")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
