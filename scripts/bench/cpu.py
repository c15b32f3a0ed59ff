#!/usr/bin/env python3
"""Core-seconds used between two CPU snapshots of scripts/bench.sh (`cpu_snapshot`: the whole
machine's busy ticks, the API servers' ticks, the databases' ticks), and the mc-server's ticks
over its whole life. Prints one JSON object:
{"busy": …, "apiserver": …, "database": …, "mc_server": …} (core-seconds, 2 decimals).

  cpu.py "BUSY APISERVER DATABASE" "BUSY APISERVER DATABASE" [MC_SERVER_TICKS]
"""
import json
import os
import sys

PARTS = ("busy", "apiserver", "database")


def core_seconds(before, after, mc_server_ticks=0, hz=None):
    """Ticks used between the two snapshots (and the mc-server's), in core-seconds."""
    hz = hz or os.sysconf("SC_CLK_TCK")
    a = [int(x) for x in before.split()]
    b = [int(x) for x in after.split()]
    out = {k: round((y - x) / hz, 2) for k, x, y in zip(PARTS, a, b)}
    out["mc_server"] = round(mc_server_ticks / hz, 2)
    return out


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mc = int(argv[2]) if len(argv) == 3 else 0
    print(json.dumps(core_seconds(argv[0], argv[1], mc)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
