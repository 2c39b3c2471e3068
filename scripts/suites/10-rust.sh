# Formatting, lints (native and wasm32) and the Rust test suites of the workspace.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need_wasm_target

step "cargo fmt --check"
cargo fmt --all -- --check

step "clippy (native, all targets)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "clippy (engine with the serde feature)"
cargo clippy -p xprender --features serde --all-targets --locked -- -D warnings

step "clippy (engine, wasm32)"
cargo clippy -p xprender --target wasm32-unknown-unknown --locked -- -D warnings
# The validator is pure too: the playground will run it in the browser.
cargo clippy -p xprender-validate --target wasm32-unknown-unknown --locked -- -D warnings

step "cargo test"
cargo test --workspace --locked

step "cargo test (engine with the serde feature)"
cargo test -p xprender --features serde --locked --test serde

step "engine builds for wasm32 (profile wasm)"
cargo build --profile wasm --target wasm32-unknown-unknown -p xprender --locked
