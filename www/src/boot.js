// The page's entry: starts the render worker and the first render before the editors' code has
// even loaded, so the first output is not held up by the UI.
import { collect, defaultExampleName } from './gallery.js';
import { Renderer } from './renderer.js';
import { decodeState, STORAGE_KEY } from './share.js';

const examples = collect(
  import.meta.glob('../../examples/*/*.yaml', { query: '?raw', import: 'default', eager: true }),
);

// The UI's code loads while the worker starts and the documents are read.
const ui = import('./main.js');

/** Answers that arrive before the UI is up wait here. */
let onAnswer = null;
let early = [];

const renderer = new Renderer(
  () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }),
  (msg) => (onAnswer ? onAnswer(msg) : early.push(msg)),
);

/** The URL fragment's state, else the last session's, else the default example. */
async function initialState() {
  const fromUrl = await decodeState(location.hash);
  if (fromUrl) return { state: fromUrl, example: '' };
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
const semantics = ['auto', 'native', 'function'].includes(state.semantics) ? state.semantics : 'auto';
const texts = { xr: state.xr ?? '', composition: state.composition ?? '', observed: state.observed ?? '' };
renderer.submit({ texts, semantics });

const { start } = await ui;
onAnswer = start({ renderer, examples, texts, semantics, example });
for (const msg of early) onAnswer(msg);
early = [];
