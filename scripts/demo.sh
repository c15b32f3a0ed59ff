#!/usr/bin/env bash
# The demo: three local clusters (tencent1 = master, tencent2, tencent4) on this machine.
#
#   scripts/demo.sh          build what is missing, start the clusters, show them
#   scripts/demo.sh down     stop everything the demo started
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
DEMO_DIR=${MC_DEMO_DIR:-$HOME/.cache/kubectl-multicluster/demo}
CLUSTERS=tencent1,tencent2,tencent4

if [[ ${1:-} == down ]]; then
  step "Stopping the demo clusters"
  scripts/testenv down --dir "$DEMO_DIR/clusters"
  exit 0
fi

require_toolchains
step "1/3 Debian packages"
apt_install openssl curl ca-certificates

step "2/3 Kubernetes binaries (cold build: 15-30 minutes on 2 cores; later runs: seconds)"
scripts/testenv build 2>&1 | grep --line-buffered -E '^\[testenv\]' || fail "building the Kubernetes binaries failed"
BIN=$(scripts/testenv bin)

step "3/3 Three local clusters: $CLUSTERS"
scripts/testenv up --names "$CLUSTERS" --dir "$DEMO_DIR/clusters"
echo
scripts/testenv status --dir "$DEMO_DIR/clusters"
for c in ${CLUSTERS//,/ }; do
  echo
  info "kubectl --kubeconfig $DEMO_DIR/clusters/$c.kubeconfig get nodes"
  "$BIN/kubectl" --kubeconfig "$DEMO_DIR/clusters/$c.kubeconfig" get nodes
done

step "The demo is running"
cat <<TXT
    kubeconfigs:    $DEMO_DIR/clusters/<name>.kubeconfig
    server config:  $DEMO_DIR/clusters/config.yaml
    kubectl:        $BIN/kubectl
    stop it with:   scripts/demo.sh down
TXT
