"""Runs a command and samples its whole process tree every 0.1 s: the summed resident memory, and
the CPU time of the tree. Writes the peak memory in MiB to OUT, the tree's CPU seconds to
OUT.tree_cpu and the sampler's own CPU seconds to OUT.self_cpu.

For tools that fork workers (text-dedup, datatrove), GNU time's "maximum resident set size" is
that of the largest single process, not of all of them, and its CPU times miss workers that are
not waited for by the command itself (datatrove's forkserver workers).

The tree's CPU time at a sample is the sum, over its live processes, of their own user + system
time and that of their reaped children (cutime + cstime): every process that ran counts once, in
itself while it lives, then in the process that reaped it. The largest sample is kept (up to
0.1 s of the end can be missed; bench/peers.sh takes the larger of this and GNU time's figure).

    memsample.py OUT [--timeout SECONDS] -- COMMAND [ARGS...]

With --timeout, the whole process tree is killed after SECONDS and the exit status is 124.
"""

import os
import signal
import subprocess
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


def sample(root):
    """(summed RSS bytes, CPU seconds) of the process tree under `root`."""
    children = {}
    cpu_of = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat.rsplit(b")", 1)[1].split()
        pid = int(name)
        children.setdefault(int(rest[1]), []).append(pid)
        cpu_of[pid] = sum(int(x) for x in rest[11:15]) / TICK
    rss, cpu, todo = 0, 0.0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm") as f:
                rss += int(f.read().split()[1]) * PAGE
        except OSError:
            pass
        cpu += cpu_of.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return rss, cpu


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    limit = None
    if args[0] == "--timeout":
        limit = float(args[1])
        args = args[2:]
    assert args[0] == "--"
    start = time.monotonic()
    proc = subprocess.Popen(args[1:], start_new_session=True)
    peak = 0
    cpu = 0.0
    timed_out = False
    while proc.poll() is None:
        r, c = sample(proc.pid)
        peak, cpu = max(peak, r), max(cpu, c)
        if limit is not None and time.monotonic() - start > limit:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            break
        time.sleep(0.1)
    with open(out, "w") as f:
        f.write("%.0f\n" % (peak / 1048576))
    with open(out + ".tree_cpu", "w") as f:
        f.write("%.3f\n" % cpu)
    me = os.times()  # the sampler's own CPU time, which GNU time counts with the run's
    with open(out + ".self_cpu", "w") as f:
        f.write("%.3f\n" % (me.user + me.system))
    sys.exit(124 if timed_out else proc.returncode)


if __name__ == "__main__":
    main()
