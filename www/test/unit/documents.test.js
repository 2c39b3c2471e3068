// The YAML side of the playground: parsing like kubectl, building the request, finding patches.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  answerProblems,
  buildRequest,
  chosenComposition,
  downloadYaml,
  outputYaml,
  parseYaml,
  presentation,
  sourceLocator,
} from '../../src/documents.js';
import { DEFAULT_ITERATIONS } from '../../src/share.js';
import { connectionRows, inputRows } from '../../src/view.js';

const www = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const engine = createRequire(import.meta.url)(join(www, 'xprender-wasm', 'nodejs', 'xprender.js'));

test('parseYaml reads YAML 1.1 scalars as kubectl does', () => {
  const { docs, problems } = parseYaml('a: yes\nb: off\nc: 0777\nd: "yes"\ne: 1.0\n');
  assert.deepStrictEqual(problems, []);
  assert.deepStrictEqual(docs, [{ a: true, b: false, c: 511, d: 'yes', e: 1 }]);
});

test('parseYaml reports document, line and column of an error', () => {
  const { docs, problems } = parseYaml('a: 1\n---\nb: [1, 2\nc: 3\n');
  assert.deepStrictEqual(docs, [{ a: 1 }]);
  assert.ok(problems.length > 0);
  assert.equal(problems[0].doc, 2);
  assert.equal(problems[0].severity, 'error');
  assert.ok(problems[0].line >= 3, `line ${problems[0].line}`);
  assert.ok(problems[0].to > problems[0].from);
});

test('parseYaml flags duplicate keys', () => {
  const { problems } = parseYaml('a: 1\na: 2\n');
  assert.equal(problems[0]?.severity, 'error');
  assert.match(problems[0].message, /unique/i);
});

const XR = 'apiVersion: x/v1\nkind: X\nmetadata:\n  name: x\n';
const COMP = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
spec:
  resources:
    - name: a
      base: {kind: A}
      patches:
        - fromFieldPath: spec.x
          toFieldPath: spec.y
        - type: ToCompositeFieldPath
          fromFieldPath: status.z
          toFieldPath: status.z
    - base: {kind: B}
      patches:
        - fromFieldPath: spec.q
`;

const OUTPUT = {
  composite: { kind: 'X', status: { z: 1 } },
  resources: { a: { resource: { kind: 'A' }, ready: true }, b: { resource: { kind: 'B' }, ready: false } },
  connectionDetails: { user: 'YWRtaW4=', blob: '/w==' },
  ready: false,
  results: [],
};

test('buildRequest gathers every typed document in editor order and sets the options', () => {
  const observed = `kind: A
metadata:
  annotations:
    crossplane.io/composition-resource-name: a
