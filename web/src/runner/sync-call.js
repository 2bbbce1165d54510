// Blocking calls between workers: the caller posts a request and sleeps in Atomics.wait until
// the answerer writes the answer (JSON, bytes as base64) into their shared buffer.
const CAPACITY = 64 << 20;
const BYTES = "__bytes__";

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

const toJson = (value) =>
  JSON.stringify(value, (_, v) => (v instanceof Uint8Array ? { [BYTES]: base64(v) } : v === undefined ? null : v));
const fromJson = (text) =>
  JSON.parse(text, (_, v) => (v && typeof v === "object" && BYTES in v ? Uint8Array.from(atob(v[BYTES]), (c) => c.charCodeAt(0)) : v));

/** A channel's shared memory: [state, length] then the answer's UTF-8 bytes. */
export const newChannel = () => new SharedArrayBuffer(8 + CAPACITY);

/** The caller's end: `call(request)` blocks and returns the answer. */
export function caller(port, channel) {
  const ctrl = new Int32Array(channel, 0, 2);
  const data = new Uint8Array(channel, 8);
  return (request) => {
    Atomics.store(ctrl, 0, 0);
    port.postMessage({ sync: request });
    Atomics.wait(ctrl, 0, 0);
    const text = new TextDecoder().decode(data.slice(0, Atomics.load(ctrl, 1)));
    return text === "" ? undefined : fromJson(text);
  };
}

/** The answerer's end: write `value` (awaited if a promise) and wake the caller. */
export async function answer(channel, value) {
  const ctrl = new Int32Array(channel, 0, 2);
  const resolved = await value;
  const bytes = resolved === undefined ? new Uint8Array() : new TextEncoder().encode(toJson(resolved));
  if (bytes.length > CAPACITY) throw new Error(`an answer of ${bytes.length} bytes does not fit the channel`);
  new Uint8Array(channel, 8).set(bytes);
  Atomics.store(ctrl, 1, bytes.length);
  Atomics.store(ctrl, 0, 1);
  Atomics.notify(ctrl, 0);
}
