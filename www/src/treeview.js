// The Tree and Iterations tabs: the tree's rows (indented by level, foldable, each selectable)
// and the iterations with what the chosen one changed. Drawing only; main.js keeps the state.
import { ancestorPaths, describeChange, iterationSummary } from './tree.js';

/**
 * Draws the tree's rows (tree.js, with `yaml`) into a table: Kind/name indented by level, with a
 * fold toggle when it has children, its template, ready and synced, what the shown iteration
 * did to it, and the results that name it on a line below. `collapsed` is the set of folded
 * paths, `selected` the chosen row's path, `changed` path → the change ('added', 'changed'); a
 * click or Enter on a row calls onSelect(row), on a toggle onToggle(path).
 */
export function drawTree(table, rows, { collapsed, selected, changed, onSelect, onToggle }) {
  const head = document.createElement('tr');
  for (const h of ['object', 'ready', 'synced']) head.append(cell('th', h));
  const trs = [head];
  for (const row of rows) {
    const hidden = ancestorPaths(row.path).some((p) => collapsed.has(p));
    const tr = document.createElement('tr');
    tr.className = 'tree-row';
    tr.dataset.path = row.path;
    tr.dataset.level = String(row.level);
    tr.tabIndex = 0;
    tr.setAttribute('aria-level', String(row.level + 1));
    tr.setAttribute('aria-selected', String(row.path === selected));
    tr.hidden = hidden;
    const name = cell('td', '');
    name.className = 'tree-name';
    name.style.paddingLeft = `${0.5 + row.level * 1.25}rem`;
    if (row.children) {
      const open = !collapsed.has(row.path);
      tr.setAttribute('aria-expanded', String(open));
      const toggle = document.createElement('button');
      toggle.type = 'button';
      toggle.className = 'toggle';
      toggle.textContent = open ? '▾' : '▸';
      toggle.title = open ? 'Fold' : 'Unfold';
      toggle.addEventListener('click', (e) => {
        e.stopPropagation();
        onToggle(row.path);
      });
      name.append(toggle);
    } else {
      const spacer = document.createElement('span');
      spacer.className = 'toggle';
      name.append(spacer);
    }
    const label = document.createElement('span');
    label.className = row.xr ? 'label xr' : 'label';
    label.textContent = row.label;
    name.append(label);
    if (row.template) {
      const t = document.createElement('span');
      t.className = 'template';
      t.textContent = row.template;
      name.append(' ', t);
    }
    const change = changed.get(row.path);
    if (change) {
      const b = document.createElement('span');
      b.className = `badge change-${change}`;
      b.textContent = change;
      name.append(' ', b);
    }
    const ready = cell('td', row.ready ? 'True' : 'False');
    ready.className = `ready ready-${row.ready}`;
    const synced = cell('td', row.synced ? 'True' : 'False');
    synced.className = `synced synced-${row.synced}`;
    tr.append(name, ready, synced);
    const select = () => onSelect(row);
    tr.addEventListener('click', select);
    tr.addEventListener('keydown', (e) => e.key === 'Enter' && select());
    trs.push(tr);
    for (const m of row.messages) {
      const note = document.createElement('tr');
      note.className = 'tree-note';
      note.dataset.path = row.path;
      note.hidden = hidden;
      const td = cell('td', `${m.severity}: ${m.message}`);
      td.colSpan = 3;
      td.className = `sev-${m.severity}`;
      td.style.paddingLeft = `${2 + row.level * 1.25}rem`;
      note.append(td);
      trs.push(note);
    }
  }
  table.replaceChildren(...trs);
}

/** The iterations as a list, the shown one marked; a click or Enter calls onPick(index). */
export function drawIterations(list, iterations, current, onPick) {
  list.replaceChildren(
    ...iterations.map((it, i) => {
      const li = document.createElement('li');
      li.tabIndex = 0;
      li.dataset.iteration = String(it.iteration);
      li.setAttribute('aria-selected', String(i === current));
      const b = document.createElement('b');
      b.textContent = `Iteration ${it.iteration}`;
      li.append(b, `: ${iterationSummary(it)}`);
      li.addEventListener('click', () => onPick(i));
      li.addEventListener('keydown', (e) => e.key === 'Enter' && onPick(i));
      return li;
    }),
  );
}

/**
 * What one iteration changed: a row per change (where in the tree, the object, the change, the
 * field), the values before and after on a line below it.
 */
export function drawChanges(table, changes) {
  const head = document.createElement('tr');
  for (const h of ['resource', 'object', 'change', 'path']) head.append(cell('th', h));
  const rows = [];
  for (const c of changes ?? []) {
    const d = describeChange(c);
    const tr = document.createElement('tr');
    tr.className = `change change-${d.change}`;
    tr.append(...[d.resource || '(XR)', d.object, d.change, d.path].map((t) => cell('td', t)));
    rows.push(tr);
    if (!d.detail) continue;
    const detail = document.createElement('tr');
    detail.className = 'change-detail';
    const td = cell('td', d.detail);
    td.colSpan = 4;
    detail.append(td);
    rows.push(detail);
  }
  if (!rows.length) {
    const tr = document.createElement('tr');
    const td = cell('td', 'Nothing changed: the tree has settled.');
    td.colSpan = 4;
    tr.append(td);
    rows.push(tr);
  }
  table.replaceChildren(head, ...rows);
}

function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}
