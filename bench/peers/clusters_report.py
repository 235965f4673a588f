"""The tables of bench/clusters.sh: every run's clusters and pairs as scored by `lookalike eval
--json`, with the run's time and memory, and the structure of the gold relation.

    clusters_report.py RUNS.tsv CLUSTERS_EVAL.json PAIRS_EVAL.json GOLD.json

RUNS.tsv (written by clusters.sh): name, tool, clusters_from, status, wall_s, cpu_s, rss_mb,
load, uf_s. Markdown to stdout.
"""

import csv
import json
import sys


def f4(x):
    return "-" if x is None else "%.4f" % x


def main():
    runs_path, cl_path, pr_path, gold_path = sys.argv[1:5]
    with open(runs_path, encoding="utf-8") as f:
        runs = list(csv.DictReader(f, delimiter="\t"))
    scored = {}
    pair_scores = {}
    for path, into in ((cl_path, scored), (pr_path, pair_scores)):
        try:
            with open(path, encoding="utf-8") as f:
                for r in json.load(f)["results"]:
                    into[r["name"]] = r
        except (OSError, ValueError):
            pass
    with open(gold_path, encoding="utf-8") as f:
        gold = json.load(f)

    print("### Clusters against the exact truth (cluster-implied pairs)")
    print()
    print(
        "| run | clusters from | wall s | CPU s | peak RSS MB | load | union-find s | implied pairs | true "
        "| precision | recall | F1 | ARI | clusters | clustered docs | largest |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for run in runs:
        s = scored.get(run["name"])
        if run["status"] != "ok" or s is None:
            status = run["status"] if run["status"] != "ok" else "not scored"
            print(
                "| %s | %s | %s | %s | %s | %s | %s | %s | | | | | | | | |"
                % (run["name"], run["clusters_from"], run["wall_s"], run["cpu_s"], run["rss_mb"], run["load"], run["uf_s"], status)
            )
            continue
        c = s["clusters"]
        print(
            "| %s | %s | %s | %s | %s | %s | %s | %d | %d | %s | %s | %s | %s | %d | %d | %d |"
            % (
                run["name"],
                run["clusters_from"],
                run["wall_s"],
                run["cpu_s"],
                run["rss_mb"],
                run["load"],
                run["uf_s"],
                s["found"],
                s["true_positives"],
                f4(s["precision"]),
                f4(s["recall"]),
                f4(s["f1"]),
                f4(s["ari"]),
                c["clusters"],
                c["clustered_docs"],
                c["max"] or 0,
            )
        )
    print()
    print("### The pairs the clusters were made from, scored as pairs")
    print()
    print("| pairs of | pairs | true | precision | recall | F1 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, s in pair_scores.items():
        print(
            "| %s | %d | %d | %s | %s | %s |"
            % (name, s["found"], s["true_positives"], f4(s["precision"]), f4(s["recall"]), f4(s["f1"]))
        )
    print()
    print("### The gold relation")
    print()
    print(
        "%d gold pairs (exact Jaccard ≥ %g) among %d documents, in %d connected components. The largest:"
        % (gold["gold_pairs"], gold["threshold"], gold["docs_in_components"], gold["components"])
    )
    print()
    print("| documents | gold pairs inside | share of all gold pairs | pair density | most common folder (documents) |")
    print("|---:|---:|---:|---:|---|")
    for c in gold["largest"]:
        folder = "`%s` (%d)" % (c["folder"], c["in_folder"]) if c["folder"] else "- (ids are not paths)"
        print(
            "| %d | %d | %.3f | %.3f | %s |"
            % (c["size"], c["gold_pairs"], c["gold_pairs"] / gold["gold_pairs"], c["density"], folder)
        )


if __name__ == "__main__":
    main()
