// The render worker: parses the three YAML documents, renders with the engine, times the render.
// Parsing here too keeps the page responsive while a large document is read.
import init, { render } from '../xprender-wasm/web/xprender.js';
import { buildRequest } from './documents.js';

const ready = init();

self.onmessage = async (e) => {
  const { id, request } = e.data;
  const { request: req, problems } = buildRequest(request.texts, request.semantics);
  if (!req) {
    self.postMessage({ id, problems });
    return;
  }
  await ready;
  const start = performance.now();
  try {
    const output = render(req.xr, req.composition, req.observed, req.options);
    self.postMessage({ id, problems, output, ms: performance.now() - start });
  } catch (err) {
    const error = { kind: err.kind ?? 'Internal', message: err.message ?? String(err), context: err.context ?? {} };
    self.postMessage({ id, problems, error, ms: performance.now() - start });
  }
};
