# The xprender CLI beyond `cargo test --workspace`: the embedded core module built with
# binaryen's wasm-opt (node_modules), its size budget, the committed prebuilt module, and the
# README's main command, with the pinned toolchain and with a copy of it lacking wasm32; the
# static release binary (scripts/build-static.sh), the one release build of the run, and the
# Function package around it run as Crossplane runs it.
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

step "the static release binary (scripts/build-static.sh)"
# Every release-binary check below runs this binary (the README's `cargo run --release` builds
# the same sources, dynamically linked); no other release build of the CLI happens in the run.
static=$(bash "$ROOT/scripts/build-static.sh")
[ -x "$static" ] || die "build-static.sh printed no binary"

step "the README's main command (the static release binary)"
out=$("$static" render \
  examples/platform-db/xr.yaml examples/platform-db/composition.yaml \
  --observed-resources examples/platform-db/observed.yaml)
sed -n '1,5p' <<<"$out"
grep -q '^kind: XPostgreSQLInstance$' <<<"$out" || die "the example did not render the XR"
[ "$(grep -c '^---$' <<<"$out")" -ge 6 ] || die "the example rendered fewer than 5 composed resources"

step "the committed prebuilt core module (host/assets) is this commit's"
fresh=$(mktemp -d)
"$static" module --output "$fresh/core.wasm"
check_embedded xprender-core.wasm "$fresh/core.wasm"
rm -rf "$fresh"

step "the README's main command on the pinned toolchain without the wasm32 target"
# A real toolchain without the target: the pinned one hard-linked into the cache, its wasm32
# standard library removed, linked under its own name. rustup cannot add a target to a linked
# toolchain (as it cannot offline), so the build embeds the committed prebuilt module. A debug
# build stands in for --release (same embedded module; the engine's output does not depend on
# the host's profile).
rust_version=$(rustc -V | awk '{print $2}')
no_wasm="$XPRENDER_CACHE/rust-$rust_version-no-wasm32"
if [ ! -x "$no_wasm/bin/cargo" ]; then
  rm -rf "$no_wasm"
  cp -al "$(rustc --print sysroot)" "$no_wasm"
  rm -rf "$no_wasm/lib/rustlib/wasm32-unknown-unknown"
fi
rustup toolchain link xprender-no-wasm32 "$no_wasm" >/dev/null
sysroot=$(RUSTUP_TOOLCHAIN=xprender-no-wasm32 rustc --print sysroot)
[ ! -e "$sysroot/lib/rustlib/wasm32-unknown-unknown" ] || die "$sysroot still has the wasm32 target"
no_wasm_xprender() {
  RUSTUP_TOOLCHAIN=xprender-no-wasm32 CARGO_TARGET_DIR="$XPRENDER_CACHE/target-no-wasm32" \
    cargo run -q --locked -p xprender-host -- "$@"
}
log=$(mktemp)
start=$(date +%s)
offline=$(no_wasm_xprender render \
  examples/platform-db/xr.yaml examples/platform-db/composition.yaml \
  --observed-resources examples/platform-db/observed.yaml 2>"$log") || { cat "$log" >&2; die "the build without wasm32 failed"; }
printf 'built and rendered in %s s without the wasm32 target\n' "$(($(date +%s) - start))"
rm -f "$log"
no_wasm_xprender version | grep 'engine: .*prebuilt host/assets' ||
  die "the build without wasm32 does not say it embeds the prebuilt module"
[ "$offline" = "$out" ] || die "the render without the wasm32 target differs from the pinned toolchain's"

step "the installed binary works outside the repository"
# The static binary copied into a bin directory of its own, as `cargo install --path host`
# places its build, and run from elsewhere: nothing it needs is looked up in the repository.
install_root=$(mktemp -d)
mkdir "$install_root/bin"
cp "$static" "$install_root/bin/xprender"
installed="$install_root/bin/xprender"
(
  cd "$install_root"
  out=$("$installed" render "$ROOT/examples/platform-db/xr.yaml" \
    "$ROOT/examples/platform-db/composition.yaml" \
    --observed-resources "$ROOT/examples/platform-db/observed.yaml")
  grep -q '^kind: XPostgreSQLInstance$' <<<"$out" || die "the installed binary did not render the XR"
  "$installed" module --output core.wasm
  [ "$(head -c 4 core.wasm | od -An -tx1 | tr -d ' ')" = 0061736d ] ||
    die "xprender module --output wrote no wasm module"
  version=$("$installed" version)
  grep -q '^module: ' <<<"$version" || die "xprender version printed no module digest"
  "$installed" playground --help >/dev/null
)
rm -rf "$install_root"

step "xprender test: the examples' composition tests, JUnit report validated as XML"
need_apt python3
junit="$(mktemp -d)/junit.xml"
"$static" test examples --junit "$junit"
python3 - "$junit" <<'PY' || die "xprender test --junit wrote invalid JUnit XML"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
cases = root.findall("./testsuite/testcase")
assert cases and int(root.get("tests")) == len(cases), (root.attrib, len(cases))
assert root.get("failures") == "0", root.attrib
print(f"JUnit: {len(cases)} test cases in {len(root)} suites")
PY

step "the Function package run as Crossplane runs it (chroot, user 65532, mutual TLS)"
# The package built around the static binary, its image unpacked into an empty root and its
# entrypoint started there with only TLS_SERVER_CERTS_DIR (host/tests/function_image.rs).
[ "$(id -u)" -eq 0 ] || die "the Function image test starts the function with chroot: run the suite as root"
XPRENDER_STATIC_BIN="$static" cargo test -p xprender-host --locked --test function_image -- --ignored

step "core module size ceiling (today's size; the 250 KiB budget is in docs/benchmarks.md)"
cargo test -p xprender-host --locked --test module -- --ignored --nocapture
