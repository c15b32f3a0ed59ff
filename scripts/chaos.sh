#!/usr/bin/env bash
# Chaos: faults injected while a churn generator creates, updates and deletes ConfigMaps (poison
# objects among them) across three real clusters; after each scenario the store must equal the
# clusters object for object (name and resourceVersion) within 60 s of the fault ending.
#
#   scripts/chaos.sh [--short] [--kills N] [--scenarios kill9,apiserver,mariadb,postgres]
#                    [--clusters DIR] [--db DIR]
#
# Without --clusters/--db it brings up its own (and tears them down). Prints one JSON line per
# scenario: {"scenario", "backend", "faults", "churn_ops", "objects", "lost", "stale", "extra",
# "converge_seconds"}; exits non-zero when any scenario did not converge.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source scripts/lib.sh

SCENARIOS=kill9,apiserver,mariadb,postgres KILLS=10 CHURN_SECONDS=40 RATE=40 CLUSTERS_DIR="" DB_DIR=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --short) KILLS=2 CHURN_SECONDS=20 ; shift ;;
    --kills) KILLS=$2; shift 2 ;;
    --scenarios) SCENARIOS=$2; shift 2 ;;
    --clusters) CLUSTERS_DIR=$2; shift 2 ;;
    --db) DB_DIR=$2; shift 2 ;;
    *) fail "unknown option $1" ;;
  esac
done

TARGET=${CARGO_TARGET_DIR:-$ROOT/target}/debug
SERVER=${MC_SERVER_BIN:-$TARGET/mc-server}
CHURN=$TARGET/examples/churn
if [[ ! -x $SERVER || ! -x $CHURN ]]; then
  cargo build -q -p mc-server --all-features --bin mc-server --example churn >&2
fi
BIN=$(scripts/testenv bin)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mc-chaos.XXXXXX")
chmod 755 "$WORK" # the postgres user must reach the database directory (without --db)
OWN_CLUSTERS="" OWN_DB=""
SERVER_PID=""
# shellcheck disable=SC2317 # run by the trap below (shellcheck 0.9 misses it here)
cleanup() {
  local rc=$?
  [[ -z $SERVER_PID ]] || kill -9 "$SERVER_PID" 2>/dev/null || true
  [[ -z $OWN_CLUSTERS ]] || scripts/testenv down --dir "$CLUSTERS_DIR" >&2 || true
  [[ -z $OWN_DB ]] || scripts/testdb down --dir "$DB_DIR" >&2 || true
  if [[ $rc -eq 0 ]]; then rm -rf "$WORK"; else info "chaos logs kept in $WORK" >&2; fi
  exit "$rc"
}
trap cleanup EXIT INT TERM

if [[ -z $CLUSTERS_DIR ]]; then
  CLUSTERS_DIR=$WORK/clusters OWN_CLUSTERS=1
  MC_TESTENV_PORT_BASE=${MC_CHAOS_PORT_BASE:-29400} scripts/testenv up --clusters 3 --names tencent1,tencent2,tencent4 --dir "$CLUSTERS_DIR" >&2
fi
if [[ -z $DB_DIR ]]; then
  DB_DIR=$WORK/db OWN_DB=1
  read -r p1 p2 < <(free_ports 2)
  scripts/testdb up --dir "$DB_DIR" --mysql-port "$p1" --postgres-port "$p2" >/dev/null
fi
read -r MYSQL_PORT POSTGRES_PORT <"$DB_DIR/ports"
MYSQL_URL=mysql://mc:mc@127.0.0.1:$MYSQL_PORT/mc
POSTGRES_URL=postgres://mc:mc@127.0.0.1:$POSTGRES_PORT/mc
NAMES=$(awk '{print $2}' "$CLUSTERS_DIR/clusters" | paste -sd, -)
KUBECONFIGS=()
for n in ${NAMES//,/ }; do KUBECONFIGS+=("$CLUSTERS_DIR/$n.kubeconfig"); done
MASTER=${KUBECONFIGS[0]}
TOKEN=chaos-$(random_hex 16)
PORT=$(free_ports 1)
URL=https://127.0.0.1:$PORT
# The CA the server makes at its first start; every start below keeps it (same data directory).
CA=$WORK/data/tls/ca.crt
FAILED=0

# start_server STORAGE LEASE_NAMESPACE: starts mc-server in the background (no wait).
start_server() {
  start_mc_server SERVER_PID "$WORK/mc-server.log" env MC_TOKEN="$TOKEN" "$SERVER" \
    --config "$CLUSTERS_DIR/config.yaml" --bind 127.0.0.1 --port "$PORT" \
    --storage "$1" --namespace "$2" --no-cli-config --data-dir "$WORK/data"
}
server_ready() { wait_ready "$PORT" "$SERVER_PID" "$1" "$WORK/mc-server.log" "$CA"; } # SECONDS
# readyz_becomes CODE SECONDS: seconds until /readyz answers CODE, or -1.
readyz_becomes() {
  local t0 end code
  t0=$(now) end=$(( $(date +%s) + $2 ))
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$CA" "$URL/readyz" || true)
    if [[ $code == "$1" ]]; then elapsed "$t0" "$(now)" 2; return 0; fi
    if [[ $(date +%s) -ge $end ]]; then echo -1; return 0; fi
    sleep 0.5
  done
}
stop_server() { [[ -z $SERVER_PID ]] || stop_job "$SERVER_PID"; SERVER_PID=""; }
compare() { # namespace
  python3 scripts/chaos/compare.py --kubectl "$BIN/kubectl" --clusters "$CLUSTERS_DIR" --names "$NAMES" \
    --namespace "$1" --server "$URL" --token "$TOKEN" --ca "$CA"
}
# converge NAMESPACE -> prints the last comparison and sets CONVERGE_SECONDS (or -1)
converge() {
  local t0 out end
  t0=$(now) end=$(( $(date +%s) + 60 ))
  while :; do
    out=$(compare "$1" 2>/dev/null || true)
    if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if "error" not in d and d["lost"]==0 and d["stale"]==0 and d["extra"]==0 else 1)' "$out" 2>/dev/null; then
      CONVERGE_SECONDS=$(elapsed "$t0" "$(now)" 2); LAST=$out; return 0
    fi
    if [[ $(date +%s) -ge $end ]]; then CONVERGE_SECONDS=-1; LAST=$out; return 1; fi
    sleep 1
  done
}
report() { # scenario backend faults churn_json
  local ops
  ops=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("ops", 0))' "${4:-{\}}" 2>/dev/null || echo 0)
  python3 - "$1" "$2" "$3" "$ops" "$CONVERGE_SECONDS" "$LAST" <<'PY'
