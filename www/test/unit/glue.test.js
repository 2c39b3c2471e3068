// The playground's glue: URL state, the worker supervisor, trace entries, the gallery.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { collect, defaultExampleName } from '../../src/gallery.js';
import { Renderer } from '../../src/renderer.js';
import { decodeState, encodeState, iterationCap, readSettings, stateOf } from '../../src/share.js';
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

test('links keep the render settings: semantics, until ready and its cap', async () => {
  const request = {
    texts: { xr: 'x: 1\n', composition: 'c: 1\n', observed: '' },
    semantics: 'native',
    iterate: { untilReady: true, iterations: 7 },
  };
  const state = stateOf(request);
  assert.deepStrictEqual(state, { xr: 'x: 1\n', composition: 'c: 1\n', observed: '', semantics: 'native', untilReady: true, iterations: 7 });
  const back = await decodeState(`#${await encodeState(state)}`);
  assert.deepStrictEqual(readSettings(back), { semantics: 'native', iterate: { untilReady: true, iterations: 7 } });
  // Without iterating, a link holds what it always held.
  assert.deepStrictEqual(stateOf({ ...request, iterate: { untilReady: false, iterations: undefined } }), {
    xr: 'x: 1\n', composition: 'c: 1\n', observed: '', semantics: 'native',
  });
  // A link from before, or a garbled one, reads as the defaults.
  assert.deepStrictEqual(readSettings({ semantics: 'native' }), { semantics: 'native', iterate: { untilReady: false, iterations: undefined } });
  assert.deepStrictEqual(readSettings({ semantics: 'x', untilReady: 'yes', iterations: -3 }), {
    semantics: 'auto',
    iterate: { untilReady: false, iterations: undefined },
  });
  assert.deepStrictEqual([iterationCap('12'), iterationCap(''), iterationCap('0'), iterationCap('2.5'), iterationCap(null)], [12, undefined, undefined, undefined, undefined]);
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

/** A page responder that records what it rendered and answers with a cost. */
function fakeInline(cost, rendered) {
  return (id, request) => {
    rendered.push(request.n);
    const phases = { parse: 0, render: cost(request), present: 0, graphData: 0 };
    return { message: { id, output: `inline ${request.n}`, phases }, built: { request: {} }, unused: [] };
  };
}

const edit = (n, xr = 'a: 1') => ({ n, texts: { xr }, semantics: 'auto', iterate: { untilReady: false } });
const flush = () => new Promise((resolve) => setTimeout(resolve));

test('cheap keystrokes render on the page, and the worker validates them', async () => {
  const workers = [];
  const answers = [];
  const rendered = [];
  const t = fakeTimers();
  const r = new Renderer(() => new FakeWorker(workers), (a) => answers.push(a), t);
  r.setInline(fakeInline(() => 3, rendered));
  // The first render (nothing known of its cost) goes to the worker.
  r.submit(edit(1));
  assert.deepStrictEqual(workers[0].sent.map((m) => m.request?.n), [1]);
  workers[0].answer({ output: 'one', phases: { parse: 1, render: 3, present: 1, graphData: 0 } });
  // A keystroke: rendered on the page after the editor's update, in one microtask; two edits
  // before it runs are one render.
  r.submit(edit(2, 'a: 12'));
  r.submit(edit(3, 'a: 123'));
  assert.deepStrictEqual(rendered, []);
  await flush();
  assert.deepStrictEqual(rendered, [3]);
  assert.equal(answers.at(-1).output, 'inline 3');
  assert.equal(answers.at(-1).phases.inline, true);
  const validate = workers[0].sent.at(-1);
  assert.deepStrictEqual([validate.validate?.n, validate.id], [3, answers.at(-1).id]);
  assert.equal(t.count(), 0, 'no overrun timer for a render on the page');
});

test('dear renders, pastes and changed settings go to the worker', async () => {
  const workers = [];
  const answers = [];
  const rendered = [];
  const r = new Renderer(() => new FakeWorker(workers), (a) => answers.push(a), fakeTimers());
  r.setInline(fakeInline((req) => ({ 3: 100, 6: 40 })[req.n] ?? 2, rendered));
  r.submit(edit(1));
  workers[0].answer({ output: 'one', phases: { parse: 0, render: 2, present: 0, graphData: 0 } });
  // A paste: the texts grew by more than a keystroke's worth.
  r.submit(edit(2, 'a: 1\n' + 'b: x\n'.repeat(100)));
  await flush();
  assert.deepStrictEqual(rendered, []);
  workers[0].answer({ output: 'two', phases: { parse: 0, render: 2, present: 0, graphData: 0 } });
  // A keystroke rendered on the page that turns out far over a frame: the next one goes to the
  // worker.
  r.submit(edit(3, 'a: 1\n' + 'b: x\n'.repeat(100) + 'c'));
  await flush();
  assert.deepStrictEqual(rendered, [3]);
  r.submit(edit(4, 'a: 1\n' + 'b: x\n'.repeat(100) + 'cd'));
  await flush();
  assert.deepStrictEqual(rendered, [3]);
  assert.equal(workers[0].sent.at(-1).request?.n, 4);
  workers[0].answer({ output: 'four', phases: { parse: 0, render: 2, present: 0, graphData: 0 } });
  // Other settings: the worker.
  r.submit({ ...edit(5, 'a: 1\n' + 'b: x\n'.repeat(100) + 'cd'), semantics: 'native' });
  await flush();
  assert.deepStrictEqual(rendered, [3]);
  assert.equal(workers[0].sent.at(-1).request?.n, 5);
  workers[0].answer({ output: 'five', phases: { parse: 0, render: 2, present: 0, graphData: 0 } });
  // A render slowed a little (by the machine's other work) keeps the next one on the page.
  const more = (n, tail) => ({ ...edit(n, 'a: 1\n' + 'b: x\n'.repeat(100) + tail), semantics: 'native' });
  r.submit(more(6, 'cde'));
  await flush();
  r.submit(more(7, 'cdef'));
  await flush();
  assert.deepStrictEqual(rendered, [3, 6, 7]);
});

test('a warm-up render readies the page responder without an answer', () => {
  const answers = [];
  const rendered = [];
  const r = new Renderer(() => new FakeWorker([]), (a) => answers.push(a), fakeTimers());
  r.setInline(fakeInline(() => 1, rendered), edit(0));
  assert.deepStrictEqual([rendered, answers], [[0], []]);
  assert.equal(typeof r.inline, 'function');
  // A responder that cannot render the warm-up is not used.
  const broken = new Renderer(() => new FakeWorker([]), () => {}, fakeTimers());
  broken.setInline(() => {
    throw new Error('broken');
  }, edit(0));
  assert.equal(broken.inline, null);
});

test('a page responder that throws hands the edit to the worker for good', async () => {
  const workers = [];
  const answers = [];
  const r = new Renderer(() => new FakeWorker(workers), (a) => answers.push(a), fakeTimers());
  r.setInline(() => {
    throw new Error('broken');
  });
  r.submit(edit(1));
  workers[0].answer({ output: 'one', phases: { parse: 0, render: 1, present: 0, graphData: 0 } });
  r.submit(edit(2, 'a: 2'));
  await flush();
  assert.equal(workers[0].sent.at(-1).request?.n, 2);
  assert.equal(r.inline, null);
});

test('trace entries read as what was read, transformed and written', () => {
  // The example of docs/render.md.
  const entry = {
    resource: 'instance',
    patch: 0,
    type: 'FromCompositeFieldPath',
    direction: 'composite -> composed',
    policy: { fromFieldPath: 'Optional', write: 'Replace' },
    from: [{ path: 'spec.region', value: 'us-east-1' }],
    transforms: [
      { index: 0, type: 'map', input: 'us-east-1', output: 'East US' },
      { index: 1, type: 'string', input: 'East US', output: 'EAST US' },
    ],
    to: [{ path: 'spec.forProvider.location', value: 'EAST US' }],
    outcome: 'applied',
    summary: 'spec.region "us-east-1" → map "East US" → string "EAST US" → spec.forProvider.location',
  };
  assert.deepStrictEqual(traceTarget(entry), { step: undefined, resource: 'instance', environment: false, patchIndex: 0 });
  assert.deepStrictEqual(describeEntry(entry), {
    title: 'instance · patch 0 · FromCompositeFieldPath',
    outcome: 'applied',
    summary: 'spec.region "us-east-1" → map "East US" → string "EAST US" → spec.forProvider.location',
    lines: [
      { key: 'direction', text: 'composite -> composed', depth: 0 },
      { key: 'policy', text: 'fromFieldPath Optional, write Replace', depth: 0 },
      { key: 'read', text: 'spec.region = "us-east-1"', depth: 0 },
      { key: '0 map', text: '"us-east-1" → "East US"', depth: 1 },
      { key: '1 string', text: '"East US" → "EAST US"', depth: 1 },
      { key: 'wrote', text: 'spec.forProvider.location = "EAST US"', depth: 0 },
    ],
  });
});

test('trace entries say why a patch was skipped or failed', () => {
  const skipped = describeEntry({
    step: 'pt',
    environment: true,
    patch: 2,
    type: 'ToEnvironmentFieldPath',
    from: [{ path: 'spec.zone', missing: true, error: 'spec.zone: no such field' }],
    outcome: 'skipped',
    reason: 'the source is missing and policy.fromFieldPath is Optional: the patch is skipped',
    extra: [1],
  });
  assert.equal(skipped.title, 'step pt · environment · patch 2 · ToEnvironmentFieldPath');
  assert.equal(skipped.outcome, 'skipped');
  assert.equal(skipped.summary, '');
  assert.deepStrictEqual(skipped.lines, [
    { key: 'read', text: 'spec.zone: missing (spec.zone: no such field)', depth: 0 },
    { key: 'why', text: 'the source is missing and policy.fromFieldPath is Optional: the patch is skipped', depth: 0, error: false },
    { key: 'extra', text: '[1]', depth: 0 },
  ]);
  const failed = describeEntry({
    resource: 'r',
    patch: 1,
    type: 'CombineFromComposite',
    from: [{ path: 'a', value: 1 }, { path: 'b', error: 'b: boom' }],
    combined: 'x-1',
    transforms: [{ index: 0, type: 'math', input: 'x-1', error: 'input is not a number' }],
    to: [{ path: 'spec.m', value: { a: 1 }, result: { a: 1, b: 2 } }],
    outcome: 'failed',
    reason: 'the render stops',
  });
  assert.deepStrictEqual(failed.lines, [
    { key: 'read', text: 'a = 1', depth: 0 },
    { key: 'read', text: 'b: b: boom', depth: 0, error: true },
    { key: 'combined', text: '"x-1"', depth: 0 },
    { key: '0 math', text: '"x-1" → input is not a number', depth: 1, error: true },
    { key: 'wrote', text: 'spec.m = {"a":1} (now {"a":1,"b":2})', depth: 0 },
    { key: 'why', text: 'the render stops', depth: 0, error: true },
  ]);
  assert.deepStrictEqual(traceTarget({ patchIndex: 'x' }).patchIndex, undefined);
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
  assert.equal(ex.b.untilReady, undefined);
  const sim = collect({
    '../../examples/t/xr.yaml': 'x: 1',
    '../../examples/t/composition.yaml': 'c: 1',
    '../../examples/t/simulation.yaml': 'kind: Simulation\n',
  });
  assert.deepStrictEqual(sim.t, { xr: 'x: 1', composition: 'c: 1', observed: 'kind: Simulation\n', untilReady: true });
  assert.equal(defaultExampleName({ ...ex, 'platform-db': ex.a }), 'platform-db');
});
