// The playground the xprender binary embeds, served by `xprender playground` from a directory
// with no www/ in it: it loads in headless Chromium, renders, and shows what the engine chose.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';

import { launch } from './support.js';

const BIN = process.env.XPRENDER_BIN;

let server;
let browser;
let base;
const cwd = mkdtempSync(join(tmpdir(), 'xprender-playground-'));

before(async () => {
  assert.ok(BIN && existsSync(BIN), 'set XPRENDER_BIN to an xprender binary (scripts/suites/50-web.sh builds one)');
  server = spawn(BIN, ['playground', '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await new Promise((resolve, reject) => {
    server.once('error', reject);
    createInterface({ input: server.stdout }).once('line', (l) => resolve([l]));
  });
  base = /^xprender playground: (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(line)?.[1];
  assert.ok(base, `unexpected first line: ${line}`);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.kill();
  rmSync(cwd, { recursive: true, force: true });
});

test('xprender playground serves the embedded site, which renders in Chromium', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${base}#`);
  await page.selectOption('#example', 'object-storage');
  await page.waitForFunction(
    () => document.querySelector('#out-resources')?.textContent.includes('kind: Bucket'),
    null,
    { timeout: 10_000 },
  );
  // The Inputs tab: what the engine chose among the typed documents.
  await page.click('nav [data-tab="inputs"]');
  const rows = await page.$$eval('#inputs tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const byLabel = Object.fromEntries(rows.slice(1));
  assert.match(byLabel.XR, /^XObjectStore\//);
  assert.match(byLabel.Composition, /\(.+\)$/, 'the Composition with the rule that chose it');
  assert.deepStrictEqual(errors, [], 'page errors');
  await page.close();
});
