// Every gallery example (examples/ and examples/gallery/) renders with the engine (the package's nodejs build) as the playground
// would send it (the documents request; until ready when it has simulated providers): under its
// own semantics (auto) with no Warning or Fatal result, every composed resource rendered and no
// failed patch; under the other semantics at least without throwing (an example may use what only
// one engine accepts, which is what the selector is for).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { buildRequest } from '../../src/documents.js';
import { collect } from '../../src/gallery.js';

const www = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const root = join(www, '..', 'examples');
const engine = createRequire(import.meta.url)(join(www, 'xprender-wasm', 'nodejs', 'xprender.js'));

const files = {};
/** The YAML files of each directory under examples/ (and under examples/gallery/), by path. */
function read(rel) {
  for (const dir of readdirSync(join(root, rel), { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const f of readdirSync(join(root, rel, dir.name))) {
      if (f.endsWith('.yaml')) files[`examples/${rel}${dir.name}/${f}`] = readFileSync(join(root, rel, dir.name, f), 'utf8');
    }
  }
}
read('');
read('gallery/');
const examples = collect(files);

test('there are gallery examples, bundled and from public configurations', () => {
  const names = Object.keys(examples);
  assert.ok(names.filter((n) => !n.startsWith('gallery/')).length >= 2, names.join(', '));
  assert.ok(names.filter((n) => n.startsWith('gallery/')).length >= 2, names.join(', '));
});

for (const [name, texts] of Object.entries(examples)) {
  for (const semantics of ['auto', 'native', 'function']) {
    test(`example ${name} renders (${semantics})`, () => {
      const { request, problems } = buildRequest(texts, semantics, { untilReady: texts.untilReady === true });
      assert.ok(request, JSON.stringify(problems));
      const out = engine.renderDocuments(request.documents, request.options);
      assert.deepStrictEqual(out.inputs.unused, [], 'every document of the example is used');
      assert.equal(typeof out.ready, 'boolean');
      if (semantics !== 'auto') return;
      const bad = out.results.filter((r) => r.severity !== 'Normal');
      assert.deepStrictEqual(bad, []);
      const composition = request.documents.find((d) => d.kind === 'Composition');
      const templates = composition.spec.resources ??
        composition.spec.pipeline.flatMap((s) => s.input?.resources ?? []);
      // An unnamed template (classic mode) is named by its place, as the engine names it.
      assert.deepStrictEqual(Object.keys(out.resources), templates.map((t, i) => t.name ?? `resource ${i + 1}`));
      assert.ok(out.trace.length > 0, 'a trace');
      assert.ok(out.trace.every((e) => e.outcome === 'applied' || e.outcome === 'skipped'), 'no failed patch');
    });
  }
}
