// A pipeline, step by step: what each step of the engine's `steps` (options.steps, docs/render.md
// "Step by step") changed in the desired state, as rows the Iterations tab's table draws:
// { resource, object, change: 'added' | 'changed' | 'removed', path, before, after }.

/**
 * For each step: { step, results, changes, desired }. The first step is compared with an empty
 * desired state: everything it desired counts as added.
 */
export function stepChanges(steps) {
  if (!Array.isArray(steps)) return [];
  let before = { composite: {}, resources: {} };
  return steps.map((s) => {
    const desired = s?.desired ?? { composite: {}, resources: {} };
    const changes = diffDesired(before, desired);
    before = desired;
    return { step: String(s?.step ?? ''), results: Array.isArray(s?.results) ? s.results : [], changes, desired };
  });
}

/** The changes from one desired state to the next: the XR's fields, then each resource's. */
export function diffDesired(a, b) {
  const changes = [];
  for (const c of diffFields(a?.composite ?? {}, b?.composite ?? {})) changes.push({ object: 'XR (desired)', ...c });
  const ra = a?.resources ?? {};
  const rb = b?.resources ?? {};
  for (const name of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
    const object = objectName(rb[name]?.resource ?? ra[name]?.resource, name);
    if (!(name in ra)) {
      changes.push({ resource: name, object, change: 'added' });
      continue;
    }
    if (!(name in rb)) {
      changes.push({ resource: name, object, change: 'removed' });
      continue;
    }
    for (const c of diffFields(ra[name].resource ?? {}, rb[name].resource ?? {})) changes.push({ resource: name, object, ...c });
    if (ra[name].ready !== rb[name].ready) {
      changes.push({ resource: name, object, change: 'changed', path: '(ready)', before: ra[name].ready, after: rb[name].ready });
    }
  }
  return changes;
}

/** Leaf by leaf: [{ change, path, before?, after? }] in the order of the newer object's fields. */
export function diffFields(a, b) {
  const fa = flatten(a);
  const fb = flatten(b);
  const out = [];
  for (const [path, after] of fb) {
    if (!fa.has(path)) out.push({ change: 'added', path, after });
    else if (JSON.stringify(fa.get(path)) !== JSON.stringify(after)) out.push({ change: 'changed', path, before: fa.get(path), after });
  }
  for (const [path, before] of fa) if (!fb.has(path)) out.push({ change: 'removed', path, before });
  return out;
}

/** Field path → leaf value (empty objects and arrays are leaves; array items by index). */
function flatten(v, path = '', out = new Map()) {
  if (Array.isArray(v) && v.length) v.forEach((x, i) => flatten(x, `${path}[${i}]`, out));
  else if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) flatten(x, path ? `${path}.${segment(k)}` : segment(k), out);
  } else if (path) out.set(path, v);
  return out;
}

/** A key as a field path segment: plain, or bracketed when it holds dots or brackets. */
function segment(k) {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : `[${k}]`;
}

function objectName(o, fallback) {
  const kind = o?.kind;
  const name = o?.metadata?.name;
  return kind ? `${kind}/${name ?? fallback}` : fallback;
}

/** One line for a step: how much it changed and how many results it added. */
export function stepSummary(s) {
  const counts = {};
  for (const c of s?.changes ?? []) counts[c.change] = (counts[c.change] ?? 0) + 1;
  const what = Object.entries(counts).map(([change, n]) => `${n} ${change}`);
  const results = s?.results?.length ? `; ${s.results.length} result${s.results.length > 1 ? 's' : ''}` : '';
  return `${what.length ? what.join(', ') : 'no changes'}${results}`;
}
