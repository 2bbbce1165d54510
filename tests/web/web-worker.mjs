// Web Workers under Node (worker_threads), enough for the runner's workers path: `installWorker()`
// makes `Worker` global; inside, the module runs with `onmessage`, `postMessage`, `self` and
// `Worker` as in a browser (messages that arrive while it loads wait for it).
import { isMainThread, parentPort, Worker as NodeWorker, workerData } from "node:worker_threads";

class WebWorker {
  constructor(url) {
    this.worker = new NodeWorker(new URL(import.meta.url), { workerData: { url: String(url) } });
    this.worker.on("message", (data) => this.onmessage?.({ data }));
    this.worker.on("error", (error) => (this.onerror ? this.onerror(error) : console.error(error)));
  }

  postMessage(message) {
    this.worker.postMessage(message);
  }

  terminate() {
    return this.worker.terminate();
  }
}

/** Make `Worker` a global of this thread. */
export const installWorker = () => (globalThis.Worker = WebWorker);

if (!isMainThread && workerData?.url) {
  installWorker();
  const early = [];
  globalThis.self = globalThis;
  globalThis.onmessage = null;
  globalThis.postMessage = (message) => parentPort.postMessage(message);
  parentPort.on("message", (data) => (globalThis.onmessage ? globalThis.onmessage({ data }) : early.push(data)));
  await import(workerData.url);
  for (const data of early.splice(0)) globalThis.onmessage?.({ data });
}
