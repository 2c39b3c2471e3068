// The render worker: answers each request (respond.js) so the page stays responsive and light,
// and runs the validator after each answer. A request the page rendered itself (inline.js)
// comes for its validation alone.
import init, { renderDocuments } from '../xprender-wasm/web/xprender.js';
import { buildRequest, lastParsed } from './documents.js';
import { validationMarks } from './problems.js';
import { createResponder } from './respond.js';

const ready = init();
/** The editors' texts as last read, by renders and by validations of the page's renders alike. */
const parse = lastParsed();
const respond = createResponder(renderDocuments, parse);
/** The validation waiting to run after the last answer; a newer request goes first. */
let validating = null;

self.onmessage = async (e) => {
  const { id, request, validate: rendered } = e.data;
  // The newer request makes that validation stale: its own follows its answer.
  clearTimeout(validating);
  if (rendered) {
    const built = buildRequest(rendered.texts, rendered.semantics, rendered.iterate, parse);
    if (built.request) validating = setTimeout(() => validate(id, built, rendered.texts, e.data.unused));
    return;
  }
  try {
    await ready;
  } catch (err) {
    const { problems } = buildRequest(request.texts, request.semantics, request.iterate, parse);
    self.postMessage({ id, problems, error: { kind: 'Internal', message: `cannot load the engine: ${err}`, context: {} } });
    return;
  }
  const { message, built, unused } = respond(id, request);
  self.postMessage(message);
  // In a task of its own, so a request that arrived meanwhile is answered first.
  if (built.request) validating = setTimeout(() => validate(id, built, request.texts, unused));
};

// The validator: its module is imported the first time a render has been answered, so the first
// output never waits for it; its answer follows each render's as a message of its own.
let validator = null;

async function validate(id, { request: req, origins, nodes }, texts, unused = []) {
  try {
    validator ??= import('../validate-wasm/web/validate.js').then(async (m) => (await m.default(), m));
    const v = await validator;
    const start = performance.now();
    const found = v.validate(req.documents);
    const marks = validationMarks(found, { origins, nodes, texts, unused: unused.map((u) => u.document) });
    self.postMessage({ id, validation: marks.problems, invalidInputs: marks.invalidInputs, ms: performance.now() - start });
  } catch (err) {
    validator = null;
    self.postMessage({ id, validation: null, validationError: String(err?.message ?? err) });
  }
}
