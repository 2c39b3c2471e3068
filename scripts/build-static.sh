#!/usr/bin/env bash
# Builds the statically linked, stripped x86_64 `xprender` that a Function package runs (an
# image with no shell and no libraries), and prints its path.
#
#   scripts/build-static.sh        prints target/x86_64-unknown-linux-gnu/release/xprender
#
# The target is the host's own (x86_64-unknown-linux-gnu, no download); `+crt-static` and the
# linker's stripping (`-C strip=symbols`, what `strip` does) are set for that target only, so
# build scripts and the nested wasm32 build of the engine (host/build.rs) are built as usual,
# and cargo's own output is the stripped binary (no copy to keep fresh). The result is checked
# with readelf: no PT_INTERP program header (no dynamic loader), no DT_NEEDED entry (no shared
# library), no symbol table. Build output goes to stderr.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
need_apt binutils

triple=x86_64-unknown-linux-gnu
[ "$(rustc -vV | sed -n 's/^host: //p')" = "$triple" ] ||
  die "the static build is for $triple hosts; this one is $(rustc -vV | sed -n 's/^host: //p')"

start=$(date +%s)
CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS='-C target-feature=+crt-static -C strip=symbols' \
  cargo build -q --release --locked -p xprender-host --target "$triple" >&2
bin="${CARGO_TARGET_DIR:-$ROOT/target}/$triple/release/xprender"
[ -x "$bin" ] || die "cargo produced no $bin"
headers=$(readelf -lW "$bin")
dynamic=$(readelf -dW "$bin")
! grep -q 'INTERP' <<<"$headers" || die "$bin names a dynamic loader (PT_INTERP): it is not static"
! grep -q '(NEEDED)' <<<"$dynamic" || die "$bin needs shared libraries: $(grep '(NEEDED)' <<<"$dynamic")"
! grep -q '\.symtab' <<<"$(readelf -SW "$bin")" || die "$bin still has a symbol table after strip"
printf 'static xprender: %s (%s bytes, stripped, built in %s s)\n' \
  "$bin" "$(stat -c %s "$bin")" "$(($(date +%s) - start))" >&2
printf '%s\n' "$bin"
