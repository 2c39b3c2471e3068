# The example hosts of the plain core module (examples/hosts/): Python on PyPI's wasmtime and
# Node on its built-in WebAssembly API each render examples/platform-db from its documents and
# must print byte for byte what `xprender render ... --output json` prints for the same files.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need_wasm_target
need_node_modules
command -v node >/dev/null || need_apt nodejs npm

step "core module (profile wasm)"
cargo build -q --locked --profile wasm --target wasm32-unknown-unknown -p xprender
wasm="${CARGO_TARGET_DIR:-$ROOT/target}/wasm32-unknown-unknown/wasm/xprender.wasm"
[ -f "$wasm" ] || die "cargo produced no $wasm"

venv="$XPRENDER_CACHE/py-hosts"
if ! "$venv/bin/python" -c 'import wasmtime, yaml' 2>/dev/null; then
  step "installing the Python host's packages (wasmtime, PyYAML)"
  need_apt python3-venv
  python3 -m venv "$venv"
  quietly "$venv/bin/pip" install -q "wasmtime==50.0.1" "PyYAML==6.0.4"
fi
node_host="$ROOT/examples/hosts/node"
if [ ! -d "$node_host/node_modules" ] || [ "$node_host/package-lock.json" -nt "$node_host/node_modules/.package-lock.json" ]; then
  step "npm ci (examples/hosts/node)"
  (cd "$node_host" && npm ci --no-audit --no-fund --loglevel=error)
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ex=examples/platform-db
# The CLI: the static release binary 40-host built (cargo finds it fresh: no second build).
static=$(bash "$ROOT/scripts/build-static.sh")
step "the CLI renders $ex"
"$static" render "$ex/xr.yaml" "$ex/composition.yaml" \
  --observed-resources "$ex/observed.yaml" --environment "$ex/environment.yaml" --xrd "$ex/xrd.yaml" \
  --output json >"$out/cli.json"
docs=("$ex/xr.yaml" "$ex/composition.yaml" "$ex/xrd.yaml" "$ex/observed.yaml" "$ex/environment.yaml")
step "the Python host (wasmtime) renders the same documents"
"$venv/bin/python" examples/hosts/python/render.py "$wasm" "${docs[@]}" >"$out/python.json"
cmp "$out/cli.json" "$out/python.json" || die "the Python host's output differs from the CLI's"
step "the Node host (WebAssembly) renders the same documents"
node "$node_host/render.mjs" "$wasm" "${docs[@]}" >"$out/node.json"
cmp "$out/cli.json" "$out/node.json" || die "the Node host's output differs from the CLI's"
echo "both hosts print the CLI's $(wc -c <"$out/cli.json") bytes"

# Every bundled example as a documents request, its documents in several orders, renders what
# the CLI renders from its files (less the `inputs` report, which only the documents request has).
cli() { "$static" "$@"; }
for ex in examples/*/; do
  ex=${ex%/}
  [ -f "$ex/xr.yaml" ] || continue
  args=("$ex/xr.yaml" "$ex/composition.yaml")
  files=("$ex/xr.yaml" "$ex/composition.yaml")
  for f in observed:--observed-resources environment:--environment xrd:--xrd; do
    if [ -f "$ex/${f%%:*}.yaml" ]; then
      args+=("${f#*:}" "$ex/${f%%:*}.yaml")
      files+=("$ex/${f%%:*}.yaml")
    fi
  done
  cli render "${args[@]}" --output json >"$out/files.json"
  for seed in 1 2 3; do
    "$venv/bin/python" - "$seed" "${files[@]}" >"$out/request.json" <<'PY'
import json, random, sys
sys.path.insert(0, "examples/hosts/python")
from render import OPTIONS, documents
docs = documents(sys.argv[2:])
random.Random(int(sys.argv[1])).shuffle(docs)
print(json.dumps({"documents": docs, "options": OPTIONS}))
PY
    cli render --request "$out/request.json" --output json >"$out/documents.json"
    "$venv/bin/python" - "$out/files.json" "$out/documents.json" <<'PY' || die "$ex: the documents request (order $seed) renders otherwise than the files"
import sys
files, docs = (open(p, encoding="utf-8").read() for p in sys.argv[1:])
cut = docs.rfind(',"inputs":')
sys.exit(0 if cut > 0 and docs[:cut] + "}\n" == files else 1)
PY
  done
  echo "$ex: the documents request renders what the files render, in 3 orders"
done
