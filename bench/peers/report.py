"""Markdown tables from bench/peers.sh's results.tsv: one table per number of MinHash values, then
lookalike's lead over each peer as ratios from the same run.

    report.py RESULTS_TSV DOCS TEXT_MB
"""

import csv
import sys


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    path, docs, mb = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    perms = []
    for r in rows:
        if r["perm"] not in perms:
            perms.append(r["perm"])
    for perm in perms:
        rs = [r for r in rows if r["perm"] == perm]
        print(f"### {perm} MinHash values, threshold 0.8, word 5-shingles")
        print()
        print(
            "| tool | threads | pairs reported | LSH bands×rows | docs | MB | wall s | docs/s | MB/s | CPU s "
            "| peak RSS MB | peak RSS MB, all processes | precision | recall@0.8 | recall@0.85 | F1 | pairs | load |"
        )
        print("|" + "---|" * 18)
        for r in rs:
            if r["status"] != "ok":
                print(
                    f"| {r['tool']} | {r['threads']} | {r['output']} | {r['lsh']} | {docs} | {mb:.1f} "
                    f"| {r['wall_s']} | | | {r['cpu_s']} | {r['rss_mb']} | {r['rss_tree_mb']} | {r['status']} | | | | | {r['load']} |"
                )
                continue
            wall = num(r["wall_s"])
            print(
                f"| {r['tool']} | {r['threads']} | {r['output']} | {r['lsh']} | {docs} | {mb:.1f} "
                f"| {fmt(wall, '.2f')} | {fmt(docs / wall if wall else None, '.0f')} "
                f"| {fmt(mb / wall if wall else None, '.2f')} | {r['cpu_s']} | {r['rss_mb']} | {r['rss_tree_mb']} "
                f"| {r['precision']} | {r['recall']} | {r['recall_margin']} | {r['f1']} | {r['pairs']} | {r['load']} |"
            )
        print()
        # Lead: lookalike (--verify exact) against each peer output at the same thread count.
        ref = {
            r["threads"]: r
            for r in rs
            if r["tool"] == "lookalike" and r["output"] == "verified (exact)" and r["status"] == "ok"
        }
        peers = [r for r in rs if r["tool"] != "lookalike" and r["status"] == "ok"]
        if not ref or not peers:
            continue
        print(f"#### lookalike's lead, {perm} values (lookalike `--verify exact` at the same thread count)")
        print()
        print(
            "| peer | threads | pairs reported | MB/s: lookalike ÷ peer | CPU s: peer ÷ lookalike "
            "| peak RSS (all processes): peer ÷ lookalike "
            "| recall@0.8: lookalike − peer | precision: lookalike − peer | F1: lookalike − peer |"
        )
        print("|" + "---|" * 9)
        for r in peers:
            l = ref.get(r["threads"])
            if l is None:
                continue
            speed = num(r["wall_s"]) / num(l["wall_s"])
            cpu = num(r["cpu_s"]) / num(l["cpu_s"]) if num(l["cpu_s"]) else None
            rss = num(r["rss_tree_mb"]) / num(l["rss_tree_mb"]) if num(l["rss_tree_mb"]) else None

            def diff(k):
                a, b = num(l[k]), num(r[k])
                return "-" if a is None or b is None else f"{a - b:+.4f}"

            print(
                f"| {r['tool']} | {r['threads']} | {r['output']} | {speed:.1f}× | {fmt(cpu, '.1f')}× | {fmt(rss, '.1f')}× "
                f"| {diff('recall')} | {diff('precision')} | {diff('f1')} |"
            )
        print()


if __name__ == "__main__":
    main()
