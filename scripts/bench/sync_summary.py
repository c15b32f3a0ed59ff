#!/usr/bin/env python3
"""The `sync` bench's line of figures, from what scripts/bench.sh measured run by run: the raw
LIST's and each backend's seconds from start to /readyz, their medians and ratios, RSS (KiB in,
MiB out), the queries' latencies and the CPU each used (see cpu.py).

  sync_summary.py --clusters N --per-cluster N --payload P --objects N --load-seconds S
                  --idle-rss-kib K --raw S... --sqlite S... --postgres S... --mariadb S...
                  --ready-rss-kib K... --peak-rss-kib K... --settled-rss-kib K...
                  --raw-cpu JSON... --sqlite-cpu JSON... --postgres-cpu JSON... --mariadb-cpu JSON...
                  --filtered JSON --full JSON
                  [--vs-build PATH --vs-sqlite S... --vs-postgres S... --vs-mariadb S...]
"""
import argparse
import json
import statistics
import sys

from results import machine_summary

med = statistics.median


def mib(kib):
    return round(kib / 1024, 1)


def cpu_summary(cpu, raw_seconds):
    """Core-seconds from start to /readyz (the raw LIST: while it ran), per run. On a machine whose
    cores the raw LIST keeps busy, a sync that needs k times its CPU takes about k times as long:
    busy_vs_raw is that floor of the time ratio, database_vs_raw the part of it the database
    alone adds (the ratio could not go below 1 + it even if mc-server and the API servers cost
    nothing more than for the raw LIST)."""
    raw_busy = med([c["busy"] for c in cpu["raw_list"]])
    return {"raw_list_cores_busy": round(raw_busy / med(raw_seconds), 2)} | {
        f"{b}_{what}": round(med([c[k] for c in cpu[b]]) / raw_busy, 2)
        for b in ("sqlite", "postgres", "mariadb")
        for what, k in (("busy_vs_raw", "busy"), ("database_vs_raw", "database"))
        if b != "sqlite" or k == "busy"}


def vs_figures(a):
    """The other build's seconds (MC_BENCH_VS) and this build's medians over its."""
    if not a.vs_sqlite:
        return {}
    return {
        "vs_build": a.vs_build, "vs_sqlite_ready_seconds": a.vs_sqlite, "vs_postgres_ready_seconds": a.vs_postgres,
        "sqlite_ready_vs_build": round(med(a.sqlite) / med(a.vs_sqlite), 2),
        "postgres_ready_vs_build": round(med(a.postgres) / med(a.vs_postgres), 2),
        "vs_mariadb_ready_seconds": a.vs_mariadb, "mariadb_ready_vs_build": round(med(a.mariadb) / med(a.vs_mariadb), 2),
    }


def summary(a):
    raw, sqlite, pg, my = a.raw, a.sqlite, a.postgres, a.mariadb
    ready, peak, settled = a.ready_rss_kib, a.peak_rss_kib, a.settled_rss_kib
    objects, idle = a.objects, a.idle_rss_kib
    cpu = {"raw_list": a.raw_cpu, "sqlite": a.sqlite_cpu, "postgres": a.postgres_cpu, "mariadb": a.mariadb_cpu}
    return {
        "benchmark": "sync", "machine": machine_summary(),
        "clusters": a.clusters, "configmaps_per_cluster": a.per_cluster, "payload": a.payload, "objects_stored": objects,
        "load_seconds": a.load_seconds, "runs": len(raw),
        "raw_list_seconds": raw, "sqlite_ready_seconds": sqlite, "postgres_ready_seconds": pg,
        "mariadb_ready_seconds": my,
        "raw_list_median": med(raw), "sqlite_ready_median": med(sqlite), "postgres_ready_median": med(pg),
        "mariadb_ready_median": med(my),
        "sqlite_vs_raw": round(med(sqlite) / med(raw), 2), "postgres_vs_raw": round(med(pg) / med(raw), 2),
        "mariadb_vs_raw": round(med(my) / med(raw), 2),
        "idle_rss_mib": mib(idle), "ready_rss_mib": [mib(r) for r in ready],
        "peak_rss_mib": [mib(p) for p in peak], "settled_rss_mib": [mib(s) for s in settled],
        "peak_vs_settled": [round(p / s, 2) for p, s in zip(peak, settled)],
        "settled_rss_bytes_per_object": round((med(settled) - idle) * 1024 / max(objects, 1), 1),
        "filtered_query_ms_p50": a.filtered["p50"], "filtered_query_ms_p99": a.filtered["p99"],
        "full_list_ms_p50": a.full["p50"], "full_list_ms_p99": a.full["p99"],
        "cpu_core_seconds": cpu, **cpu_summary(cpu, raw), **vs_figures(a),
    }


def parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, kind in (("clusters", int), ("per-cluster", int), ("objects", int), ("idle-rss-kib", int),
                       ("load-seconds", float), ("payload", str), ("filtered", json.loads), ("full", json.loads)):
        ap.add_argument(f"--{name}", type=kind, required=True)
    for name, kind in (("raw", float), ("sqlite", float), ("postgres", float), ("mariadb", float),
                       ("ready-rss-kib", int), ("peak-rss-kib", int), ("settled-rss-kib", int),
                       ("raw-cpu", json.loads), ("sqlite-cpu", json.loads), ("postgres-cpu", json.loads),
                       ("mariadb-cpu", json.loads)):
        ap.add_argument(f"--{name}", type=kind, nargs="+", required=True)
    ap.add_argument("--vs-build", default="")
    for name in ("vs-sqlite", "vs-postgres", "vs-mariadb"):
        ap.add_argument(f"--{name}", type=float, nargs="*", default=[])
    return ap


def main(argv=None):
    print(json.dumps(summary(parser().parse_args(argv))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
