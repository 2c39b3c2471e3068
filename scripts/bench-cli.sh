#!/usr/bin/env bash
# Wall time of the README's main command (the bundled example rendered by the release CLI):
# cold (empty module cache: the engine is compiled) and warm (the compiled module is loaded
# from the cache). Uses hyperfine (Debian) when it can be installed, else a plain loop.
# Usage: scripts/bench-cli.sh [RUNS]   (default 50 warm runs, 5 cold runs)
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
runs=${1:-50}
need_node_modules   # wasm-opt, so the embedded module is the shipped one

step "release build"
cargo build -q --release --locked -p xprender-host
bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/xprender"
[ -x "$bin" ] || die "no binary at $bin"

cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export XPRENDER_CACHE_DIR="$cache/modules"
cmd="$bin render examples/platform-db/xr.yaml examples/platform-db/composition.yaml --observed-resources examples/platform-db/observed.yaml"
"$bin" version
$cmd > /dev/null || die "the example does not render"

if need_apt hyperfine 2>/dev/null && command -v hyperfine > /dev/null; then
  step "cold: empty module cache before every run"
  hyperfine -N --style basic --runs 5 --prepare "rm -rf $XPRENDER_CACHE_DIR" "$cmd" 2>/dev/null \
    || hyperfine --style basic --runs 5 --prepare "rm -rf $XPRENDER_CACHE_DIR" "$cmd"
  step "warm: module cache filled"
  $cmd > /dev/null
  hyperfine -N --style basic --warmup 5 --runs "$runs" "$cmd" 2>/dev/null \
    || hyperfine --style basic --warmup 5 --runs "$runs" "$cmd"
else
  ms() { date +%s%N; }
  step "cold (5 runs, hyperfine unavailable)"
  for _ in 1 2 3 4 5; do
    rm -rf "$XPRENDER_CACHE_DIR"
    t0=$(ms); $cmd > /dev/null; t1=$(ms)
    echo "  $(( (t1 - t0) / 1000000 )) ms"
  done
  step "warm ($runs runs)"
  total=0
  for _ in $(seq "$runs"); do
    t0=$(ms); $cmd > /dev/null; t1=$(ms)
    total=$(( total + t1 - t0 ))
  done
  echo "  mean $(( total / runs / 1000 )) µs"
fi
