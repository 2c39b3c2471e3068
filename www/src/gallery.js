// The example gallery: directories of the repository's examples/ (bundled at build time by main.js).

/** The example shown when the URL holds no state. */
export const DEFAULT_EXAMPLE = 'platform-db';

/**
 * Groups `.../examples/<name>/<file>.yaml` texts by example into { name: { xr, composition,
 * observed, untilReady? } }, sorted by name; directories without both an xr.yaml and a
 * composition.yaml are left out.
 */
export function collect(fileMap) {
  const byName = {};
  for (const [path, text] of Object.entries(fileMap)) {
    const m = /examples\/([^/]+)\/([^/]+)\.yaml$/.exec(path);
    if (!m) continue;
    (byName[m[1]] ??= {})[m[2]] = text;
  }
  const out = {};
  for (const name of Object.keys(byName).sort()) {
    const f = byName[name];
    if (!f.xr || !f.composition) continue;
    // The environment and the simulated providers, when an example has them, travel in the
    // observed editor; an example with a simulation opens iterating until ready.
    const observed = [f.observed, f.environment, f.simulation].filter(Boolean).map(withNewline).join('---\n');
    out[name] = { xr: f.xr, composition: f.composition, observed };
    if (f.simulation) out[name].untilReady = true;
  }
  return out;
}

function withNewline(s) {
  return s.endsWith('\n') ? s : `${s}\n`;
}

/** The example to open first: the default one when present, else the first. */
export function defaultExampleName(examples) {
  const names = Object.keys(examples);
  return names.includes(DEFAULT_EXAMPLE) ? DEFAULT_EXAMPLE : names[0];
}
