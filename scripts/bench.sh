#!/usr/bin/env bash
# Benchmarks against real local clusters; each prints one JSON line of figures on stdout.
#
#   scripts/bench.sh sync      [N objects per cluster, default 30000]
#   scripts/bench.sh dispatch  [N MultiClusterResources, default 100]
#   scripts/bench.sh cli       [N pods in all, default 10000]
#   scripts/bench.sh join      [N objects in the joining cluster, default 10000]
#   scripts/bench.sh store     [N objects in all, default 1000000] (no clusters: SQLite, MariaDB, PostgreSQL)
#   scripts/bench.sh history   [N objects, default 100000] (no clusters: history off/on, 10 revisions an object)
#   scripts/bench.sh count     [N pods in all, default 1000000] (no clusters: count by phase on SQLite, PostgreSQL)
#   scripts/bench.sh tree      [N objects in all, default 1000000] (no clusters: tree of a 1,000-pod Deployment on SQLite, PostgreSQL)
#   scripts/bench.sh search    [N pods in all, default 1000000] (no clusters: search p50/p99, first sync index on vs off)
#   scripts/bench.sh watch     [N changes per second over 3 clusters, default 1000]
#   scripts/bench.sh watch-history [N changes per second, default 1000] (the same, history on vs off)
#   scripts/bench.sh replicas  [N clusters, default 6] (one replica vs three sharing PostgreSQL)
#   scripts/bench.sh access    [N pods in all, default 10000] (a caller bound in 50 namespaces vs the admin)
#   scripts/bench.sh logs      [N MB of one pod's log, default 100] (through mc-server vs the member)
#   scripts/bench.sh report    [--check] (the table in docs/benchmarks.md from the latest results files)
#
# Release builds; three fresh clusters (and PostgreSQL and MariaDB for `sync`) are started and torn down.
# Each run also writes its figures, machine and inputs to bench/results/<date>-<commit>-<mode>.json
# (MC_BENCH_RESULTS=DIR: elsewhere).
# MC_BENCH_TARGET=DIR runs the binaries in DIR (mc-server, kubectl-multicluster, examples/) instead
# of building them: e.g. a copy that no other build in the same target directory replaces mid-run.
# MC_BENCH_BUSY and MC_BENCH_QUIET: commands the count and tree benches run their fills under
# (MC_BENCH_BUSY, e.g. a shared lock) and their timed part under (MC_BENCH_QUIET, e.g. a lock
# that waits until nothing else runs); none by default. The databases are not started under
# MC_BENCH_BUSY: their servers would inherit a lock's descriptor and hold it while they run.
# MC_BENCH_PLAIN_SAMPLE=M: the count bench's plain store (read object by object) holds M pods,
# its time scaled to N (default: all N); MC_BENCH_PLAIN_RUNS=K: its timed runs (default 3).
# MC_BENCH_SERVER=PATH runs another mc-server binary instead; MC_BENCH_VS (see bench_sync and
# bench_watch), MC_BENCH_RUNS, MC_BENCH_SETTLE and MC_BENCH_PAYLOAD: see bench_sync;
# MC_BENCH_ROUNDS and MC_BENCH_APART: see bench_watch_history.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source scripts/lib.sh
MODE=${1:-}
[[ $MODE =~ ^(sync|dispatch|cli|join|store|history|count|tree|search|watch|watch-history|replicas|access|logs|report)$ ]] || usage 2 22
[[ $MODE == report ]] && exec python3 scripts/bench/report.py "${@:2}"
declare -A DEFAULT_N=([sync]=30000 [dispatch]=100 [cli]=10000 [join]=10000 [store]=1000000 [history]=100000 [count]=1000000 [tree]=1000000 [search]=1000000 [watch]=1000 [watch-history]=1000 [replicas]=6 [access]=10000 [logs]=100)
N=${2:-${DEFAULT_N[$MODE]}}
STARTED=$(date -u +%FT%TZ)
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
[[ ${MC_BENCH_PAYLOAD:-repeated} =~ ^(repeated|random)$ ]] ||
  fail "MC_BENCH_PAYLOAD must be repeated or random, not ${MC_BENCH_PAYLOAD}"

require_toolchains
apt_install openssl curl ca-certificates
scripts/testenv build >&2
BIN=$(scripts/testenv bin)
# release_build: the release build of what MODE runs
release_build() {
  case $MODE in
    sync | join) cargo build --release -q -p mc-server --bin mc-server --example loadgen ;;
    replicas | access | logs) cargo build --release -q -p mc-server --bin mc-server ;;
    dispatch) cargo build --release -q -p mc-server --bin mc-server --example dispatch_bench ;;
    store) cargo build --release -q -p mc-server --example store_bench ;;
    history) cargo build --release -q -p mc-server --example history_bench --example history_codec ;;
    count) cargo build --release -q -p mc-server --example count_bench ;;
    tree) cargo build --release -q -p mc-server --example tree_bench ;;
    search) cargo build --release -q -p mc-server --example search_bench ;;
    watch | watch-history) cargo build --release -q -p mc-server --bin mc-server --example visibility ;;
    # `--bin` applies to every `-p` of one command: the plugin is its own build.
    cli) cargo build --release -q -p mc-server --bin mc-server
      cargo build --release -q -p kubectl-multicluster --bin kubectl-multicluster ;;
  esac
}
if [[ -n ${MC_BENCH_TARGET:-} ]]; then
  info "binaries from $MC_BENCH_TARGET (MC_BENCH_TARGET): no build" >&2
else
  step "Release build" >&2
  release_build >&2
