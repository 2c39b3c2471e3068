#!/usr/bin/env bash
# Render benchmarks over benches/workloads/: native (criterion), the shipped core module in
# wasmtime (criterion, fresh and live instance; wasm instructions counted with fuel), the npm
# package in Node, and `function serve` under load over loopback gRPC. Prints the figures;
# docs/benchmarks.md records them.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
need_wasm_target
need_node_modules

step "resource series workloads (not committed: megabytes each)"
python3 scripts/gen-bench-workloads.py --series

step "native (cargo bench --bench render)"
cargo bench --locked --bench render -- --warm-up-time 2 --measurement-time 5 2>&1 \
  | grep -E '^[a-z-]+/|time:'

step "core module (profile wasm, wasm-opt -O3)"
cargo build --locked --profile wasm --target wasm32-unknown-unknown -p xprender
tgt="${CARGO_TARGET_DIR:-$ROOT/target}"
core="$tgt/bench-core.wasm"
node_modules/.bin/wasm-opt -O3 --strip-debug --strip-producers \
  "$tgt/wasm32-unknown-unknown/wasm/xprender.wasm" -o "$core"

step "wasmtime (cargo bench -p xprender-host --bench wasm)"
XPRENDER_WASM="$core" cargo bench --locked -p xprender-host --bench wasm -- \
  --warm-up-time 2 --measurement-time 5 2>&1 | grep -E '^[a-z-]+/|time:'

step "wasm instructions per render (wasmtime fuel: the same on a loaded machine)"
for w in small medium large tree tree-flat tree-until-ready tree-new-until-ready series-2500 series-5000 series-10000 series-20000; do
  case $w in series-*) rounds=1 ;; *) rounds=20 ;; esac
  printf '%s: ' "$w"
  cargo run --locked -q --release -p xprender-host --example fuel -- \
    "$core" "benches/workloads/$w.json" "$rounds" | tr '\n' ' '
  echo
done

step "machine instructions per render (callgrind, the host's configuration: the same on a loaded machine)"
scripts/native-count.sh "$core" benches/workloads/{small,medium,medium-step,large}.json

step "Node (npm package, nodejs target)"
scripts/build-web.sh >/dev/null
node scripts/bench-node.cjs

step "function serve over loopback gRPC (cargo bench -p xprender-host --bench function)"
cargo bench --locked -p xprender-host --bench function
