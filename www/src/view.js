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

/** The key of a patch target ({ step, resource, environment, patchIndex }) in an answer's `locations`. */
export function locationKey({ step, resource, environment, patchIndex }) {
  return JSON.stringify([step ?? null, resource ?? null, Boolean(environment), patchIndex ?? null]);
}
