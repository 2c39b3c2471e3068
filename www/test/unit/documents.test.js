// The YAML side of the playground: parsing like kubectl, building the request, finding patches.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  answerProblems,
  buildRequest,
  chosenComposition,
  downloadYaml,
  locatePatch,
  outputYaml,
  parseYaml,
  presentation,
} from '../../src/documents.js';
import { connectionRows, inputRows, locationKey } from '../../src/view.js';

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
  assert.deepStrictEqual(request.options, { trace: true, semantics: 'function', xr: 'X/x' });
  assert.deepStrictEqual(buildRequest({ xr: XR, composition: COMP, observed: '' }, 'auto').request.options, {
    trace: true,
    xr: 'X/x',
  });
  // Without exactly one named object in the XR pane, the engine picks the XR itself.
  const two = buildRequest({ xr: `${XR}---\n${XR}`, composition: COMP, observed: '' }, 'auto');
  assert.deepStrictEqual(two.request.options, { trace: true });
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

test('locatePatch finds a patch by template name (or index) and patch index', () => {
  const at = locatePatch(COMP, { resource: 'a', patchIndex: 1 });
  assert.ok(COMP.slice(at.from, at.to).startsWith('type: ToCompositeFieldPath'));
  const unnamed = locatePatch(COMP, { resource: '1', patchIndex: 0 });
  assert.ok(COMP.slice(unnamed.from, unnamed.to).startsWith('fromFieldPath: spec.q'));
  const whole = locatePatch(COMP, { resource: 'a' });
  assert.ok(COMP.slice(whole.from, whole.to).startsWith('name: a'));
  assert.equal(locatePatch(COMP, { resource: 'missing', patchIndex: 0 }), null);
  assert.equal(locatePatch('a: [', 'a', 0), null);
});

test('locatePatch counts patches with PatchSet references expanded', () => {
  const comp = `spec:
  patchSets:
    - name: common
      patches:
        - fromFieldPath: s1
        - fromFieldPath: s2
  resources:
    - name: r
      patches:
        - fromFieldPath: own0
        - type: PatchSet
          patchSetName: common
        - fromFieldPath: own1
        - type: PatchSet
          patchSetName: unknown
`;
  const texts = [0, 1, 2, 3, 4].map((i) => {
    const at = locatePatch(comp, { resource: 'r', patchIndex: i });
    return comp.slice(at.from, at.to).trim();
  });
  assert.deepStrictEqual(texts.slice(0, 4), ['fromFieldPath: own0', 'fromFieldPath: s1', 'fromFieldPath: s2', 'fromFieldPath: own1']);
  assert.match(texts[4], /^type: PatchSet\s+patchSetName: unknown$/);
  assert.ok(comp.slice(locatePatch(comp, { resource: 'r', patchIndex: 9 }).from).startsWith('name: r'), 'out of range: the template');
});

test('locatePatch looks into Pipeline steps', () => {
  const pipeline = `spec:
  mode: Pipeline
  pipeline:
    - step: pt
      input:
        resources:
          - name: r
            patches:
              - fromFieldPath: a
              - fromFieldPath: b
`;
  const at = locatePatch(pipeline, { resource: 'r', patchIndex: 1 });
  assert.equal(pipeline.slice(at.from, at.to).trim(), 'fromFieldPath: b');
  const inStep = locatePatch(pipeline, { step: 'pt', resource: 'r', patchIndex: 0 });
  assert.equal(pipeline.slice(inStep.from, inStep.to).trim(), 'fromFieldPath: a');
  assert.equal(locatePatch(pipeline, { step: 'other', resource: 'r', patchIndex: 0 }), null);
});

test('locatePatch finds environment patches', () => {
  const comp = `spec:
  environment:
    patches:
      - type: ToEnvironmentFieldPath
        fromFieldPath: spec.a
  resources: []
`;
  const at = locatePatch(comp, { environment: true, patchIndex: 0 });
  assert.match(comp.slice(at.from, at.to), /^type: ToEnvironmentFieldPath/);
  assert.equal(locatePatch(comp, { environment: true, patchIndex: 1 }), null);
});


test('presentation marks patches whose trace outcome is failed', () => {
  const trace = [
    { resource: 'a', patch: 0, outcome: 'applied' },
    {
      resource: 'a',
      patch: 1,
      outcome: 'failed',
      transforms: [{ index: 0, type: 'map', input: 'mars', error: 'key "mars" not found' }],
      reason: 'the resource is left out',
    },
    { resource: '1', patch: 0, outcome: 'failed', from: [{ path: 'spec.q', error: 'spec.q: boom' }] },
    { resource: '1', patch: 0, outcome: 'failed' },
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
  const trace = [
    { resource: 'a', patch: 1, type: 'ToCompositeFieldPath', outcome: 'applied' },
    { resource: 'a', patch: 1, type: 'ToCompositeFieldPath', outcome: 'applied' },
    { resource: 'gone', patch: 0 },
  ];
  const ok = presentation(COMP, { output: { ...OUTPUT, trace } });
  const key = locationKey({ resource: 'a', patchIndex: 1 });
  assert.deepStrictEqual(ok.locations, [[key, locatePatch(COMP, { resource: 'a', patchIndex: 1 })]]);
  assert.equal(ok.yaml.composite, 'kind: X\nstatus:\n  z: 1\n');
  assert.equal(ok.download, downloadYaml(OUTPUT));

  assert.deepStrictEqual(ok.faults, []);
  const [compositionDocument] = buildRequest({ xr: XR, composition: COMP, observed: '' }, 'auto').compositions;
  assert.deepStrictEqual(presentation(compositionDocument, { output: { ...OUTPUT, trace } }), ok, 'the parsed Document serves as well');

  const context = { resource: '1', patchIndex: 0 };
  const failed = presentation(COMP, { error: { kind: 'Render', message: 'm', context } });
  const at = locatePatch(COMP, context);
  assert.deepStrictEqual(failed, {
    locations: [[locationKey(context), at]],
    faults: [{ ...at, severity: 'error', message: 'm' }],
  });
  const template = presentation(COMP, { error: { kind: 'Render', message: 'm', context: { resource: 'a' } } });
  assert.deepStrictEqual(template.locations, [[locationKey({ resource: 'a' }), locatePatch(COMP, { resource: 'a' })]]);
});
