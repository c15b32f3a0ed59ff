# shellcheck shell=bash
# Shared helpers for the project's scripts (sourced, not run): messages, Debian packages,
# processes, ports, waiting, and mc-server. Each script sources it once:
#   source "$(dirname "$0")/lib.sh"        (or scripts/lib.sh from the repository's root)

# shellcheck source=scripts/versions.sh
source "${BASH_SOURCE[0]%/*}/versions.sh"

# --- messages ---------------------------------------------------------------------------------
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
info() { printf '    %s\n' "$*"; }
fail() { printf 'error: %s\n' "$*" >&2; exit 1; }
# log / die: the messages of the tools other scripts call (testenv, testdb), on stderr and
# tagged with the tool's name, so that their stdout stays theirs (testdb's is eval'd).
log() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { printf '[%s] error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
# usage FIRST LAST: prints lines FIRST..LAST of the script's header comment as its usage; exits 2.
usage() { sed -n "$1,$2p" "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# --- Debian packages --------------------------------------------------------------------------
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else fail "need root (or sudo) to run: $*"
  fi
}

deb_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# apt_install PACKAGE...: installs the Debian packages that are missing (idempotent; `apt-get
# update` only when one is missing). The services a package ships are not started: the scripts
# run private servers of their own (policy-rc.d refuses every start while installing).
apt_install() {
  local missing=() p
  for p in "$@"; do deb_installed "$p" || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  info "installing Debian packages: ${missing[*]}" >&2
  as_root apt-get update -qq >/dev/null
  local policy=/usr/sbin/policy-rc.d created_policy="" rc=0
  if [[ ! -e $policy ]]; then
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod +x $policy"
    created_policy=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null || rc=$?
  [[ -z $created_policy ]] || as_root rm -f "$policy"
  [[ $rc -eq 0 ]] || fail "apt-get install ${missing[*]} failed"
}

require_toolchains() {
  command -v go >/dev/null || fail "Go is required to build the test clusters (https://go.dev/dl/)"
  command -v cargo >/dev/null || fail "Rust (cargo) is required (https://rustup.rs)"
}

# --- time and processes -----------------------------------------------------------------------
now() { date +%s.%N; }
# elapsed T0 T1 [DIGITS]: T1 - T0 (two `now`s) in seconds, rounded to DIGITS (default 3)
elapsed() { python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), int(sys.argv[3])))' "$1" "$2" "${3:-3}"; }
# random_hex [BYTES]: BYTES (default 16) random bytes in hex, e.g. for a token
random_hex() { od -An -N"${1:-16}" -tx1 /dev/urandom | tr -d ' \n'; }

# pid_alive PIDFILE: whether the process whose pid PIDFILE holds is running
pid_alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
process_gone() { ! kill -0 "$1" 2>/dev/null; }
# stop_process PID [SECONDS] [SIGNAL]: sends SIGNAL (default TERM), waits up to SECONDS (default
# 5) for the process to exit, then kills it.
stop_process() {
  local pid=$1 seconds=${2:-5} signal=${3:-TERM}
  process_gone "$pid" && return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  wait_for "$seconds" "" process_gone "$pid" || kill -9 "$pid" 2>/dev/null || true
}
# stop_job PID: stops a background job of this shell and reaps it.
stop_job() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# wait_for SECONDS PID COMMAND...: runs COMMAND (its output dropped) every 0.2 s until it
# succeeds. Fails after SECONDS, or as soon as PID (the process awaited; "" for none) has exited.
wait_for() {
  local end=$((SECONDS + $1)) pid=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [[ -z $pid ]] || kill -0 "$pid" 2>/dev/null || return 1
    ((SECONDS < end)) || return 1
    sleep 0.2
  done
}

# --- ports ------------------------------------------------------------------------------------
# port_taken PORT: whether something listens on 127.0.0.1:PORT
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# free_ports N: N distinct loopback ports that are free now (the kernel's picks), on one line
free_ports() {
  python3 -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))' "$1"
}

# --- mc-server --------------------------------------------------------------------------------
# start_mc_server PID_VAR LOG COMMAND...: starts COMMAND (an mc-server, or nohup and one) in the
# background, its output appended to LOG, and sets PID_VAR to its pid at once, so that a
# cleanup trap can stop it whatever follows.
start_mc_server() {
  local log=$2
  "${@:3}" >>"$log" 2>&1 </dev/null &
  printf -v "$1" %s $!
}

# mc-server serves HTTPS with a CA it makes at first start (<data-dir>/tls/ca.crt) unless it is
# started with --plain-http; the scripts trust that CA.
# https_ready PORT CA: whether the mc-server on 127.0.0.1:PORT answers /readyz with 200 over
# HTTPS, verified with CA (false while the server has not written it yet).
https_ready() {
  [[ -f $2 ]] && curl -fsS -o /dev/null --max-time 5 --cacert "$2" "https://127.0.0.1:$1/readyz"
}

# http_ready PORT: the same over plain http (--plain-http). Asked by bash itself, not by curl:
# it starts no process (the bench asks every 20 ms beside what it times, and a curl each time
# used an eighth of a core of the 2 there are).
http_ready() {
  local fd status=""
  exec {fd}<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&"$fd"
  read -r -t 5 -u "$fd" _ status _ || true
  exec {fd}>&-
  [[ $status == 200 ]]
}

# wait_ready PORT PID SECONDS LOG [CA]: waits until the mc-server PID answers /readyz on PORT,
# over HTTPS trusting CA when given (else plain http); fails when SECONDS pass or it exits first
# (then the end of LOG is shown).
wait_ready() {
  if [[ -n ${5:-} ]]; then
    wait_for "$3" "$2" https_ready "$1" "$5" && return 0
  else
    wait_for "$3" "$2" http_ready "$1" && return 0
  fi
  process_gone "$2" && tail -20 "$4" >&2
  return 1
}
