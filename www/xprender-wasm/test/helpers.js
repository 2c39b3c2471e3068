// Shared helpers of the package tests: loading both builds, finding fixtures, native answers.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
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

// A request asking for this renders once per semantics (tests/support/fixtures.rs says the same).
const EVERY_SEMANTICS = '"semantics": ["native", "function"]';

/**
 * Every golden fixture render: { name, request (path), expected (path) }. A case whose request
 * asks for every semantics gives one render per semantics, its request written to a temporary
 * file with the list replaced by that semantics, expecting `expected.<semantics>.json` or, when
 * both agree, `expected.json`.
 */
export function goldenFixtures() {
  const root = join(repoRoot, 'tests', 'fixtures');
  let requests = [];
  try {
    requests = walk(root, []);
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
  }
  let asked;
  return requests.flatMap((request) => {
    const dir = dirname(request);
    const name = relative(root, dir);
    const text = readFileSync(request, 'utf8');
    if (!text.includes(EVERY_SEMANTICS)) {
      return [{ name, request, expected: join(dir, 'expected.json') }];
    }
    if (!asked) {
      const dir = mkdtempSync(join(tmpdir(), 'xprender-fixtures-'));
      process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
      asked = dir;
    }
    return ['native', 'function'].map((semantics) => {
      const path = join(asked, `${name.replaceAll('/', '__')}.${semantics}.json`);
      writeFileSync(path, text.replace(EVERY_SEMANTICS, `"semantics": "${semantics}"`));
      const own = join(dir, `expected.${semantics}.json`);
      return {
        name: `${name} (${semantics})`,
        request: path,
        expected: existsSync(own) ? own : join(dir, 'expected.json'),
      };
    });
  });
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
