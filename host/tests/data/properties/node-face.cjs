// The Node face of the render properties: the core module on Node's built-in WebAssembly API,
// fed one request per line of stdin, a fresh instance per render (as every host does). Each
// answer is one line: {"answer": "<the engine's JSON>"}, or {"trap": "<message>"} when the
// module traps.
//
//   node node-face.cjs xprender.wasm
'use strict';
const { readFileSync } = require('node:fs');
const readline = require('node:readline');

const core = new WebAssembly.Module(readFileSync(process.argv[2]));

function render(request) {
  const { exports } = new WebAssembly.Instance(core, {});
  const bytes = new TextEncoder().encode(request);
  const ptr = exports.xprender_alloc(bytes.length);
  new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes);
  const packed = BigInt.asUintN(64, exports.xprender_render(ptr, bytes.length));
  const outPtr = Number(packed >> 32n);
  const outLen = Number(packed & 0xffffffffn);
  return new TextDecoder().decode(new Uint8Array(exports.memory.buffer, outPtr, outLen).slice());
}

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  let reply;
  try {
    reply = { answer: render(line) };
  } catch (e) {
    reply = { trap: String(e) };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
});
