// The explain trace as readable entries: a title naming the patch, then what it read, each
// transform step and what it wrote (or why it was skipped), whatever fields the engine gives.

/** Fields that make up an entry's title rather than its body. */
const TITLE_KEYS = new Set(['resource', 'patchIndex', 'patchType', 'type', 'index']);

/** Where a trace entry points in the Composition: { resource, patchIndex } (either may be undefined). */
export function traceTarget(entry) {
  const patchIndex = entry?.patchIndex ?? entry?.patch?.index ?? entry?.index;
  return { resource: entry?.resource, patchIndex: Number.isInteger(patchIndex) ? patchIndex : undefined };
}

/** { title, status, lines: [{ key, text, depth }] } for one trace entry. */
export function describeEntry(entry) {
  if (entry === null || typeof entry !== 'object') {
    return { title: show(entry), status: '', lines: [] };
  }
  const { resource, patchIndex } = traceTarget(entry);
  const type = entry.patchType ?? entry.type ?? entry.patch?.type;
  const parts = [];
  if (resource !== undefined) parts.push(String(resource));
  if (patchIndex !== undefined) parts.push(`patch ${patchIndex}`);
  if (type !== undefined) parts.push(String(type));
  const status = entry.skipped ? 'skipped' : entry.error ? 'failed' : entry.status ?? '';
  const lines = [];
  for (const [key, value] of Object.entries(entry)) {
    if (TITLE_KEYS.has(key) || (key === 'patch' && typeof value === 'object')) continue;
    if (Array.isArray(value) && value.length && value.every((v) => v && typeof v === 'object')) {
      lines.push({ key, text: '', depth: 0 });
      value.forEach((step, i) => {
        const label = step.type ?? step.kind ?? `#${i}`;
        const rest = Object.entries(step)
          .filter(([k]) => k !== 'type' && k !== 'kind')
          .map(([k, v]) => `${k}: ${show(v)}`)
          .join('  ');
        lines.push({ key: `${i}. ${label}`, text: rest, depth: 1 });
      });
      continue;
    }
    lines.push({ key, text: show(value), depth: 0 });
  }
  return { title: parts.join(' · ') || 'entry', status: String(status), lines };
}

/** A value as one short line: strings bare, the rest as JSON, long ones cut. */
export function show(v, max = 160) {
  const s = typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'undefined' : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
