# The example hosts of the plain core module (examples/hosts/): Python on PyPI's wasmtime and
# Node on its built-in WebAssembly API each render examples/platform-db from its documents and
# must print byte for byte what `xprender render ... --output json` prints for the same files;
# given each tree fixture's request as it is (--request), they must print what
# `xprender render --request FILE --output json` prints, on the stream it prints it to, and exit
# as it exits.
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

# The whole tree (tests/fixtures/tree), and one Output with a Fatal result (which no tree case
# has), each request sent as it is. An Output goes to stdout (exit 1 with a Fatal result), an
# error document to stderr (exit 1); both hosts must match the CLI on the stream the answer goes
# to and on the exit code.
requests=(tests/fixtures/tree/*/request.json)
[ -f "${requests[0]}" ] || die "no tests/fixtures/tree/*/request.json"
requests+=(tests/fixtures/after-apply/connection-detail/request.json)
for request in "${requests[@]}"; do
  case=${request#tests/fixtures/}
  case=${case%/request.json}
  code=0
  cli render --request "$request" --output json >"$out/cli.out" 2>"$out/cli.err" || code=$?
  # The engine's answer: an error document on stderr with nothing on stdout, else the Output.
  if [ "$code" -eq 1 ] && [ ! -s "$out/cli.out" ]; then stream=err; else stream=out; fi
  [ -s "$out/cli.$stream" ] || die "$case: the CLI printed no answer (exit $code)"
  for host in python node; do
    host_code=0
    if [ "$host" = python ]; then
      "$venv/bin/python" examples/hosts/python/render.py "$wasm" --request "$request" \
        >"$out/$host.out" 2>"$out/$host.err" || host_code=$?
    else
      node "$node_host/render.mjs" "$wasm" --request "$request" \
        >"$out/$host.out" 2>"$out/$host.err" || host_code=$?
    fi
    [ "$host_code" -eq "$code" ] ||
      die "$case: the $host host exits $host_code, the CLI $code ($(head -c 300 "$out/$host.err"))"
    diff=$(cmp "$out/cli.$stream" "$out/$host.$stream" 2>&1) ||
      die "$case: the $host host's std$stream differs from the CLI's: $diff"
    [ "$stream" = out ] || [ ! -s "$out/$host.out" ] ||
      die "$case: the $host host printed on stdout for an error document"
  done
  echo "$case: both hosts print the CLI's $(wc -c <"$out/cli.$stream") bytes on std$stream, exit $code"
done
