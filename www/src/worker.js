// The render worker: parses the three YAML documents, renders with the engine (timing only the
// render), and prepares the output's YAML, so the page stays responsive and light.
import init, { render } from '../xprender-wasm/web/xprender.js';
import { buildRequest, presentation } from './documents.js';

const ready = init();

self.onmessage = async (e) => {
  const { id, request } = e.data;
  const { request: req, problems, compositionDocument } = buildRequest(request.texts, request.semantics);
  if (!req) {
    self.postMessage({ id, problems });
    return;
  }
  let answer;
  try {
    await ready;
  } catch (err) {
    self.postMessage({ id, problems, error: { kind: 'Internal', message: `cannot load the engine: ${err}`, context: {} } });
    return;
  }
  const start = performance.now();
  try {
    answer = { output: render(req.xr, req.composition, req.observed, req.options) };
  } catch (err) {
    answer = { error: { kind: err.kind ?? 'Internal', message: err.message ?? String(err), context: err.context ?? {} } };
  }
  const ms = performance.now() - start;
  self.postMessage({ id, problems, ms, ...answer, ...presentation(compositionDocument, answer) });
};
