// The Steps tab: a Pipeline's steps one at a time (the engine's `steps`, steps.js), with what the
// chosen step changed, its results and the desired state it left.
import { stepChanges, stepSummary } from './steps.js';
import { drawChanges } from './treeview.js';

/**
 * The Steps tab's controller over the elements #pstep, #pstep-prev, #pstep-next,
 * #pstep-summary, #pstep-list, #pstep-title, #pstep-results, #pstep-changes and #pstep-yaml.
 * `onStep(name)` is called when the reader picks a step.
 */
export function createStepsView(root, { onStep }) {
  const $ = (id) => root.querySelector(`#${id}`);
  let steps = [];
  let texts = [];
  let current = 0;

  $('pstep-prev').addEventListener('click', () => go(current - 1, true));
  $('pstep-next').addEventListener('click', () => go(current + 1, true));
  $('pstep').addEventListener('change', () => go($('pstep').selectedIndex, true));

  function go(index, picked = false) {
    if (index < 0 || index >= steps.length) return;
    current = index;
    draw();
    if (picked) onStep(steps[index].step);
  }

  function draw() {
    const s = steps[current];
    $('pstep').replaceChildren(...steps.map((x, i) => new Option(`${i + 1}. ${x.step}`)));
    $('pstep').selectedIndex = current;
    $('pstep-prev').disabled = current === 0;
    $('pstep-next').disabled = current === steps.length - 1;
    $('pstep-summary').textContent = `of ${steps.length}: ${stepSummary(s)}`;
    $('pstep-list').replaceChildren(
      ...steps.map((x, i) => {
        const li = document.createElement('li');
        li.tabIndex = 0;
        li.setAttribute('aria-selected', String(i === current));
        const b = document.createElement('b');
        b.textContent = x.step;
        li.append(b, `: ${stepSummary(x)}`);
        li.addEventListener('click', () => go(i, true));
        li.addEventListener('keydown', (e) => e.key === 'Enter' && go(i, true));
        return li;
      }),
    );
    $('pstep-title').textContent = `What step ${current + 1} (${s.step}) changed`;
    $('pstep-results').replaceChildren(
      ...s.results.map((r) => {
        const li = document.createElement('li');
        li.className = `sev-${r.severity}`;
        li.textContent = `${r.severity}${r.resource ? ` [${r.resource}]` : ''}: ${r.message}`;
        return li;
      }),
    );
    if (s.changes.length) drawChanges($('pstep-changes'), s.changes);
    else $('pstep-changes').replaceChildren(Object.assign(document.createElement('caption'), { textContent: 'This step changed nothing.' }));
    $('pstep-yaml').textContent = texts[current] ?? JSON.stringify(s.desired, null, 2);
  }

  return {
    /** A new Output (and the worker's YAML of its steps); whether it has steps to show. */
    update(output, stepTexts) {
      steps = stepChanges(output?.steps);
      texts = stepTexts ?? [];
      if (!steps.length) return false;
      current = Math.min(current, steps.length - 1);
      draw();
      return true;
    },
  };
}
