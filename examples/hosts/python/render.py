"""Renders Kubernetes YAML files with xprender's core module on wasmtime.

    python render.py xprender.wasm FILE.yaml...
    python render.py xprender.wasm --request FILE|-

Every document of the files goes to the engine as it is, in one documents request; the engine
finds the XR, its Composition, the observed resources, their Secrets and the environment among
them. Prints the Output JSON as `xprender render ... --output json` does, and on stderr what the
engine chose.

With --request, a request file (or stdin) goes to the engine byte for byte, and its answer is
printed as `xprender render --request FILE --output json` prints it: an Output on stdout (exit 1
when it has a Fatal result), an error document on stderr (exit 1).
"""

import json
import sys

import wasmtime
import yaml


class KubeLoader(yaml.SafeLoader):
    """YAML 1.1 as kubectl reads manifests, except that timestamps stay strings."""


KubeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def documents(paths):
    docs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            docs.extend(d for d in yaml.load_all(f, Loader=KubeLoader) if d is not None)
    return docs


def render(wasm_path, request):
    """One render on a fresh instance: alloc, copy in, render, copy out (docs/abi.md)."""
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    module = wasmtime.Module.from_file(engine, wasm_path)
    exports = wasmtime.Instance(store, module, []).exports(store)
    if exports["xprender_abi_version"](store) != 1:
        raise SystemExit("unsupported ABI version")
    memory = exports["memory"]
    ptr = exports["xprender_alloc"](store, len(request))
    memory.write(store, request, ptr)
    packed = exports["xprender_render"](store, ptr, len(request)) & 0xFFFF_FFFF_FFFF_FFFF
    out_ptr, out_len = packed >> 32, packed & 0xFFFF_FFFF
    if out_ptr + out_len > memory.data_len(store):
        raise SystemExit("the engine answered out of its memory")
    return bytes(memory.read(store, out_ptr, out_ptr + out_len))


# The options `xprender render` sends for files (as `crossplane render` does: a fixed condition
# time, results named by step, the Function context, Crossplane v2's render of a Pipeline), so
# both print the same bytes.
OPTIONS = {
    "now": "2024-01-01T00:00:00Z",
    "resultSteps": True,
    "includeContext": True,
    "crossplane": "v2",
}


def fatal_result(output):
    """The first Fatal result of an Output, or None."""
    return next((r for r in output.get("results") or [] if r.get("severity") == "Fatal"), None)


def render_request(wasm_path, source):
    """The engine's answer to a raw request, printed as the CLI prints it."""
    if source == "-":
        request = sys.stdin.buffer.read()
    else:
        with open(source, "rb") as f:
            request = f.read()
    response = render(wasm_path, request)
    if response.startswith(b'{"error"'):
        sys.stderr.buffer.write(response + b"\n")
        return 1
    sys.stdout.buffer.write(response + b"\n")
    fatal = fatal_result(json.loads(response))
    if fatal is not None:
        where = f"{fatal['resource']}: " if "resource" in fatal else ""
        print(f"error: {where}{fatal.get('message', '')}", file=sys.stderr)
        return 1
    return 0


def main():
    if len(sys.argv) < 3:
        print("usage: render.py xprender.wasm FILE.yaml... | --request FILE|-", file=sys.stderr)
        return 2
    wasm_path, *paths = sys.argv[1:]
    if paths[0] == "--request":
        if len(paths) != 2:
            print("--request takes one FILE (or - for stdin), and no YAML files", file=sys.stderr)
            return 2
        return render_request(wasm_path, paths[1])
    request = json.dumps({"documents": documents(paths), "options": OPTIONS}, ensure_ascii=False)
    response = render(wasm_path, request.encode("utf-8")).decode("utf-8")
    # `inputs` is the Output's last member: the render itself is what comes before it.
    cut = response.rfind(',"inputs":')
    if response.startswith('{"error"') or cut < 0:
        print(response)
        return 1
    print(response[:cut] + "}")
    inputs = json.loads(response)["inputs"]
    print(f"rendered {inputs['xr']} with Composition {inputs['composition']}", file=sys.stderr)
    for u in inputs["unused"]:
        print(f"unused: {u['kind']}/{u['name']}: {u['why']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
