// The JSPI path's scheduler: it resumes ranks, and matches nothing. The case's one switch is a
// Python object in the same Pyodide (cjudge_web/case.py: BrowserCase); a rank's posts call it
// directly, and a rank whose request is not done suspends on block(). Whenever a rank hands
// control back (it blocks, polls or ends), the scheduler resumes the ranks the switch woke and
// asks the case whether it is over (every rank finished, a deadlock, the time limit...); when
// it is, every blocked rank is resumed with ABORT and unwinds.

/** What a blocked rank's promise settles with. */
export const RESUME = 1;
export const ABORT = 0;

export class Scheduler {
  /**
   * @param {{take_woken: () => number[], check: () => boolean}} pyCase  the case (a PyProxy):
   *   the ranks the switch woke since the last call, and whether the case is over
   */
  constructor(pyCase) {
    this.case = pyCase;
    this.parked = new Map(); // rank -> resolve of its block() promise
    this.over = false;
  }

  /** The rank waits on a request the switch has not completed: settles RESUME or ABORT. */
  block(rank) {
    const resumed = new Promise((resolve) => this.parked.set(rank, resolve));
    this.step();
    return resumed;
  }

  /** A turn for the other ranks (a rank polling a request): settles RESUME or ABORT. */
  pause() {
    this.step();
    return Promise.resolve(this.over ? ABORT : RESUME);
  }

  /** Resume the woken ranks; if the case is over, abort the blocked ones. */
  step() {
    if (this.over) return;
    for (const rank of this.case.take_woken()) this.#resume(rank, RESUME);
    if (!this.case.check()) return;
    this.over = true;
    for (const rank of [...this.parked.keys()]) this.#resume(rank, ABORT);
  }

  #resume(rank, value) {
    const resolve = this.parked.get(rank);
    if (!resolve) throw new Error(`rank ${rank} was woken but is not blocked`);
    this.parked.delete(rank);
    resolve(value);
  }
}
