// The whole tree of a documents request as rows (each XR and composed resource, by level), the
// results of every level, and what each iteration changed (docs/render.md, "The tree"). Pure
// data, no YAML: the worker adds each row's text, the page draws the rows.
import { show } from './trace.js';

/**
 * `Kind/name` of an object; one not named yet shows its `generateName` and `*`, as the
 * engine's iteration changes name it.
 */
export function objectLabel(o) {
  const kind = typeof o?.kind === 'string' ? o.kind : '(no kind)';
  const meta = o?.metadata ?? {};
  if (typeof meta.name === 'string' && meta.name) return `${kind}/${meta.name}`;
  if (typeof meta.generateName === 'string' && meta.generateName) return `${kind}/${meta.generateName}*`;
  return `${kind}/(unnamed)`;
}

/** Whether an Output renders any nested XR. */
export function hasNested(output) {
  return Object.values(output?.resources ?? {}).some((r) => r?.nested);
}

const BAD = new Set(['Warning', 'Fatal']);

/**
 * The tree's rows, depth first in the Output's order: the XR (level 0), then each composed
 * resource, a nested XR followed by its own. Each row: { path, level, label, template, xr,
 * ready, synced, messages, children, object }. `path` is the templates' names from the top
 * (`network/subnets`, '' for the XR), as iteration changes name resources. A resource is not
 * synced when a Warning or Fatal result of its XR's render names it; an XR is not synced when
 * its own render has a Fatal result. `messages` are those results (and, for an XR, its render's
 * Warning and Fatal results that name no resource); `object` is what the row shows: a composed
 * resource as its XR desires it, a nested XR as its own render leaves it.
 */
export function treeRows(output) {
  const rows = [];
  const fatal = (out) => (out?.results ?? []).some((r) => r?.severity === 'Fatal');
  const own = (out) => messages(out, (r) => r.resource === undefined);
  const walk = (out, path, level) => {
    for (const [name, entry] of Object.entries(out?.resources ?? {})) {
      const at = path ? `${path}/${name}` : name;
      const nested = entry?.nested;
      const named = messages(out, (r) => r.resource === name);
      rows.push({
        path: at,
        level,
        label: objectLabel(nested?.composite ?? entry?.resource),
        template: name,
        xr: Boolean(nested),
        ready: entry?.ready === true,
        synced: named.length === 0 && !fatal(nested),
        messages: nested ? [...named, ...own(nested)] : named,
        children: Object.keys(nested?.resources ?? {}).length > 0,
        object: nested ? nested.composite : entry?.resource,
      });
      if (nested) walk(nested, at, level + 1);
    }
  };
  rows.push({
    path: '',
    level: 0,
    label: objectLabel(output?.composite),
    template: null,
    xr: true,
    ready: output?.ready === true,
    synced: !fatal(output),
    messages: own(output),
    children: Object.keys(output?.resources ?? {}).length > 0,
    object: output?.composite ?? {},
  });
  walk(output, '', 1);
  return rows;
}

/** The Warning and Fatal results of one render that `pick` chooses, as { severity, message }. */
function messages(out, pick) {
  return (out?.results ?? [])
    .filter((r) => r && BAD.has(r.severity) && pick(r))
    .map((r) => ({ severity: r.severity, message: r.message }));
}

/**
 * The results of every render in the tree, the top XR's first; a nested render's name the
 * resource by its path (`network/subnets`), or the nested XR's path when they name none.
 */
export function treeResults(output) {
  const out = [];
  const walk = (o, path) => {
    for (const r of o?.results ?? []) {
      if (!path) out.push(r);
      else out.push({ ...r, resource: r.resource === undefined ? path : `${path}/${r.resource}` });
    }
    for (const [name, entry] of Object.entries(o?.resources ?? {})) {
      if (entry?.nested) walk(entry.nested, path ? `${path}/${name}` : name);
    }
  };
  walk(output, '');
  return out;
}

/** The paths above a row's: '' (the top XR) and each prefix of templates. */
export function ancestorPaths(path) {
  if (path === '') return [];
  const parts = path.split('/');
  return ['', ...parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'))];
}

/** Path → the change the iteration made to that row's object (added wins over changed). */
export function changedPaths(changes) {
  const out = new Map();
  for (const c of changes ?? []) {
    const path = typeof c.resource === 'string' ? c.resource : '';
    if (out.get(path) !== 'added') out.set(path, c.change);
  }
  return out;
}

/**
 * One of an iteration's `changes` as table cells: { resource, object, change, path, detail }.
 * `resource` is the template path ('' for the top XR); `detail` is the value before and after
 * (one short JSON line each).
 */
export function describeChange(c) {
  const has = (k) => Object.hasOwn(c ?? {}, k);
  let detail = '';
  if (has('before') && has('after')) detail = `${show(c.before)} → ${show(c.after)}`;
  else if (has('after')) detail = `→ ${show(c.after)}`;
  else if (has('before')) detail = `${show(c.before)} →`;
  return {
    resource: typeof c?.resource === 'string' ? c.resource : '',
    object: String(c?.object ?? ''),
    change: String(c?.change ?? ''),
    path: typeof c?.path === 'string' ? c.path : '',
    detail,
  };
}

/** One line for an iteration: its number, how much it changed, whether the XR is ready. */
export function iterationSummary(it) {
  const counts = {};
  for (const c of it?.changes ?? []) counts[c.change] = (counts[c.change] ?? 0) + 1;
  const what = Object.entries(counts).map(([change, n]) => `${n} ${change}`);
  return `${what.length ? what.join(', ') : 'no changes'}; ${it?.ready ? 'ready' : 'not ready'}`;
}
