// The workers path, without JSPI (needs cross-origin isolation): this worker's Pyodide runs the
// judge and holds each case's switch; the hub worker drives one worker per rank, and while a
// case runs this worker blocks in Atomics.wait for the ranks' requests (cjudge_web/wire.py).
import { CaseEventHub } from "./case-events.js";
import { caller, newBell, newChannel, Switchboard } from "./sync-call.js";

export class WorkersHub extends CaseEventHub {
  /**
   * @param serve  Python `cjudge_web.wire.serve(case, board)`
   * @param snapshot  this worker's Pyodide memory snapshot (bytes) to start the rank workers from, or null
   */
  constructor(pyodideUrl, post, serve, snapshot = null) {
    super(post);
    this.serve = serve;
    this.channels = [];
    this.rankBoots = []; // how each rank worker started ("snapshot" or "fresh"), by rank
    this.bell = newBell();
    const channel = newChannel();
    this.worker = new Worker(new URL("./hub-worker.js", import.meta.url), { type: "module" });
    let shared = null; // one copy that every rank worker reads
    if (snapshot) (shared = new Uint8Array(new SharedArrayBuffer(snapshot.byteLength))).set(snapshot);
    this.worker.postMessage({ type: "boot", pyodideUrl, judgeChannel: channel, snapshot: shared?.buffer });
    this.call = caller(this.worker, channel);
    // The hub worker must be running before this thread first blocks: its start needs this thread.
    this.started = new Promise((resolve) => (this.worker.onmessage = resolve));
  }

  /** Block until `world` rank workers have started their Pyodide. */
  prepare(world) {
    const boots = this.call({ prepare: world });
    this.rankBoots = boots.length > this.rankBoots.length ? boots : this.rankBoots;
  }

  /** Run the Python `judge(...args, hub)`: it blocks this worker until the verdict. */
  async judge(judge, ...args) {
    return judge(...args, this);
  }

  /** As JspiHub.run_case, the ranks in their workers and the case's switch served from here. */
  run_case(pyCase, jobJson, name, limitS) {
    const world = pyCase.world;
    this.prepare(world);
    while (this.channels.length < world) this.channels.push(newChannel());
    const channels = this.channels.slice(0, world);
    this.ranks_started(name, limitS);
    pyCase.start();
    this.worker.postMessage({ run: { job: jobJson, channels, bell: this.bell } });
    this.serve(pyCase, new Switchboard(channels, this.bell));
  }
}
