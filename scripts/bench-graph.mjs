// Keystroke → updated flow graph in the playground, measured in headless Chromium on a workload of
// benches/workloads (default: medium). Loads the workload into the built page (www/dist) through
// its saved session, opens the Graph tab, types into the XR and reports, per keystroke, the
// engine's render (on the page's thread, or in the worker: renderer.js says which), the page's
// graph update (model, layout and SVG) and the wall time from the keystroke to the graph drawn,
// with where that time goes. Medians and p90 of 31 keystrokes (KEYS=N for another count).
// Usage: node scripts/bench-graph.mjs [WORKLOAD] (after scripts/build-web.sh and npm run build in www/).
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const www = join(root, 'www');
const dist = join(www, 'dist');
const require = createRequire(join(www, 'package.json'));
const { chromium } = require('playwright-core');
const { stringify } = require('yaml');

const name = process.argv[2] ?? 'medium';
const KEYS = Number(process.env.KEYS ?? 31);
const PAUSE_MS = 300;
const LABELS = {
  wall: 'keydown to the graph in the DOM (what the page shows next frame)',
  frame: 'keydown to the start of the frame that draws it',
  toRender: 'keydown to the render starting (the editor\'s update; the message, for the worker)',
  parse: 'YAML of the editors to the request',
  render: 'the engine (renderDocuments)',
  present: 'output YAML, patch locations, tree',
  graphData: 'patch fields and step YAML for the graph and Steps tab',
  transfer: 'answer ready to the page handling it (a worker\'s: clone, queue)',
  pageTotal: 'page: the whole answer handled',
  problems: 'page: problem markers in the editors',
  outputYaml: 'page: output YAML into the editors',
  trace: 'page: the Explain list',
  graph: 'page: graph model, layout, SVG',
  steps: 'page: the Steps tab',
  pageOther: 'page: the rest (tables, tree, results)',
  validation: 'worker: the validator, after the answer',
};
const work = JSON.parse(readFileSync(join(root, 'benches', 'workloads', `${name}.json`), 'utf8'));
const y = (v) => stringify(v, { lineWidth: 0 });
const session = {
  xr: y(work.xr),
  composition: y(work.composition),
  observed: Object.values(work.observed?.resources ?? {}).map((r) => y(r.resource)).join('---\n'),
  semantics: 'auto',
};

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };
if (!existsSync(join(dist, 'index.html'))) throw new Error('www/dist is missing: run npm run build in www/');
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  let file = join(dist, path);
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
  if (!file.startsWith(dist) || !existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  await page.addInitScript((s) => localStorage.setItem('xprender-playground', s), JSON.stringify(session));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.__xprender.renders.length > 0, null, { timeout: 20_000 });
  await page.click('nav [data-tab="graph"]');
  await page.waitForSelector('#graph-canvas [data-edge]', { state: 'attached', timeout: 20_000 }).catch(async (e) => {
    throw new Error(`no graph: ${await page.textContent('#status')}`, { cause: e });
  });
  const edges = await page.$$eval('#graph-canvas [data-edge]', (els) => els.length);
  // Keystrokes at the end of the XR's owner (a letter typed, then removed): each one re-renders
  // with a changed XR value. The wall time runs from the keydown event (its timeStamp) to the
  // graph in the DOM, and to the start of the frame that shows it.
  await page.evaluate(() => document.addEventListener('keydown', (e) => (window.__xprender.keyAt = e.timeStamp), true));
  await page.locator('#xr .cm-line', { hasText: 'owner:' }).click();
  await page.keyboard.press('End');
  const samples = [];
  for (let i = 0; i < KEYS + 1; i++) {
    const n = await page.evaluate(() => window.__xprender.graph.length);
    await page.keyboard.press(i % 2 ? 'Backspace' : 'x');
    await page.waitForFunction((n) => window.__xprender.graph.at(-1)?.frameAt !== undefined && window.__xprender.graph.length > n, n, { timeout: 10_000 });
    // The validator's answer follows the render's: the next keystroke waits for it, as a reader
    // typing at a normal pace does.
    await page.waitForTimeout(PAUSE_MS);
    const m = await page.evaluate(() => {
      const x = window.__xprender;
      return { g: x.graph.at(-1), a: x.answers.at(-1), v: x.validations.at(-1), key: x.keyAt, origin: performance.timeOrigin };
    });
    if (i === 0) continue;
    const p = m.a.page ?? {};
    samples.push({
      wall: m.g.at - m.key,
      frame: m.g.frameAt - m.key,
      // Keystroke to the render starting: the editor's own update, and for the worker the message.
      toRender: m.a.startedAt - m.origin - m.key,
      parse: m.a.parse,
      render: m.a.render,
      present: m.a.present,
      graphData: m.a.graphData,
      transfer: m.a.receivedAt - m.a.sentAt,
      pageTotal: m.a.pageMs,
      problems: p.problems ?? 0,
      outputYaml: p.outputYaml ?? 0,
      trace: p.trace ?? 0,
      graph: m.g.ms,
      steps: p.steps ?? 0,
      pageOther: p.other ?? 0,
      validation: m.v?.ms ?? NaN,
    });
    Object.defineProperty(samples.at(-1), 'inline', { value: m.a.inline === true, enumerable: false });
  }
  const stat = (k, q) => {
    const v = samples.map((s) => s[k]).sort((a, b) => a - b);
    return v[Math.min(v.length - 1, Math.floor(v.length * q))];
  };
  const inline = samples.filter((s) => s.inline).length;
  console.log(`${name}: ${edges} edges drawn; per keystroke over ${samples.length} keystrokes (${inline} rendered on the page's thread, ${samples.length - inline} in the worker), ms (median, p90):`);
  for (const k of Object.keys(samples[0])) {
    console.log(`  ${k.padEnd(12)} ${stat(k, 0.5).toFixed(2).padStart(8)} ${stat(k, 0.9).toFixed(2).padStart(8)}  ${LABELS[k]}`);
  }
} finally {
  await browser.close();
  server.close();
}
