# A short run of every fuzz target (libFuzzer via cargo-fuzz); docs/security.md records the
# long runs. XPRENDER_FUZZ_SECONDS changes the time per target.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
bash "$ROOT/scripts/fuzz.sh" "${XPRENDER_FUZZ_SECONDS:-20}"
