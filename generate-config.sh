#!/usr/bin/env bash
# Writes the kubectl-multicluster config (~/.multi-cluster-operator/config), as the Go project's
# script did:
#
#   ./generate-config.sh --ip localhost --port 31888 --config /root/.kube/config [--token T] [--force]
#                        [--certificate-authority CA.crt]
#
# --ip/--port: where mc-server listens; --config: the master cluster's kubeconfig (used by
# `kubectl multicluster apply/delete`); --token: the server's bearer token (mc-server requires
# one; a generated one is in its <data-dir>/token); --certificate-authority: the CA of an HTTPS
# server (use --ip https://HOST).
# The file goes to $KUBECTL_MULTICLUSTER_CONFIG if set, else ~/.multi-cluster-operator/config
# (--output FILE overrides both). An existing file is kept unless --force is given.
set -euo pipefail

usage() {
  echo "usage: $0 --ip IP --port PORT --config KUBECONFIG [--token TOKEN] [--certificate-authority FILE] [--force] [--output FILE]" >&2
  exit 2
}
fail() {
  echo "error: $*" >&2
  exit 1
}

ip="" port="" kubeconfig="" token="" ca="" force=false
output=${KUBECTL_MULTICLUSTER_CONFIG:-$HOME/.multi-cluster-operator/config}
while [[ $# -gt 0 ]]; do
  arg=$1
  value=""
  if [[ $arg == --*=* ]]; then
    value=${arg#*=}
    arg=${arg%%=*}
  elif [[ $arg != --force && $arg != -h && $arg != --help ]]; then
    [[ $# -ge 2 ]] || { echo "error: $arg needs a value" >&2; usage; }
    value=$2
    shift
  fi
  case $arg in
    --ip) ip=$value ;;
    --port) port=$value ;;
    --config) kubeconfig=$value ;;
    --token) token=$value ;;
    --certificate-authority) ca=$value ;;
    --output) output=$value ;;
    --force) force=true ;;
    -h | --help) usage ;;
    *) echo "error: unknown option $arg" >&2; usage ;;
  esac
  shift
done

[[ -n $ip ]] || { echo "error: --ip is required" >&2; usage; }
[[ -n $port ]] || { echo "error: --port is required" >&2; usage; }
[[ -n $kubeconfig ]] || { echo "error: --config is required" >&2; usage; }
[[ $port =~ ^[0-9]+$ ]] && ((port >= 1 && port <= 65535)) || fail "--port must be a number from 1 to 65535, got \"$port\""
[[ -f $kubeconfig ]] || echo "warning: kubeconfig $kubeconfig does not exist (yet); apply and delete need it" >&2
[[ $kubeconfig == /* ]] && abs_kubeconfig=$kubeconfig || abs_kubeconfig="$(pwd)/$kubeconfig"
if [[ -n $ca ]]; then
  [[ -f $ca ]] || fail "--certificate-authority $ca does not exist"
  [[ $ca == /* ]] || ca="$(pwd)/$ca"
fi

if [[ -e $output && $force != true ]]; then
  fail "$output already exists; pass --force to overwrite it"
fi

# Plain YAML when that reads back as the same string (as the Go project wrote it), else a
# single-quoted scalar, where a quote is written twice.
quote() {
  local v=$1 lower=${1,,}
  if [[ $v =~ ^[A-Za-z0-9_/~][A-Za-z0-9_./:@~-]*$ && ! $v =~ ^[0-9]*\.?[0-9]*$ &&
    ! $lower =~ ^(true|false|null|yes|no|on|off|~)$ ]]; then
    printf '%s' "$v"
  else
    printf "'%s'" "${v//\'/\'\'}"
  fi
}

mkdir -p "$(dirname "$output")"
tmp=$(mktemp "$(dirname "$output")/.config.XXXXXX")
{
  echo "serverIP: $(quote "$ip")"
  echo "serverPort: $port"
  echo "masterClusterKubeConfigPath: $(quote "$abs_kubeconfig")"
  [[ -z $token ]] || echo "token: '${token//\'/\'\'}'"
  [[ -z $ca ]] || echo "certificateAuthority: $(quote "$ca")"
} >"$tmp"
chmod 600 "$tmp"
mv -f "$tmp" "$output"
echo "Config written: $output"
