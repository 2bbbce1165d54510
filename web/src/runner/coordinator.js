// The ranks of one case meet here, with the semantics of cjudge/sim/transport.py (gloo's):
// sends and receives are posted without blocking and matched oldest first by (peer, tag); a
// rank blocks only in wait() on an unmatched handle, and the case is deadlocked when every rank
// that has not finished is blocked so. Payloads (the tensors' bytes) are opaque here.

/** What a blocked rank is woken with when the case is abandoned (deadlock): it must unwind. */
export const ABORT = Object.freeze({ abort: true });

export class Coordinator {
  /** @param {number} world  @param {() => void} onDeadlock  called once, when no rank can move */
  constructor(world, onDeadlock) {
    this.states = Array(world).fill("running");
    this.waiting = Array(world).fill(null); // [op, peer] while blocked
    this.onDeadlock = onDeadlock;
    this.deadlocked = false;
    this.handles = new Map(); // id -> {kind, rank, peer, tag, payload, matched, src, wake}
    this.sends = []; // unmatched posted sends, oldest first
    this.recvs = []; // unmatched posted receives, oldest first
    this.nextHandle = 1;
    this.checkScheduled = false;
  }

  post_send(src, dst, tag, payload) {
    const send = this.#handle({ kind: "send", rank: src, peer: dst, tag, payload });
    const i = this.recvs.findIndex((r) => r.rank === dst && r.tag === tag && (r.peer === src || r.peer == null));
    if (i < 0) this.sends.push(send);
    else this.#match(send, this.recvs.splice(i, 1)[0]);
    return send.id;
  }

  /** `src` null or undefined: any source. */
  post_recv(dst, src, tag) {
    const recv = this.#handle({ kind: "recv", rank: dst, peer: src ?? null, tag });
    const i = this.sends.findIndex((s) => s.peer === dst && s.tag === tag && (src == null || s.rank === src));
    if (i < 0) this.recvs.push(recv);
    else this.#match(this.sends.splice(i, 1)[0], recv);
    return recv.id;
  }

  test(handle) {
    return this.handles.get(handle).matched;
  }

  /** A turn for the other ranks (JSPI: their wake-ups run before this resolves). */
  pause() {
    return Promise.resolve();
  }

  /**
   * [src, payload] for a receive, undefined for a send, once matched: at once if it is already, else
   * a promise (the rank is blocked in `op` meanwhile); ABORT if the case is abandoned first.
   */
  wait(rank, handle, op) {
    const h = this.handles.get(handle);
    if (h.matched) return this.#forget(h);
    this.states[rank] = "blocked";
    this.waiting[rank] = [op, h.peer];
    this.#scheduleCheck();
    return new Promise((resolve) => {
      h.wake = (value) => {
        if (value !== ABORT) {
          this.states[rank] = "running";
          this.waiting[rank] = null;
        }
        resolve(value === ABORT ? ABORT : this.#forget(h));
      };
    });
  }

  /** The rank's program ended ("returned" or "failed"); its posted sends stay. */
  finish(rank, state) {
    this.states[rank] = state;
    this.waiting[rank] = null;
    this.#scheduleCheck();
  }

  /** Wake every blocked rank with ABORT so its stack unwinds; their states stay as they were. */
  abortBlocked() {
    for (const h of this.handles.values()) h.wake?.(ABORT);
  }

  #handle(fields) {
    const h = { id: this.nextHandle++, matched: false, wake: null, ...fields };
    this.handles.set(h.id, h);
    return h;
  }

  #match(send, recv) {
    send.matched = recv.matched = true;
    recv.src = send.rank;
    recv.payload = send.payload;
    send.payload = null;
    send.wake?.();
    recv.wake?.();
  }

  #forget(h) {
    this.handles.delete(h.id);
    return h.kind === "recv" ? [h.src, h.payload] : undefined; // undefined: None in Python
  }

  // Checked after every pending wake-up has run: a rank woken in this turn is running again.
  #scheduleCheck() {
    if (this.checkScheduled) return;
    this.checkScheduled = true;
    setTimeout(() => {
      this.checkScheduled = false;
      const open = this.states.filter((s) => s === "running" || s === "blocked");
      if (!this.deadlocked && open.length && open.every((s) => s === "blocked")) {
        this.deadlocked = true;
        this.onDeadlock();
      }
    }, 0);
  }
}
