#!/usr/bin/env bash
# API conformance: schemathesis (from PyPI, in a cached venv) over /openapi.json of a real
# mc-server, with every check, over the HTTPS and with the token the server set up at its first
# start (schemathesis trusts the CA the server made).
#
#   scripts/api/fuzz.sh --clusters DIR [--examples N]
#
# DIR is a `scripts/testenv up` directory. Prints schemathesis' summary; exits non-zero on any
# server error or conformance failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

CLUSTERS="" EXAMPLES=${MC_FUZZ_EXAMPLES:-40}
while [[ $# -gt 0 ]]; do
  case $1 in
    --clusters) CLUSTERS=$2; shift 2 ;;
    --examples) EXAMPLES=$2; shift 2 ;;
    *) fail "unknown option $1" ;;
  esac
done
[[ -n $CLUSTERS && -f $CLUSTERS/config.yaml ]] || fail "--clusters DIR (a scripts/testenv up directory) is required"

VENV=${MC_CACHE:-$HOME/.cache/kubectl-multicluster}/schemathesis-$SCHEMATHESIS_VERSION
if [[ ! -x $VENV/bin/schemathesis ]]; then
  apt_install python3-venv
  info "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION"
fi

BIN=${MC_SERVER_BIN:-${CARGO_TARGET_DIR:-target}/debug/mc-server}
[[ -x $BIN ]] || fail "no mc-server at $BIN (cargo build -p mc-server first, or set MC_SERVER_BIN)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mc-fuzz.XXXXXX")
PORT=$(free_ports 1)
# No token and no certificate given: the server generates both, as at a first start.
PID=""
trap '[[ -z $PID ]] || stop_job "$PID"; rm -rf "$WORK"' EXIT
start_mc_server PID "$WORK/mc-server.log" env -u MC_TOKEN "$BIN" --config "$CLUSTERS/config.yaml" \
  --bind 127.0.0.1 --port "$PORT" --data-dir "$WORK" --storage "sqlite://$WORK/mc.db" --no-cli-config
CA=$WORK/tls/ca.crt
wait_ready "$PORT" "$PID" 60 "$WORK/mc-server.log" "$CA" || fail "mc-server exited or was not ready within 60 s"
TOKEN=$(cat "$WORK/token")
cd "$WORK"
set +e
"$VENV/bin/schemathesis" --config-file "$OLDPWD/scripts/api/schemathesis.toml" run \
  "https://127.0.0.1:$PORT/openapi.json" --checks all -H "Authorization: Bearer $TOKEN" --tls-verify "$CA" \
  --max-examples "$EXAMPLES" --workers 2 --request-timeout 20 --suppress-health-check too_slow,filter_too_much \
  --seed 20261124 >"$WORK/schemathesis.txt" 2>&1
rc=$?
# The summary; on failure every failure block too (what was sent, what came back).
if [[ $rc -eq 0 ]]; then tail -25 "$WORK/schemathesis.txt"; else head -200 "$WORK/schemathesis.txt"; fi
if grep -q 'panicked' "$WORK/mc-server.log"; then
  grep -m3 'panicked' "$WORK/mc-server.log" >&2
  fail "mc-server panicked during the run"
fi
exit "$rc"
