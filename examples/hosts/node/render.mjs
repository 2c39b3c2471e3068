// Renders Kubernetes YAML files with xprender's core module on Node's built-in WebAssembly API.
//
//   node render.mjs xprender.wasm FILE.yaml...
//
// Every document of the files goes to the engine as it is, in one documents request; the engine
// finds the XR, its Composition, the observed resources, their Secrets and the environment among
// them. Prints the Output JSON as `xprender render ... --output json` does, and on stderr what the
// engine chose.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/** YAML 1.1 as kubectl reads manifests, except that timestamps stay strings. */
const YAML_OPTIONS = {
  version: '1.1',
  customTags: (tags) => tags.filter((t) => t.tag !== 'tag:yaml.org,2002:timestamp'),
};

function documents(paths) {
  const docs = [];
  for (const path of paths) {
    for (const doc of parseAllDocuments(readFileSync(path, 'utf8'), YAML_OPTIONS)) {
      if (doc.errors.length) throw new Error(`${path}: ${doc.errors[0].message}`);
      const value = doc.toJS();
      if (value !== null && value !== undefined) docs.push(value);
    }
  }
  return docs;
}

/** One render on a fresh instance: alloc, copy in, render, copy out (docs/abi.md). */
function render(wasm, request) {
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(wasm), {});
  if (exports.xprender_abi_version() !== 1) throw new Error('unsupported ABI version');
  const bytes = new TextEncoder().encode(request);
  const ptr = exports.xprender_alloc(bytes.length);
  new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes);
  const packed = BigInt.asUintN(64, exports.xprender_render(ptr, bytes.length));
  const outPtr = Number(packed >> 32n);
  const outLen = Number(packed & 0xffffffffn);
  if (outPtr + outLen > exports.memory.buffer.byteLength) throw new Error('the engine answered out of its memory');
  // Copy before the instance goes away; `memory.buffer` is read after the render grew it.
  return new TextDecoder().decode(new Uint8Array(exports.memory.buffer, outPtr, outLen).slice());
}

const [wasmPath, ...paths] = process.argv.slice(2);
// The options `xprender render` sends for files (as `crossplane render` does: a fixed condition
// time, results named by step, the Function context, Crossplane v2's render of a Pipeline), so
// both print the same bytes.
const options = { now: '2024-01-01T00:00:00Z', resultSteps: true, includeContext: true, crossplane: 'v2' };
const response = render(readFileSync(wasmPath), JSON.stringify({ documents: documents(paths), options }));
// `inputs` is the Output's last member: the render itself is what comes before it.
const cut = response.lastIndexOf(',"inputs":');
if (response.startsWith('{"error"') || cut < 0) {
  process.stdout.write(`${response}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`${response.slice(0, cut)}}\n`);
  const { inputs } = JSON.parse(response);
  console.error(`rendered ${inputs.xr} with Composition ${inputs.composition}`);
  for (const u of inputs.unused) console.error(`unused: ${u.kind}/${u.name}: ${u.why}`);
}
