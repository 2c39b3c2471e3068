// The playground in real headless Chromium: opens the built page (www/dist), loads an example,
// edits the XR and sees the composed resource change, opens the explain trace, breaks the YAML and
// sees the error marker; loads the nested platform and walks its tree and iterations. Measures
// navigation → first output, keystroke → output and the engine's gzip size; saves screenshots
// under target/.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';


import { buildRequest } from '../../src/documents.js';
import { collect } from '../../src/gallery.js';
import { artifacts, dist, openDist, www } from './support.js';

/** The example the test drives; it must stay in examples/. */
const EXAMPLE = 'object-storage';

let browser;
let base;
let close;
const figures = {};

before(async () => {
  ({ base, browser, close } = await openDist());
});

after(async () => {
  await close?.();
  if (Object.keys(figures).length) {
    writeFileSync(join(artifacts, 'playground-metrics.json'), `${JSON.stringify(figures, null, 2)}\n`);
  }
});

// The 150 KB budget is lifted (the regexp engine weighs what it weighs); this guards a
// ceiling at today's size: growth fails, and the ceiling comes down as the engine shrinks.
// The whole tree of a documents request (nested XRs, claims, iterations through simulated
// providers) took it from 192,883 to 213,300 bytes (zlib level 9, as measured here).
test('the engine wasm in www/dist stays under its size ceiling', () => {
  // The validator's wasm (validate_bg-*.wasm) is loaded later and measured in problems.test.js.
  const wasm = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.wasm') && !f.startsWith('validate'));
  assert.equal(wasm.length, 1, `one engine wasm expected, found ${wasm}`);
  const bytes = readFileSync(join(dist, 'assets', wasm[0]));
  const gz = gzipSync(bytes, { level: 9 }).length;
  figures.wasmBytes = bytes.length;
  figures.wasmGzipBytes = gz;
  console.log(`engine wasm: ${bytes.length} bytes, ${gz} bytes gzipped`);
  assert.ok(gz <= 215_000, `engine wasm gzip ${gz} bytes > 215,000-byte ceiling`);
});

