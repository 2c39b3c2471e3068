// The playground's documents: YAML in (YAML 1.1 rules, as kubectl reads manifests), the render
// request out, and the way back from an engine error to the patch at fault in the source.
import { parseAllDocuments, parseDocument, stringify } from 'yaml';

import { DEFAULT_ITERATIONS, iterationCap } from './share.js';
import { hasNested, treeRows } from './tree.js';

/** YAML 1.1 like kubectl (yes/no/on/off booleans, 0777 octals, << merge keys). */
const PARSE = { version: '1.1', prettyErrors: true, uniqueKeys: true };

/**
 * Parses one editor's text into its documents.
 * Returns { docs: [object], problems: [{ doc, line, col, from, to, message, severity }] }.
 */
export function parseYaml(text) {
  const problems = [];
  const docs = [];
  /** For each of docs: its 1-based number in the text, first line and range. */
  const where = [];
  /** For each of docs: the parsed yaml Document (with source ranges). */
  const documents = [];
  parseAllDocuments(text, PARSE).forEach((doc, i) => {
    for (const [list, severity] of [[doc.errors, 'error'], [doc.warnings, 'warning']]) {
      for (const e of list) {
        const [from, to] = e.pos ?? [0, 0];
        const lp = e.linePos?.[0] ?? { line: 1, col: 1 };
        problems.push({
          doc: i + 1,
          line: lp.line,
          col: lp.col,
          from,
          to: Math.max(to, from + 1),
          message: firstLine(e.message),
          severity,
        });
      }
    }
    if (doc.errors.length === 0) {
      const value = doc.toJS({ maxAliasCount: 1000 });
      if (value !== null && value !== undefined) {
        const [from, to] = doc.contents?.range ?? doc.range;
        docs.push(value);
        documents.push(doc);
        where.push({ doc: i + 1, line: lineOf(text, from), col: 1, from, to: Math.max(to, from + 1) });
      }
    }
  });
  return { docs, problems, where, documents };
}

/**
 * parseYaml that keeps each editor's last text and what it read: a keystroke in one editor
 * re-reads that editor alone. What it returns is shared between calls and must not be changed.
 */
export function lastParsed() {
  const last = new Map();
  return (text, editor) => {
    const hit = last.get(editor);
    if (hit?.text === text) return hit.parsed;
    const parsed = parseYaml(text);
    last.set(editor, { text, parsed });
    return parsed;
  };
}

