#!/usr/bin/env python3
"""p50 and p99, in ms, of COUNT GETs to the URLs in turn, with the bearer token in MC_TOKEN.
Prints {"p50": …, "p99": …}.

  latency.py "URL [URL…]" COUNT
"""
import json
import os
import sys
import time
import urllib.request


def timed_gets(urls, count, token):
    """Wall time in ms of each of COUNT GETs, sorted."""
    times = []
    for i in range(count):
        url = urls[i % len(urls)]
        t = time.perf_counter()
        req = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
        with urllib.request.urlopen(req) as r:
            r.read()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return times


def pick(times, p):
    """The p-th percentile of sorted times, nearest rank, 2 decimals."""
    return round(times[min(len(times) - 1, round(p / 100 * (len(times) - 1)))], 2)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    times = timed_gets(argv[0].split(" "), int(argv[1]), os.environ["MC_TOKEN"])
    print(json.dumps({"p50": pick(times, 50), "p99": pick(times, 99)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
