// Renders Kubernetes YAML files with xprender's core module on Node's built-in WebAssembly API.
//
//   node render.mjs xprender.wasm FILE.yaml...
//   node render.mjs xprender.wasm --request FILE|-
//
// Every document of the files goes to the engine as it is, in one documents request; the engine
// finds the XR, its Composition, the observed resources, their Secrets and the environment among
// them. Prints the Output JSON as `xprender render ... --output json` does, and on stderr what the
// engine chose.
//
// With --request, a request file (or stdin) goes to the engine byte for byte, and its answer is
// printed as `xprender render --request FILE --output json` prints it: an Output on stdout (exit 1
// when it has a Fatal result), an error document on stderr (exit 1).
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
function render(wasm, bytes) {
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(wasm), {});
  if (exports.xprender_abi_version() !== 1) throw new Error('unsupported ABI version');
  const ptr = exports.xprender_alloc(bytes.length);
  new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes);
  const packed = BigInt.asUintN(64, exports.xprender_render(ptr, bytes.length));
  const outPtr = Number(packed >> 32n);
  const outLen = Number(packed & 0xffffffffn);
  if (outPtr + outLen > exports.memory.buffer.byteLength) throw new Error('the engine answered out of its memory');
  // Copy before the instance goes away; `memory.buffer` is read after the render grew it.
  return new Uint8Array(exports.memory.buffer, outPtr, outLen).slice();
}

// The options `xprender render` sends for files (as `crossplane render` does: a fixed condition
// time, results named by step, the Function context, Crossplane v2's render of a Pipeline), so
// both print the same bytes.
const OPTIONS = { now: '2024-01-01T00:00:00Z', resultSteps: true, includeContext: true, crossplane: 'v2' };

/** The YAML files' documents as one documents request; prints the render, returns the exit code. */
function renderDocuments(wasm, paths) {
  const request = JSON.stringify({ documents: documents(paths), options: OPTIONS });
  const response = new TextDecoder().decode(render(wasm, new TextEncoder().encode(request)));
  // `inputs` is the Output's last member: the render itself is what comes before it.
  const cut = response.lastIndexOf(',"inputs":');
  if (response.startsWith('{"error"') || cut < 0) {
    process.stdout.write(`${response}\n`);
    return 1;
  }
  process.stdout.write(`${response.slice(0, cut)}}\n`);
  const { inputs } = JSON.parse(response);
  console.error(`rendered ${inputs.xr} with Composition ${inputs.composition}`);
  for (const u of inputs.unused) console.error(`unused: ${u.kind}/${u.name}: ${u.why}`);
  return 0;
}

/** A raw request's answer, printed as the CLI prints it; returns the exit code. */
function renderRequest(wasm, source) {
  const response = Buffer.from(render(wasm, readFileSync(source === '-' ? 0 : source)));
  const line = Buffer.concat([response, Buffer.from('\n')]);
  if (response.toString('utf8', 0, 8) === '{"error"') {
    process.stderr.write(line);
    return 1;
  }
  process.stdout.write(line);
  const { results = [] } = JSON.parse(response.toString('utf8'));
  const fatal = results.find((r) => r.severity === 'Fatal');
  if (!fatal) return 0;
  console.error(`error: ${fatal.resource ? `${fatal.resource}: ` : ''}${fatal.message ?? ''}`);
  return 1;
}

const [wasmPath, ...args] = process.argv.slice(2);
if (!wasmPath || !args.length) {
  console.error('usage: render.mjs xprender.wasm FILE.yaml... | --request FILE|-');
  process.exit(2);
}
if (args[0] === '--request' && args.length !== 2) {
  console.error('--request takes one FILE (or - for stdin), and no YAML files');
  process.exit(2);
}
const wasm = readFileSync(wasmPath);
process.exitCode = args[0] === '--request' ? renderRequest(wasm, args[1]) : renderDocuments(wasm, args);
