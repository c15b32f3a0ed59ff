#!/usr/bin/env python3
"""The `replicas` bench's figures.

  replicas.py measure SECONDS LEASES_BEFORE LEASES_AFTER "RSS_KIB SOCKETS TICKS_BEFORE TICKS_AFTER"...
      one JSON object for one set of replicas measured over SECONDS: each replica's RSS (MiB,
      rounded down), sockets and idle CPU (% of a core), and the Lease requests per second the
      master's API server answered meanwhile
  replicas.py summary CLUSTERS ONE_REPLICA_JSON THREE_REPLICAS_JSON
      the line the bench prints
"""
import json
import os
import sys


def measure(seconds, leases_before, leases_after, processes, hz=None):
    hz = hz or os.sysconf("SC_CLK_TCK")
    replicas = []
    for p in processes:
        rss_kib, sockets, t0, t1 = (int(x) for x in p.split())
        replicas.append({"rss_mib": rss_kib // 1024, "sockets": sockets,
                         "idle_cpu_pct": round((t1 - t0) * 100 / hz / seconds, 2)})
    return {"replicas": replicas, "lease_requests_per_s": round((leases_after - leases_before) / seconds, 2)}


def main(argv):
    if len(argv) >= 5 and argv[0] == "measure":
        seconds, before, after = int(argv[1]), float(argv[2]), float(argv[3])
        print(json.dumps(measure(seconds, before, after, argv[4:])))
    elif len(argv) == 4 and argv[0] == "summary":
        print(json.dumps({"clusters": int(argv[1]), "one_replica": json.loads(argv[2]),
                          "three_replicas": json.loads(argv[3])}))
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
