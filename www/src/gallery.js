// The example gallery: directories of the repository's examples/, and of examples/gallery/ (real
// Compositions from public configurations, named `gallery/NAME`), bundled at build time by boot.js.

/** The example shown when the URL holds no state. */
export const DEFAULT_EXAMPLE = 'platform-db';

/** The prefix of the gallery's entries' names. */
export const GALLERY = 'gallery/';

/**
 * Groups `.../examples/<name>/<file>.yaml` and `.../examples/gallery/<name>/<file>.yaml` texts by
 * example into { name: { xr, composition, observed, untilReady? } }, sorted by name (a gallery
 * entry's is `gallery/<name>`); directories without both an xr.yaml and a composition.yaml are
 * left out. A gallery entry's XRD (xrd.yaml) travels beside its XR, for the validator.
 */
export function collect(fileMap) {
  const byName = {};
  for (const [path, text] of Object.entries(fileMap)) {
    const m = /examples\/((?:gallery\/)?[^/]+)\/([^/]+)\.yaml$/.exec(path);
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
    const xr = name.startsWith(GALLERY) && f.xrd ? `${withNewline(f.xr)}---\n${f.xrd}` : f.xr;
    out[name] = { xr, composition: f.composition, observed };
    if (f.simulation) out[name].untilReady = true;
  }
  return out;
}

function withNewline(s) {
  return s.endsWith('\n') ? s : `${s}\n`;
}

/** The menu's groups: [label, names] of the bundled examples, then of the gallery's entries. */
export function menuGroups(examples) {
  const names = Object.keys(examples);
  return [
    ['Examples', names.filter((n) => !n.startsWith(GALLERY))],
    ['Gallery: public configurations', names.filter((n) => n.startsWith(GALLERY))],
  ].filter(([, list]) => list.length);
}

/** The example to open first: the default one when present, else the first. */
export function defaultExampleName(examples) {
  const names = Object.keys(examples);
  return names.includes(DEFAULT_EXAMPLE) ? DEFAULT_EXAMPLE : names[0];
}
