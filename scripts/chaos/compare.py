#!/usr/bin/env python3
"""Store == clusters? Compares one namespace's ConfigMaps, object for object (name and
resourceVersion), between the clusters (read with kubectl) and mc-server's store (read through
its API).

  compare.py --kubectl BIN --clusters DIR --names a,b,c --namespace NS --server URL --token T
             [--ca FILE]

FILE: the CA of an https:// server (mc-server's own: <data-dir>/tls/ca.crt).

Prints {"objects": N, "lost": L, "stale": S, "extra": E, "details": [...]} (details: at most 5).
"""
import argparse
import json
import ssl
import subprocess
import sys
import urllib.request


def cluster_objects(kubectl, kubeconfig, namespace):
    out = subprocess.run(
        [kubectl, "--kubeconfig", kubeconfig, "get", "--raw", f"/api/v1/namespaces/{namespace}/configmaps"],
        check=True, capture_output=True, text=True,
    ).stdout
    return {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in json.loads(out)["items"]}


def store_objects(server, token, namespace, ca):
    req = urllib.request.Request(
        f"{server}/v1/list_with_cluster?gvr=v1/configmaps&namespace={namespace}&limit=0",
        headers={"Authorization": f"Bearer {token}"},
    )
    context = ssl.create_default_context(cafile=ca) if ca else None
    with urllib.request.urlopen(req, timeout=30, context=context) as r:
        items = json.load(r)
    out = {}
    for i in items:
        meta = i["Object"]["metadata"]
        out[(i["clusterName"], meta["name"])] = meta["resourceVersion"]
    return out


def main():
    p = argparse.ArgumentParser()
    for a in ("--kubectl", "--clusters", "--names", "--namespace", "--server", "--token"):
        p.add_argument(a, required=True)
    p.add_argument("--ca")
    a = p.parse_args()
    want = {}
    for name in a.names.split(","):
        for obj, rv in cluster_objects(a.kubectl, f"{a.clusters}/{name}.kubeconfig", a.namespace).items():
            want[(name, obj)] = rv
    have = store_objects(a.server, a.token, a.namespace, a.ca)
    lost = [k for k in want if k not in have]
    stale = [k for k in want if k in have and have[k] != want[k]]
    extra = [k for k in have if k not in want]
    details = [f"lost {c}/{n}" for c, n in lost[:5]] + [f"stale {c}/{n}" for c, n in stale[:5]] + [f"extra {c}/{n}" for c, n in extra[:5]]
    print(json.dumps({"objects": len(want), "lost": len(lost), "stale": len(stale), "extra": len(extra), "details": details[:5]}))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # an unreachable server or cluster is "not converged yet"
        print(json.dumps({"error": str(e).splitlines()[0] if str(e) else type(e).__name__}))
        sys.exit(1)
