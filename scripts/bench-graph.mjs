// Keystroke → updated flow graph in the playground, measured in headless Chromium on a workload of
// benches/workloads (default: medium). Loads the workload into the built page (www/dist) through
// its saved session, opens the Graph tab, types into the XR and reports, per keystroke, the
// engine's render in the worker, the page's graph update (model, layout and SVG) and the wall
// time from the keystroke to the graph drawn (the 30 ms debounce included). Medians of 21.
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
  // with a changed XR value.
  await page.locator('#xr .cm-line', { hasText: 'owner:' }).click();
  await page.keyboard.press('End');
  const samples = [];
  for (let i = 0; i < 22; i++) {
    const n = await page.evaluate(() => window.__xprender.graph.length);
    const t0 = await page.evaluate(() => performance.now());
    await page.keyboard.press(i % 2 ? 'Backspace' : 'x');
    await page.waitForFunction((n) => window.__xprender.graph.length > n, n, { timeout: 10_000 });
    const m = await page.evaluate(({ n }) => ({ g: window.__xprender.graph.at(-1), r: window.__xprender.renders.at(-1), count: window.__xprender.graph.length - n }), { n });
    if (i > 0) samples.push({ graph: m.g.ms, render: m.r.ms, wall: m.g.at - t0, drawn: m.g.drawn });
    await page.waitForTimeout(80);
  }
  const median = (k) => {
    const v = samples.map((s) => s[k]).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)];
  };
  console.log(`${name}: ${edges} edges drawn; per keystroke (median of ${samples.length}): ` +
    `render in the worker ${median('render').toFixed(2)} ms, graph update ${median('graph').toFixed(2)} ms, ` +
    `keystroke to graph drawn ${median('wall').toFixed(1)} ms wall (30 ms debounce included)`);
} finally {
  await browser.close();
  server.close();
}