function lineOf(text, offset) {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The message without yaml's own position suffix (the editor and status bar say where). */
function firstLine(s) {
  return String(s).split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

/** The kinds that define schemas, which may sit beside the XR. */
const DEFINITIONS = ['CompositeResourceDefinition', 'CustomResourceDefinition'];

/** The editors, in the order their documents go to the engine. */
export const EDITORS = ['xr', 'composition', 'observed'];

/**
 * The engine's documents request from the three editors' texts: every document typed, in editor
 * order; the engine chooses the XR, the Composition, the observed resources and the rest.
 * With `iterate.untilReady` it asks for the eventual state: renders until the tree settles and
 * is ready, at most `iterate.iterations` times (else DEFAULT_ITERATIONS), keeping every
 * iteration's output.
 * Returns { request, problems: { xr, composition, observed }, origins, nodes, compositions } —
 * request is null when an editor holds a YAML error; origins[i] says where documents[i] was typed
 * ({ editor, doc, line, col, from, to }) and nodes[i] is its parsed yaml Document (the validator's
 * problems are found in it); compositions are the Composition editor's parsed Documents, so the
 * chosen one's patches can be found without parsing it again. `parse` reads one editor's text
 * (parseYaml, or a parser that keeps what it read: lastParsed).
 */
export function buildRequest(texts, semantics, iterate = null, parse = parseYaml) {
  const problems = {};
  const documents = [];
  const origins = [];
  const nodes = [];
  let compositions = [];
  let xrDocs = [];
  for (const editor of EDITORS) {
    const parsed = parse(texts[editor] ?? '', editor);
    problems[editor] = [...parsed.problems];
    parsed.docs.forEach((d, i) => {
      documents.push(d);
      origins.push({ editor, ...parsed.where[i] });
      nodes.push(parsed.documents[i]);
    });
    if (editor === 'composition') compositions = parsed.documents;
    if (editor === 'xr') xrDocs = parsed.docs;
  }
  const failed = Object.values(problems).some((list) => list.some((p) => p.severity === 'error'));
  if (failed) return { request: null, problems, origins, nodes, compositions };
  const options = { trace: true, steps: true };
  if (semantics === 'native' || semantics === 'function') options.semantics = semantics;
  if (iterate?.untilReady) {
    // The cap is always given, so the same iterations can be asked for without untilReady.
    const iterations = iterationCap(iterate.iterations) ?? DEFAULT_ITERATIONS;
    Object.assign(options, { untilReady: true, iterations, keepIterations: true });
  }
  // The XR pane says which object is the XR, so an unannotated observed object is not a rival
  // (an XRD or CRD given beside it is not one).
  const objects = xrDocs.filter((d) => !DEFINITIONS.includes(d?.kind));
  const xr = objects.length === 1 ? objects[0] : undefined;
  if (typeof xr?.kind === 'string' && typeof xr.metadata?.name === 'string') {
    options.xr = `${xr.kind}/${xr.metadata.name}`;
  }
  return { request: { documents, options }, problems, origins, nodes, compositions };
}

/**
 * What the engine's answer says about the typed documents, as editor problems: each unused
 * document gets a warning with the engine's reason; an error naming a document (`documents[N]`
 * in its field path) is marked on that document.
 */
export function answerProblems({ output, error }, origins) {
  const problems = Object.fromEntries(EDITORS.map((e) => [e, []]));
  const mark = (index, severity, message) => {
    if (!origins[index]) return;
    const { editor, ...at } = origins[index];
    problems[editor].push({ ...at, severity, message });
  };
  for (const u of output?.inputs?.unused ?? []) {
    const { doc } = origins[u.document] ?? {};
    mark(u.document, 'warning', `document ${doc} is not used: ${u.why}`);
  }
  const index = /^documents\[(\d+)\]/.exec(error?.context?.fieldPath ?? '')?.[1];
  if (index !== undefined) mark(Number(index), 'error', error.message);
  return problems;
}

/**
 * The Composition the engine rendered with, as a parsed Document of the Composition editor: the
 * one named in `inputs.composition`; before an answer names one (an error), the editor's only
 * document. Null when it is not in that editor (its patches are then not marked).
 */
export function chosenComposition(compositions, inputs) {
  if (!inputs) return compositions.length === 1 ? compositions[0] : null;
  return compositions.find((d) => d.getIn(['metadata', 'name']) === inputs.composition) ?? null;
}

/**
 * A finder of what the engine names by its path in the Composition (a trace entry's, an error's or
 * a Fatal result's `source`: `spec.resources[2].patches[1]`, `spec.patchSets[0].patches[1]`,
 * `spec.pipeline[0].input.resources[2]`): path → { from, to } in the Composition's text, or null.
 * The Composition is its text or its parsed Document.
 */
export function sourceLocator(composition) {
  let doc = composition;
  if (typeof composition === 'string') {
    try {
      doc = parseDocument(composition, PARSE);
    } catch {
      return () => null;
    }
  }
  if (!doc || doc.errors.length) return () => null;
  return (path) => {
    if (typeof path !== 'string' || path === '') return null;
    const keys = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] === undefined ? m[1] : Number(m[2])));
    return range(doc.getIn(keys, true));
  };
}

function range(node) {
  if (!node?.range) return null;
  return { from: node.range[0], to: node.range[1] };
}

/** The rendered output as YAML texts for the panes and the download. */
export function outputYaml(output) {
  return texts(output).yaml;
}

/** The download: the desired XR, then every desired composed resource. */
export function downloadYaml(output) {
  return texts(output).download;
}

/**
 * The tree's rows (tree.js) with the YAML of each row's object, when the Output renders nested
 * XRs; undefined otherwise.
 */
export function treeYaml(output) {
  if (!hasNested(output)) return undefined;
  return treeRows(output).map(({ object, ...row }) => ({ ...row, yaml: toYaml(object ?? {}) }));
}

/**
 * For each of the Output's `iterations`, what the panes show of it: { yaml, tree } of its output,
 * or null when the iteration kept none. Undefined when the render did not iterate.
 */
export function iterationViews(output) {
  if (!Array.isArray(output?.iterations)) return undefined;
  return output.iterations.map((it) => (it?.output ? { yaml: texts(it.output).yaml, tree: treeYaml(it.output) } : null));
}

