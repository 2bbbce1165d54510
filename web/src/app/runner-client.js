// The main thread's side of the browser runner (its workers are in web/src/runner/): the download
// of Python (counted in bytes, for the status line's bar, with a watchdog that names the file that
// failed), one Web Worker holding Pyodide, a watchdog for the time limit, and Stop, which
// terminates the worker and builds a fresh one.

export class Stopped extends Error {}

const GRACE_MS = 2000;
/** No byte of any file for this long, or no answer from a started worker: loading failed. */
export const STALL_MS = 30_000;
const BOOT_MS = 90_000;

/**
 * The files the worker loads, fetched here first so that their bytes can be counted (the
 * worker's own requests then find them in the HTTP cache). `manifest.json` (written by the
 * build) gives their sizes. A page the service worker controls skips it: that worker is active
 * only once its install has cached every file (sw.js), so there is nothing to download, and
 * reading 45 MB through it for a bar took 0.4 s of a warm reload. (Starting the runner worker
 * during the download instead of after it was tried: on two busy cores it gained nothing.)
 */
async function download(onBytes, signal) {
  if (globalThis.navigator?.serviceWorker?.controller) return;
  const base = new URL(".", import.meta.url);
  let manifest;
  try {
    manifest = await (await fetch(new URL("manifest.json", base), { signal })).json();
  } catch {
    return; // an older build: the worker loads without a download bar
  }
  const total = Object.values(manifest.files).reduce((a, b) => a + b, 0);
  const loaded = Object.fromEntries(Object.keys(manifest.files).map((f) => [f, 0]));
  const report = () => onBytes({ loaded: Object.values(loaded).reduce((a, b) => a + b, 0), total });
  let lastByte = Date.now();
  const controller = new AbortController();
  signal.addEventListener("abort", () => controller.abort());
  let stalled = null;
  const watchdog = setInterval(() => {
    if (Date.now() - lastByte < STALL_MS) return;
    const file = Object.keys(loaded).find((f) => loaded[f] < manifest.files[f]);
    stalled = { file, why: "stalled" };
    controller.abort();
  }, 1000);
  try {
    await Promise.all(Object.keys(manifest.files).map(async (file) => {
      let response;
      try {
        response = await fetch(new URL(file, base), { signal: controller.signal });
      } catch {
        throw stalled ?? { file, why: "network" };
      }
      if (!response.ok) throw { file, why: `HTTP ${response.status}` };
      const reader = response.body.getReader();
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch {
          throw stalled ?? { file, why: "network" };
        }
        if (chunk.done) break;
        loaded[file] += chunk.value.byteLength;
        lastByte = Date.now();
        report();
      }
    }));
  } catch (failure) {
    controller.abort();
    throw failure;
  } finally {
    clearInterval(watchdog);
  }
}

export class RunnerClient {
  #asked = new Map(); // request id -> its answer's handler (perfetto, timeline)
  #nextAsk = 0;

  /**
   * @param {(state: string, detail?: any) => void} onStatus  loading ({loaded, total} bytes while
   *   downloading) | ready (the mode) | busy | failed ({file, why} or {error})
   */
  constructor(onStatus) {
    this.onStatus = onStatus;
    this.mode = new URLSearchParams(location.search).get("runner") ?? "auto";
    this.#load();
  }

  /** Download, then start the worker; on failure the status says which file, and `retry` starts over. */
  #load() {
    this.onStatus("loading");
    this.aborter?.abort();
    const aborter = (this.aborter = new AbortController());
    this.ready = download((p) => this.onStatus("loading", p), aborter.signal).then(
      () => this.#start(),
      (failure) => {
        this.onStatus("failed", failure);
        throw new Error(`${failure.file}: ${failure.why}`);
      },
    );
    this.ready.catch(() => {});
  }

  /** Load again after a failure. */
  retry() {
    this.worker?.terminate();
    this.worker = null;
    this.#load();
  }

  /** A fresh worker; `warm`: it warms its Python up once ready (not when it only grades a time limit). */
  #start(warm = true) {
    this.readyMode = null;
    this.onStatus("loading");
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    const ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail({ file: "worker.js", why: "timeout" }), BOOT_MS);
      const fail = (failure) => {
        clearTimeout(timer);
        this.onStatus("failed", failure);
        reject(new Error(failure.error ?? failure.why));
      };
      this.worker.onerror = (event) => fail({ error: event.message ?? "worker error" });
      this.worker.onmessage = ({ data }) => {
        if (data.type === "ready") {
          clearTimeout(timer);
          this.readyMode = data.mode;
          this.kernelVersion = data.kernel; // cjudge.__version__ of the wheel the worker loaded
          this.onStatus("ready", data.mode);
          resolve();
        } else if (data.type === "failed") fail({ error: data.error });
        else if (data.type === "perfetto" || data.type === "timeline") this.#asked.get(data.id)?.(data);
        else this.job?.onMessage(data);
      };
    });
    this.worker.postMessage({ type: "boot", mode: this.mode, warm });
    return ready;
  }

  /**
   * Run the tests of `exercise` on `code` (`samples` only, or all); `onCase` sees each graded
   * case, `onCaseStart(name, limitS)` each case as its ranks start.
   * Resolves with the verdict JSON; rejects with Stopped when stopped.
   */
  async run(exercise, code, samples, { onCase, onCaseStart = () => {} }) {
    await this.ready;
    this.onStatus("busy");
    const request = { exercise, code, samples, graded: [] };
    try {
      return await new Promise((resolve, reject) => {
        this.job = { request, resolve, reject, onMessage: (data) => this.#onJobMessage(data, onCase, onCaseStart) };
        this.worker.postMessage({ type: "run", ...request });
      });
    } finally {
      clearTimeout(this.watchdog);
      this.job = null;
      if (this.readyMode) this.onStatus("ready", this.readyMode);
    }
  }

  #onJobMessage(data, onCase, onCaseStart) {
    const job = this.job;
    if (data.type === "case-start") {
      this.#watch(data.name, data.limit_s);
      onCaseStart(data.name, data.limit_s);
    } else if (data.type === "case") {
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
      this.#restart(false); // not warmed up: the verdict waits for this worker
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

  #restart(warm = true) {
    this.worker?.terminate();
    for (const answer of [...this.#asked.values()]) answer({ error: "the runner was restarted" });
    this.ready = this.#start(warm);
    this.ready.catch(() => {});
  }

  /** The Chrome trace-event JSON (text) of a graded case `c`, made by the kernel in the worker. */
  perfetto(c, title) {
    return this.#ask({ type: "perfetto", case: c, title }, (data) => data.trace);
  }

  /**
   * The run view (`timeline`) of case `name` of the latest run (of `exercise`), drawn by the kernel in the worker
   * when the page shows it; null when the worker no longer keeps that run (cjudge_web.judge).
   */
  timeline(exercise, name) {
    return this.#ask({ type: "timeline", exercise, name }, (data) => data.timeline);
  }

  /** Ask the worker `request`; resolves with `answer(data)` of its reply, rejects on its error. */
  async #ask(request, answer) {
    await this.ready;
    const id = this.#nextAsk++;
    return new Promise((resolve, reject) => {
      this.#asked.set(id, (data) => {
        this.#asked.delete(id);
        if (data.error) reject(new Error(data.error));
        else resolve(answer(data));
      });
      this.worker.postMessage({ id, ...request });
    });
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
