// Blocking calls between workers over shared memory (the workers path, without JSPI).
//
// caller/answer: the judge's worker asks the hub worker something and sleeps in Atomics.wait
// until the answer (JSON) is in their shared buffer.
//
// requester/Switchboard: a rank's requests to the switch in the judge's worker. Each rank has a
// channel ([state, length] then the message's bytes) and they share one bell, a counter the
// judge sleeps on. The bytes are opaque here (cjudge_web/wire.py writes and reads them).
const CAPACITY = 64 << 20;
const IDLE = 0;
const REQUEST = 1; // written by the rank, not yet read by the judge
const TAKEN = 2; // read by the judge, not yet answered (a rank blocked in wait stays so)
const REPLY = 3; // answered

/** A channel's shared memory: [state, length] then up to CAPACITY bytes. */
export const newChannel = () => new SharedArrayBuffer(8 + CAPACITY);
/** The bell the ranks ring for the judge. */
export const newBell = () => new SharedArrayBuffer(4);

/** The caller's end: `call(request)` blocks and returns the answer. */
export function caller(port, channel) {
  const ctrl = new Int32Array(channel, 0, 2);
  const data = new Uint8Array(channel, 8);
  return (request) => {
    Atomics.store(ctrl, 0, IDLE);
    port.postMessage({ sync: request });
    Atomics.wait(ctrl, 0, IDLE);
    const text = new TextDecoder().decode(data.slice(0, Atomics.load(ctrl, 1)));
    return text === "" ? undefined : JSON.parse(text);
  };
}

/** The answerer's end: write `value` (awaited if a promise) and wake the caller. */
export async function answer(channel, value) {
  const resolved = await value;
  write(channel, resolved === undefined ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(resolved)), REPLY);
}

function write(channel, bytes, state) {
  if (bytes.length > CAPACITY) throw new Error(`a message of ${bytes.length} bytes does not fit the channel`);
  const ctrl = new Int32Array(channel, 0, 2);
  new Uint8Array(channel, 8).set(bytes);
  Atomics.store(ctrl, 1, bytes.length);
  Atomics.store(ctrl, 0, state);
  Atomics.notify(ctrl, 0);
}

/** A rank's end: `request(bytes)` rings the judge, blocks until it answers, returns the answer. */
export function requester(channel, bell) {
  const ctrl = new Int32Array(channel, 0, 2);
  const ring = new Int32Array(bell);
  return (bytes) => {
    write(channel, bytes, REQUEST);
    Atomics.add(ring, 0, 1);
    Atomics.notify(ring, 0);
    for (let state; (state = Atomics.load(ctrl, 0)) !== REPLY; ) Atomics.wait(ctrl, 0, state);
    const answer = new Uint8Array(channel, 8, Atomics.load(ctrl, 1)).slice();
    Atomics.store(ctrl, 0, IDLE);
    return answer;
  };
}

/** The judge's end of every rank's channel. */
export class Switchboard {
  constructor(channels, bell) {
    this.channels = channels;
    this.ring = new Int32Array(bell);
    this.ctrl = channels.map((channel) => new Int32Array(channel, 0, 2));
    this.next_rank = 0;
    this.capacity = CAPACITY;
  }

  /** The next rank with a request (ranks in turn), or -1 after `timeoutMs` without one. */
  next(timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    const n = this.ctrl.length;
    for (;;) {
      const rung = Atomics.load(this.ring, 0);
      for (let i = 0; i < n; i++) {
        const rank = (this.next_rank + i) % n;
        if (Atomics.load(this.ctrl[rank], 0) === REQUEST) {
          Atomics.store(this.ctrl[rank], 0, TAKEN);
          this.next_rank = (rank + 1) % n;
          return rank;
        }
      }
      const left = deadline - performance.now();
      if (left <= 0) return -1;
      Atomics.wait(this.ring, 0, rung, left);
    }
  }

  /** The request `next` gave for `rank`: its bytes (a copy). */
  read(rank) {
    return new Uint8Array(this.channels[rank], 8, Atomics.load(this.ctrl[rank], 1)).slice();
  }

  /** Answer `rank`'s request (wakes the rank). */
  reply(rank, bytes) {
    write(this.channels[rank], bytes, REPLY);
  }
}
