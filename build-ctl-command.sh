#!/usr/bin/env bash
# Builds the kubectl plugin (release) and installs it on PATH, so `kubectl multicluster …` works.
#
#   ./build-ctl-command.sh [--prefix DIR]
#
# Installs into --prefix DIR if given, else /usr/local/bin when writable, else ~/.local/bin.
set -euo pipefail
cd "$(dirname "$0")"

prefix=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --prefix=*) prefix=${1#*=}; shift ;;
    -h | --help) echo "usage: $0 [--prefix DIR]"; exit 0 ;;
    *) echo "error: unknown option $1" >&2; exit 2 ;;
  esac
done

command -v cargo >/dev/null || { echo "error: cargo not found: install Rust (https://rustup.rs)" >&2; exit 1; }
cargo build --release --locked -p kubectl-multicluster
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
binary="${target_dir:-target}/release/kubectl-multicluster"
echo "Build successful: $binary"

if [[ -z $prefix ]]; then
  if [[ -w /usr/local/bin ]]; then
    prefix=/usr/local/bin
  else
    prefix=$HOME/.local/bin
  fi
fi
mkdir -p "$prefix"
install -m 0755 "$binary" "$prefix/kubectl-multicluster"
echo "Copied kubectl-multicluster to $prefix."
case ":$PATH:" in
  *":$prefix:"*) echo "Try: kubectl multicluster list clusters" ;;
  *) echo "note: $prefix is not on PATH; add it (export PATH=\"$prefix:\$PATH\") so kubectl finds the plugin" ;;
esac
