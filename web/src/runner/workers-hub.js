// The fallback without JSPI: this worker's Pyodide runs the judge and blocks (Atomics.wait) in
// run_case while the hub worker drives one worker per rank (needs cross-origin isolation).
import { ProgressHub } from "./progress.js";
import { caller, newChannel } from "./sync-call.js";

export class WorkersHub extends ProgressHub {
  constructor(pyodideUrl, kernel, post) {
    super(post);
    const channel = newChannel();
    const worker = new Worker(new URL("./hub-worker.js", import.meta.url), { type: "module" });
    worker.postMessage({ type: "boot", pyodideUrl, kernel, judgeChannel: channel });
    this.call = caller(worker, channel);
    // The hub worker must be running before this thread first blocks: its start needs this thread.
    this.started = new Promise((resolve) => (worker.onmessage = resolve));
  }

  /** Block until `world` rank workers have started their Pyodide. */
  prepare(world) {
    this.call({ prepare: world });
  }

  /** Run the Python `judge(...args, hub)`: it blocks this worker until the verdict. */
  async judge(judge, ...args) {
    return judge(...args, this);
  }

  /** As JspiHub.run_case, the ranks in their workers. */
  run_case(jobJson, specsJson) {
    const specs = JSON.parse(specsJson);
    const spec = JSON.parse(specs[0]);
    this.prepare(spec.world_size);
    this.ranks_started(JSON.parse(jobJson), spec);
    return this.call({ job: jobJson, specs });
  }
}
