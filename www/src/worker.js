// The render worker: parses the three editors' YAML, hands every document to the engine's
// documents request (timing only the render), and prepares the output's YAML (the tree's and
// each iteration's too), so the page stays responsive and light.
import init, { renderDocuments } from '../xprender-wasm/web/xprender.js';
import { graphData } from './graphdata.js';
import { answerProblems, buildRequest, chosenComposition, EDITORS, forgetOldYaml, lastParsed, presentation } from './documents.js';
import { validationMarks } from './problems.js';

const ready = init();
/** Each editor's last text, read once: a keystroke re-reads only the editor it was typed in. */
const parse = lastParsed();
/** The validation waiting to run after the last answer; a newer request goes first. */
let validating = null;

self.onmessage = async (e) => {
  const { id, request } = e.data;
  const t0 = performance.now();
  // The newer request makes that validation stale: its own follows its answer.
  clearTimeout(validating);
  const built = buildRequest(request.texts, request.semantics, request.iterate, parse);
  const { request: req, problems, origins, compositions } = built;
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
    answer = { output: renderDocuments(req.documents, req.options) };
  } catch (err) {
    answer = { error: thrown(err) };
  }
  // A tree that settles unready, or not within the cap, is an error of untilReady alone: the
  // same iterations without it show how far it got, beside the error.
  if (answer.error?.kind === 'Render' && req.options.untilReady) {
    try {
      const output = renderDocuments(req.documents, { ...req.options, untilReady: false });
      if (Array.isArray(output.iterations)) answer = { output, iterationError: answer.error };
    } catch {
      // Not an error of untilReady (an oscillation, a failing patch): the error is the answer.
    }
  }
  const ms = performance.now() - start;
  // The engine's word on the documents (unused ones, the one at fault) joins the YAML problems.
  const told = answerProblems(answer, origins);
  const all = Object.fromEntries(EDITORS.map((k) => [k, [...problems[k], ...told[k]]]));
  const composition = chosenComposition(compositions, answer.output?.inputs);
  const typed = origins.map(({ editor, doc }) => ({ editor, doc }));
  const t1 = performance.now();
  const shown = presentation(composition, answer);
  const t2 = performance.now();
  const graph = graphData(composition, answer.output);
  const t3 = performance.now();
  forgetOldYaml();
  // Where the time went, for the keystroke measurement (scripts/bench-graph.mjs).
  const phases = { parse: start - t0, render: ms, present: t2 - t1, graphData: t3 - t2, startedAt: performance.timeOrigin + t0, sentAt: performance.timeOrigin + t3 };
  self.postMessage({ id, problems: all, ms, origins: typed, phases, ...answer, ...shown, ...graph });
  // In a task of its own, so a request that arrived meanwhile is answered first.
  validating = setTimeout(() => validate(id, built, request.texts, answer.output?.inputs?.unused));
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

function thrown(err) {
  return { kind: err.kind ?? 'Internal', message: err.message ?? String(err), context: err.context ?? {} };
}
