// Small pure helpers of the output panes (no YAML library here: the page stays light).

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

/**
 * What the engine chose among the documents (the Output's `inputs`) as [label, value] rows;
 * `origins[i]` ({ editor, doc }) names where documents[i] was typed.
 */
export function inputRows(inputs, origins = []) {
  if (!inputs) return [];
  const rows = [['XR', inputs.xr]];
  if (inputs.claim) rows.push(['claim', inputs.claim]);
  rows.push(['Composition', `${inputs.composition} (${inputs.compositionReason})`]);
  if (inputs.xrd) rows.push(['XRD', inputs.xrd]);
  for (const [template, resource] of Object.entries(inputs.observed ?? {})) rows.push([`observed: ${template}`, resource]);
  for (const [template, secret] of Object.entries(inputs.connectionSecrets ?? {})) {
    rows.push([`connection Secret: ${template}`, secret]);
  }
  if (inputs.environment?.length) rows.push(['environment', inputs.environment.join(', ')]);
  for (const u of inputs.unused ?? []) {
    const at = origins[u.document];
    const where = at ? `${at.editor} document ${at.doc}` : `document ${u.document}`;
    rows.push([`unused: ${where}`, `${u.kind}${u.name ? `/${u.name}` : ''}: ${u.why}`]);
  }
  return rows;
}
