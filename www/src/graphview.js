// The Graph tab: the flow graph (graph.js) drawn as SVG, with its filters (resource, pipeline
// step, outcome, search), folding of a node's fields, and the trace entry of the edge or node
// clicked. One SVG string per draw: at 300 patches that is far cheaper than building nodes.
import { buildGraph, filterGraph, GEOMETRY, graphSteps, layoutGraph } from './graph.js';

const OUTCOMES = ['applied', 'skipped', 'failed', 'not-run'];
/** Above this many edges a new graph opens with every node folded. */
const FOLD_ABOVE = 120;

/**
 * The Graph tab's controller. `root` holds the toolbar (#graph-resource, #graph-step,
 * #graph-search, #graph-fold, #graph-outcomes), the drawing (#graph-canvas) and the detail
 * (#graph-detail). `onPick(entry, { edge, node, level })` is called with the trace entry of the
 * edge, or the first entry of the node, clicked, and the nested XR it belongs to ('' for the top).
 */
export function createGraphView(root, { onPick, describe }) {
  const $ = (id) => root.querySelector(`#${id}`);
  const canvas = $('graph-canvas');
  const state = { resource: '', step: '', search: '', outcomes: new Set(OUTCOMES), collapsed: new Set(), selected: '' };
  let graph = { nodes: [], edges: [], entries: [] };
  let shown = null;
  let visible = false;
  let dirty = false;
  let folded = null;
  let signature = '';
  /** The SVG text on the canvas. */
  let drawing = '';

  $('graph-outcomes').replaceChildren(
    ...OUTCOMES.map((o) => {
      const label = document.createElement('label');
      label.className = `legend outcome-${o}`;
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = true;
      box.value = o;
      box.addEventListener('change', () => {
        if (box.checked) state.outcomes.add(o);
        else state.outcomes.delete(o);
        draw();
      });
      label.append(box, ` ${o}`);
      return label;
    }),
  );
  $('graph-resource').addEventListener('change', (e) => {
    state.resource = e.target.value;
    draw();
  });
  $('graph-step').addEventListener('change', (e) => {
    state.step = e.target.value;
    draw();
  });
  $('graph-search').addEventListener('input', (e) => {
    state.search = e.target.value;
    draw();
  });
  $('graph-fold').addEventListener('change', (e) => {
    state.collapsed = e.target.checked ? new Set(graph.nodes.map((n) => n.id)) : new Set();
    draw();
  });
  canvas.addEventListener('click', (e) => {
    const el = e.target.closest('[data-edge], [data-node], [data-fold]');
    if (!el) return;
    if (el.dataset.fold) {
      if (!state.collapsed.delete(el.dataset.fold)) state.collapsed.add(el.dataset.fold);
      draw();
      return;
    }
    if (el.dataset.edge) pickEdge(el.dataset.edge);
    else pickNode(el.dataset.node);
  });
  canvas.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    const el = e.target.closest('[data-edge], [data-node]');
    if (el?.dataset.edge) pickEdge(el.dataset.edge);
    else if (el?.dataset.node) pickNode(el.dataset.node);
  });

  function pickEdge(id) {
    const edge = graph.edges.find((x) => x.id === id);
    if (!edge) return;
    state.selected = id;
    markSelected();
    const { entry, level } = graph.entries[edge.entry];
    detail(entry, level);
    onPick(entry, { edge, level });
  }

  function pickNode(id) {
    const node = graph.nodes.find((n) => n.id === id);
    if (!node) return;
    state.selected = id;
    markSelected();
    const edge = graph.edges.find((x) => x.from.node === id || x.to.node === id);
    const box = $('graph-detail');
    const title = document.createElement('div');
    title.className = 'title';
    const count = graph.edges.filter((x) => x.from.node === id || x.to.node === id).length;
    title.textContent = `${node.label} (${node.kind}${node.level ? ` in ${node.level}` : ''}): ${node.fields.length} fields, ${count} patch edges`;
    box.replaceChildren(title);
    if (!edge) return;
    const { entry, level } = graph.entries[edge.entry];
    box.append(...describeEntryNodes(entry, level));
    onPick(entry, { node, level });
  }

  function detail(entry, level) {
    $('graph-detail').replaceChildren(...describeEntryNodes(entry, level));
  }

  function describeEntryNodes(entry, level) {
    const d = describe(entry);
    const title = document.createElement('div');
    title.className = 'title';
    title.textContent = `${level ? `${level}: ` : ''}${d.title}`;
    const s = document.createElement('span');
    s.className = `outcome outcome-${d.outcome}`;
    s.textContent = d.outcome;
    title.append(s);
    const lines = [title];
    if (d.summary) lines.push(div('summary', d.summary));
    if (entry.source) lines.push(div('line depth0', `source: ${entry.source}`));
    for (const l of d.lines) lines.push(div(`line depth${l.depth}${l.error ? ' error' : ''}`, `${l.key}: ${l.text}`));
    return lines;
  }

  function markSelected() {
    for (const el of canvas.querySelectorAll('.selected')) el.classList.remove('selected');
    const el = canvas.querySelector(`[data-edge="${CSS.escape(state.selected)}"], [data-node="${CSS.escape(state.selected)}"]`);
    el?.classList.add('selected');
  }

  /** A new Output: its graph, the filter choices it offers; drawn now if the tab is shown. */
  function update(output, patchFields = []) {
    const t0 = performance.now();
    const ends = new Map(patchFields);
    graph = buildGraph(output, (source) => ends.get(source) ?? null);
    const sig = graph.nodes.map((n) => n.id).join('\n');
    if (sig !== signature) {
      signature = sig;
      options($('graph-resource'), [['', 'every resource'], ...graph.nodes.map((n) => [n.id, n.level ? `${n.level}: ${n.label}` : n.label])]);
      state.resource = graph.nodes.some((n) => n.id === state.resource) ? state.resource : '';
      $('graph-resource').value = state.resource;
    }
    const steps = graphSteps(graph);
    options($('graph-step'), [['', steps.length ? 'every step' : '(no pipeline)'], ...steps.map((s) => [s, s])]);
    $('graph-step').disabled = steps.length === 0;
    if (!steps.includes(state.step)) state.step = '';
    $('graph-step').value = state.step;
    // A big graph opens folded; the reader's folding is kept while the graph keeps its size class.
    const big = graph.edges.length > FOLD_ABOVE;
    if (folded !== big) {
      folded = big;
      state.collapsed = big ? new Set(graph.nodes.map((n) => n.id)) : new Set();
      $('graph-fold').checked = big;
    }
    dirty = true;
    const drawn = visible ? draw() : 0;
    // What the page spent on the graph for this Output, for the end-to-end measurement.
    const record = { ms: performance.now() - t0, drawn, edges: graph.edges.length, at: performance.now() };
    window.__xprender?.graph?.push(record);
    // The start of the frame that shows it.
    requestAnimationFrame(() => (record.frameAt = performance.now()));
  }

  /** Draws the shown part of the graph; returns the edges drawn. */
  function draw() {
    dirty = false;
    shown = layoutGraph(filterGraph(graph, state), state.collapsed);
    // A keystroke mostly changes values, not the graph: the same drawing is not parsed again.
    const text = svg(shown, state);
    if (text !== drawing) canvas.innerHTML = text;
    drawing = text;
    $('graph-count').textContent = `${shown.nodes.length} nodes, ${shown.edges.length} of ${graph.edges.length} edges`;
    return shown.edges.length;
  }

  return {
    update,
    /** The tab was shown or hidden: a graph that changed meanwhile is drawn when shown. */
    setVisible(v) {
      visible = v;
      if (v && dirty) draw();
    },
    /** Shows only one pipeline step's edges ('' for all). */
    showStep(step) {
      state.step = graphSteps(graph).includes(step) ? step : '';
      $('graph-step').value = state.step;
      if (visible) draw();
      else dirty = true;
    },
    get graph() {
      return graph;
    },
    get shown() {
      return shown;
    },
  };
}

