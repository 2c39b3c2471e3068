// The flow graph and the pipeline's steps as the page builds them: from the engine's trace
// fixtures (tests/fixtures/trace, tests/fixtures/pipeline/steps) and gallery renders.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

import { buildRequest } from '../../src/documents.js';
import { collect } from '../../src/gallery.js';
import { buildGraph, entrySides, filterGraph, GEOMETRY, graphSteps, layoutGraph, patchEnds } from '../../src/graph.js';
import { graphData } from '../../src/graphdata.js';
import { diffFields, stepChanges, stepSummary } from '../../src/steps.js';

const www = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const root = join(www, '..');
const engine = createRequire(import.meta.url)(join(www, 'xprender-wasm', 'nodejs', 'xprender.js'));
const read = (...p) => JSON.parse(readFileSync(join(root, 'tests', 'fixtures', ...p), 'utf8'));

/** The fields of each patch of a request's Composition, as the worker reads them. */
function endsOf(request, out) {
  const doc = parseDocument(JSON.stringify(request.composition));
  const ends = new Map(graphData(doc, out).patchFields);
  return (source) => ends.get(source) ?? null;
}

/** The edges as [from node, from field, to node, to field, outcome, transforms]. */
const brief = (g) => g.edges.map((e) => [e.from.node, e.from.field, e.to.node, e.to.field, e.outcome, e.transforms.join(',')]);

test('every patch of the native explain fixture is an edge from the field it read to the field it wrote', () => {
  const request = read('trace', 'explain-native', 'request.json');
  const out = read('trace', 'explain-native', 'expected.json');
  const g = buildGraph(out, endsOf(request, out));
  assert.deepStrictEqual(
    g.nodes.map((n) => [n.id, n.kind, n.depth]),
    [['xr', 'xr', 0], ['r:instance', 'resource', 1]],
  );
  assert.deepStrictEqual(brief(g), [
    ['xr', 'spec.region', 'r:instance', 'spec.forProvider.location', 'applied', 'map,string'],
    // Skipped: nothing written, so the target is the one the Composition names.
    ['xr', 'spec.zone', 'r:instance', 'spec.forProvider.zone', 'skipped', ''],
    ['xr', 'spec.tags', 'r:instance', 'spec.forProvider.tags', 'applied', ''],
    // A combine patch: one edge per variable.
    ['xr', 'spec.region', 'r:instance', 'metadata.annotations[combined]', 'applied', ''],
    ['xr', 'spec.env', 'r:instance', 'metadata.annotations[combined]', 'applied', ''],
    ['xr', 'spec.region', 'r:instance', 'spec.forProvider.rules[0].cidr', 'applied', ''],
    // ToComposite: from the composed resource back to the XR.
    ['r:instance', 'status.atProvider.endpoint', 'xr', 'status.endpoint', 'skipped', ''],
  ]);
  // Every edge points at its trace entry, and the entry at its patch in the Composition.
  for (const e of g.edges) assert.equal(g.entries[e.entry].entry.source, e.source);
  assert.equal(g.edges[3].source, 'spec.resources[0].patches[3]');
  assert.deepStrictEqual(g.nodes[0].fields, ['spec.env', 'spec.region', 'spec.tags', 'spec.zone', 'status.endpoint']);
});

test('environment patches meet an environment node; a patch that never ran keeps its Composition fields', () => {
  const env = buildGraph(read('trace', 'environment', 'expected.json'));
  assert.deepStrictEqual(brief(env), [
    ['xr', 'spec.env', 'env', 'fromXR', 'applied', ''],
    ['env', 'fromXR', 'r:instance', 'spec.forProvider.fromEnv', 'applied', ''],
  ]);
  assert.equal(env.nodes.find((n) => n.id === 'env').kind, 'environment');

  const request = read('trace', 'required-missing', 'request.json');
  const out = read('trace', 'required-missing', 'expected.native.json');
  const g = buildGraph(out, endsOf(request, out));
  const patches = request.composition.spec.resources[0].patches;
  assert.deepStrictEqual(brief(g), [
    ['xr', 'spec.zone', 'r:instance', patches[0].toFieldPath, 'failed', ''],
    ['xr', patches[1].fromFieldPath, 'r:instance', patches[1].toFieldPath, 'not-run', ''],
  ]);
  // A resource that was not rendered is still a node: its patches point at it.
  assert.deepStrictEqual(g.nodes.map((n) => n.id), ['xr', 'r:instance']);
});

