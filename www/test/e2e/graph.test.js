// The Graph and Steps tabs in headless Chromium (www/dist): the gallery's pipeline drawn as the
// engine's trace says (every node and edge, coloured by outcome), a click on an edge puts the
// Composition's cursor on its patch, filters narrow the graph, and the pipeline's steps are
// walked one by one. Saves a screenshot of each view under target/.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';


import { buildRequest, chosenComposition, sourceLocator } from '../../src/documents.js';
import { collect } from '../../src/gallery.js';
import { buildGraph } from '../../src/graph.js';
import { graphData } from '../../src/graphdata.js';
import { stepChanges } from '../../src/steps.js';
import { artifacts, dist, openDist, www } from './support.js';

/** The gallery's Pipeline; it must stay in examples/. */
const EXAMPLE = 'pipeline-steps';
const engine = createRequire(import.meta.url)(join(www, 'xprender-wasm', 'nodejs', 'xprender.js'));

let browser;
let base;
let close;

before(async () => {
  ({ base, browser, close } = await openDist());
});

after(async () => {
  await close?.();
});

/** The example as the page bundles it. */
function example(name) {
  const dir = join(www, '..', 'examples', name);
  const files = {};
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    files[`examples/${name}/${f}`] = readFileSync(join(dir, f), 'utf8');
  }
  return collect(files)[name];
}

/** The graph the page should draw: the same request, rendered by the engine's Node build. */
function expectedGraph(ex) {
  const { request, compositions } = buildRequest(ex, 'auto');
  const output = engine.renderDocuments(request.documents, request.options);
  const ends = new Map(graphData(compositions[0], output).patchFields);
  return { output, graph: buildGraph(output, (s) => ends.get(s) ?? null) };
}

/** The 1-based line of a character offset. */
const lineOf = (text, offset) => text.slice(0, offset).split('\n').length;

