#!/usr/bin/env bash
# THE test command: unit tests, then end-to-end tests against real local clusters and databases.
#
#   scripts/test.sh
#
# Installs what it needs (Debian packages, Kubernetes binaries built into a cache), brings up
# three clusters with scripts/testenv and MariaDB + PostgreSQL with scripts/testdb, runs every
# test target, and always tears the clusters and databases down.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source scripts/lib.sh

require_toolchains
step "Debian packages"
# tmux: the k9s cluster test runs k9s in a tmux session and reads its screen.
apt_install openssl curl ca-certificates tmux

step "Kubernetes binaries and k9s (scripts/testenv build)"
scripts/testenv build

step "Format and lints"
apt_install shellcheck
# Every shell script under scripts/: *.sh and the tools without a suffix (a bash shebang).
mapfile -t SHELL_SCRIPTS < <(find scripts -type f | sort | while read -r f; do
  if [[ $f == *.sh ]] || head -n1 "$f" | grep -qE '^#!.*\b(ba)?sh\b'; then echo "$f"; fi
done)
shellcheck -x "${SHELL_SCRIPTS[@]}"
python3 scripts/check-links.py
# No two modules of a crate import each other, at any level.
python3 scripts/check-module-rings.py
# The results files and the table generated from them agree.
python3 scripts/bench/report.py --check
# The k8s-openapi feature (Cargo.toml) names the Kubernetes release the test clusters run.
k8s_feature=v1_$(cut -d. -f2 <<<"$K8S_VERSION")
grep -Eq "^k8s-openapi = .*\"$k8s_feature\"" Cargo.toml ||
  fail "Cargo.toml: k8s-openapi's feature is not $k8s_feature, the release of K8S_VERSION=$K8S_VERSION (scripts/versions.sh)"
# Section numbers of a document the repository does not hold mean nothing to a reader (the
# section sign is written as octal here so that this line does not match itself).
if git grep -n -F "SPEC $(printf '\302\247')"; then
  fail "the lines above cite sections of a spec the repository does not hold; say what is meant instead"
fi
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "Build tests"
# One feature set for everything (the features only switch test targets on), so the dependency
# tree is built once.
cargo build --workspace --bins --all-features
cargo test --workspace --all-features --no-run

step "Unit tests"
cargo test --workspace --all-features --lib --bins
cargo test -p kubectl-multicluster --all-features --test cli

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mc-test.XXXXXX")
chmod 755 "$WORK" # the postgres user must reach the database directory
cleanup() {
  local rc=$?
  step "Tear down"
  scripts/testenv down --dir "$WORK/clusters" || true
  [[ -x scripts/testdb ]] && { scripts/testdb down --dir "$WORK/db" || true; }
  if [[ $rc -ne 0 && -d $WORK/clusters/logs ]]; then
    info "component logs kept in $WORK/clusters/logs"
  else
    rm -rf "$WORK"
  fi
  exit $rc
}
trap cleanup EXIT INT TERM

step "Test clusters (scripts/testenv up)"
# Events expire after 3 minutes instead of an hour, so the history test sees one expire. Kept in
# the environment: the chaos suite restarts API servers with the same flags.
export MC_TESTENV_APISERVER_FLAGS="--event-ttl=3m ${MC_TESTENV_APISERVER_FLAGS:-}"
scripts/testenv up --clusters 3 --names tencent1,tencent2,tencent4 --dir "$WORK/clusters"
export MC_TESTENV_DIR=$WORK/clusters
MC_TESTENV_BIN=$(scripts/testenv bin)
export MC_TESTENV_BIN

if [[ -x scripts/testdb ]]; then
  step "Test databases (scripts/testdb up)"
  # Free loopback ports, so a developer's own servers do not collide with the test's.
  read -r MYSQL_PORT POSTGRES_PORT < <(free_ports 2)
  DB_ENV=$(scripts/testdb up --dir "$WORK/db" --mysql-port "$MYSQL_PORT" --postgres-port "$POSTGRES_PORT")
  eval "$DB_ENV"
  step "Store tests on SQLite, MariaDB and PostgreSQL"
  cargo test -p mc-server --all-features --test store
fi

step "Cluster tests: mc-server (sync, dispatch, join, deploy, kubectl and k9s through it)"
cargo test -p mc-server --all-features --test cluster -- --test-threads 1

step "Chaos (short form of scripts/chaos.sh): kill -9, API server and database outages under churn"
scripts/chaos.sh --short --clusters "$WORK/clusters" --db "$WORK/db"

step "Security tests: the attacks of crates/mc-server/tests/security against a real mc-server"
cargo test -p mc-server --all-features --test security -- --test-threads 1

step "API conformance: schemathesis over /openapi.json with the generated token"
MC_SERVER_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/debug/mc-server scripts/api/fuzz.sh --clusters "$WORK/clusters"

step "Cluster tests: kubectl multicluster through the real kubectl"
cargo test -p kubectl-multicluster --all-features --test e2e -- --test-threads 1

step "All tests passed"
