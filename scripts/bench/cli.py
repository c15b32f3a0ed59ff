#!/usr/bin/env python3
"""The `cli` bench: `kubectl multicluster list v1/pods` over every pod of the fleet against
plain kubectl listing the pods of one cluster (a third of them), median of 5 runs each after
one warm-up, in the same run. Prints one JSON object of figures.

  cli.py PLUGIN SERVER_URL PODS_STORED KUBECTL KUBECONFIG
"""
import json
import resource
import statistics
import subprocess
import sys
import time

TARGET_RATIO = 0.2


def timed(cmd, runs=5):
    """Median wall time in ms of `runs` runs after one warm-up, and the rows printed."""
    subprocess.run(cmd, capture_output=True, check=True)
    times, rows = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, check=True)
        times.append((time.perf_counter() - t) * 1000)
        rows = out.stdout.count(b"\n") - 1
    return statistics.median(times), rows


def bench(cli, server, n, kubectl, kubeconfig):
    fleet_ms, fleet_rows = timed([cli, "list", "v1/pods", "--server", server])
    # The plugin's runs are the only children so far: their peak RSS.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    third_ms, third_rows = timed([kubectl, "--kubeconfig", kubeconfig, "get", "pods", "-A"])
    return {"benchmark": "cli", "pods_stored": n,
            "plugin_rows": fleet_rows, "plugin_ms_p50": round(fleet_ms, 1),
            "kubectl_rows_one_cluster": third_rows, "kubectl_ms_p50": round(third_ms, 1),
            "ratio_plugin_to_kubectl": round(fleet_ms / third_ms, 3), "target_ratio": TARGET_RATIO,
            "peak_rss_mib": round(peak / 1024, 1)}


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cli, server, n, kubectl, kubeconfig = argv
    print(json.dumps(bench(cli, server, int(n), kubectl, kubeconfig)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