/** The text of a CodeMirror editor inside the element with this id. */
function editorText(page, id) {
  return page.$eval(`#${id} .cm-content`, (el) => [...el.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n'));
}

async function waitForEditorText(page, id, needle) {
  await page.waitForFunction(
    ([id, needle]) => document.querySelector(`#${id} .cm-content`)?.textContent.includes(needle),
    [id, needle],
    { timeout: 10_000 },
  );
}

// Speed is measured here and recorded in docs/benchmarks.md (aim: ≤ 500 ms); the assertion is
// only a liveness bound, so a busy machine does not fail the suite.
test('navigation to first output is measured', async () => {
  // Each navigation in a fresh context (empty cache, no stored state) of the running browser;
  // the median of five keeps a busy machine's one-off stall from deciding.
  const times = [];
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(base);
    await page.waitForFunction(() => (window.__xprender?.firstOutputAt ?? null) !== null, null, { timeout: 10_000 });
    times.push(await page.evaluate(() => window.__xprender.firstOutputAt));
    await context.close();
  }
  const median = [...times].sort((a, b) => a - b)[2];
  figures.navigationToFirstOutputMs = times.map((t) => Math.round(t));
  console.log(`navigation → first output: ${times.map((t) => t.toFixed(0)).join(', ')} ms (median ${median.toFixed(0)} ms)`);
  assert.ok(median <= 5_000, `first output after ${median} ms (median): the page is stuck`);
});

test('the playground renders, explains and marks errors in Chromium', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

  // A person opening the page sees a rendered example without any action.
  await page.goto(base);
  await page.waitForFunction(() => (window.__xprender?.firstOutputAt ?? null) !== null, null, { timeout: 10_000 });
  await waitForEditorText(page, 'out-resources', 'kind: ');

  // The gallery lists every example directory of the repository.
  const exampleDirs = readdirSync(join(www, '..', 'examples'))
    .filter((d) => ['xr.yaml', 'composition.yaml'].every((f) => existsSync(join(www, '..', 'examples', d, f))))
    .sort();
  const listed = await page.$$eval('#example option', (os) => os.map((o) => o.value).filter((v) => v && !v.startsWith('gallery/')));
  assert.deepStrictEqual(listed, exampleDirs);

  // Load the example from the gallery.
  await page.selectOption('#example', EXAMPLE);
  await waitForEditorText(page, 'out-resources', 'kind: Bucket');
  await waitForEditorText(page, 'out-resources', 'region: eu-west-1');

  // Edit the XR by keystrokes: region eu → us; the map transform makes it us-east-1. The page's
  // own engine is loaded by now: a keystroke is rendered on the page's thread.
  await page.waitForFunction(() => window.__xprender.inlineAt !== undefined, null, { timeout: 10_000 });
  await page.locator('#xr .cm-line', { hasText: 'region: eu' }).click();
  await page.keyboard.press('End');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('u');
  // Let the edits settle, then time the last keystroke on its own.
  await page.waitForTimeout(300);
  const before = await page.evaluate(() => ({ n: window.__xprender.renders.length, t: performance.now() }));
  await page.keyboard.type('s');
  await waitForEditorText(page, 'out-resources', 'region: us-east-1');
  const last = await page.evaluate((n) => window.__xprender.renders.slice(n), before.n);
  assert.ok(last.length >= 1, 'no render after the keystroke');
  // Rendered on the page's thread, and validated by the worker after it.
  const answer = await page.evaluate(() => window.__xprender.answers.at(-1));
  assert.equal(answer.inline, true, 'the keystroke was rendered in the worker');
  await page.waitForFunction((id) => window.__xprender.validations.some((v) => v.id === id), answer.id, { timeout: 20_000 });
  const renderMs = Math.max(...last.map((r) => r.ms));
  const wallMs = last.at(-1).at - before.t;
  figures.keystrokeRenderMs = Number(renderMs.toFixed(2));
  figures.keystrokeToOutputMs = Math.round(wallMs);
  console.log(`keystroke → updated output: render ${renderMs.toFixed(2)} ms, ${wallMs.toFixed(1)} ms wall`);
  // Aim ≤ 16 ms, recorded in docs/benchmarks.md; the bound only catches a hung render.
  assert.ok(renderMs <= 1_000, `render took ${renderMs} ms`);

  // Typical render time over a few more edits.
  const samples = [];
  for (const ch of ['x', 'Backspace', 'y', 'Backspace']) {
    const n = await page.evaluate(() => window.__xprender.renders.length);
    await page.keyboard.press(ch);
    await page.waitForFunction((n) => window.__xprender.renders.length > n, n);
    samples.push(await page.evaluate(() => window.__xprender.renders.at(-1).ms));
  }
  figures.renderMsSamples = samples.map((s) => Number(s.toFixed(2)));
  console.log(`render times of further edits: ${figures.renderMsSamples.join(', ')} ms`);

  // The explain trace: entries for the patches; clicking one highlights it in the Composition.
  await page.click('nav [data-tab="trace"]');
  const entries = page.locator('#trace li');
  assert.ok((await entries.count()) > 1, 'no trace entries');
  const entry = entries.filter({ hasText: 'versioning' }).first();
  await entry.click();
  await page.waitForSelector('#composition .cm-patch-highlight', { timeout: 5_000 });
  const highlighted = await page.$$eval('#composition .cm-patch-highlight', (els) => els.map((e) => e.textContent).join(''));
  assert.ok(highlighted.length > 0, 'empty patch highlight');
  await page.screenshot({ path: join(artifacts, 'playground-e2e-trace.png') });

  // The semantics selector re-renders; the download holds the desired XR and composed resources.
  const rendersBefore = await page.evaluate(() => window.__xprender.renders.length);
  await page.selectOption('#semantics', 'function');
  await page.waitForFunction((n) => window.__xprender.renders.length > n, rendersBefore);
  await page.selectOption('#semantics', 'auto');
  await page.waitForFunction((n) => window.__xprender.renders.length > n + 1, rendersBefore);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const saved = readFileSync(await download.path(), 'utf8');
  assert.match(saved, /^apiVersion: storage\.example\.org\/v1alpha1\nkind: XObjectStore\n/);
  assert.match(saved, /\n---\napiVersion: s3\.aws\.upbound\.io\/v1beta1\nkind: Bucket\n/);

  // A failing patch is marked in the Composition: the map has no entry for "mars".
  await page.locator('#xr .cm-line', { hasText: 'region: us' }).click();
  await page.keyboard.press('End');
  for (let i = 0; i < 2; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type('mars');
  await page.waitForSelector('#composition .cm-lintRange-error', { timeout: 5_000 });
  const fault = await page.$$eval('#composition .cm-lintRange-error', (els) => els.map((e) => e.textContent).join(''));
  assert.match(fault, /fromFieldPath: spec\.parameters\.region/, 'the marker is on the failing patch');
  const told = `${await page.textContent('#render-error')} ${await page.textContent('#results')}`;
  assert.match(told, /mars/, 'the failure is reported');
  for (let i = 0; i < 4; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type('us');
  await page.waitForSelector('#composition .cm-lintRange-error', { state: 'detached', timeout: 5_000 });

  // Break the XR's YAML: an error marker, the position in the status, the last output dimmed.
  await page.locator('#xr .cm-line', { hasText: 'name: team-a-assets' }).first().click();
  await page.keyboard.press('End');
  await page.keyboard.type('\nbroken: [');
  await page.waitForSelector('#xr .cm-lintRange-error', { timeout: 5_000 });
  await page.waitForSelector('#xr .cm-lint-marker-error');
  await page.waitForSelector('#outputs.stale');
  assert.match(await page.textContent('#status'), /^xr: document 1, line \d+, column \d+: /);
  assert.match(await page.textContent('#input-error'), /^YAML error in xr: document 1, line \d+, column \d+: /);
  assert.match(await editorText(page, 'out-resources'), /region: us-east-1/, 'last good output kept');
  await page.click('nav [data-tab="resources"]');
  await page.screenshot({ path: join(artifacts, 'playground-e2e.png') });

  // Share state: the fragment restores the broken document in a fresh page.
  // The fragment is written 300 ms after the last edit; wait until it holds the broken XR.
  const fragmentText = () =>
    page.evaluate(async () => {
      // Before the first write the fragment is empty, which does not inflate: read as nothing yet.
      try {
        const b64 = location.hash.slice(1).replace(/-/g, '+').replace(/_/g, '/');
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
        return await new Response(stream).text();
      } catch {
        return '';
      }
    });
  for (let i = 0; !(await fragmentText()).includes('broken: ['); i++) {
    assert.ok(i < 100, 'the URL fragment never held the edited XR');
    await page.waitForTimeout(100);
  }
  // page.url() can lag behind history.replaceState; the page knows its own address.
  const url = await page.evaluate(() => location.href);
  const again = await browser.newPage();
  await again.goto(url);
  await waitForEditorText(again, 'xr', 'broken: [');
  await again.close();

  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});

// A native reconcile that fails after the apply (a Required ToComposite patch whose source the new
// bucket does not have yet): the resources Crossplane applies stay visible, with the failure.
test('a failure after the apply keeps the applied resources visible', async () => {
  const example = join(www, '..', 'examples', EXAMPLE);
  const composition = readFileSync(join(example, 'composition.yaml'), 'utf8').replace(
    '          toFieldPath: status.bucketArn\n',
    '          toFieldPath: status.bucketArn\n          policy:\n            fromFieldPath: Required\n',
  );
  assert.match(composition, /fromFieldPath: Required/);
  const state = { xr: readFileSync(join(example, 'xr.yaml'), 'utf8'), composition, observed: '', semantics: 'native' };
  const fragment = deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}#${fragment}`);
  await page.waitForSelector('#render-error:not([hidden])', { timeout: 10_000 });
  const told = await page.textContent('#render-error');
  assert.match(told, /^Fatal: cannot render ToComposite patches for composed resource "bucket": cannot apply the "ToCompositeFieldPath" patch at index 3: status: no such field/);
  assert.match(told, /fieldPath: status\.atProvider\.arn/);
  assert.match(told, /Crossplane applies the composed resources below/);
  assert.match(await page.textContent('#status'), /^Fatal: /);
  // Every resource is shown as applied, not dimmed.
  const resources = await editorText(page, 'out-resources');
  for (const kind of ['Bucket', 'BucketVersioning', 'BucketLifecycleConfiguration']) {
    assert.match(resources, new RegExp(`kind: ${kind}\\n`), `${kind} shown`);
  }
  assert.equal(await page.$('#outputs.stale'), null, 'the output is current, not stale');
  // The failing patch is marked in the Composition.
  await page.waitForSelector('#composition .cm-lintRange-error', { timeout: 5_000 });
  assert.match(await page.textContent('#results'), /Fatal \[bucket\]/);
  await page.screenshot({ path: join(artifacts, 'playground-e2e-fatal.png') });
  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});

// The engine names each patch by its path in the Composition: a trace entry and a failure lead to
// the patch a PatchSet brought in, and to one a Pipeline step's input holds.
test('trace entries and failures lead to their patch, from a PatchSet or a Pipeline step', async () => {
  const data = join(www, 'test', 'data', 'patch-sources');
  const read = (f) => readFileSync(join(data, f), 'utf8');
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const open = async (xr, composition) => {
    const state = { xr, composition, observed: '', semantics: 'native' };
    const fragment = deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');
    await page.goto('about:blank');
    await page.goto(`${base}#${fragment}`);
    await page.waitForSelector('#render-error:not([hidden])', { timeout: 10_000 });
  };
  /** The highlighted text of the Composition, once it holds `needle`. */
  const highlight = async (needle) => {
    await page.waitForFunction(
      (needle) => [...document.querySelectorAll('#composition .cm-patch-highlight')].map((e) => e.textContent).join('').includes(needle),
      needle,
      { timeout: 5_000 },
    );
    return page.$$eval('#composition .cm-patch-highlight', (els) => els.map((e) => e.textContent).join(''));
  };
  const follow = async (title) => {
    await page.click('nav [data-tab="trace"]');
    await page.locator('#trace li', { has: page.locator('.title', { hasText: title }) }).click();
  };

  // A PatchSet's patch fails after the apply: the Fatal result leads to it, in the PatchSet.
  await open(read('xr.yaml'), read('patch-set.yaml'));
  assert.match(await page.textContent('#render-error'), /patchIndex: 2/);
  assert.match(await highlight('status.atProvider.arn'), /^type: ToCompositeFieldPath/);
  const marked = await page.$$eval('#composition .cm-lintRange-error', (els) => els.map((e) => e.textContent).join(''));
  assert.match(marked, /status\.atProvider\.arn/);
  // The trace entry of the PatchSet's first patch (the template's patch 1) leads to it.
  await follow('bucket · patch 1 ·');
  assert.match(await highlight('spec.forProvider.size'), /^fromFieldPath: spec\.size/);

  // In a Pipeline step's input: the Fatal result, then a trace entry.
  const xr = read('xr.yaml').replace('  size: 3\n', '  zone: a\n');
  await open(xr, read('pipeline.yaml'));
  assert.match(await highlight('status.atProvider.id'), /^type: ToCompositeFieldPath/);
  await follow('step pt · disk · patch 0 ·');
  assert.match(await highlight('spec.forProvider.region'), /^fromFieldPath: spec\.region/);

  // A render error (no Output) names the step's environment patch.
  await open(read('xr.yaml'), read('pipeline.yaml'));
  assert.match(await page.textContent('#render-error'), /^Render: cannot apply environment patch at index 0/);
  assert.match(await highlight('toFieldPath: zone'), /^fromFieldPath: spec\.zone/);

  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});

// The engine chooses among the typed documents: a document it does not use is marked with its
// reason, and the Inputs tab lists what it chose.
test('documents the engine does not use are marked, and the Inputs tab says what it chose', async () => {
  const example = join(www, '..', 'examples', EXAMPLE);
  const state = {
    xr: readFileSync(join(example, 'xr.yaml'), 'utf8'),
    composition: readFileSync(join(example, 'composition.yaml'), 'utf8'),
    observed: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n',
    semantics: 'auto',
  };
  const fragment = deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}#${fragment}`);
  await waitForEditorText(page, 'out-resources', 'kind: Bucket');
  await page.waitForSelector('#observed .cm-lintRange-warning', { timeout: 5_000 });
  await page.click('nav [data-tab="inputs"]');
  const rows = await page.$$eval('#inputs tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const byLabel = Object.fromEntries(rows.slice(1));
  assert.match(byLabel.XR, /^XObjectStore\//);
  assert.match(byLabel['unused: observed document 1'], /^ConfigMap\/notes: /);
  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});

test('the page follows the system colour scheme', async () => {
  const colors = {};
  for (const colorScheme of ['light', 'dark']) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, colorScheme });
    await page.goto(`${base}#`);
    await waitForEditorText(page, 'out-resources', 'kind: ');
    colors[colorScheme] = await page.$eval('#out-resources .cm-editor', (el) => getComputedStyle(el).backgroundColor);
    if (colorScheme === 'dark') await page.screenshot({ path: join(artifacts, 'playground-e2e-dark.png') });
    await page.close();
  }
  assert.equal(colors.light, 'rgb(255, 255, 255)');
  assert.equal(colors.dark, 'rgb(26, 28, 33)');
});

