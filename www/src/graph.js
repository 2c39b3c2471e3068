// The composition as a flow graph, from the engine's explain trace: a node for each XR (the top
// one and every nested one), environment and composed resource, its fields as ports, and an
// edge for each patch from the field it read to the field it wrote, marked with what happened.
// Pure data and geometry; graphview.js draws it.

/** The patch types by the objects they read and write, for entries without a `direction`. */
const SIDES = {
  FromCompositeFieldPath: ['composite', 'composed'],
  CombineFromComposite: ['composite', 'composed'],
  ToCompositeFieldPath: ['composed', 'composite'],
  CombineToComposite: ['composed', 'composite'],
  FromEnvironmentFieldPath: ['environment', 'composed'],
  CombineFromEnvironment: ['environment', 'composed'],
  ToEnvironmentFieldPath: ['composed', 'environment'],
  CombineToEnvironment: ['composed', 'environment'],
};

/** The fields a patch as written in the Composition reads and writes: { from: [], to: [] }. */
export function patchEnds(patch) {
  if (!patch || typeof patch !== 'object') return { from: [], to: [] };
  const vars = Array.isArray(patch.combine?.variables) ? patch.combine.variables : [];
  const from = [patch.fromFieldPath, ...vars.map((v) => v?.fromFieldPath)].filter((p) => typeof p === 'string');
  const to = typeof patch.toFieldPath === 'string' ? [patch.toFieldPath] : [];
  return { from, to };
}

/** The objects an entry reads and writes: ['composite' | 'composed' | 'environment', same]. */
export function entrySides(entry) {
  const m = /^(\w+)\b.*->\s*(\w+)/.exec(entry?.direction ?? '');
  if (m) return [m[1], m[2]];
  const [from, to] = SIDES[entry?.type] ?? ['composite', 'composed'];
  // An environment patch (environment: true) moves values between the XR and the environment.
  if (entry?.environment === true) {
    return from === 'composite' ? ['composite', 'environment'] : ['environment', 'composite'];
  }
  return [from, to];
}

/** The outcome as the graph colours it: applied, skipped (a missing source), failed, not-run. */
export function edgeClass(outcome) {
  return ['applied', 'skipped', 'failed', 'not-run'].includes(outcome) ? outcome : 'not-run';
}

/**
 * The graph of an Output: { nodes, edges, entries }.
 * - nodes: [{ id, kind: 'xr' | 'environment' | 'resource', label, level, depth, fields }], the
 *   top XR first, then the environment and the resources of each level in Composition order;
 *   a nested XR is one node, the resource of its parent level and the XR of its own.
 * - edges: [{ id, entry, from: { node, field }, to: { node, field }, outcome, step, type,
 *   transforms, source, level }], one per field read and written by a patch.
 * - entries: the trace entries the edges point at (by `entry`), each { entry, level }.
 * `ends(source)` gives the fields of a patch of the top Composition by its `source`, for
 * entries that read or wrote nothing (a patch skipped or never run): { from, to } or null.
 */
export function buildGraph(output, ends = () => null) {
  const nodes = new Map();
  const edges = [];
  const entries = [];
  const node = (id, kind, label, level, depth) => {
    if (!nodes.has(id)) nodes.set(id, { id, kind, label, level, depth, fields: new Set() });
    return nodes.get(id);
  };
  const walk = (out, level, depth) => {
    const prefix = level ? `${level}/` : '';
    const xrId = level ? `r:${level}` : 'xr';
    node(xrId, level ? 'resource' : 'xr', level ? level.split('/').at(-1) : xrLabel(out?.composite), level, depth);
    const envId = level ? `env:${level}` : 'env';
    const resourceId = (name) => `r:${prefix}${name}`;
    const addResource = (name) => node(resourceId(name), 'resource', name, level, depth + 1);
    for (const name of Object.keys(out?.resources ?? {})) addResource(name);
    const trace = Array.isArray(out?.trace) ? out.trace : [];
    trace.forEach((entry, n) => {
      if (!entry || typeof entry !== 'object') return;
      const index = entries.push({ entry, level }) - 1;
      const [fromSide, toSide] = entrySides(entry);
      const idOf = (side) => {
        if (side === 'composite') return xrId;
        if (side === 'environment') return node(envId, 'environment', 'environment', level, depth).id;
        return typeof entry.resource === 'string' ? addResource(entry.resource).id : xrId;
      };
      const fromNode = idOf(fromSide);
      const toNode = idOf(toSide);
      const written = level ? null : ends(entry.source);
      const from = unique((entry.from ?? []).map((r) => r?.path), written?.from);
      const to = unique((entry.to ?? []).map((w) => w?.path), written?.to);
      const transforms = (entry.transforms ?? []).map((t) => t?.type).filter((t) => typeof t === 'string');
      let k = 0;
      for (const f of from) {
        for (const t of to) {
          nodes.get(fromNode).fields.add(f);
          nodes.get(toNode).fields.add(t);
          edges.push({
            id: `${level}#${n}#${k++}`,
            entry: index,
            from: { node: fromNode, field: f },
            to: { node: toNode, field: t },
            outcome: edgeClass(entry.outcome),
            step: typeof entry.step === 'string' ? entry.step : undefined,
            type: String(entry.type ?? ''),
            transforms,
            source: entry.source,
            level,
          });
        }
      }
    });
    for (const [name, r] of Object.entries(out?.resources ?? {})) {
      if (r?.nested) walk(r.nested, `${prefix}${name}`, depth + 1);
    }
  };
  walk(output, '', 0);
  const list = [...nodes.values()].map((n) => ({ ...n, fields: [...n.fields].sort() }));
  return { nodes: list, edges, entries };
}

