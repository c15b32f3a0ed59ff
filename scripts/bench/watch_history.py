#!/usr/bin/env python3
"""The figures of `scripts/bench.sh watch-history`: two rounds of examples/visibility watching
two servers at once, history on and off; in the first the server with history is visibility's
own (`this`), in the second the other (`vs_`). Each round's latencies are named by history on or
off, and the on/off ratios of p50 and p99 are given per round and as the geometric mean of the
two (whichever stream visibility reads first gains nothing then). Each server's revisions come
from its /v1/clusters; the run fails unless the server with history kept revisions and the
other none: a run where both or neither kept history would compare nothing.

  watch_history.py ON_FIRST_JSON OFF_FIRST_JSON CLUSTERS_ON_JSON CLUSTERS_OFF_JSON
"""
import json
import math
import sys

ROUND_KEYS = ("rate_reached", "changes_sent", "apiserver_watch_ms_p99")


def revisions(path):
    """The revisions kept over every cluster, or None when no cluster reports any (history off)."""
    counts = [c.get("historyRevisions") for c in json.load(open(path))]
    kept = [n for n in counts if n is not None]
    return sum(kept) if kept else None


def one_line(path):
    lines = [line for line in open(path) if line.strip()]
    if len(lines) != 1:
        sys.exit(f"watch_history.py: expected one line of figures from visibility in {path}, got {len(lines)}")
    return json.loads(lines[0])


def named(f, on_is_this):
    """A round's latencies by history on and off."""
    this = {k: f[f"visible_ms_{k}"] for k in ("p50", "p99", "max")} | {"missing": f["changes_missing"]}
    vs = {k: f[f"vs_visible_ms_{k}"] for k in ("p50", "p99", "max")} | {"missing": f["vs_changes_missing"]}
    on, off = (this, vs) if on_is_this else (vs, this)
    out = {k: f[k] for k in ROUND_KEYS}
    for name, side in (("on", on), ("off", off)):
        for k, v in side.items():
            out[f"{name}_{'changes_missing' if k == 'missing' else f'visible_ms_{k}'}"] = v
    for q in ("p50", "p99"):
        out[f"on_vs_off_{q}_ratio"] = round(on[q] / off[q], 3) if off[q] else None
    return out


def main(on_first, off_first, clusters_on, clusters_off):
    first, second = one_line(on_first), one_line(off_first)
    rounds = [named(first, True), named(second, False)]
    f = {"benchmark": "watch-history", "rate_asked": first["rate_asked"], "clusters": first["clusters"],
         "history_on_revisions": revisions(clusters_on), "history_off_revisions": revisions(clusters_off)}
    if not f["history_on_revisions"]:
        sys.exit("watch_history.py: the server with history on kept no revision")
    if f["history_off_revisions"]:
        sys.exit(f"watch_history.py: the server with history off kept {f['history_off_revisions']} revisions")
    for i, r in enumerate(rounds, 1):
        f |= {f"round{i}_{k}": v for k, v in r.items()}
    for q in ("p50", "p99"):
        ratios = [r[f"on_vs_off_{q}_ratio"] for r in rounds]
        f[f"on_vs_off_{q}_ratio"] = round(math.sqrt(ratios[0] * ratios[1]), 3) if all(ratios) else None
    print(json.dumps(f, sort_keys=True))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    main(*sys.argv[1:])
