// What the worker prepares for the Graph and Steps tabs, so the page needs no YAML library: the
// fields of each patch the trace names (for patches that read or wrote nothing: skipped, never
// run) as written in the chosen Composition, and each pipeline step's desired state as YAML.
import { toYaml } from './documents.js';
import { patchEnds } from './graph.js';

/**
 * { patchFields: [[source, { from, to }], ...], stepTexts: [yaml, ...] | undefined } for an
 * Output; `composition` is the chosen Composition's parsed Document (or null).
 */
export function graphData(composition, output) {
  const patchFields = [];
  const seen = new Set();
  for (const e of Array.isArray(output?.trace) ? output.trace : []) {
    const source = e?.source;
    if (!composition || typeof source !== 'string' || seen.has(source)) continue;
    if (e.from?.length && e.to?.length) continue;
    seen.add(source);
    const keys = [...source.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] === undefined ? m[1] : Number(m[2])));
    const node = composition.getIn(keys, true);
    const patch = node && typeof node.toJSON === 'function' ? node.toJSON() : node;
    patchFields.push([source, patchEnds(patch)]);
  }
  const stepTexts = Array.isArray(output?.steps) ? output.steps.map((s) => stepYaml(s?.desired)) : undefined;
  return { patchFields, stepTexts };
}

/** A step's desired state: the XR, then each composed resource under its name. */
function stepYaml(desired) {
  const y = (v) => toYaml(v ?? {});
  const parts = [`# desired XR\n${y(desired?.composite)}`];
  for (const [name, r] of Object.entries(desired?.resources ?? {})) {
    parts.push(`# ${name} (ready: ${r?.ready})\n${y(r?.resource)}`);
  }
  return parts.join('---\n');
}
