// Problems as you type, in headless Chromium on the built page (www/dist): a gallery entry loads
// in one click and validates clean; a misspelt patch type is marked where it was typed, with the
// validator's suggestion; its one-click fix applies it and the mark goes. Measures navigation →
// first output with the validator (loaded after the first render) and without it (its requests
// refused), and navigation → first validation; saves screenshots under target/.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';

import { artifacts, dist, openDist } from './support.js';

/** The gallery entry the test drives; it must stay in examples/gallery/. */
const ENTRY = 'gallery/aws-network';

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
    writeFileSync(join(artifacts, 'playground-problems-metrics.json'), `${JSON.stringify(figures, null, 2)}\n`);
  }
});

/** Each file of the first load (and the validator's, loaded later), raw and gzipped. */
test('the first load and the validator are measured', () => {
  const assets = readdirSync(join(dist, 'assets'));
  const sizes = {};
  for (const f of ['index.html', ...assets.map((a) => `assets/${a}`)]) {
    const bytes = readFileSync(join(dist, f));
    sizes[f] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  figures.sizes = sizes;
  const validator = assets.filter((a) => a.startsWith('validate') && a.endsWith('.wasm'));
  assert.equal(validator.length, 1, `one validator wasm expected, found ${validator}`);
  console.log(Object.entries(sizes).map(([f, s]) => `${f}: ${s.raw} bytes, ${s.gzip} gzipped`).join('\n'));
});

/** The median of five navigations' figures, each in a fresh context (empty cache, no state). */
async function navigations(what, { refuseValidator = false, validation = false } = {}) {
  const firstOutput = [];
  const firstValidation = [];
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext();
    if (refuseValidator) await context.route(/\/validate[^/]*\.(js|wasm)$/, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(base);
    await page.waitForFunction(() => (window.__xprender?.firstOutputAt ?? null) !== null, null, { timeout: 10_000 });
    firstOutput.push(await page.evaluate(() => window.__xprender.firstOutputAt));
    if (validation) {
      await page.waitForFunction(() => (window.__xprender?.firstValidationAt ?? null) !== null, null, { timeout: 20_000 });
      firstValidation.push(await page.evaluate(() => window.__xprender.firstValidationAt));
    }
    await context.close();
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[2];
  figures[what] = { firstOutputMs: firstOutput.map(Math.round) };
  if (validation) figures[what].firstValidationMs = firstValidation.map(Math.round);
  console.log(`${what}: navigation → first output ${median(firstOutput).toFixed(0)} ms (median)` +
    (validation ? `, → first validation ${median(firstValidation).toFixed(0)} ms` : ''));
  return median(firstOutput);
}

// Speed is recorded in docs/benchmarks.md; the assertions are liveness bounds only.
test('navigation to first output, with the validator loaded after it and without it', async () => {
  const without = await navigations('withoutValidator', { refuseValidator: true });
  const lazily = await navigations('withValidator', { validation: true });
  assert.ok(Math.max(without, lazily) <= 5_000, 'the page is stuck');
});

/** The text of a CodeMirror editor's marks of this severity. */
function marked(page, id, severity) {
  return page.$$eval(`#${id} .cm-lintRange-${severity}`, (els) => els.map((e) => e.textContent));
}

test('a misspelling is marked as typed, with its fix one click away; a gallery entry loads', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${base}#`);
  await page.waitForFunction(() => (window.__xprender?.firstOutputAt ?? null) !== null, null, { timeout: 10_000 });

  // The gallery: bundled examples and public configurations, each loaded in one click.
  await page.waitForSelector('#example optgroup', { state: 'attached', timeout: 10_000 });
  const groups = await page.$$eval('#example optgroup', (gs) => gs.map((g) => [g.label, [...g.children].map((o) => o.value)]));
  assert.deepStrictEqual(groups.map(([label]) => label), ['Examples', 'Gallery: public configurations']);
  assert.ok(groups[1][1].includes(ENTRY), JSON.stringify(groups));
  const validations = await page.evaluate(() => window.__xprender.firstValidationAt);
  await page.selectOption('#example', ENTRY);
  await page.waitForFunction(
    () => document.querySelector('#out-resources')?.textContent.includes('kind: VPC'),
    null,
    { timeout: 10_000 },
  );
  // Validated clean: no mark, no note (the validator has answered at least once by now).
  await page.waitForFunction(() => window.__xprender.firstValidationAt !== null, null, { timeout: 20_000 });
  await page.waitForTimeout(300);
  assert.deepStrictEqual(await marked(page, 'composition', 'error'), []);
  assert.equal(await page.isHidden('#validation-note'), true);
  assert.ok(validations === null || typeof validations === 'number');
  await page.screenshot({ path: join(artifacts, 'playground-e2e-gallery.png') });

  // Misspell the first template's patch type: PatchSet → PatchSt.
  await page.locator('#composition .cm-line', { hasText: '- type: PatchSet' }).first().click();
  await page.keyboard.press('End');
  for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type('St');
  await page.waitForFunction(
    () => [...document.querySelectorAll('#composition .cm-lintRange-error')].some((e) => e.textContent === 'PatchSt'),
    null,
    { timeout: 10_000 },
  );
  assert.match(await page.textContent('#validation-note'), /^This render used input that fails validation: composition document 1 \(1 error\)\./);

  // Its tooltip says what is wrong and offers the suggestion.
  await page.locator('#composition .cm-lintRange-error', { hasText: 'PatchSt' }).hover();
  const tooltip = page.locator('.cm-tooltip-lint');
  await tooltip.waitFor({ timeout: 5_000 });
  assert.match(await tooltip.textContent(), /spec\.pipeline\[0\]\.input\.resources\[0\]\.patches\[0\]\.type: Unsupported value: "PatchSt".*did you mean PatchSet\?/);
  const fix = tooltip.locator('.cm-diagnosticAction');
  assert.equal(await fix.textContent(), 'Change to PatchSet');
  await page.screenshot({ path: join(artifacts, 'playground-e2e-problem.png') });

  // One click applies it: the text is right again, the mark and the note go.
  await fix.click();
  await page.waitForFunction(
    () => ![...document.querySelectorAll('#composition .cm-lintRange-error')].some((e) => e.textContent === 'PatchSt'),
    null,
    { timeout: 10_000 },
  );
  await page.waitForSelector('#validation-note', { state: 'hidden', timeout: 10_000 });
  const line = await page.locator('#composition .cm-activeLine').textContent();
  assert.equal(line.trim(), '- type: PatchSet');
  assert.deepStrictEqual(await marked(page, 'composition', 'error'), []);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(artifacts, 'playground-e2e-fixed.png') });

  // The link holds the entry it came from: opened elsewhere, the menu shows it.
  await page.click('#share');
  await page.waitForFunction(() => location.hash.length > 1);
  const link = await page.evaluate(() => location.href);
  const other = await browser.newPage();
  await other.goto(link);
  await other.waitForFunction(() => (window.__xprender?.firstOutputAt ?? null) !== null, null, { timeout: 10_000 });
  await other.waitForFunction((entry) => document.querySelector('#example')?.value === entry, ENTRY, { timeout: 10_000 });
  await other.close();

  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});
