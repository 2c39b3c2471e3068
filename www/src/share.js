// Playground state in the URL fragment: JSON, deflate-raw compressed, base64url.
// Three documents are too big for query parameters; the fragment never reaches a server.

/** Fragments longer than this are not written to the URL (browsers and chat tools truncate). */
export const MAX_FRAGMENT = 32 * 1024;

/** Where the last session's documents are kept when the URL holds none. */
export const STORAGE_KEY = 'xprender-playground';

export async function encodeState(state) {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  const packed = await pipe(bytes, new CompressionStream('deflate-raw'));
  return toBase64Url(packed);
}

/** The state a fragment holds, or null when it holds none (or garbage). */
export async function decodeState(fragment) {
  const text = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  if (!text) return null;
  try {
    const bytes = await pipe(fromBase64Url(text), new DecompressionStream('deflate-raw'));
    const state = JSON.parse(new TextDecoder().decode(bytes));
    return state !== null && typeof state === 'object' && !Array.isArray(state) ? state : null;
  } catch {
    return null;
  }
}

async function pipe(bytes, transform) {
  const stream = new Blob([bytes]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function toBase64Url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}
