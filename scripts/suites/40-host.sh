# The xprender CLI beyond `cargo test --workspace`: the embedded core module built with
# binaryen's wasm-opt (node_modules), its size budget, and the README's main command.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need_wasm_target
need_apt gzip
need_node_modules
[ -x "$ROOT/node_modules/.bin/wasm-opt" ] || die "node_modules/.bin/wasm-opt is missing after npm ci"

step "host tests with the wasm-opt build"
# build.rs re-runs when node_modules appears, so the embedded module is the optimized one.
cargo test -p xprender-host --locked --no-fail-fast

step "render properties on the three faces: native, wasmtime and Node's WebAssembly"
cargo test -p xprender-host --locked --test properties -- --ignored

step "the README's main command"
out=$(cargo run -q --release --locked -p xprender-host -- render \
  examples/platform-db/xr.yaml examples/platform-db/composition.yaml \
  --observed-resources examples/platform-db/observed.yaml)
sed -n '1,5p' <<<"$out"
grep -q '^kind: XPostgreSQLInstance$' <<<"$out" || die "the example did not render the XR"
[ "$(grep -c '^---$' <<<"$out")" -ge 6 ] || die "the example rendered fewer than 5 composed resources"

step "xprender test: the examples' composition tests, JUnit report validated as XML"
need_apt python3
junit="$(mktemp -d)/junit.xml"
cargo run -q --release --locked -p xprender-host -- test examples --junit "$junit"
python3 - "$junit" <<'PY' || die "xprender test --junit wrote invalid JUnit XML"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
cases = root.findall("./testsuite/testcase")
assert cases and int(root.get("tests")) == len(cases), (root.attrib, len(cases))
assert root.get("failures") == "0", root.attrib
print(f"JUnit: {len(cases)} test cases in {len(root)} suites")
PY

step "core module size ceiling (today's size; the 250 KiB budget is in docs/benchmarks.md)"
cargo test -p xprender-host --locked --test module -- --ignored --nocapture
