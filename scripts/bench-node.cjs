// Times renderJson of the npm package (nodejs target) over benches/workloads, in µs per render.
// Usage: node scripts/bench-node.cjs (after scripts/build-web.sh).
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');

const root = join(__dirname, '..');
const engine = require(join(root, 'www/xprender-wasm/nodejs/xprender.js'));

for (const name of ['small', 'medium', 'large']) {
  const request = readFileSync(join(root, 'benches/workloads', `${name}.json`), 'utf8');
  const first = engine.renderJson(request);
  if (first.startsWith('{"error"')) throw new Error(`${name} does not render: ${first}`);
  // Warm up, then take the median of batches long enough to dwarf timer resolution.
  const iterations = name === 'large' ? 5 : name === 'medium' ? 50 : 500;
  for (let i = 0; i < iterations; i++) engine.renderJson(request);
  const batches = [];
  for (let b = 0; b < 11; b++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) engine.renderJson(request);
    batches.push(((performance.now() - t0) * 1000) / iterations);
  }
  batches.sort((a, b) => a - b);
  console.log(`${name}: ${batches[5].toFixed(1)} µs per render (median of 11 batches of ${iterations})`);
}
