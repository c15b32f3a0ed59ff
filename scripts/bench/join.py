#!/usr/bin/env python3
"""The `join` bench's figures from its three timestamps (`date +%s.%N`): the join request sent
(T0), answered (T1), and every ConfigMap of the joining cluster listed (T2). Prints one JSON object.

  join.py OBJECTS T0 T1 T2
"""
import json
import sys


def figures(objects, t0, t1, t2):
    return {"benchmark": "join", "objects_in_cluster": objects,
            "join_answered_seconds": round(t1 - t0, 3), "join_to_synced_seconds": round(t2 - t0, 3)}


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print(json.dumps(figures(int(argv[0]), *(float(t) for t in argv[1:]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
