#!/usr/bin/env bash
# Runs every cargo-fuzz target for a while: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# (default 20 seconds each, all targets). The pinned stable toolchain builds the targets under
# RUSTC_BOOTSTRAP=1 (libFuzzer's instrumentation flags are nightly-only); no sanitizer (the
# engine forbids unsafe code), debug assertions on (overflow checks). New corpus entries and
# crash artifacts go to a temporary directory, never into the repository; a crash prints its
# input and fails the run.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
# libfuzzer-sys compiles libFuzzer's C++ sources.
need_apt g++
need_cargo_fuzz

secs=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json_reader fieldpath go_fmt transforms render wire)

export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/fuzz/target}
flags=(-s none -a -O)

step "building the fuzz targets"
quietly "$CARGO_FUZZ" build "${flags[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/xprender-fuzz.XXXXXX")
for t in "${targets[@]}"; do
  step "fuzzing $t for ${secs}s"
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  seeds=()
  [ -d "fuzz/seeds/$t" ] && seeds=("fuzz/seeds/$t")
  log="$work/$t/log"
  if ! "$CARGO_FUZZ" run "${flags[@]}" "$t" "$work/$t/corpus" "${seeds[@]}" -- \
      -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$work/$t/artifacts/" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    for a in "$work/$t"/artifacts/*; do
      [ -f "$a" ] || continue
      printf 'crash input %s (base64):\n' "$a" >&2
      base64 -w0 "$a" >&2
      printf '\n' >&2
    done
    die "fuzz target $t failed (input above; add it as a fixture and fix the engine)"
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done ' "$log" | tr '\n' ' '
  printf '\n'
done
rm -rf "$work"
