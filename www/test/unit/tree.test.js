// The tree of nested XRs and the iterations, as the page shows them: rows from the engine's
// tree fixtures (tests/fixtures/tree) and from the gallery's platform rendered until ready.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { buildRequest, iterationViews, presentation, treeYaml } from '../../src/documents.js';
import { collect } from '../../src/gallery.js';
import {
  ancestorPaths,
  changedPaths,
  describeChange,
  hasNested,
  iterationSummary,
  objectLabel,
  treeResults,
  treeRows,
} from '../../src/tree.js';

const www = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const root = join(www, '..');
const engine = createRequire(import.meta.url)(join(www, 'xprender-wasm', 'nodejs', 'xprender.js'));
const fixture = (name) => JSON.parse(readFileSync(join(root, 'tests', 'fixtures', 'tree', name, 'expected.json'), 'utf8'));

/** The rows as [path, level, label, ready, synced]. */
const brief = (rows) => rows.map((r) => [r.path, r.level, r.label, r.ready, r.synced]);

test('objectLabel names an object by kind and name, or its generateName', () => {
  assert.equal(objectLabel({ kind: 'VPC', metadata: { name: 'v' } }), 'VPC/v');
  assert.equal(objectLabel({ kind: 'VPC', metadata: { generateName: 'acme-' } }), 'VPC/acme-*');
  assert.equal(objectLabel({ kind: 'VPC' }), 'VPC/(unnamed)');
  assert.equal(objectLabel(null), '(no kind)/(unnamed)');
});

test('the three-level tree reads as rows, depth first, each XR above its own', () => {
  const out = fixture('three-levels');
  assert.equal(hasNested(out), true);
  assert.deepStrictEqual(brief(treeRows(out)), [
    ['', 0, 'XPlatform/acme', false, true],
    ['network', 1, 'XNetwork/acme-net7x', true, true],
    ['network/vpc', 2, 'VPC/acme-net7x-vpc', true, true],
    ['network/subnets', 2, 'XSubnets/acme-net7x-sn', true, true],
    ['network/subnets/subnet-a', 3, 'Subnet/acme-sn-a', true, true],
    ['network/subnets/subnet-b', 3, 'Subnet/acme-*', false, true],
    ['cluster', 1, 'XCluster/acme-*', false, true],
    ['cluster/eks', 2, 'Cluster/acme-*', false, true],
    ['dns', 1, 'Zone/acme-zone', true, true],
  ]);
  const rows = treeRows(out);
  // A nested XR shows as its own render leaves it; a composed resource as its XR desires it.
  const network = rows.find((r) => r.path === 'network');
  assert.deepStrictEqual(network.object, out.resources.network.nested.composite);
  assert.equal(network.xr, true);
  assert.equal(network.children, true);
  assert.equal(network.template, 'network');
  const vpc = rows.find((r) => r.path === 'network/vpc');
  assert.deepStrictEqual(vpc.object, out.resources.network.nested.resources.vpc.resource);
  assert.equal(vpc.xr, false);
  assert.equal(vpc.children, false);
  assert.equal(rows[0].template, null);
  assert.deepStrictEqual(rows[0].object, out.composite);
});

test('a nested XR without a Composition is not synced, and says why', () => {
  const out = fixture('nested-composition-missing');
  const rows = treeRows(out);
  const subnets = rows.find((r) => r.path === 'network/subnets');
  assert.equal(subnets.synced, false);
  assert.equal(subnets.xr, false, 'not rendered as an XR: no nested output');
  assert.deepStrictEqual(subnets.messages.map((m) => m.severity), ['Warning']);
  assert.match(subnets.messages[0].message, /no Composition for its type \(XSubnets\.platform\.example\.org\)/);
  assert.equal(rows.filter((r) => !r.synced).length, 1);
  // The Results tab lists it with its path in the tree.
  assert.deepStrictEqual(
    treeResults(out).map((r) => [r.severity, r.resource]),
    [['Warning', 'network/subnets']],
  );
});

