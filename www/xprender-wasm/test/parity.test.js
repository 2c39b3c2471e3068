// Every golden fixture, and the package's edge-case requests, through both builds of the
// package: renderJson must answer byte for byte what native render_json answers, the
// answer must equal the case's expected output, and render() on plain objects must agree with it.
// A case run under each semantics is one render per semantics (helpers.js).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test, before } from 'node:test';

import {
  extraRequests,
  goldenFixtures,
  loadNodeBuild,
  loadWebBuild,
  nativeRenderJson,
} from './helpers.js';

const fixtures = goldenFixtures();
const extras = extraRequests();
const cases = [...fixtures, ...extras];

let native;
const builds = {};

before(async () => {
  native = nativeRenderJson(cases.map((c) => c.request));
  builds.nodejs = loadNodeBuild();
  builds.web = await loadWebBuild();
});

test('golden fixtures exist', () => {
  assert.ok(fixtures.length > 0, 'no tests/fixtures/**/request.json found');
});

for (const target of ['nodejs', 'web']) {
  describe(`${target} build`, () => {
    test('renderJson is byte-identical to native render_json', () => {
      cases.forEach((c, i) => {
        const text = readFileSync(c.request, 'utf8');
        assert.equal(builds[target].renderJson(text), native[i], c.name);
      });
    });

    test('renderJson equals every expected output', () => {
      for (const c of fixtures) {
        const got = JSON.parse(builds[target].renderJson(readFileSync(c.request, 'utf8')));
        const want = JSON.parse(readFileSync(c.expected, 'utf8'));
        assert.deepStrictEqual(got, want, c.name);
      }
    });

    test('render() (renderDocuments() for documents) on objects deep-equals renderJson, errors thrown with their fields', () => {
      for (const c of cases) {
        const text = readFileSync(c.request, 'utf8');
        let req;
        let unsafe = false;
        try {
          req = JSON.parse(text, (_, v) => {
            if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) unsafe = true;
            // A JS number does not say whether the text was `-0` (int64 0) or `-0.0` (float64
            // -0), and render() reads -0 as JSON.stringify writes it, `0`.
            if (Object.is(v, -0)) unsafe = true;
            return v;
          });
        } catch {
          continue; // not JSON: render() cannot be handed it as objects
        }
        if (req === null || typeof req !== 'object' || Array.isArray(req)) continue;
        // A documents request that also gives parts has no object form (renderJson rejects it).
        if ('documents' in req && ['xr', 'composition', 'observed'].some((k) => k in req)) continue;
        // render() takes the four parts; a function step's `desired`, a pipeline's starting
        // `context`, `extraResources` and `xrdSchema` travel in the request text (renderJson).
        if (['desired', 'context', 'extraResources', 'xrdSchema'].some((k) => k in req)) continue;
        // An integer past 2^53, or a negative zero, cannot travel in a JS object as the text
        // has it: compare with the request as the objects hold it.
        const want = JSON.parse(builds[target].renderJson(unsafe ? JSON.stringify(req) : text));
        let got;
        try {
          got =
            'documents' in req
              ? builds[target].renderDocuments(req.documents, req.options)
              : builds[target].render(req.xr, req.composition, req.observed, req.options);
        } catch (e) {
          assert.ok(want.error, `${c.name}: render threw ${e} but renderJson succeeded`);
          assert.ok(e instanceof Error, `${c.name}: thrown value is not an Error`);
          assert.equal(e.name, 'XprenderError', c.name);
          assert.deepStrictEqual(
            { kind: e.kind, message: e.message, context: e.context },
            want.error,
            c.name,
          );
          continue;
        }
        assert.deepStrictEqual(got, want, c.name);
      }
    });
  });
}
