#!/usr/bin/env bash
# Writes the built artifacts the xprender binary embeds into host/assets, to be committed:
#   xprender-core.wasm  the core module build.rs embeds, for toolchains without the wasm32 target
#   playground/         the built playground (vite output) that `xprender playground` serves
# Both follow the engine: run this after changing src/ (or www/), and commit host/assets.
#   scripts/build-embedded.sh           refresh host/assets
#   scripts/build-embedded.sh --check   build both afresh and fail if host/assets differs
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
check=""
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) die "usage: scripts/build-embedded.sh [--check]" ;;
esac
need_wasm_target
need_node_modules
[ -d "$ROOT/www/node_modules" ] || (cd "$ROOT/www" && npm ci --no-audit --no-fund --loglevel=error)

fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT

# The module the host's build script builds from this commit (wasm32 target present, so it is
# built from src/, not copied from host/assets).
step "core module (as the host embeds it)"
cargo run -q --locked -p xprender-host -- module --output "$fresh/xprender-core.wasm"

step "playground (wasm-bindgen web package, vite build)"
bash "$ROOT/scripts/build-web.sh"
(cd "$ROOT/www" && npx vite build --logLevel warn --outDir "$fresh/playground" --emptyOutDir)

if [ -n "$check" ]; then
  check_embedded xprender-core.wasm "$fresh/xprender-core.wasm"
  check_embedded playground "$fresh/playground"
  exit 0
fi
mkdir -p "$EMBEDDED"
cp "$fresh/xprender-core.wasm" "$EMBEDDED/xprender-core.wasm"
rm -rf "$EMBEDDED/playground"
cp -r "$fresh/playground" "$EMBEDDED/playground"
printf 'host/assets refreshed: commit it with the change that caused it\n'
