# The JavaScript faces: the engine's npm package (Node tests, parity with native) and the
# playground (unit tests, build, the copy embedded in the binary, end-to-end tests in headless
# Chromium of www/dist and of `xprender playground`).
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need_apt chromium
need_wasm_target
command -v node >/dev/null || need_apt nodejs npm
node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' ||
  die "node $(node --version) is too old: the web tests need Node 20 or newer"

step "clippy (engine and validator with their web faces, wasm32)"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/web" cargo clippy -p xprender -p xprender-validate \
  --target wasm32-unknown-unknown --features xprender/web,xprender-validate/web --locked -- -D warnings

bash "$ROOT/scripts/build-web.sh"

www="$ROOT/www"
if [ ! -d "$www/node_modules" ] || [ "$www/package-lock.json" -nt "$www/node_modules/.package-lock.json" ]; then
  step "npm ci (www)"
  (cd "$www" && npm ci --no-audit --no-fund --loglevel=error)
fi

step "engine package: Node tests (every golden fixture, byte-identical to native)"
(cd "$www" && node --test xprender-wasm/test/)

step "engine package and validator module: hand-written TypeScript types (tsc --strict)"
(cd "$www" && npx tsc --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext \
  xprender-wasm/test/types.check.ts validate-wasm/test/types.check.ts)

step "playground: unit tests"
(cd "$www" && node --test test/unit/)

step "playground: build (www/dist)"
(cd "$www" && npx vite build --logLevel warn)

step "playground: the copy the binary embeds (host/assets/playground) is this build"
check_embedded playground "$www/dist"

step "playground: end-to-end test in headless Chromium (www/dist, and the binary's own)"
cargo build -q --locked -p xprender-host
(cd "$www" && CHROMIUM=/usr/bin/chromium XPRENDER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/xprender" \
  node --test --test-concurrency=1 test/e2e/)
printf 'screenshots: %s\n' "$ROOT/target/playground-e2e.png $ROOT/target/playground-e2e-trace.png" \
  "$ROOT/target/playground-e2e-gallery.png $ROOT/target/playground-e2e-problem.png $ROOT/target/playground-e2e-fixed.png"
