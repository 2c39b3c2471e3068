// Playground state in the URL fragment: JSON, deflate-raw compressed, base64url.
// Three documents are too big for query parameters; the fragment never reaches a server.

/** Fragments longer than this are not written to the URL (browsers and chat tools truncate). */
export const MAX_FRAGMENT = 32 * 1024;

/** Where the last session's documents are kept when the URL holds none. */
export const STORAGE_KEY = 'xprender-playground';

/** The playground's iterations cap when none is typed. */
export const DEFAULT_ITERATIONS = 20;

/** An iterations cap as typed: a whole number from 1, else none (DEFAULT_ITERATIONS applies). */
export function iterationCap(n) {
  const v = typeof n === 'string' && n.trim() === '' ? NaN : Number(n);
  return Number.isInteger(v) && v >= 1 ? v : undefined;
}

/**
 * The render settings a state holds (a link's or the last session's), each checked: the
 * semantics, and whether to iterate until ready with its cap.
 */
export function readSettings(state) {
  const semantics = ['auto', 'native', 'function'].includes(state?.semantics) ? state.semantics : 'auto';
  return { semantics, iterate: { untilReady: state?.untilReady === true, iterations: iterationCap(state?.iterations) } };
}

/**
 * The state to keep: the three documents and the settings, flat (as links have always held them),
 * and the name of the example or gallery entry they started from, if any.
 */
export function stateOf({ texts, semantics, iterate, example }) {
  const state = { ...texts, semantics };
  if (typeof example === 'string' && example !== '') state.example = example;
  if (iterate?.untilReady) state.untilReady = true;
  if (iterate?.iterations !== undefined) state.iterations = iterate.iterations;
  return state;
}

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
