#!/usr/bin/env python3
"""The figures of `scripts/bench.sh watch-history`: the visibility line (this server: history on;
`vs_`: history off) with the ratio of their p99 and p50 added, and each server's revisions from
its /v1/clusters. Fails unless the server with history kept revisions and the other kept none:
a run where both or neither kept history would compare nothing.

  watch_history.py VISIBILITY_JSON CLUSTERS_ON_JSON CLUSTERS_OFF_JSON
"""
import json
import sys


def revisions(path):
    """The revisions kept over every cluster, or None when no cluster reports any (history off)."""
    counts = [c.get("historyRevisions") for c in json.load(open(path))]
    kept = [n for n in counts if n is not None]
    return sum(kept) if kept else None


def main(visibility, on, off):
    lines = [line for line in open(visibility) if line.strip()]
    if len(lines) != 1:
        sys.exit(f"watch_history.py: expected one line of figures from visibility, got {len(lines)}")
    f = json.loads(lines[0])
    f["benchmark"] = "watch-history"
    f["history_on_revisions"] = revisions(on)
    f["history_off_revisions"] = revisions(off)
    if not f["history_on_revisions"]:
        sys.exit("watch_history.py: the server with history on kept no revision")
    if f["history_off_revisions"]:
        sys.exit(f"watch_history.py: the server with history off kept {f['history_off_revisions']} revisions")
    for q in ("p50", "p99"):
        on_ms, off_ms = f[f"visible_ms_{q}"], f[f"vs_visible_ms_{q}"]
        f[f"on_vs_off_{q}_ratio"] = round(on_ms / off_ms, 3) if off_ms else None
    print(json.dumps(f, sort_keys=True))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    main(*sys.argv[1:])
