#!/usr/bin/env python3
"""Writes one run of scripts/bench.sh as a results file, bench/results/<date>-<commit>-<mode>.json:
the mode, when, the commit (and whether the work tree had changes beside it), the machine, the
inputs and every JSON line of figures the mode printed. Prints the file's path on stdout.

  results.py --mode MODE --figures FILE [--input KEY=VALUE]... [--started ISO] [--load-at-start "L1 L5 L15"]
             [--command TEXT] [--out DIR]

FILE holds the lines the mode printed on stdout (one JSON object a line). An input VALUE that
reads as a number is stored as one.
"""
import argparse
import datetime
import json
import math
import os
import pathlib
import platform
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def meminfo_kib():
    """MemTotal from /proc/meminfo, in KiB."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1])
    return 0


def cpu_model():
    """The first `model name` of /proc/cpuinfo (the processor, as the kernel names it)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cores():
    """The cores this process may run on, as nproc counts them."""
    return len(os.sched_getaffinity(0))


def machine_summary():
    """As the sync bench has always printed it: "2 cores, 23 GiB" (GiB rounded down, as free -g)."""
    return f"{cores()} cores, {meminfo_kib() // (1024 * 1024)} GiB"


def machine(load_at_start=None):
    out = {
        "cores": cores(),
        "memory_kib": meminfo_kib(),
        "memory_gib": round(meminfo_kib() / (1024 * 1024), 1),
        "kernel": platform.release(),
        "cpu_model": cpu_model(),
    }
    if load_at_start:
        # Others' work on the same cores moves the figures: the load when the run began.
        out["load_average_at_start"] = [float(x) for x in load_at_start.split()[:3]]
    return out


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()


def commit():
    """The commit checked out, and the files that differed from it (the build includes them)."""
    changed = [line for line in git("status", "--porcelain").splitlines() if line[3:].split("/")[0] != "bench"]
    return {
        "commit": git("rev-parse", "--short=7", "HEAD") or "unknown",
        "commit_full": git("rev-parse", "HEAD") or "unknown",
        "worktree_clean": not changed,
        "worktree_changed_files": len(changed),
    }


def parse_value(text):
    """An input as given on the command line: a number when it reads as one."""
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if not (isinstance(value, float) and not math.isfinite(value)):
            return value
    return text


def read_figures(path):
    """Every JSON object line the mode printed; any other line is kept as text."""
    figures = []
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip():
            continue
        try:
            figures.append(json.loads(line))
        except json.JSONDecodeError:
            figures.append({"text": line})
    return figures


def results_path(out_dir, date, short_commit, mode):
    """<date>-<commit>-<mode>.json, or -2, -3, … after it when that run's file already exists."""
    path = out_dir / f"{date}-{short_commit}-{mode}.json"
    n = 2
    while path.exists():
        path = out_dir / f"{date}-{short_commit}-{mode}-{n}.json"
        n += 1
    return path


def write_results(mode, figures, inputs, out_dir, started=None, load_at_start=None, command=None):
    finished = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    doc = {
        "mode": mode,
        "date": finished.date().isoformat(),
        "started_at": started or finished.isoformat().replace("+00:00", "Z"),
        "finished_at": finished.isoformat().replace("+00:00", "Z"),
        **commit(),
        "command": command or f"scripts/bench.sh {mode}",
        "machine": machine(load_at_start),
        "inputs": inputs,
        "figures": figures,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = results_path(out_dir, doc["date"], doc["commit"], mode)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", required=True)
    ap.add_argument("--figures", required=True, help="the lines the mode printed on stdout")
    ap.add_argument("--input", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--started", help="when the run began (ISO 8601, UTC)")
    ap.add_argument("--load-at-start", help="/proc/loadavg's first three fields when the run began")
    ap.add_argument("--command", help="the command line of the run")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    inputs = {}
    for item in args.input:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--input {item}: KEY=VALUE expected")
        if value != "":
            inputs[key] = parse_value(value)
    figures = read_figures(args.figures)
    if not figures:
        print("results.py: the run printed no figures; no results file written", file=sys.stderr)
        return 1
    path = write_results(args.mode, figures, inputs, pathlib.Path(args.out), args.started, args.load_at_start,
                         args.command)
    try:
        print(path.relative_to(ROOT))
    except ValueError:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