test('a Fatal result makes its XR and the resource it names not synced', () => {
  const out = {
    composite: { kind: 'X', metadata: { name: 'x' } },
    ready: false,
    results: [],
    resources: {
      child: {
        resource: { kind: 'Y', metadata: { name: 'y' } },
        ready: false,
        nested: {
          composite: { kind: 'Y', metadata: { name: 'y' } },
          ready: false,
          results: [
            { severity: 'Fatal', message: 'boom', resource: 'leaf' },
            { severity: 'Warning', message: 'about Y itself' },
            { severity: 'Normal', message: 'fine' },
          ],
          resources: { leaf: { resource: { kind: 'Z', metadata: { generateName: 'y-' } }, ready: false } },
        },
      },
    },
  };
  const rows = treeRows(out);
  assert.deepStrictEqual(brief(rows), [
    ['', 0, 'X/x', false, true],
    ['child', 1, 'Y/y', false, false],
    ['child/leaf', 2, 'Z/y-*', false, false],
  ]);
  assert.deepStrictEqual(rows[1].messages, [{ severity: 'Warning', message: 'about Y itself' }]);
  assert.deepStrictEqual(rows[2].messages, [{ severity: 'Fatal', message: 'boom' }]);
  assert.deepStrictEqual(
    treeResults(out).map((r) => [r.severity, r.resource]),
    [['Fatal', 'child/leaf'], ['Warning', 'child'], ['Normal', 'child']],
  );
});

test('an Output without nested XRs has no tree', () => {
  const out = { composite: { kind: 'X' }, resources: { a: { resource: { kind: 'A' }, ready: true } }, results: [], ready: true };
  assert.equal(hasNested(out), false);
  assert.equal(treeYaml(out), undefined);
  assert.equal(iterationViews(out), undefined);
  assert.deepStrictEqual(treeResults({ ...out, results: [{ severity: 'Normal', message: 'm' }] }), [{ severity: 'Normal', message: 'm' }]);
});

test('ancestor paths fold a row with every row above it', () => {
  assert.deepStrictEqual(ancestorPaths(''), []);
  assert.deepStrictEqual(ancestorPaths('network'), ['']);
  assert.deepStrictEqual(ancestorPaths('network/subnets/subnet-a'), ['', 'network', 'network/subnets']);
});

test('iteration changes read as table cells and a summary', () => {
  const converges = fixture('converges');
  const [first, second] = converges.iterations;
  assert.equal(iterationSummary(first), '9 added; not ready');
  assert.equal(iterationSummary({ iteration: 5, ready: true, changes: [] }), 'no changes; ready');
  assert.deepStrictEqual(describeChange(first.changes[0]), {
    resource: '',
    object: 'XPlatform/acme',
    change: 'added',
    path: '',
    detail: '',
  });
  const name = second.changes.find((c) => c.path === 'metadata.name' && c.resource === 'network');
  assert.deepStrictEqual(describeChange(name), {
    resource: 'network',
    object: name.object,
    change: 'changed',
    path: 'metadata.name',
    detail: `→ ${JSON.stringify(name.after)}`,
  });
  assert.equal(describeChange({ change: 'changed', before: 1, after: 2, path: 'a' }).detail, '1 → 2');
  assert.equal(describeChange({ change: 'changed', before: 1, path: 'a' }).detail, '1 →');
  // Which rows an iteration touched: an added object wins over a changed field.
  assert.deepStrictEqual(
    [...changedPaths([...second.changes, { resource: 'dns', change: 'added' }]).entries()].filter(([p]) => ['', 'network', 'dns'].includes(p)),
    [['', 'changed'], ['network', 'changed'], ['dns', 'added']],
  );
});

/** The gallery's platform, as the page would send it. */
function platformTree() {
  const dir = join(root, 'examples', 'platform-tree');
  const files = {};
  for (const f of ['xr', 'composition', 'simulation']) {
    files[`examples/platform-tree/${f}.yaml`] = readFileSync(join(dir, `${f}.yaml`), 'utf8');
  }
  return collect(files)['platform-tree'];
}

