// The playground's UI: three YAML editors in, the engine's answer out, re-rendered on every edit.
import { createEditor, highlightRange, placeCursor, setText, showProblems } from './editors.js';
import { createGraphView } from './graphview.js';
import { menuGroups } from './gallery.js';
import { DEFAULT_ITERATIONS, encodeState, iterationCap, MAX_FRAGMENT, stateOf, STORAGE_KEY } from './share.js';
import { describeEntry } from './trace.js';
import { changedPaths, iterationSummary, treeResults } from './tree.js';
import { drawChanges, drawIterations, drawTree } from './treeview.js';
import { createStepsView } from './stepsview.js';
import { connectionRows, inputRows } from './view.js';
import { invalidNote, VALIDATION } from './validation.js';
import { loadInline } from './inline.js';

const $ = (id) => document.getElementById(id);

/** Measurements the end-to-end test reads (set up by boot.js). */
const metrics = window.__xprender;

/**
 * Builds the UI around the running renderer and the initial documents; returns the handler of
 * the renderer's answers.
 */
export function start({ renderer, examples, texts, semantics, iterate, example }) {
  let lastOutput = null;
  let lastDownload = '';
  /** The last answer with an output, and the output shown (the answer's, or an iteration's). */
  let lastAnswer = null;
  let shown = null;
  /** The iteration shown (an index into the output's `iterations`; -1 when it has none), and
   * the one the user chose, kept across renders while the new answer has it. */
  let step = -1;
  let pinned = null;
  /** The tree's folded rows and chosen row, by path, kept across renders and iterations. */
  const collapsed = new Set();
  let selectedPath = '';
  /** Where the last answer's patches are in the Composition text it was rendered from, by `source`. */
  let locations = new Map();
  /** What a hidden tab shows, drawn when the tab is shown: tab name → draw function. */
  const pending = new Map();
  let persistTimer = null;
  /** The render answered last: its validation follows it, an older one is stale. */
  let answeredId = null;

  // The plain-text stand-ins boot.js showed give way to the editors.
  for (const id of ['xr', 'composition', 'observed', 'out-resources']) $(id).replaceChildren();
  const inputs = {};
  for (const key of ['xr', 'composition', 'observed']) {
    inputs[key] = createEditor($(key), { doc: texts[key], onChange: (text) => edited({ [key]: text }), label: `${key} YAML` });
  }
  const outputs = {
    resources: createEditor($('out-resources'), { readOnly: true, label: 'composed resources' }),
    composite: createEditor($('out-composite'), { readOnly: true, label: 'desired XR' }),
    object: createEditor($('out-object'), { readOnly: true, label: 'the object chosen in the tree' }),
  };
  // The Graph and Steps tabs: a click on a patch puts the Composition's cursor on it.
  const graphView = createGraphView($('graph'), {
    describe: describeEntry,
    // A nested XR's patch is in its own Composition, located under its level (documents.js).
    onPick: (entry, { level }) => placeCursor(inputs.composition, locations.get(level ? `${level}|${entry.source}` : entry.source) ?? null),
  });
  const stepsView = createStepsView($('outputs'), { onStep: (name) => graphView.showStep(name) });
  $('semantics').value = semantics;
  $('until-ready').checked = iterate.untilReady;
  $('iterations').value = iterate.iterations ?? '';
  $('iterations').placeholder = String(DEFAULT_ITERATIONS);

  /** The page's inputs; `edits` holds an editor's text being changed, ahead of its state. */
  function current(edits = {}) {
    const t = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, edits[k] ?? v.state.doc.toString()]));
    const iterations = iterationCap($('iterations').value);
    const iterate = { untilReady: $('until-ready').checked, iterations };
    return { texts: t, semantics: $('semantics').value, iterate, example: $('example').value };
  }

  // Every edit is sent at once: the renderer renders it straight away when idle, and while a
  // render runs keeps only the newest edit to follow it, so a burst of keystrokes costs one
  // render more than it takes, and a single one no waiting.
  function edited(edits) {
    renderNow(edits);
  }

  function renderNow(edits) {
    const request = current(edits);
    renderer.submit(request);
    persist(request);
  }

  /** Each editor's render marks as last shown (JSON), so unchanged ones are not set again. */
  const shownProblems = {};

  /** Where the page's time for the answer in hand goes, for the keystroke measurement. */
  let laps = null;
  const lap = (name) => {
    if (!laps) return;
    const now = performance.now();
    laps[name] = (laps[name] ?? 0) + now - laps.last;
    laps.last = now;
  };

  function answered(msg) {
    if ('validation' in msg) return validated(msg);
    laps = { start: performance.now(), last: performance.now() };
    try {
      answer(msg);
    } finally {
      const { start: t, last, ...rest } = laps;
      metrics.answers?.push({ ...msg.phases, id: msg.id, page: rest, pageMs: performance.now() - t });
      laps = null;
    }
  }

  function answer(msg) {
    answeredId = msg.id;
    metrics.replaced = renderer.replaced;
    const now = performance.now();
    const problems = msg.problems ?? { xr: [], composition: [], observed: [] };
    for (const [key, list] of Object.entries(problems)) {
      // Patches that failed are marked in the Composition along with its YAML problems.
      const marks = key === 'composition' ? [...list, ...(msg.faults ?? [])] : list;
      // The same marks at the same places: the editor has them already (a keystroke after them).
      const text = JSON.stringify(marks);
      if (shownProblems[key] === text) continue;
      shownProblems[key] = text;
      showProblems(inputs[key], marks);
    }
    lap('problems');
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
    lastAnswer = msg;
    const count = msg.output.iterations?.length ?? 0;
    step = pinned !== null && pinned < count ? pinned : count - 1;
    $('render-error').hidden = true;
    highlightRange(inputs.composition, null);
    showView();
    if (metrics.firstOutputAt === null) requestAnimationFrame(() => (metrics.firstOutputAt ??= performance.now()));
    if (msg.iterationError) {
      showIterationError(msg.iterationError, count);
      status(`${msg.iterationError.kind}: ${msg.iterationError.message}`, true);
      return;
    }
    const fatal = (msg.output.results ?? []).find((r) => r.severity === 'Fatal');
    if (fatal) {
      showFatal(fatal, Object.keys(msg.output.resources ?? {}).length > 0);
      status(`Fatal: ${fatal.message}`, true);
      return;
    }
    const settled = count ? `, ${count} iterations` : '';
    status(`rendered in ${msg.ms.toFixed(2)} ms${settled}`);
  }

  /** The validator's problems in the editors, and the note when the render used invalid input. */
  function validated(msg) {
    if (msg.id !== answeredId || !msg.validation) return;
    for (const [key, list] of Object.entries(msg.validation)) showProblems(inputs[key], list, VALIDATION);
    const note = invalidNote(msg.invalidInputs);
    $('validation-note').textContent = note;
    $('validation-note').hidden = !note;
    metrics.firstValidationAt ??= performance.now();
    metrics.validations?.push({ id: msg.id, ms: msg.ms, at: performance.now() });
  }

  /** An iterating render that untilReady failed: the iterations it ran stay on show. */
  function showIterationError(error, count) {
    const box = $('render-error');
    box.textContent = `${error.kind}: ${error.message}\nThe ${count} iterations the engine rendered are shown below.`;
    box.hidden = false;
  }

  /** What the panes show: the last answer's output, or the chosen iteration's. */
  function viewed() {
    const msg = lastAnswer;
    const it = step >= 0 ? msg.output.iterations?.[step] : undefined;
    const view = it?.output && msg.steps?.[step];
    if (view) return { out: it.output, yaml: view.yaml, tree: view.tree, iteration: it };
    return { out: msg.output, yaml: msg.yaml, tree: msg.tree, iteration: it };
  }

  function showView() {
    const { out, yaml, tree, iteration } = viewed();
    shown = out;
    showOutput(out, yaml, lastAnswer.origins, lastAnswer.output.inputs);
    showTree(tree, iteration);
    showIterations();
    lap('other');
  }

  /** The tab of that name shown or hidden; a hidden tab that was selected gives way to the first. */
  function tabShown(name, visible) {
    const tab = document.querySelector(`nav [data-tab="${name}"]`);
    const was = !tab.hidden;
    tab.hidden = !visible;
    if (!visible && tab.getAttribute('aria-selected') === 'true') selectTab('resources');
    return was;
  }

  function selectTab(name) {
    for (const t of document.querySelectorAll('nav [data-tab]')) t.setAttribute('aria-selected', String(t.dataset.tab === name));
    for (const p of document.querySelectorAll('.tab')) p.hidden = p.dataset.tab !== name;
    graphView.setVisible(name === 'graph');
    const draw = pending.get(name);
    pending.delete(name);
    draw?.();
  }

  /** Draws a tab's content now if it is shown, else when it is. */
  function whenShown(name, draw) {
    const tab = document.querySelector(`.tab[data-tab="${name}"]`);
    if (tab && !tab.hidden) {
      pending.delete(name);
      draw();
    } else pending.set(name, draw);
  }

  /** The tree of nested XRs; the first time a render has one, its tab is opened. */
  function showTree(rows, iteration) {
    const had = tabShown('tree', Boolean(rows));
    if (!rows) return;
    if (!had) selectTab('tree');
    if (!rows.some((r) => r.path === selectedPath)) selectedPath = '';
    const chosen = rows.find((r) => r.path === selectedPath);
    setText(outputs.object, chosen.yaml);
    drawTree($('tree'), rows, {
      collapsed,
      selected: selectedPath,
      changed: changedPaths(iteration?.changes),
      onSelect: (row) => {
        selectedPath = row.path;
        showTree(rows, iteration);
        // The table was drawn anew: the keyboard stays on the chosen row.
        $('tree').querySelector(`tr.tree-row[data-path="${CSS.escape(row.path)}"]`)?.focus();
      },
      onToggle: (path) => {
        if (!collapsed.delete(path)) collapsed.add(path);
        showTree(rows, iteration);
      },
    });
  }

  /** The stepper and the Iterations tab: the iterations, the shown one and what it changed. */
  function showIterations() {
    const iterations = lastAnswer.output.iterations ?? [];
    tabShown('iterations', iterations.length > 0);
    $('stepper').hidden = iterations.length === 0;
    if (!iterations.length) return;
    const it = iterations[step];
    const select = $('step');
    select.replaceChildren(...iterations.map((x) => new Option(String(x.iteration))));
    select.value = String(it.iteration);
    $('step-count').textContent = `of ${iterations.length}`;
    $('step-prev').disabled = step === 0;
    $('step-next').disabled = step === iterations.length - 1;
    $('step-summary').textContent = iterationSummary(it);
    drawIterations($('iterations-list'), iterations, step, goTo);
    $('changes-title').textContent = `What iteration ${it.iteration} changed`;
    drawChanges($('changes'), it.changes);
  }

  function goTo(index) {
    const count = lastAnswer?.output.iterations?.length ?? 0;
    if (index < 0 || index >= count) return;
    step = index;
    // The newest iteration is followed by the next render; an earlier one stays chosen.
    pinned = index === count - 1 ? null : index;
    showView();
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

  function showOutput(out, y, origins, chosen) {
    lap('other');
    whenShown('resources', () => setText(outputs.resources, y.resources));
    whenShown('composite', () => setText(outputs.composite, y.composite));
    lap('outputYaml');
    showConnection();
    const rows = Object.entries(out.resources ?? {}).map(([name, r]) => [name, r.ready]);
    rows.push(['XR (composite)', out.ready]);
    $('readiness').replaceChildren(
      row(['resource', 'ready'], 'th'),
      ...rows.map(([name, ready]) => row([name, String(ready)], 'td', `ready-${ready}`)),
    );
    lap('other');
    whenShown('trace', () => showTrace(out.trace ?? []));
    lap('trace');
    graphView.update(out, lastAnswer.patchFields);
    lap('graph');
    tabShown('steps', stepsView.update(out, out === lastAnswer.output ? lastAnswer.stepTexts : undefined));
    lap('steps');
    $('inputs').replaceChildren(
      row(['input', 'what the engine chose'], 'th'),
      ...inputRows(chosen, origins).map((cells) => row(cells, 'td')),
    );
    // Every level's results; a nested XR's render's name their resource by its path in the tree.
    const results = treeResults(out);
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
    if (!shown) return;
    const decoded = $('decode').checked;
    const rows = connectionRows(shown.connectionDetails, decoded);
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
      const full = stateOf(request);
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
    tab.addEventListener('click', () => selectTab(tab.dataset.tab));
  }

  $('decode').addEventListener('change', showConnection);
  $('semantics').addEventListener('change', () => renderNow());
  $('until-ready').addEventListener('change', () => renderNow());
  $('iterations').addEventListener('input', () => edited());
  $('step-prev').addEventListener('click', () => goTo(step - 1));
  $('step-next').addEventListener('click', () => goTo(step + 1));
  $('step').addEventListener('change', () => goTo($('step').selectedIndex));

  const select = $('example');
  select.append(new Option('(choose)', ''));
  for (const [label, names] of menuGroups(examples)) {
    const group = document.createElement('optgroup');
    group.label = label;
    group.append(...names.map((name) => new Option(name.replace(/^gallery\//, ''), name)));
    select.append(group);
  }
  select.value = example;
  select.addEventListener('change', () => {
    const ex = examples[select.value];
    if (!ex) return;
    for (const key of Object.keys(inputs)) {
      setText(inputs[key], ex[key] ?? '');
      delete shownProblems[key];
    }
    // An example with simulated providers opens at its eventual state.
    $('until-ready').checked = ex.untilReady === true;
    pinned = null;
    renderNow();
  });

  $('share').addEventListener('click', async () => {
    const fragment = await encodeState(stateOf(current()));
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

  // The page's own engine renders cheap edits in the keystroke's frame, once loaded (after the
  // first output: loading it never holds that up). Without it every edit goes to the worker.
  setTimeout(() =>
    loadInline().then(
      (respond) => {
        renderer.setInline(respond, current());
        metrics.inlineAt = performance.now();
      },
      () => {},
    ),
  );
  return answered;
}
