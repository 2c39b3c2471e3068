// The page's entry: starts the render worker and the first render before the editors' code has
// even loaded, so the first output is not held up by the UI; it shows as plain text until then.
import { collect, defaultExampleName } from './gallery.js';
import { Renderer } from './renderer.js';
import { decodeState, readSettings, STORAGE_KEY } from './share.js';

const examples = collect(
  import.meta.glob(['../../examples/*/*.yaml', '../../examples/gallery/*/*.yaml'], {
    query: '?raw',
    import: 'default',
    eager: true,
  }),
);

/** Measurements the end-to-end test reads. */
const metrics = (window.__xprender = { renders: [], graph: [], answers: [], validations: [], firstOutputAt: null, firstValidationAt: null, replaced: 0 });

/** Answers that arrive before the UI is up wait here; the first output is shown as plain text meanwhile. */
let onAnswer = null;
let early = [];
let firstAnswer;
const answeredOnce = new Promise((resolve) => (firstAnswer = resolve));

const renderer = new Renderer(
  () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }),
  (msg) => {
    if (onAnswer) return onAnswer(msg);
    early.push(msg);
    firstAnswer();
    if (msg.yaml && early.length === 1) {
      plain('out-resources', msg.yaml.resources);
      // Counted when the frame showing it is drawn.
      requestAnimationFrame(() => (metrics.firstOutputAt ??= performance.now()));
    }
  },
);

/** Text in a pane until its editor replaces it. */
function plain(id, text) {
  const pre = document.createElement('pre');
  pre.className = 'plain';
  pre.textContent = text;
  document.getElementById(id).replaceChildren(pre);
}

/** The URL fragment's state, else the last session's, else the default example. */
async function initialState() {
  const fromUrl = await decodeState(location.hash);
  if (fromUrl) return { state: fromUrl, example: Object.hasOwn(examples, fromUrl.example) ? fromUrl.example : '' };
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (saved && typeof saved.xr === 'string') return { state: saved, example: '' };
  } catch {
    // Unreadable storage: fall back to the gallery.
  }
  const name = defaultExampleName(examples);
  return { state: name ? examples[name] : { xr: '', composition: '', observed: '' }, example: name ?? '' };
}

const { state, example } = await initialState();
const { semantics, iterate } = readSettings(state);
const texts = { xr: state.xr ?? '', composition: state.composition ?? '', observed: state.observed ?? '' };
renderer.submit({ texts, semantics, iterate });
for (const key of Object.keys(texts)) plain(key, texts[key]);

// The UI's code (CodeMirror) is evaluated once the first answer is on screen: evaluating it keeps
// the page's thread busy, and the worker's messages wait for that thread.
await Promise.race([answeredOnce, new Promise((resolve) => setTimeout(resolve, 1000))]);
const { start } = await import('./main.js');
onAnswer = start({ renderer, examples, texts, semantics, iterate, example });
for (const msg of early) onAnswer(msg);
early = [];