test('sides come from the direction, else from the patch type', () => {
  assert.deepStrictEqual(entrySides({ direction: 'composed (observed) -> composite (desired)' }), ['composed', 'composite']);
  assert.deepStrictEqual(entrySides({ type: 'CombineToEnvironment' }), ['composed', 'environment']);
  assert.deepStrictEqual(entrySides({ type: 'ToCompositeFieldPath', environment: true }), ['environment', 'composite']);
  assert.deepStrictEqual(entrySides({ type: 'FromCompositeFieldPath', environment: true }), ['composite', 'environment']);
  assert.deepStrictEqual(patchEnds({ combine: { variables: [{ fromFieldPath: 'a' }, { fromFieldPath: 'b' }] }, toFieldPath: 'c' }), { from: ['a', 'b'], to: ['c'] });
  assert.deepStrictEqual(patchEnds(null), { from: [], to: [] });
  // Nothing known of a field: one unknown port, so the patch still shows.
  const g = buildGraph({ trace: [{ resource: 'r', type: 'PatchSet', outcome: 'not-run', source: 'x' }] });
  assert.deepStrictEqual(brief(g), [['xr', '?', 'r:r', '?', 'not-run', '']]);
});

test('filters keep one resource, one step, some outcomes or a search, and the nodes they touch', () => {
  const out = read('pipeline', 'steps', 'expected.json');
  const g = buildGraph(out, endsOf(read('pipeline', 'steps', 'request.json'), out));
  assert.deepStrictEqual(graphSteps(g), ['create', 'label']);
  assert.deepStrictEqual(g.nodes.map((n) => n.id), ['xr', 'r:bucket', 'r:policy']);
  assert.equal(filterGraph(g).edges.length, g.edges.length);
  const label = filterGraph(g, { step: 'label' });
  assert.deepStrictEqual(label.edges.map((e) => [e.from.field, e.to.field]), [
    ['spec.team', 'metadata.labels[team]'],
    ['status.atProvider.arn', 'status.arn'],
    ['spec.owner', 'spec.forProvider.owner'],
  ]);
  const policy = filterGraph(g, { resource: 'r:policy' });
  assert.deepStrictEqual(policy.nodes.map((n) => n.id), ['xr', 'r:policy']);
  assert.deepStrictEqual(policy.edges.map((e) => e.outcome), ['skipped']);
  const search = filterGraph(g, { search: 'ARN' });
  assert.deepStrictEqual(search.edges.map((e) => e.to.field), ['status.arn']);
  assert.deepStrictEqual(search.nodes.map((n) => n.id), ['xr', 'r:bucket']);
  const applied = filterGraph(g, { outcomes: new Set(['applied']) });
  assert.ok(applied.edges.length > 0 && applied.edges.every((e) => e.outcome === 'applied'));
});

test('the layout puts resources a column right of their XR and edges between ports', () => {
  const out = read('trace', 'explain-native', 'expected.json');
  const g = buildGraph(out, endsOf(read('trace', 'explain-native', 'request.json'), out));
  const L = layoutGraph(filterGraph(g));
  const [xr, instance] = L.nodes;
  assert.equal(xr.x, GEOMETRY.pad);
  assert.equal(instance.x, GEOMETRY.pad + GEOMETRY.nodeWidth + GEOMETRY.columnGap);
  const first = L.edges[0];
  const port = (n, f) => n.y + GEOMETRY.header + n.rows.indexOf(f) * GEOMETRY.row + GEOMETRY.row / 2;
  assert.ok(first.d.startsWith(`M${xr.x + GEOMETRY.nodeWidth},${port(xr, 'spec.region')} `));
  assert.ok(first.d.endsWith(` ${instance.x},${port(instance, 'spec.forProvider.location')}`));
  // ToComposite runs right to left: from the resource's left side to the XR's right side.
  const back = L.edges.at(-1);
  assert.ok(back.d.startsWith(`M${instance.x},`));
  assert.ok(back.d.endsWith(`${xr.x + GEOMETRY.nodeWidth},${port(xr, 'status.endpoint')}`));
  // A folded node is its header alone; its edges meet the header.
  const folded = layoutGraph(filterGraph(g), new Set(['r:instance']));
  assert.equal(folded.nodes[1].h, GEOMETRY.header);
  assert.ok(folded.edges[0].d.endsWith(` ${instance.x},${instance.y + GEOMETRY.header / 2}`));
  assert.ok(L.width > instance.x && L.height > instance.y + instance.h);
});