fi
TARGET=${MC_BENCH_TARGET:-${CARGO_TARGET_DIR:-$ROOT/target}/release}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mc-bench.XXXXXX")
chmod 755 "$WORK" # the postgres user must reach the database directory
SERVER_PID=""
VS_PID="" # bench_watch's MC_BENCH_VS server
REPLICA_PIDS=() # bench_replicas' servers
cleanup() {
  local pid
  for pid in "$SERVER_PID" "$VS_PID" "${REPLICA_PIDS[@]}"; do
    [[ -z $pid ]] || kill "$pid" 2>/dev/null || true
  done
  scripts/testenv down --dir "$WORK/clusters" >/dev/null 2>&1 || true
  [[ ! -d $WORK/db ]] || scripts/testdb down --dir "$WORK/db" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# A signal cleans up too, then ends the bench with the shell's status for it (130, 143): after
# its work directory is gone, nothing the bench would do next can work.
trap 'cleanup; trap - EXIT; exit 130' INT
trap 'cleanup; trap - EXIT; exit 143' TERM

CLUSTERS=(bench1 bench2 bench3)
if [[ $MODE == replicas ]]; then
  CLUSTERS=(); for ((i = 1; i <= N; i++)); do CLUSTERS+=("bench$i"); done
fi
# `sync`: etcd compacted every 15 s, so that the clusters soon answer lists as long-lived ones
# do (see bench_sync). Only up to 50,000 objects per cluster: a larger list takes longer than
# 15 s at the writer's pace, and one read in pages (`sync.unpagedListMax` below its size) would
# see its continue token expire (410) and start again; at Kubernetes' default of 5 minutes not.
[[ $MODE == sync && $N -le 50000 ]] &&
  export MC_TESTENV_APISERVER_FLAGS=${MC_TESTENV_APISERVER_FLAGS:-"--etcd-compaction-interval=15s"}
if [[ $MODE == store || $MODE == count || $MODE == tree || $MODE == search ]]; then
  CLUSTERS=() # the store alone
else
  scripts/testenv up --clusters "${#CLUSTERS[@]}" --names "$(IFS=,; echo "${CLUSTERS[*]}")" --dir "$WORK/clusters" >&2
fi
# mc-server's port, and the next three for the replicas and the watch bench's other build; the
# databases' ports (unless given), free now, so that other servers on the machine do not collide.
read -r PORT PORT1 PORT2 PORT3 MY_PORT PG_PORT < <(free_ports 6)
export MC_TESTDB_MYSQL_PORT=${MC_TESTDB_MYSQL_PORT:-$MY_PORT} MC_TESTDB_POSTGRES_PORT=${MC_TESTDB_POSTGRES_PORT:-$PG_PORT}
# The server's admin token (the API is closed without one); the CLI reads MC_TOKEN too.
export MC_TOKEN=${MC_TOKEN:-bench-$(random_hex 16)}
# Plain http, asked for (mc-server serves HTTPS by default): readiness is asked every 20 ms by
# bash itself, which speaks no TLS (see http_ready in lib.sh), and the figures stay comparable
# with the results files. An environment variable, not --plain-http: the prebuilt binaries of
# MC_BENCH_TARGET may predate the flag.
export MC_PLAIN_HTTP=true
AUTH=(-H "Authorization: Bearer $MC_TOKEN")
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# CPU, in clock ticks: `ticks PID...` what the processes used (user + system; 0 for one gone);
# `db_ticks` what the database servers used, their connections' processes included (PostgreSQL
# runs each in a process of its own, which the postmaster reaps into its children's times);
# `cpu_snapshot` the whole machine's busy ticks, the API servers', the databases'.
ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
db_ticks() {
  local t=0 pm
  [[ -f $WORK/db/mysql.pid ]] && t=$(ticks "$(cat "$WORK/db/mysql.pid")")
  pm=$(head -1 "$WORK/db/postgres/postmaster.pid" 2>/dev/null || true)
  if [[ -n $pm ]]; then
    # shellcheck disable=SC2046 # one pid per word
    t=$((t + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat" 2>/dev/null || echo 0) + $(ticks $(pgrep -P "$pm"))))
  fi
  echo "$t"
}
# shellcheck disable=SC2046 # one pid per word
cpu_snapshot() { echo "$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat) $(ticks $(pgrep -f "kube-apiserver .*$WORK/clusters/")) $(db_ticks)"; }
# cpu_since SNAPSHOT [MC_SERVER_PID] -> JSON: core-seconds used since SNAPSHOT by the machine
# (busy), the API servers, the databases, and the mc-server (its whole life)
cpu_since() {
  local now mc=0
  now=$(cpu_snapshot)
  [[ -n ${2:-} ]] && mc=$(ticks "$2")
  python3 scripts/bench/cpu.py "$1" "$now" "$mc"
}

# pause SECONDS: sleeps without starting a process (a read that times out on a pipe that stays
# empty): the 2 cores are the sync's bottleneck, and the raw LIST it is compared with starts
# none (see http_ready in lib.sh)
exec {PAUSE_FD}<> <(:)
pause() { read -r -t "$1" -u "$PAUSE_FD" _ || true; }

# launch PID_VAR BINARY PORT STORAGE_URL LOG: starts an mc-server on the clusters, its pid in
# PID_VAR at once (so cleanup stops it), and waits until it is ready (asked every 20 ms)
# (LAUNCH_CONFIG=FILE: that config instead of the clusters' own)
launch() {
  : >"$5"
  start_mc_server "$1" "$5" "$2" --config "${LAUNCH_CONFIG:-$WORK/clusters/config.yaml}" --bind 127.0.0.1 --port "$3" \
    --storage "$4" --no-cli-config --namespace default
  until http_ready "$3" 2>/dev/null; do
    kill -0 "${!1}" 2>/dev/null || { tail "$5" >&2; fail "$2 exited"; }
    pause 0.02
  done
}

# start_server STORAGE_URL -> sets SERVER_PID, READY_SECONDS, READY_CPU (see cpu_since)
start_server() {
  local t0 t1 cpu
  cpu=$(cpu_snapshot)
  t0=$(now)
  launch SERVER_PID "${SERVER_BIN:-${MC_BENCH_SERVER:-$TARGET/mc-server}}" "$PORT" "$1" "$WORK/server.log"
  t1=$(now)
  READY_CPU=$(cpu_since "$cpu" "$SERVER_PID")
  READY_SECONDS=$(elapsed "$t0" "$t1")
}
stop_server() { stop_job "$SERVER_PID"; SERVER_PID=""; }

# p50/p99 in ms of GETs: latency URL COUNT
latency() { python3 scripts/bench/latency.py "$@"; }
# json_count: how many items the JSON array on stdin holds
json_count() { python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }

# Initial sync of N ConfigMaps per cluster against the raw parallel LIST, each measured
# MC_BENCH_RUNS times (default 3) in turn on the same clusters; the medians and their ratio are
# printed with every run's figures. Memory of the SQLite runs: RSS when ready, the peak of the
# whole sync (VmHWM) and RSS settled MC_BENCH_SETTLE seconds (default 30) after ready. The CPU
# each used (see cpu_since), and the ratios that follow from it.
# MC_BENCH_VS=PATH also times that mc-server binary (an earlier build) in every run on the same
# clusters, and prints the ratios: an A/B within one run. It goes after this one in odd runs and
# before it in even runs (right after the raw LIST): the build timed second came out ahead or
# even in both 3-run benches with the builds' places swapped.
# MC_BENCH_PAYLOAD=random fills the ConfigMaps with random letters (about 1.3x compressible, as
# keys and certificates are) instead of one repeated letter (about 20x). The raw LIST is
# kubectl's, which asks for gzip as client-go does: it is faster on the repeated letter and slower
# on random letters than the same list uncompressed, and the ratio moves with it.
bench_sync() {
  local n=${1:-30000} runs=${MC_BENCH_RUNS:-3} settle=${MC_BENCH_SETTLE:-30}
  local payload=${MC_BENCH_PAYLOAD:-repeated}
  step "Idle server (empty clusters)" >&2
  start_server "sqlite://$WORK/idle.db"
  sleep 2
  local idle_rss
  idle_rss=$(rss_kb "$SERVER_PID")
  stop_server

  step "Loading $n ConfigMaps of ~1 KB ($payload payload) into each of ${#CLUSTERS[@]} clusters" >&2
  local t0 pids=() c
  t0=$(now)
  for c in "${CLUSTERS[@]}"; do
    MC_LOADGEN_PAYLOAD=$payload "$TARGET/examples/loadgen" "$WORK/clusters/$c.kubeconfig" bench "$n" 1024 >&2 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  local load_s
  load_s=$(elapsed "$t0" "$(now)" 1)
  # As long-lived clusters are: an API server answers a paged list from a snapshot of its watch
  # cache only until the next etcd compaction after the type's last change, and from etcd then
  # (about twice its CPU). The clusters compact every 15 s here (see the testenv call above).
  step "Waiting ${MC_BENCH_STEADY:-45}s for two etcd compactions after the load" >&2
  sleep "${MC_BENCH_STEADY:-45}"
  eval "$(scripts/testdb up --dir "$WORK/db")"

  local raw=() sqlite=() postgres=() mariadb=() ready_rss=() peak_rss=() settled_rss=() run objects
  local raw_cpu=() sqlite_cpu=() postgres_cpu=() mariadb_cpu=() cpu seconds t1
  local vs_sqlite=() vs_postgres=() vs_mariadb=()
  # pg_ready -> seconds from start to /readyz on a fresh PostgreSQL database, and the CPU used
  # meanwhile (see cpu_since)
  pg_ready() {
    local pg_db
    pg_db="bench_$(date +%s%N)"
    PGPASSWORD=mc psql -q -h 127.0.0.1 -p "${MC_TESTDB_POSTGRES_PORT:-26301}" -U mc -d mc -c "CREATE DATABASE $pg_db" >&2
    start_server "${MC_TEST_POSTGRES_URL%/*}/$pg_db"
    stop_server
    PGPASSWORD=mc psql -q -h 127.0.0.1 -p "${MC_TESTDB_POSTGRES_PORT:-26301}" -U mc -d mc -c "DROP DATABASE $pg_db" >&2
    echo "$READY_SECONDS $READY_CPU"
  }
  # my_ready -> the same on a fresh MariaDB database
  my_ready() {
    local my_db
    my_db="bench_$(date +%s%N)"
    local my=(mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"${MC_TESTDB_MYSQL_PORT:-26300}" -umc -pmc)
    "${my[@]}" -e "CREATE DATABASE $my_db CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" >&2
    start_server "${MC_TEST_MYSQL_URL%/*}/$my_db"
    stop_server
    "${my[@]}" -e "DROP DATABASE $my_db" >&2
    echo "$READY_SECONDS $READY_CPU"
  }
  # vs_run -> times MC_BENCH_VS (if set) on SQLite, PostgreSQL and MariaDB
  vs_run() {
    [[ -n ${MC_BENCH_VS:-} ]] || return 0
    step "Run $run of $runs: $MC_BENCH_VS on SQLite, PostgreSQL and MariaDB" >&2
    rm -f "$WORK"/bench.db*
    SERVER_BIN=$MC_BENCH_VS start_server "sqlite://$WORK/bench.db"
    vs_sqlite+=("$READY_SECONDS")
    stop_server
    vs_postgres+=("$(SERVER_BIN=$MC_BENCH_VS pg_ready | cut -d' ' -f1)")
    vs_mariadb+=("$(SERVER_BIN=$MC_BENCH_VS my_ready | cut -d' ' -f1)")
    info "run $run: other build SQLite ${vs_sqlite[-1]}s, PostgreSQL ${vs_postgres[-1]}s, MariaDB ${vs_mariadb[-1]}s" >&2
  }
  for ((run = 1; run <= runs; run++)); do
    step "Run $run of $runs: raw LIST from the API servers (kubectl get --raw, all clusters in parallel)" >&2
    cpu=$(cpu_snapshot)
    t0=$(now)
    pids=()
    for c in "${CLUSTERS[@]}"; do
      "$BIN/kubectl" --kubeconfig "$WORK/clusters/$c.kubeconfig" get --raw "/api/v1/configmaps" >/dev/null & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    t1=$(now)
    raw_cpu+=("$(cpu_since "$cpu")")
    raw+=("$(elapsed "$t0" "$t1")")
    if ((run % 2 == 0)); then vs_run; fi

    step "Run $run of $runs: mc-server on SQLite, start to /readyz" >&2
    rm -f "$WORK"/bench.db*
    start_server "sqlite://$WORK/bench.db"
    sqlite+=("$READY_SECONDS")
    sqlite_cpu+=("$READY_CPU")
    ready_rss+=("$(rss_kb "$SERVER_PID")")
    sleep "$settle"
    settled_rss+=("$(rss_kb "$SERVER_PID")")
    # VmHWM can miss a peak the allocator gave back (madvise): one read 82.0 after 82.3 MiB at ready.
    peak_rss+=("$(awk -v ready="${ready_rss[-1]}" '/VmHWM/ {print ($2 > ready ? $2 : ready)}' "/proc/$SERVER_PID/status")")
    if ((run == runs)); then
      objects=$(curl -fsS "${AUTH[@]}" "http://127.0.0.1:$PORT/v1/clusters" | python3 -c 'import json, sys; print(sum(c["objects"] for c in json.load(sys.stdin)))')
      local urls="" i
      for i in $(seq 0 19); do urls+="http://127.0.0.1:$PORT/v1/list_with_cluster?gvr=v1/configmaps&namespace=bench&labelSelector=group%3Dg$i&limit=0 "; done
      local filtered full
      filtered=$(latency "${urls% }" 200)
      full=$(latency "http://127.0.0.1:$PORT/v1/list_with_cluster?gvr=v1/configmaps&limit=0" 10)
    fi
    stop_server
    info "run $run: raw ${raw[-1]}s (CPU ${raw_cpu[-1]}), SQLite ${sqlite[-1]}s (CPU ${sqlite_cpu[-1]}), RSS ready/peak/settled ${ready_rss[-1]}/${peak_rss[-1]}/${settled_rss[-1]} KiB" >&2

    step "Run $run of $runs: mc-server on PostgreSQL, start to /readyz" >&2
    read -r seconds cpu <<<"$(pg_ready)"
    postgres+=("$seconds") postgres_cpu+=("$cpu")
    info "run $run: PostgreSQL ${postgres[-1]}s (CPU ${postgres_cpu[-1]})" >&2
    step "Run $run of $runs: mc-server on MariaDB, start to /readyz" >&2
    read -r seconds cpu <<<"$(my_ready)"
    mariadb+=("$seconds") mariadb_cpu+=("$cpu")
    info "run $run: MariaDB ${mariadb[-1]}s (CPU ${mariadb_cpu[-1]})" >&2
    if ((run % 2 == 1)); then vs_run; fi
  done

  python3 scripts/bench/sync_summary.py --clusters "${#CLUSTERS[@]}" --per-cluster "$n" --payload "$payload" \
    --objects "$objects" --load-seconds "$load_s" --idle-rss-kib "$idle_rss" \
    --raw "${raw[@]}" --sqlite "${sqlite[@]}" --postgres "${postgres[@]}" --mariadb "${mariadb[@]}" \
    --ready-rss-kib "${ready_rss[@]}" --peak-rss-kib "${peak_rss[@]}" --settled-rss-kib "${settled_rss[@]}" \
    --raw-cpu "${raw_cpu[@]}" --sqlite-cpu "${sqlite_cpu[@]}" --postgres-cpu "${postgres_cpu[@]}" \
    --mariadb-cpu "${mariadb_cpu[@]}" --filtered "$filtered" --full "$full" \
    --vs-build "${MC_BENCH_VS:-}" --vs-sqlite "${vs_sqlite[@]}" --vs-postgres "${vs_postgres[@]}" \
    --vs-mariadb "${vs_mariadb[@]}"
}

bench_dispatch() {
  local n=${1:-100}
  start_server "sqlite://$WORK/dispatch.db"
  # Leadership is taken within a few seconds of start.
  sleep 3
  "$TARGET/examples/dispatch_bench" "$WORK/clusters/bench1.kubeconfig" \
    "$WORK/clusters/bench1.kubeconfig" "$WORK/clusters/bench2.kubeconfig" "$WORK/clusters/bench3.kubeconfig" --count "$n"
  stop_server
}

bench_cli() {
  local n=${1:-10000} per c
  per=$(((n + 2) / 3))
  step "Creating $n pods (kwok) in ${#CLUSTERS[@]} clusters" >&2
  for c in "${CLUSTERS[@]}"; do
    "$BIN/kubectl" --kubeconfig "$WORK/clusters/$c.kubeconfig" create deployment many --image nginx --replicas "$per" >&2
  done
  for c in "${CLUSTERS[@]}"; do
    until [[ $("$BIN/kubectl" --kubeconfig "$WORK/clusters/$c.kubeconfig" get deploy many -o jsonpath='{.status.readyReplicas}') == "$per" ]]; do sleep 2; done
  done
  start_server "sqlite://$WORK/cli.db"
  # Synced: every pod is in the store before anything is timed.
  until [[ $(curl -fsS "${AUTH[@]}" "http://127.0.0.1:$PORT/v1/list_with_cluster?gvr=v1/pods&limit=0" | json_count) -ge $((per * ${#CLUSTERS[@]})) ]]; do sleep 1; done
  # The same run measures the baseline: plain kubectl listing the pods of one cluster (a third).
  python3 scripts/bench/cli.py "$TARGET/kubectl-multicluster" "http://127.0.0.1:$PORT" "$((per * ${#CLUSTERS[@]}))" \
    "$BIN/kubectl" "$WORK/clusters/${CLUSTERS[0]}.kubeconfig"
  stop_server
}

# The caller's rights come from the members' RBAC: a ServiceAccount of the master (bench1),
# bound to `view` in 50 of the 100 namespaces that hold the pods, its token reviewed by bench1.
bench_access() {
  local n=${1:-10000} namespaces=34 bound=(17 17 16) per_ns c i j k token
  per_ns=$(((n + 3 * namespaces - 1) / (3 * namespaces)))
  step "Creating $n pods (kwok) in $((3 * namespaces)) namespaces of ${#CLUSTERS[@]} clusters" >&2
  for i in "${!CLUSTERS[@]}"; do
    c=${CLUSTERS[$i]}
    k=(--kubeconfig "$WORK/clusters/$c.kubeconfig")
    for ((j = 0; j < namespaces; j++)); do
      "$BIN/kubectl" "${k[@]}" create namespace "team-$j" >/dev/null
      "$BIN/kubectl" "${k[@]}" -n "team-$j" create deployment many --image nginx --replicas "$per_ns" >/dev/null
      if ((j < bound[i])); then
        "$BIN/kubectl" "${k[@]}" -n "team-$j" create rolebinding reader --clusterrole view \
          --user system:serviceaccount:default:bench-reader >/dev/null
      fi
    done
  done
  for c in "${CLUSTERS[@]}"; do
    for ((j = 0; j < namespaces; j++)); do
      until [[ $("$BIN/kubectl" --kubeconfig "$WORK/clusters/$c.kubeconfig" -n "team-$j" get deploy many -o jsonpath='{.status.readyReplicas}') == "$per_ns" ]]; do sleep 2; done
    done
  done
  "$BIN/kubectl" --kubeconfig "$WORK/clusters/bench1.kubeconfig" -n default create serviceaccount bench-reader >/dev/null
  token=$("$BIN/kubectl" --kubeconfig "$WORK/clusters/bench1.kubeconfig" -n default create token bench-reader --duration 1h)
  start_server "sqlite://$WORK/access.db"
  # Synced: every pod and every binding is in the store before anything is timed.
  until [[ $(curl -fsS "${AUTH[@]}" "http://127.0.0.1:$PORT/v1/list_with_cluster?gvr=v1/pods&limit=0" | json_count) -ge $((per_ns * 3 * namespaces)) ]]; do sleep 1; done
  until [[ $(curl -fsS "${AUTH[@]}" "http://127.0.0.1:$PORT/v1/list?gvr=rolebindings.rbac.authorization.k8s.io&name=reader&limit=0" | json_count) -ge 50 ]]; do sleep 1; done
  python3 scripts/bench/access.py "http://127.0.0.1:$PORT" "$MC_TOKEN" "$token" 15
  stop_server
}

# One pod's log of N MB (CRI lines that kwok serves from a file, through a kwok `Logs` object for
# that pod) read through mc-server's Kubernetes API and straight from the member's API server,
# alternately, 3 times: the time of each, and mc-server's RSS idle and at its peak during the
# read (see scripts/bench/logs.py).
bench_logs() {
  local mb=${1:-100} c=${CLUSTERS[1]} ns=logs-bench pod="" kc member tries=0
  # Each wait gives up after a minute rather than looping on a cluster that is gone.
  waited() { ((++tries < 120)) || fail "gave up waiting: $1"; sleep 0.5; }
  kc=(--kubeconfig "$WORK/clusters/$c.kubeconfig")
  step "Writing a $mb MB log; one pod in $c serves it" >&2
  python3 scripts/bench/logs.py write "$WORK/big.log" "$mb"
  "$BIN/kubectl" "${kc[@]}" create namespace "$ns" >/dev/null
  "$BIN/kubectl" "${kc[@]}" -n "$ns" create deployment big --image nginx >/dev/null
  until [[ $pod == *" Running" ]]; do
    waited "the pod running"
    pod=$("$BIN/kubectl" "${kc[@]}" -n "$ns" get pods -o jsonpath='{.items[0].metadata.name} {.items[0].status.phase}')
  done
  pod=${pod% Running}
  "$BIN/kubectl" "${kc[@]}" apply -f - >/dev/null <<LOGS
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Logs
metadata: {name: $pod, namespace: $ns}
spec:
  logs: [{logsFile: "$WORK/big.log"}]
LOGS
  member=$(awk '/server:/ {print $2; exit}' "$WORK/clusters/$c.kubeconfig")
  tries=0
  until [[ $(curl -fsS --cacert "$WORK/clusters/$c/ca.crt" -H "Authorization: Bearer $(cat "$WORK/clusters/$c/token")" \
    "$member/api/v1/namespaces/$ns/pods/$pod/log?limitBytes=40") == xxxx* ]]; do waited "kwok serving the log"; done
  start_server "sqlite://$WORK/logs.db"
  tries=0
  until curl -fsS -o /dev/null "${AUTH[@]}" "http://127.0.0.1:$PORT/api/v1/namespaces/$ns/pods/$pod"; do waited "the pod synced"; done
  python3 scripts/bench/logs.py measure "http://127.0.0.1:$PORT" "$MC_TOKEN" "$SERVER_PID" "$member" \
    "$WORK/clusters/$c/token" "$WORK/clusters/$c/ca.crt" "$ns" "$pod" 3
  stop_server
}

bench_join() {
  local n=${1:-10000}
  step "Loading $n ConfigMaps into bench3" >&2
  "$TARGET/examples/loadgen" "$WORK/clusters/bench3.kubeconfig" bench "$n" 1024 >&2
  # The server starts with the master only; bench3 joins over HTTP.
  printf 'clusters:\n  - metadata:\n      clusterName: bench1\n      configPath: %s\n      isMaster: true\n' \
    "$WORK/clusters/bench1.kubeconfig" >"$WORK/master-only.yaml"
  cp "$WORK/clusters/config.yaml" "$WORK/all.yaml"
  cp "$WORK/master-only.yaml" "$WORK/clusters/config.yaml"
  start_server "sqlite://$WORK/join.db"
  local t0 t1 t2 want
  want=$("$BIN/kubectl" --kubeconfig "$WORK/clusters/bench3.kubeconfig" get --raw /api/v1/configmaps | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["items"]))')
  t0=$(now)
  curl -fsS "${AUTH[@]}" -X POST -F "kubeconfig=@$WORK/clusters/bench3.kubeconfig" "http://127.0.0.1:$PORT/v1/join?cluster=bench3&insecure=false" >&2
  t1=$(now)
  until [[ $(curl -fsS "${AUTH[@]}" "http://127.0.0.1:$PORT/v1/list_with_cluster?gvr=v1/configmaps&cluster=bench3&limit=0" | json_count) -ge $want ]]; do sleep 0.1; done
  t2=$(now)
  stop_server
  cp "$WORK/all.yaml" "$WORK/clusters/config.yaml"
  python3 scripts/bench/join.py "$want" "$t0" "$t1" "$t2"
}

# Change → visible through mc-server at a steady rate of patches, and the API servers' own watch
# (the baseline) timed the same way in the same run; SQLite store, 3 clusters.
# MC_BENCH_VS=PATH runs that mc-server binary (an earlier build) at the same time on the same
# clusters, watched the same way: both see the same changes on the same busy machine, and the
# median of its latency minus this one's is taken change by change (`vs_minus_this_ms_p50`).
# Runs apart, the API servers' own watch p99 moved 100-375 ms from run to run, which hid a
# difference of a few ms.
bench_watch() {
  local rate=${1:-1000} vs=()
  start_server "sqlite://$WORK/watch.db"
  if [[ -n ${MC_BENCH_VS:-} ]]; then
    launch VS_PID "$MC_BENCH_VS" "$PORT1" "sqlite://$WORK/watch-vs.db" "$WORK/server-vs.log"
    vs=(--vs "http://127.0.0.1:$PORT1")
  fi
  "$TARGET/examples/visibility" --server "http://127.0.0.1:$PORT" "${vs[@]}" --rate "$rate" --seconds 20 \
    "$WORK/clusters/bench1.kubeconfig" "$WORK/clusters/bench2.kubeconfig" "$WORK/clusters/bench3.kubeconfig"
  [[ -z $VS_PID ]] || { stop_job "$VS_PID"; VS_PID=""; }
  stop_server
}

# What keeping history costs a change on its way to being visible: two servers of this build on
# the same clusters at the same time, history on (the default) and `history: {enabled: false}`,
# each with its own SQLite store, watched change by change as bench_watch watches one build
# against another. MC_BENCH_ROUNDS rounds of 20 s (default 4), the servers' places in
# examples/visibility swapped from one round to the next, so that whichever stream it reads first
# gains nothing; the p50 and p99 of each server are taken over every round's changes
# (watch_history.py). One round's p99 rests on a few hundred changes and moved 20 % and more
# between two rounds of the same run. MC_BENCH_APART=1 runs one server at a time instead, on
# then off then off then on and so on, each round with the machine to itself: what one server
# of a deployment sees, while the servers at once also compete with each other for the 2 cores.
# Each server's /v1/clusters shows afterwards that one kept revisions and the other none, or the
# run fails.
bench_watch_history() {
  local rate=${1:-1000} rounds=${MC_BENCH_ROUNDS:-4} apart=${MC_BENCH_APART:-0} on off i order args=()
  [[ $rounds =~ ^[1-9][0-9]*$ ]] || fail "MC_BENCH_ROUNDS must be a positive number, not $rounds"
  [[ $apart =~ ^[01]$ ]] || fail "MC_BENCH_APART must be 0 or 1, not $apart"
  cp "$WORK/clusters/config.yaml" "$WORK/history-off.yaml"
  printf '\nhistory: {enabled: false}\n' >>"$WORK/history-off.yaml"
  on=http://127.0.0.1:$PORT off=http://127.0.0.1:$PORT1
  start_on() { start_server "sqlite://$WORK/history-on.db"; }
  start_off() {
    LAUNCH_CONFIG=$WORK/history-off.yaml launch VS_PID "$TARGET/mc-server" "$PORT1" \
      "sqlite://$WORK/history-off.db" "$WORK/server-off.log"
  }
  # visibility THIS VS OUT: one round (OUT.json its figures, OUT.latencies.json every change's;
  # VS "": THIS alone)
  visibility() {
    local vs=()
    [[ -z $2 ]] || vs=(--vs "$2")
    "$TARGET/examples/visibility" --server "$1" "${vs[@]}" --rate "$rate" --seconds 20 \
      --latencies "$3.latencies.json" \
      "$WORK/clusters/bench1.kubeconfig" "$WORK/clusters/bench2.kubeconfig" "$WORK/clusters/bench3.kubeconfig" >"$3.json"
  }
  if ((apart)); then
    # One server at a time, in the order on, off, off, on, on, off, …: each round has the
    # machine to itself, as a deployment's one server has; 5 s after ready, the relist of its
    # start is over.
    for ((i = 1; i <= rounds; i++)); do
      case $(((i - 1) % 4)) in
        0 | 3) order="on-alone"; start_on; pause 5; visibility "$on" "" "$WORK/round$i"; stop_server ;;
        *) order="off-alone"; start_off; pause 5; visibility "$off" "" "$WORK/round$i"
          stop_job "$VS_PID"; VS_PID="" ;;
      esac
      args+=("$order" "$WORK/round$i.json" "$WORK/round$i.latencies.json")
    done
    start_on
    start_off
  else
    start_on
    start_off
    for ((i = 1; i <= rounds; i++)); do
      if ((i % 2)); then order="on-first"; visibility "$on" "$off" "$WORK/round$i"
      else order="off-first"; visibility "$off" "$on" "$WORK/round$i"; fi
      args+=("$order" "$WORK/round$i.json" "$WORK/round$i.latencies.json")
    done
  fi
  # The totals in /v1/clusters are read from the store every 30 s.
  # shellcheck disable=SC2317 # called through wait_for
  history_kept() {
    curl -fsS "${AUTH[@]}" "$1/v1/clusters" | python3 -c '
import json, sys
sys.exit(0 if sum(c.get("historyRevisions") or 0 for c in json.load(sys.stdin)) > 0 else 1)'
  }
  wait_for 45 "$SERVER_PID" history_kept "$on" || fail "the server with history on shows no revision in /v1/clusters"
  curl -fsS "${AUTH[@]}" "$on/v1/clusters" >"$WORK/clusters-on.json"
  curl -fsS "${AUTH[@]}" "$off/v1/clusters" >"$WORK/clusters-off.json"
  python3 scripts/bench/watch_history.py "$WORK/clusters-on.json" "$WORK/clusters-off.json" "${args[@]}"
  stop_job "$VS_PID"; VS_PID=""
  stop_server
}

# What a replica costs when replicas share PostgreSQL and split the clusters (one Lease per
# cluster), against one replica that syncs them all: RSS, sockets, idle CPU of each process over
# 30 s, and the Lease requests the master's API server answers per second meanwhile.
bench_replicas() {
  local n=${#CLUSTERS[@]} per=$(((${#CLUSTERS[@]} + 2) / 3))
  eval "$(scripts/testdb up --dir "$WORK/db")"
  local master="$WORK/clusters/${CLUSTERS[0]}.kubeconfig"
  cp "$WORK/clusters/config.yaml" "$WORK/shard.yaml"
  printf 'sync: {maxClustersPerReplica: %s}\n' "$per" >>"$WORK/shard.yaml"
  # replica PID_VAR CONFIG PORT LEASE_NS: starts a replica (its pid in PID_VAR and REPLICA_PIDS)
  replica() {
    start_mc_server "$1" "$WORK/server-$3.log" "$TARGET/mc-server" --config "$2" --bind 127.0.0.1 --port "$3" \
      --storage "$MC_TEST_POSTGRES_URL" --no-cli-config --namespace "$4"
    REPLICA_PIDS+=("${!1}")
  }
  socks() { find "/proc/$1/fd" -lname 'socket:*' 2>/dev/null | wc -l; }
  lease_requests() {
    "$BIN/kubectl" --kubeconfig "$master" get --raw /metrics |
      awk '/^apiserver_request_total\{/ && /resource="leases"/ && /group="coordination.k8s.io"/ {s += $NF} END {print s + 0}'
  }
  # shellcheck disable=SC2317 # called through wait_for
  all_synced() { # port
    curl -fsS "${AUTH[@]}" "http://127.0.0.1:$1/v1/clusters" | python3 -c '
import json, sys
c = json.load(sys.stdin)
sys.exit(0 if len(c) == int(sys.argv[1]) and all(x["status"] == "Synced" for x in c) else 1)' "$n"
  }
  # measure PID... -> JSON: per-process figures over 30 s, and lease requests/s (replicas.py)
  measure() {
    local pids=("$@") t0=() l0 l1 each=() i p
    l0=$(lease_requests)
    for p in "${pids[@]}"; do t0+=("$(ticks "$p")"); done
    sleep 30
    l1=$(lease_requests)
    for i in "${!pids[@]}"; do
      p=${pids[$i]}
      each+=("$(rss_kb "$p") $(socks "$p") ${t0[$i]} $(ticks "$p")")
    done
    python3 scripts/bench/replicas.py measure 30 "$l0" "$l1" "${each[@]}"
  }
  local p1=$PORT1 p2=$PORT2 p3=$PORT3
  "$BIN/kubectl" --kubeconfig "$master" create namespace bench-one >/dev/null 2>&1 || true
  "$BIN/kubectl" --kubeconfig "$master" create namespace bench-shard >/dev/null 2>&1 || true
  step "One replica syncs $n clusters" >&2
  local one a b c
  replica one "$WORK/clusters/config.yaml" "$p1" bench-one
  wait_for 300 "" all_synced "$p1" || fail "one replica: not every cluster Synced within 300 s"
  sleep 20
  local single; single=$(measure "$one")
  stop_job "$one"
  step "Three replicas split $n clusters (at most $per each)" >&2
  replica a "$WORK/shard.yaml" "$p1" bench-shard
  replica b "$WORK/shard.yaml" "$p2" bench-shard
  replica c "$WORK/shard.yaml" "$p3" bench-shard
  for p in "$p1" "$p2" "$p3"; do
    wait_for 300 "" all_synced "$p" || fail "replica on port $p: not every cluster Synced within 300 s"
  done
  sleep 20
  local split; split=$(measure "$a" "$b" "$c")
  kill "$a" "$b" "$c"; wait "$a" "$b" "$c" 2>/dev/null || true
  REPLICA_PIDS=()
  python3 scripts/bench/replicas.py summary "$n" "$single" "$split"
}

# The store API alone at a million objects, on each backend (a fresh database each).
bench_store() {
  local n=${1:-1000000}
  eval "$(scripts/testdb up --dir "$WORK/db")"
  local db
  db="bench_$(date +%s)"
  PGPASSWORD=mc psql -q -h 127.0.0.1 -p "${MC_TESTDB_POSTGRES_PORT:-26301}" -U mc -d mc -c "CREATE DATABASE $db" >&2
  mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"${MC_TESTDB_MYSQL_PORT:-26300}" -umc -pmc \
    -e "CREATE DATABASE $db CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" >&2
  step "SQLite: $n objects" >&2
  "$TARGET/examples/store_bench" "sqlite://$WORK/store.db" "$n"
  rm -f "$WORK"/store.db*
  step "MariaDB: $n objects" >&2
  "$TARGET/examples/store_bench" "${MC_TEST_MYSQL_URL%/*}/$db" "$n"
  step "PostgreSQL: $n objects" >&2
  "$TARGET/examples/store_bench" "${MC_TEST_POSTGRES_URL%/*}/$db" "$n"
}

# The history store (no clusters): revisions' encodings; then on SQLite and PostgreSQL (fresh
# databases: history off, on, and on with the writer compressing) a first sync and watch
# batches, the history filled to 10 revisions an object, its reads and a prune of every
# superseded revision.
bench_history() {
  local n=${1:-100000}
  eval "$(scripts/testdb up --dir "$WORK/db")"
  local db which
  db="bench_$(date +%s)"
  for which in off on writer; do
    PGPASSWORD=mc psql -q -h 127.0.0.1 -p "${MC_TESTDB_POSTGRES_PORT:-26301}" -U mc -d mc \
      -c "CREATE DATABASE ${db}_$which" >&2
  done
  step "Encodings of revisions" >&2
  "$TARGET/examples/history_codec"
  step "SQLite: $n objects, $((n * 10)) revisions" >&2
  "$TARGET/examples/history_bench" "sqlite://$WORK/off.db" "sqlite://$WORK/on.db" \
    "sqlite://$WORK/writer.db" "$n" "$((n * 10))"
  rm -f "$WORK"/off.db* "$WORK"/on.db* "$WORK"/writer.db*
  step "PostgreSQL: $n objects, $((n * 10)) revisions" >&2
  "$TARGET/examples/history_bench" "${MC_TEST_POSTGRES_URL%/*}/${db}_off" \
    "${MC_TEST_POSTGRES_URL%/*}/${db}_on" "${MC_TEST_POSTGRES_URL%/*}/${db}_writer" "$n" "$((n * 10))"
}

bench_count() {
  local n=${1:-1000000}
  eval "$(scripts/testdb up --dir "$WORK/db")"
  local db kind urls
  db="bench_$(date +%s)"
  for kind in indexed plain expression; do
    PGPASSWORD=mc psql -q -h 127.0.0.1 -p "${MC_TESTDB_POSTGRES_PORT:-26301}" -U mc -d mc -c "CREATE DATABASE ${db}_$kind" >&2
  done
  local sample=()
  [[ -z ${MC_BENCH_PLAIN_SAMPLE:-} ]] || sample=(--plain-sample "$MC_BENCH_PLAIN_SAMPLE")
  urls=("sqlite://$WORK/indexed.db" "sqlite://$WORK/plain.db" "sqlite://$WORK/expression.db")
  step "SQLite: $n pods, three stores (indexed, plain, expression)" >&2
  fill_then_measure "$TARGET/examples/count_bench" "${urls[@]}" "$n" "${sample[@]}" --plain-runs "${MC_BENCH_PLAIN_RUNS:-3}"
  rm -f "$WORK"/*.db*
  urls=("${MC_TEST_POSTGRES_URL%/*}/${db}_indexed" "${MC_TEST_POSTGRES_URL%/*}/${db}_plain" "${MC_TEST_POSTGRES_URL%/*}/${db}_expression")
  step "PostgreSQL: $n pods, three stores (indexed, plain, expression)" >&2
  fill_then_measure "$TARGET/examples/count_bench" "${urls[@]}" "$n" "${sample[@]}" --plain-runs "${MC_BENCH_PLAIN_RUNS:-3}"
}

# fill_then_measure BENCH ARGS...: `BENCH ARGS... --fill-only` under MC_BENCH_BUSY, then
# `BENCH ARGS... --measure-only` (`--queries-only` for the tree) under MC_BENCH_QUIET; prints
# the measure's line with the fill's figures added.
fill_then_measure() {
  local fill measure only=--measure-only
  [[ $1 == */tree_bench ]] && only=--queries-only
  fill=$(${MC_BENCH_BUSY:-} "$@" --fill-only)
  measure=$(${MC_BENCH_QUIET:-} "$@" "$only")
  python3 -c 'import json, sys; m = json.loads(sys.argv[2]); m.update({k: v for k, v in json.loads(sys.argv[1]).items() if k not in m}); print(json.dumps(m))' \
    "$fill" "$measure"
}

# `tree deploy/web` (1,000 Pods on 100 Nodes, ConfigMaps mounted) inside N objects in all, in
# the store alone, on SQLite and PostgreSQL (a fresh database each).
bench_tree() {
  local n=${1:-1000000}
  eval "$(scripts/testdb up --dir "$WORK/db")"
  local db
  db="bench_$(date +%s)"
  PGPASSWORD=mc psql -q -h 127.0.0.1 -p "${MC_TESTDB_POSTGRES_PORT:-26301}" -U mc -d mc -c "CREATE DATABASE $db" >&2
  step "SQLite: tree of 1,000 pods in $n objects" >&2
  fill_then_measure "$TARGET/examples/tree_bench" "sqlite://$WORK/store.db" "$n"
  rm -f "$WORK"/store.db*
  step "PostgreSQL: tree of 1,000 pods in $n objects" >&2
  fill_then_measure "$TARGET/examples/tree_bench" "${MC_TEST_POSTGRES_URL%/*}/$db" "$n"
}

# Free-text search in the store alone (see examples/search_bench.rs): on SQLite, then on
# PostgreSQL (fresh databases each), a first sync of N pods into a store without the search
# index and one with it, batch after batch in turn; then searches of the second, p50/p99.
bench_search() {
  local n=${1:-1000000}
  eval "$(scripts/testdb up --dir "$WORK/db")"
  local db
  db="bench_$(date +%s)"
  PGPASSWORD=mc psql -q -h 127.0.0.1 -p "${MC_TESTDB_POSTGRES_PORT:-26301}" -U mc -d mc \
    -c "CREATE DATABASE ${db}_off" -c "CREATE DATABASE ${db}_on" >&2
  step "SQLite: $n pods, search index off and on" >&2
  "$TARGET/examples/search_bench" "sqlite://$WORK/off.db" "sqlite://$WORK/on.db" "$n"
  rm -f "$WORK"/off.db* "$WORK"/on.db*
  step "PostgreSQL: $n pods, search index off and on" >&2
  "$TARGET/examples/search_bench" "${MC_TEST_POSTGRES_URL%/*}/${db}_off" "${MC_TEST_POSTGRES_URL%/*}/${db}_on" "$n"
}

# The figures go to stdout as they come and to a file, for the results file. Through fd 1
# only: the servers a bench starts send their own stdout elsewhere, so none keeps the pipe open
# and tee ends when the bench has.
exec {STDOUT_FD}>&1 > >(tee "$WORK/figures.jsonl")
FIGURES_PID=$!
"bench_${MODE//-/_}" "$N"
exec >&"$STDOUT_FD" {STDOUT_FD}>&-
wait "$FIGURES_PID"
inputs=(clusters="${#CLUSTERS[@]}" n="$N" server="${MC_BENCH_SERVER:-}" binaries="${MC_BENCH_TARGET:-}")
case $MODE in
  sync) inputs+=(configmaps_per_cluster="$N" runs="${MC_BENCH_RUNS:-3}" "backends=sqlite,postgres,mariadb"
    payload="${MC_BENCH_PAYLOAD:-repeated}" settle_seconds="${MC_BENCH_SETTLE:-30}"
    steady_seconds="${MC_BENCH_STEADY:-45}" vs_build="${MC_BENCH_VS:-}") ;;
  dispatch) inputs+=(resources="$N" backends=sqlite) ;;
  cli) inputs+=(pods="$N" runs=5 backends=sqlite) ;;
  join) inputs+=(configmaps="$N" backends=sqlite) ;;
  store) inputs+=(objects="$N" "backends=sqlite,mariadb,postgres") ;;
  history) inputs+=(objects="$N" revisions="$((N * 10))" "backends=sqlite,postgres") ;;
  count) inputs+=(pods="$N" runs=20 "backends=sqlite,postgres" "stores=indexed,plain,expression"
    plain_sample="${MC_BENCH_PLAIN_SAMPLE:-$N}" plain_runs="${MC_BENCH_PLAIN_RUNS:-3}") ;;
  tree) inputs+=(objects="$N" tree_pods=1000 runs=200 "backends=sqlite,postgres") ;;
  search) inputs+=(pods="$N" runs=100 "backends=sqlite,postgres") ;;
  watch) inputs+=(rate="$N" seconds=20 backends=sqlite vs_build="${MC_BENCH_VS:-}") ;;
  watch-history) inputs+=(rate="$N" seconds=20 "rounds=${MC_BENCH_ROUNDS:-4}" "apart=${MC_BENCH_APART:-0}" backends=sqlite "vs_build=this build, history off") ;;
  replicas) inputs+=(backends=postgres max_clusters_per_replica="$(((N + 2) / 3))") ;;
  access) inputs+=(pods="$N" namespaces=102 bound_namespaces=50 runs=15 backends=sqlite) ;;
  logs) inputs+=(log_mb="$N" runs=3 backends=sqlite) ;;
esac
results=$(python3 scripts/bench/results.py --mode "$MODE" --figures "$WORK/figures.jsonl" \
  --started "$STARTED" --load-at-start "$LOAD_AT_START" --command "scripts/bench.sh $*" \
  ${MC_BENCH_RESULTS:+--out "$MC_BENCH_RESULTS"} "${inputs[@]/#/--input=}")
info "results: $results" >&2
