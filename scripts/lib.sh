# Shared helpers for the project's scripts (sourced, not run).

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
info() { printf '    %s\n' "$*"; }
fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Installs Debian packages that are missing (idempotent; `apt-get update` only when needed).
apt_install() {
  local missing=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  info "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

require_toolchains() {
  command -v go >/dev/null || fail "Go is required to build the test clusters (https://go.dev/dl/)"
  command -v cargo >/dev/null || fail "Rust (cargo) is required (https://rustup.rs)"
}
