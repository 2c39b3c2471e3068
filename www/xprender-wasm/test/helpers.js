// Shared helpers of the package tests: loading both builds, finding fixtures, native answers.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const pkgDir = join(here, '..');
export const repoRoot = join(pkgDir, '..', '..');

/** The `nodejs` build, loaded with require as Node users do. */
export function loadNodeBuild() {
  const require = createRequire(import.meta.url);
  return require(join(pkgDir, 'nodejs', 'xprender.js'));
}

/** The `web` build, initialised synchronously from the .wasm bytes. */
export async function loadWebBuild() {
  const mod = await import(join(pkgDir, 'web', 'xprender.js'));
  mod.initSync({ module: readFileSync(join(pkgDir, 'web', 'xprender_bg.wasm')) });
  return mod;
}

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name === 'request.json') out.push(p);
  }
  return out;
}

/** Every golden fixture: { name, request (path), expected (path) }. */
export function goldenFixtures() {
  const root = join(repoRoot, 'tests', 'fixtures');
  let requests = [];
  try {
    requests = walk(root, []);
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
  }
  return requests.map((request) => ({
    name: relative(root, dirname(request)),
    request,
    expected: join(dirname(request), 'expected.json'),
  }));
}

/** The package's own request texts (malformed and edge cases). */
export function extraRequests() {
  const dir = join(here, 'requests');
  return readdirSync(dir)
    .sort()
    .map((name) => ({ name, request: join(dir, name) }));
}

/** Native `render_json` of each request file, in order (the engine built for the host). */
export function nativeRenderJson(paths) {
  const r = spawnSync(
    'cargo',
    ['run', '--quiet', '--locked', '--example', 'render_json', '--', ...paths],
    { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  if (r.status !== 0) {
    throw new Error(`native render_json failed (${r.status}): ${r.stderr}`);
  }
  const lines = r.stdout.split('\n');
  lines.pop(); // the final newline
  if (lines.length !== paths.length) {
    throw new Error(`native render_json printed ${lines.length} lines for ${paths.length} requests`);
  }
  return lines;
}
