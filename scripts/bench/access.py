#!/usr/bin/env python3
"""The `access` bench: a list of every pod through mc-server's Kubernetes API for a caller whose
rights come from the member clusters' RBAC (a ServiceAccount token of the master, reviewed by
it), against the same list for the admin token, which reads everything: medians of alternating
runs, and how many TokenReviews the caller's token cost. Prints one JSON object.

  access.py URL ADMIN_TOKEN CALLER_TOKEN RUNS
"""
import json
import statistics
import sys
import time
import urllib.request


def get(url, token):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=120) as resp:
        return resp.read()


def timed_list(url, token):
    t0 = time.monotonic()
    body = get(f"{url}/api/v1/pods", token)
    seconds = time.monotonic() - t0
    return seconds, len(json.loads(body)["items"])


def reviews(url, admin):
    for line in get(f"{url}/metrics", admin).decode().splitlines():
        if line.startswith("mc_token_reviews_total "):
            return int(float(line.split()[1]))
    return 0


def figures(url, admin, caller, runs):
    before = reviews(url, admin)
    admin_s, caller_s = [], []
    admin_items = caller_items = 0
    for _ in range(runs):
        s, admin_items = timed_list(url, admin)
        admin_s.append(s)
        s, caller_items = timed_list(url, caller)
        caller_s.append(s)
    spent = reviews(url, admin) - before
    admin_median, caller_median = statistics.median(admin_s), statistics.median(caller_s)
    return {
        "benchmark": "access",
        "runs": runs,
        "admin_items": admin_items,
        "caller_items": caller_items,
        "admin_list_seconds": [round(s, 4) for s in admin_s],
        "caller_list_seconds": [round(s, 4) for s in caller_s],
        "admin_list_median": round(admin_median, 4),
        "caller_list_median": round(caller_median, 4),
        "caller_vs_admin": round(caller_median / admin_median, 2),
        "token_reviews_for_caller": spent,
    }


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    url, admin, caller, runs = argv[0], argv[1], argv[2], int(argv[3])
    print(json.dumps(figures(url, admin, caller, runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