test('a pipeline step by step: what each step changed and its results', () => {
  const out = read('pipeline', 'steps', 'expected.json');
  const steps = stepChanges(out.steps);
  assert.deepStrictEqual(steps.map((s) => s.step), ['create', 'label', 'notify', 'ready']);
  const brief = (s) => s.changes.map((c) => [c.resource ?? '', c.change, c.path ?? '']);
  assert.deepStrictEqual(brief(steps[0]), [
    ['', 'added', 'apiVersion'],
    ['', 'added', 'kind'],
    ['bucket', 'added', ''],
  ]);
  assert.deepStrictEqual(brief(steps[1]), [
    ['', 'added', 'status.arn'],
    ['bucket', 'added', 'metadata.labels.team'],
    ['policy', 'added', ''],
  ]);
  assert.deepStrictEqual(steps[2].changes, []);
  assert.equal(steps[2].results[0].severity, 'Warning');
  assert.equal(stepSummary(steps[2]), 'no changes; 1 result');
  assert.equal(stepSummary(steps[1]), '3 added');
  assert.deepStrictEqual(diffFields({ a: { b: 1, c: [1] } }, { a: { b: 2 }, 'x.y': true }), [
    { change: 'changed', path: 'a.b', before: 1, after: 2 },
    { change: 'added', path: '[x.y]', after: true },
    { change: 'removed', path: 'a.c[0]', before: 1 },
  ]);
  assert.deepStrictEqual(stepChanges(undefined), []);
});

/** A gallery example, as the page would send it. */
function example(name) {
  const files = {};
  for (const f of ['xr', 'composition', 'observed', 'environment', 'simulation']) {
    try {
      files[`examples/${name}/${f}.yaml`] = readFileSync(join(root, 'examples', name, `${f}.yaml`), 'utf8');
    } catch {
      // Not every example has every file.
    }
  }
  return collect(files)[name];
}

test('the gallery pipeline: every traced patch is an edge with known fields, and its steps', () => {
  const ex = example('pipeline-network');
  const { request, compositions } = buildRequest(ex, 'auto');
  assert.equal(request.options.steps, true);
  const output = engine.renderDocuments(request.documents, request.options);
  const { patchFields, stepTexts } = graphData(compositions[0], output);
  const ends = new Map(patchFields);
  const g = buildGraph(output, (s) => ends.get(s) ?? null);
  assert.ok(output.trace.length > 0);
  assert.deepStrictEqual([...new Set(g.edges.map((e) => e.entry))], output.trace.map((_, i) => i));
  assert.ok(g.edges.every((e) => e.from.field !== '?' && e.to.field !== '?'));
  assert.deepStrictEqual(graphSteps(g), [...new Set(output.trace.map((e) => e.step))]);
  assert.equal(stepTexts.length, output.steps.length);
  assert.deepStrictEqual(output.steps.map((s) => s.step), compositions[0].toJSON().spec.pipeline.map((s) => s.step));
  assert.match(stepTexts.at(-1), /# desired XR\n/);
});

test('nested XRs: each level its own nodes, named by their path in the tree', () => {
  const ex = example('platform-tree');
  const { request } = buildRequest(ex, 'auto');
  const output = engine.renderDocuments(request.documents, request.options);
  const g = buildGraph(output);
  const nested = Object.entries(output.resources).filter(([, r]) => r.nested);
  assert.ok(nested.length > 0);
  for (const [name, r] of nested) {
    const xr = g.nodes.find((n) => n.id === `r:${name}`);
    assert.equal(xr.depth, 1);
    for (const child of Object.keys(r.nested.resources)) {
      assert.equal(g.nodes.find((n) => n.id === `r:${name}/${child}`)?.depth, 2, `${name}/${child}`);
    }
    const edges = g.edges.filter((e) => e.level === name);
    assert.equal(new Set(edges.map((e) => e.entry)).size, r.nested.trace.length);
  }
});
