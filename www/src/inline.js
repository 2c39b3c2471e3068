// The page's own engine, for edits cheap enough to render before the next frame (renderer.js):
// the same module and responder the worker runs, loaded after the first output is shown.
export async function loadInline() {
  const [engine, { createResponder }] = await Promise.all([
    import('../xprender-wasm/web/xprender.js'),
    import('./respond.js'),
  ]);
  await engine.default();
  return createResponder(engine.renderDocuments);
}
