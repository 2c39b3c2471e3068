// Compile-time check of the package's hand-written types (tsc --noEmit); not run.
import { render, renderDocuments, renderJson, version } from '../bundler/xprender.js';
import type { DocumentsOptions, ErrorContext, RenderError, RenderInputs, RenderOptions, RenderOutput, TraceEntry } from '../bundler/xprender.js';

const options: RenderOptions = { semantics: 'function', trace: true, connectionSecretKeys: ['a'], now: '2024-01-01T00:00:00Z' };
const out: RenderOutput = render({ kind: 'X' }, { kind: 'Composition' }, { resources: {} }, options);
const minimal: RenderOutput = render({}, {});
const ready: boolean = out.ready && out.resources['a'].ready;
const secret: string | undefined = out.connectionDetails['password'];
const severities: Array<'Normal' | 'Warning' | 'Fatal'> = out.results.map((r) => r.severity);
// A native reconcile that failed after the apply names where in its Fatal result.
const failedAt: Array<[string | undefined, number | undefined, string | undefined]> = out.results.map((r) => [
  r.patchType,
  r.patchIndex,
  r.fieldPath,
]);
const failedSource: Array<string | undefined> = out.results.map((r) => r.source);
const text: string = renderJson('{}') + version();

try {
  render({}, {}, null, null);
} catch (e) {
  const err = e as RenderError;
  const ctx: ErrorContext = err.context;
  const where: string | undefined = ctx.resource ?? ctx.fieldPath ?? ctx.patchType ?? ctx.transformType ?? ctx.source;
  const index: number | undefined = ctx.patchIndex ?? ctx.transformIndex;
  console.log(err.kind, err.message, where, index);
}

// @ts-expect-error semantics is one of two names
render({}, {}, null, { semantics: 'classic' });

const docOptions: DocumentsOptions = { xr: 'XThing/one', compositionName: 'c', trace: true };
const fromDocs: RenderOutput = renderDocuments([{ kind: 'X' }], docOptions);
const fromText: RenderOutput = renderDocuments('[]');
const inputs: RenderInputs | undefined = fromDocs.inputs;
const unusedWhy: string[] = (inputs?.unused ?? []).map((u) => `${u.document} ${u.kind}/${u.name}: ${u.why}`);
const entry: TraceEntry | undefined = fromDocs.trace?.[0];
const outcome: 'applied' | 'skipped' | 'failed' | 'not-run' | undefined = entry?.outcome;
const firstRead: string | undefined = entry?.from[0]?.path;
const written: string | undefined = entry?.source;

// @ts-expect-error documents are objects or JSON text
renderDocuments(42);

console.log(minimal, ready, secret, severities, failedAt, text, fromText, unusedWhy, outcome, firstRead);
