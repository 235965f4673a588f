"""The CLI, lookalike.dedup and lookalike.ray.dedup (local Ray with 1 and 2 CPUs) on one corpus,
in one run: wall seconds, CPU seconds, peak memory, and the same pairs and clusters everywhere.

    python bench/python-ray.py CLI CORPUS.jsonl [DOCS] [--cpus 1,2] [--baseline MODULE[,MODULE]] [--repeat R]
        [--no-dedup] [--timeout S] [--object-store-gb G] [--blocks B] [--partitions P]
        [--reader lookalike|parquet] [--rayon-threads T|unset] [--stream] [--task-shuffle-pieces N]

CLI is the release binary (`lookalike`), CORPUS a JSONL file with `id` and `text`; DOCS (default
every line) takes the first lines only. `--cpus`: the Ray cluster sizes (default 1 and 2).
`--baseline MODULE`: also runs `MODULE.dedup` (an importable copy of an earlier
`lookalike/ray.py`, on `PYTHONPATH`, importing `lookalike._lookalike`) as `ray-baseline-cpus-N`,
alternating with the current job, so that both are measured in the same run under the same load
(`--baseline A,B`: several, as `ray-A-cpus-N` and `ray-B-cpus-N`).
`--repeat R`: each Ray row R times (the table shows the run with the median wall time).
`--no-dedup`: no `lookalike.dedup` rows. `--timeout S`: a Ray run still going after S seconds
is stopped (its process group killed) and reported as `timed_out`, without figures.
`--object-store-gb G`: the Ray object store's size (`ray.init(object_store_memory=...)`; default
Ray's own, 30 % of the memory). `--blocks B`: the read's blocks (default 2 per CPU).
`--partitions P`: the job's `num_partitions` (default 2 per CPU).
`--reader lookalike`: the Ray rows read the corpus with `lookalike.ray.read([CORPUS],
skipped=False)` (lookalike's JSONL reader in Ray tasks) instead of `ray.data.read_json`;
`--reader parquet`: the corpus is written once as a Parquet file (row groups of 10,000
documents, not timed) and read with `ray.data.read_parquet`. `--shards K`: the corpus is cut
into K JSONL files of a folder (in order; not timed), which every task reads (Ray Data one file
per read task, `--blocks` K unless given). `--stream`: each Ray job also runs
with `stream=True` (the input read as a stream, twice), as `ray-stream-cpus-N`, alternating with
the others (not with `--reader lookalike`, whose read is not lazy). `--task-shuffle-pieces N`:
the job's `TASK_SHUFFLE_PIECES` set to N (past it the key shuffle is Ray Data's repartition; with
`--stream`, from the block that crosses it).
Every measurement runs in a child process of its own:

* `cli-threads-N`: `lookalike dedup CORPUS --threads N --pairs P --clusters C --stats S` (reading
  and writing included). CPU and peak RSS from `wait4` (the process and its threads). Per stage
  (`stages`, `stage_cpu`, `stage_peak_mb`): the process's CPU and PSS sampled every 0.2 s, each
  sample charged to the phase the `--stats` file places at its time: `read` (reading,
  normalization, shingles and sketches, streamed) up to the first phase after reading, the
  phases' own seconds after it, `write` after the last (outputs written, exit); the CPU after
  the last sample (the run's last 0.2 s at most) is counted apart.
* `dedup-threads-N`: `lookalike.dedup(pyarrow.json.read_json(CORPUS))` with
  `RAYON_NUM_THREADS=N` (reading included). CPU and peak RSS from `wait4`.
* `ray-cpus-N`: `ray.init(num_cpus=N)` (timed apart: `init_seconds`), then
  `ray.data.read_json(CORPUS)` and `lookalike.ray.dedup(ds, num_partitions=2N)` with
  `RAYON_NUM_THREADS=1` (each Ray task one thread: N CPUs in all; `--rayon-threads T`: T, or
  with `unset` not set, so that the job sizes its tasks' threads itself). Wall seconds cover the read
  and the whole job; CPU seconds are those of the driver and every process Ray started (raylet,
  GCS, workers), sampled every 0.2 s with psutil (a process that ends keeps its last sample),
  less the sampler's own CPU (it runs in the driver's process; `sampler_cpu_seconds`: reading
  every process's memory map each 0.2 s cost 2-4 s in a 20 s job, which results before
  2026-11-29's `ray-read-tasks` counted as Ray's);
  peak memory is the largest sum of their PSS (proportional set size: the object store's shared
  pages counted once) seen by the sampler (`idle_mb`: that sum after `ray.init`, before the job:
  Ray's processes idle and the driver); `processes`: how many processes it saw (the
  driver, Ray's daemons and every worker started during the job). `stages`: the seconds of each stage of the job, from
  its progress lines (the stage's line to the next one); `stage_cpu`: the CPU seconds of the
  process tree sampled during each stage (each 0.2 s sample's growth goes to the stage in
  progress when it is taken); `stage_peak_mb`: the largest PSS sum sampled during each stage.

Prints one JSON line per task and a Markdown table; checks that every task found the same pairs
(similarities to 6 decimals) and the same clusters as the CLI, and exits 1 if one did not.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def canonical_cli(pairs: Path, clusters: Path) -> dict:
    with pairs.open() as f:
        out_pairs = sorted([r[0], r[1], float(r[2])] for r in csv.reader(f, delimiter="\t"))
    out_clusters = sorted(
        [c["representative"], sorted(m["id"] for m in c["members"])]
        for c in map(json.loads, clusters.read_text().splitlines())
    )
    return {"pairs": out_pairs, "clusters": out_clusters}


def canonical_tables(documents, pairs) -> dict:
    out_pairs = sorted([p["id1"], p["id2"], p["similarity"]] for p in pairs.to_pylist())
    by_cluster: dict[int, list] = {}
    for r in documents.select(["id", "cluster", "status"]).to_pylist():
        if r["cluster"] is not None:
            by_cluster.setdefault(r["cluster"], []).append(r)
    out_clusters = sorted(
        [
            next(r["id"] for r in rows if r["status"] == "kept"),
            sorted(r["id"] for r in rows if r["status"] == "duplicate"),
        ]
        for rows in by_cluster.values()
    )
    return {"pairs": out_pairs, "clusters": out_clusters}


def same(a: dict, b: dict) -> bool:
    if a["clusters"] != b["clusters"] or len(a["pairs"]) != len(b["pairs"]):
        return False
    return all(x[:2] == y[:2] and abs(x[2] - y[2]) <= 1e-6 for x, y in zip(a["pairs"], b["pairs"]))


class TreeSampler:
    """CPU seconds and peak PSS of this process and its descendants, sampled."""

    def __init__(self, interval: float = 0.2, stage=None):
        import psutil

        #: The name of the stage in progress (a callable), to which each sample is charged.
        self.stage = stage or (lambda: "job")
        self.stage_cpu: dict[str, float] = {}
        self.stage_peak: dict[str, int] = {}
        self.charged = 0.0
        #: CPU seconds of the sampling itself (in this process), left out of `cpu_seconds`.
        self.own = 0.0

        self.psutil = psutil
        self.me = psutil.Process()
        self.interval = interval
        self.cpu: dict[int, float] = {}
        self.base: dict[int, float] = {}
        self.peak = 0
        self.stop = threading.Event()

    def _sample(self) -> None:
        # The sampler runs in the measured process: its own CPU (reading every process's memory
        # map, about 3 s in a 20 s job of 11 processes) is counted apart and left out.
        start = time.thread_time()
        total = 0
        for p in [self.me, *self.me.children(recursive=True)]:
            try:
                with p.oneshot():
                    t = p.cpu_times()
                    self.cpu[p.pid] = t.user + t.system + t.children_user + t.children_system
                    total += p.memory_full_info().pss
            except (self.psutil.NoSuchProcess, self.psutil.AccessDenied, self.psutil.ZombieProcess):
                pass
        self.peak = max(self.peak, total)
        if self.base:
            stage = self.stage()
            used = self.cpu_seconds()
            self.stage_cpu[stage] = self.stage_cpu.get(stage, 0.0) + used - self.charged
            self.charged = used
            self.stage_peak[stage] = max(self.stage_peak.get(stage, 0), total)
        self.own += time.thread_time() - start

    def _run(self) -> None:
        while not self.stop.wait(self.interval):
            self._sample()

    def __enter__(self):
        self._sample()
        self.base = dict(self.cpu)
        self.own = 0.0
        #: PSS before the measured work: Ray's processes idle after `ray.init`, and the driver.
        self.idle = self.peak
        self.peak = 0
        self.stage_cpu, self.stage_peak, self.charged = {}, {}, 0.0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        self._sample()

    def cpu_seconds(self) -> float:
        return sum(v - self.base.get(pid, 0.0) for pid, v in self.cpu.items()) - self.own


def sampled_cli(args: list[str], env: dict[str, str], stats: Path) -> dict:
    """A CLI run (`args` with `--stats stats`) with its CPU and PSS sampled every 0.2 s and
    charged to its phases (see the module documentation)."""
    import psutil

    start = time.perf_counter()
    proc = subprocess.Popen([*args, "--stats", str(stats)], env=env)
    me = psutil.Process(proc.pid)
    series: list[tuple[float, float, int]] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            try:
                with me.oneshot():
                    t = me.cpu_times()
                    series.append((time.perf_counter() - start, t.user + t.system, me.memory_full_info().pss))
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                return

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    thread.join()
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(args)} exited with {status}")
    cpu = usage.ru_utime + usage.ru_stime
    figures = json.loads(stats.read_text())
    phases = [(s["stage"], s["seconds"]) for s in figures["stages"]]
    # Phase starts, from the end of the last one (the run's `seconds`) backwards.
    end = figures["seconds"]
    bounds, at = [], end - sum(s for _, s in phases)
    bounds.append(("read", 0.0))
    for name, s in phases:
        bounds.append((name, at))
        at += s
    bounds.append(("write", end))

    def phase_at(t: float) -> str:
        return [name for name, b in bounds if b <= t][-1]

    stage_cpu: dict[str, float] = {}
    stage_peak: dict[str, int] = {}
    last = 0.0
    for t, c, pss in series:
        name = phase_at(t)
        stage_cpu[name] = stage_cpu.get(name, 0.0) + c - last
        stage_peak[name] = max(stage_peak.get(name, 0), pss)
        last = c
    # The CPU after the last sample (at most 0.2 s of the run's end), apart.
    stage_cpu["after the last sample"] = cpu - last
    stages = {"read": round(end - sum(s for _, s in phases), 2)} | {n: round(s, 2) for n, s in phases}
    stages["write"] = round(seconds - end, 2)
    return {
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "peak_mb": round(usage.ru_maxrss * 1024 / 1e6),
        "stages": stages,
        "stage_cpu": {k: round(v, 2) for k, v in stage_cpu.items()},
        "stage_peak_mb": {k: round(v / 1e6) for k, v in stage_peak.items()},
    }


def task_dedup(corpus: str, out: str) -> dict:
    import pyarrow.json

    import lookalike

    start = time.perf_counter()
    table = pyarrow.json.read_json(corpus)
    result = lookalike.dedup(table, text="text", id="id")
    seconds = time.perf_counter() - start
    Path(out).write_text(json.dumps(canonical_tables(result.table, result.pairs)))
    return {"seconds": round(seconds, 2), "docs": table.num_rows, "pairs": result.pairs.num_rows}


class StageLines:
    """Standard error, with the time each of the job's progress lines was written: the stages
    are the intervals between them (`before` the first, from the start of the timing: reading
    the dataset's schema, checking the settings)."""

    def __init__(self, stream):
        self.stream, self.lines = stream, []

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.startswith("lookalike.ray.dedup: ") and line.endswith(" s)"):
                message = line[len("lookalike.ray.dedup: "):].rpartition(" (")[0]
                before, _, after = message.partition(": ")
                name = after if after and (before.startswith("method") or before[0].isdigit()) else before
                self.lines.append((name.split(",")[0], time.perf_counter()))
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def current(self) -> str:
        """The stage in progress: the last progress line's (`before` until the first)."""
        return self.lines[-1][0] if self.lines else "before"

    def stages(self, start: float, end: float) -> dict[str, float]:
        times = [t for _, t in self.lines] + [end]
        out = {"before": round(times[0] - start, 2)} if self.lines else {}
        return out | {name: round(times[i + 1] - t, 2) for i, (name, t) in enumerate(self.lines)}


def task_ray(corpus: str, out: str, cpus: int, module: str) -> dict:
    import importlib

    import pyarrow as pa
    import ray

    stream = module.endswith(":stream")
    job = importlib.import_module(module.removesuffix(":stream"))
    start = time.perf_counter()
    store = os.environ.get("PYTHON_RAY_OBJECT_STORE_BYTES")
    ray.init(
        num_cpus=cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
        object_store_memory=int(store) if store else None,
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    init = time.perf_counter() - start
    lines = StageLines(sys.stderr)
    sys.stderr = lines
    with TreeSampler(stage=lines.current) as sampler:
        start = time.perf_counter()
        blocks = int(os.environ.get("PYTHON_RAY_BLOCKS") or 2 * cpus)
        if os.environ.get("PYTHON_RAY_READER") == "lookalike":
            # The job's own module's reader (a baseline package reads with its own).
            ds = job.read([corpus], skipped=False)
        elif os.environ.get("PYTHON_RAY_READER") == "parquet":
            ds = ray.data.read_parquet(os.environ["PYTHON_RAY_PARQUET"], override_num_blocks=blocks)
        else:
            ds = ray.data.read_json(corpus, override_num_blocks=blocks)
        partitions = int(os.environ.get("PYTHON_RAY_PARTITIONS") or 2 * cpus)
        if os.environ.get("PYTHON_RAY_TASK_SHUFFLE_PIECES"):
            job.TASK_SHUFFLE_PIECES = int(os.environ["PYTHON_RAY_TASK_SHUFFLE_PIECES"])
        result = job.dedup(ds, text="text", id="id", num_partitions=partitions, **({"stream": True} if stream else {}))
        end = time.perf_counter()
        seconds = end - start
    sys.stderr = lines.stream
    documents = pa.concat_tables(ray.get(result.dataset.to_arrow_refs()))
    pairs = pa.concat_tables(ray.get(result.pairs.to_arrow_refs()))
    ray.shutdown()
    Path(out).write_text(json.dumps(canonical_tables(documents, pairs)))
    return {
        "seconds": round(seconds, 2),
        "init_seconds": round(init, 2),
        "cpu_seconds": round(sampler.cpu_seconds(), 2),
        "peak_mb": round(sampler.peak / 1e6),
        "idle_mb": round(sampler.idle / 1e6),
        "docs": documents.num_rows,
        "pairs": pairs.num_rows,
        "stages": lines.stages(start, end),
        "stage_cpu": {k: round(v, 2) for k, v in sampler.stage_cpu.items()},
        "stage_peak_mb": {k: round(v / 1e6) for k, v in sampler.stage_peak.items()},
        "processes": len(sampler.cpu),
        "sampler_cpu_seconds": round(sampler.own, 2),
    }


def measured(
    args: list[str], env: dict[str, str], timeout: float | None = None
) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds and peak RSS (bytes) of a child process, and its stdout; with
    `timeout`, a child still running then is killed with its process group (stdout "")."""
    import signal

    start = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True)
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(timeout, kill) if timeout else None
    if timer:
        timer.start()
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if timer:
        timer.cancel()
    seconds = time.perf_counter() - start
    if killed.is_set():
        return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args)} exited with {proc.returncode}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, stdout


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--task":
        task, corpus, out = sys.argv[2], sys.argv[3], sys.argv[4]
        module = sys.argv[5] if len(sys.argv) > 5 else "lookalike.ray"
        result = task_dedup(corpus, out) if task == "dedup" else task_ray(corpus, out, int(task), module)
        print(json.dumps(result))
        return 0
    args = sys.argv[1:]
    cpu_list, baseline, repeat, timeout = [1, 2], None, 1, None
    no_dedup = "--no-dedup" in args
    if no_dedup:
        args.remove("--no-dedup")
    stream = "--stream" in args
    if stream:
        args.remove("--stream")
    rayon = "1"
    store = None
    blocks = None
    reader = None
    partitions = None
    shards = None
    pieces = None
    for flag in (
        "--cpus", "--baseline", "--repeat", "--timeout", "--object-store-gb", "--blocks", "--partitions", "--reader",
        "--rayon-threads", "--shards", "--task-shuffle-pieces",
    ):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1]
            del args[i : i + 2]
            if flag == "--cpus":
                cpu_list = [int(c) for c in value.split(",")]
            elif flag == "--baseline":
                baseline = value
            elif flag == "--timeout":
                timeout = float(value)
            elif flag == "--blocks":
                blocks = value
            elif flag == "--partitions":
                partitions = value
            elif flag == "--reader":
                reader = value
            elif flag == "--rayon-threads":
                rayon = value
            elif flag == "--shards":
                shards = int(value)
            elif flag == "--task-shuffle-pieces":
                pieces = value
            elif flag == "--object-store-gb":
                store = str(int(float(value) * 1e9))
            else:
                repeat = int(value)
    cli, corpus = args[0], args[1]
    docs = int(args[2]) if len(args) > 2 else None
    work = Path(tempfile.mkdtemp(prefix="python-ray-"))
    if docs is not None:
        head = work / "corpus.jsonl"
        with open(corpus) as src, head.open("w") as dst:
            for _, line in zip(range(docs), src):
                dst.write(line)
        corpus = str(head)
    parquet = None
    if reader == "parquet":
        # Written from the JSONL lines before any sharding; the Ray rows read this file.
        import pyarrow.json
        import pyarrow.parquet

        parquet = str(work / "corpus.parquet")
        pyarrow.parquet.write_table(pyarrow.json.read_json(corpus).select(["id", "text"]), parquet, row_group_size=10_000)
    if shards:
        # A sharded corpus: its lines cut into SHARDS files of a folder, in order (the CLI reads
        # a folder's files by name, Ray Data one file per read task).
        folder = work / "shards"
        folder.mkdir()
        lines = sum(1 for _ in open(corpus))
        per = -(-lines // shards)
        with open(corpus) as src:
            for k in range(shards):
                with (folder / f"part-{k:05d}.jsonl").open("w") as dst:
                    for _, line in zip(range(per), src):
                        dst.write(line)
        corpus = str(folder)
        blocks = blocks or str(shards)
    rows, canon = [], {}
    for threads in (1, 2):
        name = f"cli-threads-{threads}"
        pairs, clusters = work / f"{name}.tsv", work / f"{name}.jsonl"
        args = [cli, "dedup", corpus, "--threads", str(threads), "-q", "--pairs", str(pairs), "--clusters", str(clusters)]
        figures = sampled_cli(args, dict(os.environ), work / f"{name}.stats.json")
        canon[name] = canonical_cli(pairs, clusters)
        rows.append({"task": name, **figures, "pairs": len(canon[name]["pairs"])})
        print(json.dumps(rows[-1]), flush=True)
    for threads in () if no_dedup else (1, 2):
        name = f"dedup-threads-{threads}"
        out = work / f"{name}.json"
        env = {**os.environ, "RAYON_NUM_THREADS": str(threads)}
        _, cpu, rss, stdout = measured([sys.executable, __file__, "--task", "dedup", corpus, str(out)], env)
        canon[name] = json.loads(out.read_text())
        rows.append({"task": name, **json.loads(stdout), "cpu_seconds": round(cpu, 2), "peak_mb": round(rss / 1e6)})
        print(json.dumps(rows[-1]), flush=True)
    jobs = [("ray", "lookalike.ray")]
    if stream:
        jobs.append(("ray-stream", "lookalike.ray:stream"))
    if baseline:
        modules = baseline.split(",")
        jobs += [("ray-baseline" if len(modules) == 1 else f"ray-{m}", m) for m in modules]
    for cpus in cpu_list:
        runs: dict[str, list] = {}
        for _ in range(repeat):
            for label, module in jobs:
                name = f"{label}-cpus-{cpus}"
                out = work / f"{name}.json"
                env = {**os.environ, "RAYON_NUM_THREADS": "1", "RAY_USAGE_STATS_ENABLED": "0"}
                if rayon == "unset":
                    del env["RAYON_NUM_THREADS"]
                else:
                    env["RAYON_NUM_THREADS"] = rayon
                if store:
                    env["PYTHON_RAY_OBJECT_STORE_BYTES"] = store
                if blocks:
                    env["PYTHON_RAY_BLOCKS"] = blocks
                if partitions:
                    env["PYTHON_RAY_PARTITIONS"] = partitions
                if reader:
                    env["PYTHON_RAY_READER"] = reader
                if parquet:
                    env["PYTHON_RAY_PARQUET"] = parquet
                if pieces:
                    env["PYTHON_RAY_TASK_SHUFFLE_PIECES"] = pieces
                args = [sys.executable, __file__, "--task", str(cpus), corpus, str(out), module]
                seconds, _, _, stdout = measured(args, env, timeout)
                if not stdout:
                    print(json.dumps({"task": name, "timed_out": round(seconds)}), flush=True)
                    continue
                canon[name] = json.loads(out.read_text())
                runs.setdefault(name, []).append({"task": name, **json.loads(stdout)})
                print(json.dumps(runs[name][-1]), flush=True)
        for name, got in runs.items():
            if not got:
                continue
            rows.append(sorted(got, key=lambda r: r["seconds"])[len(got) // 2])

    reference = canon["cli-threads-1"]
    ok = True
    by = {r["task"]: r for r in rows}
    print("\n| task | wall s | CPU s | peak MB | pairs | clusters | same as the CLI | wall / CLI at the same cores |")
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        equal = same(canon[r["task"]], reference)
        ok &= equal
        cores = r["task"].rsplit("-", 1)[1]
        # The CLI runs at 1 and 2 threads: Ray at more CPUs has no row at the same cores.
        cli_row = by.get(f"cli-threads-{cores}")
        ratio = f"{r['seconds'] / cli_row['seconds']:.1f}×" if cli_row else "—"
        print(f"| {r['task']} | {r['seconds']:.2f} | {r['cpu_seconds']:.2f} | {r['peak_mb']:,} | {r['pairs']:,} "
              f"| {len(canon[r['task']]['clusters']):,} | {'yes' if equal else 'NO'} | {ratio} |")
    for r in rows:
        if "stages" in r:
            stages = ", ".join(f"{k} {v:.2f}" for k, v in r["stages"].items())
            init = f"ray.init {r['init_seconds']} s (not in the wall time); " if "init_seconds" in r else ""
            if "idle_mb" in r:
                init += f"{r['idle_mb']:,} MB PSS idle before the job; "
            print(f"{r['task']}: {init}stages (s): {stages}")
            cpu = ", ".join(f"{k} {v:.2f}" for k, v in r["stage_cpu"].items())
            peak = ", ".join(f"{k} {v:,}" for k, v in r["stage_peak_mb"].items())
            print(f"{r['task']}: stage CPU s: {cpu}; stage peak PSS MB: {peak}")
    import shutil

    shutil.rmtree(work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
