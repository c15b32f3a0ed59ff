#!/usr/bin/env python3
"""The figures of `scripts/bench.sh watch-history`: rounds of examples/visibility watching two
servers at once, history on and off. In an `on-first` round the server with history is
visibility's own (`this`), in an `off-first` round the other (`vs_`); rounds alternate, so that
whichever stream visibility reads first gains nothing. Each round's latencies are named by
history on or off, with its on/off ratios of p50 and p99. With `MC_BENCH_APART=1` each round
watches one server alone (`on-alone`, `off-alone`), and has no ratio of its own.

The run's figures pool every round's changes (each round's per-change latencies, written by
visibility's `--latencies`): p50 and p99 of all changes with history on and with it off, and
their ratios (`on_vs_off_p50_ratio`, `on_vs_off_p99_ratio`). A round's p99 rests on a few
hundred changes and moves with the API servers' own stalls; the pooled p99 rests on all of them.
The geometric mean of the rounds' ratios is given too (`rounds_geomean_p99_ratio`). What each
server adds to the API servers' own watch, change by change (visibility's `this_added` and
`vs_added`), is pooled the same way (`on_added_ms_p50`, `off_added_ms_p99`, ...): it leaves out
the API servers' stalls, which move a round's p99 more than anything the servers do.

Each server's revisions come from its /v1/clusters; the run fails unless the server with history
kept revisions and the other none: a run where both or neither kept history would compare
nothing.

  watch_history.py CLUSTERS_ON_JSON CLUSTERS_OFF_JSON (ORDER FIGURES LATENCIES)...
  (ORDER: on-first, off-first, on-alone or off-alone)
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


def pick(values, p):
    """The p-th percentile as visibility picks it (nearest rank of the sorted values), 0.1 ms."""
    v = sorted(values)
    return round(v[min(round(p / 100 * (len(v) - 1)), len(v) - 1)], 1)


def server(f, prefix=""):
    """One server's latencies in a round's figures (`prefix` `vs_`: the second server's)."""
    return {k: f[f"{prefix}visible_ms_{k}"] for k in ("p50", "p99", "max")} | {"missing": f[f"{prefix}changes_missing"]}


def as_side(name, latencies):
    """A server's latencies named by history `name` (on, off)."""
    return {f"{name}_{'changes_missing' if k == 'missing' else f'visible_ms_{k}'}": v for k, v in latencies.items()}


def named(f, on_is_this):
    """A round of both servers: their latencies by history on and off, and the ratios."""
    this, vs = server(f), server(f, "vs_")
    on, off = (this, vs) if on_is_this else (vs, this)
    out = {k: f[k] for k in ROUND_KEYS} | {"on_first": on_is_this} | as_side("on", on) | as_side("off", off)
    for q in ("p50", "p99"):
        out[f"on_vs_off_{q}_ratio"] = round(on[q] / off[q], 3) if off[q] else None
    return out


def alone(f, side):
    """A round of one server: its latencies, named by history on or off."""
    return {k: f[k] for k in ROUND_KEYS} | as_side(side, server(f))


def main(clusters_on, clusters_off, rounds):
    f = {"benchmark": "watch-history", "history_on_revisions": revisions(clusters_on),
         "history_off_revisions": revisions(clusters_off), "rounds": len(rounds)}
    if not f["history_on_revisions"]:
        sys.exit("watch_history.py: the server with history on kept no revision")
    if f["history_off_revisions"]:
        sys.exit(f"watch_history.py: the server with history off kept {f['history_off_revisions']} revisions")
    pooled = {"on": [], "off": []}
    added = {"on": [], "off": []}
    named_rounds = []
    for i, (order, figures, latencies) in enumerate(rounds, 1):
        first = one_line(figures)
        if i == 1:
            f |= {"rate_asked": first["rate_asked"], "clusters": first["clusters"]}
        lat = json.load(open(latencies))
        if order.endswith("-alone"):
            side = order.removesuffix("-alone")
            r = alone(first, side)
            pooled[side] += lat["this"]
            added[side] += lat.get("this_added", [])
        else:
            on_first = order == "on-first"
            r = named(first, on_first)
            named_rounds.append(r)
            pooled["on"] += lat["this" if on_first else "vs"]
            pooled["off"] += lat["vs" if on_first else "this"]
            added["on"] += lat.get("this_added" if on_first else "vs_added", [])
            added["off"] += lat.get("vs_added" if on_first else "this_added", [])
        f |= {f"round{i}_{k}": v for k, v in (r | {"order": order}).items()}
    for side, values in pooled.items():
        if not values:
            sys.exit(f"watch_history.py: no change was seen with history {side}")
        f[f"{side}_changes_seen"] = len(values)
        for q in (50, 99):
            f[f"{side}_visible_ms_p{q}"] = pick(values, q)
    if all(added.values()):
        for side, values in added.items():
            for q in (50, 99):
                f[f"{side}_added_ms_p{q}"] = pick(values, q)
    for q in ("p50", "p99"):
        off = f[f"off_visible_ms_{q}"]
        f[f"on_vs_off_{q}_ratio"] = round(f[f"on_visible_ms_{q}"] / off, 3) if off else None
        ratios = [r[f"on_vs_off_{q}_ratio"] for r in named_rounds]
        f[f"rounds_geomean_{q}_ratio"] = (
            round(math.prod(ratios) ** (1 / len(ratios)), 3) if ratios and all(ratios) else None)
    print(json.dumps(f, sort_keys=True))


if __name__ == "__main__":
    args = sys.argv[1:]
    orders = ("on-first", "off-first", "on-alone", "off-alone")
    if len(args) < 5 or (len(args) - 2) % 3 or any(o not in orders for o in args[2::3]):
        sys.exit("usage: " + " ".join(line.strip() for line in __doc__.strip().splitlines()[-2:]))
    main(args[0], args[1], [tuple(args[i:i + 3]) for i in range(2, len(args), 3)])
