// A render's answer from the editors' texts: the YAML parsed into the documents request, the
// engine's render, and what the page shows of it (output YAML, patch locations, the graph's
// data). The worker answers with it; so does the page's own engine for renders that fit in a
// frame (inline.js).
import { graphData } from './graphdata.js';
import { answerProblems, buildRequest, chosenComposition, EDITORS, forgetOldYaml, lastParsed, presentation } from './documents.js';

/**
 * @param {(documents: unknown[], options: object) => object} renderDocuments the engine's
 * @param parse each editor's last text, read once (documents.js `lastParsed`): a keystroke
 * re-reads only the editor it was typed in
 * @returns {(id: number, request: object) => { message: object, built: object, unused: object[] }}
 * answers a request; `built` and `unused` are what the validator needs after it.
 */
export function createResponder(renderDocuments, parse = lastParsed()) {
  return (id, request) => {
    const t0 = performance.now();
    const built = buildRequest(request.texts, request.semantics, request.iterate, parse);
    const { request: req, problems, origins, compositions } = built;
    if (!req) return { message: { id, problems }, built };
    const start = performance.now();
    const answer = rendered(renderDocuments, req);
    const ms = performance.now() - start;
    // The engine's word on the documents (unused ones, the one at fault) joins the YAML problems.
    const told = answerProblems(answer, origins);
    const all = Object.fromEntries(EDITORS.map((k) => [k, [...problems[k], ...told[k]]]));
    const composition = chosenComposition(compositions, answer.output?.inputs);
    const typed = origins.map(({ editor, doc }) => ({ editor, doc }));
    const t1 = performance.now();
    const shown = presentation(composition, answer, compositions);
    const t2 = performance.now();
    const graph = graphData(composition, answer.output);
    const t3 = performance.now();
    forgetOldYaml();
    // Where the time went, for the keystroke measurement (scripts/bench-graph.mjs).
    const phases = {
      parse: start - t0,
      render: ms,
      present: t2 - t1,
      graphData: t3 - t2,
      startedAt: performance.timeOrigin + t0,
      sentAt: performance.timeOrigin + t3,
    };
    const message = { id, problems: all, ms, origins: typed, phases, ...answer, ...shown, ...graph };
    return { message, built, unused: answer.output?.inputs?.unused ?? [] };
  };
}

/** The engine's answer: its output, or the error it threw. */
function rendered(renderDocuments, req) {
  let answer;
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
  return answer;
}

function thrown(err) {
  return { kind: err.kind ?? 'Internal', message: err.message ?? String(err), context: err.context ?? {} };
}
