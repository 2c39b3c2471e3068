"""Renders Kubernetes YAML files with xprender's core module on wasmtime.

    python render.py xprender.wasm FILE.yaml...

Every document of the files goes to the engine as it is, in one documents request; the engine
finds the XR, its Composition, the observed resources, their Secrets and the environment among
them. Prints the Output JSON as `xprender render ... --output json` does, and on stderr what the
engine chose.
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


def main():
    wasm_path, *paths = sys.argv[1:]
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
