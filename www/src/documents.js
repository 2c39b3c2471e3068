// The playground's documents: YAML in (YAML 1.1 rules, as kubectl reads manifests), the render
// request out, and the way back from an engine error to the patch at fault in the source.
import { parseAllDocuments, parseDocument, stringify, isSeq, isMap } from 'yaml';

/** YAML 1.1 like kubectl (yes/no/on/off booleans, 0777 octals, << merge keys). */
const PARSE = { version: '1.1', prettyErrors: true, uniqueKeys: true };

/** The annotation that matches an observed resource to its template. */
export const RESOURCE_NAME = 'crossplane.io/composition-resource-name';

/**
 * Parses one editor's text into its documents.
 * Returns { docs: [object], problems: [{ doc, line, col, from, to, message, severity }] }.
 */
export function parseYaml(text) {
  const problems = [];
  const docs = [];
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
      if (value !== null && value !== undefined) docs.push(value);
    }
  });
  return { docs, problems };
}

/** The message without yaml's own position suffix (the editor and status bar say where). */
function firstLine(s) {
  return String(s).split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

/** A problem of a document that is not a YAML error (wrong shape), marked on the whole text. */
function shapeProblem(message) {
  return { doc: 1, line: 1, col: 1, from: 0, to: 1, message, severity: 'error' };
}

/**
 * Builds the render request from the three editors' texts.
 * Returns { request, problems: { xr, composition, observed } } — request is null when any
 * editor holds an error.
 */
export function buildRequest({ xr, composition, observed }, semantics) {
  const parsed = { xr: parseYaml(xr), composition: parseYaml(composition), observed: parseYaml(observed) };
  const problems = {
    xr: [...parsed.xr.problems],
    composition: [...parsed.composition.problems],
    observed: [...parsed.observed.problems],
  };
  for (const key of ['xr', 'composition']) {
    const { docs } = parsed[key];
    if (problems[key].some((p) => p.severity === 'error')) continue;
    if (docs.length !== 1 || !isObject(docs[0])) {
      problems[key].push(shapeProblem(`expected exactly one YAML object, found ${docs.length} document(s)`));
    }
  }
  const resources = {};
  let environment;
  parsed.observed.docs.forEach((doc, i) => {
    // An EnvironmentConfig among the observed documents is the render's environment.
    if (isObject(doc) && doc.kind === 'EnvironmentConfig') {
      environment = { ...environment, ...(isObject(doc.data) ? doc.data : {}) };
      return;
    }
    const name = isObject(doc) ? doc.metadata?.annotations?.[RESOURCE_NAME] : undefined;
    if (typeof name !== 'string') {
      problems.observed.push({
        ...shapeProblem(`document ${i + 1} has no ${RESOURCE_NAME} annotation`),
        doc: i + 1,
        severity: 'warning',
      });
      return;
    }
    resources[name] = { resource: doc };
  });
  const failed = Object.values(problems).some((list) => list.some((p) => p.severity === 'error'));
  if (failed) return { request: null, problems };
  const options = { trace: true };
  if (semantics === 'native' || semantics === 'function') options.semantics = semantics;
  const request = {
    xr: parsed.xr.docs[0],
    composition: parsed.composition.docs[0],
    observed: environment === undefined ? { resources } : { resources, environment },
    options,
  };
  return { request, problems };
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Where a patch is in the Composition's text: { from, to } or null.
 * Classic compositions list templates under spec.resources; Pipelines under each step's
 * input.resources. Templates match by name, or by index when unnamed.
 */
export function locatePatch(compositionText, resource, patchIndex) {
  let doc;
  try {
    doc = parseDocument(compositionText, PARSE);
  } catch {
    return null;
  }
  if (doc.errors.length) return null;
  const lists = [doc.getIn(['spec', 'resources'], true)];
  const pipeline = doc.getIn(['spec', 'pipeline'], true);
  if (isSeq(pipeline)) {
    for (const step of pipeline.items) {
      if (isMap(step)) lists.push(step.getIn(['input', 'resources'], true));
    }
  }
  for (const list of lists) {
    if (!isSeq(list)) continue;
    for (const [i, tmpl] of list.items.entries()) {
      if (!isMap(tmpl)) continue;
      const name = tmpl.get('name');
      if (name !== resource && !(name === undefined && String(i) === String(resource))) continue;
      if (patchIndex === undefined || patchIndex === null) return range(tmpl);
      const patch = tmpl.getIn(['patches', patchIndex], true);
      return patch ? range(patch) : range(tmpl);
    }
  }
  return null;
}

function range(node) {
  if (!node?.range) return null;
  return { from: node.range[0], to: node.range[1] };
}

/** The rendered output as YAML texts for the panes and the download. */
export function outputYaml(output) {
  const resources = Object.entries(output.resources ?? {})
    .map(([name, r]) => `# ${name} (ready: ${r.ready})\n${toYaml(r.resource)}`)
    .join('---\n');
  return { resources, composite: toYaml(output.composite ?? {}) };
}

/** The download: the desired XR, then every desired composed resource. */
export function downloadYaml(output) {
  const docs = [output.composite ?? {}, ...Object.values(output.resources ?? {}).map((r) => r.resource)];
  return docs.map(toYaml).join('---\n');
}

function toYaml(v) {
  return stringify(v, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Connection details: base64 as the engine gives them, or decoded when they are UTF-8. */
export function connectionRows(details, decoded) {
  return Object.entries(details ?? {}).map(([key, b64]) => {
    if (!decoded) return { key, value: b64, binary: false };
    const text = decodeBase64Utf8(b64);
    return text === null ? { key, value: b64, binary: true } : { key, value: text, binary: false };
  });
}

function decodeBase64Utf8(b64) {
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
