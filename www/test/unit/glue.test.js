// The playground's glue: URL state, the worker supervisor, trace entries, the gallery.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { collect, defaultExampleName } from '../../src/gallery.js';
import { Renderer } from '../../src/renderer.js';
import { decodeState, encodeState } from '../../src/share.js';
import { describeEntry, show, traceTarget } from '../../src/trace.js';

test('URL state round-trips through the compressed fragment', async () => {
  const state = { xr: 'a: 1\n'.repeat(200), composition: 'ünïcode: ✓\n', observed: '', semantics: 'native' };
  const fragment = await encodeState(state);
  assert.match(fragment, /^[A-Za-z0-9_-]+$/);
  assert.ok(fragment.length < JSON.stringify(state).length / 4, 'compressed');
  assert.deepStrictEqual(await decodeState(`#${fragment}`), state);
});

test('a fragment that holds no state decodes to null', async () => {
  assert.equal(await decodeState(''), null);
  assert.equal(await decodeState('#'), null);
  assert.equal(await decodeState('#not-deflate'), null);
  assert.equal(await decodeState(`#${await encodeState([1, 2])}`), null);
});

/** A stand-in worker: records messages; the test answers or hangs. */
class FakeWorker {
  constructor(log) {
    this.log = log;
    this.sent = [];
    this.terminated = false;
    log.push(this);
  }
  postMessage(m) {
    this.sent.push(m);
  }
  terminate() {
    this.terminated = true;
  }
  answer(extra) {
    const m = this.sent.at(-1);
    this.onmessage({ data: { id: m.id, ...extra } });
  }
}

function fakeTimers() {
  const timers = new Map();
  let n = 0;
  return {
    setTimer: (fn) => (timers.set(++n, fn), n),
    clearTimer: (id) => timers.delete(id),
    fireAll: () => [...timers.entries()].forEach(([id, fn]) => (timers.delete(id), fn())),
    count: () => timers.size,
  };
}

test('the renderer keeps one render in flight and only the newest edit waiting', () => {
  const workers = [];
  const answers = [];
  const t = fakeTimers();
  const r = new Renderer(() => new FakeWorker(workers), (a) => answers.push(a), t);
  r.submit({ n: 1 });
  r.submit({ n: 2 });
  r.submit({ n: 3 });
  assert.deepStrictEqual(workers[0].sent.map((m) => m.request.n), [1]);
  workers[0].answer({ output: 'one' });
  assert.deepStrictEqual(workers[0].sent.map((m) => m.request.n), [1, 3]);
  workers[0].answer({ output: 'three' });
  assert.deepStrictEqual(answers.map((a) => a.output), ['one', 'three']);
  assert.equal(t.count(), 0, 'no overrun timer left');
});

test('a render that overruns gets its worker replaced and an error answer', () => {
  const workers = [];
  const answers = [];
  const t = fakeTimers();
  const r = new Renderer(() => new FakeWorker(workers), (a) => answers.push(a), { ...t, overrunMs: 50 });
  r.submit({ n: 1 });
  r.submit({ n: 2 });
  t.fireAll();
  assert.equal(workers[0].terminated, true);
  assert.equal(workers.length, 2);
  assert.equal(r.replaced, 1);
  assert.equal(answers[0].error.kind, 'Timeout');
  assert.match(answers[0].error.message, /within 50 ms/);
  assert.deepStrictEqual(workers[1].sent.map((m) => m.request.n), [2], 'the waiting edit goes to the new worker');
  // A late answer from the old worker is ignored.
  workers[0].onmessage({ data: { id: 1, output: 'late' } });
  workers[1].answer({ output: 'two' });
  assert.deepStrictEqual(answers.map((a) => a.output ?? a.error.kind), ['Timeout', 'two']);
});

test('trace entries become a title and readable lines', () => {
  const entry = {
    resource: 'bucket',
    patchIndex: 2,
    patchType: 'FromCompositeFieldPath',
    fromFieldPath: 'spec.region',
    value: 'eu',
    transforms: [{ type: 'map', input: 'eu', output: 'eu-west-1' }],
    toFieldPath: 'spec.forProvider.region',
  };
  assert.deepStrictEqual(traceTarget(entry), { resource: 'bucket', patchIndex: 2 });
  assert.deepStrictEqual(describeEntry(entry), {
    title: 'bucket · patch 2 · FromCompositeFieldPath',
    status: '',
    lines: [
      { key: 'fromFieldPath', text: '"spec.region"', depth: 0 },
      { key: 'value', text: '"eu"', depth: 0 },
      { key: 'transforms', text: '', depth: 0 },
      { key: '0. map', text: 'input: "eu"  output: "eu-west-1"', depth: 1 },
      { key: 'toFieldPath', text: '"spec.forProvider.region"', depth: 0 },
    ],
  });
  const skipped = describeEntry({ resource: 'r', patchIndex: 0, skipped: true, reason: 'missing and Optional' });
  assert.equal(skipped.status, 'skipped');
  assert.deepStrictEqual(traceTarget({ patch: { index: 4 } }), { resource: undefined, patchIndex: 4 });
  assert.deepStrictEqual(traceTarget({ patchIndex: 'x' }), { resource: undefined, patchIndex: undefined });
  assert.equal(describeEntry('plain').title, '"plain"');
  assert.equal(show('x'.repeat(500)).length, 160);
});

test('the gallery groups example files and skips incomplete directories', () => {
  const ex = collect({
    '../../examples/b/xr.yaml': 'x: 1',
    '../../examples/b/composition.yaml': 'c: 1',
    '../../examples/b/environment.yaml': 'kind: EnvironmentConfig',
    '../../examples/b/observed.yaml': 'o: 1',
    '../../examples/a/xr.yaml': 'x: 2',
    '../../examples/a/composition.yaml': 'c: 2',
    '../../examples/incomplete/xr.yaml': 'x: 3',
  });
  assert.deepStrictEqual(Object.keys(ex), ['a', 'b']);
  assert.deepStrictEqual(ex.b, { xr: 'x: 1', composition: 'c: 1', observed: 'o: 1\n---\nkind: EnvironmentConfig\n' });
  assert.equal(ex.a.observed, '');
  assert.equal(defaultExampleName(ex), 'a');
  assert.equal(defaultExampleName({ ...ex, 'platform-db': ex.a }), 'platform-db');
});
