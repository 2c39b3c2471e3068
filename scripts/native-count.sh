#!/usr/bin/env bash
# Machine instructions per render of a core module under the host's wasmtime configuration,
# counted by valgrind's callgrind: unlike time they do not move with the machine's load, and
# unlike wasmtime fuel they include what each wasm instruction, epoch check and call out to
# the host (memory.copy, memory.fill) costs.
#   scripts/native-count.sh MODULE.wasm WORKLOAD.json...
#   XPRENDER_BENCH_EPOCHS=0 scripts/native-count.sh ...   (without the deadline's checks)
# Each workload runs three times in one process each (0, 1 and 21 renders on one instance):
# "fresh" is the first render on a new instance, "live" the mean of the next twenty. Beside
# them, the yardstick: parsing the same request into a serde_json::Value, natively.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
[ $# -ge 2 ] || die "usage: scripts/native-count.sh MODULE.wasm WORKLOAD.json..."
command -v valgrind >/dev/null || need_apt valgrind
module=$1
shift
cargo build --locked -q --release -p xprender-host --example native_count
bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/native_count"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Compiled once, so that the count holds no compilation.
"$bin" "$module" --precompile "$work/module.cwasm"
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 |
    awk '/Collected/ { print $4 }'
}
for w in "$@"; do
  none=$(count "$work/module.cwasm" "$w" 0)
  one=$(count "$work/module.cwasm" "$w" 1)
  many=$(count "$work/module.cwasm" "$w" 21)
  parse_one=$(count --serde-json "$w" 1)
  parse_many=$(count --serde-json "$w" 21)
  printf '%s: fresh %d, live %d instructions per render; serde_json parse %d\n' \
    "$(basename "$w" .json)" $((one - none)) $(((many - one) / 20)) \
    $(((parse_many - parse_one) / 20))
done
