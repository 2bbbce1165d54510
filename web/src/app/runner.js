// The main thread's side of the browser runner: one Web Worker holding Pyodide, a watchdog for
// the time limit, and Stop, which terminates the worker and builds a fresh one.

export class Stopped extends Error {}

const GRACE_MS = 2000;

export class Runner {
  /** @param {(state: string, detail?: string) => void} onStatus  loading | ready | busy | failed */
  constructor(onStatus) {
    this.onStatus = onStatus;
    this.mode = new URLSearchParams(location.search).get("runner") ?? "auto";
    this.#start();
  }

  #start() {
    this.readyMode = null;
    this.onStatus("loading");
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => {
        if (data.type === "ready") {
          this.readyMode = data.mode;
          this.onStatus("ready", data.mode);
          resolve();
        } else if (data.type === "failed") {
          this.onStatus("failed", data.error);
          reject(new Error(data.error));
        } else this.job?.onMessage(data);
      };
    });
    this.ready.catch(() => {});
    this.worker.postMessage({ type: "boot", mode: this.mode });
  }

  /**
   * Run the tests of `exercise` on `code` (`samples` only, or all); `onCase` sees each graded case.
   * Resolves with the verdict JSON; rejects with Stopped when stopped.
   */
  async run(exercise, code, samples, onCase) {
    await this.ready;
    this.onStatus("busy");
    const request = { exercise, code, samples, graded: [] };
    try {
      return await new Promise((resolve, reject) => {
        this.job = { request, resolve, reject, onMessage: (data) => this.#onJobMessage(data, onCase) };
        this.worker.postMessage({ type: "run", ...request });
      });
    } finally {
      clearTimeout(this.watchdog);
      this.job = null;
      if (this.readyMode) this.onStatus("ready", this.readyMode);
    }
  }

  #onJobMessage(data, onCase) {
    const job = this.job;
    if (data.type === "case-start") this.#watch(data.name, data.limit_s);
    else if (data.type === "case") {
      clearTimeout(this.watchdog);
      job.request.graded.push(data.case);
      onCase(data.case);
    } else if (data.type === "done") job.resolve(data.result);
    else if (data.type === "error") job.reject(new Error(data.error));
  }

  // A rank spinning in Python never yields, so the limit is kept here: past it the worker is
  // killed, and a fresh one grades that case as time_limit and finishes the verdict.
  #watch(name, limitS) {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(async () => {
      const job = this.job;
      this.#restart();
      this.job = job;
      try {
        await this.ready;
      } catch (error) {
        return job.reject(error);
      }
      this.onStatus("busy");
      this.worker.postMessage({ type: "timeout", name, ...job.request });
    }, limitS * 1000 + GRACE_MS);
  }

  #restart() {
    this.worker.terminate();
    this.#start();
  }

  /** Stop whatever runs now: the worker is terminated and a fresh one is started. */
  stop() {
    clearTimeout(this.watchdog);
    const job = this.job;
    this.job = null;
    this.#restart();
    job?.reject(new Stopped());
  }
}