function options(select, pairs) {
  select.replaceChildren(...pairs.map(([value, text]) => new Option(text, value)));
}

function div(cls, text) {
  const el = document.createElement('div');
  el.className = cls;
  el.textContent = text;
  return el;
}

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** The laid-out graph as one SVG element's text. */
function svg(layout, state, g = GEOMETRY) {
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="${layout.width}" height="${layout.height}" role="img" aria-label="patch flow graph">`];
  for (const n of layout.nodes) {
    const sel = state.selected === n.id ? ' selected' : '';
    parts.push(
      `<g class="node node-${n.kind}${sel}" data-node="${esc(n.id)}" tabindex="0" transform="translate(${n.x},${n.y})">`,
      `<rect width="${g.nodeWidth}" height="${n.h}" rx="4"/>`,
      `<text class="node-title" x="22" y="16">${esc(clip(n.label, 30))}</text>`,
      `<text class="fold" data-fold="${esc(n.id)}" x="6" y="16">${n.collapsed ? '▸' : '▾'}<title>${n.collapsed ? 'show' : 'hide'} the fields</title></text>`,
    );
    n.rows.forEach((f, i) => {
      parts.push(`<text class="port" x="8" y="${g.header + i * g.row + 12}">${esc(clip(f, 36))}<title>${esc(f)}</title></text>`);
    });
    parts.push('</g>');
  }
  for (const e of layout.edges) {
    const sel = state.selected === e.id ? ' selected' : '';
    const label = [e.step, e.type, ...e.transforms].filter(Boolean).join(' · ');
    parts.push(
      `<g class="edge outcome-${e.outcome}${sel}" data-edge="${esc(e.id)}" tabindex="0">`,
      `<path d="${e.d}"/><path class="hit" d="${e.d}"/>`,
      `<title>${esc(`${e.from.field} → ${e.to.field}: ${e.outcome}${label ? ` (${label})` : ''}`)}</title>`,
    );
    if (e.transforms.length) parts.push(`<text class="edge-label" x="${e.mid.x}" y="${e.mid.y - 3}">${esc(clip(e.transforms.join(' → '), 28))}</text>`);
    parts.push('</g>');
  }
  parts.push('</svg>');
  return parts.join('');
}

function clip(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
