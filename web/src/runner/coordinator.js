// The ranks of one case meet here: point-to-point mailboxes, collective rendezvous, and the
// deadlock rule (every rank that has not finished is blocked). Payloads are opaque to it.

export const ANY_SOURCE = -1;
/** What a blocked rank is woken with when the case is abandoned (deadlock): it must unwind. */
export const ABORT = Object.freeze({ abort: true });

export class Coordinator {
  /** @param {number} world  @param {() => void} onDeadlock  called once, when no rank can move */
  constructor(world, onDeadlock) {
    this.world = world;
    this.states = Array(world).fill("running");
    this.waiting = Array(world).fill(null);
    this.onDeadlock = onDeadlock;
    this.deadlocked = false;
    this.mail = []; // {src, dst, tag, payload} in posting order
    this.takers = []; // {dst, src, tag, wake}
    this.meetings = new Map(); // key -> {size, arrived, parts[index], wakes[index]}
    this.checkScheduled = false;
  }

  post(src, dst, tag, payload) {
    const i = this.takers.findIndex((w) => w.dst === dst && w.tag === tag && (w.src === src || w.src === ANY_SOURCE));
    if (i < 0) return void this.mail.push({ src, dst, tag, payload });
    const [taker] = this.takers.splice(i, 1);
    taker.wake({ src, payload });
  }

  /** Resolves with {src, payload} of the first matching message; `op` says what the rank waits in. */
  take(dst, src, tag, op) {
    const i = this.mail.findIndex((m) => m.dst === dst && m.tag === tag && (src === ANY_SOURCE || m.src === src));
    if (i >= 0) {
      const [m] = this.mail.splice(i, 1);
      return Promise.resolve({ src: m.src, payload: m.payload });
    }
    return this.#block(dst, op, (wake) => this.takers.push({ dst, src, tag, wake }));
  }

  /**
   * Resolves, for every rank of a group of `size` that calls with the same `key`, with the list of
   * all contributions ordered by rank within the group (`index`).
   */
  rendezvous(rank, key, size, index, contribution, op) {
    let meeting = this.meetings.get(key);
    if (!meeting) this.meetings.set(key, (meeting = { size, arrived: 0, parts: [], wakes: [] }));
    meeting.parts[index] = contribution;
    if (++meeting.arrived < size) return this.#block(rank, op, (wake) => (meeting.wakes[index] = wake));
    this.meetings.delete(key);
    for (const wake of meeting.wakes) wake?.(meeting.parts);
    return Promise.resolve(meeting.parts);
  }

  /** The rank's program ended ("returned" or "failed"). */
  finish(rank, state) {
    this.states[rank] = state;
    this.waiting[rank] = null;
    this.#scheduleCheck();
  }

  /** Wake every blocked rank with ABORT so its stack unwinds. */
  abortBlocked() {
    const wakes = [...this.takers.map((t) => t.wake), ...[...this.meetings.values()].flatMap((m) => m.wakes)];
    this.takers = [];
    this.meetings.clear();
    for (const wake of wakes) wake?.(ABORT);
  }

  #block(rank, op, register) {
    this.states[rank] = "blocked";
    this.waiting[rank] = op;
    this.#scheduleCheck();
    return new Promise((resolve) =>
      register((value) => {
        if (value !== ABORT) {
          this.states[rank] = "running";
          this.waiting[rank] = null;
        }
        resolve(value);
      }),
    );
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