/** The gallery's nested platform (three levels of XRs, simulated providers); it must stay in examples/. */
const TREE_EXAMPLE = 'platform-tree';

/** The gallery's examples as the page bundles them. */
function gallery() {
  const files = {};
  const root = join(www, '..', 'examples');
  for (const dir of readdirSync(root)) {
    if (!existsSync(join(root, dir, 'xr.yaml'))) continue;
    for (const f of readdirSync(join(root, dir)).filter((f) => f.endsWith('.yaml'))) {
      files[`examples/${dir}/${f}`] = readFileSync(join(root, dir, f), 'utf8');
    }
  }
  return collect(files);
}

const engine = createRequire(import.meta.url)(join(www, 'xprender-wasm', 'nodejs', 'xprender.js'));

/**
 * What the tree shows of an Output, walked here on its own: [level, Kind/name, ready] for the XR
 * and each composed resource, a nested XR (as its own render leaves it) before its own.
 */
function expectedRows(out) {
  const name = (o) => `${o.kind}/${o.metadata?.name ?? `${o.metadata?.generateName}*`}`;
  const rows = [[0, name(out.composite), String(out.ready === true)]];
  const walk = (o, level) => {
    for (const r of Object.values(o.resources)) {
      rows.push([level, name(r.nested?.composite ?? r.resource), String(r.ready)]);
      if (r.nested) walk(r.nested, level + 1);
    }
  };
  walk(out, 1);
  return rows;
}

