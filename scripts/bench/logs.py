#!/usr/bin/env python3
"""The `logs` bench: a pod's log of MB megabytes (CRI lines, served by kwok from a file) read
through mc-server's Kubernetes API, against the same read straight from the member's API
server; mc-server's RSS idle and its peak during each read (VmRSS sampled every 10 ms).

  logs.py write FILE MB
  logs.py measure URL TOKEN SERVER_PID MEMBER_URL MEMBER_TOKEN MEMBER_CA NAMESPACE POD RUNS

`measure` prints one JSON object.
"""
import json
import ssl
import statistics
import sys
import threading
import time
import urllib.request

CHUNK = 64 * 1024


def write(path, mb):
    line = "2026-01-01T00:00:00.000000000Z stdout F " + "x" * 160 + "\n"
    n = mb * 1_000_000 // len(line)
    with open(path, "w") as f:
        block = line * 1000
        for _ in range(n // 1000):
            f.write(block)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def read(url, token, context=None):
    """Reads the whole answer in chunks; its size and the seconds it took."""
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    t0 = time.monotonic()
    size = 0
    with urllib.request.urlopen(req, timeout=300, context=context) as resp:
        while chunk := resp.read(CHUNK):
            size += len(chunk)
    return size, time.monotonic() - t0


def measure(url, token, pid, member, member_token, ca, ns, pod, runs):
    path = f"/api/v1/namespaces/{ns}/pods/{pod}/log"
    context = ssl.create_default_context(cafile=ca)
    time.sleep(2)
    idle = rss_kib(pid)
    through, direct, peaks = [], [], []
    size = member_size = 0
    for _ in range(runs):
        peak = [idle]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], rss_kib(pid))
                time.sleep(0.01)

        sampler = threading.Thread(target=sample)
        sampler.start()
        size, seconds = read(url + path, token)
        done.set()
        sampler.join()
        through.append(seconds)
        peaks.append(peak[0])
        member_size, seconds = read(member + path, member_token, context)
        direct.append(seconds)
    through_median, direct_median = statistics.median(through), statistics.median(direct)
    return {
        "benchmark": "logs",
        "runs": runs,
        "bytes": size,
        "member_bytes": member_size,
        "through_seconds": [round(s, 3) for s in through],
        "member_seconds": [round(s, 3) for s in direct],
        "through_median": round(through_median, 3),
        "member_median": round(direct_median, 3),
        "through_vs_member": round(through_median / direct_median, 2),
        "through_mb_per_s": round(size / 1e6 / through_median, 1),
        "idle_rss_kib": idle,
        "peak_rss_kib": peaks,
        "peak_above_idle_mib": round((max(peaks) - idle) / 1024, 1),
    }


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]))
    else:
        url, token, pid, member, member_token, ca, ns, pod, runs = sys.argv[2:11]
        member_token = open(member_token).read().strip()
        print(json.dumps(measure(url, token, int(pid), member, member_token, ca, ns, pod, int(runs))))
