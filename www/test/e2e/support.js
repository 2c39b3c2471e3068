// What the Chromium end-to-end tests share: the built page (www/dist) served from 127.0.0.1 and a
// headless Chromium on a closed network. Not a test file of its own: it defines no tests.
import assert from 'node:assert/strict';
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const www = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = join(www, 'dist');
/** Where screenshots and measured figures go. */
export const artifacts = join(www, '..', 'target');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

// Closed network: no background traffic, no first-run work.
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

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

/** Headless Chromium, with the artifacts directory ready. */
export async function launch() {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`);
  mkdirSync(artifacts, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** www/dist served on a free port and a browser: { base, browser, close }. */
export async function openDist() {
  assert.ok(existsSync(join(dist, 'index.html')), 'www/dist is missing: run npm run build in www/');
  const server = createServer((req, res) => {
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
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await launch();
  const close = async () => {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  };
  return { base, browser, close };
}
