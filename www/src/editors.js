// CodeMirror 6 editors: YAML highlighting themed through CSS variables (light and dark follow
// the system), problem markers, and a highlight for the patch a trace entry points at.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, foldGutter, foldKeymap, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { forEachDiagnostic, lintGutter, lintKeymap, setDiagnostics } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState, StateEffect, StateField } from '@codemirror/state';
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { tags as t } from '@lezer/highlight';

/** CodeMirror's basic setup without autocompletion (nothing to complete here) to keep the page light. */
const setup = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightSpecialChars(),
  history(),
  foldGutter(),
  drawSelection(),
  indentOnInput(),
  bracketMatching(),
  highlightActiveLine(),
  highlightSelectionMatches(),
  keymap.of([...defaultKeymap, ...searchKeymap, ...historyKeymap, ...foldKeymap, ...lintKeymap, indentWithTab]),
];

const highlight = HighlightStyle.define([
  { tag: [t.propertyName, t.definition(t.propertyName)], color: 'var(--hl-key)' },
  { tag: [t.string, t.special(t.string), t.content], color: 'var(--hl-string)' },
  { tag: [t.labelName], color: 'var(--hl-literal)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--hl-literal)' },
  { tag: [t.comment, t.lineComment], color: 'var(--hl-comment)', fontStyle: 'italic' },
  { tag: [t.meta, t.keyword, t.typeName], color: 'var(--hl-meta)' },
  { tag: [t.punctuation, t.separator, t.squareBracket, t.brace], color: 'var(--hl-punct)' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '13px', backgroundColor: 'var(--editor-bg)', color: 'var(--fg)' },
  '.cm-scroller': { fontFamily: 'var(--mono)' },
  '.cm-gutters': { backgroundColor: 'var(--editor-bg)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--active-line)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'var(--selection) !important',
  },
  '.cm-patch-highlight': { backgroundColor: 'var(--patch-highlight)', borderRadius: '2px' },
  '.cm-tooltip': { backgroundColor: 'var(--panel)', color: 'var(--fg)', border: '1px solid var(--line)' },
});

const setPatchHighlight = StateEffect.define();
const patchMark = Decoration.mark({ class: 'cm-patch-highlight' });

/** The highlighted patch range, cleared by the effect with null. */
const patchHighlight = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    let next = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setPatchHighlight)) continue;
      next = e.value ? Decoration.set([patchMark.range(e.value.from, e.value.to)]) : Decoration.none;
    }
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/**
 * An editable YAML editor calling onChange(text) with each changed document, as the change is
 * made: before the editor updates its own view, so a render can start while it does.
 */
export function createEditor(parent, { doc = '', onChange, readOnly = false, label }) {
  const extensions = [
    setup,
    yaml(),
    syntaxHighlighting(highlight),
    theme,
    lintGutter(),
    patchHighlight,
    EditorView.contentAttributes.of({ 'aria-label': label }),
  ];
  if (readOnly) extensions.push(EditorState.readOnly.of(true), EditorView.editable.of(false));
  if (onChange) {
    extensions.push(
      EditorState.transactionExtender.of((tr) => {
        if (tr.docChanged) onChange(tr.newDoc.toString());
        return null;
      }),
    );
  }
  return new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
}

/** Replaces the whole text (without an onChange storm: one transaction). */
export function setText(view, text) {
  if (view.state.doc.toString() === text) return;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/**
 * Shows problems as lint markers: [{ from, to, message, severity, fix? }], replacing those of the
 * same group (the render's, or the validator's) and keeping the other group's where edits moved
 * them. A problem with a `fix` offers it as an action that writes `fix` over [from, to).
 */
export function showProblems(view, problems, group = 'render') {
  const len = view.state.doc.length;
  const kept = [];
  forEachDiagnostic(view.state, (d, from, to) => {
    if ((d.group ?? 'render') !== group) kept.push({ ...d, from, to });
  });
  const diagnostics = problems.map((p) => {
    const from = Math.min(Math.max(p.from, 0), len);
    const d = { from, to: Math.min(Math.max(p.to, from), len), severity: p.severity, message: p.message, group };
    if (p.fix !== undefined) d.actions = [fixAction(p.fix)];
    return d;
  });
  view.dispatch(setDiagnostics(view.state, [...kept, ...diagnostics]));
}

/** A lint action writing `text` over its diagnostic's range (where edits have moved it). */
export function fixAction(text) {
  return { name: `Change to ${text}`, apply: (view, from, to) => view.dispatch({ changes: { from, to, insert: text } }) };
}

/** Highlights (and scrolls to) a range, or clears the highlight with null. */
export function highlightRange(view, range) {
  const len = view.state.doc.length;
  const value = range ? { from: Math.min(range.from, len), to: Math.min(range.to, len) } : null;
  const effects = [setPatchHighlight.of(value && value.to > value.from ? value : null)];
  if (value) effects.push(EditorView.scrollIntoView(value.from, { y: 'center' }));
  view.dispatch({ effects });
}

/** Puts the cursor at the start of a range (and highlights it, brought into view). */
export function placeCursor(view, range) {
  highlightRange(view, range);
  if (!range) return;
  view.dispatch({ selection: { anchor: Math.min(range.from, view.state.doc.length) } });
}
