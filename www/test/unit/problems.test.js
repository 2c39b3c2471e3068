// The validator in the playground: its problems found at their line and column in the editors'
// YAML (the misspelt word itself when it suggests a fix), the fix applied as the editor's lint
// action does, the note on a render that used invalid input, and the gallery's menu and links.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { EditorState } from '@codemirror/state';

import { initSync, validate } from '../../validate-wasm/web/validate.js';
import { buildRequest } from '../../src/documents.js';
import { fixAction } from '../../src/editors.js';
import { collect, menuGroups } from '../../src/gallery.js';
import { lineCol, validationMarks } from '../../src/problems.js';
import { decodeState, encodeState, stateOf } from '../../src/share.js';
import { invalidNote } from '../../src/validation.js';

const www = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const examples = join(www, '..', 'examples');
initSync({ module: readFileSync(join(www, 'validate-wasm', 'web', 'validate_bg.wasm')) });

const read = (f) => readFileSync(join(examples, f), 'utf8');
/** The aws-network gallery entry as the playground loads it (its XRD beside the XR). */
function gallery() {
  const dir = 'gallery/aws-network';
  const files = Object.fromEntries(
    ['xr', 'xrd', 'composition'].map((f) => [`examples/${dir}/${f}.yaml`, read(`${dir}/${f}.yaml`)]),
  );
  return collect(files)['gallery/aws-network'];
}

/** The marks of the editors' texts, as the worker computes them after a render. */
function marks(texts, unused = []) {
  const built = buildRequest(texts, 'auto');
  assert.ok(built.request, JSON.stringify(built.problems));
  return validationMarks(validate(built.request.documents), { ...built, texts, unused });
}

/** The text at a mark's line and column, and its length, as a reader of the editor would find it. */
function at(text, mark) {
  const line = text.split('\n')[mark.line - 1];
  return line.slice(mark.col - 1, mark.col - 1 + (mark.to - mark.from));
}

test('a gallery entry as given has no validation problem', () => {
  const m = marks({ ...gallery(), observed: '' });
  assert.deepStrictEqual(m.problems, { xr: [], composition: [], observed: [] });
  assert.deepStrictEqual(m.invalidInputs, []);
});

test('misspellings are marked on the misspelt word at its line and column, with the fix', () => {
  const entry = gallery();
  const composition = entry.composition
    .replace('fromFieldPath: spec.id', 'fromFieldPath: spec.idd')
    .replace('- type: PatchSet\n', '- type: PatchSt\n')
    .replace('patchSetName: network-id\n', 'patchSetNme: network-id\n');
  const xr = entry.xr.replace('  id: ref-aws-network-from-xr', '  idd: ref-aws-network-from-xr');
  const texts = { xr, composition, observed: '' };
  const m = marks(texts);

  const summary = (editor) =>
    m.problems[editor].map((p) => [p.doc, p.line, p.col, at(texts[editor], p), p.severity, p.fix]);
  // The XR: its unknown field (pruned: a warning) and the required field it now lacks, on the
  // deepest member there is.
  assert.deepStrictEqual(summary('xr'), [
    [1, 6, 3, 'idd', 'warning', 'id'],
    [1, 5, 1, 'spec', 'error', undefined],
  ]);
  assert.deepStrictEqual(summary('composition'), [
    [1, 42, 15, 'patchSetNme', 'error', 'patchSetName'],
    [1, 41, 21, 'PatchSt', 'error', 'PatchSet'],
    [1, 24, 31, 'idd', 'warning', 'id'],
  ]);
  assert.match(m.problems.composition[1].message, /^spec\.pipeline\[0\]\.input\.resources\[0\]\.patches\[0\]\.type: Unsupported value: "PatchSt": .*; did you mean PatchSet\?$/);
  assert.ok(m.problems.composition.every((p) => p.group === 'validate'));
  // Errors count against the render, warnings do not.
  assert.deepStrictEqual(m.invalidInputs, [
    { editor: 'xr', doc: 1, errors: 1 },
    { editor: 'composition', doc: 1, errors: 2 },
  ]);
  assert.equal(
    invalidNote(m.invalidInputs),
    'This render used input that fails validation: xr document 1 (1 error), composition document 1 (2 errors). ' +
      'The problems are marked in the editors.',
  );
  // A document the render did not use does not make the note.
  const built = buildRequest(texts, 'auto');
  const index = built.origins.findIndex((o) => o.editor === 'composition');
  assert.deepStrictEqual(marks(texts, [index]).invalidInputs, [{ editor: 'xr', doc: 1, errors: 1 }]);
});

test('applying every fix, as the lint action does, leaves no problem', () => {
  const texts = { ...gallery(), observed: '' };
  texts.composition = texts.composition.replace('- type: PatchSet\n', '- type: PatchSt\n').replace('fromFieldPath: spec.id', 'fromFieldPath: spec.idd');
  const fixes = marks(texts).problems.composition;
  assert.equal(fixes.length, 2);
  let state = EditorState.create({ doc: texts.composition });
  const view = { dispatch: (spec) => (state = state.update(spec).state) };
  // From the end, so each range stays where the validator found it.
  for (const p of [...fixes].sort((a, b) => b.from - a.from)) {
    const action = fixAction(p.fix);
    assert.equal(action.name, `Change to ${p.fix}`);
    action.apply(view, p.from, p.to);
  }
  assert.equal(state.doc.toString(), gallery().composition);
  assert.deepStrictEqual(marks({ ...texts, composition: state.doc.toString() }).problems.composition, []);
});

test('a problem without a member to point at is marked on its deepest node', () => {
  // The Composition misses compositeTypeRef: the mark is on spec, the deepest member there is.
  const composition = 'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n  resources: []\n';
  const m = marks({ xr: '', composition, observed: '' });
  const p = m.problems.composition.find((x) => x.message.startsWith('spec.compositeTypeRef'));
  assert.ok(p, JSON.stringify(m.problems.composition));
  assert.deepStrictEqual([p.line, p.col, at(composition, p)], [5, 1, 'spec']);
  assert.equal(p.fix, undefined);
});

test('lineCol counts from 1', () => {
  assert.deepStrictEqual(lineCol('ab\ncd', 0), { line: 1, col: 1 });
  assert.deepStrictEqual(lineCol('ab\ncd', 4), { line: 2, col: 2 });
});

test('the gallery menu groups the bundled examples and the public configurations', () => {
  const files = {
    'examples/one/xr.yaml': 'a',
    'examples/one/composition.yaml': 'b',
    'examples/gallery/two/xr.yaml': 'kind: X\n',
    'examples/gallery/two/xrd.yaml': 'kind: CompositeResourceDefinition\n',
    'examples/gallery/two/composition.yaml': 'c',
  };
  const ex = collect(files);
  assert.deepStrictEqual(ex['gallery/two'].xr, 'kind: X\n---\nkind: CompositeResourceDefinition\n');
  assert.deepStrictEqual(menuGroups(ex), [
    ['Examples', ['one']],
    ['Gallery: public configurations', ['gallery/two']],
  ]);
});

test('a link holds the gallery entry it started from, with the documents and settings', async () => {
  const texts = { ...gallery(), observed: '' };
  const state = stateOf({ texts, semantics: 'function', iterate: { untilReady: false }, example: 'gallery/aws-network' });
  const back = await decodeState(await encodeState(state));
  assert.deepStrictEqual(back, { ...texts, semantics: 'function', example: 'gallery/aws-network' });
  assert.equal(stateOf({ texts, semantics: 'auto', example: '' }).example, undefined);
});
