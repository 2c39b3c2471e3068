// The validator's problems as editor marks: each problem's field path found in the YAML it was
// typed in (the key of its last member, as `xprender validate` reports FILE:LINE:COLUMN, or the
// misspelt word itself when the validator suggests a fix), with that fix ready to apply.
import { isMap, isScalar, isSeq } from 'yaml';

import { EDITORS } from './documents.js';
import { VALIDATION } from './validation.js';


/**
 * Where a validator path ([name | index, ...]) is in a parsed yaml Document: the key and value
 * nodes of the deepest member reached, and whether the whole path was.
 */
export function locate(document, path) {
  let node = document?.contents ?? null;
  let at = { key: null, value: node, complete: true };
  for (const step of path) {
    let next = null;
    if (isMap(node)) {
      const pair = node.items.findLast((p) => keyText(p.key) === String(step));
      if (pair) next = { key: pair.key, value: pair.value };
    } else if (isSeq(node) && typeof step === 'number' && node.items[step]) {
      next = { key: null, value: node.items[step] };
    }
    if (!next) return { ...at, complete: false };
    at = { ...next, complete: true };
    node = next.value;
  }
  return at;
}

function keyText(key) {
  return isScalar(key) ? String(key.value) : String(key);
}

/**
 * The range a problem is marked on, within `text`: the misspelt word of its suggestion in its
 * key or value (then `fix` replaces exactly that range), else its member's key, else its node.
 */
export function problemRange(text, found, suggestion) {
  if (suggestion) {
    const node = suggestion.target === 'key' ? found.key : found.value;
    const at = node?.range && wordIn(text, node.range[0], node.range[1], suggestion.wrong);
    if (at !== null && at !== undefined && found.complete) return { from: at, to: at + suggestion.wrong.length, fix: suggestion.right };
  }
  const node = found.key ?? found.value;
  if (!node?.range) return { from: 0, to: Math.min(1, text.length) };
  return { from: node.range[0], to: Math.max(node.range[1], node.range[0] + 1) };
}

/** Where `word` stands alone (not inside a longer name) in text[from, to), or null. */
function wordIn(text, from, to, word) {
  const part = text.slice(from, to);
  const name = /[A-Za-z0-9_-]/;
  for (let i = part.indexOf(word); i !== -1; i = part.indexOf(word, i + 1)) {
    const before = part[i - 1];
    const after = part[i + word.length];
    if ((!before || !name.test(before)) && (!after || !name.test(after))) return from + i;
  }
  return null;
}

/** 1-based line and column of an offset. */
export function lineCol(text, offset) {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, col: offset - start + 1 };
}

/**
 * The validator's answer as the editors' marks and a summary for the output panel.
 * `found`: the validator's problems (document = an index into the request's documents);
 * `origins[i]` and `nodes[i]`: where documents[i] was typed and its parsed yaml Document;
 * `texts`: the editors' texts; `unused`: the indices of documents the render did not use.
 * Returns { problems: { xr, composition, observed }, invalidInputs: [{ editor, doc, errors }] }:
 * each problem { doc, line, col, from, to, severity, message, group, fix? } — `fix` the text that
 * replaces [from, to) — and the used documents that have errors.
 */
export function validationMarks(found, { origins, nodes, texts, unused = [] }) {
  const problems = Object.fromEntries(EDITORS.map((e) => [e, []]));
  const errors = new Map();
  for (const p of found) {
    const origin = origins[p.document];
    if (!origin) continue;
    const text = texts[origin.editor] ?? '';
    const range = problemRange(text, locate(nodes[p.document], p.path), p.suggestion);
    const mark = {
      doc: origin.doc,
      ...lineCol(text, range.from),
      from: range.from,
      to: range.to,
      severity: p.severity,
      message: `${p.field}: ${p.message}`,
      group: VALIDATION,
    };
    if (range.fix !== undefined) mark.fix = range.fix;
    problems[origin.editor].push(mark);
    if (p.severity === 'error' && !unused.includes(p.document)) errors.set(p.document, (errors.get(p.document) ?? 0) + 1);
  }
  const invalidInputs = [...errors].map(([i, n]) => ({ editor: origins[i].editor, doc: origins[i].doc, errors: n }));
  return { problems, invalidInputs };
}