test('the gallery platform renders its tree and settles, ready, within the cap', () => {
  const ex = platformTree();
  assert.equal(ex.untilReady, true, 'an example with a simulation opens iterating');
  const { request } = buildRequest(ex, 'auto', { untilReady: true, iterations: 10 });
  assert.deepStrictEqual(
    { untilReady: request.options.untilReady, iterations: request.options.iterations, keepIterations: request.options.keepIterations },
    { untilReady: true, iterations: 10, keepIterations: true },
  );
  const output = engine.renderDocuments(request.documents, request.options);
  assert.deepStrictEqual(output.inputs.unused, []);
  assert.equal(output.ready, true);
  const rows = treeRows(output);
  assert.deepStrictEqual(
    rows.map((r) => [r.path, r.level, r.label.split('/')[0], r.ready, r.synced]),
    [
      ['', 0, 'XPlatform', true, true],
      ['network', 1, 'XNetwork', true, true],
      ['network/vpc', 2, 'VPC', true, true],
      ['network/subnets', 2, 'XSubnets', true, true],
      ['network/subnets/subnet-a', 3, 'Subnet', true, true],
      ['network/subnets/subnet-b', 3, 'Subnet', true, true],
      ['cluster', 1, 'XCluster', true, true],
      ['cluster/eks', 2, 'Cluster', true, true],
      ['dns', 1, 'Zone', true, true],
    ],
  );
  // The VPC's id travelled up to the platform and down into the cluster.
  const eks = rows.find((r) => r.path === 'cluster/eks').object;
  assert.equal(eks.spec.forProvider.vpcConfig.vpcId, 'vpc-0a1b2c3d');
  assert.equal(output.composite.status.vpcId, 'vpc-0a1b2c3d');
  // Every iteration kept its output; the last changed nothing.
  const its = output.iterations;
  assert.ok(its.length >= 3 && its.length <= 10, `${its.length} iterations`);
  assert.ok(its.every((it, i) => it.iteration === i + 1 && it.output));
  assert.deepStrictEqual(its.at(-1).changes, []);
  assert.equal(its.at(-1).ready, true);
  assert.ok(its[0].changes.every((c) => c.change === 'added'));
  assert.equal(its[0].changes.length, rows.length, 'the first render adds every object of the tree');

  // What the worker hands the page: the tree with each object's YAML, and every iteration's.
  const shown = presentation(null, { output });
  assert.deepStrictEqual(shown.tree.map((r) => r.path), rows.map((r) => r.path));
  assert.ok(shown.tree.every((r) => typeof r.yaml === 'string' && !('object' in r)));
  assert.match(shown.tree.find((r) => r.path === 'network/vpc').yaml, /^apiVersion: ec2\.aws\.example\.org\/v1\nkind: VPC\n/);
  assert.equal(shown.steps.length, its.length);
  assert.ok(shown.steps.every((s) => s.tree.length === rows.length && s.yaml.resources.includes('kind: XNetwork')));
});

test('untilReady that cannot be met: the engine says why, and the same iterations without it render', () => {
  const ex = platformTree();
  const { request } = buildRequest(ex, 'auto', { untilReady: true, iterations: 2 });
  assert.throws(
    () => engine.renderDocuments(request.documents, request.options),
    (e) => e.kind === 'Render' && /did not settle within 2 iterations/.test(e.message),
  );
  const output = engine.renderDocuments(request.documents, { ...request.options, untilReady: false });
  assert.equal(output.iterations.length, 2);
  assert.equal(output.ready, false);
});

test('an oscillating tree is an error naming the fields that flip', () => {
  const { documents, options } = JSON.parse(readFileSync(join(root, 'tests', 'fixtures', 'tree', 'oscillation', 'request.json'), 'utf8'));
  assert.throws(
    () => engine.renderDocuments(documents, { ...options, untilReady: true, keepIterations: true }),
    (e) => e.kind === 'Render' && /does not settle: iteration 4 desires what iteration 2 desired/.test(e.message),
  );
});