test('the gallery pipeline as a flow graph: nodes, edges, a click to the patch, filters', async () => {
  const ex = example(EXAMPLE);
  assert.ok(ex, `examples/${EXAMPLE} is missing`);
  const { output, graph } = expectedGraph(ex);
  assert.ok(graph.edges.length > 3, 'the example has patches to draw');

  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base);
  await page.waitForFunction(() => window.__xprender.renders.length > 0, null, { timeout: 10_000 });
  await page.selectOption('#example', EXAMPLE);
  await page.click('nav [data-tab="graph"]');
  const edgeCount = graph.edges.length;
  await page.waitForFunction((n) => document.querySelectorAll('#graph-canvas [data-edge]').length === n, edgeCount, { timeout: 10_000 });

  // Nodes and edges as the trace says, each edge coloured by its patch's outcome.
  const nodes = await page.$$eval('#graph-canvas [data-node]', (els) => els.map((e) => e.dataset.node));
  assert.deepStrictEqual(nodes.sort(), graph.nodes.map((n) => n.id).sort());
  const edges = await page.$$eval('#graph-canvas [data-edge]', (els) =>
    els.map((e) => [e.dataset.edge, [...e.classList].find((c) => c.startsWith('outcome-'))]),
  );
  assert.deepStrictEqual(edges, graph.edges.map((e) => [e.id, `outcome-${e.outcome}`]));
  assert.equal(new Set(graph.edges.map((e) => e.entry)).size, output.trace.length, 'every traced patch is drawn');
  await page.screenshot({ path: join(artifacts, 'playground-e2e-graph.png') });

  // A click on an edge shows its entry and puts the Composition's cursor on its patch.
  const edge = graph.edges.find((e) => e.step === graph.edges.at(-1).step && e.transforms.length) ?? graph.edges.at(-1);
  await page.$eval(`#graph-canvas [data-edge="${edge.id}"]`, (el) => el.dispatchEvent(new MouseEvent('click', { bubbles: true })));
  const detail = await page.textContent('#graph-detail');
  assert.ok(detail.includes(edge.source), `the detail names the patch: ${detail}`);
  const at = sourceLocator(ex.composition)(edge.source);
  assert.ok(at, `${edge.source} is in the Composition`);
  const want = lineOf(ex.composition, at.from);
  await page.waitForFunction(
    (n) => document.querySelector('#composition .cm-activeLineGutter')?.textContent === String(n),
    want,
    { timeout: 5_000 },
  );
  assert.ok(await page.$('#composition .cm-patch-highlight'), 'the patch is highlighted');
  await page.screenshot({ path: join(artifacts, 'playground-e2e-graph-click.png') });

  // Search narrows the graph to the patches naming a field; one step shows only its edges.
  const field = edge.to.field;
  await page.fill('#graph-search', field);
  const searched = await page.$$eval('#graph-canvas [data-edge]', (els) => els.length);
  const matching = graph.edges.filter((e) => [e.from.field, e.to.field].some((f) => f.toLowerCase().includes(field.toLowerCase()))).length;
  assert.ok(searched >= matching && searched < edgeCount, `search kept ${searched} of ${edgeCount}`);
  await page.fill('#graph-search', '');
  await page.selectOption('#graph-step', edge.step);
  const stepped = await page.$$eval('#graph-canvas [data-edge]', (els) => els.length);
  assert.equal(stepped, graph.edges.filter((e) => e.step === edge.step).length);
  await page.selectOption('#graph-step', '');
  // Folding a node hides its fields; its edges meet its header.
  await page.check('#graph-fold');
  assert.equal(await page.$$eval('#graph-canvas .port', (els) => els.length), 0);
  await page.screenshot({ path: join(artifacts, 'playground-e2e-graph-folded.png') });
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test("a click on a nested XR's edge lands on the patch in that XR's own Composition", async () => {
  const name = 'nested-platform';
  const ex = example(name);
  const { request, compositions } = buildRequest(ex, 'auto');
  const output = engine.renderDocuments(request.documents, request.options);
  const graph = buildGraph(output);
  // A nested patch whose path the top Composition has too: the click must not land there.
  const top = chosenComposition(compositions, output.inputs);
  const edge = graph.edges.find((e) => e.level && top.getIn(e.source.split(/[.[\]]+/).filter(Boolean).map((k) => (/^\d+$/.test(k) ? Number(k) : k)), true));
  assert.ok(edge, 'a nested edge whose path the top Composition also has');
  const level = edge.level.split('/');
  let nested = output;
  for (const l of level) nested = nested.resources[l].nested;
  const own = chosenComposition(compositions, nested.inputs);
  const at = sourceLocator(own)(edge.source);
  const want = lineOf(ex.composition, at.from);
  assert.notEqual(want, lineOf(ex.composition, sourceLocator(top)(edge.source).from));

  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  await page.goto(base);
  await page.waitForFunction(() => window.__xprender.renders.length > 0, null, { timeout: 10_000 });
  await page.selectOption('#example', name);
  await page.click('nav [data-tab="graph"]');
  await page.waitForSelector(`#graph-canvas [data-edge="${edge.id}"]`, { state: 'attached', timeout: 10_000 });
  await page.$eval(`#graph-canvas [data-edge="${edge.id}"]`, (el) => el.dispatchEvent(new MouseEvent('click', { bubbles: true })));
  await page.waitForFunction(
    (n) => document.querySelector('#composition .cm-activeLineGutter')?.textContent === String(n),
    want,
    { timeout: 5_000 },
  );
  await page.screenshot({ path: join(artifacts, 'playground-e2e-graph-nested-click.png') });
  await page.close();
});

test('the gallery pipeline step by step: each step what it changed, its results and its state', async () => {
  const ex = example(EXAMPLE);
  const { output } = expectedGraph(ex);
  const steps = stepChanges(output.steps);
  assert.ok(steps.length >= 2, 'the example has several steps');
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  await page.goto(base);
  await page.waitForFunction(() => window.__xprender.renders.length > 0, null, { timeout: 10_000 });
  await page.selectOption('#example', EXAMPLE);
  await page.waitForSelector('nav [data-tab="steps"]:not([hidden])', { timeout: 10_000 });
  await page.click('nav [data-tab="steps"]');
  for (let i = 0; i < steps.length; i++) {
    if (i > 0) await page.click('#pstep-next');
    const title = await page.textContent('#pstep-title');
    assert.equal(title, `What step ${i + 1} (${steps[i].step}) changed`);
    const rows = await page.$$eval('#pstep-changes tr.change', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.deepStrictEqual(
      rows.map((r) => [r[2], r[3]]),
      steps[i].changes.map((c) => [c.change, c.path ?? '']),
    );
    const results = await page.$$eval('#pstep-results li', (lis) => lis.length);
    assert.equal(results, steps[i].results.length);
    assert.match(await page.textContent('#pstep-yaml'), /^# desired XR\n/);
    await page.screenshot({ path: join(artifacts, `playground-e2e-step-${i + 1}.png`) });
  }
  assert.equal(await page.isDisabled('#pstep-next'), true);
  await page.close();
});
