#!/usr/bin/env bash
# The demo: three local clusters (tencent1 = master, tencent2, tencent4), mc-server on embedded
# SQLite (HTTPS with the CA it makes itself), the kubectl plugin, the Go project's three
# MultiClusterResource examples, a tour of the CLI (list, describe, unjoin, join), and plain
# kubectl reading every cluster through mc-server.
#
#   scripts/demo.sh          build what is missing, start everything, show it (leaves it running)
#   scripts/demo.sh down     stop everything the demo started
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source scripts/lib.sh
DEMO_DIR=${MC_DEMO_DIR:-$HOME/.cache/kubectl-multicluster/demo}
CLUSTERS=tencent1,tencent2,tencent4
PORT=${MC_DEMO_PORT:-31888}
PIDFILE=$DEMO_DIR/mc-server.pid
# The CA mc-server makes at its first start for its HTTPS; clients trust it.
CA=$DEMO_DIR/data/tls/ca.crt

if [[ ${1:-} == down ]]; then
  step "Stopping the demo"
  if pid_alive "$PIDFILE"; then kill "$(cat "$PIDFILE")"; info "mc-server stopped"; fi
  rm -f "$PIDFILE"
  scripts/testenv down --dir "$DEMO_DIR/clusters"
  exit 0
fi
[[ $# -eq 0 ]] || { echo "usage: scripts/demo.sh [down]" >&2; exit 2; }

require_toolchains
mkdir -p "$DEMO_DIR/bin"

step "1/7 Debian packages"
apt_install openssl curl ca-certificates

step "2/7 Kubernetes binaries and k9s from source (cold: about 22 minutes on 2 cores; later runs: seconds)"
scripts/testenv build 2>&1 | grep --line-buffered -E '^\[testenv\]' || fail "building the Kubernetes binaries failed"
BIN=$(scripts/testenv bin)
ln -sf "$BIN/kubectl" "$DEMO_DIR/bin/kubectl"

step "3/7 Release build of mc-server and kubectl-multicluster (cold: ~10 minutes)"
cargo build --release -p mc-server -p kubectl-multicluster --bins
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}/release
install -m 0755 "$TARGET/kubectl-multicluster" "$DEMO_DIR/bin/kubectl-multicluster"
export PATH="$DEMO_DIR/bin:$PATH"

step "4/7 Three local clusters: $CLUSTERS"
scripts/testenv up --names "$CLUSTERS" --dir "$DEMO_DIR/clusters"
scripts/testenv status --dir "$DEMO_DIR/clusters"

step "5/7 mc-server on embedded SQLite, https://127.0.0.1:$PORT"
if pid_alive "$PIDFILE" && https_ready "$PORT" "$CA" 2>/dev/null; then
  info "already running (pid $(cat "$PIDFILE"))"
else
  port_taken "$PORT" && fail "port $PORT is taken (an earlier demo? scripts/demo.sh down); or set MC_DEMO_PORT to another port"
  # nohup: the demo's server outlives this script and its terminal.
  start_mc_server SERVER_PID "$DEMO_DIR/mc-server.log" nohup "$TARGET/mc-server" \
    --config "$DEMO_DIR/clusters/config.yaml" --bind 127.0.0.1 --port "$PORT" \
    --data-dir "$DEMO_DIR/data" --no-cli-config
  echo "$SERVER_PID" >"$PIDFILE"
  wait_ready "$PORT" "$SERVER_PID" 120 "$DEMO_DIR/mc-server.log" "$CA" ||
    fail "mc-server exited or was not ready after 2 minutes; see $DEMO_DIR/mc-server.log"
  info "ready (pid $SERVER_PID, log $DEMO_DIR/mc-server.log)"
fi

step "6/7 CLI config (generate-config.sh)"
USER_CONFIG=$HOME/.multi-cluster-operator/config
if [[ -f $USER_CONFIG && -z ${KUBECTL_MULTICLUSTER_CONFIG:-} ]] && ! grep -q "$DEMO_DIR" "$USER_CONFIG"; then
  # Never overwrite a user's own config: the demo uses its own file.
  export KUBECTL_MULTICLUSTER_CONFIG=$DEMO_DIR/cli-config
  info "keeping your $USER_CONFIG; the demo uses KUBECTL_MULTICLUSTER_CONFIG=$KUBECTL_MULTICLUSTER_CONFIG"
fi
# The server generated its admin token and its CA at first start (nothing configured: closed and
# HTTPS by default).
TOKEN_FILE=$DEMO_DIR/data/token
./generate-config.sh --ip https://127.0.0.1 --port "$PORT" --config "$DEMO_DIR/clusters/tencent1.kubeconfig" \
  --token "$(cat "$TOKEN_FILE")" --certificate-authority "$CA" --force
K() { printf '\n\033[36m$ kubectl %s\033[0m\n' "$*"; kubectl "$@"; }

step "7/7 A tour"
K multicluster apply -f examples/
for _ in $(seq 1 60); do
  ready=$(kubectl --kubeconfig "$DEMO_DIR/clusters/tencent1.kubeconfig" get mcr -n default \
    -o jsonpath='{range .items[*]}{.status.ready}{"\n"}{end}' | grep -c '^3/3$' || true)
  [[ $ready -ge 3 ]] && break
  sleep 1
done
K --kubeconfig "$DEMO_DIR/clusters/tencent1.kubeconfig" get multiclusterresources -n default
# Let the dispatched pods reach Running and the server see it.
for _ in $(seq 1 30); do
  running=$(kubectl multicluster list pods -n default -o json 2>/dev/null | grep -c '"phase": "Running"' || true)
  [[ $running -ge 9 ]] && break
  sleep 1
done
K multicluster list clusters
K multicluster list pods -n default
K multicluster list deployments -n default
K multicluster list configmaps -n default --name multiclusterresource-configmap
K multicluster describe configmaps --name multiclusterresource-configmap -n default --clusterName tencent1
K multicluster unjoin tencent4
K multicluster list clusters
K multicluster join tencent4 --file "$DEMO_DIR/clusters/tencent4.kubeconfig"
for _ in $(seq 1 30); do
  kubectl multicluster list clusters 2>/dev/null | grep -qE '^tencent4 .*Synced' && break
  sleep 1
done
K multicluster list clusters
# Plain kubectl reads every cluster through mc-server: the kubeconfig carries the server's CA
# and the token, which kubectl sends over HTTPS.
printf '\n\033[36m$ kubectl multicluster kubeconfig > %s\033[0m\n' "$DEMO_DIR/mc.kubeconfig"
kubectl multicluster kubeconfig >"$DEMO_DIR/mc.kubeconfig"
K --kubeconfig "$DEMO_DIR/mc.kubeconfig" --context multicluster get pods -A

step "The demo is running"
cat <<TXT
    Try:            export PATH="$DEMO_DIR/bin:\$PATH"${KUBECTL_MULTICLUSTER_CONFIG:+ KUBECTL_MULTICLUSTER_CONFIG=$KUBECTL_MULTICLUSTER_CONFIG}
                    kubectl multicluster list pods -A
                    kubectl multicluster list deploy --clusterName tencent2 -o wide
                    kubectl --kubeconfig $DEMO_DIR/mc.kubeconfig --context multicluster-tencent2 get deploy -A
                    curl -s --cacert $CA -H "Authorization: Bearer \$(cat $TOKEN_FILE)" https://127.0.0.1:$PORT/v1/clusters
    kubeconfigs:    $DEMO_DIR/clusters/<name>.kubeconfig (mc-server: $DEMO_DIR/mc.kubeconfig)
    server log:     $DEMO_DIR/mc-server.log
    stop it with:   scripts/demo.sh down
TXT
