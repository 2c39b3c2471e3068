#!/usr/bin/env bash
# Builds the engine's wasm-bindgen face (feature `web`) into the npm package
# www/xprender-wasm/: targets web (the playground), nodejs and bundler, each
# optimised with binaryen's wasm-opt (-Oz after flatten and rereloop); and the
# validator's (crate xprender-validate, feature `web`) into www/validate-wasm/web/,
# the module the playground's worker loads the first time it validates. Generated
# files are gitignored.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
need_wasm_target
need_wasm_bindgen
need_node_modules

pkg="$ROOT/www/xprender-wasm"
version=$(awk -F'"' '/^version = /{print $2; exit}' "$ROOT/Cargo.toml")
pkg_version=$(node -p "require('$pkg/package.json').version")
[ "$version" = "$pkg_version" ] || die "www/xprender-wasm/package.json version $pkg_version differs from the crate's $version"

# A target dir of its own: the web feature must not invalidate the core module's build.
target="${CARGO_TARGET_DIR:-$ROOT/target}/web"
step "cargo build (feature web, profile web)"
# Dependencies' source paths named alike on every machine, so the playground committed
# under host/assets can be checked against a fresh build.
# Two flags of the pinned compiler that stable Rust gates (hence RUSTC_BOOTSTRAP, for
# this build alone) take 3.9 KB off the gzipped module. -Zlocation-detail=none: no
# file, line and column for each of the 400 panic sites (the module aborts on a panic
# and prints nothing). -Zfmt-debug=none: `Debug` writes nothing, which drops the
# escaping and Unicode tables that deriving it pulls in; no text the engine returns
# goes through `Debug`, and the web face's parity tests hold it to the core module's.
rustflags=(
  "--remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo"
  -Zlocation-detail=none
  -Zfmt-debug=none
)
CARGO_ENCODED_RUSTFLAGS=$(IFS=$'\x1f'; echo "${rustflags[*]}") RUSTC_BOOTSTRAP=1 \
  CARGO_TARGET_DIR="$target" nice -n 10 cargo build --locked --profile web \
  --target wasm32-unknown-unknown -p xprender --features web
step "cargo build (validator, feature web, profile web)"
CARGO_ENCODED_RUSTFLAGS=$(IFS=$'\x1f'; echo "${rustflags[*]}") RUSTC_BOOTSTRAP=1 \
  CARGO_TARGET_DIR="$target" nice -n 10 cargo build --locked --profile web \
  --target wasm32-unknown-unknown -p xprender-validate --features web
wasm="$target/wasm32-unknown-unknown/web/xprender.wasm"
[ -f "$wasm" ] || die "cargo produced no $wasm"

wasm_opt="$ROOT/node_modules/.bin/wasm-opt"
[ -x "$wasm_opt" ] || die "wasm-opt missing: run npm ci at the repository root"
for t in web nodejs bundler; do
  step "wasm-bindgen --target $t"
  rm -rf "${pkg:?}/$t"
  "$WASM_BINDGEN" --target "$t" --out-name xprender --out-dir "$pkg/$t" "$wasm"
  # Restructuring the control flow first (flatten, rereloop) lets -Oz find 1.4 KB
  # (gzipped) more than -Oz alone, and in less time. Merging the functions that
  # differ only in constants before that saves 0.6 KB more. -Oz inlines every
  # function called from one place whatever its size; a decoder merged into its
  # caller so has thousands of locals, and the module gzips 9 KB smaller (4 KB
  # larger raw) when only functions of binaryen size 40 or less are inlined so
  # (-ocimfs: 5 to 40 are within 0.5 KB of each other, 40 now the smallest).
  # Functions in name order put each module's code together, 0.5 KB less again
  # for gzip. The producers and target_features sections are read by no runtime.
  "$wasm_opt" -ocimfs 40 --merge-similar-functions --flatten --rereloop -Oz -Oz \
    --reorder-functions-by-name --strip-producers --strip-target-features \
    "$pkg/$t/xprender_bg.wasm" -o "$pkg/$t/xprender_bg.wasm"
done
# npm resolves the nodejs target's glue with require(): mark that folder CommonJS.
echo '{"type": "commonjs"}' >"$pkg/nodejs/package.json"

# The validator: the playground's worker alone loads it (web target), and the unit tests
# through initSync. The same wasm-opt passes take 60 KB off its gzip against -Oz alone.
validate_out="$ROOT/www/validate-wasm/web"
step "wasm-bindgen --target web (validator)"
rm -rf "$validate_out"
"$WASM_BINDGEN" --target web --out-name validate --out-dir "$validate_out" \
  "$target/wasm32-unknown-unknown/web/xprender_validate.wasm"
"$wasm_opt" -ocimfs 40 --merge-similar-functions --flatten --rereloop -Oz -Oz \
  --reorder-functions-by-name --strip-producers --strip-target-features \
  "$validate_out/validate_bg.wasm" -o "$validate_out/validate_bg.wasm"
vsize=$(stat -c %s "$validate_out/validate_bg.wasm")
vgz=$(gzip -9 -c "$validate_out/validate_bg.wasm" | wc -c)
printf 'validator wasm (web target): %d bytes, %d bytes gzipped\n' "$vsize" "$vgz"

size=$(stat -c %s "$pkg/web/xprender_bg.wasm")
gz=$(gzip -9 -c "$pkg/web/xprender_bg.wasm" | wc -c)
printf 'engine wasm (web target): %d bytes, %d bytes gzipped\n' "$size" "$gz"