import json, sys
scenario, backend, faults, ops, seconds, last = sys.argv[1:7]
try:
    d = json.loads(last)
except Exception:
    d = {"error": last}
out = {"scenario": scenario, "backend": backend, "faults": int(faults), "churn_ops": int(ops),
       "objects": d.get("objects", 0), "lost": d.get("lost", -1), "stale": d.get("stale", -1),
       "extra": d.get("extra", -1), "converge_seconds": float(seconds)}
if d.get("details") or d.get("error"):
    out["details"] = d.get("details") or [d.get("error")]
print(json.dumps(out), flush=True)
PY
  [[ $CONVERGE_SECONDS != -1 ]] || FAILED=1
}
churn() { # namespace -> runs in background, output in $WORK/churn-NS.json
  "$CHURN" --namespace "$1" --rate "$RATE" --seconds "$CHURN_SECONDS" --poison --seed "$RANDOM" "${KUBECONFIGS[@]}" \
    >"$WORK/churn-$1.json" 2>>"$WORK/churn.log" &
  CHURN_PID=$!
}
lease_ns() { "$BIN/kubectl" --kubeconfig "$MASTER" create namespace "$1" >/dev/null 2>&1 || true; }
rand_between() { python3 -c 'import random, sys; print(round(random.uniform(float(sys.argv[1]), float(sys.argv[2])), 2))' "$1" "$2"; }

scenario_kill9() {
  local ns=chaos-kill9-$RANDOM store="sqlite://$WORK/kill9.db"
  lease_ns "$ns"
  start_server "$store" "$ns"; server_ready 120 || fail "mc-server not ready"
  churn "$ns"
  local i
  for ((i = 0; i < KILLS; i++)); do
    sleep "$(rand_between 0.5 $(( CHURN_SECONDS * 2 / KILLS + 1 )))"
    kill -9 "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true
    start_server "$store" "$ns"
  done
  wait "$CHURN_PID" || true
  server_ready 120 || true
  converge "$ns" || true
  report kill9 sqlite "$KILLS" "$(cat "$WORK/churn-$ns.json" 2>/dev/null)"
  stop_server
}

scenario_apiserver() {
  local ns=chaos-apiserver-$RANDOM victim
  victim=$(echo "$NAMES" | cut -d, -f2)
  lease_ns "$ns"
  start_server "sqlite://$WORK/apiserver.db" "$ns"; server_ready 120 || fail "mc-server not ready"
  churn "$ns"
  sleep $(( CHURN_SECONDS / 4 ))
  scripts/testenv stop-apiserver --dir "$CLUSTERS_DIR" "$victim" >&2
  sleep $(( CHURN_SECONDS / 3 ))
  scripts/testenv start --dir "$CLUSTERS_DIR" "$victim" >&2
  wait "$CHURN_PID" || true
  converge "$ns" || true
  report apiserver sqlite 1 "$(cat "$WORK/churn-$ns.json" 2>/dev/null)"
  stop_server
}

scenario_database() { # mariadb|postgres
  local which=$1 ns=chaos-$1-$RANDOM url flag
  case $which in mariadb) url=$MYSQL_URL flag=--mysql ;; postgres) url=$POSTGRES_URL flag=--postgres ;; esac
  lease_ns "$ns"
  start_server "$url" "$ns"; server_ready 120 || fail "mc-server on $which not ready"
  churn "$ns"
  sleep $(( CHURN_SECONDS / 4 ))
  scripts/testdb stop --dir "$DB_DIR" "$flag" >&2
  sleep $(( CHURN_SECONDS / 3 ))
  scripts/testdb start --dir "$DB_DIR" "$flag" >&2
  wait "$CHURN_PID" || true
  converge "$ns" || true
  report "$which" "$which" 1 "$(cat "$WORK/churn-$ns.json" 2>/dev/null)"
  # A quiet outage (nothing waiting to be written) is reported too: /readyz 503, then 200 again.
  scripts/testdb stop --dir "$DB_DIR" "$flag" >&2
  local down up
  down=$(readyz_becomes 503 15)
  scripts/testdb start --dir "$DB_DIR" "$flag" >&2
  up=$(readyz_becomes 200 60)
  printf '{"scenario": "%s-quiet-outage", "backend": "%s", "readyz_503_after_seconds": %s, "readyz_200_after_seconds": %s}\n' \
    "$which" "$which" "$down" "$up"
  [[ $down != -1 && $up != -1 ]] || FAILED=1
  stop_server
}

for s in ${SCENARIOS//,/ }; do
  case $s in
    kill9) scenario_kill9 ;;
    apiserver) scenario_apiserver ;;
    mariadb | postgres) scenario_database "$s" ;;
    *) fail "unknown scenario $s" ;;
  esac
done
exit $FAILED