/** The paths traced, else those written in the Composition, else one unknown field ('?'). */
function unique(traced, written) {
  const got = traced.filter((p) => typeof p === 'string');
  const list = got.length ? got : (written ?? []);
  return list.length ? [...new Set(list)] : ['?'];
}

function xrLabel(xr) {
  const kind = xr?.kind ?? 'XR';
  const name = xr?.metadata?.name;
  return name ? `${kind}/${name}` : kind;
}

/** The pipeline steps the edges name, in order of first appearance. */
export function graphSteps(graph) {
  return [...new Set(graph.edges.map((e) => e.step).filter((s) => s !== undefined))];
}

/**
 * The part of the graph shown: { nodes, edges }.
 * - resource: a node id; only the edges touching it, and the nodes at their other ends.
 * - step: only the edges of that pipeline step.
 * - search: case-insensitive text; the edges whose field or node label holds it, and nodes whose
 *   label or a field holds it.
 * - outcomes: a Set of the outcomes shown (all when absent).
 * Every node stays when no filter is set, so resources without patches show too.
 */
export function filterGraph(graph, { resource = '', step = '', search = '', outcomes = null } = {}) {
  const label = new Map(graph.nodes.map((n) => [n.id, n.label]));
  const q = search.trim().toLowerCase();
  const hit = (text) => String(text).toLowerCase().includes(q);
  const edges = graph.edges.filter((e) => {
    if (resource && e.from.node !== resource && e.to.node !== resource) return false;
    if (step && e.step !== step) return false;
    if (outcomes && !outcomes.has(e.outcome)) return false;
    if (q && ![e.from.field, e.to.field, label.get(e.from.node), label.get(e.to.node)].some(hit)) return false;
    return true;
  });
  if (!resource && !step && !q && !outcomes) return { nodes: graph.nodes, edges };
  const touched = new Set(edges.flatMap((e) => [e.from.node, e.to.node]));
  if (resource) touched.add(resource);
  const nodes = graph.nodes.filter((n) => touched.has(n.id) || (q && (hit(n.label) || n.fields.some(hit))));
  return { nodes, edges };
}

export const GEOMETRY = { nodeWidth: 240, columnGap: 150, header: 24, row: 17, gap: 16, pad: 12 };

/**
 * Positions for the shown graph: nodes in columns by depth (an XR and its environment, then its
 * resources one column right), stacked in order; each field a row (a port) unless the node is
 * in `collapsed`, when its edges meet its header. Edges are cubic curves between ports.
 * Returns { width, height, nodes: [{ ...node, x, y, h, rows: [field], collapsed }],
 * edges: [{ ...edge, d, mid: { x, y } }] }.
 */
export function layoutGraph({ nodes, edges }, collapsed = new Set(), g = GEOMETRY) {
  const columns = [];
  const placed = new Map();
  // Only the fields the shown edges use are rows, so filters shrink the nodes too.
  const used = new Map(nodes.map((n) => [n.id, new Set()]));
  for (const e of edges) {
    used.get(e.from.node)?.add(e.from.field);
    used.get(e.to.node)?.add(e.to.field);
  }
  const out = [];
  for (const n of nodes) {
    const col = n.depth;
    columns[col] ??= g.pad;
    const folded = collapsed.has(n.id);
    const rows = folded ? [] : n.fields.filter((f) => used.get(n.id).has(f));
    const h = g.header + rows.length * g.row + (rows.length ? 4 : 0);
    const x = g.pad + col * (g.nodeWidth + g.columnGap);
    const p = { ...n, x, y: columns[col], h, rows, collapsed: folded, rowAt: new Map(rows.map((f, i) => [f, i])) };
    columns[col] += h + g.gap;
    placed.set(n.id, p);
    out.push(p);
  }
  const port = (p, field, right) => {
    const i = p.rowAt.get(field);
    const y = i === undefined ? p.y + g.header / 2 : p.y + g.header + i * g.row + g.row / 2;
    return { x: right ? p.x + g.nodeWidth : p.x, y };
  };
  const laid = [];
  for (const e of edges) {
    const a = placed.get(e.from.node);
    const b = placed.get(e.to.node);
    if (!a || !b) continue;
    let s, t, d;
    if (a.x < b.x) {
      s = port(a, e.from.field, true);
      t = port(b, e.to.field, false);
    } else if (a.x > b.x) {
      s = port(a, e.from.field, false);
      t = port(b, e.to.field, true);
    } else {
      s = port(a, e.from.field, false);
      t = port(b, e.to.field, false);
    }
    if (a.x === b.x) {
      const bend = Math.min(g.columnGap * 0.8, 40 + Math.abs(t.y - s.y) / 4);
      d = `M${s.x},${s.y} C${s.x - bend},${s.y} ${t.x - bend},${t.y} ${t.x},${t.y}`;
    } else {
      const c = (t.x - s.x) / 2;
      d = `M${s.x},${s.y} C${s.x + c},${s.y} ${t.x - c},${t.y} ${t.x},${t.y}`;
    }
    laid.push({ ...e, d, mid: { x: (s.x + t.x) / 2, y: (s.y + t.y) / 2 } });
  }
  const width = g.pad * 2 + Math.max(1, columns.length) * (g.nodeWidth + g.columnGap) - g.columnGap;
  const height = Math.max(g.pad, ...columns.filter((c) => c !== undefined)) + g.pad;
  return { width, height, nodes: out, edges: laid };
}
