// Compile-time check of the validator module's hand-written types (tsc --noEmit); not run.
import init, { validate, version } from '../web/validate.js';
import type { Suggestion, ValidationProblem } from '../web/validate.js';

await init();
const found: ValidationProblem[] = validate([{ apiVersion: 'v1', kind: 'X' }]);
const where: Array<[number, string, string]> = found.map((p) => [p.document, p.field, p.message]);
const steps: Array<string | number> = found.flatMap((p) => p.path);
const severities: Array<'error' | 'warning'> = found.map((p) => p.severity);
const fixes: Suggestion[] = found.flatMap((p) => (p.suggestion ? [p.suggestion] : []));
const targets: Array<'key' | 'value'> = fixes.map((s) => s.target);
const text: string = fixes.map((s) => `${s.wrong} → ${s.right}`).join() + version();
console.log(where, steps, severities, targets, text);

// @ts-expect-error the documents are an array
validate({});