/** The panes' YAML and the download, each document written once (stringify is the slow part). */
function texts(output) {
  const entries = Object.entries(output.resources ?? {}).map(([name, r]) => [name, r.ready, toYaml(r.resource)]);
  const composite = toYaml(output.composite ?? {});
  const resources = entries.length
    ? entries.map(([name, ready, y]) => `# ${name} (ready: ${ready})\n${y}`).join('---\n')
    : '# No composed resources were rendered: see Results and Explain.\n';
  return { yaml: { resources, composite }, download: [composite, ...entries.map((e) => e[2])].join('---\n') };
}

/**
 * The YAML of a value. The last render's texts are kept by the value's JSON, which is far
 * quicker to write: a keystroke changes few of the objects, and only those are written anew.
 */
export function toYaml(v) {
  const key = JSON.stringify(v);
  if (key === undefined) return stringify(v, YAML_OUT);
  let y = written.now.get(key) ?? written.before.get(key);
  if (y === undefined) y = stringify(v, YAML_OUT);
  written.now.set(key, y);
  return y;
}

/** Call after a render's texts are written: what it did not write again is forgotten. */
export function forgetOldYaml() {
  written.before = written.now;
  written.now = new Map();
}

const YAML_OUT = { lineWidth: 0, aliasDuplicateObjects: false };
const written = { now: new Map(), before: new Map() };

/**
 * What the page shows of an answer, prepared in the worker so the page needs no YAML library:
 * the output as YAML texts; where each patch or template the answer names (by `source`: trace
 * entries, the error, Fatal results) is in the Composition (its text, or its parsed Document), as
 * [[source, { from, to }], ...]; `faults`, the patches that failed (a thrown error, or trace
 * entries whose outcome is failed), as editor markers; the tree's rows with their YAML (`tree`)
 * and each iteration's texts and tree (`steps`), when the Output has them. A nested XR's trace
 * entries are located in its own Composition among `compositions` (the editor's documents), as
 * [`${level}|${source}`, { from, to }], `level` the nested XR's place (`network/subnets`).
 */
export function presentation(composition, { output, error }, compositions = []) {
  const locate = sourceLocator(composition);
  const faults = [];
  const locations = new Map();
  const at = (source) => {
    if (typeof source !== 'string') return null;
    if (!locations.has(source)) locations.set(source, locate(source));
    return locations.get(source);
  };
  const fault = (source, message) => {
    const where = at(source);
    if (where) faults.push({ ...where, severity: 'error', message });
  };
  if (error?.context?.source !== undefined) fault(error.context.source, error.message);
  for (const result of output?.results ?? []) at(result?.source);
  for (const entry of output?.trace ?? []) {
    if (entry?.outcome === 'failed') fault(entry.source, failure(entry));
    else at(entry?.source);
  }
  nestedLocations(output, '', compositions, locations);
  const found = [...locations].filter(([, where]) => where);
  if (!output) return { locations: found, faults };
  return { locations: found, faults, ...texts(output), tree: treeYaml(output), steps: iterationViews(output) };
}

/** Locates the traced patches of every nested XR of `output` in that XR's own Composition. */
function nestedLocations(output, prefix, compositions, locations) {
  for (const [name, r] of Object.entries(output?.resources ?? {})) {
    const nested = r?.nested;
    if (!nested) continue;
    const level = `${prefix}${name}`;
    const doc = nested.inputs ? chosenComposition(compositions, nested.inputs) : null;
    if (doc) {
      const locate = sourceLocator(doc);
      for (const entry of Array.isArray(nested.trace) ? nested.trace : []) {
        const key = `${level}|${entry?.source}`;
        if (typeof entry?.source === 'string' && !locations.has(key)) locations.set(key, locate(entry.source));
      }
    }
    nestedLocations(nested, `${level}/`, compositions, locations);
  }
}

/** Why a traced patch failed, in one line. */
function failure(entry) {
  const step = (entry.transforms ?? []).find((t) => t?.error !== undefined);
  const read = (entry.from ?? []).find((r) => r?.error !== undefined && !r.missing);
  const cause = step ? `${step.type} transform: ${step.error}` : read ? read.error : undefined;
  return [cause, entry.reason].filter(Boolean).join(' — ') || 'this patch failed';
}
