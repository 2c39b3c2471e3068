// The explain trace as readable entries: a title naming the patch and its outcome, then what it
// read, each transform step, what it wrote and why it was skipped or failed (docs/render.md,
// "The explain trace"). Keys the page does not know are shown as they are.

/** What a trace entry names, for its title: { step, resource, environment, patchIndex }. */
export function traceTarget(entry) {
  const index = entry?.patch ?? entry?.patchIndex;
  return {
    step: typeof entry?.step === 'string' ? entry.step : undefined,
    resource: typeof entry?.resource === 'string' ? entry.resource : undefined,
    environment: entry?.environment === true,
    patchIndex: Number.isInteger(index) ? index : undefined,
  };
}

const KNOWN = new Set([
  'step', 'resource', 'environment', 'patch', 'patchIndex', 'source', 'type',
  'direction', 'policy', 'from', 'combined', 'transforms', 'to', 'outcome', 'reason', 'summary',
]);

/** { title, outcome, summary, lines: [{ key, text, depth, error? }] } for one trace entry. */
export function describeEntry(entry) {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return { title: show(entry), outcome: '', summary: '', lines: [] };
  }
  const { step, resource, environment, patchIndex } = traceTarget(entry);
  const title = [
    step !== undefined ? `step ${step}` : null,
    resource ?? (environment ? 'environment' : null),
    patchIndex !== undefined ? `patch ${patchIndex}` : null,
    entry.type ?? null,
  ].filter((p) => p !== null);
  const lines = [];
  const add = (key, text, extra = {}) => lines.push({ key, text, depth: 0, ...extra });
  if (entry.direction) add('direction', String(entry.direction));
  if (entry.policy && typeof entry.policy === 'object') {
    add('policy', Object.entries(entry.policy).map(([k, v]) => `${k} ${typeof v === 'string' ? v : show(v)}`).join(', '));
  }
  for (const r of list(entry.from)) {
    if (r.missing) add('read', `${r.path}: missing${r.error ? ` (${r.error})` : ''}`);
    else if (r.error) add('read', `${r.path}: ${r.error}`, { error: true });
    else add('read', `${r.path} = ${show(r.value)}`);
  }
  if (entry.combined !== undefined) add('combined', show(entry.combined));
  for (const t of list(entry.transforms)) {
    const label = `${t.index ?? ''} ${t.type ?? 'transform'}`.trim();
    if (t.error !== undefined) add(label, `${show(t.input)} → ${t.error}`, { depth: 1, error: true });
    else add(label, `${show(t.input)} → ${show(t.output)}`, { depth: 1 });
  }
  for (const w of list(entry.to)) {
    const result = w.result !== undefined ? ` (now ${show(w.result)})` : '';
    add('wrote', `${w.path} = ${show(w.value)}${result}`);
  }
  if (entry.reason) add('why', String(entry.reason), { error: entry.outcome === 'failed' });
  for (const [key, value] of Object.entries(entry)) {
    if (!KNOWN.has(key)) add(key, show(value));
  }
  return {
    title: title.join(' · ') || 'entry',
    outcome: typeof entry.outcome === 'string' ? entry.outcome : '',
    // The engine's one-line account of the patch, shown under the title.
    summary: typeof entry.summary === 'string' ? entry.summary : '',
    lines,
  };
}

function list(v) {
  return Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : [];
}

/** A value as one short line: JSON, long ones cut. */
export function show(v, max = 160) {
  const s = v === undefined ? 'undefined' : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
