// The package's surface: version, argument handling and the shape of thrown errors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadNodeBuild, pkgDir, repoRoot } from './helpers.js';

const engine = loadNodeBuild();

test('version() is the crate version and the package version', () => {
  const cargo = readFileSync(join(repoRoot, 'Cargo.toml'), 'utf8');
  const crate = /^version = "([^"]+)"/m.exec(cargo)[1];
  assert.equal(engine.version(), crate);
  assert.equal(JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version, crate);
});

function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected render to throw');
}

test('render() throws InvalidRequest for values JSON cannot carry', () => {
  const e = thrown(() => engine.render({ spec: { n: 1n } }, {}, null, null));
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'XprenderError');
  assert.equal(e.kind, 'InvalidRequest');
  assert.match(e.message, /^cannot encode request: /);
  assert.deepStrictEqual(e.context, {});

  const cyclic = {};
  cyclic.self = cyclic;
  assert.equal(thrown(() => engine.render(cyclic, {})).kind, 'InvalidRequest');
});

test('render() treats missing observed and options as absent', () => {
  const req = JSON.parse(readFileSync(join(pkgDir, 'test', 'requests', 'minimal.json'), 'utf8'));
  const bare = JSON.stringify({ xr: req.xr, composition: req.composition });
  const want = JSON.parse(engine.renderJson(bare));
  for (const rest of [[], [undefined, undefined], [null, null]]) {
    let got;
    try {
      got = engine.render(req.xr, req.composition, ...rest);
    } catch (e) {
      got = { error: { kind: e.kind, message: e.message, context: e.context } };
    }
    assert.deepStrictEqual(got, want);
  }
});

test('renderJson() answers an error document for text that is not JSON', () => {
  const doc = JSON.parse(engine.renderJson('{"xr": '));
  assert.equal(doc.error.kind, 'InvalidRequest');
  assert.equal(typeof doc.error.message, 'string');
  assert.deepStrictEqual(doc.error.context, {});
});

test('the package resolves by name: nodejs build for Node, web build under /web', async () => {
  const byName = await import('xprender-wasm');
  assert.equal(byName.version(), engine.version());
  const doc = JSON.parse(byName.renderJson('[]'));
  assert.equal(doc.error.kind, 'InvalidRequest');
  const web = await import('xprender-wasm/web');
  assert.equal(typeof web.initSync, 'function');
  assert.equal(typeof web.default, 'function');
});

test('renderDocuments() takes objects or JSON text and answers what renderJson answers', () => {
  const dir = join(repoRoot, 'tests', 'fixtures', 'documents');
  for (const name of ['observed-and-secret', 'xrd-defaults', 'options-xr', 'several-xr-candidates']) {
    const req = JSON.parse(readFileSync(join(dir, name, 'request.json'), 'utf8'));
    const want = JSON.parse(engine.renderJson(JSON.stringify(req)));
    for (const docs of [req.documents, JSON.stringify(req.documents)]) {
      let got;
      try {
        got = engine.renderDocuments(docs, req.options);
      } catch (e) {
        assert.equal(e.name, 'XprenderError');
        got = { error: { kind: e.kind, message: e.message, context: e.context } };
      }
      assert.deepStrictEqual(got, want, name);
    }
  }
  const out = engine.renderDocuments(JSON.parse(readFileSync(join(dir, 'options-xr', 'request.json'), 'utf8')).documents, { xr: 'XThing/one', trace: true });
  assert.equal(out.inputs.xr, 'XThing/one');
  assert.equal(out.trace[0].outcome, 'applied');
});
