// The playground in real headless Chromium: opens the built page (www/dist), loads an example,
// edits the XR and sees the composed resource change, opens the explain trace, breaks the YAML and
// sees the error marker. Measures navigation → first output, keystroke → output and the engine's
// gzip size; saves screenshots under target/.
import assert from 'node:assert/strict';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';

import { chromium } from 'playwright-core';

const www = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(www, 'dist');
const artifacts = join(www, '..', 'target');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Closed network: no background traffic, no first-run work (see docs in shared infra notes).
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** The example the test drives; it must stay in examples/. */
const EXAMPLE = 'object-storage';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

let server;
let browser;
let base;
const figures = {};

before(async () => {
  assert.ok(existsSync(join(dist, 'index.html')), 'www/dist is missing: run npm run build in www/');
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`);
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    let file = join(dist, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  await new Promise((ok) => (server ? server.close(ok) : ok()));
  if (Object.keys(figures).length) {
    writeFileSync(join(artifacts, 'playground-metrics.json'), `${JSON.stringify(figures, null, 2)}\n`);
  }
});

// The 150 KB budget is lifted (the regexp engine weighs what it weighs); this guards a
// ceiling at today's size: growth fails, and the ceiling comes down as the engine shrinks.
test('the engine wasm in www/dist stays under its size ceiling', () => {
  const wasm = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.wasm'));
  assert.equal(wasm.length, 1, `one engine wasm expected, found ${wasm}`);
  const bytes = readFileSync(join(dist, 'assets', wasm[0]));
  const gz = gzipSync(bytes, { level: 9 }).length;
  figures.wasmBytes = bytes.length;
  figures.wasmGzipBytes = gz;
  console.log(`engine wasm: ${bytes.length} bytes, ${gz} bytes gzipped`);
  assert.ok(gz <= 193_000, `engine wasm gzip ${gz} bytes > 193,000-byte ceiling`);
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
  const listed = await page.$$eval('#example option', (os) => os.map((o) => o.value).filter(Boolean));
  assert.deepStrictEqual(listed, exampleDirs);

  // Load the example from the gallery.
  await page.selectOption('#example', EXAMPLE);
  await waitForEditorText(page, 'out-resources', 'kind: Bucket');
  await waitForEditorText(page, 'out-resources', 'region: eu-west-1');

  // Edit the XR by keystrokes: region eu → us; the map transform makes it us-east-1.
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
  const renderMs = Math.max(...last.map((r) => r.ms));
  const wallMs = last.at(-1).at - before.t;
  figures.keystrokeRenderMs = Number(renderMs.toFixed(2));
  figures.keystrokeToOutputMs = Math.round(wallMs);
  console.log(`keystroke → updated output: render ${renderMs.toFixed(2)} ms, ${wallMs.toFixed(1)} ms wall (30 ms debounce included)`);
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