---
kind: EnvironmentConfig
data: {tier: gold}
`;
  const { request, problems, origins } = buildRequest({ xr: XR, composition: COMP, observed }, 'function');
  assert.deepStrictEqual(problems, { xr: [], composition: [], observed: [] });
  assert.deepStrictEqual(
    request.documents.map((d) => d.kind),
    ['X', 'Composition', 'A', 'EnvironmentConfig'],
  );
  assert.deepStrictEqual(
    origins.map((o) => [o.editor, o.doc, o.line]),
    [['xr', 1, 1], ['composition', 1, 1], ['observed', 1, 1], ['observed', 2, 6]],
  );
  assert.deepStrictEqual(request.options, { trace: true, steps: true, semantics: 'function', xr: 'X/x' });
  assert.deepStrictEqual(buildRequest({ xr: XR, composition: COMP, observed: '' }, 'auto').request.options, {
    trace: true,
    steps: true,
    xr: 'X/x',
  });
  // Without exactly one named object in the XR pane, the engine picks the XR itself.
  const two = buildRequest({ xr: `${XR}---\n${XR}`, composition: COMP, observed: '' }, 'auto');
  assert.deepStrictEqual(two.request.options, { trace: true, steps: true });
  // Until ready: every iteration's output kept, at most the cap (else the playground's).
  const texts = { xr: XR, composition: COMP, observed: '' };
  assert.deepStrictEqual(buildRequest(texts, 'auto', { untilReady: true, iterations: 5 }).request.options, {
    trace: true,
    steps: true,
    untilReady: true,
    iterations: 5,
    keepIterations: true,
    xr: 'X/x',
  });
  assert.deepStrictEqual(buildRequest(texts, 'auto', { untilReady: true, iterations: undefined }).request.options, {
    trace: true,
    steps: true,
    untilReady: true,
    iterations: DEFAULT_ITERATIONS,
    keepIterations: true,
    xr: 'X/x',
  });
  assert.deepStrictEqual(buildRequest(texts, 'auto', { untilReady: false, iterations: 5 }).request.options, { trace: true, steps: true, xr: 'X/x' });
});

test('buildRequest refuses YAML errors and says where', () => {
  const broken = buildRequest({ xr: 'a: [', composition: COMP, observed: '' }, 'auto');
  assert.equal(broken.request, null);
  assert.equal(broken.problems.xr[0].severity, 'error');
});

test('answerProblems marks unused documents and the document an error names', () => {
  const observed = 'kind: A\n---\nkind: Secret\nmetadata: {name: s}\n';
  const { origins } = buildRequest({ xr: XR, composition: COMP, observed }, 'auto');
  const output = {
    ...OUTPUT,
    inputs: { unused: [{ document: 3, kind: 'Secret', name: 's', why: 'no observed resource writes its connection secret to it' }] },
  };
  const told = answerProblems({ output }, origins);
  assert.deepStrictEqual(told.xr, []);
  assert.deepStrictEqual(
    told.observed.map((p) => [p.doc, p.line, p.severity, p.message]),
    [[2, 3, 'warning', 'document 2 is not used: no observed resource writes its connection secret to it']],
  );
  const error = { kind: 'InvalidRequest', message: 'documents[2]: expected object', context: { fieldPath: 'documents[2].data' } };
  assert.deepStrictEqual(
    answerProblems({ error }, origins).observed.map((p) => [p.doc, p.severity, p.message]),
    [[1, 'error', 'documents[2]: expected object']],
  );
  assert.deepStrictEqual(answerProblems({ error: { ...error, context: {} } }, origins).observed, []);
});

test('chosenComposition is the Composition editor document the engine named', () => {
  const other = COMP.replace('kind: Composition\n', 'kind: Composition\nmetadata: {name: other}\n');
  const named = COMP.replace('kind: Composition\n', 'kind: Composition\nmetadata: {name: chosen}\n');
  const { compositions } = buildRequest({ xr: XR, composition: `${other}---\n${named}`, observed: '' }, 'auto');
  assert.equal(chosenComposition(compositions, { composition: 'chosen' }), compositions[1]);
  assert.equal(chosenComposition(compositions, { composition: 'elsewhere' }), null);
  assert.equal(chosenComposition(compositions, undefined), null, 'two and no answer: none');
  const one = buildRequest({ xr: XR, composition: COMP, observed: '' }, 'auto').compositions;
  assert.equal(chosenComposition(one, undefined), one[0]);
});

test('inputRows lists what the engine chose, unused documents by editor', () => {
  const { origins } = buildRequest({ xr: XR, composition: COMP, observed: 'kind: A\n---\nkind: B\n' }, 'auto');
  const inputs = {
    xr: 'X/x',
    composition: 'c',
    compositionReason: 'the only Composition for X.x/v1',
    observed: { a: 'A/obs' },
    connectionSecrets: { a: 'Secret/s' },
    environment: ['e1', 'e2'],
    unused: [{ document: 3, kind: 'B', name: '', why: 'no annotation' }],
  };
  assert.deepStrictEqual(inputRows(inputs, origins), [
    ['XR', 'X/x'],
    ['Composition', 'c (the only Composition for X.x/v1)'],
    ['observed: a', 'A/obs'],
    ['connection Secret: a', 'Secret/s'],
    ['environment', 'e1, e2'],
    ['unused: observed document 2', 'B: no annotation'],
  ]);
  assert.deepStrictEqual(inputRows(undefined), []);
});

test('sourceLocator finds what an engine path names in the Composition', () => {
  const locate = sourceLocator(COMP);
  const text = (path) => {
    const at = locate(path);
    return at && COMP.slice(at.from, at.to).split('\n')[0];
  };
  assert.equal(text('spec.resources[0].patches[1]'), 'type: ToCompositeFieldPath');
  assert.equal(text('spec.resources[1].patches[0]'), 'fromFieldPath: spec.q');
  assert.equal(text('spec.resources[0]'), 'name: a');
  assert.equal(text('spec.resources[0].patches[7]'), null);
  assert.equal(text('spec.patchSets[0].patches[0]'), null);
  assert.equal(text(undefined), null);
  assert.equal(sourceLocator('a: [')('a'), null);
  const [parsed] = buildRequest({ xr: XR, composition: COMP, observed: '' }, 'auto').compositions;
  assert.deepStrictEqual(sourceLocator(parsed)('spec.resources[0].patches[1]'), locate('spec.resources[0].patches[1]'));
});

test('presentation marks patches whose trace outcome is failed', () => {
  const trace = [
    { resource: 'a', patch: 0, source: 'spec.resources[0].patches[0]', outcome: 'applied' },
    {
      resource: 'a',
      patch: 1,
      source: 'spec.resources[0].patches[1]',
      outcome: 'failed',
      transforms: [{ index: 0, type: 'map', input: 'mars', error: 'key "mars" not found' }],
      reason: 'the resource is left out',
    },
    { resource: 'resource 2', patch: 0, source: 'spec.resources[1].patches[0]', outcome: 'failed', from: [{ path: 'spec.q', error: 'spec.q: boom' }] },
    { resource: 'resource 2', patch: 0, source: 'spec.resources[1].patches[0]', outcome: 'failed' },
  ];
  const { faults } = presentation(COMP, { output: { ...OUTPUT, trace } });
  assert.deepStrictEqual(
    faults.map((f) => [COMP.slice(f.from, f.to).split('\n')[0], f.message]),
    [
      ['type: ToCompositeFieldPath', 'map transform: key "mars" not found — the resource is left out'],
      ['fromFieldPath: spec.q', 'spec.q: boom'],
      ['fromFieldPath: spec.q', 'this patch failed'],
    ],
  );
});

test('outputYaml and downloadYaml write every resource', () => {
  const y = outputYaml(OUTPUT);
  assert.equal(y.resources, '# a (ready: true)\nkind: A\n---\n# b (ready: false)\nkind: B\n');
  assert.equal(y.composite, 'kind: X\nstatus:\n  z: 1\n');
  assert.equal(downloadYaml(OUTPUT), 'kind: X\nstatus:\n  z: 1\n---\nkind: A\n---\nkind: B\n');
  assert.match(outputYaml({ ...OUTPUT, resources: {} }).resources, /^# No composed resources were rendered/);
});

test('connectionRows decodes UTF-8 values and keeps binary ones in base64', () => {
  assert.deepStrictEqual(connectionRows(OUTPUT.connectionDetails, false), [
    { key: 'user', value: 'YWRtaW4=', binary: false },
    { key: 'blob', value: '/w==', binary: false },
  ]);
  assert.deepStrictEqual(connectionRows(OUTPUT.connectionDetails, true), [
    { key: 'user', value: 'admin', binary: false },
    { key: 'blob', value: '/w==', binary: true },
  ]);
});

test('presentation locates traced patches and the patch at fault, and writes the YAML', () => {
  const source = 'spec.resources[0].patches[1]';
  const trace = [
    { resource: 'a', patch: 1, source, type: 'ToCompositeFieldPath', outcome: 'applied' },
    { resource: 'a', patch: 1, source, type: 'ToCompositeFieldPath', outcome: 'applied' },
    { resource: 'gone', patch: 0, source: 'spec.resources[5].patches[0]' },
  ];
  const ok = presentation(COMP, { output: { ...OUTPUT, trace } });
  assert.deepStrictEqual(ok.locations, [[source, sourceLocator(COMP)(source)]]);
  assert.equal(ok.yaml.composite, 'kind: X\nstatus:\n  z: 1\n');
  assert.equal(ok.download, downloadYaml(OUTPUT));

  assert.deepStrictEqual(ok.faults, []);
  const [compositionDocument] = buildRequest({ xr: XR, composition: COMP, observed: '' }, 'auto').compositions;
  assert.deepStrictEqual(presentation(compositionDocument, { output: { ...OUTPUT, trace } }), ok, 'the parsed Document serves as well');

  const context = { resource: 'resource 2', patchIndex: 0, source: 'spec.resources[1].patches[0]' };
  const failed = presentation(COMP, { error: { kind: 'Render', message: 'm', context } });
  const at = sourceLocator(COMP)(context.source);
  assert.deepStrictEqual(failed, {
    locations: [[context.source, at]],
    faults: [{ ...at, severity: 'error', message: 'm' }],
  });
  const template = presentation(COMP, { error: { kind: 'Render', message: 'm', context: { resource: 'a', source: 'spec.resources[0]' } } });
  assert.deepStrictEqual(template.locations, [['spec.resources[0]', sourceLocator(COMP)('spec.resources[0]')]]);
  const results = [{ severity: 'Fatal', message: 'm', resource: 'a', source }];
  assert.deepStrictEqual(presentation(COMP, { output: { ...OUTPUT, results } }).locations, ok.locations, 'a Fatal result is located');
});

// The engine's own answers: the paths it gives lead to the patch, whether a PatchSet brought it in
// or a Pipeline step's input holds it, from a trace entry as from an error.
// Compositions (and their XR) shared with the end-to-end test.
const sources = join(www, 'test', 'data', 'patch-sources');
const THING = readFileSync(join(sources, 'xr.yaml'), 'utf8');
const WITH_PATCH_SET = readFileSync(join(sources, 'patch-set.yaml'), 'utf8');
const PIPELINE = readFileSync(join(sources, 'pipeline.yaml'), 'utf8');

/** The engine's answer to the editors' texts and the Composition text each location names. */
function answered(xr, composition, semantics) {
  const { request, compositions } = buildRequest({ xr, composition, observed: '' }, semantics);
  let answer;
  try {
    answer = { output: engine.renderDocuments(request.documents, request.options) };
  } catch (e) {
    answer = { error: { kind: e.kind, message: e.message, context: e.context } };
  }
  const shown = presentation(chosenComposition(compositions, answer.output?.inputs), answer);
  const lines = ({ from, to }) => composition.slice(from, to).split('\n').map((l) => l.trim()).slice(0, 2).join(' ');
  const at = new Map(shown.locations.map(([source, range]) => [source, lines(range)]));
  return { ...answer, at, faults: shown.faults.map(lines) };
}

test('a patch from a PatchSet is found from its trace entry and from the failure it causes', () => {
  const { output, at, faults } = answered(THING, WITH_PATCH_SET, 'native');
  const [size, arn] = output.trace.filter((e) => e.patch >= 1);
  assert.equal(at.get(size.source), 'fromFieldPath: spec.size toFieldPath: spec.forProvider.size');
  const fatal = output.results.at(-1);
  assert.equal(fatal.severity, 'Fatal');
  assert.equal(fatal.patchIndex, 2, 'counted with the PatchSet expanded');
  assert.equal(fatal.source, arn.source);
  assert.equal(at.get(fatal.source), 'type: ToCompositeFieldPath fromFieldPath: status.atProvider.arn');
  assert.deepStrictEqual(faults, ['type: ToCompositeFieldPath fromFieldPath: status.atProvider.arn']);
});

test('a patch in a Pipeline step input is found from its trace entry and from an error', () => {
  const xr = THING.replace('  size: 3\n', '  zone: a\n');
  const { output, at, faults } = answered(xr, PIPELINE, 'native');
  const region = output.trace.find((e) => e.resource === 'disk' && e.patch === 0);
  assert.equal(at.get(region.source), 'fromFieldPath: spec.region toFieldPath: spec.forProvider.region');
  const fatal = output.results.at(-1);
  assert.equal(at.get(fatal.source), 'type: ToCompositeFieldPath fromFieldPath: status.atProvider.id');
  assert.deepStrictEqual(faults, ['type: ToCompositeFieldPath fromFieldPath: status.atProvider.id']);

  // Without spec.zone the step's environment patch fails the render: an error, not an Output.
  const failed = answered(THING, PIPELINE, 'native');
  assert.equal(failed.error.context.source, 'spec.pipeline[0].input.environment.patches[0]');
  assert.equal(failed.at.get(failed.error.context.source), 'fromFieldPath: spec.zone toFieldPath: zone');
  assert.deepStrictEqual(failed.faults, ['fromFieldPath: spec.zone toFieldPath: zone']);

  // In function semantics the failure is a Fatal result, which names no patch: its trace entry does.
  const fn = answered(THING, PIPELINE, 'function');
  assert.equal(fn.output.results.at(-1).severity, 'Fatal');
  assert.equal(fn.output.results.at(-1).source, undefined);
  assert.deepStrictEqual(fn.faults, ['fromFieldPath: spec.zone toFieldPath: zone']);
});

test("a nested XR's traced patches are located in its own Composition, under its level", () => {
  const example = join(www, '..', 'examples', 'nested-platform');
  const read = (name) => readFileSync(join(example, `${name}.yaml`), 'utf8');
  const texts = { xr: read('xr'), composition: read('composition'), observed: read('observed') };
  const { request, compositions } = buildRequest(texts, 'auto');
  const output = engine.renderDocuments(request.documents, request.options);
  const top = chosenComposition(compositions, output.inputs);
  const at = new Map(presentation(top, { output }, compositions).locations);
  let checked = 0;
  const walk = (out, prefix) => {
    for (const [name, r] of Object.entries(out.resources ?? {})) {
      if (!r.nested) continue;
      const level = `${prefix}${name}`;
      const own = chosenComposition(compositions, r.nested.inputs);
      assert.ok(own && own !== top, `${level}: its own Composition`);
      const [start, , end] = own.range;
      for (const entry of r.nested.trace ?? []) {
        const where = at.get(`${level}|${entry.source}`);
        assert.ok(where, `${level}|${entry.source} is located`);
        assert.ok(where.from >= start && where.to <= end, `${level}|${entry.source} lies in ${own.getIn(['metadata', 'name'])}`);
        assert.equal(where.from, sourceLocator(own)(entry.source).from);
        checked++;
      }
      walk(r.nested, `${level}/`);
    }
  };
  walk(output, '');
  assert.ok(checked > 0, 'the example has nested patches');
});