/** The tree's rows on the page: [level, Kind/name, ready ('true'/'false'), synced]. */
function pageRows(page) {
  return page.$$eval('#tree tr.tree-row', (trs) =>
    trs.map((tr) => [
      Number(tr.dataset.level),
      tr.querySelector('.label').textContent,
      tr.querySelector('.ready').textContent.toLowerCase(),
      tr.querySelector('.synced').textContent.toLowerCase(),
    ]),
  );
}

/** The changes table on the page, as [resource, object, change, path]. */
function pageChanges(page) {
  return page.$$eval('#changes tr.change', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
}

test('the nested platform shows its tree and steps through its iterations', async () => {
  const example = gallery()[TREE_EXAMPLE];
  assert.ok(example, `examples/${TREE_EXAMPLE} is missing`);
  const { request } = buildRequest(example, 'auto', { untilReady: true });
  const want = engine.renderDocuments(request.documents, request.options);
  const iterations = want.iterations;
  assert.ok(iterations.length >= 3, 'the example takes several iterations to settle');

  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${base}#`);
  await waitForEditorText(page, 'out-resources', 'kind: ');
  assert.equal(await page.isVisible('nav [data-tab="tree"]'), false, 'no tree for an XR without nested XRs');
  assert.equal(await page.isChecked('#until-ready'), false);

  // One click: the example opens iterating until ready, on its tree.
  await page.selectOption('#example', TREE_EXAMPLE);
  await page.waitForSelector('#stepper:not([hidden])', { timeout: 10_000 });
  assert.equal(await page.isChecked('#until-ready'), true);
  await page.waitForSelector('.tab[data-tab="tree"]:not([hidden])');
  // The stepper stands on the last iteration: the tree is its output's, the final state.
  const wantRows = expectedRows(iterations.at(-1).output);
  assert.equal(wantRows.length, 9);
  assert.deepStrictEqual(new Set(wantRows.map(String)), new Set(expectedRows(want).map(String)));
  assert.deepStrictEqual(await pageRows(page), wantRows.map((r) => [...r, 'true']));
  assert.match(await page.textContent('#status'), new RegExp(`, ${iterations.length} iterations$`));
  // The chosen row's object: the XR first, then a click on the VPC.
  assert.match(await editorText(page, 'out-object'), /^apiVersion: platform\.example\.org\/v1alpha1\nkind: XPlatform\n/);
  await page.locator('#tree tr.tree-row', { hasText: 'VPC/' }).click();
  await waitForEditorText(page, 'out-object', 'kind: VPC');
  const vpc = await editorText(page, 'out-object');
  const vpcName = want.resources.network.nested.resources.vpc.resource.metadata.name;
  assert.match(vpc, new RegExp(`\\n  name: ${vpcName}\\n`));
  assert.match(vpc, /cidrBlock: 10\.0\.0\.0\/16/);
  await page.screenshot({ path: join(artifacts, 'playground-e2e-tree.png') });

  // Folding the network hides its VPC, XSubnets and Subnets.
  await page.click('#tree tr.tree-row[data-path="network"] .toggle');
  const visible = () => page.$$eval('#tree tr.tree-row:not([hidden])', (trs) => trs.map((tr) => tr.dataset.path));
  assert.deepStrictEqual((await visible()).sort(), ['', 'cluster', 'cluster/eks', 'dns', 'network']);
  await page.click('#tree tr.tree-row[data-path="network"] .toggle');
  assert.equal((await visible()).length, 9);

  // The stepper starts at the last iteration; the Iterations tab lists them all.
  assert.equal(await page.$eval('#step', (s) => s.options.length), iterations.length);
  assert.equal(await page.inputValue('#step'), String(iterations.at(-1).iteration));
  await page.click('nav [data-tab="iterations"]');
  assert.equal(await page.locator('#iterations-list li').count(), iterations.length);
  // Step back to the first iteration and forward again: each shows its tree, its output and
  // what it changed.
  const check = async (k) => {
    const it = iterations[k];
    assert.equal(await page.inputValue('#step'), String(it.iteration));
    assert.match(await page.textContent('#changes-title'), new RegExp(`iteration ${it.iteration} changed$`));
    const shownChanges = await pageChanges(page);
    assert.deepStrictEqual(
      shownChanges,
      it.changes.map((c) => [c.resource ?? '(XR)', c.object, c.change, c.path ?? '']),
      `iteration ${it.iteration}: changes`,
    );
    await page.screenshot({ path: join(artifacts, `playground-e2e-iteration-${it.iteration}.png`) });
    await page.click('nav [data-tab="tree"]');
    assert.deepStrictEqual(
      (await pageRows(page)).map((r) => r.slice(0, 3)),
      expectedRows(it.output),
      `iteration ${it.iteration}: tree`,
    );
    await page.click('nav [data-tab="composite"]');
    const composite = await editorText(page, 'out-composite');
    const condition = it.output.composite.status?.conditions?.find((c) => c.type === 'Ready');
    assert.match(composite, new RegExp(`reason: ${condition.reason}\\n`), `iteration ${it.iteration}: desired XR`);
    await page.click('nav [data-tab="iterations"]');
  };
  await check(iterations.length - 1);
  for (let k = iterations.length - 2; k >= 0; k--) {
    await page.click('#step-prev');
    await check(k);
  }
  assert.equal(await page.isDisabled('#step-prev'), true);
  // The VPC's id reaches the platform's status in one iteration, shown with its value.
  const up = iterations.findIndex((it) => it.changes.some((c) => c.resource === undefined && c.path === 'status.vpcId'));
  assert.ok(up > 0, 'an iteration writes the platform status.vpcId');
  await page.selectOption('#step', String(iterations[up].iteration));
  const row = page.locator('#changes tr.change', { hasText: 'status.vpcId' }).filter({ hasText: '(XR)' });
  const detail = await row.evaluate((tr) => tr.nextElementSibling.textContent);
  assert.equal(detail, '→ "vpc-0a1b2c3d"');
  await page.selectOption('#step', '1');
  // The first render adds every object of the tree; the tree marks each row so.
  assert.ok(iterations[0].changes.every((c) => c.change === 'added'));
  await page.click('nav [data-tab="tree"]');
  assert.equal(await page.locator('#tree tr.tree-row .badge.change-added').count(), 9);
  await page.click('#step-next');
  assert.equal(await page.inputValue('#step'), '2');
  // A click in the list goes straight to an iteration.
  await page.click('nav [data-tab="iterations"]');
  await page.click(`#iterations-list li[data-iteration="${iterations.length}"]`);
  assert.equal(await page.inputValue('#step'), String(iterations.length));
  assert.equal(await page.isDisabled('#step-next'), true);

  // The link keeps until ready: a fresh page opens iterating.
  await page.click('#share');
  const url = await page.evaluate(() => location.href);
  const again = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await again.goto(url);
  await again.waitForSelector('#stepper:not([hidden])', { timeout: 10_000 });
  assert.equal(await again.isChecked('#until-ready'), true);
  assert.equal(await again.$eval('#step', (s) => s.options.length), iterations.length);
  await again.close();

  // A cap the tree cannot settle within: the engine's error, and the iterations it rendered.
  await page.fill('#iterations', '2');
  await page.waitForFunction(() => document.querySelector('#render-error')?.textContent.includes('did not settle within 2 iterations'), null, {
    timeout: 10_000,
  });
  assert.equal(await page.$eval('#step', (s) => s.options.length), 2);
  assert.equal(await page.$('#outputs.stale'), null, 'the iterations are current, not stale');
  await page.fill('#iterations', '');
  await page.waitForSelector('#render-error', { state: 'hidden', timeout: 10_000 });

  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});

test('a nested XR without a Composition is marked in the tree, with the warning', async () => {
  const example = gallery()[TREE_EXAMPLE];
  // The XSubnets' Composition gives way to its XRD: the engine knows it for an XR, and has no
  // Composition to render it with.
  const docs = example.composition.split(/^---\n/m);
  const xrd = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xsubnets.platform.example.org
spec:
  group: platform.example.org
  names: {kind: XSubnets, plural: xsubnets}
  versions:
    - {name: v1alpha1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}
`;
  const composition = [...docs.filter((d) => !/^  name: subnets$/m.test(d)), xrd].join('---\n');
  assert.equal(composition.split(/^---\n/m).length, docs.length);
  const state = { xr: example.xr, composition, observed: '', semantics: 'auto' };
  const fragment = deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}#${fragment}`);
  await page.waitForSelector('.tab[data-tab="tree"]:not([hidden]) tr.tree-row', { timeout: 10_000 });
  assert.equal(await page.isVisible('#stepper'), false, 'no iterations unless asked');
  const rows = await pageRows(page);
  assert.deepStrictEqual(rows.map((r) => r[1].split('/')[0]), ['XPlatform', 'XNetwork', 'VPC', 'XSubnets', 'XCluster', 'Cluster', 'Zone']);
  const subnets = rows.find((r) => r[1].startsWith('XSubnets/'));
  assert.equal(subnets[3], 'false', 'XSubnets is not synced');
  assert.deepStrictEqual(rows.filter((r) => r[3] === 'false').length, 1);
  const note = await page.textContent('#tree tr.tree-note[data-path="network/subnets"]');
  assert.match(note, /^Warning: cannot render nested composite resource XSubnets\/.*: no Composition for its type/);
  assert.match(await page.textContent('#results'), /Warning \[network\/subnets\]: cannot render nested composite resource/);
  await page.screenshot({ path: join(artifacts, 'playground-e2e-tree-warning.png') });
  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});

