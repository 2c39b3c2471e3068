// The playground's UI: three YAML editors in, the engine's answer out, re-rendered on every edit.
import { createEditor, highlightRange, setText, showProblems } from './editors.js';
import { encodeState, MAX_FRAGMENT, STORAGE_KEY } from './share.js';
import { describeEntry } from './trace.js';
import { connectionRows, inputRows } from './view.js';

const DEBOUNCE_MS = 30;
const $ = (id) => document.getElementById(id);

/** Measurements the end-to-end test reads (set up by boot.js). */
const metrics = window.__xprender;

/**
 * Builds the UI around the running renderer and the initial documents; returns the handler of
 * the renderer's answers.
 */
export function start({ renderer, examples, texts, semantics, example }) {
  let lastOutput = null;
  let lastDownload = '';
  /** Where the last answer's patches are in the Composition text it was rendered from, by `source`. */
  let locations = new Map();
  let debounce = null;
  let persistTimer = null;

  // The plain-text stand-ins boot.js showed give way to the editors.
  for (const id of ['xr', 'composition', 'observed', 'out-resources']) $(id).replaceChildren();
  const inputs = {};
  for (const key of ['xr', 'composition', 'observed']) {
    inputs[key] = createEditor($(key), { doc: texts[key], onChange: edited, label: `${key} YAML` });
  }
  const outputs = {
    resources: createEditor($('out-resources'), { readOnly: true, label: 'composed resources' }),
    composite: createEditor($('out-composite'), { readOnly: true, label: 'desired XR' }),
  };
  $('semantics').value = semantics;

  function current() {
    const t = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.state.doc.toString()]));
    return { texts: t, semantics: $('semantics').value };
  }

  function edited() {
    clearTimeout(debounce);
    debounce = setTimeout(renderNow, DEBOUNCE_MS);
  }

  function renderNow() {
    clearTimeout(debounce);
    debounce = null;
    const request = current();
    renderer.submit(request);
    persist(request);
  }

  function answered(msg) {
    metrics.replaced = renderer.replaced;
    const now = performance.now();
    const problems = msg.problems ?? { xr: [], composition: [], observed: [] };
    for (const [key, list] of Object.entries(problems)) {
      // Patches that failed are marked in the Composition along with its YAML problems.
      showProblems(inputs[key], key === 'composition' ? [...list, ...(msg.faults ?? [])] : list);
    }
    // Errors stop the render only when they are the YAML's: the engine's own are its answer.
    const rendered = msg.output !== undefined || msg.error !== undefined;
    const blocking = rendered ? [] : Object.entries(problems).flatMap(([key, list]) =>
      list.filter((p) => p.severity === 'error').map((p) => ({ key, ...p })),
    );
    if (blocking.length) {
      // A YAML error: say where, keep the last good output, dimmed.
      const p = blocking[0];
      const where = `${p.key}: document ${p.doc}, line ${p.line}, column ${p.col}: ${p.message}`;
      status(where, true);
      $('input-error').textContent = `YAML error in ${where}. The output below is the last good one.`;
      $('input-error').hidden = false;
      $('outputs').classList.add('stale');
      return;
    }
    $('input-error').hidden = true;
    metrics.renders.push({ ms: msg.ms ?? null, at: now });
    locations = new Map(msg.locations ?? []);
    $('outputs').classList.remove('stale');
    if (msg.error) {
      showError(msg.error);
      status(`${msg.error.kind}: ${msg.error.message}`, true);
      return;
    }
    lastOutput = msg.output;
    lastDownload = msg.download;
    showOutput(msg.output, msg.yaml, msg.origins);
    if (metrics.firstOutputAt === null) requestAnimationFrame(() => (metrics.firstOutputAt ??= performance.now()));
    const fatal = (msg.output.results ?? []).find((r) => r.severity === 'Fatal');
    if (fatal) {
      showFatal(fatal, Object.keys(msg.output.resources ?? {}).length > 0);
      status(`Fatal: ${fatal.message}`, true);
      return;
    }
    status(`rendered in ${msg.ms.toFixed(2)} ms`);
  }

  /**
   * A render that ended with a Fatal result. A native reconcile that failed after the apply
   * keeps the resources Crossplane applied: they stay in the output, not dimmed.
   */
  function showFatal(result, applied) {
    const box = $('render-error');
    const where = ['resource', 'patchIndex', 'patchType', 'fieldPath']
      .filter((k) => result[k] !== undefined)
      .map((k) => `${k}: ${result[k]}`)
      .join(', ');
    const note = applied
      ? 'Crossplane applies the composed resources below, then fails the reconcile.'
      : 'Crossplane fails the reconcile and applies nothing.';
    box.textContent = `Fatal: ${result.message}${where ? `\n(${where})` : ''}\n${note}`;
    box.hidden = false;
    const at = locations.get(result.source);
    if (at) highlightRange(inputs.composition, at);
  }

  function status(text, bad = false) {
    $('status').textContent = text;
    $('status').title = text;
    $('status').classList.toggle('bad', bad);
  }

  function showError(error) {
    const box = $('render-error');
    const ctx = Object.entries(error.context ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    box.textContent = `${error.kind}: ${error.message}${ctx ? `\n(${ctx})` : ''}`;
    box.hidden = false;
    // The patch (or resource) at fault is marked (see answered) and brought into view.
    const at = locations.get(error.context?.source);
    if (at) highlightRange(inputs.composition, at);
    // The last good output stays, dimmed.
    if (lastOutput) $('outputs').classList.add('stale');
  }

  function showOutput(out, y, origins) {
    $('render-error').hidden = true;
    highlightRange(inputs.composition, null);
    setText(outputs.resources, y.resources);
    setText(outputs.composite, y.composite);
    showConnection();
    const rows = Object.entries(out.resources ?? {}).map(([name, r]) => [name, r.ready]);
    rows.push(['XR (composite)', out.ready]);
    $('readiness').replaceChildren(
      row(['resource', 'ready'], 'th'),
      ...rows.map(([name, ready]) => row([name, String(ready)], 'td', `ready-${ready}`)),
    );
    showTrace(out.trace ?? []);
    $('inputs').replaceChildren(
      row(['input', 'what the engine chose'], 'th'),
      ...inputRows(out.inputs, origins).map((cells) => row(cells, 'td')),
    );
    const results = out.results ?? [];
    $('results-count').textContent = results.length ? `(${results.length})` : '';
    $('results').replaceChildren(
      ...(results.length ? results : [{ severity: 'Normal', message: 'no results' }]).map((r) => {
        const li = document.createElement('li');
        li.className = `sev-${r.severity}`;
        li.textContent = `${r.severity}${r.resource ? ` [${r.resource}]` : ''}: ${r.message}`;
        return li;
      }),
    );
  }

  function row(cells, tag, cls) {
    const tr = document.createElement('tr');
    cells.forEach((c, i) => {
      const td = document.createElement(tag);
      td.textContent = c;
      if (cls && i > 0) td.className = cls;
      tr.append(td);
    });
    return tr;
  }

  function showConnection() {
    if (!lastOutput) return;
    const decoded = $('decode').checked;
    const rows = connectionRows(lastOutput.connectionDetails, decoded);
    $('connection').replaceChildren(
      row(['key', decoded ? 'value (decoded)' : 'value (base64)'], 'th'),
      ...(rows.length ? rows : [{ key: '(none)', value: '' }]).map((r) =>
        row([r.key, r.binary ? `${r.value} (binary)` : r.value], 'td'),
      ),
    );
  }

  function showTrace(entries) {
    const list = $('trace');
    if (!entries.length) {
      const li = document.createElement('li');
      li.textContent = 'The engine returned no trace for this render.';
      list.replaceChildren(li);
      return;
    }
    list.replaceChildren(...entries.map(traceItem));
  }

  function traceItem(entry) {
    const d = describeEntry(entry);
    const li = document.createElement('li');
    const title = document.createElement('div');
    title.className = 'title';
    title.textContent = d.title;
    if (d.outcome) {
      const s = document.createElement('span');
      s.className = `outcome outcome-${d.outcome}`;
      s.textContent = d.outcome;
      title.append(s);
    }
    li.append(title);
    if (d.summary) {
      const sum = document.createElement('div');
      sum.className = 'summary';
      sum.textContent = d.summary;
      li.append(sum);
    }
    for (const l of d.lines) {
      const div = document.createElement('div');
      div.className = `line depth${l.depth}${l.error ? ' error' : ''}`;
      const b = document.createElement('b');
      b.textContent = l.key;
      div.append(b, l.text ? `: ${l.text}` : '');
      li.append(div);
    }
    li.tabIndex = 0;
    const select = () => {
      for (const el of $('trace').querySelectorAll('.selected')) el.classList.remove('selected');
      li.classList.add('selected');
      highlightRange(inputs.composition, locations.get(entry.source) ?? null);
    };
    li.addEventListener('click', select);
    li.addEventListener('keydown', (e) => e.key === 'Enter' && select());
    return li;
  }

  function persist(request) {
    clearTimeout(persistTimer);
    persistTimer = setTimeout(async () => {
      const full = { ...request.texts, semantics: request.semantics };
      try {
        localStorage.setItem(STORAGE_KEY, JSON.stringify(full));
      } catch {
        // Storage full or disabled: the URL still holds the state.
      }
      const fragment = await encodeState(full);
      if (fragment.length <= MAX_FRAGMENT) history.replaceState(null, '', `#${fragment}`);
    }, 300);
  }

  for (const tab of document.querySelectorAll('nav [data-tab]')) {
    tab.addEventListener('click', () => {
      for (const t of document.querySelectorAll('nav [data-tab]')) t.setAttribute('aria-selected', String(t === tab));
      for (const p of document.querySelectorAll('.tab')) p.hidden = p.dataset.tab !== tab.dataset.tab;
    });
  }

  $('decode').addEventListener('change', showConnection);
  $('semantics').addEventListener('change', renderNow);

  const select = $('example');
  select.append(new Option('(choose)', ''));
  for (const name of Object.keys(examples)) select.append(new Option(name, name));
  select.value = example;
  select.addEventListener('change', () => {
    const ex = examples[select.value];
    if (!ex) return;
    for (const key of Object.keys(inputs)) setText(inputs[key], ex[key] ?? '');
    renderNow();
  });

  $('share').addEventListener('click', async () => {
    const { texts: t, semantics: s } = current();
    const fragment = await encodeState({ ...t, semantics: s });
    if (fragment.length > MAX_FRAGMENT) {
      status('the documents are too large for a link', true);
      return;
    }
    const url = `${location.origin}${location.pathname}#${fragment}`;
    history.replaceState(null, '', `#${fragment}`);
    try {
      await navigator.clipboard.writeText(url);
      status('link copied');
    } catch {
      status('link in the address bar');
    }
  });

  $('download').addEventListener('click', () => {
    if (!lastOutput) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([lastDownload], { type: 'application/yaml' }));
    a.download = 'rendered.yaml';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });

  return answered;
}