test('a tree that never settles shows the oscillation error', async () => {
  const fixture = join(www, '..', 'tests', 'fixtures', 'tree', 'oscillation', 'request.json');
  const { documents } = JSON.parse(readFileSync(fixture, 'utf8'));
  // JSON is YAML: the XR in its editor, the Composition in its own.
  const xr = documents.find((d) => d.kind !== 'Composition');
  const composition = documents.find((d) => d.kind === 'Composition');
  const state = {
    xr: JSON.stringify(xr, null, 2),
    composition: JSON.stringify(composition, null, 2),
    observed: '',
    semantics: 'auto',
    untilReady: true,
  };
  const fragment = deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}#${fragment}`);
  await page.waitForSelector('#render-error:not([hidden])', { timeout: 10_000 });
  const told = await page.textContent('#render-error');
  assert.match(told, /^Render: the composition does not settle: iteration 4 desires what iteration 2 desired/);
  assert.match(told, /fields that flip: XFlip\/f spec\.mode \(written by Composition "flip" spec\.resources\[0\]\.patches\[1\]/);
  assert.match(await page.textContent('#status'), /^Render: the composition does not settle/);
  // No iterations to step through: the error is the whole answer.
  assert.doesNotMatch(told, /iterations the engine rendered/);
  assert.equal(await page.isVisible('#stepper'), false);
  assert.equal(await page.isChecked('#until-ready'), true);
  await page.screenshot({ path: join(artifacts, 'playground-e2e-oscillation.png') });
  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});
